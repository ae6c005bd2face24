"""What a decoder leaves at the ends of a response: end-of-sequence and chat-template tokens.

A policy sampled without ``skip_special_tokens`` (OpenRLHF's clients, a vLLM server asked to
keep them) ends its text with ``<|im_end|>``, ``</s>``, ``<|eot_id|>``... and padding after
it. Glued to the answer they break every reader that is not a sentence reader: a closing fence
`````<|im_end|>`` is no fence, ``return x</s>`` is no Python, a PLY body no longer ends where its
header says, a tool call is no call. The scheduler takes them off both ends of every response
(and of each assistant message of a trajectory) before any verifier sees it
(:func:`decoded`). Tokens inside the text stay: in code they may be a string literal
(``html.replace("</s>", "")``); the sentence reader of math and finance removes those itself
(:func:`assay.verifiers.reading.strip_special_tokens`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

from assay.types import JSON, Record

DEFAULT_SPECIAL_TOKENS: tuple[str, ...] = (
    "<|im_end|>",
    "<|im_start|>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|begin_of_text|>",
    "<|end|>",
    "<|assistant|>",
    "<|user|>",
    "<|system|>",
    "<|return|>",
    "<|endofprompt|>",
    "<end_of_turn>",
    "<start_of_turn>",
    "<eos>",
    "<bos>",
    "<|eos|>",
    "</s>",
    "<s>",
    "[/INST]",
    "[INST]",
    "<pad>",
    "<|pad|>",
    "<｜end▁of▁sentence｜>",
    "<｜begin▁of▁sentence｜>",
    "<|end▁of▁sentence|>",
    "<|begin▁of▁sentence|>",
)
"""End-of-sequence and chat-template tokens of the common open and hosted model families."""


def _alternatives(tokens: list[str]) -> str:
    return "|".join(re.escape(t) for t in sorted(set(tokens), key=len, reverse=True))


_HEAD = re.compile(rf"\s*(?:{_alternatives(list(DEFAULT_SPECIAL_TOKENS))})"
                   rf"(?:\s*(?:{_alternatives(list(DEFAULT_SPECIAL_TOKENS))}))*[ \t]*")  # fmt: skip
_REVERSED = _alternatives([t[::-1] for t in DEFAULT_SPECIAL_TOKENS])
_TAIL_REVERSED = re.compile(rf"\s*(?:{_REVERSED})(?:\s*(?:{_REVERSED}))*")
"""The run of tokens at the end, read on the reversed text: one anchored match, linear."""


def strip_end_tokens(text: str) -> str:
    """``text`` without the special tokens (and the blanks among them) at its start and end.

    What stood before the last tokens, a newline included, stays as it was. Both runs are
    anchored matches (the last one on the reversed text), so a response of many tokens costs
    its length, wherever they stand.

    Example:
        >>> strip_end_tokens("```python\\nprint(1)\\n```<|im_end|>\\n<|endoftext|><|endoftext|>")
        '```python\\nprint(1)\\n```'
        >>> strip_end_tokens("<s> x = '</s>'</s>")
        "x = '</s>'"
    """
    if "<" not in text and "[" not in text:
        return text
    tail = _TAIL_REVERSED.match(text[::-1])
    if tail is not None:
        text = text[: len(text) - tail.end()]
    head = _HEAD.match(text)
    return text[head.end() :] if head is not None else text


THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
_THINK_TAG = re.compile(r"</?think>")
_QUOTES = "'\"`"
_BLANK_LINES = re.compile(r"\A(?:[ \t]*\r?\n)+")


def without_thinking(text: str) -> str:
    """What a reasoning model answered: ``text`` less its thinking.

    Thinking is each ``<think>...</think>`` block, and all before a first ``</think>`` that no
    ``<think>`` opened (Qwen3's and DeepSeek-R1's chat templates open it in the prompt). A
    ``<think>`` never closed runs to the end: the response was cut off while thinking and has
    not answered (what stood before it, if anything, stays). A tag right next to a quote or a
    backtick is a string literal (``text.split("</think>")`` in code), not a tag. Blank lines
    left at the start are dropped (the first line's indentation stays: a HumanEval completion
    continues the prompt's body).

    Example:
        >>> without_thinking("Maybe 71? No.\\n</think>\\n\\nThe answer is 72.")
        'The answer is 72.'
        >>> without_thinking("<think>draft</think>\\n```py\\nx = '</think>'\\n```")
        "```py\\nx = '</think>'\\n```"
        >>> without_thinking("<think>\\nstill thinking")
        ''
    """
    if THINK_CLOSE not in text and THINK_OPEN not in text:
        return text
    tags = [m for m in _THINK_TAG.finditer(text) if not _quoted(text, m.start(), m.end())]
    if not tags:
        return text
    kept: list[str] = []
    position, thinking = 0, tags[0].group() == THINK_CLOSE  # a first close: opened in the prompt
    for tag in tags:
        is_open = tag.group() == THINK_OPEN
        if thinking and not is_open:
            thinking, position = False, tag.end()
        elif not thinking and is_open:
            kept.append(text[position : tag.start()])
            thinking = True
    if not thinking:
        kept.append(text[position:])
    return _BLANK_LINES.sub("", "".join(kept))


def _quoted(text: str, start: int, end: int) -> bool:
    return (start > 0 and text[start - 1] in _QUOTES) or (end < len(text) and text[end] in _QUOTES)


def read_answer(text: str) -> str:
    """The response as a verifier reads it: end tokens off (:func:`strip_end_tokens`), then
    the thinking (:func:`without_thinking`)."""
    return without_thinking(strip_end_tokens(text))


def decoded(record: Record) -> Record:
    """``record`` with the end tokens and the thinking off its response and its assistant
    messages' contents (the same record when there were none)."""
    response = read_answer(record.response) if isinstance(record.response, str) else None
    steps = tuple(_message(step) for step in record.steps)
    changed_steps = any(new is not old for new, old in zip(steps, record.steps, strict=True))
    if (response is None or response == record.response) and not changed_steps:
        return record
    return dataclasses.replace(
        record,
        response=record.response if response is None else response,
        steps=steps if changed_steps else record.steps,
    )


def _message(step: Mapping[str, JSON]) -> Mapping[str, JSON]:
    content = step.get("content") if isinstance(step, Mapping) else None
    if step.get("role") != "assistant" or not isinstance(content, str):
        return step
    cleaned = read_answer(content)
    return step if cleaned == content else {**step, "content": cleaned}
