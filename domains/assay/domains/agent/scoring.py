"""From replayed calls to checks, per-turn step results and one score.

Components (each in [0, 1]; only those that apply are combined, weights renormalised):

- ``calls`` (when ``expected_calls`` is given): matched expected calls / (expected calls +
  unmatched successful calls when extra calls are forbidden). With ``expected_calls: []``
  (no tool fits) it is 1 without any call and 0 with one.
- ``state`` (when a ``goal`` is given): 1 when the replayed final state's canonical hash equals
  the goal's.
- ``facts`` (when ``facts`` are given): the fraction stated in the final answer.
- ``efficiency`` (when ``gold_steps`` is known or a failing call was repeated):
  ``min(1, gold / calls) - 0.25 * repeats``, floored at 0; without a gold count, ``1 - 0.25 *
  repeats``.
- ``recovery`` (when some call failed): the fraction of failed calls later recovered.

``score = sum(w_i * c_i) / sum(w_i)``. Gates: the goal state missed, a call made when no tool
fits, or every outcome component (calls, state, facts) at 0 make the verdict ``incorrect`` with
score 0. Otherwise score 1 is ``correct`` and anything below ``partial``.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.domains.agent.replay import CallOutcome, Replay
from assay.domains.agent.task import AgentTask
from assay.verifiers.agent.facts import check_facts
from assay.verifiers.agent.matching import match_calls
from assay.verifiers.agent.trajectory import Trajectory

from assay.types import JSON, Check, Status, StepResult, Verdict

REPEAT_PENALTY = 0.25
OUTCOMES = ("calls", "state", "facts")


def _calls_check(task: AgentTask, outcomes: Sequence[CallOutcome]) -> Check | None:
    if task.expected is None:
        return None
    if not task.expected:
        for outcome in outcomes:
            outcome.wrong = True
        names = [o.call.name for o in outcomes]
        message = f"called {names} though no tool fits" if names else "no tool fits, none called"
        evidence = {"irrelevance": True, "called": names}
        return Check("calls", not names, 0.0 if names else 1.0, message, evidence)
    candidates = [o for o in outcomes if not o.failed and o.call.arguments is not None]
    matching = match_calls(
        task.expected, [(o.call.name, o.call.arguments or {}) for o in candidates]
    )
    for _, j in matching.pairs:
        candidates[j].matched = True
    extras = [candidates[j] for j in matching.unmatched_actual] if task.forbid_extra else []
    for outcome in extras:
        outcome.wrong = True
    matched = len(matching.pairs)
    score = matched / (len(task.expected) + len(extras))
    evidence = {
        "matched": matched, "expected": len(task.expected),
        "missing": [task.expected[i].name for i in matching.unmatched_expected],
        "extra": [o.call.name for o in extras],
    }  # fmt: skip
    message = f"{matched}/{len(task.expected)} expected calls made, {len(extras)} extra"
    return Check("calls", score == 1.0, score, message, evidence)


def _state_check(task: AgentTask, replay: Replay) -> Check | None:
    if task.goal_digest is None:
        return None
    ok = replay.final_digest == task.goal_digest
    message = "goal state reached" if ok else "final state differs from the goal state"
    evidence = {"final": replay.final_digest, "goal": task.goal_digest}
    return Check("state", ok, 1.0 if ok else 0.0, message, evidence)


def _facts_check(task: AgentTask, answer: str) -> Check | None:
    if not task.facts:
        return None
    found = check_facts(task.facts, answer)
    score = sum(found) / len(found)
    missing = [f.label for f, ok in zip(task.facts, found, strict=True) if not ok]
    message = f"{sum(found)}/{len(found)} required facts stated"
    return Check("facts", score == 1.0, score, message, {"missing": missing})


def _efficiency_check(task: AgentTask, outcomes: Sequence[CallOutcome]) -> Check | None:
    repeats = sum(o.repeat for o in outcomes)
    if task.gold_steps is None and not repeats:
        return None
    made = len(outcomes)
    if task.gold_steps is None:
        ratio = 1.0
    elif made <= task.gold_steps:
        ratio = 1.0 if made or not task.gold_steps else 0.0
    else:
        ratio = task.gold_steps / made
    score = max(0.0, ratio - REPEAT_PENALTY * repeats)
    evidence = {"calls": made, "gold_steps": task.gold_steps, "repeated_failures": repeats}
    message = f"{made} calls for {task.gold_steps} gold steps, {repeats} repeated failing calls"
    return Check("efficiency", score == 1.0, score, message, evidence)


def _recovery_check(replay: Replay) -> Check | None:
    if not replay.failures:
        return None
    score = replay.recovered_failures / replay.failures
    message = (
        f"{replay.recovered_failures}/{replay.failures} failed calls followed by a corrected call"
    )
    evidence = {"failed": replay.failures, "recovered": replay.recovered_failures}
    return Check("recovery", score == 1.0, score, message, evidence)


def _validity_check(outcomes: Sequence[CallOutcome]) -> Check:
    kinds: dict[str, int] = {}
    for outcome in outcomes:
        if outcome.error_kind:
            kinds[outcome.error_kind] = kinds.get(outcome.error_kind, 0) + 1
    valid = len(outcomes) - sum(kinds.values())
    score = valid / len(outcomes) if outcomes else 1.0
    message = f"{valid}/{len(outcomes)} calls valid"
    return Check("call_validity", not kinds, score, message, {"errors": kinds})


def turn_steps(trajectory: Trajectory, replay: Replay, facts: Check | None) -> list[StepResult]:
    """One step result per assistant turn: valid call, useful call, error recovered."""
    by_turn: dict[int, list[CallOutcome]] = {}
    for outcome in replay.outcomes:
        by_turn.setdefault(outcome.call.turn, []).append(outcome)
    last = trajectory.turns[-1].index if trajectory.turns else -1
    steps = []
    for turn in trajectory.turns:
        outcomes = by_turn.get(turn.index, [])
        evidence: dict[str, JSON] = {"message_index": turn.message_index}
        if outcomes:
            valid = all(not o.failed for o in outcomes)
            useful = any(o.useful for o in outcomes)
            recovered = any(o.recovered for o in outcomes)
            score = sum(o.score for o in outcomes) / len(outcomes)
            evidence["calls"] = [o.to_evidence() for o in outcomes]
            kinds = sorted({o.error_kind for o in outcomes if o.error_kind})
            message = (
                f"errors: {', '.join(kinds)}" if kinds else "useful" if useful else "redundant"
            )
        else:
            valid, recovered = True, False
            final = turn.index == last and facts is not None
            score = float(facts.score or 0.0) if final and facts is not None else 1.0
            useful = score > 0.0
            message = facts.message if final and facts is not None else "text turn"
        evidence.update(valid_call=valid, useful_call=useful, error_recovered=recovered)
        name = f"turn[{turn.message_index}]"
        passed = valid and score == 1.0
        steps.append(StepResult(turn.index, name, passed, round(score, 6), message, evidence))
    return steps


def judge(task: AgentTask, trajectory: Trajectory, replay: Replay, answer: str) -> Verdict:
    """The verdict of a replayed trajectory (rules in the module docstring)."""
    outcomes = replay.outcomes
    calls = _calls_check(task, outcomes)
    state = _state_check(task, replay)
    facts = _facts_check(task, answer)
    components = {
        "calls": calls, "state": state, "facts": facts,
        "efficiency": _efficiency_check(task, outcomes), "recovery": _recovery_check(replay),
    }  # fmt: skip
    present = {k: c for k, c in components.items() if c is not None}
    checks = (_validity_check(outcomes), *present.values())
    steps = tuple(turn_steps(trajectory, replay, facts))
    total = sum(task.weights[k] for k in present)
    score = sum(task.weights[k] * float(c.score or 0.0) for k, c in present.items())
    score = round(score / total, 6) if total else 0.0
    outcome_scores = [float(present[k].score or 0.0) for k in OUTCOMES if k in present]
    gate = _gate(calls, state, outcome_scores)
    if gate is not None:
        return Verdict(Status.INCORRECT, 0.0, checks, steps, gate)
    failing = [c.message for c in checks if not c.passed]
    return Verdict.graded(score, checks, steps, "; ".join(failing) or None)


def _gate(calls: Check | None, state: Check | None, outcome_scores: list[float]) -> str | None:
    if state is not None and not state.passed:
        return state.message
    if calls is not None and calls.evidence.get("irrelevance") and not calls.passed:
        return calls.message
    if outcome_scores and not any(outcome_scores):
        return "no outcome achieved"
    return None
