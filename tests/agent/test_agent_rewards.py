"""The agent verifier's per-turn step results land on the turns' tokens in the reward layer."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import torch
from assay.domains.agent.verifier import AgentVerifier
from assay.rewards.batch import compute_rewards
from assay.rewards.process import place_step_rewards, step_end_tokens_from_offsets, step_scores

from assay.types import Record, Result

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "agent" / "cases.jsonl"


def _case(case_id: str) -> dict[str, Any]:
    for line in CASES.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["id"] == case_id:
            return case
    raise KeyError(case_id)


def _render(steps: list[dict[str, Any]]) -> tuple[str, dict[int, int]]:
    """A plain chat rendering and, per message index, the character where the message ends."""
    text, ends = "", {}
    for index, message in enumerate(steps):
        body = message.get("content") or ""
        for call in message.get("tool_calls") or []:
            body += f" CALL {call['function']['name']} {call['function']['arguments']}"
        text += f"<{message['role']}> {body}\n"
        ends[index] = len(text) - 1
    return text, ends


def test_turn_rewards_on_turn_tokens() -> None:
    # look-up (useful), a call with a reason outside the enum (invalid), the corrected call
    # (recovers), the answer with the refund: step scores 1, 0, 1, 1 on each turn's last token
    case = _case("agent-retail-enum-recovered-W1001")
    record = Record(case["id"], "agent", case["response"], case["reference"],
                    steps=tuple(case["steps"]))  # fmt: skip
    verdict = AgentVerifier().verify(record)
    text, message_ends = _render(case["steps"])
    offsets = [m.span() for m in re.finditer(r"\S+", text)]
    step_chars = [message_ends[s.evidence["message_index"]] for s in verdict.steps]
    ends = step_end_tokens_from_offsets(offsets, step_chars)
    mask = torch.ones(1, len(offsets), dtype=torch.long)
    rewards = place_step_rewards([step_scores(verdict.steps)], [ends], mask,
                                 outcome=torch.tensor([verdict.score]))  # fmt: skip
    assert step_scores(verdict.steps) == [1.0, 0.0, 1.0, 1.0]
    expected = torch.zeros(1, len(offsets))
    for end, score in zip(ends, step_scores(verdict.steps), strict=True):
        expected[0, end] += score
    expected[0, -1] += verdict.score
    torch.testing.assert_close(rewards, expected)
    # each turn's reward sits on a token of that turn's text: the bad call's token gets 0
    bad_call = offsets[ends[1]]
    assert "changed my mind" in text[: bad_call[1]] and rewards[0, ends[1]] == 0.0
    assert text[bad_call[0] : bad_call[1]].endswith("}")


def test_compute_rewards_takes_agent_steps() -> None:
    # the batch entry point adds the weighted step rewards to token_level_rewards
    case = _case("agent-calendar-parallel-one-fails")
    record = Record(case["id"], "agent", case["response"], case["reference"],
                    steps=tuple(case["steps"]))  # fmt: skip
    verdict = AgentVerifier().verify(record)
    result = Result(case["id"], "agent", verdict, AgentVerifier().id, 0.0, group="g")
    mask = torch.ones(1, 12, dtype=torch.long)
    batch = compute_rewards([result], mask, step_end_tokens=[[2, 6, 9]], step_weight=0.5)
    placed = batch.token_level_rewards[0]
    assert [s.score for s in verdict.steps] == [0.5, 1.0, 1.0]  # one of two parallel calls failed
    assert placed[2].item() == 0.25 and placed[6].item() == 0.5 and placed[9].item() == 0.5
    assert placed[11].item() == pytest.approx(verdict.score)  # outcome on the last token
