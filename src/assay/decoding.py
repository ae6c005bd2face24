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
    pieces = _thinking_pieces(text)
    if pieces is None:
        return text
    return _BLANK_LINES.sub("", "".join(piece for thinking, piece in pieces if not thinking))


def _thinking_pieces(text: str) -> list[tuple[bool, str]] | None:
    """``text`` cut into ``(is_thinking, piece)`` runs (tags in the thinking pieces), else
    ``None`` when it has no think tag (see :func:`without_thinking`)."""
    if THINK_CLOSE not in text and THINK_OPEN not in text:
        return None
    tags = [m for m in _THINK_TAG.finditer(text) if not _quoted(text, m.start(), m.end())]
    if not tags:
        return None
    pieces: list[tuple[bool, str]] = []
    position, thinking = 0, tags[0].group() == THINK_CLOSE  # a first close: opened in the prompt
    for tag in tags:
        is_open = tag.group() == THINK_OPEN
        if thinking and not is_open:
            pieces.append((True, text[position : tag.end()]))
            thinking, position = False, tag.end()
        elif not thinking and is_open:
            pieces.append((False, text[position : tag.start()]))
            thinking, position = True, tag.start()
    pieces.append((thinking, text[position:]))
    return pieces


def executed_turn(text: str) -> str:
    """An assistant turn that tool results follow, as a verifier reads it: end tokens and
    thinking off, but each complete ``<tool_call>`` block written inside the thinking kept.

    verl's ``HermesToolParser`` takes a turn's calls with ``findall`` over the whole turn,
    thinking included, and executes them: such a call changed the environment, so it is a
    call of the transcript (docs/agent.md, "verl transcripts"). A one-turn response, or the
    last turn of a transcript, loses the calls in its thinking (:func:`read_answer`).

    Example:
        >>> executed_turn("<think>Cancel.<tool_call>{}</tool_call></think>\\nok")
        '<tool_call>{}</tool_call>\\n\\nok'
    """
    text = strip_end_tokens(text)
    pieces = _thinking_pieces(text)
    if pieces is None:
        return text
    kept = [
        "\n".join(complete_calls(piece)) + "\n" if thinking else piece for thinking, piece in pieces
    ]
    return _BLANK_LINES.sub("", "".join(k for k in kept if k != "\n"))


def complete_calls(text: str) -> list[str]:
    """The complete ``<tool_call>...</tool_call>`` blocks of ``text``, as verl's
    ``HermesToolParser`` finds them (``findall(r"<tool_call>(.*?)</tool_call>")``), in one
    pass (that regex retries every unclosed ``<tool_call>`` to the end: quadratic in a
    response of many)."""
    blocks: list[str] = []
    position = 0
    while (start := text.find(_CALL_OPEN, position)) >= 0:
        close = text.find(_CALL_CLOSE, start + len(_CALL_OPEN))
        if close < 0:
            break
        position = close + len(_CALL_CLOSE)
        blocks.append(text[start:position])
    return blocks


def _quoted(text: str, start: int, end: int) -> bool:
    return (start > 0 and text[start - 1] in _QUOTES) or (end < len(text) and text[end] in _QUOTES)


def read_answer(text: str, *, calls: bool = False) -> str:
    """The response as a verifier reads it: end tokens off (:func:`strip_end_tokens`), then
    the thinking (:func:`without_thinking`).

    A multi-turn tool transcript (:func:`transcript_parts`) is read as its last assistant turn
    (the answer; what earlier turns and tool results said is not), or, with ``calls`` (a
    verifier that judges the calls, :attr:`assay.verifier.Verifier.reads_transcript_calls`),
    turn by turn: the tool turns as they are, each assistant turn that tool results follow by
    :func:`executed_turn` (the calls verl executed stay, thinking or not), the last one as a
    one-turn response.
    """
    parts = transcript_parts(text) if TOOL_RESPONSE_OPEN in text else None
    if parts is None:
        return without_thinking(strip_end_tokens(text))
    if not calls:
        last = parts[-1]
        return "" if last.tool else without_thinking(strip_end_tokens(last.text))
    read = []
    for k, part in enumerate(parts):
        if part.tool:
            read.append(part.text)
        elif k + 1 < len(parts):  # tool results follow: verl executed this turn's calls
            read.append(executed_turn(part.text))
        else:
            read.append(without_thinking(strip_end_tokens(part.text)))
    return strip_end_tokens("".join(read))


def decoded(record: Record, *, calls: bool = False) -> Record:
    """``record`` with the end tokens and the thinking off its response and its assistant
    messages' contents (the same record when there were none); ``calls`` as in
    :func:`read_answer`."""
    response = (
        read_answer(record.response, calls=calls) if isinstance(record.response, str) else None
    )
    steps = tuple(_message(step, calls) for step in record.steps)
    changed_steps = any(new is not old for new, old in zip(steps, record.steps, strict=True))
    if (response is None or response == record.response) and not changed_steps:
        return record
    return dataclasses.replace(
        record,
        response=record.response if response is None else response,
        steps=steps if changed_steps else record.steps,
    )


def _message(step: Mapping[str, JSON], calls: bool) -> Mapping[str, JSON]:
    content = step.get("content") if isinstance(step, Mapping) else None
    if step.get("role") != "assistant" or not isinstance(content, str):
        return step
    cleaned = read_answer(content, calls=calls)
    return step if cleaned == content else {**step, "content": cleaned}


TOOL_RESPONSE_OPEN = "<tool_response>"
TOOL_RESPONSE_CLOSE = "</tool_response>"
_TURN_TOKENS = r"(?:<\|im_end\|>|<\|im_start\|>|<\|endoftext\|>|\s)*"
_SKIP = re.compile(_TURN_TOKENS)
_TOOL_TURN_END = re.compile(
    rf"{re.escape(TOOL_RESPONSE_CLOSE)}(?={_TURN_TOKENS}(?:{re.escape(TOOL_RESPONSE_OPEN)}"
    rf"|(?:<\|im_start\|>)?assistant[ \t]*\r?\n|\Z))"
)
"""A ``</tool_response>`` where the template's structure goes on: another result, the next
assistant header, or the end. One a tool wrote into its own result is none of these."""
_NEXT_TURN = re.compile(rf"{_TURN_TOKENS}(?:(?:<\|im_start\|>)?assistant[ \t]*\r?\n)?")
_BACK_TOKENS = ("<|im_end|>", "<|im_start|>", "<|endoftext|>")
_CALL_OPEN, _CALL_CLOSE = "<tool_call>", "</tool_call>"


@dataclasses.dataclass(frozen=True, slots=True)
class TranscriptPart:
    """A span of a multi-turn transcript: an assistant turn's text, or a tool turn."""

    tool: bool
    text: str


def transcript_parts(text: str) -> list[TranscriptPart] | None:
    """The turns of a multi-turn tool transcript decoded as one string, else ``None``.

    verl's tool agent loop (and other Hermes/Qwen rollouts) decode every assistant turn and
    the tool turns between them as one response: ``...</tool_call>\\nuser\\n<tool_response>
    \\n{result}\\n</tool_response>\\nassistant\\n...`` (``<|im_end|>`` / ``<|im_start|>``
    there too when special tokens are kept). A tool turn runs from its user header through
    its results and the next assistant header; a ``<tool_response>`` with no user header
    before it is the model's own writing, part of its turn (a call it wraps in one is still
    its call, as verl's parser executes it). It ends at a ``</tool_response>`` followed by
    another result, that header or the end of the text, so a result that writes
    ``</tool_response>`` itself stays the tool's, and one never closed runs to the end.
    Joining the parts' texts gives ``text`` back. Linear in the text's length.

    Example:
        >>> [(p.tool, p.text) for p in transcript_parts(
        ...     "<tool_call>{}</tool_call>\\nuser\\n<tool_response>\\nok\\n</tool_response>"
        ...     "\\nassistant\\nDone.")]  # doctest: +NORMALIZE_WHITESPACE
        [(False, '<tool_call>{}</tool_call>'),
         (True, '\\nuser\\n<tool_response>\\nok\\n</tool_response>\\nassistant\\n'),
         (False, 'Done.')]
    """
    start = text.find(TOOL_RESPONSE_OPEN)
    if start < 0:
        return None
    parts: list[TranscriptPart] = []
    position = 0
    while start >= 0:
        turn_start = _header_start(text, position, start)
        if turn_start == start:  # no user header before it: the model's own text, no tool turn
            start = text.find(TOOL_RESPONSE_OPEN, start + len(TOOL_RESPONSE_OPEN))
            continue
        if turn_start > position:
            parts.append(TranscriptPart(False, text[position:turn_start]))
        after = start
        while True:  # the results of one tool turn, one after another
            end = _TOOL_TURN_END.search(text, after)
            if end is None:  # never closed: the tool's text to the end
                parts.append(TranscriptPart(True, text[turn_start:]))
                return parts
            after = _skip(text, end.end())
            if not text.startswith(TOOL_RESPONSE_OPEN, after):
                break
        following = _NEXT_TURN.match(text, end.end())
        position = following.end() if following is not None else end.end()
        parts.append(TranscriptPart(True, text[turn_start:position]))
        start = text.find(TOOL_RESPONSE_OPEN, position)
    if not parts:
        return None  # every <tool_response> was the model's own text
    if position < len(text):
        parts.append(TranscriptPart(False, text[position:]))
    return parts


def _skip(text: str, position: int) -> int:
    match = _SKIP.match(text, position)
    return match.end() if match is not None else position


def _back(text: str, floor: int, position: int) -> int:
    """``position`` moved back over blanks and turn tokens, not below ``floor``."""
    while position > floor:
        if text[position - 1].isspace():
            position -= 1
            continue
        token = next((t for t in _BACK_TOKENS if text.endswith(t, floor, position)), None)
        if token is None:
            return position
        position -= len(token)
    return position


def _header_start(text: str, floor: int, start: int) -> int:
    """Where the user header before the tool result at ``start`` begins (``start`` if none)."""
    position = _back(text, floor, start)
    if not text.endswith("user", floor, position):
        return start
    before = position - len("user")
    if text.endswith("<|im_start|>", floor, before):
        return _back(text, floor, before - len("<|im_start|>"))
    if before == floor or text[before - 1] == "\n":
        return _back(text, floor, before)
    return start
