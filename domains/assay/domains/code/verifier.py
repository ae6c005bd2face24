"""The code verifier: run generated Python against tests in the hostile-code sandbox."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from assay.domains.code import compiled, languages, modes, terminal
from assay.domains.code.contest import CODECONTESTS, LIVECODEBENCH
from assay.domains.code.formats import continue_prompt, from_native
from assay.domains.code.modes import Budget, Fault, Run
from assay.domains.code.task import CodeTask, parse_task
from assay.domains.code.trajectory import command_count, command_steps
from assay.verifiers.code.extract import extract_code, extract_fenced, extract_patch
from assay.verifiers.code.repo import PatchedTree, PatchError, apply_patch
from assay.verifiers.code.static import (
    BATCH_MAX_SOURCE_BYTES,
    RuffReport,
    RuffRun,
    ruff_reports,
    syntax_error,
)
from assay.verifiers.code.suspicious import Flag, scan_suspicious
from assay.verifiers.code.units import Unit
from assay.verifiers.sandbox import Isolation, SandboxPool

from assay.blame import RESOURCES, response_fault, response_owned
from assay.errors import MalformedTaskError
from assay.types import Check, Record, Status, StepResult, Verdict
from assay.verifier import Verifier

log = logging.getLogger(__name__)

PROJECT_ROOT = Path(__file__).resolve().parents[4]
REPLAY_ENV = "ASSAY_REPLAY_DIR"
GATED_KINDS = {
    "framework", "introspection", "test-files", "always-equal", "compiled", "unreadable",
}  # fmt: skip
"""Flags that reject a repo patch: there the candidate shares pytest's process."""
BUDGET_CAP_S = 380.0
"""The largest item budget: with its slack it stays inside the 600 s hard limit."""
COMPILE = "compile"
"""The check of the compile step (or the syntax check of an interpreted language)."""
HARD_SLACK_S = 30.0
"""Seconds of the hard limit beyond 1.5 times the budget (pool start, ruff, git apply)."""
PREFETCH_BUDGET_S = 1.0
"""Seconds a chunk's :meth:`CodeVerifier.prefetch` may read for; the rest is read per item."""
CONTEST_KEYS = ("input_output", *CODECONTESTS, *LIVECODEBENCH)
"""Reference fields of contest datasets (APPS, CodeContests, LiveCodeBench) that hold cases."""

Runner = Callable[[Run, str], list[Unit]]
RUNNERS: dict[str, Runner] = {
    "tests": modes.run_humaneval,
    "test_cases": modes.run_test_cases,
    "stdio": modes.run_stdio,
    "pytest": modes.run_pytest,
}


class CodeVerifier(Verifier):
    """Scores Python code by running tests against it in a sandbox pool.

    Modes (the reference holds exactly one): ``tests`` (HumanEval ``check(candidate)``),
    ``test_cases`` (call-based), ``stdio`` (program reads stdin), ``pytest`` (a test file
    against ``solution.py``) and ``repo`` (a unified diff applied to a repository, then its
    fail-to-pass and pass-to-pass tests). Score = fraction of test units passed (0 on any
    failure with ``all_or_nothing``); ``correct`` only when all pass; a syntax error is
    ``unparsable``. See docs/code.md for the format and the threat model.

    Example:
        >>> record = Record("1", "code", "```python\\ndef add(a, b):\\n    return a + b\\n```",
        ...     {"entry_point": "add", "test_cases": [{"args": [1, 2], "expected": 3}]})
        >>> verifier = CodeVerifier(); verifier.setup()  # doctest: +SKIP
        >>> verifier.verify(record).status  # doctest: +SKIP
        <Status.CORRECT: 'correct'>
    """

    name: ClassVar[str] = "code"
    version: ClassVar[str] = "1.10.0"
    aliases: ClassVar[tuple[str, ...]] = ("python", "coding")
    data_sources: ClassVar[tuple[str, ...]] = (
        "codecontests", "apps", "codeforces", "taco", "primeintellect", "livecodebench*",
        "humaneval*", "mbpp*", "code*", "kodcode*", "acecode*", "tiger-lab/acecode*",
        "deepcoder*", "agentica-org/deepcoder*", "open-r1/verifiable-coding*",
        "primeintellect/verifiable-coding*",
    )  # fmt: skip
    default_timeout_s: ClassVar[float] = 60.0
    fixtures: ClassVar[Path | None] = PROJECT_ROOT / "fixtures" / "code" / "cases.jsonl"

    def __init__(self) -> None:
        self._pool: SandboxPool | None = None
        self._ruff_ready: dict[str, RuffReport] = {}
        self._prepared: dict[int, tuple[Record, CodeTask, str]] = {}

    @classmethod
    def capabilities(cls) -> dict[str, object]:
        """The languages this machine can run: each one's toolchain version, or ``None``."""
        return {"languages": languages.availability()}

    @classmethod
    def timeout_for(cls, record: Record) -> float:
        """The hard kill: 1.5 times the item's budget plus 30 s, at most 600 s.

        The item's own budget (:func:`item_budget_s`) is what its runs may use; a response
        that exceeds it is blamed (``resources``) long before this limit masks it as timeout.
        """
        return min(600.0, HARD_SLACK_S + 1.5 * item_budget_s(record))

    def setup(self) -> None:
        """Start this worker's sandbox pool.

        Two zygotes where this process may run on more than one CPU: one cleans up after a run
        (kills leftovers, wipes the scratch dir) while the other serves the next run. A worker
        pinned to one CPU (``cpu_affinity``, :mod:`assay.pool`) gets one: the clean-up cannot
        overlap anything there, and one zygote's pages stay warm (2.7% less CPU an item on the
        HumanEval set). Pytest is imported by the first item that needs it on
        the trusted side (pytest and repo modes), not by every worker: HumanEval, test-case and
        stdio items never do.
        """
        if self._pool is None:
            self._pool = self._start_pool()

    @staticmethod
    def _start_pool() -> SandboxPool:
        pool = SandboxPool(size=sandbox_size())
        if pool.isolation is not Isolation.BWRAP:
            log.warning(
                "code sandbox isolation is REDUCED to %r (no bubblewrap): see docs/code.md",
                pool.isolation.value,
            )
        return pool

    @property
    def pool(self) -> SandboxPool:
        """This worker's sandbox pool, started on first use."""
        if self._pool is None:
            self._pool = self._start_pool()
        return self._pool

    def prefetch(self, records: Sequence[Record]) -> None:
        """Lint the Python answers of a chunk with one ``ruff`` process instead of one each.

        Only what :meth:`verify` would lint is linted (the same extracted program), and a
        source ruff cannot take in the batch is linted on its own when its item is verified.

        This runs on the chunk's first item's clock, outside any item's ``response_owned``, so
        it reads only what is cheap to read: a response over ``BATCH_MAX_SOURCE_BYTES`` (which
        the batch would not lint anyway), and every record once ``PREFETCH_BUDGET_S`` is
        spent, are left to :meth:`verify`, where the cost of reading is the response's own
        (before, seven 1 MB responses made the honest first item of their chunk a ``timeout``).
        """
        self._ruff_ready, self._prepared = {}, {}
        codes: list[str] = []
        started = time.perf_counter()
        for record in records:
            if time.perf_counter() - started > PREFETCH_BUDGET_S:
                break
            with contextlib.suppress(MalformedTaskError, ValueError, TypeError):
                if not isinstance(record.response, str):
                    continue
                if len(record.response) > BATCH_MAX_SOURCE_BYTES:
                    continue
                task = parse_task(record.reference, PROJECT_ROOT)
                if task.mode in ("repo", "terminal") or task.language != "python":
                    continue
                code = python_program(record.response, task)
                self._prepared[id(record)] = (record, task, code)  # the record keeps its id
                if task.static_analysis and code.strip() and syntax_error(code) is None:
                    codes.append(code)
        self._ruff_ready = ruff_reports(codes)

    def _task_and_program(self, record: Record) -> tuple[CodeTask, str | None]:
        """The item's task, and its Python program when :meth:`prefetch` already read both."""
        prepared = self._prepared.pop(id(record), None)
        if prepared is not None and prepared[0] is record:
            return prepared[1], prepared[2]
        return parse_task(record.reference, PROJECT_ROOT), None

    def verify(self, record: Record) -> Verdict:
        task, program = self._task_and_program(record)
        started = time.perf_counter()
        budget = Budget(item_budget_s(record))
        if task.mode == "repo":
            verdict, audit = self._verify_repo(record.response, task, budget)
        elif task.mode == "terminal":
            verdict, audit = self._verify_terminal(record, task, budget)
        elif task.language != "python":
            verdict, audit = self._verify_language(record.response, task, budget)
        else:
            verdict, audit = self._verify_code(record.response, task, budget, program)
            if record.steps and task.language == "python":
                verdict = self._with_command_steps(verdict, record, task, budget)
        _write_replay(record, verdict, audit, self.pool, time.perf_counter() - started)
        return verdict

    def _with_command_steps(
        self, verdict: Verdict, record: Record, task: CodeTask, budget: Budget
    ) -> Verdict:
        """Prefix the verdict's steps with one result per command the trajectory ran.

        The commands run after the final answer, on what is left of the same item budget.
        """
        runner = RUNNERS[task.mode]

        def run_command(code: str) -> tuple[list[Unit], Fault | None]:
            run = Run(self.pool, task, budget)
            return runner(run, code), run.fault

        steps = command_steps(record.steps, run_command)
        if not steps:
            return verdict
        tail = tuple(
            StepResult(len(steps) + s.index, s.name, s.passed, s.score, s.message,
                       {"kind": "test", **s.evidence})
            for s in verdict.steps
        )  # fmt: skip
        return Verdict(verdict.status, verdict.score, verdict.checks, (*steps, *tail),
                       verdict.message)  # fmt: skip

    # modes ----------------------------------------------------------------------------------

    def _verify_code(
        self, response: str, task: CodeTask, budget: Budget, program: str | None = None
    ) -> tuple[Verdict, dict[str, Any]]:
        # reading the response is its own work: a tree too deep or too big to read is its fault
        with response_owned("reading the code"):
            code = python_program(response, task) if program is None else program
            audit: dict[str, Any] = {"code": code}
            if not code.strip():
                return Verdict.unparsable("the response has no code"), audit
            problem = syntax_error(code)
            if problem is not None:
                return Verdict.unparsable(f"the code does not parse: {problem}"), audit
            flags = scan_suspicious(code)
        ruff: RuffRun | RuffReport | None = None
        if task.static_analysis:  # a report of the chunk's one ruff, or a ruff of its own
            ready = self._ruff_ready.get(code)
            with response_owned("linting the code"):  # ruff reads the code as it starts
                ruff = ready if ready is not None else RuffRun(code)  # runs while the tests do
        run = Run(self.pool, task, budget)
        units = RUNNERS[task.mode](run, code)
        checks = [_suspicious_check(flags)] + ([_ruff_check(ruff)] if ruff is not None else [])
        verdict = _verdict(task, units, checks, run.fault)
        return verdict, audit | {"units": [u.name for u in units]}

    def _verify_terminal(
        self, record: Record, task: CodeTask, budget: Budget
    ) -> tuple[Verdict, dict[str, Any]]:
        """Replay the trajectory's shell commands on the task's tree, then run its tests."""
        spec: terminal.TerminalSpec = task.spec
        found = terminal.shell_commands(record.response, record.steps)
        audit: dict[str, Any] = {"commands": [c for _, c in found], "instruction": spec.instruction}
        if not found:
            return Verdict.unparsable("the response runs no shell command"), audit
        tree = terminal.initial_tree(self.pool, spec, task.timeout_s, task.memory_mb)
        reserve = (task.timeout_s * max(1, len(spec.test_ids)) + 10.0) * 1.2
        steps: list[StepResult] = []
        for label, command in found:
            left = budget.remaining() - reserve
            if left < modes.MIN_RUN_S:
                steps.append(
                    StepResult(
                        len(steps),
                        label,
                        False,
                        0.0,
                        "not run: the item's budget is spent",
                        {"kind": "command", "command": command[:2000]},
                    )
                )
                continue
            run, tree = terminal.run_command(
                self.pool, tree, label, command, timeout_s=min(task.timeout_s, left),
                memory_mb=task.memory_mb,
            )  # fmt: skip
            steps.append(run.step(len(steps)))
        units = terminal.run_tests(self.pool, spec, tree, task.timeout_s, task.memory_mb)
        verdict = _verdict(task, units, [])
        tail = tuple(
            StepResult(len(steps) + s.index, s.name, s.passed, s.score, s.message,
                       {"kind": "test", **s.evidence})
            for s in verdict.steps
        )  # fmt: skip
        audit |= {"final_tree": terminal.tree_names(tree), "units": [u.name for u in units]}
        return replace(verdict, steps=(*steps, *tail)), audit

    def _verify_language(
        self, response: str, task: CodeTask, budget: Budget
    ) -> tuple[Verdict, dict[str, Any]]:
        """Any language but Python: the compile step (or syntax check), then the units."""
        language = languages.LANGUAGES[task.language]
        code = extract_fenced(response, language.tags | {""})
        audit: dict[str, Any] = {"code": code, "language": language.name}
        if not code.strip():
            return Verdict.unparsable(f"the response has no {language.name} code"), audit
        problem = languages.precheck(language, code)
        if problem is not None:
            check = Check(COMPILE, False, message=problem, evidence={"errors": 1, "warnings": 0})
            return Verdict.incorrect((check,), message=problem), audit
        left = budget.remaining()
        if left < modes.MIN_RUN_S:
            fault = Fault("budget", "the item's time budget is spent before the compile")
            return _blamed(fault, (), [], ()), audit
        limits = languages.compile_limits(min(task.compile_timeout_s, left), task.compile_memory_mb)
        result = languages.compile_source(self.pool, language, code, limits)
        compile_check = _compile_check(language, result)
        audit |= {"compile": {"key": result.key, "cached": result.cached, "ok": result.ok}}
        if result.fault is not None:
            fault = Fault(result.fault, f"the compile step exceeded its {result.fault} limit",
                          "compile")  # fmt: skip
            return _blamed(fault, (compile_check,), [], ()), audit
        if not result.ok:
            if not language.compiled:  # a syntax check: the text is not a program
                return Verdict.unparsable(
                    f"the code does not parse: {result.diagnostics.strip()[:300]}"
                ), audit
            message = f"compile failed: {result.diagnostics.strip()[:300]}"
            return Verdict.incorrect((compile_check,), message=message), audit
        run = Run(self.pool, task, budget)
        if task.mode == "test_cases":
            units = compiled.run_calls(run, language, code, result.artifacts)
        else:
            units = compiled.run_stdio(run, language, code, result.artifacts)
        verdict = _verdict(task, units, [compile_check], run.fault)
        return verdict, audit | {"units": [u.name for u in units]}

    def _verify_repo(
        self, response: str, task: CodeTask, budget: Budget
    ) -> tuple[Verdict, dict[str, Any]]:
        with response_owned("reading the diff"):
            diff = extract_patch(response)
        audit: dict[str, Any] = {"diff": diff}
        if diff is None:
            return Verdict.unparsable("the response has no unified diff"), audit
        test_files = {t.split("::", 1)[0] for t in (*task.fail_to_pass, *task.pass_to_pass)}
        test_files |= set(task.test_files)
        try:
            tree = apply_patch(task.spec, diff, test_files)
        except PatchError as exc:
            check = Check("patch", False, message=f"the diff does not apply: {exc}")
            return Verdict.incorrect((check,), message="the diff does not apply"), audit
        flags = list(tree.flags)  # judged on the patched tree, not on the diff's text
        patch_check = Check(
            "patch",
            True,
            message=f"{len(tree.changed)} files changed",
            evidence={
                "changed": list(tree.changed),
                "dropped": list(tree.dropped),
                "modes": list(tree.modes),
            },
        )
        gated = [f for f in flags if f.kind in GATED_KINDS]
        if gated:
            hostile = Check(
                "hostile",
                False,
                message="the patch reaches into the test framework or the interpreter",
                evidence={"flags": [f.to_dict() for f in gated]},
            )
            return Verdict.incorrect((patch_check, hostile, _suspicious_check(flags))), audit
        ruff = RuffRun(files=_changed_sources(tree)) if task.static_analysis else None
        run = Run(self.pool, task, budget)
        units = modes.run_repo(run, tree)
        checks = [patch_check, _suspicious_check(flags)]
        checks += [_ruff_check(ruff)] if ruff is not None else []
        verdict = _verdict(task, units, checks, run.fault)
        return verdict, audit | {"units": [u.name for u in units]}


def _compile_check(language: languages.Language, result: languages.CompileResult) -> Check:
    what = "compiled" if language.compiled else "syntax checked"
    message = (
        f"{what} ({result.warnings} warnings)" if result.ok
        else f"{'compile' if language.compiled else 'syntax check'} failed: "
        f"{result.errors} errors, {result.warnings} warnings"
    )  # fmt: skip
    return Check(
        COMPILE,
        result.ok,
        score=1.0 if result.ok else 0.0,
        message=message,
        evidence={
            "language": language.name,
            "toolchain": result.version,
            "warnings": result.warnings,
            "errors": result.errors,
            "diagnostics": result.diagnostics[-2000:],
            "cached": result.cached,
            "seconds": round(result.seconds, 4),
        },
    )


def _changed_sources(tree: PatchedTree) -> dict[str, str]:
    """The Python files the patch changed or added, as they are after it (for ruff)."""
    return {
        name: tree.files[name].decode("utf-8")
        for name in tree.changed
        if name.endswith(".py") and name in tree.files
    }


def _suspicious_check(flags: list[Flag]) -> Check:
    kinds = sorted({f.kind for f in flags})
    message = f"suspicious: {', '.join(kinds)}" if kinds else "nothing suspicious"
    return Check(
        "suspicious",
        not flags,
        message=message,
        evidence={"flags": [f.to_dict() for f in flags[:50]]},
    )


def python_program(response: str, task: CodeTask) -> str:
    """The program a Python response is judged as: its code, continuing the prompt if it must."""
    code = extract_code(response, task.entry_point)
    return continue_prompt(code, response, task.prompt, task.entry_point)


def _ruff_check(run: RuffRun | RuffReport) -> Check:
    # ruff's time and its report's size grow with the code: a response that makes them too
    # costly (175,000 undefined names) is its own fault, not a masked timeout
    with response_owned("linting the code"):
        report = run if isinstance(run, RuffReport) else run.report()
    return Check(
        "ruff",
        report.passed,
        score=report.score,
        message=f"{len(report.findings)} findings",
        evidence={
            "by_rule": report.by_rule,
            "by_severity": report.by_severity,
            "findings": list(report.findings[:50]),
        },
    )


def sandbox_size() -> int:
    """Zygotes for this worker's sandbox pool: one on a single CPU, else two (:meth:`setup`)."""
    getter = getattr(os, "sched_getaffinity", None)
    return 1 if getter is not None and len(getter(0)) == 1 else 2


def item_budget_s(record: Record) -> float:
    """Wall-clock seconds all of an item's runs may use: 1.5 x per-unit limit x units x runs.

    The 1.5 leaves room for units (a HumanEval assert, a pytest test) that call the candidate
    several times.

    Runs are the final answer and each command of the trajectory; at most
    :data:`BUDGET_CAP_S`, so :meth:`CodeVerifier.timeout_for` always leaves slack beyond it.
    """
    reference: Mapping[str, Any] = record.reference if isinstance(record.reference, dict) else {}
    with contextlib.suppress(MalformedTaskError, ValueError):  # verify() reports it
        reference = from_native(reference)  # count a benchmark's own tests
    per_unit = reference.get("timeout_s", 5.0)
    valid = isinstance(per_unit, int | float) and not isinstance(per_unit, bool) and per_unit > 0
    per_unit = float(per_unit) if valid and per_unit < 1e6 else 5.0
    units = 1
    for key in ("test_cases", "stdio", "fail_to_pass", "pass_to_pass", "inputs"):
        value = reference.get(key)
        units += len(value) if isinstance(value, list) else 0
    if any(k in reference for k in CONTEST_KEYS):  # contest fields: count the cases they hold
        with contextlib.suppress(MalformedTaskError):
            units += len(parse_task(reference, PROJECT_ROOT).spec)
    for key in ("tests", "pytest"):
        source = reference.get(key)
        if isinstance(source, str):
            units += max(1, source.count("assert"))
    runs = 1
    if record.steps and not reference.get("repo"):
        runs += command_count(record.steps)
    terminal_spec = reference.get("terminal")
    if isinstance(terminal_spec, dict):
        found = terminal.shell_commands(record.response, record.steps)
        tests = terminal_spec.get("tests")
        count = len(tests) if isinstance(tests, list | dict) else 1
        if isinstance(tests, dict):
            count = sum(max(1, str(v).count("def test")) for v in tests.values())
        work = per_unit * (len(found) + count) + terminal.PACK_SLACK_S * (len(found) + 2)
        return min(BUDGET_CAP_S, 1.5 * work + 40.0)
    compile_s = 0.0
    language = reference.get("language")
    if isinstance(language, str) and languages.canonical(language) in languages.LANGUAGES:
        wanted = reference.get("compile_timeout_s", languages.COMPILE_TIMEOUT_S)
        ok = isinstance(wanted, int | float) and not isinstance(wanted, bool) and 0 < wanted < 1e4
        compile_s = float(wanted) if ok else languages.COMPILE_TIMEOUT_S
    return min(BUDGET_CAP_S, 1.5 * per_unit * units * runs + 10.0 + compile_s)


def _verdict(
    task: CodeTask, units: list[Unit], checks: list[Check], fault: Fault | None = None
) -> Verdict:
    total = len(units)
    passed = sum(u.passed for u in units)
    fraction = passed / total if total else 0.0
    if task.all_or_nothing and passed < total:
        fraction = 0.0
    score = fraction
    ruff = next((c for c in checks if c.name == "ruff"), None)
    if task.ruff_weight and ruff is not None and ruff.score is not None:
        score = (1 - task.ruff_weight) * fraction + task.ruff_weight * ruff.score
    compiled_ok = any(c.name == COMPILE and c.passed for c in checks)
    if task.compile_weight and compiled_ok:
        score = task.compile_weight + (1 - task.compile_weight) * score
    resources = _resources_check(task, units)
    tests = Check(
        "tests",
        passed == total and total > 0,
        score=fraction,
        message=f"{passed}/{total} passed",
        evidence={
            "passed": passed,
            "total": total,
            "failed": [u.name for u in units if not u.passed][:50],
        },
    )
    all_checks = (tests, *checks, *resources)
    steps = tuple(u.step(i) for i, u in enumerate(units))
    if total and passed == total:
        status = Status.CORRECT
    elif fraction > 0 or (task.compile_weight and compiled_ok and score > 0):
        status = Status.PARTIAL
    else:
        status = Status.INCORRECT
    message = None if status is Status.CORRECT else _first_failure(units)
    if fault is not None:
        return _blamed(fault, (tests, *checks), resources, steps)
    return Verdict(status, round(score, 6), all_checks, steps, message)


def _blamed(
    fault: Fault, checks: tuple[Check, ...], resources: list[Check], steps: tuple[StepResult, ...]
) -> Verdict:
    """The response exceeded a limit: ``incorrect``, score 0, a failed ``resources`` check."""
    message = f"{fault.cause}: {fault.message}" + (f" ({fault.unit})" if fault.unit else "")
    usage = resources[0].evidence if resources else {}
    evidence = {"cause": fault.cause, "unit": fault.unit, "limit_kills": fault.limit_kills, **usage}
    verdict = response_fault(RESOURCES, message, evidence)
    return replace(verdict, checks=(*checks, *verdict.checks, *resources[1:]), steps=steps)


def _first_failure(units: list[Unit]) -> str | None:
    failed = next((u for u in units if not u.passed), None)
    return None if failed is None else f"{failed.name}: {failed.message}"[:300]


def _resources_check(task: CodeTask, units: list[Unit]) -> list[Check]:
    wall = sum(u.wall_s for u in units)
    cpu = sum(u.cpu_s for u in units)
    peak = max((u.peak_rss_bytes for u in units), default=0)
    evidence = {
        "wall_s": round(wall, 6),
        "cpu_s": round(cpu, 6),
        "peak_rss_mb": round(peak / 2**20, 2),
    }
    checks = [
        Check(
            "resources",
            True,
            message=f"cpu {cpu:.3f} s, peak {peak / 2**20:.1f} MB",
            evidence=evidence,
        )
    ]
    if task.reference_time_s is not None:
        budget = task.reference_time_s * task.time_budget_factor
        checks.append(
            Check(
                "runtime_budget",
                cpu <= budget,
                score=min(1.0, budget / cpu) if cpu > 0 else 1.0,
                message=f"cpu {cpu:.3f} s vs budget {budget:.3f} s",
                evidence={"cpu_s": cpu, "budget_s": budget},
            )
        )
    return checks


def _write_replay(
    record: Record, verdict: Verdict, audit: dict[str, Any], pool: SandboxPool, seconds: float
) -> None:
    """With ``ASSAY_REPLAY_DIR`` set, keep everything needed to audit and re-run this item."""
    directory = os.environ.get(REPLAY_ENV)
    if not directory:
        return
    safe_id = re.sub(r"[^A-Za-z0-9_.-]", "_", record.id)[:80]
    digest = hashlib.sha256(f"{record.id}\0{record.response}".encode()).hexdigest()[:12]
    path = Path(directory) / f"{safe_id}-{digest}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "record": {
            "id": record.id,
            "domain": record.domain,
            "response": record.response,
            "reference": record.reference,
            "steps": list(record.steps),
        },
        "verifier": f"{CodeVerifier.name}@{CodeVerifier.version}",
        "sandbox": {"isolation": pool.isolation.value, "report": str(pool.report)},
        "audit": audit,
        "verdict": {
            "status": verdict.status.value,
            "score": verdict.score,
            "message": verdict.message,
            "checks": [c.to_dict() for c in verdict.checks],
            "steps": [s.to_dict() for s in verdict.steps],
        },
        "seconds": round(seconds, 4),
    }
    path.write_text(json.dumps(payload, indent=1, default=str, ensure_ascii=False))
