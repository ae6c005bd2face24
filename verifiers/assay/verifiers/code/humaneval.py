"""HumanEval-style ``check(candidate)`` tests, run in the trusted process.

The test module is trusted (it comes from the reference). Its top-level code runs here; then
each top-level statement of ``check``'s body runs in turn with ``candidate`` bound to a
:class:`~assay.verifiers.code.remote.RemoteFunction`. Each statement that contains an ``assert``
(not only in a function it defines) is one test unit: it passes when it runs to the end (one that
passes without calling the candidate, `assert True, "..."`, is no test and is left out); any
other statement that raises is a failed unit too. A ``check`` with no such assert (its asserts
in helpers, as EvalPlus's are) is one unit. Expected values never leave this process.

HumanEval's tests also call names its *prompt* defines (``encode_cyclic``, ``poly``) and the
entry point by its own name. The prompt is part of the trusted problem: it runs here first, so
those helpers are the problem's own (a response that redefines ``encode_cyclic`` changes only
its copy in the sandbox), and the entry point's name is then bound to the candidate.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from types import CodeType
from typing import Any

from assay.verifiers.code.rehearsal import rehearsable, rehearsal_code, rehearse
from assay.verifiers.code.remote import CallLog, RemoteFunction, Session
from assay.verifiers.code.units import Unit

from assay.errors import MalformedTaskError


def _check_function(tree: ast.Module) -> ast.FunctionDef:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check":
            return node
    raise MalformedTaskError("HumanEval tests must define check(candidate)")


class _CallOrder(ast.NodeVisitor):
    """Candidate calls of check's body in evaluation order, if all have literal arguments."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        self.plain = True

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)  # arguments are evaluated before the call
        if isinstance(node.func, ast.Name) and node.func.id in self.names:
            try:
                args = tuple(ast.literal_eval(a) for a in node.args)
                kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                self.plain = False
                return
            if any(isinstance(a, ast.Starred) for a in node.args) or len(kwargs) != len(
                node.keywords
            ):
                self.plain = False
            self.calls.append((args, kwargs))

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in self.names and not isinstance(node.ctx, ast.Load):
            self.plain = False

    def visit_Assert(self, node: ast.Assert) -> None:
        # the message is evaluated only when the assert fails: its calls are not planned
        # (a failing answer's message calls leave the batch, see RemoteFunction)
        self.visit(node.test)

    def visit_Constant(self, node: ast.Constant) -> None:
        """Nothing inside (NodeVisitor's own handler looks for the pre-3.8 node names)."""


def literal_calls(
    check: ast.FunctionDef, name: str, entry_point: str = ""
) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """The candidate calls ``check`` will make, in order, when that is known statically.

    Known when every statement is a plain ``assert`` or expression (no loops, branches or
    nested functions) and every call of the candidate has literal arguments. Then the calls go
    to the sandbox in one batch; the asserts still run here, one unit each, as if called live.
    """
    order = _CallOrder(frozenset({name, entry_point} - {""}))
    for statement in check.body:
        if not isinstance(statement, ast.Assert | ast.Expr):
            return []
        order.visit(statement)
        if not order.plain:
            return []
    return order.calls


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _has_assert(node: ast.AST) -> bool:
    """Whether the statement asserts when it runs: an ``assert`` in a function or class it
    only defines (EvalPlus's ``assertion`` helper) tests nothing until something calls it."""
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, _DEFINITIONS):
        return False
    return any(_has_assert(child) for child in ast.iter_child_nodes(node))


@dataclass(frozen=True)
class _Compiled:
    """A test module compiled once: its prelude, check's units, and the literal call plan
    (or, when the calls are not all literal, the units' rehearsal code)."""

    prelude: CodeType
    parameter: str
    plan: list[tuple[tuple[Any, ...], dict[str, Any]]]
    units: list[tuple[str, CodeType | str, bool]]
    rehearsal: tuple[CodeType | None, ...] = ()


@lru_cache(maxsize=256)
def _compile_tests(tests: str, entry_point: str = "") -> _Compiled:
    try:
        tree = ast.parse(tests)
    except SyntaxError as exc:
        raise MalformedTaskError(f"the tests do not parse: {exc}") from exc
    check = _check_function(tree)
    if not check.args.args:
        raise MalformedTaskError("check() must take the candidate as its first argument")
    parameter = check.args.args[0].arg
    prelude = ast.Module(body=[n for n in tree.body if n is not check], type_ignores=[])
    units = [(name, _code(body), is_unit) for name, body, is_unit in _unit_bodies(check)]
    plan = literal_calls(check, parameter, entry_point)
    rehearsal: tuple[CodeType | None, ...] = ()
    if not plan and rehearsable(check):  # on a tree of its own: the rehearsal guards asserts
        again = _check_function(ast.parse(tests))
        rehearsal = tuple(rehearsal_code(body) for _, body, _ in _unit_bodies(again))
    return _Compiled(
        compile(prelude, "<tests>", "exec", dont_inherit=True), parameter, plan, units, rehearsal
    )


def _unit_bodies(check: ast.FunctionDef) -> list[tuple[str, list[ast.stmt], bool]]:
    """Check's units: each top-level statement (a unit if it asserts), or, with no assert at
    all, the whole check called as one unit."""
    if any(_has_assert(s) for s in check.body):
        return [(f"check:{s.lineno}", [s], _has_assert(s)) for s in check.body]
    argument = ast.Name(check.args.args[0].arg, ast.Load())
    call = ast.Expr(ast.Call(ast.Name("check", ast.Load()), [argument], []))
    return [("check", [check, ast.fix_missing_locations(call)], True)]


def _code(body: list[ast.stmt]) -> CodeType | str:
    """Statements (with their source locations) compiled as a module of their own."""
    module = ast.Module(body=body, type_ignores=[])
    try:
        return compile(module, "<tests>", "exec", dont_inherit=True)
    except SyntaxError as exc:  # e.g. `return` at the top of check's body
        return f"cannot run this test statement on its own: {exc.msg}"


@lru_cache(maxsize=256)
def _compile_prompt(prompt: str) -> CodeType:
    try:
        return compile(prompt, "<prompt>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise MalformedTaskError(f"the prompt does not compile on its own: {exc}") from exc


def run_check(
    tests: str, entry_point: str, session: Session, prompt: str | None = None
) -> list[Unit]:
    """Run ``check(candidate)`` statement by statement against the sandboxed candidate.

    Args:
        tests: The test module (trusted), defining ``check(candidate)``.
        entry_point: The candidate function's name.
        session: The sandbox session the candidate runs in.
        prompt: The problem's prompt (trusted); its helpers are visible to the tests.

    Raises:
        MalformedTaskError: the tests or the prompt do not compile, the prompt's top level
            raises, or the tests pass without calling the candidate once.
    """
    compiled = _compile_tests(tests, entry_point if entry_point.isidentifier() else "")
    namespace: dict[str, Any] = {"__name__": "assay_check"}
    if prompt:
        try:
            exec(_compile_prompt(prompt), namespace)  # the problem's own helpers (trusted)
        except Exception as exc:  # the reference is broken, not the response
            raise MalformedTaskError(f"the prompt raises when run: {exc!r}") from exc
    exec(compiled.prelude, namespace)  # trusted test code
    log = CallLog()
    candidate = RemoteFunction(session, entry_point, log)
    if compiled.plan:
        candidate.prefetch(compiled.plan)
    elif compiled.rehearsal:
        planned = _rehearsed_calls(compiled, entry_point, prompt)
        if planned:  # one per-call limit for the whole batch: past that, the calls run live
            candidate.prefetch(planned, limits=1)
    namespace[compiled.parameter] = candidate
    if entry_point.isidentifier():
        namespace[entry_point] = candidate  # tests that call the entry point by its name
    units = []
    for name, code, is_unit in compiled.units:
        start = len(log.outcomes)
        unit = _run(code, namespace, log, name)
        if unit.passed and len(log.outcomes) == start:
            continue  # ``assert True, "..."``: it passes whatever the answer is, so no test
        if is_unit or not unit.passed:  # a statement that raises fails, assert or not
            units.append(unit)
    if not log.outcomes and all(unit.passed for unit in units):
        raise MalformedTaskError(
            "the tests never call the answer: they pass whatever it is, so they cannot tell a "
            "right answer from a wrong one"
        )
    return units


def _rehearsed_calls(
    compiled: _Compiled, entry_point: str, prompt: str | None
) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """The calls a rehearsal of check finds (:mod:`.rehearsal`), in a namespace of its own."""
    namespace: dict[str, Any] = {"__name__": "assay_check"}
    try:
        if prompt:
            exec(_compile_prompt(prompt), namespace)  # ran once already: the problem's own
        exec(compiled.prelude, namespace)
    except Exception:  # not rehearsed: every call goes live
        return []
    names = (compiled.parameter, *([entry_point] if entry_point.isidentifier() else []))
    return rehearse(list(compiled.rehearsal), namespace, names)


def _run(code: CodeType | str, namespace: dict[str, Any], log: CallLog, name: str) -> Unit:
    if isinstance(code, str):
        return Unit(name, False, code)
    start = len(log.outcomes)
    passed, message = True, ""
    try:
        exec(code, namespace)  # trusted test code; the candidate is only reached by proxy
    except AssertionError as exc:
        passed, message = False, f"assertion failed {_exception_text(exc)}".strip()
    except Exception as exc:  # any error of the statement fails this unit only
        passed, message = False, f"{type(exc).__name__}: {_exception_text(exc)}"
    return log.unit(name, passed, message, start, None)


_MAX_MESSAGE = 500


def _exception_text(exc: BaseException) -> str:
    """``str(exc)``, cut to 500 characters; never raises.

    A failed assert's message, or a ``KeyError``'s key, may be a value the candidate
    returned, and some values have no text: an int past the int -> str digit limit, a list
    nested past the recursion limit. Such a unit still fails, with a message that says so.
    Lone surrogates (a string the candidate built) are written as escapes, so that the
    message can be printed and encoded as it is.
    """
    try:
        text = str(exc).encode("utf-8", "backslashreplace").decode("utf-8")
    except Exception:
        return "<a message that cannot be shown>"
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 3] + "..."
