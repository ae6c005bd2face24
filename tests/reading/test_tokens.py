"""Decoder special tokens removed before any domain reads a response."""

from __future__ import annotations

import pytest
from assay.verifiers.reading import answer_region, strip_special_tokens

TOKENS = [
    ("Total assets were $656,901 thousand.<|im_end|>", "Total assets were $656,901 thousand."),
    ("The answer is 48,843</s>", "The answer is 48,843"),  # Llama 2 / Mistral EOS
    ("42<|endoftext|>", "42"),  # GPT-2 / Qwen base EOS
    ("42<|eot_id|>", "42"),  # Llama 3 end of turn
    ("42<|end|>", "42"),  # Phi-3 end
    ("42<end_of_turn>", "42"),  # Gemma end of turn
    ("42<eos>", "42"),  # Gemma EOS
    ("42 [/INST]", "42"),  # Mistral instruction tag
    ("<s>42</s>", "42"),  # BOS and EOS around
    ("42<｜end▁of▁sentence｜>", "42"),  # DeepSeek full-width EOS
    ("42<|end_of_text|>", "42"),  # Llama 3 base EOS
    ("42<|im_end|><|endoftext|>", "42"),  # two tokens in a row
    ("<|im_start|>assistant\n42<|im_end|>", "assistant\n42"),  # a leaked chat header
    ("4<|im_end|>2", "4 2"),  # a token inside the text leaves a space, never glues digits
    ("42<|return|>", "42"),  # harmony-format end of message
    ("no tokens here", "no tokens here"),  # untouched
    ("<|endoftext|>", ""),  # only a token
    ("The answer is 9<|eom_id|>", "The answer is 9"),  # Llama 3.1 end of message
]


@pytest.mark.parametrize(("text", "clean"), TOKENS, ids=[t[0][-20:] for t in TOKENS])
def test_default_tokens(text: str, clean: str) -> None:
    assert strip_special_tokens(text) == clean


def test_extra_tokens_and_tokenizer() -> None:
    class Tokenizer:
        all_special_tokens = ["[EOS]", ""]  # noqa: RUF012 - stands in for a HF tokenizer

    assert strip_special_tokens("42 [END]", extra=["[END]"]) == "42"
    assert strip_special_tokens("42[EOS]", tokenizer=Tokenizer()) == "42"
    assert strip_special_tokens("42</s>", defaults=False) == "42</s>"  # defaults can be off


def test_longest_token_first() -> None:
    # "<|end|>" must not eat the start of "<|endoftext|>", leaving "oftext|>".
    assert strip_special_tokens("7<|endoftext|>", extra=["<|end"]) == "7"


@pytest.mark.parametrize(
    ("response", "region"),
    [
        ("<think>maybe 4</think>It is 5.", "It is 5."),  # after the think block
        ("<think>a</think>b<think>c</think>d", "d"),  # after the last one
        ("<think>cut off while thinking", ""),  # never closed: nothing
        ("plain answer", "plain answer"),  # no thinking at all
    ],
    ids=["closed", "several", "unclosed", "none"],
)
def test_answer_region(response: str, region: str) -> None:
    assert answer_region(response) == region
