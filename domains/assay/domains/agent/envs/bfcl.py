"""BFCL v4's multi-turn environments (the ``bfcl-eval`` package) as assay replay environments.

Extra: ``assay[bfcl]`` plus ``pip install --no-deps bfcl-eval==2026.3.23`` (its own pins fight
assay's; the environment classes need only ``mpmath``). The classes are BFCL's own, imported,
never copied: ``GorillaFileSystem``, ``MathAPI``, ``MessageAPI``, ``TwitterAPI``,
``TicketAPI``, ``TradingBot``, ``TravelAPI``, ``VehicleControlAPI``.

A :class:`BfclWorld` holds fresh instances of a task's ``involved_classes``, each loaded from its
``initial_config`` entry, and runs calls on them. BFCL's own harness runs a call by ``eval`` of
the model's text; here nothing the response writes is evaluated. A call is a name and literal
arguments (:func:`parse_call_text` reads ``f(a=1, b='x')`` with :mod:`ast` literals only), and
it is dispatched only to a *public* method defined on an involved class: a name that starts with
``_`` or text that is not a plain call with literal arguments raises :class:`UnsafeCall` (the
response's fault), an unknown name or arguments the method's signature refuses is an error
result, as BFCL's harness reports it. Arguments that would cost too much to run
(:data:`COSTLY_INTEGER_BITS`, :data:`MAX_PRECISION`) raise :class:`assay.blame.ResponseFault`.

Results are text, the way BFCL's checker compares them: a string as it is, a dict as JSON (its
``str`` when not JSON-able), anything else its ``str``; an exception is
``"Error during execution: <message>"``.
"""

from __future__ import annotations

import ast
import copy
import decimal
import functools
import importlib
import inspect
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.blame import TOO_COSTLY, ResponseFault
from assay.errors import AssayError, MalformedTaskError, PluginError
from assay.types import JSON

MULTI_TURN_CLASSES = (
    "GorillaFileSystem", "MathAPI", "MessageAPI", "TwitterAPI", "TicketAPI", "TradingBot",
    "TravelAPI", "VehicleControlAPI",
)  # fmt: skip
"""BFCL's classes of the multi-turn categories (web search and memory need network/models)."""
BFCL_EVAL_VERSION = "2026.3.23"
MAX_CALL_TEXT = 200_000
"""Longest text of one call (and of its JSON arguments)."""
COSTLY_INTEGER_BITS = 100_000
"""An integer power whose result would have more bits than this is too costly to run."""
MAX_PRECISION = 10_000
"""Largest ``precision`` (digits) MathAPI's mpmath / decimal calls may be asked for."""
ERROR_PREFIX = "Error during execution: "


class UnsafeCall(AssayError):  # noqa: N818 - a verdict reason, like ResponseFault
    """Call text that is not a plain call of a public name with literal arguments."""


class NotCallText(UnsafeCall):
    """Text with no call in it at all (a model chatting): BFCL's decoder skips such a step."""


@dataclass(frozen=True, slots=True)
class BfclCall:
    """One call: a function name, positional and keyword arguments (literal values)."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"


@functools.cache
def _bfcl_module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise PluginError(
            f"BFCL environments need bfcl-eval: pip install 'assay[bfcl]' && "
            f"pip install --no-deps bfcl-eval=={BFCL_EVAL_VERSION} ({exc})"
        ) from exc


def bfcl_class(name: str) -> type:
    """BFCL's environment class ``name`` (one of :data:`MULTI_TURN_CLASSES`)."""
    if name not in MULTI_TURN_CLASSES:
        raise MalformedTaskError(
            f"unknown BFCL class {name!r}; known: {', '.join(MULTI_TURN_CLASSES)}"
        )
    config = _bfcl_module("bfcl_eval.constants.executable_backend_config")
    cls = getattr(_bfcl_module(config.CLASS_FILE_PATH_MAPPING[name]), name)
    if not isinstance(cls, type):
        raise PluginError(f"bfcl-eval's {name} is not a class")
    return cls


@functools.cache
def public_methods(cls: type) -> tuple[str, ...]:
    """Names of the public methods a class defines (what a call may reach)."""
    return tuple(
        sorted(
            name
            for name, member in inspect.getmembers(cls, inspect.isfunction)
            if not name.startswith("_")
        )
    )


@functools.cache
def _signature(cls: type, name: str) -> inspect.Signature:
    """The signature of a method without ``self``."""
    signature = inspect.signature(getattr(cls, name))
    return signature.replace(parameters=list(signature.parameters.values())[1:])


# ----------------------------------------------------------------------------- call text


def parse_call_text(text: str) -> BfclCall:
    """``f(a=1, b='x')`` to a :class:`BfclCall`; raises :class:`UnsafeCall` otherwise."""
    calls = parse_calls_text(text)
    if len(calls) != 1:
        raise UnsafeCall(f"expected one call, got {len(calls)} in {text[:120]!r}")
    return calls[0]


def parse_calls_text(text: str) -> list[BfclCall]:
    """One call, or a list / tuple of calls (``[f(a=1), g()]``), with literal arguments only."""
    if len(text) > MAX_CALL_TEXT:
        raise ResponseFault(
            TOO_COSTLY, f"call text of {len(text)} characters", {"limit": MAX_CALL_TEXT}
        )
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        if "integer string conversion" in str(exc.msg):
            raise ResponseFault(
                TOO_COSTLY, f"an integer literal too long to read: {exc.msg}"[:300], {}
            ) from None
        raise NotCallText(f"not Python call syntax: {exc.msg}: {text[:120]!r}") from None
    body = tree.body
    nodes = body.elts if isinstance(body, ast.List | ast.Tuple) else [body]
    return [_call_of(node, text) for node in nodes]


def _call_of(node: ast.expr, text: str) -> BfclCall:
    if not any(isinstance(part, ast.Call) for part in ast.walk(node)):
        raise NotCallText(f"no call in {text[:120]!r}")
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise UnsafeCall(f"not a call of a plain function name: {text[:120]!r}")
    name = node.func.id
    check_name(name)
    if any(isinstance(a, ast.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords
    ):
        raise UnsafeCall(f"{name}: *args / **kwargs are not literal arguments")
    try:
        args = tuple(ast.literal_eval(a) for a in node.args)
        kwargs = {str(k.arg): ast.literal_eval(k.value) for k in node.keywords}
    except ValueError as exc:
        if "integer string conversion" in str(exc):
            raise  # too long an integer: response_owned makes it the response's fault
        raise UnsafeCall(f"{name}: an argument is not a literal value ({exc})") from None
    return BfclCall(name, args, kwargs)


def check_name(name: str) -> None:
    """Raise :class:`UnsafeCall` for a name a call may never reach (private, dunder, dotted)."""
    if not name.isidentifier() or name.startswith("_"):
        raise UnsafeCall(f"{name[:80]!r} is not a public function name")


# ----------------------------------------------------------------------------- cost guards


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _guard_power(arguments: Mapping[str, Any]) -> None:
    base, exponent = _integer(arguments.get("base")), _integer(arguments.get("exponent"))
    if base is None or exponent is None or exponent <= 0 or abs(base) < 2:
        return
    bits = exponent * math.log2(abs(base))
    if bits > COSTLY_INTEGER_BITS:
        raise ResponseFault(
            TOO_COSTLY,
            f"power(base={base}, exponent={exponent}) has about {bits:.3g} bits",
            {"bits": bits, "limit": COSTLY_INTEGER_BITS},
        )


def _guard_precision(arguments: Mapping[str, Any]) -> None:
    precision = _integer(arguments.get("precision"))
    if precision is not None and precision > MAX_PRECISION:
        raise ResponseFault(
            TOO_COSTLY,
            f"precision={precision} digits is more than {MAX_PRECISION}",
            {"precision": precision, "limit": MAX_PRECISION},
        )


_GUARDS: dict[tuple[str, str], Callable[[Mapping[str, Any]], None]] = {
    ("MathAPI", "power"): _guard_power,
    ("MathAPI", "logarithm"): _guard_precision,
    ("MathAPI", "square_root"): _guard_precision,
}


# ----------------------------------------------------------------------------- results


def result_text(value: Any) -> str:
    """A call's result as BFCL's checker compares it (module docstring)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def is_error_result(text: str) -> bool:
    """Whether a result reports a failure (an exception, or BFCL's ``{"error": ...}``)."""
    if text.startswith(ERROR_PREFIX):
        return True
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and "error" in value


# ----------------------------------------------------------------------------- the world


@dataclass(frozen=True, slots=True)
class Scenario:
    """What a task starts from: BFCL's ``involved_classes`` and ``initial_config``."""

    involved_classes: tuple[str, ...]
    initial_config: Mapping[str, JSON]
    long_context: bool = False

    @classmethod
    def from_reference(cls, reference: Mapping[str, JSON]) -> Scenario:
        classes = reference.get("involved_classes")
        config = reference.get("initial_config", {})
        if (
            not isinstance(classes, list)
            or not classes
            or not all(isinstance(c, str) for c in classes)
        ):
            raise MalformedTaskError("involved_classes must be a non-empty list of class names")
        if not isinstance(config, Mapping):
            raise MalformedTaskError("initial_config must be an object")
        for name in classes:
            bfcl_class(name)  # raises for an unknown class
        entry_id = reference.get("id")
        long_context = reference.get("long_context")
        if long_context is None:  # BFCL's rule: the category is in the entry id
            text = entry_id if isinstance(entry_id, str) else ""
            long_context = "long_context" in text or "composite" in text
        if not isinstance(long_context, bool):
            raise MalformedTaskError("long_context must be true or false")
        return cls(tuple(str(c) for c in classes), config, long_context)


class BfclWorld:
    """Fresh instances of a scenario's classes, and safe dispatch of calls to them.

    Example:
        >>> world = BfclWorld(Scenario(("MathAPI",), {}))
        >>> world.run(parse_call_text("add(a=2, b=3)"))
        '{"result": 5}'
        >>> world.run(parse_call_text("no_such_tool()"))
        'Error during execution: no function named no_such_tool in MathAPI'
    """

    def __init__(self, scenario: Scenario) -> None:
        config = _bfcl_module("bfcl_eval.constants.executable_backend_config")
        stateless = set(config.STATELESS_CLASSES)
        self.scenario = scenario
        self.instances: dict[str, Any] = {}
        self._methods: dict[str, tuple[str, type, Any]] = {}
        for name in scenario.involved_classes:
            cls = bfcl_class(name)
            instance = cls()
            if name not in stateless:
                start = copy.deepcopy(scenario.initial_config.get(name, {}))
                instance._load_scenario(start, long_context=scenario.long_context)
            self.instances[name] = instance
            for method in public_methods(cls):  # a later class wins a shared name, as in BFCL
                self._methods[method] = (name, cls, getattr(instance, method))

    def method_names(self) -> list[str]:
        return sorted(self._methods)

    def run(self, call: BfclCall) -> str:
        """Run one call; its result text (errors included, as BFCL reports them).

        Raises:
            UnsafeCall: the name is private or not an identifier.
            ResponseFault: the arguments are too costly to run.
        """
        check_name(call.name)
        found = self._methods.get(call.name)
        if found is None:
            classes = ", ".join(self.scenario.involved_classes)
            return f"{ERROR_PREFIX}no function named {call.name} in {classes}"
        class_name, cls, method = found
        try:
            bound = _signature(cls, call.name).bind(*call.args, **call.kwargs)
        except TypeError as exc:
            return f"{ERROR_PREFIX}{exc}"
        guard = _GUARDS.get((class_name, call.name))
        if guard is not None:
            guard(bound.arguments)
        return _isolated(method, bound.args, bound.kwargs)


def _isolated(method: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> str:
    """Run a method with the process's decimal context and mpmath precision restored after
    (MathAPI sets both globally); exceptions become error results, as in BFCL's harness, except
    memory and recursion exhaustion, which the caller turns into the response's fault."""
    mpmath = _bfcl_module("mpmath")
    saved_dps = mpmath.mp.dps
    try:
        with decimal.localcontext():
            try:
                return result_text(method(*args, **kwargs))
            except (MemoryError, RecursionError):
                raise
            except Exception as exc:  # a tool's failure is its result (BFCL's harness does so)
                return f"{ERROR_PREFIX}{exc}"
    finally:
        mpmath.mp.dps = saved_dps


__all__ = [
    "BFCL_EVAL_VERSION", "MULTI_TURN_CLASSES", "BfclCall", "BfclWorld", "NotCallText", "Scenario",
    "UnsafeCall", "bfcl_class", "is_error_result", "parse_call_text", "parse_calls_text",
    "public_methods", "result_text",
]  # fmt: skip
