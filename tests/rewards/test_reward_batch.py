"""compute_rewards: results in, one RewardBatch of tensors out."""

from __future__ import annotations

import pytest
import torch
from assay.rewards.advantages import grpo_advantages
from assay.rewards.batch import RewardBatch, compute_rewards, to_device
from assay.rewards.normalize import RewardNormalizer
from assay.rewards.spec import OverlongPenalty, RewardSpec, SpecSet

from assay.errors import ConfigError
from assay.types import Check, Result, StepResult, Verdict


def _result(index: int, verdict: Verdict, group: str | None, domain: str = "math") -> Result:
    return Result(f"r{index}", domain, verdict, "probe@1", 0.0, group=group)


def _mask(lengths: list[int], width: int = 6) -> torch.Tensor:
    return (torch.arange(width) < torch.tensor(lengths).unsqueeze(-1)).float()


RESULTS = [
    _result(0, Verdict.correct(), "p1"),
    _result(1, Verdict.incorrect(), "p1"),
    _result(2, Verdict.graded(0.5), "p1"),
    _result(3, Verdict.error("sandbox crashed"), "p1"),
    _result(4, Verdict.correct(), "p2"),
    _result(5, Verdict.correct(), "p2"),
    _result(6, Verdict.timeout("slow"), None),
]
LENGTHS = [3, 6, 2, 4, 5, 1, 2]


@pytest.mark.parametrize("estimator", ["grpo", "dr_grpo", "rloo", "reinforce_pp"], ids=str)
def test_shapes_and_masks(estimator: str) -> None:
    # every estimator: shapes, masked samples out of the loss and with zero advantage, nothing
    # outside the response mask
    batch = compute_rewards(RESULTS, _mask(LENGTHS), estimator=estimator)  # type: ignore[arg-type]
    assert isinstance(batch, RewardBatch)
    assert batch.scores.shape == (7,)
    assert batch.advantages.shape == batch.token_level_rewards.shape == (7, 6)
    assert batch.loss_mask.tolist() == [1, 1, 1, 0, 1, 1, 0]
    assert batch.advantages[[3, 6]].abs().sum() == 0
    assert (batch.advantages * (1 - batch.response_mask)).abs().sum() == 0
    assert torch.isfinite(batch.advantages).all()


def test_grpo_values_and_signals() -> None:
    # group p1 scores [1, 0, 0.5] (error left out), p2 [1, 1] is flat
    batch = compute_rewards(RESULTS, _mask(LENGTHS))
    expected = grpo_advantages(torch.tensor([1.0, 0.0, 0.5]), torch.zeros(3))
    torch.testing.assert_close(batch.advantages[:3, 0], expected)
    assert batch.advantages[4:6].abs().sum() == 0
    assert batch.zero_variance.tolist() == [False, False, False, False, True, True, True]
    assert batch.token_level_rewards[0].tolist() == [0, 0, 1, 0, 0, 0]
    assert batch.metrics["math/count/error"] == 1.0
    assert batch.metrics["batch/masked_fraction"] == pytest.approx(2 / 7)


def test_mixed_domains_with_specs() -> None:
    # code is scored by a weighted check and batch-normalised; math keeps raw 0/1 rewards
    results = [
        _result(0, Verdict.correct(), "m"),
        _result(1, Verdict.incorrect(), "m"),
        _result(2, Verdict.incorrect((Check("tests", False, 0.2),)), "c", "code"),
        _result(3, Verdict.correct((Check("tests", True, 0.6),)), "c", "code"),
    ]
    specs = SpecSet({"code": RewardSpec(weights={"tests": 1.0}, normalize="batch")})
    batch = compute_rewards(results, _mask([2, 2, 2, 2]), specs)
    torch.testing.assert_close(batch.raw_scores, torch.tensor([1.0, 0.0, 0.2, 0.6]))
    assert batch.scores[:2].tolist() == [1.0, 0.0]
    assert batch.scores[2:].tolist() == pytest.approx([-(0.5**0.5), 0.5**0.5], abs=1e-5)
    assert set(batch.metrics) >= {"math/reward_mean", "code/reward_mean"}


def test_overlong_truncation_and_running_normalizer() -> None:
    # the truncated response (6 of max 6) is masked; a running normaliser keeps state across calls
    specs = SpecSet(default=RewardSpec(overlong=OverlongPenalty(6, 2, mask_truncated=True)))
    results = [_result(0, Verdict.correct(), "g"), _result(1, Verdict.correct(), "g")]
    batch = compute_rewards(results, _mask([5, 6]), specs)
    assert batch.loss_mask.tolist() == [1.0, 0.0]
    assert batch.raw_scores.tolist() == [0.5, 0.0]
    norm = RewardNormalizer(default="running")
    compute_rewards(results, _mask([1, 1]), normalizer=norm)
    assert norm.state_dict()["math"]["count"] == 2.0


def test_process_kl_and_rm() -> None:
    # step rewards on step ends, KL per token, and a reward-model mix all land in the tensors
    steps = (StepResult(0, "s0", True, 1.0), StepResult(1, "s1", False, 0.0))
    results = [_result(0, Verdict(Verdict.correct().status, 1.0, steps=steps), None)]
    batch = compute_rewards(
        results,
        _mask([4]),
        estimator="dr_grpo",
        step_end_tokens=[[1, 3]],
        step_weight=0.5,
        kl=torch.full((1, 6), 0.1),
        kl_beta=1.0,
        rm_scores=torch.tensor([0.0]),
        rm_weight=0.5,
    )
    expected = torch.tensor([[-0.1, 0.4, -0.1, 0.4, 0.0, 0.0]])
    torch.testing.assert_close(batch.token_level_rewards, expected)


def test_ppo_gae() -> None:
    # ppo runs GAE over token rewards with the critic values; returns come back
    batch = compute_rewards(RESULTS, _mask(LENGTHS), estimator="ppo", values=torch.zeros(7, 6))
    assert batch.returns is not None
    assert batch.advantages[[3, 6]].abs().sum() == 0
    with pytest.raises(ConfigError, match="values"):
        compute_rewards(RESULTS, _mask(LENGTHS), estimator="ppo")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"estimator": "ppo2"}, "unknown estimator"),
        ({"response_mask": torch.ones(2, 3)}, "mask rows"),
    ],
    # a typo'd estimator; a mask with the wrong number of rows
    ids=["estimator", "rows"],
)
def test_bad_calls(kwargs: dict[str, object], match: str) -> None:
    call: dict[str, object] = {"response_mask": _mask(LENGTHS), **kwargs}
    with pytest.raises(ConfigError, match=match):
        compute_rewards(RESULTS, **call)  # type: ignore[arg-type]


def test_explicit_groups_and_device() -> None:
    # explicit integer groups override result.group; CPU to CPU is a no-op copy
    batch = compute_rewards(RESULTS[:3], _mask(LENGTHS[:3]), groups=torch.tensor([0, 1, 2]))
    assert batch.advantages.shape == (3, 6)
    tensor = torch.ones(2)
    assert to_device(tensor, torch.device("cpu")) is tensor
