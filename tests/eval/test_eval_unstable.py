"""`assay eval`: a case whose two scorings disagree fails the suite (exit 5), a one-off timeout
does not.

The verifiers keep their call counts in files (worker processes share them), so "the second
scoring of this case" is exact whatever process runs it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_verifiers import CALLS_DIR, ExactVerifier, SecondThoughts, SlowOnce

import assay.registry
from assay.cli import main
from assay.evaluation.baseline import Baseline, BaselineEntry, CaseVerdict
from assay.verifier import Verifier

# ExactVerifier's verdicts on tests/eval/data/answers.jsonl (what a deterministic run gives)
HONEST = {
    "exact-001": CaseVerdict("correct", 1.0),
    "exact-002": CaseVerdict("correct", 1.0),
    "exact-003": CaseVerdict("correct", 1.0),
    "exact-004": CaseVerdict("incorrect", 0.0),
    "exact-005": CaseVerdict("incorrect", 0.0),
    "exact-006": CaseVerdict("unparsable", 0.0),
    "exact-007": CaseVerdict("error", 0.0),
}


def _eval(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    verifier: type[Verifier],
    recorded: dict[str, CaseVerdict],
    *extra: str,
) -> tuple[int, str, Path]:
    calls = tmp_path / "calls"
    calls.mkdir()
    monkeypatch.setenv(CALLS_DIR, str(calls))
    registry = assay.registry.Registry()
    registry.register(verifier, "test")
    monkeypatch.setattr(assay.registry, "default_registry", lambda: registry)
    baseline = tmp_path / "baseline.json"
    entry = BaselineEntry(f"{verifier.name}@{verifier.version}", {}, recorded)
    Baseline({verifier.name: entry}).write(baseline)
    argv = ["eval", "--domains", verifier.name, "--baseline", str(baseline), "--workers", "1"]
    argv += ["--json", str(tmp_path / "eval.json"), *extra]
    return main(argv), baseline.read_text(encoding="utf-8"), tmp_path / "eval.json"


def test_a_verdict_that_changes_when_scored_again_is_a_regression(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # exact-001 differs from the baseline on the first scoring (correct), so it is scored again
    # and comes out incorrect, which matches the baseline: no flip, but two verdicts for one input
    recorded = {**HONEST, "exact-001": CaseVerdict("incorrect", 0.0)}
    code, _, report = _eval(monkeypatch, tmp_path, SecondThoughts, recorded)
    out = capsys.readouterr().out
    assert code == 5, out
    assert "UNSTABLE second_thoughts@1.0 exact-001: scored correct(1), then incorrect(0)" in out, (
        out
    )
    assert "no verdict changed" in out  # the kept verdict agrees with the baseline
    assert "REGRESSION" in out.splitlines()[-1]
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["regressed"] is True
    assert [(u["id"], u["timed_out"]) for u in data["unstable"]] == [("exact-001", False)]


def test_an_unstable_verdict_is_not_written_into_the_baseline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded = {**HONEST, "exact-001": CaseVerdict("incorrect", 0.0)}
    code, before, _ = _eval(monkeypatch, tmp_path, SecondThoughts, recorded, "--update-baseline")
    out = capsys.readouterr().out
    assert code == 5, out
    assert "baseline not written" in out
    assert (tmp_path / "baseline.json").read_text(encoding="utf-8") == before


def test_a_one_off_timeout_is_scored_again_and_does_not_fail(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, report = _eval(monkeypatch, tmp_path, SlowOnce, HONEST)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "note: slow_once@1.0 exact-001: scored timeout(0), then correct(1)" in out, out
    assert "UNSTABLE" not in out
    data = json.loads(report.read_text(encoding="utf-8"))
    assert [(u["id"], u["timed_out"]) for u in data["unstable"]] == [("exact-001", True)]


def test_a_deterministic_verifier_passes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = _eval(monkeypatch, tmp_path, ExactVerifier, HONEST)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "eval passed" in out
