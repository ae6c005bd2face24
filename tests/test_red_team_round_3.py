"""A third red team (2026-12-03, fourth session) against the rules that session added, in
``data/red_team_2026_12_03c.json``, committed before the fixes they test: 47 wins in math
(test points, chains, Greek letters, option letters), agent (hedged and denied facts, clock
times), finance (sign hedges) and code (a helper given after the solution block).

The rules are :mod:`attack_tables`'; cases left as found are in :data:`KNOWN` with the
reason, as strict expected failures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from attack_tables import Scored, check_case, params, score_cases

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "red_team_2026_12_03c.json").read_text()
)
KNOWN: dict[str, str] = {
    "a_fc_status_0": "two status words side by side ('pending, delivered') read as stated: "
    "they cannot be told from an honest pair ('delivered, paid') without the environment's "
    "vocabulary",
    "a_fc_status_6": "'pending and delivered': as above ('delivered and paid' is honest)",
}


@pytest.fixture(scope="module")
def scored() -> Scored:
    return score_cases("math", CASES)


@pytest.mark.parametrize("case", params(CASES, KNOWN))
def test_the_attack_does_not_pay(scored: Scored, case: dict[str, Any]) -> None:
    check_case(case, *scored[case["id"]])


def test_the_cases_are_the_ones_measured() -> None:
    kinds = [(c["domain"], c["kind"]) for c in CASES]
    assert len(CASES) == 47
    assert kinds.count(("agent", "false_credit")) == 21
    assert kinds.count(("math", "false_negative")) == 10
