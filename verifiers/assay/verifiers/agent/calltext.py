"""Tool calls written as text: BFCL's two output forms and Hermes/Qwen ``<tool_call>`` blocks.

The two forms of a call (docs/agent.md, "Call forms"):

- **Python-call text** (BFCL's prompting / AST form): ``[func(a=1, b="x"), mod.g(c=[1, 2])]``
  or a bare ``func(a=1)``. Read with :mod:`ast`, never evaluated: only literal values count
  (numbers, strings, ``True``/``False``/``None``, lists, tuples (read as lists), dicts, a
  leading minus). A name, an expression or a nested call where a value belongs, or a
  positional argument, cannot match a parameter: the call is kept with a ``problem`` saying so
  (an invalid call), never silently compared.
- **JSON calls** (OpenAI ``tool_calls``, BFCL's FC results, Hermes/Qwen blocks): a list of
  ``{"name": ..., "arguments": {...}}`` objects (``arguments`` may be a JSON string; OpenAI's
  ``{"function": {...}}`` wrapper is read too) or of BFCL's ``{"func": {...}}`` /
  ``{"func": "{...}"}`` one-key objects.

``<tool_call>{...}</tool_call>`` blocks in an assistant message are JSON calls; text around them
(a ``<think>`` block, prose) is the message's content. A block whose JSON cannot be read is a
call named ``<tool_call>`` with its problem: an invalid call.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from assay.errors import AssayError
from assay.types import JSON

TOOL_CALL_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_FENCE = re.compile(r"^```[\w-]*\s*\n?(.*?)\n?```$", re.DOTALL)
_PY_CALL_START = re.compile(r"^\[?\s*[A-Za-z_][\w.]*\s*\(")
UNREADABLE_NAME = "<tool_call>"
"""Name given to a Hermes block whose JSON cannot be read."""


class CallTextError(AssayError):
    """Text that is written as calls but cannot be read as any call form."""


@dataclass(frozen=True, slots=True)
class TextCall:
    """One call read from text: name, decoded arguments (``None`` when unusable), problem."""

    name: str
    arguments: Mapping[str, JSON] | None
    problem: str | None = None


def split_tool_call_tags(text: str) -> tuple[str, list[TextCall]] | None:
    """``(text outside the blocks, calls)`` of Hermes/Qwen ``<tool_call>`` text, else ``None``."""
    if "<tool_call>" not in text:
        return None
    calls: list[TextCall] = []
    for block in TOOL_CALL_TAG.findall(text):
        calls.extend(_hermes_block(block.strip()))
    rest = TOOL_CALL_TAG.sub("", text).strip()
    return rest, calls


def _hermes_block(body: str) -> list[TextCall]:
    try:
        value = json.loads(body)
    except (ValueError, RecursionError) as exc:
        return [TextCall(UNREADABLE_NAME, None, f"<tool_call> JSON unreadable: {str(exc)[:200]}")]
    try:
        return json_calls(value if isinstance(value, list) else [value])
    except CallTextError as exc:
        return [TextCall(UNREADABLE_NAME, None, str(exc))]


def looks_like_calls(text: str) -> bool:
    """Whether a response is written as calls (JSON list/object or Python-call text)."""
    body = _unfenced(text)
    if not body:
        return False
    return body[0] in "[{" or _PY_CALL_START.match(body) is not None


def _unfenced(text: str) -> str:
    body = text.strip()
    fenced = _FENCE.match(body)
    return fenced.group(1).strip() if fenced else body


def read_calls(text: str) -> list[TextCall]:
    """Calls of a response written in either form (see the module docstring).

    Raises:
        CallTextError: the text is written as calls (it starts like a JSON list or object, or
            like ``name(``) but is no readable call form; the message says why.
    """
    body = _unfenced(text)
    if body[:1] in "[{":
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):
            value = None
        else:
            return json_calls(value if isinstance(value, list) else [value])
    return python_calls(body)


def json_calls(items: list[JSON]) -> list[TextCall]:
    """Calls from decoded JSON: ``{name, arguments}``, ``{function: {...}}`` or ``{func: args}``.

    Raises:
        CallTextError: an item in none of these shapes.
    """
    calls = []
    for position, raw_item in enumerate(items):
        item = raw_item
        if isinstance(item, Mapping) and isinstance(item.get("function"), Mapping):
            item = item["function"]
        if not isinstance(item, Mapping):
            raise CallTextError(f"call {position} is {type(item).__name__}, not an object")
        if isinstance(item.get("name"), str):
            raw: JSON = item.get("arguments", item.get("parameters"))
            name = item["name"]
        elif len(item) == 1:
            ((name, raw),) = item.items()
        else:
            raise CallTextError(
                f"call {position} is neither {{name, arguments}} nor {{function_name: arguments}}"
            )
        arguments, problem = _decode(raw)
        calls.append(TextCall(str(name), arguments, problem))
    return calls


def _decode(raw: JSON) -> tuple[Mapping[str, JSON] | None, str | None]:
    if raw is None:
        return {}, None
    if isinstance(raw, Mapping):
        return raw, None
    if isinstance(raw, str):
        try:
            value = json.loads(raw) if raw.strip() else {}
        except (ValueError, RecursionError) as exc:
            return None, f"arguments are not valid JSON: {str(exc)[:200]}"
        if isinstance(value, dict):
            return value, None
        return None, f"arguments decode to {type(value).__name__}, not an object"
    return None, f"arguments are {type(raw).__name__}, not an object"


def python_calls(text: str) -> list[TextCall]:
    """Calls of Python-call text, read with :mod:`ast` (never evaluated).

    Raises:
        CallTextError: not Python, or not a call / list of calls.
    """
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise CallTextError(f"not Python-call text: {str(exc)[:200]}") from None
    node = tree.body
    elements = node.elts if isinstance(node, ast.List | ast.Tuple) else [node]
    calls = []
    for position, element in enumerate(elements):
        if not isinstance(element, ast.Call):
            raise CallTextError(f"element {position} of the Python-call text is not a call")
        name = _dotted(element.func)
        if name is None:
            raise CallTextError(f"call {position} has no plain (dotted) function name")
        calls.append(_python_call(name, element))
    return calls


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _python_call(name: str, node: ast.Call) -> TextCall:
    if node.args:
        return TextCall(name, None, "positional arguments cannot be matched to parameter names")
    arguments: dict[str, JSON] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            return TextCall(name, None, "**kwargs cannot be matched to parameter names")
        try:
            arguments[keyword.arg] = _literal(keyword.value)
        except CallTextError as exc:
            return TextCall(name, None, f"argument {keyword.arg!r}: {exc}")
    return TextCall(name, arguments)


def _literal(node: ast.expr) -> JSON:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str | int | float | bool) or node.value is None:
            return node.value
        raise CallTextError(f"{type(node.value).__name__} is not a JSON value")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _literal(node.operand)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise CallTextError("a sign before something that is not a number")
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[str, JSON] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                raise CallTextError("a dict key that is not a string")
            out[key.value] = _literal(value)
        return out
    shown = ast.unparse(node)[:80]
    raise CallTextError(f"{shown!r} is not a literal value (a name or expression cannot match)")
