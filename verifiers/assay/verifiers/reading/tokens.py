"""Special tokens a decoder left in a response, and the part of a response that holds the answer.

A policy sampled without ``skip_special_tokens`` ends its text with ``<|im_end|>`` (Qwen, ChatML),
``<|endoftext|>`` (GPT-2, Qwen base), ``</s>`` (Llama 2, Mistral), ``<|eot_id|>`` (Llama 3),
``<|end|>`` (Phi-3), ``<end_of_turn>`` (Gemma), ``<｜end▁of▁sentence｜>`` (DeepSeek) and the like.
Left in, they glue themselves to the answer (``48,843</s>`` is no longer a number). They are
removed, wherever they stand, before any domain reads the response. Pass a tokenizer's own list
(anything with ``all_special_tokens``, as Hugging Face tokenizers have) or extra strings.

Thinking: only the text after the last ``</think>`` holds the answer; a ``<think>`` that never
closes means the response was cut off while thinking (see :func:`answer_region`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Protocol

from assay.decoding import DEFAULT_SPECIAL_TOKENS, THINK_CLOSE, THINK_OPEN


class HasSpecialTokens(Protocol):
    """A tokenizer that lists its special tokens (Hugging Face ``PreTrainedTokenizer``)."""

    @property
    def all_special_tokens(self) -> list[str]: ...


def special_tokens_of(tokenizer: HasSpecialTokens) -> tuple[str, ...]:
    """The special tokens a tokenizer declares, as strings (empty ones dropped)."""
    return tuple(token for token in tokenizer.all_special_tokens if token)


@lru_cache(maxsize=32)
def _pattern(tokens: tuple[str, ...]) -> re.Pattern[str]:
    ordered = sorted(
        set(tokens), key=len, reverse=True
    )  # longest first: "<|end|>" after "<|endoftext|>"
    return re.compile("|".join(re.escape(token) for token in ordered))


def strip_special_tokens(
    text: str,
    extra: Iterable[str] = (),
    tokenizer: HasSpecialTokens | None = None,
    *,
    defaults: bool = True,
) -> str:
    """``text`` without the special tokens a decoder left in, and without the space they leave.

    Args:
        text: The response.
        extra: More tokens to remove (a model family's own).
        tokenizer: A tokenizer whose ``all_special_tokens`` are removed too.
        defaults: Whether :data:`DEFAULT_SPECIAL_TOKENS` are removed (on by default).

    Example:
        >>> strip_special_tokens("The answer is 48,843</s>")
        'The answer is 48,843'
        >>> strip_special_tokens("42 [EOS]", extra=["[EOS]"])
        '42'
    """
    tokens = tuple(DEFAULT_SPECIAL_TOKENS if defaults else ()) + tuple(t for t in extra if t)
    if tokenizer is not None:
        tokens += special_tokens_of(tokenizer)
    if not tokens:
        return text
    return _pattern(tokens).sub(" ", text).strip()


def answer_region(response: str) -> str:
    """The part of a response that holds the answer: the text after the last ``</think>``.

    Empty when a ``<think>`` never closes (the response was cut off while thinking).

    Example:
        >>> answer_region("<think>maybe 4</think>It is 5.")
        'It is 5.'
    """
    index = response.rfind(THINK_CLOSE)
    if index >= 0:
        return response[index + len(THINK_CLOSE) :]
    return "" if THINK_OPEN in response else response
