"""Advantage estimators: hand-computed values, verl-style per-group reference loops, and verl's own
estimators (verl.trainer.ppo.core_algos) on the same batches."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

import numpy as np
import pytest
import torch
from assay.rewards.advantages import (
    compute_advantages,
    dr_grpo_advantages,
    gae_advantages,
    grpo_advantages,
    outcome_token_rewards,
    ppo_token_rewards,
    reinforce_pp_advantages,
    rloo_advantages,
)
from assay.rewards.segments import group_index, segment_stats
from torch import Tensor
from verl.trainer.ppo import core_algos

from assay.errors import ConfigError

# --- references written the way verl's core_algos writes them: a Python loop per group -------


def reference_grpo(
    scores: Tensor, groups: list[int], norm_by_std: bool = True, epsilon: float = 1e-6
) -> Tensor:
    id2score: dict[int, list[Tensor]] = defaultdict(list)
    id2mean: dict[int, Tensor] = {}
    id2std: dict[int, Tensor] = {}
    out = scores.clone()
    for i in range(len(groups)):
        id2score[groups[i]].append(scores[i])
    for idx, values in id2score.items():
        if len(values) == 1:
            id2mean[idx], id2std[idx] = torch.tensor(0.0), torch.tensor(1.0)
        else:
            id2mean[idx] = torch.mean(torch.stack(values))
            id2std[idx] = torch.std(torch.stack(values))
    for i in range(len(groups)):
        if norm_by_std:
            out[i] = (scores[i] - id2mean[groups[i]]) / (id2std[groups[i]] + epsilon)
        else:
            out[i] = scores[i] - id2mean[groups[i]]
    return out


def reference_rloo(scores: Tensor, groups: list[int]) -> Tensor:
    id2score: dict[int, list[Tensor]] = defaultdict(list)
    out = scores.clone()
    for i in range(len(groups)):
        id2score[groups[i]].append(scores[i])
    for i in range(len(groups)):
        n = len(id2score[groups[i]])
        if n > 1:
            mean = torch.mean(torch.stack(id2score[groups[i]]))
            out[i] = scores[i] * n / (n - 1) - mean * n / (n - 1)
        else:
            out[i] = 0.0
    return out


def verl_advantages(
    estimator: Callable[..., tuple[Tensor, Tensor]], scores: Tensor, groups: Tensor, mask: Tensor
) -> Tensor:
    """verl's own outcome estimator on the batch: the score on each response's last token, the
    group ids as the numpy array of uids verl's trainer passes."""
    rewards = torch.zeros_like(mask)
    last = mask.sum(-1).long() - 1
    rewards[torch.arange(len(scores)), last] = scores
    advantages, _ = estimator(rewards, mask, np.array(groups.tolist()))
    return advantages


# --- hand-computed values ---------------------------------------------------------------------

HAND_CASES = [
    # one group [1, 0]: mean 0.5, unbiased std 0.7071 -> +-0.5 / (0.7071 + eps)
    ("grpo", [1.0, 0.0], [0, 0], [0.5 / (0.5**0.5 + 1e-6), -0.5 / (0.5**0.5 + 1e-6)]),
    # a singleton keeps its score (mean 0, std 1 as in verl)
    ("grpo", [0.7, 1.0, 0.0], [5, 9, 9], [0.7 / (1 + 1e-6), 0.70710, -0.70710]),
    # all-solved group: zero variance, zero advantage
    ("grpo", [1.0, 1.0, 1.0], [1, 1, 1], [0.0, 0.0, 0.0]),
    # Dr. GRPO: centred only, [1, 0, 0, 1] -> +-0.5
    ("dr_grpo", [1.0, 0.0, 0.0, 1.0], [0, 0, 0, 0], [0.5, -0.5, -0.5, 0.5]),
    # RLOO [1, 0, 0]: 1 - 0 = 1, 0 - 0.5 = -0.5 twice
    ("rloo", [1.0, 0.0, 0.0], [3, 3, 3], [1.0, -0.5, -0.5]),
    # RLOO singleton gets 0
    ("rloo", [1.0, 0.4, 0.0], [1, 2, 2], [0.0, 0.4, -0.4]),
]


@pytest.mark.parametrize(
    ("estimator", "scores", "groups", "expected"),
    HAND_CASES,
    ids=["grpo-pair", "grpo-singleton", "grpo-flat", "dr-grpo", "rloo-three", "rloo-singleton"],
)
def test_hand_computed(
    estimator: str, scores: list[float], groups: list[int], expected: list[float]
) -> None:
    fn = {"grpo": grpo_advantages, "dr_grpo": dr_grpo_advantages, "rloo": rloo_advantages}
    got = fn[estimator](torch.tensor(scores), torch.tensor(groups))
    assert got.tolist() == pytest.approx(expected, abs=1e-5)


def test_reinforce_pp_hand_computed() -> None:
    # group [1, 0] -> centred [0.5, -0.5]; both have 2 tokens: token mean 0, unbiased token
    # variance 4 * 0.25 / 3 = 1/3 -> whitened +-0.5 * sqrt(3)
    mask = torch.ones(2, 2)
    got = reinforce_pp_advantages(torch.tensor([1.0, 0.0]), torch.tensor([0, 0]), mask)
    expected = 0.5 * 3**0.5
    torch.testing.assert_close(got, torch.tensor([[expected] * 2, [-expected] * 2]))


# --- against the reference loops on random batches --------------------------------------------


def _random_batch(seed: int, size: int = 96, num_groups: int = 11, length: int = 7) -> tuple:
    generator = torch.Generator().manual_seed(seed)
    scores = torch.rand(size, generator=generator)
    scores[scores < 0.3] = 0.0  # ties, like binary rewards
    groups = torch.randint(0, num_groups, (size,), generator=generator) * 7 + 100
    lengths = torch.randint(1, length + 1, (size,), generator=generator)
    mask = (torch.arange(length) < lengths.unsqueeze(-1)).float()
    return scores, groups, mask


@pytest.mark.parametrize("seed", [0, 1, 2], ids=["seed0", "seed1", "seed2"])
@pytest.mark.parametrize("norm_by_std", [True, False], ids=["std", "no-std"])
def test_grpo_matches_reference(seed: int, norm_by_std: bool) -> None:
    # random group sizes include singletons and ties; ids are sparse, not 0..G-1
    scores, groups, mask = _random_batch(seed)
    got = compute_advantages("grpo", scores, groups, mask, norm_by_std=norm_by_std)
    expected = reference_grpo(scores, groups.tolist(), norm_by_std).unsqueeze(-1) * mask
    torch.testing.assert_close(got, expected, atol=1e-6, rtol=0)


@pytest.mark.parametrize("seed", [0, 1, 2], ids=["seed0", "seed1", "seed2"])
def test_rloo_matches_reference(seed: int) -> None:
    # leave-one-out baseline, same groups as the GRPO check
    scores, groups, mask = _random_batch(seed)
    got = compute_advantages("rloo", scores, groups, mask)
    expected = reference_rloo(scores, groups.tolist()).unsqueeze(-1) * mask
    torch.testing.assert_close(got, expected, atol=1e-6, rtol=0)


@pytest.mark.parametrize("seed", [0, 1, 2], ids=["seed0", "seed1", "seed2"])
def test_reinforce_pp_matches_verl(seed: int) -> None:
    # length-weighted whitening equals verl's REINFORCE++-baseline (group mean subtracted, then
    # verl_F.masked_whiten over the batch's tokens)
    scores, groups, mask = _random_batch(seed)
    got = compute_advantages("reinforce_pp", scores, groups, mask)
    expected = verl_advantages(
        core_algos.compute_reinforce_plus_plus_baseline_outcome_advantage, scores, groups, mask
    )
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-5)


VERL_ESTIMATORS = [
    ("grpo", core_algos.compute_grpo_outcome_advantage),
    ("rloo", core_algos.compute_rloo_outcome_advantage),
]


@pytest.mark.parametrize("seed", [0, 1, 2], ids=["seed0", "seed1", "seed2"])
@pytest.mark.parametrize(
    ("name", "estimator"), VERL_ESTIMATORS, ids=[n for n, _ in VERL_ESTIMATORS]
)
def test_group_estimators_match_verl(
    seed: int, name: str, estimator: Callable[..., tuple[Tensor, Tensor]]
) -> None:
    scores, groups, mask = _random_batch(seed)
    got = compute_advantages(name, scores, groups, mask)
    torch.testing.assert_close(
        got, verl_advantages(estimator, scores, groups, mask), atol=1e-6, rtol=0
    )


# --- masking ----------------------------------------------------------------------------------


@pytest.mark.parametrize("estimator", ["grpo", "dr_grpo", "rloo", "reinforce_pp"], ids=str)
def test_masked_samples_do_not_count(estimator: str) -> None:
    # a masked sample (error/timeout) gets 0 and the others equal a batch without it
    scores, groups, mask = _random_batch(7, size=40)
    valid = torch.ones(40, dtype=torch.bool)
    valid[[3, 17, 18]] = False
    scores_with_junk = scores.clone()
    scores_with_junk[~valid] = 123.0
    got = compute_advantages(estimator, scores_with_junk, groups, mask, valid)
    assert got[~valid].abs().sum() == 0
    kept = compute_advantages(estimator, scores[valid], groups[valid], mask[valid])
    torch.testing.assert_close(got[valid], kept, atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("estimator", ["grpo", "dr_grpo", "rloo", "reinforce_pp"], ids=str)
def test_out_buffer_reused(estimator: str) -> None:
    # writing into a caller-owned buffer gives the same values, in that buffer, and a stale
    # buffer's old contents (ones, where the mask is 0) do not survive
    scores, groups, mask = _random_batch(11, size=32)
    expected = compute_advantages(estimator, scores, groups, mask)
    buffer = torch.ones_like(mask)
    got = compute_advantages(estimator, scores, groups, mask, out=buffer)
    assert got.data_ptr() == buffer.data_ptr()
    torch.testing.assert_close(got, expected, atol=0, rtol=0)


def test_out_buffer_of_wrong_shape() -> None:
    scores, groups, mask = _random_batch(3, size=8)
    with pytest.raises(ConfigError, match="out must be"):
        compute_advantages("grpo", scores, groups, mask, out=torch.empty(8, 3))


def test_group_of_only_masked_samples() -> None:
    # a group whose every member is masked yields zeros, not NaN
    got = grpo_advantages(
        torch.tensor([1.0, 0.0, 1.0]), torch.tensor([0, 0, 1]), torch.tensor([False, False, True])
    )
    assert got.tolist() == pytest.approx([0.0, 0.0, 1.0 / (1 + 1e-6)])


def test_unknown_estimator() -> None:
    # ppo needs critic values, so it is not an outcome estimator here
    with pytest.raises(ConfigError, match="gae_advantages"):
        compute_advantages("ppo", torch.zeros(2), torch.zeros(2), torch.ones(2, 2))


# --- token-level rewards and GAE --------------------------------------------------------------


def test_outcome_on_last_token_and_kl() -> None:
    # the score sits on the last response token; KL is subtracted on every response token
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    scores = torch.tensor([2.0, 3.0, 4.0])
    assert outcome_token_rewards(scores, mask).tolist() == [[0, 2, 0], [0, 0, 3], [0, 0, 0]]
    kl = torch.full((3, 3), 0.5)
    got = ppo_token_rewards(scores, mask, kl, beta=0.1)
    expected = torch.tensor([[-0.05, 1.95, 0], [-0.05, -0.05, 2.95], [0, 0, 0]])
    torch.testing.assert_close(got, expected)


def test_gae_matches_hand_values() -> None:
    # gamma = lam = 1, zero values: raw advantages are returns-to-go [1, 1] and [0, 0],
    # whitened over the 4 tokens: mean 0.5, unbiased var 1/3
    rewards = torch.tensor([[0.0, 1.0], [0.0, 0.0]])
    advantages, returns = gae_advantages(rewards, torch.zeros(2, 2), torch.ones(2, 2))
    assert returns.tolist() == [[1.0, 1.0], [0.0, 0.0]]
    whitened = 0.5 * 3**0.5
    torch.testing.assert_close(advantages, torch.tensor([[whitened] * 2, [-whitened] * 2]))


def test_segment_stats_match_torch() -> None:
    # unbiased std per group equals torch.std on that group
    values = torch.tensor([1.0, 2.0, 4.0, 10.0, 3.0])
    index = group_index(torch.tensor([9, 9, 9, 2, 2]))
    stats = segment_stats(values, index)
    assert stats.count.tolist() == [2.0, 3.0]
    torch.testing.assert_close(stats.std, torch.stack([values[3:].std(), values[:3].std()]))


def test_group_index_from_strings() -> None:
    # string ids map to dense indices; None is a singleton group each time
    assert group_index(["a", "b", None, "a", None]).tolist() == [0, 1, 2, 0, 3]


# --- against verl where a response has masked tokens inside it, and RLOO groups of one --------


def _multi_turn_batch(seed: int, size: int = 24, length: int = 16) -> tuple[Tensor, ...]:
    """Responses with tool observations inside them: runs of mask 0 between model turns."""
    generator = torch.Generator().manual_seed(seed)
    mask = torch.ones(size, length)
    for i in range(size):
        start = int(torch.randint(1, length - 4, (1,), generator=generator))
        width = int(torch.randint(1, 4, (1,), generator=generator))
        mask[i, start : start + width] = 0.0  # an observation the model did not write
        end = int(torch.randint(length - 3, length + 1, (1,), generator=generator))
        mask[i, end:] = 0.0  # padding
    rewards = torch.zeros(size, length)
    last = (torch.arange(length) * mask).amax(-1).long()
    rewards[torch.arange(size), last] = torch.rand(size, generator=generator)
    rewards += 0.01 * torch.randn(size, length, generator=generator) * mask  # per-token KL terms
    values = torch.randn(size, length, generator=generator)
    return rewards, values, mask


@pytest.mark.parametrize(
    ("seed", "gamma", "lam"),
    [(0, 1.0, 1.0), (1, 0.99, 0.95), (2, 0.9, 0.5)],
    ids=["g1-l1", "g.99-l.95", "g.9-l.5"],
)
def test_gae_matches_verl_across_masked_tokens(seed: int, gamma: float, lam: float) -> None:
    # values and TD errors of observation tokens are skipped and the recursion carried over
    # them, as verl's compute_gae_advantage_return does
    rewards, values, mask = _multi_turn_batch(seed)
    got_adv, got_ret = gae_advantages(rewards, values, mask, gamma, lam)
    verl_adv, verl_ret = core_algos.compute_gae_advantage_return(
        rewards, values, mask, torch.tensor(gamma), torch.tensor(lam)
    )
    torch.testing.assert_close(got_adv, verl_adv * mask, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(got_ret, verl_ret * mask, atol=1e-5, rtol=1e-5)


def test_gae_observation_values_do_not_leak() -> None:
    # the critic's values on observation tokens (any value at all) change nothing
    rewards, values, mask = _multi_turn_batch(5)
    noisy = values.clone()
    noisy[mask == 0] = 1e3
    first, _ = gae_advantages(rewards, values, mask, 0.99, 0.95)
    second, _ = gae_advantages(rewards, noisy, mask, 0.99, 0.95)
    torch.testing.assert_close(first, second)


SINGLETON_BATCH = (
    torch.tensor([1.0, 0.4, 0.0, 0.7, 0.0]),
    torch.tensor([1, 2, 2, 3, 4]),  # groups 1, 3 and 4 have one sample each
)


def test_rloo_singleton_score_matches_verl() -> None:
    scores, groups = SINGLETON_BATCH
    mask = torch.ones(len(scores), 3)
    got = compute_advantages("rloo", scores, groups, mask, rloo_singleton="score")
    expected = verl_advantages(core_algos.compute_rloo_outcome_advantage, scores, groups, mask)
    torch.testing.assert_close(got, expected, atol=1e-6, rtol=0)
    assert got[:, 0].tolist() == pytest.approx([1.0, 0.4, -0.4, 0.7, 0.0])


def test_rloo_singleton_zero_is_the_documented_default() -> None:
    # the deliberate difference from verl: no leave-one-out baseline, no update
    scores, groups = SINGLETON_BATCH
    got = rloo_advantages(scores, groups)
    assert got.tolist() == pytest.approx([0.0, 0.4, -0.4, 0.0, 0.0])
    verl = verl_advantages(
        core_algos.compute_rloo_outcome_advantage, scores, groups, torch.ones(5, 1)
    )
    assert not torch.allclose(got, verl[:, 0])
    with pytest.raises(ConfigError, match="singleton"):
        rloo_advantages(scores, groups, singleton="verl")  # type: ignore[arg-type]


def test_rloo_group_shrunk_to_one_by_masking() -> None:
    # a group of two whose other sample is masked is a group of one
    scores, groups = torch.tensor([1.0, 0.0]), torch.tensor([7, 7])
    valid = torch.tensor([True, False])
    assert rloo_advantages(scores, groups, valid).tolist() == [0.0, 0.0]
    assert rloo_advantages(scores, groups, valid, singleton="score").tolist() == [1.0, 0.0]


@pytest.mark.parametrize("poison", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize("estimator", ["grpo", "dr_grpo", "rloo", "reinforce_pp"])
def test_a_masked_samples_nan_score_stays_out_of_every_statistic(
    estimator: str, poison: float
) -> None:
    # NaN is what assay gives a masked sample (datasets' assay_score, TRL's None): passed with
    # valid=False, it was multiplied by 0 (still NaN) and wrecked its group, or with
    # reinforce_pp the whole batch (verl black-box, 2026-12-04)
    from assay.rewards.advantages import compute_advantages

    scores = torch.tensor([1.0, 0.0, poison, 1.0, 0.0, 1.0])
    clean = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.0, 1.0])
    groups = torch.tensor([0, 0, 0, 1, 1, 1])
    valid = torch.tensor([True, True, False, True, True, True])
    mask = torch.ones(6, 3)
    got = compute_advantages(estimator, scores, groups, mask, valid)
    assert torch.isfinite(got).all()
    assert torch.equal(got, compute_advantages(estimator, clean, groups, mask, valid))
    assert bool((got[2] == 0).all())


@pytest.mark.parametrize("mode", ["batch", "group", "running"])
def test_a_masked_samples_nan_score_stays_out_of_normalisation(mode: str) -> None:
    from assay.rewards.normalize import RewardNormalizer
    from assay.rewards.segments import group_index

    scores = torch.tensor([1.0, 0.0, float("nan"), 1.0, 0.0, 1.0])
    valid = torch.tensor([True, True, False, True, True, True])
    index = group_index(torch.tensor([0, 0, 0, 1, 1, 1]))
    got = RewardNormalizer(default=mode)(scores, ["math"] * 6, index, valid)
    assert torch.isfinite(got).all() and float(got[2]) == 0.0
