"""The end tokens a decoder leaves are taken off both ends of a response before any verifier
reads it; what stands inside the text (a token in a string literal) stays."""

from __future__ import annotations

import re

import pytest

from assay.decoding import (
    DEFAULT_SPECIAL_TOKENS,
    complete_calls,
    decoded,
    read_answer,
    strip_end_tokens,
    transcript_parts,
    without_thinking,
)
from assay.types import Record

CASES = [
    # (text as decoded with special tokens kept, what a verifier reads)
    ("```python\nprint(1)\n```<|im_end|>", "```python\nprint(1)\n```"),
    (
        "```python\nprint(1)\n```\n<|im_end|>\n<|endoftext|><|endoftext|>",
        "```python\nprint(1)\n```\n",
    ),
    ("def f():\n    return 1</s>", "def f():\n    return 1"),
    ("[get_weather(city='Tokyo')]<|eot_id|>", "[get_weather(city='Tokyo')]"),
    (
        "ply\nformat ascii 1.0\nend_header\n3 0 1 2<end_of_turn>",
        "ply\nformat ascii 1.0\nend_header\n3 0 1 2",
    ),
    ("<s> def f(): pass</s>", "def f(): pass"),
    ("<|begin_of_text|>\n```python\nx = 1\n```<|eot_id|>", "\n```python\nx = 1\n```"),
    ("x = '</s>'</s>", "x = '</s>'"),  # the literal is the code's
    ("s.replace('<|im_end|>', '')", "s.replace('<|im_end|>', '')"),
    ("#### 7<|im_end|>2", "#### 7<|im_end|>2"),  # inside: the sentence reader's business
    ("[INST] hi [/INST]", "hi "),
    ("<|im_end|>", ""),
    ("", ""),
    ("no tokens at all\n", "no tokens at all\n"),
    ("a <b> c </s-not-a-token>", "a <b> c </s-not-a-token>"),
]


@pytest.mark.parametrize(("text", "read"), CASES)
def test_strip_end_tokens(text: str, read: str) -> None:
    assert strip_end_tokens(text) == read
    assert strip_end_tokens(read) == read  # once is enough


@pytest.mark.parametrize("token", DEFAULT_SPECIAL_TOKENS)
def test_every_default_token_comes_off_the_end(token: str) -> None:
    assert strip_end_tokens(f"return 1{token}") == "return 1"


def test_a_response_of_many_tokens_is_read_in_one_pass() -> None:
    # a hostile response: long runs of tokens at both ends and inside, and blanks among them
    text = "</s> " * 50_000 + "x" + " <|im_end|>" * 50_000 + "y" + "\n<|im_end|>" * 50_000
    assert strip_end_tokens(text) == "x" + " <|im_end|>" * 50_000 + "y\n"


def test_decoded_cleans_the_response_and_assistant_messages_only() -> None:
    steps = (
        {"role": "user", "content": "say hi</s>"},
        {"role": "assistant", "content": "hi<|im_end|>"},
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "tool", "content": "ok</s>"},
    )
    record = Record(id="1", domain="agent", response="done<|im_end|>", steps=steps)
    cleaned = decoded(record)
    assert cleaned.response == "done"
    assert [s.get("content") for s in cleaned.steps] == ["say hi</s>", "hi", None, "ok</s>"]
    assert cleaned.steps[0] is steps[0] and cleaned.steps[2] is steps[2]


def test_a_record_without_end_tokens_is_the_same_record() -> None:
    record = Record(
        id="1", domain="math", response="42", steps=({"role": "assistant", "content": "4"},)
    )
    assert decoded(record) is record


THINKING = [
    # (response, the answer in it)
    ("<think>\nmaybe 71\n</think>\n\n72", "72"),
    ("maybe 71\n</think>\n\n72", "72"),  # Qwen3: the template opened <think>
    ("<think>a</think>b<think>c</think>d", "bd"),  # interleaved thinking
    ("<think>\ncut off here", ""),
    ("prose first <think>then cut off", "prose first "),
    ("</think>", ""),
    ("<think></think>", ""),
    ("<think>a<think>b</think>c", "c"),  # a second opener inside thinking opens nothing new
    ("x = '</think>'", "x = '</think>'"),
    ('s.split("<think>")', 's.split("<think>")'),
    ("use `</think>` to close", "use `</think>` to close"),
    ("<think>t</think>\n\n    return x\n", "    return x\n"),  # indentation stays
    ("no thinking at all", "no thinking at all"),
    ("<think>\nthe end token inside</think>\n42<|im_end|>", "42"),
]


@pytest.mark.parametrize(("text", "answer"), THINKING)
def test_without_thinking(text: str, answer: str) -> None:
    assert read_answer(text) == answer


def test_many_think_tags_are_read_in_one_pass() -> None:
    text = "<think>a</think>b" * 100_000 + "<think>" * 100_000 + "</think>" * 100_000 + "end"
    assert without_thinking(text) == "b" * 100_000 + "</think>" * 99_999 + "end"


CALL_TEXTS = [
    "",
    "<tool_call>a</tool_call>",
    "x<tool_call>a</tool_call>y<tool_call>b</tool_call>z",
    "<tool_call><tool_call>a</tool_call></tool_call>",
    "<tool_call>open only",
    "</tool_call><tool_call>a</tool_call>",
    "<tool_call>a\n</tool_call><tool_call>",
    "<tool_call></tool_call>",
]


HERMES_BLOCK = re.compile(r"<tool_call>.*?</tool_call>", re.DOTALL)
"""How verl's HermesToolParser finds a turn's calls (findall), the oracle of complete_calls."""


@pytest.mark.parametrize("text", CALL_TEXTS)
def test_complete_calls_are_the_parsers_findall(text: str) -> None:
    assert complete_calls(text) == HERMES_BLOCK.findall(text)


def test_many_unclosed_calls_are_read_in_one_pass() -> None:
    # the regex retried each unclosed block to the end: 1 MB took minutes, in the scheduler
    text = (
        "<think>" + "<tool_call>{}" * 100_000 + "</think>\nuser\n<tool_response>x</tool_response>"
    )
    assert complete_calls(text) == []
    assert read_answer(text + "\nassistant\nok", calls=True).endswith("ok")


TRANSCRIPTS = [
    # (text, the parts: True for a tool turn)
    ("a<tool_call>{}</tool_call>\nuser\n<tool_response>\nr\n</tool_response>\nassistant\nb",
     [False, True, False]),
    # the model's own <tool_response> (no user header) is its text: no transcript
    ("a <tool_response>fake</tool_response> b", None),
    ("<think>x</think>done\n<tool_response>", None),
    # its own one inside a turn, then a real tool turn
    ("a<tool_response>x</tool_response>\nuser\n<tool_response>\nr\n</tool_response>\n"
     "assistant\nb", [False, True, False]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "kinds"), TRANSCRIPTS)
def test_only_a_user_header_opens_a_tool_turn(text: str, kinds: list[bool] | None) -> None:
    parts = transcript_parts(text)
    assert (None if parts is None else [p.tool for p in parts]) == kinds
    if parts is not None:
        assert "".join(p.text for p in parts) == text


def test_other_domains_read_the_last_assistant_turn() -> None:
    text = ("#### 71<think><tool_call>#### 72</tool_call></think>\nuser\n<tool_response>\n"
            "<think> cached\n</tool_response>\nassistant\nThe answer is 73.")  # fmt: skip
    assert read_answer(text) == "The answer is 73."
    assert "#### 72" in read_answer(text, calls=True)
