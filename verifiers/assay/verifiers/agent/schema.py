"""Tool schemas (OpenAI function format) and strict checking of call arguments.

A tool is ``{"type": "function", "function": {"name", "description", "parameters"}}`` or the
bare ``{"name", "parameters"}``; ``parameters`` is a JSON Schema object. The checker supports
the subset tool schemas use: ``type`` (one or a list; BFCL's ``float``, ``dict``, ``tuple`` and
``any`` too), ``enum``, ``const``, ``properties``, ``required``, ``additionalProperties``,
``items``, ``minItems``/``maxItems``, ``minimum``/``maximum`` (and the exclusive ones),
``minLength``/``maxLength``, ``pattern``, ``anyOf``/``oneOf``. Other keywords (``description``,
``default``, ``format``...) do not constrain.

Types are strict: ``integer`` takes an int and nothing else (not ``"10"``, not ``10.0``, not
``True``); ``number`` takes an int or a float (not a bool, not a string); ``boolean`` takes
only ``true``/``false`` (not ``1``). At the top level, an argument the schema does not declare
is *invented* and always an error, whatever ``additionalProperties`` says.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from assay.errors import MalformedTaskError
from assay.types import JSON

_TYPE_ALIASES = {"float": "number", "dict": "object", "tuple": "array", "list": "array"}


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One callable tool: its name and the JSON Schema of its arguments."""

    name: str
    parameters: Mapping[str, JSON] = field(default_factory=dict)
    description: str = ""

    @property
    def properties(self) -> Mapping[str, JSON]:
        props = self.parameters.get("properties") or {}
        return props if isinstance(props, Mapping) else {}

    @property
    def required(self) -> tuple[str, ...]:
        required = self.parameters.get("required") or ()
        return tuple(str(r) for r in required) if isinstance(required, list) else ()


def parse_tools(tools: JSON) -> dict[str, ToolSpec]:
    """Tool specs by name from an OpenAI ``tools`` list.

    Raises:
        MalformedTaskError: not a list, a tool without a name, a duplicate name, or parameters
            that are not a JSON Schema object.
    """
    if not isinstance(tools, list):
        raise MalformedTaskError(f"tools must be a list, got {type(tools).__name__}")
    specs: dict[str, ToolSpec] = {}
    for position, tool in enumerate(tools):
        if not isinstance(tool, Mapping):
            raise MalformedTaskError(f"tools[{position}] is not an object")
        function = tool.get("function", tool)
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise MalformedTaskError(f"tools[{position}] has no function name")
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        if not isinstance(parameters, Mapping):
            raise MalformedTaskError(f"tools[{position}].parameters is not a JSON Schema object")
        name = function["name"]
        if name in specs:
            raise MalformedTaskError(f"tool {name!r} is declared twice")
        description = function.get("description")
        specs[name] = ToolSpec(
            name, parameters, description if isinstance(description, str) else ""
        )
    return specs


def check_arguments(spec: ToolSpec, arguments: Mapping[str, JSON]) -> list[str]:
    """Every problem of a call's arguments against its tool's schema (empty when valid)."""
    problems = [
        f"missing required argument {name!r}" for name in spec.required if name not in arguments
    ]
    properties = spec.properties
    for name, value in arguments.items():
        schema = properties.get(name)
        if schema is None:
            problems.append(f"invented argument {name!r} (not in the schema)")
        elif isinstance(schema, Mapping):
            problems.extend(check_value(value, schema, name))
    return problems


def check_value(value: JSON, schema: Mapping[str, JSON], path: str) -> list[str]:
    """Problems of one value against a (sub)schema; ``path`` names it in messages."""
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        alternatives = [o for o in options or () if isinstance(o, Mapping)]
        if alternatives and all(check_value(value, o, path) for o in alternatives):
            return [f"{path}: {value!r} matches none of the {key} options"]
    declared = schema.get("type")
    if declared is not None:
        types = declared if isinstance(declared, list) else [declared]
        if not any(_is_type(value, str(t)) for t in types):
            wanted = " or ".join(_TYPE_ALIASES.get(str(t), str(t)) for t in types)
            return [f"{path}: expected {wanted}, got {_json_type(value)} {value!r}"]
    problems: list[str] = []
    enum = schema.get("enum")
    if isinstance(enum, list) and not any(_same(value, option) for option in enum):
        problems.append(f"{path}: {value!r} is not one of {enum!r}")
    if "const" in schema and not _same(value, schema["const"]):
        problems.append(f"{path}: {value!r} is not {schema['const']!r}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        problems.extend(_bounds(value, schema, path))
    elif isinstance(value, str):
        problems.extend(_string(value, schema, path))
    elif isinstance(value, list):
        problems.extend(_array(value, schema, path))
    elif isinstance(value, Mapping):
        problems.extend(_object(value, schema, path))
    return problems


def _is_type(value: JSON, name: str) -> bool:
    kind = _TYPE_ALIASES.get(name, name)
    if kind == "any":
        return True
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))
    checks: dict[str, type | tuple[type, ...]] = {
        "string": str, "boolean": bool, "array": list, "object": dict, "null": type(None),
    }  # fmt: skip
    wanted = checks.get(kind)
    return wanted is not None and isinstance(value, wanted)


def _json_type(value: JSON) -> str:
    for kind in ("boolean", "integer", "number", "string", "array", "object", "null"):
        if _is_type(value, kind):
            return kind
    return type(value).__name__


def _same(value: JSON, option: JSON) -> bool:
    if isinstance(value, bool) or isinstance(option, bool):
        return type(value) is type(option) and value == option
    return bool(value == option)


def _holds(value: float, key: str, bound: float) -> bool:
    if key == "minimum":
        return value >= bound
    if key == "maximum":
        return value <= bound
    if key == "exclusiveMinimum":
        return value > bound
    return value < bound


_BOUNDS = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}


def _bounds(value: float, schema: Mapping[str, JSON], path: str) -> list[str]:
    problems = []
    for key, symbol in _BOUNDS.items():
        bound = schema.get(key)
        if isinstance(bound, bool) or not isinstance(bound, int | float):
            continue
        if not _holds(value, key, bound):
            problems.append(f"{path}: {value!r} is not {symbol} {bound!r}")
    return problems


def _string(value: str, schema: Mapping[str, JSON], path: str) -> list[str]:
    problems = []
    if isinstance(schema.get("minLength"), int) and len(value) < schema["minLength"]:
        problems.append(f"{path}: shorter than {schema['minLength']} characters")
    if isinstance(schema.get("maxLength"), int) and len(value) > schema["maxLength"]:
        problems.append(f"{path}: longer than {schema['maxLength']} characters")
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and re.search(pattern, value) is None:
        problems.append(f"{path}: {value!r} does not match {pattern!r}")
    return problems


def _array(value: Sequence[JSON], schema: Mapping[str, JSON], path: str) -> list[str]:
    problems = []
    if isinstance(schema.get("minItems"), int) and len(value) < schema["minItems"]:
        problems.append(f"{path}: fewer than {schema['minItems']} items")
    if isinstance(schema.get("maxItems"), int) and len(value) > schema["maxItems"]:
        problems.append(f"{path}: more than {schema['maxItems']} items")
    items = schema.get("items")
    if isinstance(items, Mapping):
        for index, item in enumerate(value):
            problems.extend(check_value(item, items, f"{path}[{index}]"))
    return problems


def _object(value: Mapping[str, JSON], schema: Mapping[str, JSON], path: str) -> list[str]:
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    required = schema.get("required")
    problems = [
        f"{path}: missing required key {key!r}"
        for key in (required if isinstance(required, list) else ())
        if key not in value
    ]
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        sub = properties.get(key)
        if isinstance(sub, Mapping):
            problems.extend(check_value(item, sub, f"{path}.{key}"))
        elif extra is False:
            problems.append(f"{path}: unexpected key {key!r}")
        elif isinstance(extra, Mapping):
            problems.extend(check_value(item, extra, f"{path}.{key}"))
    return problems
