"""The candidate calls a HumanEval ``check`` will make, found by running it once without them.

A check whose calls are not all literal (arguments computed on the trusted side: ``3 * 19``,
``encode_cyclic(s)``, a loop over random inputs) is *rehearsed*: its statements run here, in a
namespace of their own, with the candidate bound to a stand-in that records each call's
arguments and returns :class:`Pending`. Every assert is replaced by a guarded evaluation of
its test, so a loop of asserts goes on past them; any other use of a pending result (its
value, its truth, an argument to another call) ends the rehearsal there. The recorded calls,
in order, are the plan that goes to the sandbox in one batch; the real run then replays their
results while its calls match the plan, and leaves it at the first one that does not
(:class:`~assay.verifiers.code.remote.RemoteFunction`).

Nothing here reaches the sandbox or candidate code. The rehearsal is refused (no plan, every
call live) for a check with ``while``, ``try``, ``with``, generators or ``global``: constructs
whose path could depend on results the rehearsal does not have. It records at most
:data:`MAX_CALLS` calls; the global ``random`` state is put back afterwards, so the real run
draws the same inputs.
"""

from __future__ import annotations

import ast
import copy
import random
import sys
from types import CodeType
from typing import Any

__all__ = ["MAX_CALLS", "Pending", "rehearsable", "rehearsal_code", "rehearse"]

MAX_CALLS = 500
"""The most calls a rehearsal records (a bigger plan is cut there; the rest run live)."""

_REFUSED = (
    ast.While, ast.Try, ast.TryStar, ast.With, ast.AsyncWith, ast.AsyncFor, ast.Await,
    ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal,
)  # fmt: skip
_GUARD = "__assay_rehearsal_guard__"
"""The exception class an assert's guard catches (a name the tests cannot shadow by chance)."""


class _Unknown(Exception):  # noqa: N818 - a signal of the rehearsal, not an error
    """A pending result was used for its value: the path from here is not known.

    The rehearsal's own signal, never a test's failure.
    """


class _Stop(BaseException):
    """The rehearsal ends here (too many calls, or a call that cannot be planned)."""


def _unknown(*_: object, **__: object) -> Any:
    raise _Unknown


class Pending:
    """What the candidate "returns" in a rehearsal: every use of it raises :class:`_Unknown`."""

    __slots__ = ()

    def __getattribute__(self, name: str) -> Any:
        raise _Unknown

    def __setattr__(self, name: str, value: object) -> None:
        raise _Unknown


_DUNDERS = (
    "eq", "ne", "lt", "le", "gt", "ge", "bool", "len", "iter", "next", "contains", "getitem",
    "setitem", "delitem", "call", "hash", "float", "int", "index", "complex", "str", "repr",
    "format", "bytes", "round", "trunc", "floor", "ceil", "abs", "neg", "pos", "invert", "add",
    "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv", "rfloordiv", "mod",
    "rmod", "divmod", "rdivmod", "pow", "rpow", "lshift", "rlshift", "rshift", "rrshift", "and",
    "rand", "or", "ror", "xor", "rxor", "matmul", "rmatmul", "iadd", "isub", "imul", "itruediv",
    "ifloordiv", "imod", "ipow", "ilshift", "irshift", "iand", "ior", "ixor", "imatmul",
    "enter", "exit", "reversed",
)  # fmt: skip
for _dunder in _DUNDERS:
    setattr(Pending, f"__{_dunder}__", _unknown)


_SCALARS = (type(None), bool, int, float, str, bytes)
_CONTAINERS = (list, tuple, set, frozenset)


def _plain(value: object, depth: int = 0) -> bool:
    """Whether ``value`` is plain data of the exact types the sandbox's codec takes."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if depth > 50:
        return False
    if kind in _CONTAINERS:
        return all(_plain(v, depth + 1) for v in value)  # type: ignore[attr-defined]
    if kind is dict:
        return all(
            type(k) in (str, int) and _plain(v, depth + 1)
            for k, v in value.items()  # type: ignore[attr-defined]
        )
    return False


class _Recorder:
    """The candidate during a rehearsal: records each call, returns :class:`Pending`."""

    def __init__(self, name: str) -> None:
        self.__name__ = name
        self.calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Pending:
        if len(self.calls) >= MAX_CALLS or not _plain(args) or not _plain(kwargs):
            raise _Stop  # a pending result (or other non-data) as an argument: not planned
        # the arguments as they are now: the tests may change a list after the call
        self.calls.append((copy.deepcopy(args), copy.deepcopy(kwargs)))
        return Pending()

    def __getattr__(self, name: str) -> Any:
        raise _Stop  # an attribute of the candidate: only a live run can answer


class _GuardAsserts(ast.NodeTransformer):
    """``assert T, M`` becomes ``try: T`` / ``except <guard>: pass``: the message is dropped."""

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        handler = ast.ExceptHandler(ast.Name(_GUARD, ast.Load()), None, [ast.Pass()])
        guarded = ast.Try([ast.Expr(self.visit(node.test))], [handler], [], [])
        return ast.copy_location(guarded, node)


def rehearsable(check: ast.FunctionDef) -> bool:
    """Whether ``check``'s body can be rehearsed (none of the refused constructs)."""
    return not any(
        isinstance(node, _REFUSED) for statement in check.body for node in ast.walk(statement)
    )


def rehearsal_code(body: list[ast.stmt]) -> CodeType | None:
    """One unit of check's body (its statements) with the asserts guarded, compiled alone.

    The statements are changed in place: give it a tree of its own.
    """
    module = ast.Module([_GuardAsserts().visit(s) for s in body], [])
    try:
        return compile(ast.fix_missing_locations(module), "<rehearsal>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None


def rehearse(
    codes: list[CodeType | None], namespace: dict[str, Any], names: tuple[str, ...]
) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """The calls ``codes`` make of the candidate (bound to ``names`` in ``namespace``), in order.

    ``namespace`` is the rehearsal's own (the prompt and the tests' prelude run in it); the
    global ``random`` state (and numpy's, if loaded) is restored afterwards.
    """
    recorder = _Recorder(names[0])
    for name in names:
        namespace[name] = recorder
    namespace[_GUARD] = Exception
    state = random.getstate()
    numpy_random = getattr(sys.modules.get("numpy"), "random", None)
    numpy_state = numpy_random.get_state() if numpy_random is not None else None
    try:
        for code in codes:
            if code is None:
                break
            try:
                exec(code, namespace)  # trusted test code; the candidate is the recorder
            except (_Stop, Exception):  # a pending value used, a stop, or the test's own error
                break  # the path past here is not known: what follows runs live
    finally:
        random.setstate(state)
        if numpy_random is not None and numpy_state is not None:
            numpy_random.set_state(numpy_state)
    return recorder.calls
