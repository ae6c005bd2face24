"""Advantage estimators over groups of responses, vectorised with segment sums.

Every estimator takes per-sample scores ``[B]``, group ids ``[B]`` (samples of one prompt share
an id) and a ``valid`` mask ``[B]``: invalid samples (masked statuses such as ``error``) are left
out of every group statistic and get advantage 0. No Python loop runs over samples or groups;
group statistics are ``index_add`` reductions (see :mod:`assay.rewards.segments`). The formulas
are in docs/rewards.md; they match verl's ``core_algos`` estimators.
"""

from __future__ import annotations

from typing import Literal

import torch
from assay.rewards.segments import group_index, segment_stats
from torch import Tensor

from assay.errors import ConfigError

Estimator = Literal["grpo", "dr_grpo", "rloo", "reinforce_pp", "ppo"]
ESTIMATORS: tuple[str, ...] = ("grpo", "dr_grpo", "rloo", "reinforce_pp", "ppo")


def _valid(scores: Tensor, valid: Tensor | None) -> Tensor:
    if valid is None:
        return torch.ones_like(scores, dtype=torch.bool)
    return valid.to(device=scores.device, dtype=torch.bool)


def grpo_advantages(
    scores: Tensor,
    groups: Tensor,
    valid: Tensor | None = None,
    *,
    norm_by_std: bool = True,
    epsilon: float = 1e-6,
) -> Tensor:
    """GRPO outcome advantages ``[B]``: ``(r - mean_g) / (std_g + eps)``.

    ``std_g`` is the unbiased std of the group's valid scores. As in verl, a group with a single
    valid sample uses mean 0 and std 1. With ``norm_by_std=False`` the advantage is
    ``r - mean_g``.

    Args:
        scores: Rewards ``[B]``.
        groups: Group ids ``[B]`` (any integers).
        valid: Samples taking part (default all); the others get 0.
        norm_by_std: Divide by the group std (``norm_adv_by_std_in_grpo`` in verl).
        epsilon: Added to the std.
    """
    is_valid = _valid(scores, valid)
    index = group_index(groups, scores.device)
    stats = segment_stats(scores, index, is_valid)
    single = stats.count <= 1
    mean = torch.where(single, torch.zeros_like(stats.mean), stats.mean).index_select(0, index)
    advantages = scores - mean
    if norm_by_std:
        std = torch.where(single, torch.ones_like(stats.std), stats.std).index_select(0, index)
        advantages = advantages / (std + epsilon)
    return torch.where(is_valid, advantages, torch.zeros_like(advantages))


def dr_grpo_advantages(scores: Tensor, groups: Tensor, valid: Tensor | None = None) -> Tensor:
    """Dr. GRPO advantages ``[B]``: ``r - mean_g`` (no std scaling).

    Dr. GRPO also drops the per-response ``1/|o_i|`` length normalisation; that is the loss's
    job (aggregate tokens with a constant divisor, verl's ``seq-mean-token-sum-norm``).
    """
    return grpo_advantages(scores, groups, valid, norm_by_std=False)


RlooSingleton = Literal["zero", "score"]


def rloo_advantages(
    scores: Tensor,
    groups: Tensor,
    valid: Tensor | None = None,
    *,
    singleton: RlooSingleton = "zero",
) -> Tensor:
    """RLOO advantages ``[B]``: ``r_i - (sum_g - r_i) / (n_g - 1)``.

    A group with one valid sample has no leave-one-out baseline. ``singleton="zero"`` (the
    default) gives it advantage 0: no update from a sample nothing can be compared with (a group
    can shrink to one when the others are masked). ``singleton="score"`` gives it its score
    (baseline 0), as verl's ``compute_rloo_outcome_advantage`` does.
    """
    if singleton not in ("zero", "score"):
        raise ConfigError(f"rloo singleton must be 'zero' or 'score', not {singleton!r}")
    is_valid = _valid(scores, valid)
    index = group_index(groups, scores.device)
    stats = segment_stats(scores, index, is_valid)
    count = stats.count.index_select(0, index)
    baseline = (stats.total.index_select(0, index) - scores) / (count - 1).clamp(min=1.0)
    alone = scores if singleton == "score" else torch.zeros_like(scores)
    advantages = torch.where(count > 1, scores - baseline, alone)
    return torch.where(is_valid, advantages, torch.zeros_like(advantages))


def reinforce_pp_advantages(
    scores: Tensor,
    groups: Tensor,
    response_mask: Tensor,
    valid: Tensor | None = None,
    *,
    epsilon: float = 1e-8,
    out: Tensor | None = None,
) -> Tensor:
    """REINFORCE++ with baseline, token-level ``[B, T]``.

    The group mean is subtracted (singletons keep their score), the result is broadcast on the
    response tokens and whitened over all valid tokens of the batch (verl's ``masked_whiten``:
    token-weighted mean, unbiased token variance, ``rsqrt(var + epsilon)``). The whitening
    statistics are computed from per-sample values weighted by response length, so no extra
    ``[B, T]`` temporaries are made.
    """
    is_valid = _valid(scores, valid)
    centred = grpo_advantages(scores, groups, is_valid, norm_by_std=False)
    lengths = (response_mask.to(torch.float64).sum(-1)) * is_valid.to(torch.float64)
    tokens = lengths.sum()
    values = centred.to(torch.float64)
    mean = (values * lengths).sum() / tokens.clamp(min=1.0)
    var = (lengths * (values - mean) ** 2).sum() / (tokens - 1).clamp(min=1.0)
    whitened = ((values - mean) * torch.rsqrt(var + epsilon)).to(scores.dtype)
    return to_tokens(whitened, response_mask, is_valid, out=out)


def to_tokens(
    advantages: Tensor,
    response_mask: Tensor,
    valid: Tensor | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """Broadcast per-sample values ``[B]`` onto response tokens ``[B, T]`` (0 elsewhere).

    Args:
        advantages: Per-sample values ``[B]``.
        response_mask: ``[B, T]`` response tokens.
        valid: Samples taking part (default all); the others get 0.
        out: A ``[B, T]`` tensor to write into, reused across training steps. On the CPU a fresh
            ``[B, T]`` result costs a page fault per 4 KiB touched, which is most of the time of
            this broadcast at trainer sizes; a caller-owned buffer skips that (CUDA's caching
            allocator already does). Whatever it held is overwritten.
    """
    per_sample = (
        advantages
        if valid is None
        else torch.where(valid.to(torch.bool), advantages, torch.zeros_like(advantages))
    )
    mask = response_mask.to(advantages.dtype)
    if out is None:
        return per_sample.unsqueeze(-1) * mask
    if out.shape != mask.shape or out.dtype != per_sample.dtype:
        want = f"{tuple(mask.shape)} {per_sample.dtype}"
        raise ConfigError(f"out must be {want}, got {tuple(out.shape)} {out.dtype}")
    return torch.mul(per_sample.unsqueeze(-1), mask, out=out)


def last_token_index(response_mask: Tensor) -> Tensor:
    """Index of the last response token per row ``[B]`` (0 for an empty row)."""
    positions = torch.arange(response_mask.shape[-1], device=response_mask.device)
    return (positions * response_mask.to(torch.bool)).amax(dim=-1)


def outcome_token_rewards(scores: Tensor, response_mask: Tensor) -> Tensor:
    """Place each sample's score on its last response token ``[B, T]``."""
    rewards = torch.zeros(response_mask.shape, dtype=scores.dtype, device=scores.device)
    has_tokens = response_mask.to(torch.bool).any(dim=-1)
    rewards.scatter_(
        1, last_token_index(response_mask).unsqueeze(-1), (scores * has_tokens).unsqueeze(-1)
    )
    return rewards


def ppo_token_rewards(
    scores: Tensor, response_mask: Tensor, kl: Tensor | None = None, beta: float = 0.0
) -> Tensor:
    """PPO token-level rewards ``[B, T]``: outcome at the last token minus ``beta * kl``.

    Args:
        scores: Outcome rewards ``[B]``.
        response_mask: ``[B, T]`` response tokens.
        kl: Caller-computed per-token KL estimate ``[B, T]`` (e.g. ``logp - ref_logp``).
        beta: KL coefficient.
    """
    rewards = outcome_token_rewards(scores, response_mask)
    if kl is not None and beta:
        rewards = rewards - beta * kl.to(rewards.dtype) * response_mask.to(rewards.dtype)
    return rewards


def masked_whiten(values: Tensor, mask: Tensor, epsilon: float = 1e-8) -> Tensor:
    """Whiten ``values`` over ``mask`` (token mean, unbiased token variance), as verl does."""
    weight = mask.to(values.dtype)
    count = weight.sum()
    mean = (values * weight).sum() / count.clamp(min=1.0)
    var = (((values - mean) ** 2) * weight).sum() / (count - 1).clamp(min=1.0)
    return (values - mean) * torch.rsqrt(var + epsilon)


def gae_advantages(
    token_rewards: Tensor,
    values: Tensor,
    response_mask: Tensor,
    gamma: float = 1.0,
    lam: float = 1.0,
) -> tuple[Tensor, Tensor]:
    """Generalised advantage estimation for PPO; returns ``(advantages, returns)`` ``[B, T]``.

    ``delta_t = r_t + gamma * V_next - V_t`` and ``A_t = delta_t + gamma * lam * A_next``
    (a loop over T, vectorised over B), where ``V_next`` and ``A_next`` are those of the next
    token *in the mask*: tokens outside it (tool observations inside a multi-turn response,
    padding) are skipped, their value and TD error left out, and the recursion carried across
    them, as verl's ``compute_gae_advantage_return`` does. Advantages are whitened over the
    mask; both outputs are 0 outside it.
    """
    steps = token_rewards.shape[-1]
    mask = response_mask.to(token_rewards.dtype)
    next_value = torch.zeros_like(token_rewards[:, 0])
    last = torch.zeros_like(next_value)
    reversed_advantages = []
    for t in reversed(range(steps)):
        delta = token_rewards[:, t] + gamma * next_value - values[:, t]
        here = mask[:, t]
        # outside the mask, carry the next in-mask token's value and advantage unchanged
        next_value = values[:, t] * here + (1 - here) * next_value
        last = (delta + gamma * lam * last) * here + (1 - here) * last
        reversed_advantages.append(last)
    advantages = torch.stack(reversed_advantages[::-1], dim=1)
    returns = advantages + values
    return masked_whiten(advantages, response_mask) * mask, returns * mask


def compute_advantages(
    estimator: Estimator,
    scores: Tensor,
    groups: Tensor,
    response_mask: Tensor,
    valid: Tensor | None = None,
    *,
    norm_by_std: bool = True,
    epsilon: float = 1e-6,
    rloo_singleton: RlooSingleton = "zero",
    out: Tensor | None = None,
) -> Tensor:
    """Token-level advantages ``[B, T]`` of an outcome estimator (not ``ppo``, see GAE).

    ``rloo_singleton`` is :func:`rloo_advantages`'s ``singleton`` (``"score"`` as verl).
    ``out`` is an optional ``[B, T]`` buffer to write into (see `to_tokens`).
    """
    if estimator == "grpo":
        per_sample = grpo_advantages(
            scores, groups, valid, norm_by_std=norm_by_std, epsilon=epsilon
        )
    elif estimator == "dr_grpo":
        per_sample = dr_grpo_advantages(scores, groups, valid)
    elif estimator == "rloo":
        per_sample = rloo_advantages(scores, groups, valid, singleton=rloo_singleton)
    elif estimator == "reinforce_pp":
        return reinforce_pp_advantages(scores, groups, response_mask, valid, out=out)
    else:
        raise ConfigError(
            f"unknown outcome estimator {estimator!r}; expected grpo, dr_grpo, rloo or "
            "reinforce_pp (ppo needs values: use gae_advantages)"
        )
    return to_tokens(per_sample, response_mask, valid, out=out)
