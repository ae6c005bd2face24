"""BFCL multi-turn tasks: replay a trajectory on BFCL's environments and judge it as BFCL does.

The reference is BFCL's question row with its possible answer (docs/agent.md): ``id``,
``involved_classes``, ``initial_config`` and ``ground_truth``, one list of call texts per user
turn (``[["cd(folder='document')", "mkdir(dir_name='temp')"], ...]``); optional
``long_context`` (default: BFCL's rule, from the id). The response is either OpenAI-format
``steps`` (each ``user`` message opens a turn; each assistant message is a step; recorded tool
results are not trusted) or, in ``response``, BFCL's result list: per turn, per step, the calls
(call texts, ``{"name": {arguments}}`` objects, or the step's raw text ``[f(a=1), g()]``).

Judging follows BFCL's multi-turn checker: the gold calls and the response's calls run on two
fresh sets of instances (:class:`~assay.domains.agent.envs.bfcl.BfclWorld`); after every turn
whose gold is not empty the response must have made a call in that turn, the instances must
equal the gold ones (BFCL's ``state_checker``: public attributes) and the results of the
response's calls so far must contain the gold turn's results as a multiset (BFCL's
``response_checker``). The turn count must be the gold's (BFCL: force-terminated otherwise).
All turns pass: ``correct``; the first failing turn makes it ``incorrect``. A call text that is
not a plain call of a public name with literal arguments is ``incorrect`` (check
``call_safety``) and is never run.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.domains.agent.envs.bfcl import (
    BfclCall,
    BfclWorld,
    NotCallText,
    Scenario,
    UnsafeCall,
    _bfcl_module,
    check_name,
    is_error_result,
    parse_call_text,
    parse_calls_text,
)
from assay.domains.agent.task_cache import TaskCache
from assay.verifiers.agent.trajectory import TrajectoryError, parse_trajectory

from assay.blame import Budget, response_owned
from assay.errors import MalformedTaskError
from assay.types import JSON, Check, Record, StepResult, Verdict

MAX_CALLS = 1000
"""Most calls a trajectory may make over all its turns; more is too costly to replay."""
_CACHE_SIZE = 64
ModelCall = BfclCall | str
"""A call to run, or the error result of a call that could not be read (not run)."""


def is_multi_turn_reference(reference: JSON) -> bool:
    """Whether a reference is a BFCL multi-turn task (it names ``involved_classes``)."""
    return isinstance(reference, Mapping) and "involved_classes" in reference


@dataclass(frozen=True, slots=True)
class MultiTurnTask:
    """A scenario, the gold calls per turn, their results and the instances after each turn."""

    scenario: Scenario
    gold: tuple[tuple[BfclCall, ...], ...]
    gold_results: tuple[tuple[str, ...], ...]
    snapshots: tuple[Mapping[str, Any], ...]


_cache: TaskCache[MultiTurnTask] = TaskCache(_CACHE_SIZE)


def parse_multi_turn_task(reference: Mapping[str, JSON]) -> MultiTurnTask:
    """Read the task and replay its gold calls (cached by the reference's JSON)."""
    return _cache.get(reference, _build)


def _build(reference: Mapping[str, JSON]) -> MultiTurnTask:
    scenario = Scenario.from_reference(reference)
    raw = reference.get("ground_truth")
    if not isinstance(raw, list) or not raw or not all(isinstance(t, list) for t in raw):
        raise MalformedTaskError("ground_truth must be a non-empty list of turns (lists of calls)")
    world = BfclWorld(scenario)
    gold, results, snapshots = [], [], []
    for turn, calls in enumerate(raw):
        try:
            parsed = tuple(_gold_call(call) for call in calls)
            results.append(tuple(world.run(call) for call in parsed))
        except UnsafeCall as exc:
            raise MalformedTaskError(f"ground_truth turn {turn}: {exc}") from exc
        gold.append(parsed)
        snapshots.append(copy.deepcopy(world.instances))
    return MultiTurnTask(scenario, tuple(gold), tuple(results), tuple(snapshots))


def _gold_call(call: JSON) -> BfclCall:
    if isinstance(call, str):
        return parse_call_text(call)
    return _object_call(call)


def _object_call(call: JSON) -> BfclCall:
    """``{"name": {arguments}}`` (arguments may be JSON text), BFCL's decoded form."""
    if not isinstance(call, Mapping) or len(call) != 1:
        raise UnsafeCall(f"a call object must be {{name: arguments}}, got {str(call)[:120]!r}")
    ((name, arguments),) = call.items()
    check_name(str(name))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError as exc:
            raise UnsafeCall(f"{name}: arguments are not JSON ({exc})") from None
    if not isinstance(arguments, Mapping):
        raise UnsafeCall(f"{name}: arguments must be an object")
    return BfclCall(str(name), (), dict(arguments))


# ----------------------------------------------------------------------------- the response


def turns_from_steps(steps: Sequence[JSON]) -> list[list[list[ModelCall]]]:
    """Turns (opened by ``user`` messages) of steps (assistant messages) of calls."""
    trajectory = parse_trajectory(list(steps))
    user_at = [i for i, m in enumerate(steps) if isinstance(m, Mapping) and m.get("role") == "user"]
    turns: list[list[list[ModelCall]]] = [[] for _ in range(max(len(user_at), 1))]
    for turn in trajectory.turns:
        index = max(sum(1 for u in user_at if u < turn.message_index) - 1, 0)
        step: list[ModelCall] = []
        for call in turn.calls:
            check_name(call.name)
            if call.arguments is None:
                step.append(f"Error during execution: {call.problem}")
            else:
                step.append(BfclCall(call.name, (), dict(call.arguments)))
        turns[index].append(step)
    return turns


def turns_from_result(raw: JSON) -> list[list[list[ModelCall]]]:
    """BFCL's multi-turn result: per turn, per step, calls (or the step's text)."""
    if not isinstance(raw, list) or not all(isinstance(t, list) for t in raw):
        raise TrajectoryError(
            "bad_tool_call", "response must be BFCL's result list: turns of steps of calls"
        )
    turns: list[list[list[ModelCall]]] = []
    for turn in raw:
        steps: list[list[ModelCall]] = []
        for step in turn:
            calls = _step_calls(step)
            if calls:  # BFCL skips a step with no decodable call (the model chatting)
                steps.append(calls)
        turns.append(steps)
    return turns


def _step_calls(step: JSON) -> list[ModelCall]:
    if isinstance(step, str):
        try:
            return list(parse_calls_text(step))
        except NotCallText:
            return []
    items = step if isinstance(step, list) else [step]
    return [parse_call_text(i) if isinstance(i, str) else _object_call(i) for i in items]


def model_turns(record: Record) -> list[list[list[ModelCall]]]:
    """The response's turns, from ``steps`` or from BFCL's result list in ``response``."""
    if record.steps:
        return turns_from_steps(record.steps)
    try:
        raw = json.loads(record.response)
    except ValueError as exc:
        raise TrajectoryError(
            "not_a_list", f"no steps, and the response is not BFCL's result list as JSON: {exc}"
        ) from None
    return turns_from_result(raw)


# ----------------------------------------------------------------------------- judging


@dataclass(slots=True)
class _StepLog:
    turn: int
    calls: int = 0
    failed: int = 0
    recovered: bool = False


def judge_multi_turn(task: MultiTurnTask, turns: list[list[list[ModelCall]]]) -> Verdict:
    """BFCL's multi-turn rules (module docstring) on the response's turns."""
    checker = _bfcl_module("bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker")
    counts = {"model_turns": len(turns), "gold_turns": len(task.gold)}
    if len(turns) != len(task.gold):
        check = Check("turns", False, 0.0, "the turn count is not the task's", counts)
        return Verdict.incorrect((check,), message=check.message)
    world, budget = BfclWorld(task.scenario), Budget("replaying the turns", max_steps=MAX_CALLS)
    so_far: list[str] = []
    logs: list[_StepLog] = []
    failed_names: set[str] = set()
    checks = [Check("turns", True, 1.0, "", counts)]
    passed_turns = 0
    failure: Check | None = None
    for index, gold in enumerate(task.gold):
        for step in turns[index]:
            logs.append(
                _run_step(world, budget, index, step, so_far=so_far, failed_names=failed_names)
            )
        if failure is None and gold:  # after the first failure: run on, for the step results
            failure = _turn_failure(
                checker, task, index, steps=turns[index], world=world, so_far=so_far
            )
        if failure is None:
            passed_turns += 1
    if failure is not None:
        message = f"turn {failure.evidence.get('turn')}: {failure.message}"
        return Verdict.incorrect((*checks, failure), _steps(logs, passed_turns), message)
    checks.append(Check("state", True, 1.0, "every turn's state equals the gold's"))
    checks.append(Check("results", True, 1.0, "every turn's gold results were returned"))
    return Verdict.correct(tuple(checks), _steps(logs, passed_turns))


def _run_step(
    world: BfclWorld,
    budget: Budget,
    turn: int,
    step: list[ModelCall],
    *,
    so_far: list[str],
    failed_names: set[str],
) -> _StepLog:
    log = _StepLog(turn)
    for call in step:
        budget.step()
        text = call if isinstance(call, str) else world.run(call)
        name = "" if isinstance(call, str) else call.name
        log.calls += 1
        if is_error_result(text):
            log.failed += 1
            failed_names.add(name)
        elif name in failed_names:
            log.recovered = True
            failed_names.discard(name)
        so_far.append(text)
    return log


def _turn_failure(
    checker: Any,
    task: MultiTurnTask,
    index: int,
    *,
    steps: list[list[ModelCall]],
    world: BfclWorld,
    so_far: list[str],
) -> Check | None:
    if not any(steps):
        return Check("calls", False, 0.0, "no call in a turn whose gold has calls", {"turn": index})
    try:
        state = checker.state_checker(world.instances, task.snapshots[index])
    except AttributeError as exc:  # the gold instance has an attribute this one never got
        state = {"valid": False, "error_message": str(exc), "details": {"differences": {}}}
    if not state["valid"]:
        differences = state.get("details", {}).get("differences", {})
        evidence = {
            "turn": index,
            "differences": {
                str(attr): {k: repr(v)[:300] for k, v in dict(pair).items()}
                for attr, pair in list(differences.items())[:10]
            },
        }
        return Check("state", False, 0.0, str(state["error_message"])[:300], evidence)
    results = checker.response_checker(so_far, list(task.gold_results[index]), index)
    if not results["valid"]:
        missing = [str(m)[:300] for m in results["details"]["missing_items"][:10]]
        return Check(
            "results", False, 0.0, "a gold result of this turn was not returned",
            {"turn": index, "missing": missing},
        )  # fmt: skip
    return None


def _steps(logs: list[_StepLog], passed_turns: int) -> tuple[StepResult, ...]:
    out = []
    for position, log in enumerate(logs):
        valid = log.failed == 0
        useful = log.turn < passed_turns
        out.append(
            StepResult(
                position, f"turn[{log.turn}].step", valid and useful,
                1.0 if valid and useful else 0.0, "",
                {"turn": log.turn, "calls": log.calls, "valid_call": valid,
                 "useful_call": useful, "error_recovered": log.recovered},
            )
        )  # fmt: skip
    return tuple(out)


def verify_multi_turn(record: Record) -> Verdict:
    """Score a BFCL multi-turn record (module docstring).

    Reading the task and replaying its gold is the verifier's work; reading and replaying the
    response is the response's (:class:`assay.blame.response_owned`).
    """
    if not isinstance(record.reference, Mapping):
        raise MalformedTaskError("agent reference must be an object")
    task = parse_multi_turn_task(record.reference)
    with response_owned("replaying the BFCL multi-turn trajectory"):
        try:
            turns = model_turns(record)
        except TrajectoryError as exc:
            check = Check("trajectory", False, 0.0, str(exc), {"kind": exc.kind})
            return Verdict.unparsable(str(exc), (check,))
        except UnsafeCall as exc:
            return _unsafe(exc)
        try:
            return judge_multi_turn(task, turns)
        except UnsafeCall as exc:
            return _unsafe(exc)


def _unsafe(exc: UnsafeCall) -> Verdict:
    check = Check("call_safety", False, 0.0, str(exc)[:300], {"kind": type(exc).__name__})
    return Verdict.incorrect((check,), message=f"a call that is never run: {exc}"[:300])
