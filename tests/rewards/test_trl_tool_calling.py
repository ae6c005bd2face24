"""TRL's GRPOTrainer with ``tools=``: the multi-turn completions it builds, scored by assay.

With tools, TRL 1.x parses each generation with the tokenizer's response template, runs the
tool calls itself, appends the tool results and generates again; the reward function gets a
conversational completion: ``[assistant with tool_calls, tool, ..., assistant]``, the calls'
arguments already decoded, tool messages without ``tool_call_id`` and their content ``str()``
of what the tool returned. The trajectory is those messages; the calls are what the agent
verifier replays on its environment.

The run is real (a tiny random Qwen2 model, TRL's own Qwen3 chat template and response
parser, TRL's tool loop); only the tokens are forced, through ``generate``'s
``sequence_bias``, so each prompt's trajectory is known and so is the reward it deserves:

* A: the model cancels W1001 as asked, gets the tool's result and says so: 1.0.
* B: the model says it cancelled W1003 without calling any tool: 0.0.
* C: asked to cancel W1003, the model cancels W1001 (a real call, the wrong order) and
  reports it as A does: 0.0.
* D: asked where W1002 is, the model looks it up and says it was delivered: 1.0.

The references are given both as JSON text and as objects; as objects, the dataset (Arrow)
gives D's goal call the ``reason`` of the others' calls, as a null.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from assay.rewards.adapters.trl import reward_function
from trainer_tokenizer import byte_level_tokenizer, forcing_bias, one_step_grpo_config, tiny_qwen2

CALL_A = (
    '<tool_call>\n{"name": "cancel_order", "arguments": '
    '{"order_id": "W1001", "reason": "no longer needed"}}\n</tool_call>'
)
FINAL_A = "Order W1001 is cancelled; $50.00 will be refunded."
FINAL_B = "Order W1003 is cancelled."
CALL_D = '<tool_call>\n{"name": "get_order", "arguments": {"order_id": "W1002"}}\n</tool_call>'
FINAL_D = "W1002 has been delivered."
PROMPTS = {
    "A": "Please cancel W1001, I no longer need it.",
    "B": "Please cancel W1003, I ordered it by mistake.",
    "C": "W1003 was ordered by mistake, cancel it.",
    "D": "Where is my order W1002?",
}
GOALS = {
    "A": ("cancel_order", {"order_id": "W1001", "reason": "no longer needed"}),
    "B": ("cancel_order", {"order_id": "W1003", "reason": "ordered by mistake"}),
    "C": ("cancel_order", {"order_id": "W1003", "reason": "ordered by mistake"}),
    "D": ("get_order", {"order_id": "W1002"}),
}
DESERVED = {"A": 1.0, "B": 0.0, "C": 0.0, "D": 1.0}


def get_order(order_id: str) -> dict[str, Any]:
    """Get an order's status, items and total.

    Args:
        order_id: The order's id.
    """
    status = "delivered" if order_id == "W1002" else "pending"
    return {"order_id": order_id, "status": status, "total": 50.0}


def cancel_order(order_id: str, reason: str) -> dict[str, Any]:
    """Cancel a pending order; the total is refunded.

    Args:
        order_id: The order's id.
        reason: Why it is cancelled.
    """
    return {"order_id": order_id, "status": "cancelled", "refund": 50.0}


TOOLS = [get_order, cancel_order]


def _tokenizer() -> Any:
    from trl.chat_template_utils import add_response_schema, qwen3_chat_template

    corpus = [CALL_A, FINAL_A, FINAL_B, CALL_D, FINAL_D, *PROMPTS.values(), "<tool_response>\n"]
    tokenizer = byte_level_tokenizer(corpus, vocab_size=600)
    tokenizer.chat_template = qwen3_chat_template
    return add_response_schema(tokenizer)  # TRL's own parser for Qwen3's <tool_call> blocks


def _call(name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
    if isinstance(arguments, str):
        arguments = {"order_id": arguments}
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


def _bias(tokenizer: Any) -> list[list[Any]]:
    """``sequence_bias`` forcing each turn of the four trajectories (see ``forcing_bias``)."""
    turns: list[tuple[list[dict[str, Any]], str]] = [
        ([{"role": "user", "content": PROMPTS["A"]}], CALL_A),
        ([{"role": "user", "content": PROMPTS["B"]}], FINAL_B),
        ([{"role": "user", "content": PROMPTS["C"]}], CALL_A),  # the wrong order
        ([{"role": "user", "content": PROMPTS["D"]}], CALL_D),
        (
            [
                {"role": "user", "content": PROMPTS["D"]},
                {"role": "assistant", "content": "", "tool_calls": [_call("get_order", "W1002")]},
                {"role": "tool", "name": "get_order", "content": str(get_order("W1002"))},
            ],
            FINAL_D,
        ),
    ]
    result = cancel_order("W1001", "no longer needed")  # A's and C's tool turn: one reply
    turns.append(
        (
            [
                {"role": "user", "content": PROMPTS["A"]},
                {"role": "assistant", "content": "", "tool_calls": [_call(*GOALS["A"])]},
                {"role": "tool", "name": "cancel_order", "content": str(result)},
            ],
            FINAL_A,
        )
    )
    return forcing_bias(tokenizer, turns, tools=TOOLS)


@pytest.mark.parametrize("stored", ["json-text", "objects"])
def test_grpo_trainer_with_tools_pays_the_trajectory(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, stored: str
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("WANDB_DISABLED", "true")
    from datasets import Dataset
    from trl import GRPOTrainer

    tokenizer = _tokenizer()
    model = tiny_qwen2(tokenizer)
    references = {
        key: {"env": "retail", "goal": {"calls": [{"name": name, "arguments": arguments}]}}
        for key, (name, arguments) in GOALS.items()
    }
    rows = [
        {
            "prompt": [{"role": "user", "content": PROMPTS[key]}],
            "reference": json.dumps(references[key]) if stored == "json-text" else references[key],
        }
        for key in PROMPTS
    ]
    dataset = Dataset.from_list(rows)
    if stored == "objects":  # what TRL hands the reward function: Arrow's filled-in nulls
        assert dataset[3]["reference"]["goal"]["calls"][0]["arguments"]["reason"] is None
    # the four prompts, two generations each
    config = one_step_grpo_config(tmp_path, 8, 200, _bias(tokenizer))
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[reward_function("agent", workers=1)],
        args=config,
        train_dataset=dataset,
        processing_class=tokenizer,
        tools=TOOLS,
    )
    trainer.train()
    logs = trainer._logs  # what TRL scored: its prompts, completions and rewards
    scored = list(
        zip(logs["prompt"], logs["completion"], logs["rewards"]["assay_agent"], strict=True)
    )
    assert len(scored) == 8, scored
    for prompt, completion, reward in scored:
        key = next(k for k, text in PROMPTS.items() if prompt[0]["content"] == text)
        # the forced trajectory came through TRL's tool loop as intended ...
        roles = [m["role"] for m in completion]
        assert roles == (["assistant"] if key == "B" else ["assistant", "tool", "assistant"])
        # ... and assay pays what it did
        assert reward == DESERVED[key], (key, completion, reward)
    # each verdict's status is a column of TRL's completions table (log_extra), and the share
    # of masked verdicts (error, timeout: reward None) a metric it logs (log_metric)
    statuses = list(logs["extra"]["assay_agent/status"])
    expected = ["correct" if r == 1.0 else "incorrect" for *_, r in scored]
    assert statuses == expected, statuses
    logged = [e for e in trainer.state.log_history if "assay_agent/masked" in e]
    assert [e["assay_agent/masked"] for e in logged] == [0.0], trainer.state.log_history
