"""Running a task's test units in the sandbox, one function per mode."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from assay.domains.code.task import CodeTask
from assay.verifiers.code.compare import REL_TOL, json_equal, stdout_equal
from assay.verifiers.code.humaneval import run_check
from assay.verifiers.code.pytest_runner import run_pytest_file
from assay.verifiers.code.remote import Session
from assay.verifiers.code.repo import REPORT, PatchedTree, pytest_argv, read_junit
from assay.verifiers.code.units import Unit
from assay.verifiers.sandbox import CallOutcome, CallStatus, Limits, ProgramStatus, SandboxPool


def limits_for(task: CodeTask) -> Limits:
    return Limits(timeout_s=task.timeout_s, memory_mb=task.memory_mb)


class RestartingSession:
    """A call session that re-opens after a timeout or crash, so later units still run."""

    def __init__(self, pool: SandboxPool, code: str, limits: Limits) -> None:
        self._pool, self._code, self._limits = pool, code, limits
        self._stack: Any = None
        self._session: Any = None
        self._finished = False
        self.load: CallOutcome | None = None

    def __enter__(self) -> RestartingSession:
        self._open()
        return self

    def __exit__(self, *exc: object) -> None:
        self._finished = True
        self._close()

    def _open(self) -> None:
        self._stack = self._pool.call_session({}, self._code, self._limits)
        self._session = self._stack.__enter__()

    def _close(self) -> None:
        if self._stack is not None:
            self._stack.__exit__(None, None, None)
            self._stack = self._session = None

    def call(
        self, name: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> CallOutcome:
        if self._finished:
            return CallOutcome(CallStatus.CRASHED, detail="the session has ended")
        if self._session is None:
            self._open()
        outcome: CallOutcome = self._session.call(name, args, kwargs or {})
        if self.load is None:
            self.load = self._session.load
        if outcome.status in (CallStatus.TIMEOUT, CallStatus.CRASHED, CallStatus.MEMORY):
            self._close()
        return outcome


@contextmanager
def session_for(pool: SandboxPool, code: str, task: CodeTask) -> Iterator[Session]:
    with RestartingSession(pool, code, limits_for(task)) as session:
        yield session


def _call_unit(index: int, outcome: CallOutcome, expected: Any, rel_tol: float) -> Unit:
    usage = outcome.usage
    if outcome.status is CallStatus.OK:
        passed = json_equal(outcome.value, expected, rel_tol)
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


def run_test_cases(pool: SandboxPool, code: str, task: CodeTask) -> list[Unit]:
    rel_tol = task.float_tolerance or REL_TOL
    entry = task.entry_point or ""
    units = []
    with session_for(pool, code, task) as session:
        for index, case in enumerate(task.spec):
            args = tuple(case.get("args", []))
            outcome = session.call(entry, args, dict(case.get("kwargs", {})))
            units.append(_call_unit(index, outcome, case["expected"], rel_tol))
    return units


def run_humaneval(pool: SandboxPool, code: str, task: CodeTask) -> list[Unit]:
    with session_for(pool, code, task) as session:
        return run_check(task.spec, task.entry_point or "", session)


def run_pytest(pool: SandboxPool, code: str, task: CodeTask) -> list[Unit]:
    with session_for(pool, code, task) as session:
        return run_pytest_file(task.spec, session)


def run_stdio(pool: SandboxPool, code: str, task: CodeTask) -> list[Unit]:
    limits = limits_for(task)
    units = []
    for index, case in enumerate(task.spec):
        outcome = pool.run_program(code, case.get("stdin", ""), limits)
        usage = outcome.usage
        if outcome.status is ProgramStatus.OK:
            passed = stdout_equal(outcome.stdout, case["stdout"]) and not outcome.stdout_truncated
            message = "" if passed else f"wrong output: {_short(outcome.stdout[-200:])}"
        else:
            passed = False
            message = f"{outcome.status.value} (exit {outcome.exit_code}, signal {outcome.signal})"
            tail = outcome.stderr.strip().splitlines()[-1:] if outcome.stderr.strip() else []
            message += f": {tail[0][:200]}" if tail else ""
        evidence = {"exit_code": outcome.exit_code, "signal": outcome.signal}
        evidence |= _output_tails(outcome.stdout, outcome.stderr)
        units.append(
            Unit(
                f"case[{index}]",
                passed,
                message,
                usage.wall_s,
                usage.cpu_s,
                usage.peak_rss_bytes,
                evidence=evidence,
            )
        )
    return units


def run_repo(pool: SandboxPool, tree: PatchedTree, task: CodeTask) -> list[Unit]:
    test_ids = [*task.fail_to_pass, *task.pass_to_pass]
    limits = Limits(
        timeout_s=task.timeout_s * max(1, len(test_ids)) + 10.0,
        memory_mb=max(task.memory_mb, 1024),
    )
    outcome = pool.run_command(
        pytest_argv(test_ids),
        files=tree.files,
        readonly_files=tree.readonly,
        limits=limits,
        collect=[REPORT],
        env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"},
    )
    units = read_junit(outcome.collected.get(REPORT), test_ids)
    if outcome.timed_out:
        units = [u if u.passed else Unit(u.name, False, "the test run timed out") for u in units]
    kinds = {name: "fail_to_pass" for name in task.fail_to_pass}
    return [
        Unit(
            u.name,
            u.passed,
            u.message,
            u.wall_s,
            evidence={"kind": kinds.get(u.name, "pass_to_pass")},
        )
        for u in units
    ]
