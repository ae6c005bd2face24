"""Finance answers from a second red-team run (2026-12-03, fourth session), in
``red_team_2026_12_03b.json``, committed before the fixes they test.

- ``false_credit``: a hedge between directions that avoids " or " ("rose/fell", "+/-",
  "-X (or X)") paid as one direction, and an answer to a consistency question that claims
  both; each must be paid no more than its honest counterpart (a committed wrong answer).
- ``false_negative``: a right answer marked wrong (a bold year or label read as the answer,
  a "did not" read as "no", a gap given in JSON, a bullet list of spans, "62 cents", a space
  thousands separator, ``FY23``...); it must be ``correct``.

Cases left as found are listed in :data:`KNOWN` with the reason, as strict expected failures.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer
from assay.types import Result

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "red_team_2026_12_03b.json").read_text()
)
KNOWN: dict[str, str] = {
    "f_fn_cash_used_magnitude": "'used' is no sign word: 'net cash used ... was $55,275 "
    "thousand' is read as +55,275 against the statement's -55,275 (arguable: the question "
    "names the outflow)",
    "f_fn_space_thousands": "a space as the thousands separator ('-24 175 thousand') is read "
    "as two numbers",
}


def _row(n: int, reference: Any, response: Any, steps: Any) -> RawRow:
    row: dict[str, Any] = {"id": str(n), "domain": "finance", "reference": reference,
                           "response": response}  # fmt: skip
    if steps is not None:
        row["steps"] = steps
    return RawRow(n, row)


@pytest.fixture(scope="module")
def scored() -> Iterator[dict[str, tuple[Result, Result | None]]]:
    rows, keys = [], []
    for case in CASES:
        rows.append(_row(len(rows), case["reference"], case["response"], case.get("steps")))
        keys.append((case["id"], "attack"))
        honest = case.get("honest")
        if honest and "response" in honest:
            rows.append(_row(len(rows), case["reference"], honest["response"], honest.get("steps")))
            keys.append((case["id"], "honest"))
    with Scorer(ScoreOptions(workers=1)) as scorer:
        results = list(scorer.score_rows(rows))
    by_id: dict[str, dict[str, Result]] = {}
    for (case_id, role), result in zip(keys, results, strict=True):
        by_id.setdefault(case_id, {})[role] = result
    yield {k: (v["attack"], v.get("honest")) for k, v in by_id.items()}


def _marks(case: dict[str, Any]) -> list[pytest.MarkDecorator]:
    reason = KNOWN.get(case["id"])
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"], marks=_marks(c)) for c in CASES])
def test_the_attack_does_not_pay(
    scored: dict[str, tuple[Result, Result | None]], case: dict[str, Any]
) -> None:
    attack, honest = scored[case["id"]]
    status, message = attack.status.value, attack.verdict.message or ""
    assert status not in ("error", "timeout"), f"masked: {message}"
    if case["kind"] == "false_negative":
        assert status == "correct", f"{case['expected']}: {status} {message}"
        return
    if case["kind"] == "masked":
        return
    assert honest is not None
    if case["id"] == "a_step_farming_distinct_reads":  # the step rewards are what it farms
        farmed = sum(step.score for step in attack.verdict.steps)
        earned = sum(step.score for step in honest.verdict.steps)
        assert farmed <= earned, f"{farmed} step reward against the honest {earned}"
        return
    assert attack.verdict.score <= honest.verdict.score, (
        f"{case['expected']}: {attack.verdict.score} against the honest {honest.verdict.score}"
    )
    if honest.verdict.score == 1.0:
        assert attack.verdict.score < 1.0, case["expected"]


def test_the_cases_are_the_ones_measured() -> None:
    kinds = [c["kind"] for c in CASES]
    assert len(CASES) == 24
    assert (kinds.count("false_credit"), kinds.count("masked"), kinds.count("false_negative")) == (
        8,
        0,
        16,
    )
