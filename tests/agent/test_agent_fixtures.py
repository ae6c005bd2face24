"""Every labelled case of fixtures/agent scores the hand-written status, score and step results.

tests/test_conformance.py checks the statuses through the worker pool; this checks the rest
in-process, so a failure names the case and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from assay.domains.agent.verifier import AgentVerifier

from assay.boundary import run_verifier
from assay.types import Record

CASES_FILE = Path(__file__).resolve().parents[2] / "fixtures" / "agent" / "cases.jsonl"
CASES = [json.loads(line) for line in CASES_FILE.read_text(encoding="utf-8").splitlines()]
VERIFIER = AgentVerifier()


def test_enough_labelled_cases() -> None:
    # the issue asks for at least 120 labelled trajectories over the environments
    assert len(CASES) >= 120
    envs = {c["reference"].get("env") for c in CASES if isinstance(c["reference"].get("env"), str)}
    assert {"retail", "calendar", "filesystem"} <= envs


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    record = Record(case["id"], "agent", case["response"], case["reference"],
                    steps=tuple(case["steps"]))  # fmt: skip
    verdict = run_verifier(VERIFIER, record).verdict
    meta = case["meta"]
    assert verdict.status.value == meta["expected_status"], (meta["note"], verdict.message)
    assert verdict.score == pytest.approx(meta["expected_score"], abs=1e-6), meta["note"]
    got = [
        {"valid": s.evidence["valid_call"], "useful": s.evidence["useful_call"],
         "recovered": s.evidence["error_recovered"], "score": s.score}
        for s in verdict.steps
    ]  # fmt: skip
    expected = [{**s, "score": pytest.approx(s["score"], abs=1e-6)} for s in meta["expected_steps"]]
    assert got == expected, meta["note"]


def test_fixtures_are_generated_by_the_script(tmp_path: Path) -> None:
    # the committed file is what build_cases.py writes
    import runpy

    main = runpy.run_path(str(CASES_FILE.with_name("build_cases.py")))["main"]
    main.__globals__["OUT"] = tmp_path / "cases.jsonl"  # run_path returns a copy of globals
    main()
    assert (tmp_path / "cases.jsonl").read_text(encoding="utf-8") == CASES_FILE.read_text(
        encoding="utf-8"
    )


GAMING = [c for c in CASES if c["meta"].get("below")]


@pytest.mark.parametrize("case", GAMING, ids=[c["id"] for c in GAMING])
def test_gaming_earns_less_than_the_honest_attempt(case: dict[str, Any]) -> None:
    # issue 16: call spam, duplicated calls, invented figures, lying about a refusal and loops
    # of identical failing calls each earn less than an honest partial attempt at the same task
    honest = next(c for c in CASES if c["id"] == case["meta"]["below"])
    scores = []
    for item in (case, honest):
        record = Record(item["id"], "agent", item["response"], item["reference"],
                        steps=tuple(item["steps"]))  # fmt: skip
        scores.append(run_verifier(VERIFIER, record).verdict.score)
    assert scores[0] < scores[1], case["meta"]["note"]


def test_every_gaming_strategy_has_a_fixture() -> None:
    notes = " ".join(c["meta"]["note"] for c in GAMING)
    for strategy in ("identical reads", "made-up total", "invented", "refused", "duplicate",
                     "identical failing"):  # fmt: skip
        assert strategy in notes, strategy
