"""Signals: zero-variance groups, pass-rate tracking, per-domain metrics."""

from __future__ import annotations

import json

import pytest
import torch
from assay.rewards.signals import PassRateTracker, domain_metrics, zero_variance_mask

from assay.errors import ConfigError
from assay.types import Status


@pytest.mark.parametrize(
    ("scores", "groups", "valid", "expected"),
    [
        # all solved and all failed groups are flat; a mixed group is not
        ([1, 1, 0, 0, 1, 0], [0, 0, 1, 1, 2, 2], None, [True, True, True, True, False, False]),
        # a masked sample does not count: the rest of its group is flat
        ([1, 0, 1], [0, 0, 0], [True, False, True], [True, True, True]),
        # a lone sample carries no group signal
        ([0.5], [4], None, [True]),
    ],
    ids=["solved-failed-mixed", "masked-ignored", "singleton"],
)
def test_zero_variance(
    scores: list[float], groups: list[int], valid: list[bool] | None, expected: list[bool]
) -> None:
    got = zero_variance_mask(
        torch.tensor(scores, dtype=torch.float32),
        torch.tensor(groups),
        None if valid is None else torch.tensor(valid),
    )
    assert got.tolist() == expected


def test_pass_rates_and_state() -> None:
    # counts accumulate over batches, masked attempts are skipped, state round-trips via JSON
    tracker = PassRateTracker()
    tracker.update(["q1", "q1", "q2"], [True, False, False])
    tracker.update(["q1", "q2"], [True, True], valid=[True, False])
    assert tracker.pass_rate("q1") == pytest.approx(2 / 3)
    assert tracker.pass_rate("q2") == 0.0
    assert tracker.pass_rate("unseen") is None
    restored = PassRateTracker()
    restored.load_state_dict(json.loads(json.dumps(tracker.state_dict())))
    assert restored.rates() == tracker.rates()


def test_pass_rate_decay() -> None:
    # with decay 0.5 the old batch (0/1) weighs half: (0.5 * 0 + 1) / (0.5 * 1 + 1) = 2/3
    tracker = PassRateTracker(decay=0.5)
    tracker.update(["q"], [False])
    tracker.update(["q"], [True])
    assert tracker.pass_rate("q") == pytest.approx(2 / 3)
    with pytest.raises(ConfigError):
        PassRateTracker(decay=1.5)


def test_domain_metrics() -> None:
    # mean/std over unmasked samples; status counts over all of the domain's samples
    metrics = domain_metrics(
        torch.tensor([1.0, 0.0, 0.0, 0.5]),
        ["math", "math", "math", "code"],
        [Status.CORRECT, Status.INCORRECT, Status.ERROR, Status.PARTIAL],
        torch.tensor([True, True, False, True]),
    )
    assert metrics["math/reward_mean"] == 0.5
    assert metrics["math/reward_std"] == pytest.approx(0.5**0.5)
    assert metrics["math/count/error"] == 1.0
    assert metrics["math/masked_fraction"] == pytest.approx(1 / 3)
    assert metrics["code/reward_std"] == 0.0
