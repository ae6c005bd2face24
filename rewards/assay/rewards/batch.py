"""Results in, one trainer-ready :class:`RewardBatch` of tensors out.

:func:`compute_rewards` ties the layer together:

1. each result's :class:`~assay.rewards.spec.RewardSpec` (by domain) gives a reward and a mask
   flag (masked statuses, truncated responses);
2. optional learned reward-model scores are mixed in (``rm_scores``, ``rm_weight``);
3. rewards are normalised per domain (:class:`~assay.rewards.normalize.RewardNormalizer`);
4. token-level rewards: the reward on the last response token, plus placed step rewards, minus
   ``kl_beta * kl``;
5. advantages: group estimators (GRPO, Dr. GRPO, RLOO, REINFORCE++) use the per-sample sum of
   token-level rewards, as verl does; ``ppo`` runs GAE over the token-level rewards and
   ``values``.

Per-sample scalars are computed on the CPU from the Python results, then copied once to
``device`` (pinned memory, ``non_blocking=True`` on CUDA); the ``[B, T]`` work runs on
``device``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import torch
from assay.rewards.advantages import (
    ESTIMATORS,
    Estimator,
    RlooSingleton,
    compute_advantages,
    gae_advantages,
    ppo_token_rewards,
)
from assay.rewards.normalize import RewardNormalizer
from assay.rewards.process import place_step_rewards, step_scores
from assay.rewards.rm import mix_scores
from assay.rewards.segments import group_index
from assay.rewards.signals import domain_metrics, zero_variance_mask
from assay.rewards.spec import SpecSet
from torch import Tensor

from assay.errors import ConfigError
from assay.types import Result


@dataclass(frozen=True, slots=True)
class RewardBatch:
    """Everything a trainer step needs from the reward layer, as tensors on one device.

    Attributes:
        scores: Final per-sample rewards ``[B]`` (after normalisation; 0 where masked).
        raw_scores: Per-sample rewards ``[B]`` from the specs, before normalisation.
        token_level_rewards: ``[B, T]`` rewards on tokens (outcome on the last response token,
            step rewards on step ends, minus the KL term).
        advantages: ``[B, T]`` advantages, 0 outside the response and for masked samples.
        response_mask: ``[B, T]`` response tokens, as given (float).
        loss_mask: ``[B]`` 1.0 for samples in the loss, 0.0 for masked ones.
        zero_variance: ``[B]`` bool, the sample's group has no reward spread (DAPO drops it).
        returns: ``[B, T]`` returns for the critic (``ppo`` only), else ``None``.
        metrics: Flat per-domain metrics (``"<domain>/reward_mean"``...) and batch metrics.
    """

    scores: Tensor
    raw_scores: Tensor
    token_level_rewards: Tensor
    advantages: Tensor
    response_mask: Tensor
    loss_mask: Tensor
    zero_variance: Tensor
    returns: Tensor | None = None
    metrics: dict[str, float] = field(default_factory=dict)


def to_device(tensor: Tensor, device: torch.device) -> Tensor:
    """Copy a CPU tensor to ``device``; pinned and ``non_blocking`` when it is CUDA."""
    if tensor.device == device:
        return tensor
    if device.type == "cuda" and tensor.device.type == "cpu":
        return tensor.pin_memory().to(device, non_blocking=True)
    return tensor.to(device)


def spec_rewards(
    results: Sequence[Result], lengths: Sequence[int], specs: SpecSet
) -> tuple[list[float], list[bool]]:
    """Per-sample reward and mask flag from each result's domain spec."""
    rewards: list[float] = []
    masked: list[bool] = []
    for result, length in zip(results, lengths, strict=True):
        sample = specs[result.domain].reward(result.verdict, length)
        rewards.append(sample.reward)
        masked.append(sample.masked)
    return rewards, masked


def compute_rewards(
    results: Sequence[Result],
    response_mask: Tensor,
    specs: SpecSet | None = None,
    estimator: Estimator = "grpo",
    *,
    groups: Sequence[Hashable] | Tensor | None = None,
    device: torch.device | str | None = None,
    normalizer: RewardNormalizer | None = None,
    norm_by_std: bool = True,
    epsilon: float = 1e-6,
    rloo_singleton: RlooSingleton = "zero",
    kl: Tensor | None = None,
    kl_beta: float = 0.0,
    step_end_tokens: Sequence[Sequence[int]] | None = None,
    step_weight: float = 1.0,
    rm_scores: Tensor | None = None,
    rm_weight: float = 0.0,
    values: Tensor | None = None,
    gamma: float = 1.0,
    lam: float = 1.0,
) -> RewardBatch:
    """Turn verifier results into a :class:`RewardBatch`.

    Args:
        results: One result per response, in batch order.
        response_mask: ``[B, T]`` 1 on response tokens.
        specs: Reward specs per domain (default: the default spec for all).
        estimator: ``grpo``, ``dr_grpo``, ``rloo``, ``reinforce_pp`` or ``ppo``.
        groups: Group id per sample (default: each result's ``group``; ``None`` is a singleton).
        device: Where the tensors go (default: ``response_mask``'s device).
        normalizer: Keeps running statistics across calls; default: one built from ``specs``.
        norm_by_std: GRPO std scaling.
        epsilon: GRPO std epsilon.
        rloo_singleton: RLOO on a group of one valid sample: ``"zero"`` (advantage 0) or
            ``"score"`` (its score, as verl).
        kl: Per-token KL estimate ``[B, T]`` subtracted from token rewards times ``kl_beta``.
        kl_beta: KL coefficient.
        step_end_tokens: Per sample, the token where each verdict step ends; step scores times
            ``step_weight`` are placed there (process rewards).
        step_weight: Weight of the step rewards.
        rm_scores: Learned reward-model scores ``[B]`` to mix in.
        rm_weight: Mix weight: ``(1 - w) * verifier + w * rm``.
        values: Critic values ``[B, T]`` (``ppo`` only).
        gamma: GAE discount (``ppo``).
        lam: GAE lambda (``ppo``).
    """
    if estimator not in ESTIMATORS:
        raise ConfigError(f"unknown estimator {estimator!r}; expected one of {ESTIMATORS}")
    if estimator == "ppo" and values is None:
        raise ConfigError("estimator 'ppo' needs critic values [B, T]")
    if len(results) != response_mask.shape[0]:
        raise ConfigError(f"{len(results)} results for {response_mask.shape[0]} mask rows")
    specs = specs or SpecSet()
    target = torch.device(device) if device is not None else response_mask.device
    mask = to_device(response_mask, target).to(torch.float32)
    lengths = response_mask.sum(-1).tolist()
    raw, masked = spec_rewards(results, [int(n) for n in lengths], specs)
    raw_scores = to_device(torch.tensor(raw, dtype=torch.float32), target)
    valid = to_device(torch.tensor([not m for m in masked]), target)
    if groups is None:
        groups = [r.group for r in results]
    if isinstance(groups, Tensor):
        index = group_index(groups.to(target))
    else:
        index = to_device(group_index(groups), target)

    mixed = raw_scores
    if rm_scores is not None and rm_weight:
        mixed = mix_scores(raw_scores, rm_scores, rm_weight)
    domains = [r.domain for r in results]
    normalizer = normalizer or RewardNormalizer.from_specs(specs)
    scores = normalizer(mixed, domains, index, valid)

    token_rewards = ppo_token_rewards(scores, mask, kl, kl_beta)
    if step_end_tokens is not None:
        steps = [[step_weight * s for s in step_scores(r.verdict.steps)] for r in results]
        token_rewards = token_rewards + place_step_rewards(steps, step_end_tokens, mask)
    token_rewards = torch.where(valid.unsqueeze(-1), token_rewards, torch.zeros_like(token_rewards))

    returns: Tensor | None = None
    if estimator == "ppo" and values is not None:
        in_loss = mask * valid.unsqueeze(-1)
        advantages, returns = gae_advantages(token_rewards, values.to(mask), in_loss, gamma, lam)
    else:
        only_outcome = (kl is None or not kl_beta) and step_end_tokens is None
        outcome = scores * valid if only_outcome else token_rewards.sum(-1)
        advantages = compute_advantages(
            estimator,
            outcome,
            index,
            mask,
            valid,
            norm_by_std=norm_by_std,
            epsilon=epsilon,
            rloo_singleton=rloo_singleton,
        )
    zero_variance = zero_variance_mask(scores, index, valid)
    metrics = _metrics(results, scores, valid, zero_variance)
    return RewardBatch(
        scores=scores,
        raw_scores=raw_scores,
        token_level_rewards=token_rewards,
        advantages=advantages,
        response_mask=mask,
        loss_mask=valid.to(torch.float32),
        zero_variance=zero_variance,
        returns=returns,
        metrics=metrics,
    )


def _metrics(
    results: Sequence[Result], scores: Tensor, valid: Tensor, zero_variance: Tensor
) -> dict[str, float]:
    domains = [r.domain for r in results]
    metrics = domain_metrics(scores, domains, [r.status for r in results], valid)
    empty = not results
    metrics["batch/masked_fraction"] = 0.0 if empty else float((~valid).float().mean())
    metrics["batch/zero_variance_fraction"] = 0.0 if empty else float(zero_variance.float().mean())
    return metrics
