"""Hostile or odd inputs give typed verdicts quickly, never an exception or a hang."""

from __future__ import annotations

import json
from typing import Any

import pytest
from assay.domains.agent.verifier import AgentVerifier

from assay.boundary import run_verifier
from assay.types import Record

TASK = {"env": "retail", "goal": {"calls": [{"name": "issue_credit",
        "arguments": {"user_id": "u1", "amount": 5}}]}}  # fmt: skip


def _assistant(*calls: tuple[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"c{k}", "type": "function", "function": {"name": n, "arguments": a}}
        for k, (n, a) in enumerate(calls)]}  # fmt: skip


def _result(k: int) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": f"c{k}", "content": "ok"}


def _many_failures(count: int) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    for k in range(count):
        steps.append({**_assistant(("get_order", json.dumps({"order_id": f"X{k}"})))})
        steps[-1]["tool_calls"][0]["id"] = f"m{k}"
        steps.append({"role": "tool", "tool_call_id": f"m{k}", "content": "error"})
    return steps


@pytest.mark.parametrize(
    ("steps", "reference", "status"),
    [
        # arguments nested 100,000 deep: not decodable, an invalid call, not a crash
        (
            [_assistant(("issue_credit", "[" * 100_000 + "]" * 100_000)), _result(0)],
            TASK,
            "incorrect",
        ),
        # arguments that are a number, null, or a list of arguments
        ([_assistant(("issue_credit", 5)), _result(0)], TASK, "incorrect"),
        ([_assistant(("issue_credit", None)), _result(0)], TASK, "incorrect"),
        # a tool name that is a method of the environment but not a tool
        ([_assistant(("initial_state", "{}")), _result(0)], TASK, "incorrect"),
        ([_assistant(("__init__", "{}")), _result(0)], TASK, "incorrect"),
        # an argument named like a Python keyword, a huge number, NaN as text
        (
            [_assistant(("issue_credit", '{"user_id": "u1", "amount": 1e400}')), _result(0)],
            TASK,
            "incorrect",
        ),
        (
            [_assistant(("issue_credit", '{"user_id": "u1", "amount": NaN}')), _result(0)],
            TASK,
            "incorrect",
        ),
        (
            [
                _assistant(("issue_credit", '{"user_id": "u1", "amount": 5, "class": 1}')),
                _result(0),
            ],
            TASK,
            "incorrect",
        ),
        # a 400-digit integer: a number past float range, checked without overflow
        (
            [
                _assistant(("issue_credit", '{"user_id": "u1", "amount": 1' + "0" * 400 + "}")),
                _result(0),
            ],
            TASK,
            "incorrect",
        ),
        (
            [_assistant(("add", '{"a": 1' + "0" * 400 + "}"))],
            {
                "tools": [
                    {
                        "name": "add",
                        "parameters": {"type": "object", "properties": {"a": {"type": "number"}}},
                    }
                ],
                "expected_calls": [{"add": {"a": [5.0]}}],
            },
            "incorrect",
        ),
        # "hundred hundred ..." in the answer compounds past float range
        ([], {**TASK, "goal": None, "facts": [5]}, "incorrect"),
        # a task's tools laxer than the environment's: its own schema refuses the call
        (
            [_assistant(("issue_credit", '{"amount": 5}')), _result(0)],
            {
                **TASK,
                "tools": [
                    {
                        "name": "issue_credit",
                        "parameters": {
                            "type": "object",
                            "properties": {"user_id": {}, "amount": {}},
                        },
                    }
                ],
            },
            "incorrect",
        ),
        # 5,000 failing look-ups: scored in linear time
        (_many_failures(5000), {**TASK, "facts": ["never"]}, "incorrect"),
        # the weights of the task are not numbers
        (
            [_assistant(("issue_credit", '{"user_id": "u1", "amount": 5}')), _result(0)],
            {**TASK, "weights": {"state": float("nan")}},
            "error",
        ),
        # tool_call_id that is not a string answers the oldest call
        (
            [
                _assistant(("issue_credit", '{"user_id": "u1", "amount": 5}')),
                {"role": "tool", "tool_call_id": 7, "content": "ok"},
            ],
            TASK,
            "correct",
        ),
    ],
    ids=[
        "deep-json",
        "number-args",
        "null-args",
        "non-tool-method",
        "dunder",
        "inf",
        "nan",
        "keyword-arg",
        "huge-int",
        "huge-int-expected",
        "hundred-hundred",
        "lax-task-tools",
        "many-failures",
        "nan-weight",
        "numeric-call-id",
    ],
)
def test_hostile_input(steps: list[dict[str, Any]], reference: Any, status: str) -> None:
    response = "one " + "hundred " * 160 if not steps else ""
    record = Record("h", "agent", response, reference, steps=tuple(steps))
    verdict = run_verifier(AgentVerifier(), record).verdict
    assert verdict.status.value == status, verdict.message
