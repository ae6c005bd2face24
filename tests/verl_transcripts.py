"""verl tool-agent transcripts built by verl's own code, for the tests that score them.

:func:`transcript` runs ``ToolAgentLoop``'s token building (``QwenContinuousTokenBuilder``) and
call parsing (``HermesToolParser``) over given assistant turns and tool results, as a rollout
makes them; :func:`data_proto` is the ``DataProto`` batch verl's reward-loop worker reads.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from verl import DataProto
from verl.experimental.agent_loop.tool_parser import HermesToolParser
from verl.utils.tokenizer.continuous_token import QwenContinuousTokenBuilder


def transcript(
    tokenizer: Any, turns: Sequence[str], results: Sequence[Sequence[str]],
    tools: list[dict[str, Any]],
) -> list[int]:  # fmt: skip
    """The response ids of ToolAgentLoop for these turns; asserts verl executes as many calls
    in each turn but the last as it has results."""
    builder = QwenContinuousTokenBuilder(tokenizer)
    parser = HermesToolParser(tokenizer)
    end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Please cancel W1001."}]
    prompt = builder.build_initial_tokens(messages, tools=tools)
    ids = list(prompt)
    for k, text in enumerate(turns):
        generated = [*tokenizer.encode(text, add_special_tokens=False), end]
        ids = builder.merge_assistant_tokens(ids, generated).token_ids
        if k == len(turns) - 1:
            break
        content, calls = asyncio.run(parser.extract_tool_calls(generated, None))
        assert len(calls) == len(results[k]), (text, calls)  # what verl executes
        messages = [*messages, {"role": "assistant", "content": content, "tool_calls": [
            {"type": "function", "function": {"name": c.name, "arguments": json.loads(
                c.arguments)}} for c in calls]}]  # fmt: skip
        updated = [*messages, *({"role": "tool", "content": r} for r in results[k])]
        ids = builder.merge_context_tokens(messages, updated, ids, tools=tools).token_ids
        messages = updated
    return ids[len(prompt) :]


def data_proto(tokenizer: Any, responses: list[list[int]], truth: dict[str, Any]) -> DataProto:
    """One retail-agent row per response, padded as verl pads them."""
    size, length = len(responses), max(len(r) for r in responses)
    pad = tokenizer.pad_token_id
    batch = torch.full((size, length), pad, dtype=torch.long)
    mask = torch.zeros(size, 1 + length, dtype=torch.long)
    mask[:, 0] = 1
    for i, ids in enumerate(responses):
        batch[i, : len(ids)] = torch.tensor(ids)
        mask[i, 1 : 1 + len(ids)] = 1
    return DataProto.from_dict(
        tensors={"prompts": torch.full((size, 1), pad), "responses": batch,
                 "attention_mask": mask},
        non_tensors={
            "data_source": np.array(["tau_bench/retail"] * size, dtype=object),
            "reward_model": np.array([{"ground_truth": truth}] * size, dtype=object),
            "extra_info": np.array([{"index": i} for i in range(size)], dtype=object),
        },
    )  # fmt: skip
