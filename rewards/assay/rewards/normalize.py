"""Per-domain reward normalisation, so domains with different scales do not drown each other.

Modes (chosen per domain by :attr:`RewardSpec.normalize <assay.rewards.spec.RewardSpec>`):

- ``none``: rewards as they are;
- ``batch``: ``(r - mean) / (std + eps)`` over the domain's valid samples in this batch;
- ``group``: the same within each group of the domain;
- ``running``: ``(r - mean) / (std + eps)`` with mean and std kept across calls (Welford /
  Chan's parallel update, this batch included), saved and restored with
  :meth:`RewardNormalizer.state_dict` / :meth:`RewardNormalizer.load_state_dict`.

Masked samples are left out of every statistic and come back as 0. Stds are unbiased; as in
verl's GRPO, a batch or group with a single valid sample uses mean 0 and std 1 (the sample keeps
its value), and running statistics use std 1 until two values were seen.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch
from assay.rewards.segments import group_index, segment_stats
from assay.rewards.spec import NORMALIZATIONS, Normalization, SpecSet
from torch import Tensor

from assay.errors import ConfigError


@dataclass(slots=True)
class RunningStats:
    """Running count, mean and sum of squared deviations (Welford), mergeable by batches."""

    count: float = 0.0
    mean: float = 0.0
    m2: float = 0.0

    def update(self, values: Tensor) -> None:
        """Merge a batch of values (Chan et al.'s parallel variance update)."""
        n = float(values.numel())
        if n == 0:
            return
        batch = values.to(torch.float64)
        batch_mean = float(batch.mean())
        batch_m2 = float(((batch - batch_mean) ** 2).sum())
        total = self.count + n
        delta = batch_mean - self.mean
        self.mean += delta * n / total
        self.m2 += batch_m2 + delta * delta * self.count * n / total
        self.count = total

    @property
    def std(self) -> float:
        """Unbiased std; 1 while fewer than two values were seen."""
        return math.sqrt(self.m2 / (self.count - 1)) if self.count > 1 else 1.0


class RewardNormalizer:
    """Normalises rewards per domain; holds the running statistics of ``running`` domains.

    Args:
        modes: Domain to mode; domains not listed use ``default``.
        default: Mode for other domains.
        epsilon: Added to every std.

    Example:
        >>> norm = RewardNormalizer({"math": "batch"})
        >>> norm(torch.tensor([0.0, 1.0]), ["math", "math"]).tolist()
        [-0.7071..., 0.7071...]
    """

    def __init__(
        self,
        modes: Mapping[str, Normalization] | None = None,
        default: Normalization = "none",
        epsilon: float = 1e-6,
    ) -> None:
        for mode in (*(modes or {}).values(), default):
            if mode not in NORMALIZATIONS:
                raise ConfigError(f"unknown normalization {mode!r}; expected {NORMALIZATIONS}")
        self.modes = dict(modes or {})
        self.default = default
        self.epsilon = epsilon
        self.running: dict[str, RunningStats] = {}

    @classmethod
    def from_specs(cls, specs: SpecSet, epsilon: float = 1e-6) -> RewardNormalizer:
        """A normaliser with each spec's ``normalize`` mode (the default spec's for others)."""
        modes = {domain: spec.normalize for domain, spec in specs.specs.items()}
        return cls(modes, specs.default.normalize, epsilon)

    def mode(self, domain: str) -> Normalization:
        """The mode used for ``domain``."""
        return self.modes.get(domain, self.default)

    def __call__(
        self,
        scores: Tensor,
        domains: Sequence[str],
        groups: Tensor | None = None,
        valid: Tensor | None = None,
    ) -> Tensor:
        """Normalised rewards ``[B]``; masked samples are 0.

        Args:
            scores: Rewards ``[B]``.
            domains: Domain of each sample.
            groups: Group ids ``[B]`` (needed by ``group`` mode; default: one group each).
            valid: Samples taking part (default all).
        """
        is_valid = (
            torch.ones_like(scores, dtype=torch.bool) if valid is None else valid.to(torch.bool)
        )
        out = torch.where(is_valid, scores, torch.zeros_like(scores))
        domain_index = group_index(list(domains), scores.device) if domains else None
        names = list(dict.fromkeys(domains))
        for position, domain in enumerate(names):
            if domain_index is None:
                break
            selected = (domain_index == position) & is_valid
            out = self._normalize_domain(out, scores, domain, selected, groups)
        return out

    def _normalize_domain(
        self, out: Tensor, scores: Tensor, domain: str, selected: Tensor, groups: Tensor | None
    ) -> Tensor:
        mode = self.mode(domain)
        if mode == "none" or not bool(selected.any()):
            return out
        if mode == "running":
            stats = self.running.setdefault(domain, RunningStats())
            stats.update(scores[selected])
            value = (scores - stats.mean) / (stats.std + self.epsilon)
        else:
            if mode == "batch" or groups is None:
                index = torch.zeros_like(scores, dtype=torch.long)
            else:
                index = group_index(groups.to(scores.device))
            seg = segment_stats(scores, index, selected)
            single = seg.count <= 1
            mean = torch.where(single, torch.zeros_like(seg.mean), seg.mean).index_select(0, index)
            std = torch.where(single, torch.ones_like(seg.std), seg.std).index_select(0, index)
            value = (scores - mean) / (std + self.epsilon)
        return torch.where(selected, value, out)

    def state_dict(self) -> dict[str, dict[str, float]]:
        """Running statistics per domain, JSON-able."""
        return {d: {"count": s.count, "mean": s.mean, "m2": s.m2} for d, s in self.running.items()}

    def load_state_dict(self, state: Mapping[str, Mapping[str, float]]) -> None:
        """Restore running statistics saved by :meth:`state_dict`."""
        self.running = {
            d: RunningStats(float(s["count"]), float(s["mean"]), float(s["m2"]))
            for d, s in state.items()
        }
