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

Cases left as found are listed in :data:`KNOWN` with the reason, as strict expected failures
(one that starts passing fails the suite until it is moved out of the list).
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
    (Path(__file__).parent / "data" / "red_team_2026_12_03b.json").read_text()
)
KNOWN: dict[str, str] = {
    "a_fn_derived_end_time": "an end time worked out from a start and a duration is no figure "
    "a result shows (grounding tries no time arithmetic)",
    "a_fn_confirmed_computed_amount": "a product of figures (3 x $25) is not looked for in "
    "grounding, and the $75 the agent wrote is its own writing",
    "a_fn_confirmed_rescheduled_date": "a date the agent wrote in its call is its own writing, "
    "so the answer that confirms it is ungrounded",
    "a_fn_words_half_known": "'thirty-three and a half' is read as 133, not 133.5",
    "a_fn_leading_bracket_known": "a response that opens with '[' is read as a list of calls",
    "a_fn_leading_word_paren": "a response that opens with 'Word (' is read as a Python call",
    "a_fn_tool_call_word_in_prose_known": "a literal <tool_call> in prose makes the message a "
    "call turn",
}


def _row(n: int, reference: Any, response: Any, steps: Any) -> RawRow:
    row: dict[str, Any] = {"id": str(n), "domain": "agent", "reference": reference,
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
    rows = [_row(1, reference, "", farmed), _row(2, reference, "", honest)]
    with Scorer(ScoreOptions(workers=1)) as scorer:
        attack, fair = list(scorer.score_rows(rows))
    assert attack.status.value == "incorrect" and fair.status.value == "correct"
    earned = sum(s.score for s in fair.verdict.steps)
    assert sum(s.score for s in attack.verdict.steps) <= earned
