"""The verl adapter: compute_score, the reward manager on verl's real DataProto, parquet I/O.

verl is installed without its training dependencies (``make`` installs it ``--no-deps`` with
tensordict, Ray and omegaconf): ``DataProto`` is the real class verl hands a reward manager.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from assay.rewards.adapters.verl import (
    AssayRewardManager,
    compute_score,
    compute_score_batch,
    read_verl_parquet,
    write_verl_parquet,
)
from verl import DataProto

from assay.api import score


@pytest.mark.parametrize(
    ("solution", "truth", "expected"),
    [
        # the verl math recipe's ground truth is a plain string
        ("so \\boxed{12}", "12", {"score": 1.0, "status": "correct", "masked": False}),
        ("so \\boxed{13}", "12", {"score": 0.0, "status": "incorrect", "masked": False}),
        # a reference of the wrong shape is infrastructure: masked, not a 0 for the model
        ("so \\boxed{12}", None, {"score": 0.0, "status": "error", "masked": True}),
    ],
    ids=["correct", "incorrect", "masked-error"],
)
def test_compute_score(solution: str, truth: Any, expected: dict[str, Any]) -> None:
    assert compute_score("math", solution, truth, {"index": 3}, workers=1) == expected


def test_compute_score_batch_keeps_order() -> None:
    out = compute_score_batch(
        ["math"] * 3, ["\\boxed{1}", "\\boxed{2}", "\\boxed{3}"], ["1", "5", "3"], None, workers=1
    )
    assert [o["score"] for o in out] == [1.0, 0.0, 1.0]


def test_unknown_data_source_is_masked_but_domain_override_works() -> None:
    # an unknown data_source cannot be routed: masked; reward_kwargs.domain routes it
    assert compute_score("my/gsm", "\\boxed{2}", "2", workers=1)["masked"] is True
    assert compute_score("my/gsm", "\\boxed{2}", "2", domain="math", workers=1)["score"] == 1.0


class _Tokenizer:
    """Decodes ids as characters of a tiny alphabet; 0 is padding."""

    alphabet = "_0123456789\\boxed{} "

    def encode(self, text: str) -> list[int]:
        return [self.alphabet.index(c) for c in text]

    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str:
        return "".join(self.alphabet[i] for i in ids if i != 0 or not skip_special_tokens)


def _batch(tokenizer: _Tokenizer, texts: list[str], truths: list[Any]) -> DataProto:
    """A real verl ``DataProto``, shaped as verl's reward step receives it."""
    prompt_len, response_len = 3, 12
    responses = torch.zeros(len(texts), response_len, dtype=torch.long)
    mask = torch.zeros(len(texts), prompt_len + response_len, dtype=torch.long)
    mask[:, :prompt_len] = 1
    for i, text in enumerate(texts):
        ids = tokenizer.encode(text)
        responses[i, : len(ids)] = torch.tensor(ids)
        mask[i, prompt_len : prompt_len + len(ids)] = 1
    return DataProto.from_dict(
        tensors={"responses": responses, "attention_mask": mask},
        non_tensors={
            "data_source": np.array(["math"] * len(texts), dtype=object),
            "reward_model": np.array(
                [{"style": "rule", "ground_truth": t} for t in truths], dtype=object
            ),
            "extra_info": np.array([{"index": i} for i in range(len(texts))], dtype=object),
        },
    )


def test_reward_manager_places_scores_on_last_valid_token() -> None:
    tokenizer = _Tokenizer()
    texts = ["\\boxed{4}", "\\boxed{5}", "\\boxed{42}", "4"]
    data = _batch(tokenizer, texts, ["4", "4", "42", None])
    manager = AssayRewardManager(tokenizer, num_examine=0, workers=1)
    out = manager(data, return_dict=True)
    rewards = out["reward_tensor"]
    assert rewards.shape == data.batch["responses"].shape
    expected = [1.0, 0.0, 1.0, 0.0]
    for i, text in enumerate(texts):
        assert rewards[i, len(text) - 1].item() == expected[i]
        # nothing anywhere else in the row
        assert rewards[i].sum().item() == expected[i]
    assert out["reward_extra_info"] == {
        "status": ["correct", "incorrect", "correct", "error"],
        "masked": [False, False, False, True],
    }
    assert torch.equal(manager(data), rewards)


def test_parquet_round_trip(tmp_path: Path) -> None:
    records: list[dict[str, Any]] = [
        {"id": "a", "domain": "math", "prompt": "1+1?", "reference": "2"},
        {"id": "b", "domain": "math", "prompt": "half?", "reference": {"answer": "0.5"}},
    ]
    path = tmp_path / "train.parquet"
    assert write_verl_parquet(records, path) == 2
    rows = read_verl_parquet(path)
    assert rows[0] == {
        "data_source": "math",
        "prompt": [{"role": "user", "content": "1+1?"}],
        "ability": "math",
        "reward_model": {"style": "rule", "ground_truth": "2"},
        "extra_info": {"index": 0, "id": "a"},
    }
    assert rows[1]["reward_model"]["ground_truth"] == '{"answer": "0.5"}'
    # writing verl rows again changes nothing
    write_verl_parquet(rows, tmp_path / "again.parquet")
    assert read_verl_parquet(tmp_path / "again.parquet") == rows
    # and the rows score as they are, once a response is added
    answered = [{**rows[0], "response": "\\boxed{2}"}, {**rows[1], "response": "$1/2$"}]
    assert [r.status.value for r in score(answered, workers=1)] == ["correct", "correct"]


def test_registers_as_a_verl_reward_manager() -> None:
    # the recipe in docs/integrations.md, against verl's own registry
    from verl.workers.reward_manager import get_reward_manager_cls, register

    register("assay-test")(AssayRewardManager)
    assert get_reward_manager_cls("assay-test") is AssayRewardManager


def test_verls_own_reward_manager_calls_compute_score() -> None:
    # verl's NaiveRewardManager with assay's compute_score as the custom reward function
    from verl.workers.reward_manager.naive import NaiveRewardManager

    tokenizer = _Tokenizer()
    texts = ["\\boxed{4}", "\\boxed{5}"]
    data = _batch(tokenizer, texts, ["4", "4"])
    data.batch["prompts"] = torch.tensor([tokenizer.encode("12 ")] * len(texts))
    manager = NaiveRewardManager(tokenizer, num_examine=0, compute_score=compute_score)
    out = manager(data, return_dict=True)
    rewards = out["reward_tensor"]
    assert [rewards[i, len(t) - 1].item() for i, t in enumerate(texts)] == [1.0, 0.0]
    assert list(out["reward_extra_info"]["status"]) == ["correct", "incorrect"]
