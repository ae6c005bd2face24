"""Training signals beside the reward: zero-variance groups, pass rates, per-domain metrics.

- :func:`zero_variance_mask`: samples whose group's valid rewards are all equal (all solved or
  all failed). Their GRPO advantage is 0; DAPO's dynamic sampling drops such groups.
- :class:`PassRateTracker`: running pass rate per task (prompt or group id) that a curriculum
  sampler can read; saved and restored with ``state_dict`` / ``load_state_dict``.
- :func:`domain_metrics`: reward mean/std and status counts per domain, as a flat dict for a
  logger.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import torch
from assay.rewards.segments import group_index, segment_stats
from torch import Tensor

from assay.errors import ConfigError
from assay.types import Status


def zero_variance_mask(
    scores: Tensor, groups: Tensor, valid: Tensor | None = None, atol: float = 1e-8
) -> Tensor:
    """Bool ``[B]``: the sample's group has a spread of at most ``atol`` among valid samples.

    Groups with fewer than two valid samples count as zero-variance (no learning signal).
    """
    is_valid = torch.ones_like(scores, dtype=torch.bool) if valid is None else valid.to(torch.bool)
    index = group_index(groups, scores.device)
    num_groups = int(index.max().item()) + 1 if index.numel() else 0
    high = torch.full((num_groups,), -torch.inf, dtype=scores.dtype, device=scores.device)
    low = torch.full((num_groups,), torch.inf, dtype=scores.dtype, device=scores.device)
    high = high.scatter_reduce(0, index[is_valid], scores[is_valid], reduce="amax")
    low = low.scatter_reduce(0, index[is_valid], scores[is_valid], reduce="amin")
    count = segment_stats(scores, index, is_valid).count
    flat = (count < 2) | ((high - low) <= atol)
    return flat.index_select(0, index)


@dataclass(slots=True)
class _TaskCounts:
    attempts: float = 0.0
    solved: float = 0.0


class PassRateTracker:
    """Running pass rate per task id, for curriculum samplers.

    Args:
        decay: ``None`` keeps plain counts; a value in (0, 1) makes the counts an exponential
            moving average (older batches weigh ``decay`` per update).

    Example:
        >>> tracker = PassRateTracker()
        >>> tracker.update(["q1", "q1", "q2"], [True, False, False])
        >>> tracker.pass_rate("q1")
        0.5
    """

    def __init__(self, decay: float | None = None) -> None:
        if decay is not None and not 0.0 < decay < 1.0:
            raise ConfigError(f"decay must be in (0, 1), got {decay}")
        self.decay = decay
        self._counts: dict[Hashable, _TaskCounts] = {}

    def update(
        self,
        tasks: Sequence[Hashable],
        solved: Sequence[bool],
        valid: Sequence[bool] | None = None,
    ) -> None:
        """Record one batch of attempts; invalid (masked) attempts are not counted."""
        batch: dict[Hashable, _TaskCounts] = {}
        flags = [True] * len(tasks) if valid is None else list(valid)
        for task, ok, is_valid in zip(tasks, solved, flags, strict=True):
            if is_valid:
                counts = batch.setdefault(task, _TaskCounts())
                counts.attempts += 1
                counts.solved += float(ok)
        for task, counts in batch.items():
            current = self._counts.setdefault(task, _TaskCounts())
            keep = 1.0 if self.decay is None else self.decay
            current.attempts = keep * current.attempts + counts.attempts
            current.solved = keep * current.solved + counts.solved

    def pass_rate(self, task: Hashable) -> float | None:
        """Pass rate of ``task``, or ``None`` if it was never attempted."""
        counts = self._counts.get(task)
        if counts is None or counts.attempts == 0:
            return None
        return counts.solved / counts.attempts

    def rates(self) -> dict[Hashable, float]:
        """Pass rate of every attempted task."""
        return {t: c.solved / c.attempts for t, c in self._counts.items() if c.attempts}

    def state_dict(self) -> dict[str, dict[str, float]]:
        """Counts per task (task ids as strings), JSON-able."""
        return {
            str(t): {"attempts": c.attempts, "solved": c.solved} for t, c in self._counts.items()
        }

    def load_state_dict(self, state: Mapping[str, Mapping[str, float]]) -> None:
        """Restore counts saved by :meth:`state_dict` (task ids come back as strings)."""
        self._counts = {
            t: _TaskCounts(float(c["attempts"]), float(c["solved"])) for t, c in state.items()
        }


def domain_metrics(
    rewards: Tensor, domains: Sequence[str], statuses: Sequence[Status], valid: Tensor
) -> dict[str, float]:
    """Per-domain metrics ``{"<domain>/reward_mean": ..., "<domain>/count/<status>": ...}``.

    Reward mean and std (unbiased, 0 below two samples) are over valid samples; status counts
    cover all samples, and ``<domain>/masked_fraction`` the share that was masked.
    """
    metrics: dict[str, float] = {}
    values = rewards.detach().to("cpu", torch.float64)
    keep = valid.detach().to("cpu", torch.bool)
    for domain in dict.fromkeys(domains):
        rows = torch.tensor([d == domain for d in domains])
        selected = values[rows & keep]
        count = selected.numel()
        metrics[f"{domain}/reward_mean"] = float(selected.mean()) if count else 0.0
        metrics[f"{domain}/reward_std"] = float(selected.std()) if count > 1 else 0.0
        metrics[f"{domain}/masked_fraction"] = 1.0 - count / int(rows.sum())
        tally = Counter(s for s, d in zip(statuses, domains, strict=True) if d == domain)
        for status in Status:
            metrics[f"{domain}/count/{status.value}"] = float(tally.get(status, 0))
    return metrics
