"""Learned reward models: tiny local BERT ORM/PRM built from configs, no download."""

from __future__ import annotations

from typing import Any

import pytest
import tokenizers
import torch
import transformers
from assay.rewards.rm import RewardModelScorer, mix_scores

from assay.errors import ConfigError

WORDS = ["2", "+", "=", "4", "5", "so", "the", "answer", "is", "."]
TEXTS = ["2 + 2 = 4", "2 + 2 = 5 so the answer is 5 .", "the answer is 4", "4"]


def _tokenizer() -> Any:
    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *WORDS])}
    model = tokenizers.models.WordLevel(vocab, unk_token="[UNK]")
    backend = tokenizers.Tokenizer(model)
    backend.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=backend, pad_token="[PAD]", unk_token="[UNK]"
    )


def _model(kind: str, num_labels: int) -> Any:
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(WORDS) + 4,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        num_labels=num_labels,
    )
    if kind == "sequence":
        return transformers.BertForSequenceClassification(config)
    return transformers.BertForTokenClassification(config)


def _one_by_one(scorer: RewardModelScorer, texts: list[str]) -> torch.Tensor:
    return torch.cat([scorer.score([t]) for t in texts])


@pytest.mark.parametrize(
    ("num_labels", "batch_size"),
    [(1, 3), (2, 2), (3, 16)],
    # a scalar-head ORM (raw logit); a 2-class head (softmax of the last label); batches that
    # split the input and one that holds it all
    ids=["scalar-head", "two-class", "one-batch"],
)
def test_sequence_scores_batched_like_single(num_labels: int, batch_size: int) -> None:
    # padding in a batch must not change any score
    scorer = RewardModelScorer(_model("sequence", num_labels), _tokenizer(), "cpu", batch_size)
    batched = scorer.score(TEXTS)
    assert batched.shape == (len(TEXTS),)
    torch.testing.assert_close(batched, _one_by_one(scorer, TEXTS), atol=1e-5, rtol=1e-5)
    if num_labels > 1:
        assert bool(((batched > 0) & (batched < 1)).all())


@pytest.mark.parametrize("aggregate", ["last", "min", "mean"], ids=["last", "min", "mean"])
def test_token_prm_aggregates(aggregate: str) -> None:
    # per-token PRM scores, one per real token; aggregates agree with the token scores
    scorer = RewardModelScorer(
        _model("token", 2),
        _tokenizer(),
        batch_size=2,
        kind="token",
        aggregate=aggregate,  # type: ignore[arg-type]
    )
    per_token = scorer.token_scores(TEXTS)
    assert [t.numel() for t in per_token] == [5, 11, 4, 1]
    reduce = {"last": lambda t: t[-1], "min": torch.min, "mean": torch.mean}[aggregate]
    expected = torch.stack([reduce(t) for t in per_token])
    torch.testing.assert_close(scorer.score(TEXTS), expected)


def test_prm_step_scores_at_step_ends() -> None:
    # "2 + 2 = 4" ends its first step at char 5 (token "2" #2) and its second at 9 (token "4")
    scorer = RewardModelScorer(_model("token", 2), _tokenizer(), batch_size=4, kind="token")
    tokens = scorer.token_scores([TEXTS[0]])[0]
    steps = scorer.step_scores([TEXTS[0], TEXTS[3]], [[5, 9], [1]])
    assert steps[0] == pytest.approx([float(tokens[2]), float(tokens[4])])
    assert len(steps[1]) == 1


def test_misuse() -> None:
    # token scores need a PRM; bad kinds and batch sizes are refused; mix weight in [0, 1]
    scorer = RewardModelScorer(_model("sequence", 1), _tokenizer())
    with pytest.raises(ConfigError):
        scorer.token_scores(TEXTS)
    with pytest.raises(ConfigError):
        RewardModelScorer(_model("sequence", 1), _tokenizer(), kind="pairwise")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        RewardModelScorer(_model("sequence", 1), _tokenizer(), batch_size=0)
    with pytest.raises(ConfigError):
        mix_scores(torch.zeros(1), torch.zeros(1), 1.5)


def test_mix() -> None:
    # 0.25 * rm + 0.75 * verifier
    got = mix_scores(torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0]), 0.25)
    torch.testing.assert_close(got, torch.tensor([0.75, 0.25]))
