"""Process (step) rewards placed on tokens.

A verdict's :class:`~assay.types.StepResult` values score the steps of an attempt (a test case,
a tool call, a reasoning step). Each step's reward goes on the token where the step ends; the
outcome reward goes on the last response token. Step ends are given either as token indices or
as character indices mapped through a tokenizer's offset mapping
(:func:`step_end_tokens_from_offsets`). Optional discounting turns the placed rewards into
returns ``G_t = r_t + gamma * G_{t+1}``.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from assay.rewards.advantages import last_token_index, outcome_token_rewards
from torch import Tensor

from assay.errors import ConfigError
from assay.types import StepResult


def step_end_tokens_from_offsets(
    offsets: Tensor | Sequence[tuple[int, int]], step_end_chars: Sequence[int]
) -> list[int]:
    """Token index where each step ends, from character offsets.

    Args:
        offsets: ``(start, end)`` character span of each response token ``[T, 2]`` (a fast
            tokenizer's ``return_offsets_mapping=True`` output; special tokens' ``(0, 0)`` spans
            are harmless).
        step_end_chars: Character index (exclusive) where each step ends in the response text.

    Returns:
        For each step, the first token whose span reaches the step's end character; steps past
        the last token map to the last token.

    Example:
        >>> step_end_tokens_from_offsets([(0, 3), (3, 5), (5, 9)], [4, 9])
        [1, 2]
    """
    spans = torch.as_tensor(offsets, dtype=torch.long).reshape(-1, 2)
    if spans.shape[0] == 0:
        raise ConfigError("offsets are empty: no token to place a step reward on")
    ends = torch.cummax(spans[:, 1], dim=0).values.contiguous()
    chars = torch.as_tensor(list(step_end_chars), dtype=torch.long)
    tokens = torch.searchsorted(ends, chars, side="left")
    return [int(t) for t in tokens.clamp(max=spans.shape[0] - 1)]


def place_step_rewards(
    step_rewards: Sequence[Sequence[float]],
    step_end_tokens: Sequence[Sequence[int]],
    response_mask: Tensor,
    outcome: Tensor | None = None,
    gamma: float | None = None,
) -> Tensor:
    """Token-level rewards ``[B, T]`` with each step's reward on its end token.

    Args:
        step_rewards: Per sample, the reward of each step.
        step_end_tokens: Per sample, the response token index where each step ends; indices past
            the last response token are moved onto it.
        response_mask: ``[B, T]`` response tokens.
        outcome: Optional outcome rewards ``[B]``, added on the last response token.
        gamma: Discount; when given, the result is the return ``G_t = r_t + gamma * G_{t+1}``
            at every response token (0 outside the mask).
    """
    if len(step_rewards) != response_mask.shape[0] or len(step_end_tokens) != len(step_rewards):
        raise ConfigError("step_rewards, step_end_tokens and response_mask disagree on B")
    mask = response_mask.to(torch.float32)
    last = last_token_index(response_mask).tolist()
    rows: list[int] = []
    cols: list[int] = []
    values: list[float] = []
    for row, (rewards, ends) in enumerate(zip(step_rewards, step_end_tokens, strict=True)):
        if len(rewards) != len(ends):
            raise ConfigError(f"sample {row}: {len(rewards)} step rewards, {len(ends)} step ends")
        rows.extend([row] * len(ends))
        cols.extend(min(int(end), last[row]) for end in ends)
        values.extend(float(r) for r in rewards)
    placed = torch.zeros_like(mask)
    if rows:
        index = (torch.tensor(rows), torch.tensor(cols))
        placed = placed.index_put(
            tuple(i.to(mask.device) for i in index),
            torch.tensor(values, device=mask.device),
            accumulate=True,
        )
    if outcome is not None:
        placed = placed + outcome_token_rewards(outcome.to(mask), response_mask)
    placed = placed * mask
    return placed if gamma is None else discounted_returns(placed, gamma) * mask


def discounted_returns(rewards: Tensor, gamma: float) -> Tensor:
    """``G_t = r_t + gamma * G_{t+1}`` along the last axis (a loop over T, vectorised over B)."""
    returns = torch.empty_like(rewards)
    running = torch.zeros_like(rewards[..., 0])
    for t in reversed(range(rewards.shape[-1])):
        running = rewards[..., t] + gamma * running
        returns[..., t] = running
    return returns


def step_scores(steps: Sequence[StepResult]) -> list[float]:
    """Step rewards of a verdict, ordered by step index."""
    return [s.score for s in sorted(steps, key=lambda s: s.index)]
