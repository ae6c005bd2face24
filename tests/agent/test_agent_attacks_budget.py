"""Attacks on the agent verifier's budget: trajectories made to overrun, or to crash the check.

A trajectory whose calls overrun, or whose values are too large to compare, is the
response's fault: `incorrect`, score 0, a failed `too_costly` check, not masked, paid no more
than an honest wrong trajectory. Many steps spend one budget per item: a per-step limit is
never multiplied out past the item's limit.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from assay.domains.agent.envs import register_env
from assay.domains.agent.replay import MAX_CALL_CHARS, MAX_CALLS
from assay.rewards.spec import RewardSpec
from assay.verifiers.agent.environment import Environment, tool

from assay.blame import TOO_COSTLY
from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer
from assay.types import JSON, Result, Status

TASK: dict[str, JSON] = {
    "env": "filesystem",
    "facts": ["buy milk"],
    "expected_calls": [{"name": "read_file", "arguments": {"path": "/home/ada/todo.txt"}}],
    "extra_calls": "allow",
}
NO_ENV_TASK: dict[str, JSON] = {
    "tools": [{"type": "function", "function": {"name": "lookup", "parameters": {
        "type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}}],
    "expected_calls": [{"name": "lookup", "arguments": {"q": "x"}}],
}  # fmt: skip


def _call(k: int, name: str, arguments: Any) -> dict[str, Any]:
    return {"id": f"c{k}", "type": "function", "function": {"name": name, "arguments": arguments}}


def _trajectory(calls: list[tuple[str, Any]], result: str = "ok") -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    for k, (name, arguments) in enumerate(calls):
        steps.append(
            {"role": "assistant", "content": None, "tool_calls": [_call(k, name, arguments)]}
        )
        steps.append({"role": "tool", "tool_call_id": f"c{k}", "content": result})
    steps.append({"role": "assistant", "content": "done"})
    return steps


READ = ("read_file", json.dumps({"path": "/home/ada/todo.txt"}))
LIST = ("list_dir", json.dumps({"path": "/home/ada"}))

ATTACKS: list[tuple[str, list[dict[str, Any]], dict[str, JSON]]] = [
    # More calls than any task needs: the step budget is spent.
    ("many-calls", _trajectory([READ] + [LIST] * MAX_CALLS), TASK),
    # One call whose arguments are enormous.
    ("huge-arguments", _trajectory([("write_file", json.dumps(
        {"path": "/tmp/x", "content": "x" * (MAX_CALL_CHARS + 10)}))]), TASK),
    # An integer too long to print or hash, handed over already decoded (Python API).
    ("huge-int-argument", _trajectory([("lookup", {"q": 10**5000})]), NO_ENV_TASK),
    ("huge-int-in-state", _trajectory([("write_file", {"path": "/tmp/x", "content": "a",
                                                       "overwrite": 10**5000})]), TASK),
    # A recorded tool result nested past the JSON decoder's stack.
    ("deep-result", _trajectory([("lookup", json.dumps({"q": "x"}))],
                                result='{"a":' * 100_000), NO_ENV_TASK),
]  # fmt: skip
HONEST_WRONG = _trajectory([("list_dir", json.dumps({"path": "/tmp"}))])


@pytest.fixture(scope="module")
def scored() -> Iterator[dict[str, Result]]:
    """The attacks and an honest wrong trajectory in one batch through the worker pool."""
    cases = [("honest-wrong", HONEST_WRONG, TASK), *ATTACKS]
    rows = [
        RawRow(i, {"id": name, "domain": "agent", "response": "", "steps": steps,
                   "reference": reference})
        for i, (name, steps, reference) in enumerate(cases)
    ]  # fmt: skip
    with Scorer(ScoreOptions(workers=2)) as scorer:
        yield {result.id: result for result in scorer.score_rows(rows)}


def _is_the_responses_fault(result: Result, honest: Result) -> None:
    verdict = result.verdict
    assert verdict.status is Status.INCORRECT, verdict.message
    assert verdict.score == 0.0
    assert [c.name for c in verdict.checks if not c.passed] == [TOO_COSTLY], verdict.message
    spec = RewardSpec(rewards={"incorrect": -1.0})
    assert not spec.reward(verdict).masked
    assert spec.reward(verdict).reward <= spec.reward(honest.verdict).reward


@pytest.mark.parametrize("name", [a[0] for a in ATTACKS])
def test_overrunning_trajectory_is_the_responses_fault(
    scored: dict[str, Result], name: str
) -> None:
    assert scored["honest-wrong"].status is not Status.ERROR
    _is_the_responses_fault(scored[name], scored["honest-wrong"])


@register_env
class SlowShellEnv(Environment):
    """A tool that runs a "command" taking 0.1 s (a real harness would run a process)."""

    name = "test-slow-shell"

    @classmethod
    def initial_state(cls) -> dict[str, JSON]:
        return {"runs": 0}

    @tool("Run a command.", {"cmd": {"type": "string"}}, ["cmd"], mutates=True)
    def run(self, cmd: str) -> JSON:
        time.sleep(0.1)
        self.state["runs"] += 1
        return "ok"


SLOW_TASK: dict[str, JSON] = {"env": "test-slow-shell", "goal": {"state": {"runs": 3}}}


@pytest.mark.parametrize(("calls", "status"), [(3, "correct"), (40, "incorrect")])
def test_many_steps_spend_one_budget(calls: int, status: str) -> None:
    """Each command is well within any per-step limit; forty of them (4 s) overrun the item's
    1 s limit, and the budget stops the replay at 0.8 s: `too_costly`, not a 4 s wait."""
    steps = _trajectory([("run", json.dumps({"cmd": "make"}))] * calls)
    rows = [RawRow(0, {"id": "s", "domain": "agent", "response": "", "steps": steps,
                       "reference": SLOW_TASK})]  # fmt: skip
    started = time.monotonic()
    with Scorer(ScoreOptions(workers=0, timeout_s=1.0)) as scorer:
        (result,) = scorer.score_rows(rows)
    assert result.status.value == status, result.verdict.message
    if status == "incorrect":
        assert [c.name for c in result.verdict.checks if not c.passed] == [TOO_COSTLY]
        assert result.verdict.checks[0].evidence["steps"] < calls
        assert time.monotonic() - started < 4.0  # stopped by the budget, not after all calls
