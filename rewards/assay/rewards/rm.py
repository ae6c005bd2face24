"""Learned reward models beside verifiers: outcome (ORM) and process (PRM) scorers.

:class:`RewardModelScorer` runs a Hugging Face model in batches under ``torch.inference_mode``:

- ``kind="sequence"``: a sequence-classification model (ORM); one score per text;
- ``kind="token"``: a token-classification model (PRM); one score per token, read at step ends
  (:meth:`RewardModelScorer.step_scores`) or aggregated per text (``last``, ``min``, ``mean``).

A model with one label scores with its raw logit; with several, with the softmax probability of
``label`` (default: the last label, the "good" class by convention). :func:`mix_scores` blends
reward-model scores with verifier rewards. The module does not import ``transformers``: any
model and tokenizer with the Hugging Face call conventions work; :meth:`from_pretrained` loads
them lazily.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from typing import Any, Literal

import torch
from assay.rewards.process import step_end_tokens_from_offsets
from torch import Tensor

from assay.errors import ConfigError

ModelKind = Literal["sequence", "token"]
Aggregate = Literal["last", "min", "mean"]


class RewardModelScorer:
    """Scores texts with a learned reward model, in batches.

    Args:
        model: A ``...ForSequenceClassification`` (``kind="sequence"``) or
            ``...ForTokenClassification`` (``kind="token"``) model.
        tokenizer: Its tokenizer (fast, for :meth:`step_scores`); needs a pad token.
        device: Where the model runs.
        batch_size: Texts per forward pass.
        kind: ``sequence`` (ORM) or ``token`` (PRM).
        max_length: Truncate inputs to this many tokens (default: no truncation).
        label: Label whose probability is the score (default: the last one).
        aggregate: How ``kind="token"`` scores become one score per text.

    Example:
        >>> scorer = RewardModelScorer(model, tokenizer, "cpu", batch_size=8)  # doctest: +SKIP
        >>> scorer.score(["2 + 2 = 4"])  # doctest: +SKIP
        tensor([0.73])
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        device: torch.device | str = "cpu",
        batch_size: int = 16,
        kind: ModelKind = "sequence",
        *,
        max_length: int | None = None,
        label: int | None = None,
        aggregate: Aggregate = "last",
    ) -> None:
        if kind not in ("sequence", "token"):
            raise ConfigError(f"kind must be 'sequence' or 'token', got {kind!r}")
        if aggregate not in ("last", "min", "mean"):
            raise ConfigError(f"aggregate must be last, min or mean, got {aggregate!r}")
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.kind = kind
        self.max_length = max_length
        self.label = label
        self.aggregate = aggregate

    @classmethod
    def from_pretrained(
        cls, path: str, kind: ModelKind = "sequence", **kwargs: Any
    ) -> RewardModelScorer:
        """Load a model and tokenizer with ``transformers`` (installed separately)."""
        try:
            transformers = importlib.import_module("transformers")
        except ImportError as exc:
            raise ConfigError("reward models need transformers (pip install transformers)") from exc
        auto = (
            transformers.AutoModelForSequenceClassification
            if kind == "sequence"
            else transformers.AutoModelForTokenClassification
        )
        tokenizer = transformers.AutoTokenizer.from_pretrained(path)
        return cls(auto.from_pretrained(path), tokenizer, kind=kind, **kwargs)

    def _batches(self, texts: Sequence[str]) -> Iterator[tuple[Any, Tensor]]:
        for start in range(0, len(texts), self.batch_size):
            chunk = list(texts[start : start + self.batch_size])
            encoded = self.tokenizer(
                chunk,
                padding=True,
                truncation=self.max_length is not None,
                max_length=self.max_length,
                return_tensors="pt",
                return_offsets_mapping=self.kind == "token",
            )
            offsets = encoded.pop("offset_mapping", None)
            inputs = {k: v.to(self.device) for k, v in encoded.items()}
            with torch.inference_mode():
                logits = self.model(**inputs).logits.float()
            yield (offsets, encoded["attention_mask"]), self._to_scores(logits).cpu()

    def _to_scores(self, logits: Tensor) -> Tensor:
        if logits.shape[-1] == 1:
            return logits[..., 0]
        label = logits.shape[-1] - 1 if self.label is None else self.label
        return torch.softmax(logits, dim=-1)[..., label]

    def score(self, texts: Sequence[str]) -> Tensor:
        """One score per text ``[N]`` (CPU, float32)."""
        if self.kind == "sequence":
            parts = [scores for _, scores in self._batches(texts)]
            return torch.cat(parts) if parts else torch.zeros(0)
        per_text = self.token_scores(texts)
        if self.aggregate == "last":
            values = [t[-1] if t.numel() else torch.tensor(0.0) for t in per_text]
        elif self.aggregate == "min":
            values = [t.min() if t.numel() else torch.tensor(0.0) for t in per_text]
        else:
            values = [t.mean() if t.numel() else torch.tensor(0.0) for t in per_text]
        return torch.stack(values) if values else torch.zeros(0)

    def token_scores(self, texts: Sequence[str]) -> list[Tensor]:
        """Per text, the score of each of its (non-padding) tokens (``kind="token"`` only)."""
        if self.kind != "token":
            raise ConfigError("token_scores needs a token-classification model (kind='token')")
        out: list[Tensor] = []
        for (_, attention), scores in self._batches(texts):
            out.extend(row[mask.bool()] for row, mask in zip(scores, attention, strict=True))
        return out

    def step_scores(
        self, texts: Sequence[str], step_end_chars: Sequence[Sequence[int]]
    ) -> list[list[float]]:
        """PRM scores read at the token where each step ends (character indices in the text)."""
        if self.kind != "token":
            raise ConfigError("step_scores needs a token-classification model (kind='token')")
        out: list[list[float]] = []
        rows = iter(step_end_chars)
        for (offsets, attention), scores in self._batches(texts):
            for row, mask, spans in zip(scores, attention, offsets, strict=True):
                keep = mask.bool()
                ends = step_end_tokens_from_offsets(spans[keep], next(rows))
                out.append([float(row[keep][i]) for i in ends])
        return out


def mix_scores(verifier: Tensor, reward_model: Tensor, weight: float) -> Tensor:
    """``(1 - weight) * verifier + weight * reward_model``, elementwise ``[B]``."""
    if not 0.0 <= weight <= 1.0:
        raise ConfigError(f"mix weight must be in [0, 1], got {weight}")
    return (1.0 - weight) * verifier + weight * reward_model.to(verifier)
