"""From replayed calls to checks, per-turn step results and one score that cannot be gamed.

The outcome gates the score; how the agent got there can only lower it:

``score = outcome x efficiency x loops x recovery``

- ``outcome``: the weighted mean (``calls`` 0.3, ``state`` 0.3, ``facts`` 0.2, renormalised)
  of the outcome components that apply: ``calls`` (the best of the alternative expected call
  sets: 1 when matched; with ``partial_credit`` or where extra calls are allowed, the matched
  share), ``state`` (the goal state's hash reached), ``facts`` (the share stated).
- ``efficiency``: 1 up to the gold count of calls; then ``1 - 0.5 * ((calls - gold) /
  (budget - gold))**2`` down to 0.5 at the call budget; past the budget ``0.5 * budget / calls``
  (31 calls for a 1-call task with budget 3: 0.048).
- ``loops``: ``1 - 0.3`` per repeat (a failing call identical to an earlier failing call),
  floored at 0: three identical failures then success keeps 0.4.
- ``recovery``: ``1 - 0.1`` per failed call that no later success of that tool made good
  (repeats aside; a refusal the task accepts aside), floored at 0.5.

Gates (``incorrect``, score 0): the goal state missed; a call made when no tool fits; an exact
call set missed (the default without an environment: every expected call of one alternative,
no extra, missing or duplicate call; failed calls that never got a result count as extra); a
figure or id of the final answer that the tool results and the prompt do not support
(``grounding``; with no call at all on a task that asks for its environment's facts, small
counts too); every outcome component at 0; a claim that a failed call's action was done, when
the agent gave up on it (``claims``). A refused call (``tool_error``) counts as made
when the task says ``refusal_ok`` (and expects calls) and the final answer reports the refusal
(a cue such as "could not" and a word or figure of the tool's refusal message); facts are then
not required. Otherwise score 1 is ``correct`` and anything below ``partial``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay.domains.agent.replay import CallOutcome, Replay
from assay.domains.agent.task import AgentTask
from assay.verifiers.agent.facts import canonical_text, check_facts, numbers_in, words
from assay.verifiers.agent.grounding import check_grounding
from assay.verifiers.agent.matching import ExpectedCall, match_calls, mismatch
from assay.verifiers.agent.trajectory import Trajectory

from assay.types import JSON, Check, Status, StepResult, Verdict

REPEAT_PENALTY = 0.3
UNRECOVERED_PENALTY = 0.1
RECOVERY_FLOOR = 0.5
OVER_GOLD_PENALTY = 0.5
OUTCOMES = ("calls", "state", "facts")
_REFUSAL = re.compile(
    r"\b(?:could\s*n[o']t|couldn't|cannot|can\s*not|can't|unable|not\s+able|was\s*n[o']t|"
    r"wasn't|did\s*n[o']t|didn't|failed|refused|declined|denied|rejected|not\s+possible|"
    r"not\s+allowed|not\s+permitted)\b",
    re.IGNORECASE,
)
_SENTENCES = re.compile(r"(?<=[.!?;])\s+")


def _cued(text: str) -> bool:
    """Whether ``text`` holds a refusal cue that is not denied ("nothing failed")."""
    return any(not _DENIED.search(text[: m.start()]) for m in _REFUSAL.finditer(text))


_DENIED = re.compile(r"\b(?:nothing|no(?:\s+\w+)?|never|none)\s*$", re.IGNORECASE)
_SUCCESS = re.compile(
    r"(?<!\bnot )(?<!n't )\b(?:is|was|has\s+been|have\s+been|are|were|got|now|successfully|"
    r"done,?)\s+(?:now\s+|been\s+|also\s+|fully\s+)?(?:refunded|cancell?ed|deleted|processed|"
    r"completed|issued|returned|updated|booked|scheduled|rescheduled|sent|invited|moved|created|"
    r"removed|exchanged|applied)\b|^\s*done\b",
    re.IGNORECASE,
)
_PLAIN = frozenset(
    [
        "that",
        "this",
        "with",
        "from",
        "have",
        "been",
        "were",
        "will",
        "your",
        "order",
        "call",
        "tool",
        "request",
        "error",
        "please",
    ]
)


def reports_refusal(answer: str, refusals: Sequence[str]) -> bool:
    """Whether a final answer says the action could not be done, and says it about the
    refusal the tool gave: a word of four letters or more, or a figure, of one refusal message
    appears in the answer (a bare "sorry" or "unfortunately" is no report).

    A cue that is denied ("nothing failed", "no call was refused") is none, and an answer
    that claims the action done in a sentence without a cue ("A77 is refunded.",
    "Successfully cancelled.") reports no refusal whatever else it says; a cue's own sentence
    may name a state ("could not cancel W1001: it has been cancelled already").
    """
    if not _cued(answer) or any(
        _SUCCESS.search(sentence) and not _cued(sentence) for sentence in _SENTENCES.split(answer)
    ):  # a success claimed in a sentence of its own; "could not: it has been cancelled" is none
        return False
    said = set(words(answer))
    figures = set(numbers_in(answer))
    for message in refusals:
        content = {w for w in words(message) if len(w) >= 4 and w not in _PLAIN}
        if content & said or figures & set(numbers_in(message)):
            return True
    return False


@dataclass(frozen=True, slots=True)
class _Fit:
    score: float
    exact: bool
    pairs: tuple[tuple[int, int], ...]
    extras: tuple[int, ...]
    missing: tuple[str, ...]
    alternative: int


def _fit(
    alternative: Sequence[ExpectedCall], index: int, candidates: Sequence[CallOutcome],
    strays: int, forbid_extra: bool,
) -> _Fit:  # fmt: skip
    matching = match_calls(alternative, [(o.call.name, o.call.arguments or {}) for o in candidates])
    extras = matching.unmatched_actual if forbid_extra else ()
    n_extra = len(extras) + (strays if forbid_extra else 0)
    missing = tuple(alternative[i].name for i in matching.unmatched_expected)
    score = len(matching.pairs) / (len(alternative) + n_extra) if alternative else 1.0
    exact = not missing and not n_extra
    return _Fit(score, exact, matching.pairs, extras, missing, index)


def _exactly_expected(task: AgentTask, outcome: CallOutcome) -> bool:
    """Whether a refused call is one of the expected calls exactly as written: a refusal the
    agent provoked by misspelling the call (``w1001``, ``W-1001``, ``"W1001 "`` for ``W1001``,
    refused as another order) is its own doing, not the refusal the task accepts."""
    arguments = outcome.call.arguments or {}
    return any(
        mismatch(expected, outcome.call.name, arguments, strict=True) is None
        for alternative in task.expected or ()
        for expected in alternative
    )


def _unrequested_changes(task: AgentTask, outcomes: Sequence[CallOutcome]) -> Check | None:
    """With no expected calls and no goal state (a task that asks only for facts), a change
    of state is one the task did not ask for: cancelling another order while looking one up
    is not the task done."""
    changed = [o.call.name for o in outcomes if o.mutated and not o.failed]
    if not changed:
        return None
    message = f"changed state the task did not ask for ({', '.join(changed[:5])})"
    evidence: dict[str, JSON] = {"unrequested_changes": changed, "expected": 0}
    return Check("calls", False, 0.0, message, evidence)


def _calls_check(
    task: AgentTask, outcomes: Sequence[CallOutcome], refusal: bool, unanswered: set[str]
) -> Check | None:
    if task.any_call:
        valid = [o for o in outcomes if not o.failed]
        message = "a valid call made" if valid else "no valid call made, one was needed"
        return Check("calls", bool(valid), 1.0 if valid else 0.0, message, {"relevance": True})
    if task.expected is None:
        return _unrequested_changes(task, outcomes) if task.goal_digest is None else None
    if any(not alternative for alternative in task.expected) and not outcomes:
        return Check("calls", True, 1.0, "no tool fits, none called", {"irrelevance": True})
    if all(not alternative for alternative in task.expected):
        for outcome in outcomes:
            outcome.wrong = True
        names = [o.call.name for o in outcomes]
        evidence: dict[str, JSON] = {"irrelevance": True, "called": names}
        return Check("calls", False, 0.0, f"called {names} though no tool fits", evidence)
    candidates = [
        o for o in outcomes
        if o.call.arguments is not None
        and (not o.failed or (refusal and o.error_kind == "tool_error"
                              and _exactly_expected(task, o)))
    ]  # fmt: skip
    # a failed call that never got a result was never seen failing: an extra answer
    strays = sum(
        1 for o in outcomes if o.failed and o.call.id in unanswered and o not in candidates
    )
    fits = [
        _fit(alternative, k, candidates, strays, task.forbid_extra)
        for k, alternative in enumerate(task.expected) if alternative
    ]  # fmt: skip
    best = max(fits, key=lambda f: (f.exact, f.score, -len(f.extras)))
    for _, j in best.pairs:
        candidates[j].matched = True
    for j in best.extras:
        candidates[j].wrong = True
    expected = len(task.expected[best.alternative])
    matched = len(best.pairs)
    n_extra = len(best.extras) + (strays if task.forbid_extra else 0)
    exact_required = task.forbid_extra and not task.partial_credit
    score = best.score if not exact_required or best.exact else 0.0
    if exact_required and not best.exact:
        score = 0.0
    evidence = {
        "matched": matched, "expected": expected, "missing": list(best.missing),
        "extra": [candidates[j].call.name for j in best.extras], "alternative": best.alternative,
        "alternatives": len(task.expected), "exact": exact_required,
    }  # fmt: skip
    message = f"{matched}/{expected} expected calls made, {n_extra} extra"
    # with no goal state to check, a change the task did not ask for is the calls' outcome:
    # cancelling the order and also issuing a $1,000,000 credit is not the task done
    unrequested = [
        o.call.name for o in outcomes
        if o.mutated and not o.matched and not o.failed and task.goal_digest is None
    ]  # fmt: skip
    if unrequested:
        score = min(score, matched / (expected + len(unrequested)))
        evidence["unrequested_changes"] = unrequested
        message += f"; changed state the task did not ask for ({', '.join(unrequested[:5])})"
        return Check("calls", False, round(score, 6), message, evidence)
    if len(task.expected) > 1:
        message += f" (best of {len(task.expected)} alternative call sets)"
    if exact_required and not best.exact:
        message += "; an exact match of one call set is required"
        failed = next((o for o in outcomes if o.failed and o not in candidates), None)
        if failed is not None:
            message += f"; {failed.call.name} failed ({failed.error_kind}): {failed.error}"
    return Check("calls", best.exact or score == 1.0, score, message, evidence)


def _state_check(task: AgentTask, replay: Replay) -> Check | None:
    if task.goal_digest is None:
        return None
    ok = replay.final_digest == task.goal_digest
    message = "goal state reached" if ok else "final state differs from the goal state"
    evidence = {"final": replay.final_digest, "goal": task.goal_digest}
    return Check("state", ok, 1.0 if ok else 0.0, message, evidence)


def _facts_check(
    task: AgentTask, answer: str, outcomes: Sequence[CallOutcome] = ()
) -> Check | None:
    if not task.facts:
        return None
    results = [o.result_text for o in outcomes if o.result_text is not None and not o.failed]
    found = check_facts(task.facts, answer, quoted=results)
    score = sum(found) / len(found)
    missing = [f.label for f, ok in zip(task.facts, found, strict=True) if not ok]
    message = f"{sum(found)}/{len(found)} required facts stated"
    return Check("facts", score == 1.0, score, message, {"missing": missing})


def _efficiency_check(task: AgentTask, outcomes: Sequence[CallOutcome]) -> Check | None:
    made, gold, budget = len(outcomes), task.gold_steps, task.call_budget
    if gold is None and budget is None:
        return None
    if budget is not None and made > budget:
        factor = OVER_GOLD_PENALTY * budget / made
    elif gold is None or made <= gold:
        factor = 1.0
    else:
        room = (budget or gold) - gold
        share = (made - gold) / room if room else 1.0
        factor = 1.0 - OVER_GOLD_PENALTY * share * share
    evidence = {"calls": made, "gold_steps": gold, "budget": budget}
    message = f"{made} calls for {gold} gold steps (budget {budget})"
    return Check("efficiency", factor == 1.0, round(factor, 6), message, evidence)


def _loop_check(outcomes: Sequence[CallOutcome]) -> Check | None:
    repeats = sum(o.repeat for o in outcomes)
    if not repeats:
        return None
    factor = max(0.0, 1.0 - REPEAT_PENALTY * repeats)
    message = f"{repeats} failing call(s) identical to an earlier failing call (a loop)"
    return Check("loops", False, round(factor, 6), message, {"repeats": repeats})


def _recovery_check(outcomes: Sequence[CallOutcome], refusal: bool) -> Check | None:
    failed = [o for o in outcomes if o.failed and not o.repeat]
    if not failed:
        return None
    accepted = [o for o in failed if refusal and o.error_kind == "tool_error" and o.matched]
    open_ = [o for o in failed if not o.fixed and o not in accepted]
    factor = max(RECOVERY_FLOOR, 1.0 - UNRECOVERED_PENALTY * len(open_))
    message = f"{len(failed) - len(open_)}/{len(failed)} failed calls made good by a later call" + (
        " or an accepted refusal" if accepted else ""
    )
    evidence = {"failed": len(failed), "unrecovered": len(open_), "refusals": len(accepted)}
    return Check("recovery", not open_, round(factor, 6), message, evidence)


def _grounding_check(
    task: AgentTask, trajectory: Trajectory, outcomes: Sequence[CallOutcome], answer: str,
    context: Sequence[str], *, goal_reached: bool = False,
) -> Check | None:  # fmt: skip
    if task.grounding == "off" or not answer.strip():
        return None
    results = _untainted_results(outcomes, goal_reached)
    # a task that asks for facts from its environment, answered with no call at all: every
    # figure is a guess, a small count too ("Your todo list has 2 lines." with no read)
    guessed = task.env is not None and bool(task.facts) and not outcomes
    strict = task.grounding == "strict" or guessed
    if not results and not strict and task.env is None:
        return None  # no environment to look anything up in: the answer's figures stand
    # the call arguments are the agent's own writing: no evidence for what it then states
    evidence = [*results, *trajectory.context, *context]
    # the answer key is evidence only where there is nothing to look it up in: with an
    # environment, a right figure no tool returned (nor the prompt) is a guess
    facts = [n for f in task.facts or () for n in f.numbers] if task.env is None else []
    found = check_grounding(canonical_text(answer), evidence, fact_numbers=facts, strict=strict)
    if found.passed:
        return Check("grounding", True, 1.0, "every figure and id stated is supported", {})
    parts = []
    if found.figures:
        parts.append("figures " + ", ".join(f"{x:g}" for x in found.figures[:10]))
    if found.ids:
        parts.append("ids " + ", ".join(found.ids[:10]))
    message = f"the answer states {' and '.join(parts)} that no tool result supports"
    ev: dict[str, JSON] = {"figures": list(found.figures[:50]), "ids": list(found.ids[:50])}
    return Check("grounding", False, 0.0, message, ev)


def _untainted_results(outcomes: Sequence[CallOutcome], goal_reached: bool = False) -> list[str]:
    """Each call's result with every token the agent had written by then blanked.

    A call the task itself vouches for is no invention: one that matched an expected call, or,
    once the goal state is reached, one that changed the state to it. Its arguments stay
    evidence ("issued $75 in store credit", "moved to March 12" after the right call).

    A value the agent wrote in a call's arguments (this call's or an earlier one's) is its
    own writing, so a result that repeats it is no evidence for it: an invented tracking
    number or figure passed to a tool, which the tool's refusal ("order TRK99812 not found")
    or a later read of the state it wrote echoes, stays ungrounded. What a result showed
    before the agent wrote it stays evidence, and so does the prompt. Tokens are compared
    one by one (a set lookup each), so the cost is linear in the results' length.
    """
    written: set[str] = set()
    texts: list[str] = []
    for outcome in outcomes:
        vouched = outcome.matched or (goal_reached and outcome.mutated and not outcome.failed)
        if not vouched:
            written |= _argument_tokens(outcome.call.arguments)
        if outcome.result_text is None:
            continue
        text = outcome.result_text
        texts.append(_blanked(text, written) if written else text)
    return texts


def _blanked(text: str, written: set[str]) -> str:
    return _TOKEN.sub(lambda m: " " if _bare(m.group(0)) in written else m.group(0), text)


_TOKEN = re.compile(r"[^\s,;:()\[\]{}\"'<>=]+")
_MAX_WRITTEN = 100_000


def _bare(token: str) -> str:
    return token.strip("$€£¥.!?*`").lower()


def _argument_tokens(value: object) -> set[str]:
    """The tokens of a call's arguments that could be figures or ids (each token of a string,
    ``"100 110 120"`` writes three; a number in the ways a result may print it)."""
    found: set[str] = set()
    stack = [value]
    while stack and len(found) < _MAX_WRITTEN:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, str):
            found.update(_bare(t) for t in _TOKEN.findall(item[:200_000]))
        elif isinstance(item, int | float) and not isinstance(item, bool):
            if isinstance(item, float) and not math.isfinite(item):
                continue
            if isinstance(item, int) and abs(item) > 10**100:
                continue  # no result prints it; and formatting it is costly
            found.add(f"{item}")
            if isinstance(item, int) or item.is_integer():
                found.update({f"{int(item)}", f"{int(item):,}"})
            found.update({f"{item:.2f}", f"{item:,.2f}"})
    found.discard("")
    return found


def _validity_check(outcomes: Sequence[CallOutcome]) -> Check:
    kinds: dict[str, int] = {}
    for outcome in outcomes:
        if outcome.error_kind:
            kinds[outcome.error_kind] = kinds.get(outcome.error_kind, 0) + 1
    valid = len(outcomes) - sum(kinds.values())
    score = valid / len(outcomes) if outcomes else 1.0
    message = f"{valid}/{len(outcomes)} calls valid"
    return Check("call_validity", not kinds, score, message, {"errors": kinds})


def turn_steps(
    trajectory: Trajectory,
    replay: Replay,
    facts: Check | None,
    budget: int | None = None,
    gold: int | None = None,
) -> list[StepResult]:
    """One step result per assistant turn: valid call, useful call, error recovered.

    Step rewards are summed over the token spans (docs/rewards.md), so more calls must not
    earn more: a call past the call ``budget`` scores 0, and so does one past the ``gold``
    count when the trajectory is incorrect (``gold`` given only then), unless it matched an
    expected call (a change of state is no exception: toggling a setting back and forth would
    farm as well as reading). Twenty-eight distinct reads around a wrong answer earn what the
    first read earns, not 28 passed steps.
    """
    limits = [n for n in (budget, gold) if n is not None]
    allowed = min(limits) if limits else None
    by_turn: dict[int, list[CallOutcome]] = {}
    for outcome in replay.outcomes:
        by_turn.setdefault(outcome.call.turn, []).append(outcome)
    last = trajectory.turns[-1].index if trajectory.turns else -1
    steps = []
    made = 0
    for turn in trajectory.turns:
        outcomes = by_turn.get(turn.index, [])
        evidence: dict[str, JSON] = {"message_index": turn.message_index}
        if outcomes:
            valid = all(not o.failed for o in outcomes)
            useful = any(o.useful for o in outcomes)
            recovered = any(o.recovered for o in outcomes)
            scores = []
            past = []
            for outcome in outcomes:
                made += 1
                extra = allowed is not None and made > allowed
                extra = extra and not outcome.matched  # an expected call still counts
                past.append(extra)
                scores.append(0.0 if extra else outcome.score)
            score = sum(scores) / len(scores)
            evidence["calls"] = [o.to_evidence() for o in outcomes]
            kinds = sorted({o.error_kind for o in outcomes if o.error_kind})
            message = (
                f"errors: {', '.join(kinds)}" if kinds else "useful" if useful else "redundant"
            )
            if any(past):
                useful = useful and not all(past)
                message += f"; past the {allowed} calls that may earn step credit"
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


def judge(
    task: AgentTask, trajectory: Trajectory, replay: Replay, answer: str,
    context: Sequence[str] = (),
) -> Verdict:  # fmt: skip
    """The verdict of a replayed trajectory (rules in the module docstring)."""
    outcomes = replay.outcomes
    refused = [o for o in outcomes if o.error_kind == "tool_error" and not o.fixed]
    refusal = (
        task.refusal_ok
        and task.expected is not None  # the refused call must be one the task expects
        and bool(refused)
        and reports_refusal(answer, [o.error or "" for o in refused])
    )
    unanswered = {c.id for c in trajectory.calls if c.id not in trajectory.results}
    calls = _calls_check(task, outcomes, refusal, unanswered)
    # the refusal the task accepts is a refused call that is the expected call: only then
    # are the facts not required (a junk call's refusal waives nothing)
    refusal = refusal and any(o.matched and o.error_kind == "tool_error" for o in outcomes)
    state = _state_check(task, replay)
    facts = None if refusal else _facts_check(task, answer, outcomes)
    goal_reached = state is not None and state.passed
    grounding = _grounding_check(
        task, trajectory, outcomes, answer, context, goal_reached=goal_reached
    )
    outcome_checks = {"calls": calls, "state": state, "facts": facts}
    present = {k: c for k, c in outcome_checks.items() if c is not None}
    factors = [
        c for c in (
            _efficiency_check(task, outcomes), _loop_check(outcomes),
            _recovery_check(outcomes, refusal),
        ) if c is not None
    ]  # fmt: skip
    checks = (_validity_check(outcomes), *present.values(), *factors)
    if grounding is not None:
        checks = (*checks, grounding)
    if refusal:
        checks = (*checks, Check("refusal", True, 1.0, "a refusal the task accepts, reported"))
    total = sum(task.weights[k] for k in present)
    outcome = sum(task.weights[k] * float(c.score or 0.0) for k, c in present.items())
    outcome = outcome / total if total else 0.0
    score = outcome
    for factor in factors:
        score *= float(factor.score or 0.0)
    score = round(score, 6)
    gate = _gate(task, calls, state, grounding, [float(c.score or 0.0) for c in present.values()])
    claimed = None if refusal else _claimed_after_failure(outcomes, answer)
    if claimed is not None:
        checks = (*checks, claimed)
        gate = gate or claimed.message
    wrong = gate is not None or score == 0.0
    counted = task.gold_steps
    if counted is None:
        counted = max((len(a) for a in task.expected or ()), default=1)
    gold = counted if wrong and counted >= 1 else None
    steps = tuple(turn_steps(trajectory, replay, facts, task.call_budget, gold))
    if gate is not None:
        return Verdict(Status.INCORRECT, 0.0, checks, steps, gate)
    failing = [c.message for c in checks if not c.passed]
    return Verdict.graded(score, checks, steps, "; ".join(failing) or None)


_READS = frozenset(
    {"get", "list", "find", "search", "read", "lookup", "look", "check", "fetch", "show", "view",
     "query", "describe", "count", "calculate", "compute", "file", "verify", "validate"}
)  # fmt: skip
"""Tool verbs that read: a read that failed claims nothing done."""
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|unable|cannot|unsupported|unavailable|failed|error|"
    r"instead|yet|only|however)\b|n't\b",
    re.IGNORECASE,
)
_NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _claimed_after_failure(outcomes: Sequence[CallOutcome], answer: str) -> Check | None:
    """A failed call the agent gave up on (no later success of that tool, nor a later change
    of state: a read after it makes nothing good) whose action the final answer then claims
    done, in a clause with no negation, question or deferral: "I've notified Bo and Cy."
    after ``notify_attendees`` failed as an unknown tool. The action is the tool's verb (its
    name's first word: notify, delete, cancel; never a read such as get or list) and its
    synonyms (notify: inform, message), found by stem (notified, informed, cancelled)."""
    for position, outcome in enumerate(outcomes):
        if not outcome.failed:
            continue
        later = [o for o in outcomes[position + 1 :] if not o.failed]
        if any(o.mutated or o.call.name == outcome.call.name for o in later):
            continue  # made good, or a later change of state may have done what it could not
        parts = _NAME_PARTS.findall(outcome.call.name)
        verb = parts[0].lower() if parts else ""
        if len(verb) < 4 or verb in _READS:
            continue
        stems = (verb[:5], *_SYNONYMS.get(verb, ()))
        for clause in _CLAUSES.split(answer):
            if clause.rstrip().endswith("?") or _NEGATION.search(clause) or _DEFERS.search(clause):
                continue  # a question, a denial, or the action left to someone else
            if any(word.startswith(stems) for word in words(clause)):
                message = (
                    f"the answer claims {outcome.call.name} done, but that call failed "
                    f"({outcome.error_kind}) and was never made good"
                )
                evidence: dict[str, JSON] = {"call": outcome.call.name, "claim": clause[:300]}
                return Check("claims", False, 0.0, message, evidence)
    return None


_CLAUSES = re.compile(r"(?<=[.!?;:,—])\s+")
"""Clauses of the answer: "Done, no worries: Bo and Cy are notified." claims in its last."""
_DEFERS = re.compile(
    r"\b(?:please|yourself|still|should|suggest|recommend|need(?:s|ed)?\s+to|have\s+to|"
    r"you\s+(?:can|could|may|might|will|want)|would\s+you|let\s+me\s+know)\b",
    re.IGNORECASE,
)
"""Words that leave the action to the user or to later ("Please notify Bo yourself.")."""
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "notify": ("inform", "messag", "alert", "told"),
    "send": ("sent",),
    "email": ("emaile",),
    "message": ("messag",),
}
"""Other words a claim of the verb's action is written with."""


def _gate(
    task: AgentTask, calls: Check | None, state: Check | None, grounding: Check | None,
    outcome_scores: list[float],
) -> str | None:  # fmt: skip
    if state is not None and not state.passed:
        return state.message
    if calls is not None and not calls.passed:
        if calls.evidence.get("irrelevance") or calls.evidence.get("relevance"):
            return calls.message
        if calls.evidence.get("exact"):
            return calls.message
    if (
        calls is not None
        and calls.evidence.get("unrequested_changes")
        and (calls.evidence.get("expected") == 0)
    ):  # a task that asks only for facts, answered with a change of state: not done
        return calls.message
    if grounding is not None and not grounding.passed:
        return grounding.message
    if not outcome_scores or not any(outcome_scores):
        return "no outcome achieved"
    return None
