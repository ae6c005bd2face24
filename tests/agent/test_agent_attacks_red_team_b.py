"""Agent answers from a second red-team run (2026-12-03, fourth session), in
``data/red_team_2026_12_03b.json``, committed before the fixes they test.

Each case is a trajectory the red team scored, with the honest counterpart it was measured
against:

- ``false_credit``: paid more than the honest counterpart (a refusal the agent provoked with a
  misspelled id, a success claim read as a reported refusal, hedged or negated facts, a
  shotgun of figures with nothing to ground them, facts named only in ``<think>``, a change
  the task did not ask for, a normalised address that is another person's). The attack must
  be paid no more than the honest answer, and less than one that did the task (1.0).
- ``masked``: made the verdict an ``error`` (a lone surrogate in a call's argument). The
  response caused it: never ``error`` or ``timeout``.
- ``false_negative``: a right answer marked wrong; it must be ``correct``.

The rules are :mod:`attack_tables`'; cases left as found are listed in :data:`KNOWN` with the
reason, as strict expected failures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from assay.domains.agent.scoring import reports_refusal
from attack_tables import Scored, check_case, params, row, score_cases

from assay.runner import ScoreOptions, Scorer

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "red_team_2026_12_03b.json").read_text()
)
KNOWN: dict[str, str] = {
    "a_fn_derived_end_time": "an end time worked out from a start and a duration is no figure "
    "a result shows (grounding tries no time arithmetic)",
    "a_fn_words_half_known": "'thirty-three and a half' is read as 133, not 133.5",
    "a_fn_leading_bracket_known": "a response that opens with '[' is read as a list of calls",
    "a_fn_leading_word_paren": "a response that opens with 'Word (' is read as a Python call",
    "a_fn_tool_call_word_in_prose_known": "a literal <tool_call> in prose makes the message a "
    "call turn",
}


@pytest.fixture(scope="module")
def scored() -> Scored:
    return score_cases("agent", CASES)


@pytest.mark.parametrize("case", params(CASES, KNOWN))
def test_the_attack_does_not_pay(scored: Scored, case: dict[str, Any]) -> None:
    attack, honest = scored[case["id"]]
    if case["id"] == "a_step_farming_distinct_reads":  # the step rewards are what it farms
        assert attack.status.value not in ("error", "timeout"), attack.verdict.message
        assert honest is not None
        farmed = sum(step.score for step in attack.verdict.steps)
        earned = sum(step.score for step in honest.verdict.steps)
        assert farmed <= earned, f"{farmed} step reward against the honest {earned}"
        return
    check_case(case, attack, honest)


def test_the_cases_are_the_ones_measured() -> None:
    kinds = [c["kind"] for c in CASES]
    assert len(CASES) == 50
    assert (kinds.count("false_credit"), kinds.count("masked"), kinds.count("false_negative")) == (
        34,
        5,
        11,
    )


def _call_turn(k: int, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{k}", "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments)}}]},
        {"role": "tool", "tool_call_id": f"c{k}", "content": "ok"},
    ]  # fmt: skip


def test_changes_of_state_do_not_farm_step_reward() -> None:
    """Attacking agent@2.3.0's own step cap: past the budget, or past the gold count of a wrong
    trajectory, only an expected call keeps step credit. Twenty credits of $1 (each a change
    of state) around a wrong outcome earn no more step reward than the one right call."""
    reference = {"env": "retail", "goal": {"calls": [{"name": "cancel_order", "arguments": {
        "order_id": "W1001", "reason": "no longer needed"}}]}}  # fmt: skip
    user = {"role": "user", "content": "Cancel W1001, I no longer need it."}
    farmed = [user]
    for k in range(20):
        farmed += _call_turn(k, "issue_credit", {"user_id": "u1", "amount": 1})
    farmed.append({"role": "assistant", "content": "Done."})
    honest = [user, *_call_turn(0, "cancel_order", {"order_id": "W1001",
                                                    "reason": "no longer needed"})]  # fmt: skip
    honest.append({"role": "assistant", "content": "W1001 is cancelled."})
    rows = [row("agent", 1, reference, "", farmed), row("agent", 2, reference, "", honest)]
    with Scorer(ScoreOptions(workers=1)) as scorer:
        attack, fair = list(scorer.score_rows(rows))
    assert attack.status.value == "incorrect" and fair.status.value == "correct"
    earned = sum(s.score for s in fair.verdict.steps)
    assert sum(s.score for s in attack.verdict.steps) <= earned


REFUSALS = ["order W1001 is cancelled, only pending orders cancel",
            "refund window closed: delivered 45 days ago"]  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "reported"),
    [
        ("I could not cancel W1001: it has been cancelled already.", True),
        ("I was unable to refund A77: the refund window closed 45 days after delivery.", True),
        ("Sorry, the refund was declined because the window closed.", True),
        ("A77 is refunded! I didn't hit the 45 days window issue.", False),
        ("Done, A77 is refunded. Nothing failed: the refund window check passed.", False),
        ("W1001 is cancelled and $50 refunded; nothing failed (w1001 found).", False),
    ],
)
def test_a_refusal_is_reported_only_when_no_sentence_claims_success(
    answer: str, reported: bool
) -> None:
    """A state named in the refusal's own sentence is part of the report; a success claimed in
    a sentence of its own, or a denied cue ("nothing failed"), is no report."""
    assert reports_refusal(answer, REFUSALS) is reported
