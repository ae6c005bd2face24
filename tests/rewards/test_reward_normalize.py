"""Per-domain normalisation: none, batch, group, running (with state save/restore)."""

from __future__ import annotations

import pytest
import torch
from assay.rewards.normalize import RewardNormalizer, RunningStats
from assay.rewards.spec import RewardSpec, SpecSet

from assay.errors import ConfigError

SQRT_HALF = 0.5**0.5


@pytest.mark.parametrize(
    ("modes", "expected"),
    [
        # none: untouched
        ({}, [1.0, 0.0, 10.0, 20.0]),
        # batch per domain: math [1, 0] and code [10, 20] both become +-0.7071 (mixed scales
        # land on one scale)
        ({"math": "batch", "code": "batch"}, [SQRT_HALF, -SQRT_HALF, -SQRT_HALF, SQRT_HALF]),
        # only code normalised; math keeps its scale
        ({"code": "batch"}, [1.0, 0.0, -SQRT_HALF, SQRT_HALF]),
    ],
    ids=["none", "batch-both", "batch-one"],
)
def test_batch_modes(modes: dict[str, str], expected: list[float]) -> None:
    norm = RewardNormalizer(modes, epsilon=0.0)  # type: ignore[arg-type]
    got = norm(torch.tensor([1.0, 0.0, 10.0, 20.0]), ["math", "math", "code", "code"])
    assert got.tolist() == pytest.approx(expected, abs=1e-6)


def test_group_mode_and_mask() -> None:
    # groups normalise separately; the masked sample is left out and comes back 0; a
    # singleton group keeps its value (mean 0, std 1)
    norm = RewardNormalizer(default="group", epsilon=0.0)
    scores = torch.tensor([1.0, 0.0, 99.0, 4.0, 6.0, 0.3])
    groups = torch.tensor([0, 0, 0, 1, 1, 2])
    valid = torch.tensor([True, True, False, True, True, True])
    got = norm(scores, ["d"] * 6, groups, valid)
    expected = [SQRT_HALF, -SQRT_HALF, 0.0, -SQRT_HALF, SQRT_HALF, 0.3]
    assert got.tolist() == pytest.approx(expected, abs=1e-6)


def test_running_matches_all_data_and_restores() -> None:
    # running stats over two calls equal stats over all values seen; a restored normaliser
    # continues where the saved one stopped
    first, second = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([10.0, 0.0])
    norm = RewardNormalizer({"math": "running"}, epsilon=0.0)
    norm(first, ["math"] * 3)
    got = norm(second, ["math"] * 2)
    seen = torch.cat([first, second]).double()
    expected = (second.double() - seen.mean()) / seen.std()
    assert got.tolist() == pytest.approx(expected.tolist(), abs=1e-6)

    restored = RewardNormalizer({"math": "running"}, epsilon=0.0)
    restored.load_state_dict(norm.state_dict())
    again = torch.tensor([5.0])
    assert restored(again, ["math"]).tolist() == pytest.approx(norm(again, ["math"]).tolist())


def test_running_stats_welford() -> None:
    # batch-merged Welford equals the two-pass statistics
    stats = RunningStats()
    values = torch.randn(100, generator=torch.Generator().manual_seed(0))
    for chunk in values.split(7):
        stats.update(chunk)
    assert stats.mean == pytest.approx(float(values.double().mean()))
    assert stats.std == pytest.approx(float(values.double().std()))
    assert RunningStats().std == 1.0


def test_from_specs_and_unknown_mode() -> None:
    # modes come from the specs; an unknown mode is refused
    specs = SpecSet({"math": RewardSpec(normalize="running")}, RewardSpec(normalize="batch"))
    norm = RewardNormalizer.from_specs(specs)
    assert (norm.mode("math"), norm.mode("code")) == ("running", "batch")
    with pytest.raises(ConfigError):
        RewardNormalizer({"math": "zscore"})  # type: ignore[dict-item]
