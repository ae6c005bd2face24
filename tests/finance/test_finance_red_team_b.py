"""Finance answers from a second red-team run (2026-12-03, fourth session), in
``red_team_2026_12_03b.json``, committed before the fixes they test.

- ``false_credit``: a hedge between directions that avoids " or " ("rose/fell", "+/-",
  "-X (or X)") paid as one direction, and an answer to a consistency question that claims
  both; each must be paid no more than its honest counterpart (a committed wrong answer).
- ``false_negative``: a right answer marked wrong (a bold year or label read as the answer,
  a "did not" read as "no", a gap given in JSON, a bullet list of spans, "62 cents", a space
  thousands separator, ``FY23``...); it must be ``correct``.

The rules are :mod:`attack_tables`'; cases left as found are listed in :data:`KNOWN` with the
reason, as strict expected failures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from attack_tables import Scored, check_case, params, score_cases

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


@pytest.fixture(scope="module")
def scored() -> Scored:
    return score_cases("finance", CASES)


@pytest.mark.parametrize("case", params(CASES, KNOWN))
def test_the_attack_does_not_pay(scored: Scored, case: dict[str, Any]) -> None:
    check_case(case, *scored[case["id"]])


def test_the_cases_are_the_ones_measured() -> None:
    kinds = [c["kind"] for c in CASES]
    assert len(CASES) == 24
    assert (kinds.count("false_credit"), kinds.count("masked"), kinds.count("false_negative")) == (
        8,
        0,
        16,
    )
