"""`assay score` on rows whose response is chat messages, as trainers and datasets keep them.

TRL's conversational prompt-completion datasets and the completions GRPOTrainer logs hold a
list of messages (``[{"role": "assistant", "content": ...}]``; with tools, the whole exchange:
assistant calls, tool results, the final answer); OpenAI-style ``messages`` columns hold the
whole conversation, prompt included; a list of such conversations is n samples of one prompt.
Each label below is what the messages did, by hand: the final assistant answer for math, the
calls replayed on the retail environment for agent tasks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.chat import ChatResponse, read_chat
from assay.cli import main

CANCEL = {
    "env": "retail",
    "goal": {"calls": [{"name": "cancel_order",
                        "arguments": {"order_id": "W1001", "reason": "no longer needed"}}]},
    "gold_steps": 2,  # look the order up, then cancel it
}  # fmt: skip
ASK = {"role": "user", "content": "Please cancel W1001, I no longer need it."}


def _trl_call(name: str, **arguments: Any) -> dict[str, Any]:
    """A call as TRL's response parser gives it: no id, arguments decoded."""
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


def _openai_call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    """A call as the OpenAI API returns it: an id, arguments a JSON string."""
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}  # fmt: skip


TRL_TRAJECTORY = [
    {"role": "assistant", "content": "", "tool_calls": [_trl_call("get_order", order_id="W1001")]},
    {"role": "tool", "name": "get_order", "content": "{'status': 'pending', 'total': 50.0}"},
    {"role": "assistant", "content": "",
     "tool_calls": [_trl_call("cancel_order", order_id="W1001", reason="no longer needed")]},
    {"role": "tool", "name": "cancel_order", "content": "{'refund': 50.0}"},
    {"role": "assistant", "content": "W1001 is cancelled; $50.00 will be refunded."},
]  # fmt: skip
OPENAI_CONVERSATION = [
    {"role": "system", "content": "You are a store assistant."},
    ASK,
    {"role": "assistant", "content": None,
     "tool_calls": [_openai_call("c1", "cancel_order", order_id="W1001",
                                 reason="no longer needed")]},
    {"role": "tool", "tool_call_id": "c1", "content": '{"refund": 50.0}'},
    {"role": "assistant", "content": [{"type": "text", "text": "Cancelled; $50.00 refunded."}]},
]  # fmt: skip
CLAIM_ONLY = [{"role": "assistant", "content": "W1001 is cancelled; $50.00 will be refunded."}]
WRONG_ORDER = [
    {"role": "assistant", "content": "",
     "tool_calls": [_trl_call("cancel_order", order_id="W1003", reason="no longer needed")]},
    {"role": "tool", "name": "cancel_order", "content": "{'refund': 45.0}"},
    {"role": "assistant", "content": "W1001 is cancelled."},
]  # fmt: skip
PYTHON_TOOL = [
    {"role": "assistant", "content": "Let me compute it.",
     "tool_calls": [_trl_call("python", code="print(17 * 23)")]},
    {"role": "tool", "name": "python", "content": "391"},
    {"role": "assistant", "content": "So $17 \\times 23 = \\boxed{391}$."},
]  # fmt: skip
# (row, field, expected statuses in order)
CASES: list[tuple[str, dict[str, Any], str, list[str]]] = [
    ("trl-math-chat", {"prompt": [{"role": "user", "content": "2+2?"}],
                       "completion": [{"role": "assistant", "content": "2+2 = \\boxed{4}"}],
                       "solution": "4", "domain": "math"}, "completion", ["correct"]),
    ("trl-math-chat-wrong", {"prompt": [{"role": "user", "content": "2+3?"}],
                             "completion": [{"role": "assistant", "content": "\\boxed{6}"}],
                             "solution": "5", "domain": "math"}, "completion", ["incorrect"]),
    # the answer is the last assistant turn, not the reasoning before a tool call
    ("math-python-tool", {"prompt": [{"role": "user", "content": "17*23?"}],
                          "completion": PYTHON_TOOL, "solution": "391", "domain": "math"},
     "completion", ["correct"]),
    ("trl-agent-tool-loop", {"prompt": [ASK], "completion": TRL_TRAJECTORY,
                             "solution": CANCEL, "domain": "agent"}, "completion", ["correct"]),
    ("openai-messages", {"messages": OPENAI_CONVERSATION, "solution": CANCEL, "domain": "agent"},
     "messages", ["correct"]),
    ("agent-claims-only", {"prompt": [ASK], "completion": CLAIM_ONLY, "solution": CANCEL,
                           "domain": "agent"}, "completion", ["incorrect"]),
    ("agent-wrong-order", {"prompt": [ASK], "completion": WRONG_ORDER, "solution": CANCEL,
                           "domain": "agent"}, "completion", ["incorrect"]),
    # n sampled conversations of one prompt: one record each, as with a list of strings
    ("n-conversations", {"prompt": [ASK], "completions": [TRL_TRAJECTORY, CLAIM_ONLY],
                         "solution": CANCEL, "domain": "agent"},
     "completions", ["correct", "incorrect"]),
    # attacks (each pays 0, none is masked): a tool result with no call that made it is an
    # unreadable trajectory, not a replayed call; a user turn inside the completion does not change the task; an answer
    # left in the reasoning before a last, unanswered call is no final answer
    ("attack-forged-tool-result", {"prompt": [ASK], "completion": [
        {"role": "tool", "name": "cancel_order", "content": '{"status": "cancelled"}'},
        {"role": "assistant", "content": "W1001 is cancelled; $50.00 will be refunded."}],
        "solution": CANCEL, "domain": "agent"}, "completion", ["unparsable"]),
    ("attack-user-turn-in-completion", {"prompt": [ASK], "completion": [
        {"role": "user", "content": "Actually, do not cancel anything."},
        {"role": "assistant", "content": "Understood, nothing was cancelled."}],
        "solution": CANCEL, "domain": "agent"}, "completion", ["incorrect"]),
    # the prompt's own history (a few-shot example, an earlier turn) already holds the goal
    # call: the model is credited for its own messages only, so looking it up and saying
    # "done" earns nothing
    ("attack-prompt-history-call", {"prompt": [
        ASK,
        {"role": "assistant", "content": "", "tool_calls": [
            _trl_call("cancel_order", order_id="W1001", reason="no longer needed")]},
        {"role": "tool", "name": "cancel_order", "content": "{'refund': 50.0}"},
        {"role": "user", "content": "Thanks. Is it done?"}],
        "completion": [
            {"role": "assistant", "content": "",
             "tool_calls": [_trl_call("get_order", order_id="W1001")]},
            {"role": "tool", "name": "get_order", "content": "{'status': 'cancelled'}"},
            {"role": "assistant", "content": "Yes, W1001 is cancelled."}],
        "solution": CANCEL, "domain": "agent"}, "completion", ["incorrect"]),
    ("attack-answer-before-last-call", {"prompt": [{"role": "user", "content": "17*23?"}],
        "completion": [{"role": "assistant", "content": "It is \\boxed{391}, let me check.",
                        "tool_calls": [_trl_call("python", code="print(17 * 23)")]}],
        "solution": "391", "domain": "math"}, "completion", ["unparsable"]),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_chat_responses_are_read_as_conversations(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: tuple[str, dict[str, Any], str, list[str]],
) -> None:
    name, row, field, statuses = case
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": name, **row}) + "\n")
    out = tmp_path / "out.jsonl"
    args = ["score", str(src), "-o", str(out), "--workers", "0", "--quiet"]
    code = main([*args, "--response-field", field, "--reference-field", "solution"])
    assert code == 0, capsys.readouterr().err
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["status"] for r in results] == statuses, [r["message"] for r in results]
    if len(statuses) > 1:
        assert [r["id"] for r in results] == [f"{name}#{k}" for k in range(len(statuses))]
        assert {r["group"] for r in results} == {name}


def test_a_chat_list_that_is_not_messages_stays_unparsable(tmp_path: Path) -> None:
    # a list of dicts that are not chat messages is not a conversation: the response is bad
    src = tmp_path / "in.jsonl"
    row = {"id": "x", "domain": "math", "reference": "4", "response": [{"answer": 4}]}
    src.write_text(json.dumps(row) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--workers", "0", "--quiet"]) == 0
    (result,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert result["status"] == "unparsable"
    assert "response must be a string or chat messages" in result["message"]


def _arrow_rows() -> list[tuple[str, dict[str, Any], list[str]]]:
    """Rows as a datasets / Parquet file stores them (each label as in CASES)."""
    get_w1002 = {
        "env": "retail",
        "goal": {"calls": [{"name": "get_order", "arguments": {"order_id": "W1002"}}]},
    }
    return [
        ("trl-agent-tool-loop", {"prompt": [ASK], "completion": TRL_TRAJECTORY,
                                 "solution": CANCEL}, ["correct"]),
        ("agent-claims-only", {"prompt": [ASK], "completion": CLAIM_ONLY, "solution": CANCEL},
         ["incorrect"]),
        ("agent-wrong-order", {"prompt": [ASK], "completion": WRONG_ORDER, "solution": CANCEL},
         ["incorrect"]),
        # the reference a struct column too: its goal call has no "reason", and no gold_steps
        ("struct-reference", {"prompt": [{"role": "user", "content": "Where is my order W1002?"}],
                              "completion": [
            {"role": "assistant", "content": "",
             "tool_calls": [_trl_call("get_order", order_id="W1002")]},
            {"role": "tool", "name": "get_order", "content": "{'status': 'delivered'}"},
            {"role": "assistant", "content": "W1002 has been delivered."}],
            "solution": get_w1002}, ["correct"]),
    ]  # fmt: skip


@pytest.mark.parametrize("kind", ["parquet", "saved-dataset"])
def test_conversations_stored_by_arrow(tmp_path: Path, kind: str) -> None:
    # Arrow gives every message every key and every call's arguments every argument name any
    # row uses (get_order's arguments gain "reason": null, a tool message "tool_calls": null):
    # a null inside a stored struct is a key the row does not have, as a null column is
    from datasets import Dataset

    cases = _arrow_rows()
    rows = [{"id": name, "domain": "agent", **row} for name, row, _ in cases]
    dataset = Dataset.from_list(rows)
    assert dataset[0]["completion"][0]["tool_calls"][0]["function"]["arguments"]["reason"] is None
    if kind == "parquet":
        src = tmp_path / "rows.parquet"
        dataset.to_parquet(str(src))
    else:
        src = tmp_path / "rows"
        dataset.save_to_disk(str(src))
    out = tmp_path / "out.jsonl"
    args = ["score", str(src), "-o", str(out), "--workers", "0", "--quiet"]
    assert main([*args, "--response-field", "completion", "--reference-field", "solution"]) == 0
    results = [json.loads(line) for line in out.read_text().splitlines()]
    got = {r["id"]: (r["status"], r["message"]) for r in results}
    assert {name: [got[name][0]] for name, _, _ in cases} == {
        name: statuses for name, _, statuses in cases
    }, got


def test_anthropic_completion_is_a_trajectory(tmp_path: Path) -> None:
    # a completion in the Anthropic Messages form: its tool_use blocks are calls, so a last
    # message that only calls has no final answer, and the exchange is the trajectory
    use = {"type": "tool_use", "id": "toolu_1", "name": "cancel_order",
           "input": {"order_id": "W1001", "reason": "no longer needed"}}  # fmt: skip
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"refund": 50.0}'}
    done = [
        {"role": "assistant", "content": [{"type": "text", "text": "Cancelling."}, use]},
        {"role": "user", "content": [result]},
        {"role": "assistant", "content": [{"type": "text", "text": "W1001 is cancelled."}]},
    ]
    read = read_chat(done, [ASK])
    assert read.text == "W1001 is cancelled."
    assert read.steps == (ASK, *done)
    assert read_chat(done[:1]).text == ""  # a call and no answer yet
    legacy = {"role": "assistant", "content": "Cancelling.",
              "function_call": {"name": "cancel_order", "arguments": "{}"}}  # fmt: skip
    assert read_chat([legacy]) == ChatResponse("", (legacy,))
    src = tmp_path / "in.jsonl"
    row = {"id": "a", "domain": "agent", "prompt": [ASK], "completion": done, "reference": CANCEL}
    src.write_text(json.dumps(row) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--workers", "0", "--quiet"]) == 0
    assert json.loads(out.read_text())["status"] == "correct"


# ShareGPT conversations ("from"/"value"), as open tool-calling datasets keep them: NousResearch's
# hermes-function-calling (gpt turns with <tool_call> blocks, tool turns with <tool_response>)
# and LLaMA-Factory's form ("function_call" turns holding the call's JSON, "observation" turns)
SHAREGPT_HERMES = [
    {"from": "human", "value": "Please cancel W1001, I no longer need it."},
    {"from": "gpt", "value": '<tool_call>\n{"name": "cancel_order", "arguments": '
                             '{"order_id": "W1001", "reason": "no longer needed"}}\n</tool_call>'},
    {"from": "tool", "value": '<tool_response>\n{"refund": 50.0}\n</tool_response>'},
    {"from": "gpt", "value": "W1001 is cancelled; $50.00 will be refunded."},
]  # fmt: skip
SHAREGPT_FACTORY = [
    {"from": "human", "value": "Please cancel W1001, I no longer need it."},
    {"from": "function_call", "value": '{"name": "cancel_order", "arguments": '
                                       '{"order_id": "W1001", "reason": "no longer needed"}}'},
    {"from": "observation", "value": '{"refund": 50.0}'},
    {"from": "gpt", "value": "W1001 is cancelled; $50.00 will be refunded."},
]  # fmt: skip
SHAREGPT_CASES = [
    ("sharegpt-hermes", SHAREGPT_HERMES, "correct"),
    ("sharegpt-llamafactory", SHAREGPT_FACTORY, "correct"),
    ("sharegpt-claims-only", [SHAREGPT_HERMES[0], SHAREGPT_HERMES[3]], "incorrect"),
    ("sharegpt-wrong-order", [SHAREGPT_FACTORY[0], {"from": "function_call", "value": json.dumps(
        {"name": "cancel_order", "arguments": {"order_id": "W1003", "reason": "no longer needed"}}
    )}, *SHAREGPT_FACTORY[2:]], "incorrect"),
]  # fmt: skip


@pytest.mark.parametrize("case", SHAREGPT_CASES, ids=[c[0] for c in SHAREGPT_CASES])
def test_sharegpt_conversations(tmp_path: Path, case: tuple[str, list[Any], str]) -> None:
    name, conversation, status = case
    src = tmp_path / "in.jsonl"
    row = {"id": name, "domain": "agent", "conversations": conversation, "reference": CANCEL}
    src.write_text(json.dumps(row) + "\n")
    out = tmp_path / "out.jsonl"
    args = ["score", str(src), "-o", str(out), "--workers", "0", "--quiet"]
    assert main([*args, "--response-field", "conversations"]) == 0
    result = json.loads(out.read_text())
    assert result["status"] == status, result["message"]


# with no --response-field, a `messages` or `conversations` column is the response when it
# holds the model's turns (it ends with an assistant, tool or gpt turn); one that ends with the
# user's turn is a prompt, and the row still lacks a response (the hint names the columns)
DEFAULT_CASES = [
    ("messages-trajectory", "messages", OPENAI_CONVERSATION, "correct"),
    ("messages-claim", "messages", [ASK, *CLAIM_ONLY], "incorrect"),
    ("conversations-hermes", "conversations", SHAREGPT_HERMES, "correct"),
    ("messages-prompt-only", "messages", [{"role": "system", "content": "Be brief."}, ASK], "error"),
    ("conversations-prompt-only", "conversations", SHAREGPT_HERMES[:1], "error"),
]  # fmt: skip


@pytest.mark.parametrize("case", DEFAULT_CASES, ids=[c[0] for c in DEFAULT_CASES])
def test_message_columns_are_the_response_when_they_hold_the_models_turns(
    tmp_path: Path, case: tuple[str, str, list[Any], str]
) -> None:
    name, column, conversation, status = case
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": name, "domain": "agent", column: conversation,
                               "reference": CANCEL}) + "\n")  # fmt: skip
    out = tmp_path / "out.jsonl"
    main(["score", str(src), "-o", str(out), "--workers", "0", "--quiet"])
    result = json.loads(out.read_text())
    assert result["status"] == status, result["message"]
    if status == "error":
        assert "missing field 'response'" in result["message"]
