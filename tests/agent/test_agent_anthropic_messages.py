"""Trajectories in the Anthropic Messages format, as Claude agent runs are logged.

The Messages API writes a call as a ``tool_use`` content block of an assistant message
(``{"type": "tool_use", "id": "toolu_...", "name": ..., "input": {...}}``) and its result as a
``tool_result`` block of the next user message (``{"type": "tool_result", "tool_use_id": ...,
"content": ..., "is_error"?}``). Each label is what the trajectory did on the retail
environment, by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.cli import main

ASK = {"role": "user", "content": "Please cancel W1001, I no longer need it."}
CANCEL = {
    "env": "retail",
    "goal": {"calls": [{"name": "cancel_order",
                        "arguments": {"order_id": "W1001", "reason": "no longer needed"}}]},
    "gold_steps": 2,
}  # fmt: skip


def _use(use_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": arguments}


def _result(use_id: str, content: Any, error: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": use_id, "content": content}
    if error:
        block["is_error"] = True
    return block


def _said(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


CANCEL_CALL = _use("toolu_02", "cancel_order", order_id="W1001", reason="no longer needed")
# (name, steps after the user's request, expected status)
CASES: list[tuple[str, list[dict[str, Any]], str]] = [
    ("look-up-then-cancel", [
        {"role": "assistant", "content": [{"type": "text", "text": "Let me check the order."},
                                          _use("toolu_01", "get_order", order_id="W1001")]},
        {"role": "user", "content": [_result("toolu_01", '{"status": "pending"}')]},
        {"role": "assistant", "content": [CANCEL_CALL]},
        {"role": "user", "content": [_result("toolu_02", [{"type": "text",
                                                            "text": '{"refund": 50.0}'}])]},
        _said("W1001 is cancelled; $50.00 will be refunded."),
    ], "correct"),
    # both calls in one assistant message, both results in one user message
    ("parallel-blocks", [
        {"role": "assistant", "content": [_use("toolu_01", "get_order", order_id="W1001"),
                                          CANCEL_CALL]},
        {"role": "user", "content": [_result("toolu_01", '{"status": "pending"}'),
                                     _result("toolu_02", '{"refund": 50.0}')]},
        _said("Cancelled; $50.00 will be refunded."),
    ], "correct"),
    # a call the environment refuses (an invalid reason), then the right one: an invalid
    # call a later call makes good still succeeds (docs/agent.md, call_validity)
    ("error-then-retry", [
        {"role": "assistant", "content": [
            _use("toolu_01", "cancel_order", order_id="W1001", reason="changed my mind")]},
        {"role": "user", "content": [_result("toolu_01", "invalid reason", error=True)]},
        {"role": "assistant", "content": [CANCEL_CALL]},
        {"role": "user", "content": [_result("toolu_02", '{"refund": 50.0}')]},
        _said("Done: W1001 is cancelled."),
    ], "correct"),
    ("claims-only", [_said("W1001 is cancelled; $50.00 will be refunded.")], "incorrect"),
    ("wrong-order", [
        {"role": "assistant", "content": [
            _use("toolu_01", "cancel_order", order_id="W1003", reason="no longer needed")]},
        {"role": "user", "content": [_result("toolu_01", '{"refund": 45.0}')]},
        _said("Cancelled."),
    ], "incorrect"),
    # a result block that answers no call is an unreadable trajectory, as a stray tool message
    ("orphan-result", [
        {"role": "user", "content": [_result("toolu_09", '{"status": "cancelled"}')]},
        _said("W1001 is cancelled."),
    ], "unparsable"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_anthropic_trajectories(
    tmp_path: Path, case: tuple[str, list[dict[str, Any]], str]
) -> None:
    name, steps, status = case
    row = {"id": name, "domain": "agent", "response": "", "steps": [ASK, *steps],
           "reference": CANCEL}  # fmt: skip
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(row) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--workers", "0", "--quiet"]) == 0
    (result,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert result["status"] == status, (result["message"], result["checks"])


# OpenAI's legacy form (before tool_calls): one "function_call" per assistant message, answered
# by a "function" message; still what older agent logs and some datasets hold
LEGACY: list[tuple[str, list[dict[str, Any]], str]] = [
    ("legacy-cancel", [
        {"role": "assistant", "content": None, "function_call": {
            "name": "cancel_order",
            "arguments": '{"order_id": "W1001", "reason": "no longer needed"}'}},
        {"role": "function", "name": "cancel_order", "content": '{"refund": 50.0}'},
        {"role": "assistant", "content": "W1001 is cancelled; $50.00 will be refunded."},
    ], "correct"),
    ("legacy-wrong-order", [
        {"role": "assistant", "content": None, "function_call": {
            "name": "cancel_order",
            "arguments": '{"order_id": "W1003", "reason": "no longer needed"}'}},
        {"role": "function", "name": "cancel_order", "content": '{"refund": 45.0}'},
        {"role": "assistant", "content": "Cancelled."},
    ], "incorrect"),
]  # fmt: skip


@pytest.mark.parametrize("case", LEGACY, ids=[c[0] for c in LEGACY])
def test_openai_legacy_function_calls(
    tmp_path: Path, case: tuple[str, list[dict[str, Any]], str]
) -> None:
    test_anthropic_trajectories(tmp_path, case)
