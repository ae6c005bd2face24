"""``reward_kwargs.domain`` is checked when verl loads assay's reward, not per sample.

A typo (``domain=maths``) used to be accepted by every loading path and then make each sample
a masked ``error``: a training run with no reward signal and no message. The reward is loaded
here by verl's own code from a config composed from verl's YAML as its CLI composes it:
``get_custom_reward_fn`` (the per-item function), the reward-loop registry and
``RewardLoopWorker`` (``reward.reward_manager.name=assay``), ``load_reward_manager``, and the
older ``verl.workers.reward_manager`` registry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import verl
from assay.rewards.adapters.verl_loop import AssayRewardLoopManager
from hydra import compose, initialize_config_dir
from trainer_tokenizer import build_tokenizer
from transformers import AutoTokenizer
from verl.experimental.reward_loop import RewardLoopWorker
from verl.trainer.ppo.reward import get_custom_reward_fn, load_reward_manager

from assay.errors import UnknownDomainError

CONFIG_DIR = Path(verl.__file__).parent / "trainer" / "config"
ADAPTER = "pkg://assay.rewards.adapters.verl"

# (reward_kwargs.domain as typed, a suggestion the message must give, or None)
UNKNOWN: list[tuple[str, str | None]] = [
    ("maths", "math"),
    ("Maths", "math"),
    ("agnet", "agent"),
    ("fincance", "finance"),
    ("sql", None),
]
# names the registry knows: a domain, an alias, any case, a verl data_source
KNOWN: list[tuple[str, str, str, float]] = [
    ("math", "#### 72", "72", 1.0),
    ("MATH", "#### 72", "72", 1.0),
    ("lighteval/MATH", "so \\boxed{72}", "72", 1.0),
    ("math", "#### 71", "72", 0.0),
]


def _compose(overrides: list[str]) -> Any:
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tokenizer(tmp_path_factory.mktemp("tokenizer"))


def _check(error: UnknownDomainError, typed: str, suggestion: str | None) -> None:
    message = str(error)
    assert repr(typed) in message
    assert "Known domains:" in message and "math" in error.known and "agent" in error.known
    if suggestion is None:
        assert "Did you mean" not in message
    else:
        assert f"Did you mean {suggestion!r}" in message


@pytest.mark.parametrize(("typed", "suggestion"), UNKNOWN)
def test_custom_reward_function_refuses_an_unknown_domain_on_its_first_call(
    typed: str, suggestion: str | None
) -> None:
    config = _compose(
        [
            f"reward.custom_reward_function.path={ADAPTER}",
            "reward.custom_reward_function.name=compute_score",
            f"+reward.custom_reward_function.reward_kwargs.domain={typed}",
            "+reward.custom_reward_function.reward_kwargs.workers=1",
        ]
    )
    fn = get_custom_reward_fn(config)  # verl binds the kwargs; the first call checks them
    assert fn is not None
    with pytest.raises(UnknownDomainError) as info:
        fn(data_source="openai/gsm8k", solution_str="#### 72", ground_truth="72")
    _check(info.value, typed, suggestion)


@pytest.mark.parametrize(("typed", "suggestion"), UNKNOWN)
def test_reward_loop_worker_refuses_an_unknown_domain_when_built(
    typed: str, suggestion: str | None, tokenizer_dir: Path
) -> None:
    config = _compose(
        [
            f"actor_rollout_ref.model.path={tokenizer_dir}",
            "reward.reward_manager.name=assay",
            f"+reward.reward_kwargs.domain={typed}",
            "+reward.reward_kwargs.workers=1",
        ]
    )
    with pytest.raises(UnknownDomainError) as info:
        RewardLoopWorker(config)  # what each Ray reward worker runs when it starts
    _check(info.value, typed, suggestion)
    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    with pytest.raises(UnknownDomainError):
        load_reward_manager(config, tokenizer)


@pytest.mark.parametrize(("typed", "suggestion"), UNKNOWN)
def test_legacy_registry_manager_refuses_an_unknown_domain_when_built(
    typed: str, suggestion: str | None, tokenizer_dir: Path
) -> None:
    from verl.workers.reward_manager import get_reward_manager_cls

    cls = get_reward_manager_cls("assay")  # registered by assay's verl.plugins entry point
    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    with pytest.raises(UnknownDomainError) as info:
        cls(tokenizer, num_examine=0, domain=typed, workers=1)
    _check(info.value, typed, suggestion)


@pytest.mark.parametrize(("domain", "response", "truth", "expected"), KNOWN)
def test_known_domain_names_still_load_and_score(
    domain: str, response: str, truth: str, expected: float, tokenizer_dir: Path
) -> None:
    config = _compose(
        [
            f"reward.custom_reward_function.path={ADAPTER}",
            "reward.custom_reward_function.name=compute_score",
            f"+reward.custom_reward_function.reward_kwargs.domain={domain}",
            "+reward.custom_reward_function.reward_kwargs.workers=1",
            f"actor_rollout_ref.model.path={tokenizer_dir}",
            "reward.reward_manager.name=assay",
            f"+reward.reward_kwargs.domain={domain}",
            "+reward.reward_kwargs.workers=1",
        ]
    )
    fn = get_custom_reward_fn(config)
    assert fn is not None
    out = fn(data_source="my/unrouted", solution_str=response, ground_truth=truth)
    assert out["score"] == expected and out["masked"] is False
    worker = RewardLoopWorker(config)
    assert isinstance(worker.reward_manager, AssayRewardLoopManager)
