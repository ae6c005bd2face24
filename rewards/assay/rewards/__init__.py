"""The reward layer: verdicts to rewards, advantages and trainer-ready tensors; trainer adapters.

Public names are imported lazily (``torch`` loads on first use), so importing this package, or
its ``adapters`` subpackage, stays light. See docs/rewards.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.rewards.advantages import compute_advantages
    from assay.rewards.batch import RewardBatch, compute_rewards
    from assay.rewards.normalize import RewardNormalizer
    from assay.rewards.process import place_step_rewards
    from assay.rewards.rm import RewardModelScorer
    from assay.rewards.sampling import SamplerConfig, TaskSampler
    from assay.rewards.signals import PassRateTracker, zero_variance_mask
    from assay.rewards.spec import OverlongPenalty, RewardSpec, SpecSet

_EXPORTS: dict[str, str] = {
    "OverlongPenalty": "assay.rewards.spec",
    "PassRateTracker": "assay.rewards.signals",
    "RewardBatch": "assay.rewards.batch",
    "RewardModelScorer": "assay.rewards.rm",
    "RewardNormalizer": "assay.rewards.normalize",
    "RewardSpec": "assay.rewards.spec",
    "SamplerConfig": "assay.rewards.sampling",
    "SpecSet": "assay.rewards.spec",
    "TaskSampler": "assay.rewards.sampling",
    "compute_advantages": "assay.rewards.advantages",
    "compute_rewards": "assay.rewards.batch",
    "place_step_rewards": "assay.rewards.process",
    "zero_variance_mask": "assay.rewards.signals",
}

__all__ = [
    "OverlongPenalty",
    "PassRateTracker",
    "RewardBatch",
    "RewardModelScorer",
    "RewardNormalizer",
    "RewardSpec",
    "SamplerConfig",
    "SpecSet",
    "TaskSampler",
    "compute_advantages",
    "compute_rewards",
    "place_step_rewards",
    "zero_variance_mask",
]


__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS, __all__)
