"""The code verifier: run generated Python against tests in the hostile-code sandbox."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from assay.domains.code import modes
from assay.domains.code.task import CodeTask, parse_task
from assay.domains.code.trajectory import command_steps
from assay.verifiers.code.extract import extract_code, extract_patch
from assay.verifiers.code.repo import PatchError, added_lines, apply_patch
from assay.verifiers.code.static import RuffRun, syntax_error
from assay.verifiers.code.suspicious import Flag, scan_suspicious
from assay.verifiers.code.units import Unit
from assay.verifiers.sandbox import Isolation, SandboxPool

from assay.types import Check, Record, Status, StepResult, Verdict
from assay.verifier import Verifier

log = logging.getLogger(__name__)

PROJECT_ROOT = Path(__file__).resolve().parents[4]
REPLAY_ENV = "ASSAY_REPLAY_DIR"
GATED_KINDS = {"framework", "introspection", "test-files", "always-equal"}
"""Flags that reject a repo patch: there the candidate shares pytest's process."""

Runner = Callable[[SandboxPool, str, CodeTask], list[Unit]]
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
    version: ClassVar[str] = "1.1.0"
    aliases: ClassVar[tuple[str, ...]] = ("python", "coding")
    data_sources: ClassVar[tuple[str, ...]] = (
        "codecontests", "apps", "codeforces", "taco", "primeintellect", "livecodebench*",
        "humaneval*", "mbpp*", "code*",
    )  # fmt: skip
    default_timeout_s: ClassVar[float] = 60.0
    fixtures: ClassVar[Path | None] = PROJECT_ROOT / "fixtures" / "code" / "cases.jsonl"

    def __init__(self) -> None:
        self._pool: SandboxPool | None = None

    @classmethod
    def timeout_for(cls, record: Record) -> float:
        """Per-unit limit times the number of units, plus start-up slack, at most 600 s."""
        reference = record.reference if isinstance(record.reference, dict) else {}
        per_unit = reference.get("timeout_s", 5.0)
        per_unit = float(per_unit) if isinstance(per_unit, int | float) else 5.0
        units = 1
        for key in ("test_cases", "stdio", "fail_to_pass", "pass_to_pass"):
            value = reference.get(key)
            units += len(value) if isinstance(value, list) else 0
        for key in ("tests", "pytest"):
            source = reference.get(key)
            if isinstance(source, str):
                units += max(1, source.count("assert"))
        return min(600.0, 20.0 + per_unit * units * 1.5)

    def setup(self) -> None:
        """Start this worker's sandbox pool and import the test tools.

        Two zygotes: one cleans up after a run (kills leftovers, wipes the scratch dir) while
        the other serves the next run.
        """
        import pytest  # noqa: F401 - warm the trusted side's pytest once

        if self._pool is None:
            self._pool = self._start_pool()

    @staticmethod
    def _start_pool() -> SandboxPool:
        pool = SandboxPool(size=2)
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

    def verify(self, record: Record) -> Verdict:
        task = parse_task(record.reference, PROJECT_ROOT)
        started = time.perf_counter()
        if task.mode == "repo":
            verdict, audit = self._verify_repo(record.response, task)
        else:
            verdict, audit = self._verify_code(record.response, task)
            if record.steps:
                verdict = self._with_command_steps(verdict, record, task)
        _write_replay(record, verdict, audit, self.pool, time.perf_counter() - started)
        return verdict

    def _with_command_steps(self, verdict: Verdict, record: Record, task: CodeTask) -> Verdict:
        """Prefix the verdict's steps with one result per command the trajectory ran."""
        runner = RUNNERS[task.mode]
        steps = command_steps(record.steps, lambda code: runner(self.pool, code, task))
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

    def _verify_code(self, response: str, task: CodeTask) -> tuple[Verdict, dict[str, Any]]:
        code = extract_code(response)
        audit: dict[str, Any] = {"code": code}
        if not code.strip():
            return Verdict.unparsable("the response has no code"), audit
        problem = syntax_error(code)
        if problem is not None:
            return Verdict.unparsable(f"the code does not parse: {problem}"), audit
        flags = scan_suspicious(code)
        ruff = RuffRun(code) if task.static_analysis else None  # runs while the tests do
        units = RUNNERS[task.mode](self.pool, code, task)
        checks = [_suspicious_check(flags)] + ([_ruff_check(ruff)] if ruff is not None else [])
        return _verdict(task, units, checks), audit | {"units": [u.name for u in units]}

    def _verify_repo(self, response: str, task: CodeTask) -> tuple[Verdict, dict[str, Any]]:
        diff = extract_patch(response)
        audit: dict[str, Any] = {"diff": diff}
        if diff is None:
            return Verdict.unparsable("the response has no unified diff"), audit
        test_files = {t.split("::", 1)[0] for t in (*task.fail_to_pass, *task.pass_to_pass)}
        try:
            tree = apply_patch(task.spec, diff, test_files)
        except PatchError as exc:
            check = Check("patch", False, message=f"the diff does not apply: {exc}")
            return Verdict.incorrect((check,), message="the diff does not apply"), audit
        flags = scan_suspicious(added_lines(diff))
        patch_check = Check(
            "patch",
            True,
            message=f"{len(tree.changed)} files changed",
            evidence={"changed": list(tree.changed), "dropped": list(tree.dropped)},
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
        units = modes.run_repo(self.pool, tree, task)
        checks = [patch_check, _suspicious_check(flags)]
        return _verdict(task, units, checks), audit | {"units": [u.name for u in units]}


def _suspicious_check(flags: list[Flag]) -> Check:
    kinds = sorted({f.kind for f in flags})
    message = f"suspicious: {', '.join(kinds)}" if kinds else "nothing suspicious"
    return Check(
        "suspicious",
        not flags,
        message=message,
        evidence={"flags": [f.to_dict() for f in flags[:50]]},
    )


def _ruff_check(run: RuffRun) -> Check:
    report = run.report()
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


def _verdict(task: CodeTask, units: list[Unit], checks: list[Check]) -> Verdict:
    total = len(units)
    passed = sum(u.passed for u in units)
    fraction = passed / total if total else 0.0
    if task.all_or_nothing and passed < total:
        fraction = 0.0
    score = fraction
    ruff = next((c for c in checks if c.name == "ruff"), None)
    if task.ruff_weight and ruff is not None and ruff.score is not None:
        score = (1 - task.ruff_weight) * fraction + task.ruff_weight * ruff.score
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
    elif fraction > 0:
        status = Status.PARTIAL
    else:
        status = Status.INCORRECT
    message = None if status is Status.CORRECT else _first_failure(units)
    return Verdict(status, round(score, 6), all_checks, steps, message)


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
