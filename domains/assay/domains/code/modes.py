"""Running a task's test units in the sandbox, one function per mode, inside one item budget.

Every run of an item (the final answer's units, and each command of a trajectory) draws on one
:class:`Budget` of wall-clock seconds: a unit's limit is the task's per-unit limit or what is
left of the budget, whichever is smaller, so per-unit limits never multiply out past the item
limit. The first unit that exceeds a limit (time, CPU, memory, output, processes) or finds the
budget spent records a :class:`Fault` on its :class:`Run`; the run's later units are not run
and fail for the same cause, and the verifier blames the response (``resources``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from assay.domains.code.formats import prompt_preamble, with_preamble
from assay.domains.code.task import CodeTask
from assay.verifiers.code.compare import (
    CODECONTESTS_TOL,
    REL_TOL,
    json_equal,
    stdout_codecontests_equal,
    stdout_equal,
    stdout_tokens_equal,
    stdout_words_equal,
    value_equal,
)
from assay.verifiers.code.humaneval import run_check
from assay.verifiers.code.pytest_runner import run_pytest_file
from assay.verifiers.code.remote import Session, same_data
from assay.verifiers.code.repo import PatchedTree, read_report, runner_command
from assay.verifiers.code.units import Unit
from assay.verifiers.sandbox import (
    CallOutcome,
    CallStatus,
    Limits,
    ProgramOutcome,
    ProgramStatus,
    SandboxPool,
)

from assay.blame import response_owned

MIN_RUN_S = 0.05
"""A run needs at least this much budget left; below it the budget counts as spent."""
BATCH = "\x00batch"
"""The name of a prefetch batch call (HumanEval): each of its calls has the per-unit limit."""
_FORK_FAILED = "Resource temporarily unavailable"
_THREAD_FAILED = "can't start new thread"
_DEFAULT_OUTPUT = Limits().max_output_bytes


@dataclass
class Budget:
    """The wall-clock seconds all of an item's runs may use together."""

    total_s: float
    started: float = field(default_factory=time.monotonic)

    def remaining(self) -> float:
        return self.total_s - (time.monotonic() - self.started)


@dataclass(frozen=True, slots=True)
class Fault:
    """The first limit a run exceeded: ``cause`` is time, memory, output, processes or budget."""

    cause: str
    message: str
    unit: str = ""
    limit_kills: int = 0
    """How many sandbox runs of this run were killed at a time or memory limit, this one
    included (evidence that a looping call cost one limit, not one per re-run)."""


@dataclass
class Run:
    """One run of candidate code against the task's units (the answer, or one command)."""

    pool: SandboxPool
    task: CodeTask
    budget: Budget
    fault: Fault | None = None
    limit_kills: int = 0

    def blame(self, cause: str, message: str, unit: str = "") -> Fault:
        """Record the run's first fault (later ones keep the first) and return it."""
        if self.fault is None:
            self.fault = Fault(cause, message, unit, self.limit_kills)
        return self.fault

    def limits(
        self, per_run_s: float | None = None, memory_mb: int | None = None, output_bytes: int = 0
    ) -> Limits | None:
        """Limits for the next unit, its timeout cut to what is left; ``None`` when spent."""
        left = self.budget.remaining()
        if left < MIN_RUN_S:
            self.blame("budget", f"the item's time budget of {self.budget.total_s:.1f} s is spent")
            return None
        wanted = self.task.timeout_s if per_run_s is None else per_run_s
        return Limits(
            timeout_s=min(wanted, left),
            memory_mb=memory_mb or self.task.memory_mb,
            max_output_bytes=max(_DEFAULT_OUTPUT, output_bytes),
        )

    def not_run(self, name: str) -> Unit:
        fault = self.fault
        reason = fault.message if fault is not None else "the item's budget is spent"
        return Unit(name, False, f"not run: {reason}", evidence={"fault": "resources"})


def limits_for(task: CodeTask) -> Limits:
    return Limits(timeout_s=task.timeout_s, memory_mb=task.memory_mb)


def call_fault(outcome: CallOutcome, batch: bool = False) -> tuple[str, str] | None:
    """The limit a call exceeded, as (cause, message), or ``None`` for any other ending.

    For a ``batch`` (HumanEval's prefetch), the value lists each call's own ending.
    """
    if outcome.status is CallStatus.TIMEOUT:
        return "time", f"exceeded the time limit: {outcome.detail}".strip(": ")
    if outcome.status is CallStatus.MEMORY:
        return "memory", f"exceeded the memory limit: {outcome.detail}".strip(": ")
    if outcome.status is CallStatus.EXCEPTION:
        return _exception_fault(outcome.exception_type, outcome.exception_message or "")
    if outcome.status is CallStatus.OK and isinstance(outcome.value, list) and batch:
        for raw in outcome.value:
            if isinstance(raw, dict) and raw.get("status") == "exception":
                fault = _exception_fault(str(raw.get("etype", "")), str(raw.get("emsg", "")))
                if fault is not None:
                    return fault
    return None


def _exception_fault(exception_type: str | None, message: str) -> tuple[str, str] | None:
    if exception_type == "MemoryError":
        return "memory", f"exceeded the memory limit: MemoryError {message}".strip()
    if _fork_failed(exception_type, message):
        return "processes", f"exceeded the process limit: {exception_type}: {message}"
    return None


def program_fault(outcome: ProgramOutcome, output_is_answer: bool = True) -> tuple[str, str] | None:
    """The limit a program or command exceeded, as (cause, message), or ``None``.

    A flood of output is a fault only where the output is the answer (``output_is_answer``).
    """
    if outcome.status is ProgramStatus.TIMEOUT or outcome.timed_out:
        return "time", "exceeded the time limit"
    if outcome.status is ProgramStatus.MEMORY:
        return "memory", "exceeded the memory limit"
    if output_is_answer and outcome.stdout_truncated:
        return "output", "printed more than the output limit"
    if outcome.status is ProgramStatus.ERROR:
        last = outcome.stderr.strip().splitlines()[-1:] if outcome.stderr.strip() else [""]
        kind, _, message = last[0].partition(":")
        if _fork_failed(kind.strip(), message):
            return "processes", f"exceeded the process limit: {last[0][:200]}"
    return None


def _fork_failed(exception_type: str | None, message: str) -> bool:
    if exception_type == "RuntimeError":
        return _THREAD_FAILED in message
    return exception_type in ("BlockingIOError", "OSError") and _FORK_FAILED in message


class RestartingSession:
    """A call session that draws on its run's budget and stops at the run's first fault.

    After a timeout or crash it re-opens (so later units of an honest wrong answer still run),
    with a per-call limit cut to what is left of the budget. After a fault (a limit exceeded,
    or the budget spent) every later call returns at once without reaching the sandbox.

    A batch (HumanEval's prefetch) gives each of its calls the per-call limit. When one call
    uses all of it (the sandbox names it, ``stuck_call``), the calls before it are re-run live
    (the kill took their results) and that call is not: when the tests reach it with the same
    arguments it fails on the batch's timeout and is blamed, so a looping call costs one
    limit. Calls that differ from the batch's order are simply run live. A batch that used
    its share of time (the calls each under their limit) answers the calls it made; the rest
    run live on the same process, under the CPU limit the batch's session was opened with.
    """

    def __init__(self, run: Run, code: str) -> None:
        self._run, self._code = run, code
        self._stack: Any = None
        self._session: Any = None
        self._session_timeout = 0.0
        self._finished = False
        self.load: CallOutcome | None = None
        self._stuck: tuple[list[Any], int, CallOutcome] | None = None
        self._replayed = 0

    def __enter__(self) -> RestartingSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self._finished = True
        self._close()

    def _open(self, limits: Limits) -> None:
        # loading is compiling and running the response's module: its cost is the response's
        # (a 350 KB program killed by a trainer's 4 s hard limit while it loaded was a timeout)
        with response_owned("loading the code"):
            self._stack = self._run.pool.call_session({}, self._code, limits)
            self._session = self._stack.__enter__()
        self._session_timeout = limits.timeout_s

    def _close(self) -> None:
        if self._stack is not None:
            self._stack.__exit__(None, None, None)
            self._stack = self._session = None

    def _refused(self) -> CallOutcome:
        fault = self._run.fault
        detail = f"not run: {fault.message}" if fault is not None else "not run"
        return CallOutcome(CallStatus.TIMEOUT, detail=detail)

    def call(
        self, name: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> CallOutcome:
        if self._finished:
            return CallOutcome(CallStatus.CRASHED, detail="the session has ended")
        if self._run.fault is not None:
            return self._refused()
        stuck = self._stuck_outcome(name, args, kwargs or {})
        if stuck is not None:  # the call the batch was killed on: its limit is spent already
            fault = call_fault(stuck)
            if fault is not None:
                self._run.blame(*fault)
            return stuck
        limits = self._run.limits()
        if limits is None:
            return self._refused()
        batch = args[0] if name == BATCH and args and isinstance(args[0], list) else None
        total_s = pause_s = None
        if batch is not None:  # each call its own limit, all of them within the budget
            allowed = args[1] if len(args) > 1 and type(args[1]) is int else len(batch)
            left = self._run.budget.remaining()
            # no call starts past the batch's share; the one in progress then has its own limit
            pause_s = min(left, limits.timeout_s * max(1, allowed))
            total_s = min(left, pause_s + limits.timeout_s)
            # the calls left after a pause run live on this process, on the same CPU limit
            limits = replace(limits, cpu_s=math.ceil(total_s) + 1)
            args = (batch,)  # the sandbox gets the calls; the total is the zygote's to keep
            self._close()  # a batch gets a session of its own, with its CPU share
        if self._session is not None and self._session_timeout > limits.timeout_s + 1e-3:
            self._close()  # the budget is nearly spent: the next call gets only what is left
        if self._session is None:
            self._open(limits)
        outcome: CallOutcome = self._session.call(
            name, args, kwargs or {}, total_s=total_s, pause_s=pause_s
        )
        if self.load is None:
            self.load = self._session.load
        # a batch that reached its total before any call reached its own limit: no limit kill
        at_total = batch is not None and outcome.stuck_call is None
        if outcome.status is CallStatus.MEMORY or (
            outcome.status is CallStatus.TIMEOUT and not at_total
        ):
            self._run.limit_kills += 1
        fault = call_fault(outcome, batch=batch is not None)
        if batch is not None and outcome.status is not CallStatus.OK:
            fault = None  # the batch ended early: live calls follow, up to the call it named
            stuck_at = outcome.stuck_call if outcome.status is CallStatus.TIMEOUT else None
            if stuck_at is not None and 0 <= stuck_at < len(batch):
                self._stuck, self._replayed = (batch, stuck_at, outcome), 0
        if fault is not None:
            self._run.blame(*fault)
        if outcome.status in (CallStatus.TIMEOUT, CallStatus.CRASHED, CallStatus.MEMORY):
            self._close()
        return outcome

    def restart(self, replay: list[tuple[str, tuple[Any, ...], dict[str, Any]]]) -> None:
        """End the child; the next call goes to a fresh one, after ``replay``'s calls there.

        ``RemoteFunction`` asks for this when the tests leave the order of a batch: the child
        has run calls that live calls would not have made (the rest of a loop after a failed
        assert), so later calls must not see what those did. The fresh child first makes the
        calls the tests have used so far (in a batch, results unused), which leaves it as
        live calls would have: a candidate that answers a call differently the second time
        it is asked gains nothing from the batch.
        """
        self._close()
        self._stuck = None
        if replay and not self._finished and self._run.fault is None:
            self.call(BATCH, (list(replay),))

    def _stuck_outcome(
        self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> CallOutcome | None:
        """The batch's timeout, when this is the call it was killed on (same place, same call)."""
        if self._stuck is None or name == BATCH:
            return None
        batch, index, outcome = self._stuck
        position = self._replayed
        self._replayed += 1
        if position >= len(batch) or not _same_call(batch[position], name, args, kwargs):
            self._stuck = None  # the tests went another way: every call runs live
            return None
        if position < index:
            return None  # an earlier call of the batch: run it live again
        self._stuck = None
        return outcome


def _same_call(planned: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    try:
        planned_name, planned_args, planned_kwargs = planned
        return bool(
            planned_name == name
            and same_data(tuple(planned_args), tuple(args))
            and same_data(dict(planned_kwargs), kwargs)
        )
    except (TypeError, ValueError):
        return False


def runnable(task: CodeTask, code: str) -> str:
    """The source that runs: the harness's names (a ``tests`` prompt's definitions, the task's
    ``preamble``) above the candidate's code, trusted glue (``harness``) after it.

    Finding what the candidate's code defines parses it: that is work on the response."""
    with response_owned("reading the code"):
        from_prompt = prompt_preamble(task.prompt, task.entry_point, code)
    preamble = "\n".join(p for p in (task.preamble, from_prompt) if p)
    code = with_preamble(code, preamble)
    return f"{code}\n{task.harness}" if task.harness else code


@contextmanager
def session_for(run: Run, code: str) -> Iterator[Session]:
    with RestartingSession(run, runnable(run.task, code)) as session:
        yield session


def returns_expected(
    value: Any, case: Mapping[str, Any], rel_tol: float, match: str = "typed"
) -> bool:
    """Whether a call's returned ``value`` is the case's ``expected`` or one of its
    ``also_expected`` values, by the task's ``value_match`` rule."""
    same = value_equal if match == "equal" else json_equal
    return any(
        same(value, wanted, rel_tol)
        for wanted in (case["expected"], *case.get("also_expected", ()))
    )


def _call_unit(
    index: int, outcome: CallOutcome, case: Mapping[str, Any], rel_tol: float, match: str
) -> Unit:
    usage = outcome.usage
    expected = case["expected"]
    if outcome.status is CallStatus.OK:
        passed = returns_expected(outcome.value, case, rel_tol, match)
        message = "" if passed else f"returned {_short(outcome.value)}, expected {_short(expected)}"
    elif outcome.status is CallStatus.EXCEPTION:
        passed, message = False, f"raised {outcome.exception_type}: {outcome.exception_message}"
    else:
        passed, message = False, f"{outcome.status.value}: {outcome.detail}".strip()
    return Unit(
        f"case[{index}]", passed, message, usage.wall_s, usage.cpu_s, usage.peak_rss_bytes,
        evidence=_output_tails(outcome.stdout, outcome.stderr),
    )  # fmt: skip


def _output_tails(stdout: str, stderr: str) -> dict[str, Any]:
    """The ends of what a run printed, for audits (never used to decide a pass)."""
    return {"stdout_tail": stdout[-300:], "stderr_tail": stderr[-300:]} if stdout or stderr else {}


def _short(value: Any) -> str:
    """``repr(value)`` cut to 120 characters; never raises on what a candidate returned."""
    try:
        text = repr(value)
    except (ValueError, RecursionError, MemoryError):  # e.g. an int past the int->str limit
        return f"<a {type(value).__name__} that cannot be shown>"
    return text if len(text) <= 120 else text[:117] + "..."


def run_test_cases(run: Run, code: str) -> list[Unit]:
    task = run.task
    rel_tol = task.float_tolerance or REL_TOL
    entry = task.entry_point or ""
    units = []
    with session_for(run, code) as session:
        for index, case in enumerate(task.spec):
            if run.fault is not None:
                units.append(run.not_run(f"case[{index}]"))
                continue
            args = tuple(case.get("args", []))
            outcome = session.call(entry, args, dict(case.get("kwargs", {})))
            units.append(_call_unit(index, outcome, case, rel_tol, task.value_match))
    return units


def run_humaneval(run: Run, code: str) -> list[Unit]:
    with session_for(run, code) as session:
        return run_check(run.task.spec, run.task.entry_point or "", session, run.task.prompt)


def run_pytest(run: Run, code: str) -> list[Unit]:
    with session_for(run, code) as session:
        return run_pytest_file(run.task.spec, session)


def run_stdio(run: Run, code: str) -> list[Unit]:
    units = []
    code = runnable(run.task, code)
    for index, case in enumerate(run.task.spec):
        # room for twice the expected output: past that, a flood is the response's doing
        expected = len(case["stdout"].encode("utf-8", "surrogatepass"))
        limits = run.limits(output_bytes=2 * expected + 4096) if run.fault is None else None
        if limits is None:
            units.append(run.not_run(f"case[{index}]"))
            continue
        outcome = run.pool.run_program(code, case.get("stdin", ""), limits)
        fault = program_fault(outcome)
        if fault is not None:
            run.limit_kills += fault[0] in ("time", "memory")
            run.blame(*fault, unit=f"case[{index}]")
        units.append(_stdio_unit(index, outcome, case["stdout"], run.task))
    return units


def same_stdout(task: CodeTask, actual: str, expected: str) -> bool:
    """The task's rule for program output (``stdout_match``; see docs/code.md)."""
    if task.stdout_match == "tokens":
        return stdout_tokens_equal(actual, expected, task.float_tolerance)
    if task.stdout_match == "words":
        return stdout_words_equal(actual, expected)
    if task.stdout_match == "codecontests":
        tolerance = task.float_tolerance
        return stdout_codecontests_equal(actual, expected, tolerance or CODECONTESTS_TOL)
    return stdout_equal(actual, expected)


def _stdio_unit(index: int, outcome: ProgramOutcome, expected: str, task: CodeTask) -> Unit:
    usage = outcome.usage
    if outcome.status is ProgramStatus.OK:
        passed = same_stdout(task, outcome.stdout, expected) and not outcome.stdout_truncated
        message = "" if passed else f"wrong output: {_short(outcome.stdout[-200:])}"
    else:
        passed = False
        message = f"{outcome.status.value} (exit {outcome.exit_code}, signal {outcome.signal})"
        tail = outcome.stderr.strip().splitlines()[-1:] if outcome.stderr.strip() else []
        message += f": {tail[0][:200]}" if tail else ""
    evidence = {"exit_code": outcome.exit_code, "signal": outcome.signal}
    evidence |= _output_tails(outcome.stdout, outcome.stderr)
    return Unit(
        f"case[{index}]", passed, message, usage.wall_s, usage.cpu_s, usage.peak_rss_bytes,
        evidence=evidence,
    )  # fmt: skip


def run_repo(run: Run, tree: PatchedTree) -> list[Unit]:
    """Run the repo's chosen tests once, in one sandboxed command inside the item budget."""
    task = run.task
    test_ids = [*task.fail_to_pass, *task.pass_to_pass]
    limits = run.limits(
        per_run_s=task.timeout_s * max(1, len(test_ids)) + 10.0,
        memory_mb=max(task.memory_mb, 1024),
    )
    if limits is None:
        return [run.not_run(name) for name in test_ids]
    command = runner_command(tree, test_ids)
    outcome = run.pool.run_command(
        command.argv,
        files=command.files,
        readonly_files=command.readonly,
        limits=limits,
        collect=[command.report],
        env=command.env,
    )
    fault = program_fault(outcome, output_is_answer=False)
    if fault is not None:
        run.limit_kills += fault[0] in ("time", "memory")
        run.blame(*fault)
    units = read_report(outcome.collected.get(command.report), command.key, test_ids)
    kinds = {name: "fail_to_pass" for name in task.fail_to_pass}
    return [
        Unit(u.name, u.passed, u.message, u.wall_s,
             evidence={"kind": kinds.get(u.name, "pass_to_pass")})
        for u in units
    ]  # fmt: skip
