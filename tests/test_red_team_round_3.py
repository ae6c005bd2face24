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
    "m_fc_exp_flat": "a smooth term flat near 0 (e^{-10^4/x^2}) is 0 to 30 digits at every "
    "sample point: no non-analytic function calls for the wide points",
    "m_fc_arctan_tan": "2 arctan(tan(x/2)) equals x on (-pi, pi), where every sample point lies",
    "m_fc_tiny_irrational": "an exact term of 10^-25 times sqrt(2) is below the points' 1e-20 "
    "tolerance, and cancel decides only rational coefficients",
    "m_fc_tiny_sin": "as above with 10^-25 sin x",
    "m_fc_chain_inexact": "x = 5.0 = 7: an inexact part is not compared (it gains nothing over "
    "writing 7: only the last part is read)",
    "m_fc_chain_irrational": "x = sqrt(2) = 7: only rational parts are compared (no gain "
    "over writing 7)",
    "m_fn_chain_angle": "an angle's name (\\angle A) on the left is no variable, so the chain "
    "has no value",
    "m_fn_choice_since": "the reader cuts the justification so the letters in it are read",
    "f_fn_paren_K": "a restated figure in brackets ($58,926K) is read as an accounting negative",
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
