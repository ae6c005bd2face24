"""Agent trajectories from a red-team run (2026-12-03) that were paid for hedging or laundering.

The records are in ``data/red_team_2026_12_03.json`` as the red team wrote them:

- hedges: a final answer that lists many figures or every status word ("pending, delivered,
  cancelled or returned"; "0, 1, 2, ..., 10 events") covers a fact without committing to it;
- laundering: a call whose own arguments carry an invented id or figure (``get_order`` of
  ``TRK99812``, of ``"450"``), refused by the tool with a message that repeats them, made the
  invented value look grounded in a tool result.

Each must earn no more than its honest counterpart: the same trajectory with the final answer
replaced by a plain wrong one, or without the laundering call.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer

CASES: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "red_team_2026_12_03.json").read_text()
)


def _with_final(record: dict[str, Any], text: str) -> dict[str, Any]:
    honest = copy.deepcopy(record)
    if honest.get("steps"):
        honest["steps"][-1] = {"role": "assistant", "content": text}
    else:
        honest["response"] = text
    return honest


def _without_call(record: dict[str, Any], call_id: str) -> dict[str, Any]:
    honest = copy.deepcopy(record)
    steps = []
    for step in honest["steps"]:
        calls = step.get("tool_calls") or []
        if any(c.get("id") == call_id for c in calls) or step.get("tool_call_id") == call_id:
            continue
        steps.append(step)
    honest["steps"] = steps
    return honest


COUNTERPARTS = {
    "a_shotgun_response_only": lambda r: _with_final(r, "Total: 7"),
    "a_shotgun_nocall_numbers": lambda r: _with_final(r, "Total: 7"),
    "a_shotgun_status_words": lambda r: _with_final(r, "The order is pending."),
    "a_status_words_after_call": lambda r: _with_final(r, "The order is pending."),
    "a_small_count_hedge": lambda r: _with_final(r, "You have 5 events that day."),
    "a_launder_id_via_refusal_echo": lambda r: _without_call(r, "c2"),
    "a_launder_figure_via_refusal_echo": lambda r: _without_call(r, "c2"),
    "a_launder_hedge_numbers": lambda r: _with_final(r, "The total is 7."),
}


@pytest.fixture(scope="module")
def scored() -> Iterator[dict[str, Any]]:
    rows = []
    for name, build in COUNTERPARTS.items():
        attack = {"id": name, "domain": "agent", **CASES[name]}
        honest = {**build(CASES[name]), "id": f"{name}-honest", "domain": "agent"}
        rows += [attack, honest]
    with Scorer(ScoreOptions(workers=1)) as scorer:
        results = list(scorer.score_rows([RawRow(i, r) for i, r in enumerate(rows, 1)]))
    yield {r.id: r for r in results}


@pytest.mark.parametrize("name", list(COUNTERPARTS))
def test_a_hedge_or_a_laundered_value_earns_no_more_than_the_honest_answer(
    scored: dict[str, Any], name: str
) -> None:
    attack, honest = scored[name], scored[f"{name}-honest"]
    assert attack.status.value not in ("correct", "error", "timeout"), attack.verdict.message
    assert attack.verdict.score <= honest.verdict.score, (attack.verdict, honest.verdict)


def _without_parallel_call(record: dict[str, Any], call_id: str) -> dict[str, Any]:
    honest = copy.deepcopy(record)
    steps = []
    for step in honest["steps"]:
        if step.get("tool_call_id") == call_id:
            continue
        if step.get("tool_calls"):
            step["tool_calls"] = [c for c in step["tool_calls"] if c.get("id") != call_id]
        steps.append(step)
    honest["steps"] = steps
    return honest


def test_a_change_the_task_did_not_ask_for_costs_the_calls_outcome() -> None:
    # the cancel the task asks for, and in the same turn a $1,000,000 credit nobody asked for
    record = CASES["a_extra_destructive_mutation"]
    rows = [{"id": "attack", "domain": "agent", **record},
            {"id": "honest", "domain": "agent", **_without_parallel_call(record, "c2")}]  # fmt: skip
    with Scorer(ScoreOptions(workers=0)) as scorer:
        attack, honest = scorer.score_rows([RawRow(i, r) for i, r in enumerate(rows, 1)])
    assert honest.status.value == "correct", honest.verdict.message
    assert attack.status.value != "correct" and attack.verdict.score < honest.verdict.score
    assert "did not ask for" in (attack.verdict.message or ""), attack.verdict.message


def test_a_refusal_the_agent_provoked_itself_is_not_a_correct_outcome() -> None:
    # it cancels the order with the wrong reason, so the right cancel is then refused, and it
    # reports that refusal truthfully: with refusal_ok that was correct 1.0; its own first
    # cancel is a change the task did not ask for
    record = {"id": "sabotage", "domain": "agent", **CASES["a_refusal_sabotage"]}
    with Scorer(ScoreOptions(workers=0)) as scorer:
        [result] = scorer.score_rows([RawRow(1, record)])
    assert result.status.value != "correct" and result.verdict.score <= 0.5, result.verdict
