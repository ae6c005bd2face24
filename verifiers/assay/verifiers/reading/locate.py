"""Where the final answer of a response is, and how it was found.

The methods, tried in order (the first that finds something wins):

``json``
    The last JSON object (fenced or bare) with an ``answer`` (or ``final_answer``) key: its
    value. The object itself is kept in :attr:`Located.data` (pages, quotes, fields).
``boxed``
    The last ``\\boxed{...}`` or ``\\fbox{...}`` (nested braces allowed, bare ``\\boxed 5``);
    a box that never closes (a cut-off response) leaves nothing. Boxes offered together
    (only connectives such as ``,``, ``or``, ``and``, ``x =`` between them) form a *run*
    whose distinct contents are :attr:`Located.candidates`, so a domain can refuse a hedge.
``final_answer`` / ``answer_is`` / ``answer_colon`` / ``hash``
    The text after the last "final answer (is)", "the (correct) answer is", "Answer:" (also
    "answer is:", "answer =") or ``####`` (GSM8K): the math spans that open it, else up to the
    end of its sentence, without asides ("7 (since 7^2 = 49)"), corrections ("not 5, it is
    7") or trailing clauses. A marker with nothing after it ends the search: the response
    stopped before its answer.
``whole``
    A short one-line response that is not prose is the answer itself (``$1,500 thousand``,
    ``72 clips``, ``no solution``).
``last_line``
    The last non-empty line: its last bold span, else the item its last sentence ends on (a
    run of math spans, of choice letters, or the last figure of its main clause that is no
    date, and no year when another figure is there). A line cut off mid-sentence ("... so we
    compute") yields nothing.
``last_figure``
    When the last line holds no answer (a sign-off such as "Let me know if..."), the item of
    the nearest earlier line that has one. The least trusted method: a domain may refuse it.

Before any of this, decoder special tokens are removed (:mod:`.tokens`) and only the text after
a closing ``</think>`` is searched; a ``<think>`` that never closes leaves nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from assay.verifiers.reading.numbers import OR_WORDS, Figure, scan_numbers
from assay.verifiers.reading.sentence import (
    clean_tail,
    drop_asides,
    final_item,
    is_connective,
    is_cut_off,
    last_sentence,
    leading_math_run,
)
from assay.verifiers.reading.tokens import HasSpecialTokens, answer_region, strip_special_tokens

from assay.types import JSON

Method = Literal[
    "json",
    "boxed",
    "final_answer",
    "answer_is",
    "answer_colon",
    "hash",
    "whole",
    "last_line",
    "last_figure",
]
MARKED: frozenset[str] = frozenset(
    ("json", "boxed", "final_answer", "answer_is", "answer_colon", "hash")
)
"""Methods that found an answer the response marked as such."""

MAX_WHOLE_LENGTH = 100
"""Longest one-line response read as the answer itself."""
MAX_LINE_LENGTH = 1000
"""Characters of a line read after a phrase, or at the end of the last line."""
MAX_JSON_WINDOW = 20_000
"""Characters at the end of the response searched for a JSON object."""
MAX_JSON_STARTS = 64
"""Object starts tried, from the end, in that window."""
MAX_FALLBACK_LINES = 20
"""Lines searched upwards by ``last_figure``."""
CONTEXT_BEFORE = 80
"""Characters before a located figure read for its context (sign words, year words, dates)."""
CONTEXT_AFTER = 40
"""Characters after it (the rest of a date, a scale word)."""
ANSWER_KEYS = ("answer", "final_answer", "Answer", "final answer")

_BOX = re.compile(r"\\(?:boxed|fbox)\s*(?:\{|(?P<bare>[^\s{$\\][^\s$]*))")
_PHRASES: tuple[tuple[Method, re.Pattern[str]], ...] = (
    ("final_answer", re.compile(r"final\s+answer\s*\**\s*(?:is\b|:|=)?", re.IGNORECASE)),
    (
        "answer_is",
        re.compile(
            r"\bthe\s+(?:correct\s+|final\s+)?answer\s+(?:is|would\s+be|should\s+be)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "answer_colon",
        re.compile(r"(?<!final\s)\banswer\s*(?:is\s*)?\**\s*[:：=]", re.IGNORECASE),
    ),
    ("hash", re.compile(r"####")),
)
_OR = re.compile(OR_WORDS, re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_DISPLAY_MATH = re.compile(r"\\\[.*?\\\]|\$\$.*?\$\$", re.S)
_SENTENCE_END = re.compile(r"\.(?=\s|$)|\s+(?:I hope|Hope this)\b")
_MARKER_END = re.compile(r"[\s*:：.=]*")
_FIRST_PERSON = re.compile(r"\bI\s+[a-z]|n't\b")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_WORD = re.compile(r"[^\W\d_]{2,}")
"""A word of any script ("Ответ", "答案是"): a word before the figure makes a line prose."""
_OBJECT_START = re.compile(r"\{\s*\"")
_PROSE_WORDS = frozenset(
    [
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "so",
        "thus",
        "therefore",
        "hence",
        "we",
        "answer",
        "equals",
        "get",
        "have",
        "this",
        "that",
        "of",
        "to",
        "which",
        "it",
    ]
)
_MATH_NAMES = frozenset(
    [
        "sqrt",
        "sin",
        "cos",
        "tan",
        "cot",
        "sec",
        "csc",
        "log",
        "ln",
        "exp",
        "pi",
        "abs",
        "mod",
        "gcd",
        "lcm",
        "inf",
        "infinity",
    ]
)
_SCALE_NAMES = frozenset(["thousand", "thousands", "million", "millions", "billion", "billions"])
_PROSE_MIN_WORDS = 3
_PROSE_MAX_WORDS = 6


@dataclass(frozen=True, slots=True)
class Located:
    """A final answer found in a response.

    Attributes:
        method: Which rule found it (see the module docstring); :data:`MARKED` holds the
            methods where the response marked its answer.
        text: The answer as written (raw: not normalized; a run of math spans is joined by
            ``", "``).
        start: Where the answer was read from in :attr:`source`.
        end: Just past it.
        source: The searched text: the response without special tokens and thinking.
        candidates: For ``boxed``: the distinct contents of the run of boxes offered together.
        alternatives: For ``boxed``: the run's boxes are joined by "or" (``\\boxed{3} or
            \\boxed{4}``): offered as alternatives, not as the parts of one answer.
        data: For ``json``: the whole object.
        figure: When the answer is exactly one figure of its line, that figure read in its
            context (its role there, "in 2024" a year; the sign word before it).
    """

    method: Method
    text: str
    start: int
    end: int
    source: str
    candidates: tuple[str, ...] = ()
    alternatives: bool = False
    data: Mapping[str, JSON] | None = field(default=None, compare=False)
    figure: Figure | None = None

    @property
    def marked(self) -> bool:
        """Whether the response marked this as its answer (not a fallback)."""
        return self.method in MARKED


@dataclass(frozen=True, slots=True)
class Box:
    """One ``\\boxed{...}``: its span in the text and where its content lies."""

    start: int
    end: int
    content_start: int
    content_end: int
    content: str


def prepare(
    response: str, special_tokens: Iterable[str] = (), tokenizer: HasSpecialTokens | None = None
) -> str:
    """The response as every domain reads it: special tokens removed, thinking dropped.

    Display-math blocks are put on one line (newlines inside them become spaces, so offsets
    agree with the response) for the line-based fallbacks.
    """
    text = answer_region(strip_special_tokens(response, special_tokens, tokenizer))
    return _DISPLAY_MATH.sub(lambda m: m.group(0).replace("\n", " "), text)


def locate_answer(
    response: str, special_tokens: Iterable[str] = (), tokenizer: HasSpecialTokens | None = None
) -> Located | None:
    """Find the final answer of a response, or None when there is nothing to extract.

    Args:
        response: The model's text.
        special_tokens: More special tokens to remove (see :func:`.strip_special_tokens`).
        tokenizer: A tokenizer whose own special tokens are removed too.

    Example:
        >>> found = locate_answer("So $x = 2$, and the area is $\\\\boxed{\\\\frac{1}{2}}$.")
        >>> found.method, found.text
        ('boxed', '\\\\frac{1}{2}')
        >>> locate_answer("Natalia sold 48 + 24 = 72 clips.\\n#### 72<|im_end|>").text
        '72'
    """
    source = prepare(response, special_tokens, tokenizer)
    if not source.strip():
        return None
    found = _from_json(source)
    if found is not None:
        return found
    boxed = _from_boxes(source)
    if boxed is not None or _BOX.search(source):
        return boxed  # a box that never closes is a cut-off answer: nothing to extract
    if _ends_with_marker(source):
        return None
    for finder in (_from_phrases, _from_whole, _from_lines):
        found = finder(source)
        if found is not None:
            return _with_figure(found)
    return None


def _with_figure(found: Located) -> Located:
    """Attach the figure the answer is, read in the context of its line."""
    source = found.source
    line_start = source.rfind("\n", 0, found.start) + 1
    line_end = source.find("\n", found.end)
    line_end = len(source) if line_end < 0 else line_end
    begin = max(line_start, found.start - CONTEXT_BEFORE)
    stop = min(line_end, found.end + CONTEXT_AFTER)
    for figure in scan_numbers(source[begin:stop]).figures:
        if (figure.start + begin, figure.end + begin) == (found.start, found.end):
            return replace(
                found,
                figure=replace(figure, start=figure.start + begin, end=figure.end + begin),
            )
    return found


def extract_object(text: str) -> dict[str, JSON] | None:
    """The last JSON object of ``text`` (fenced or bare, within the last 20,000 characters)."""
    decoder = json.JSONDecoder()
    offset = max(0, len(text) - MAX_JSON_WINDOW)
    starts = [m.start() for m in _OBJECT_START.finditer(text, offset)][-MAX_JSON_STARTS:]
    best: tuple[int, dict[str, JSON]] | None = None
    for start in starts:
        if best is not None and start < best[0]:
            continue  # inside an object already decoded
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            best = (end, value)
    return best[1] if best is not None else None


def _from_json(source: str) -> Located | None:
    if '"' not in source or "{" not in source:
        return None
    data = extract_object(source)
    if data is None:
        return None
    key = next((k for k in ANSWER_KEYS if k in data), None)
    if key is None:
        return None
    value = data[key]
    if value is None:
        text = ""
    elif isinstance(value, str):
        text = value
    else:
        text = json.dumps(value)
    at = source.rfind(text) if text else -1
    start, end = (at, at + len(text)) if at >= 0 else (0, len(source))
    return Located("json", text.strip(), start, end, source, data=data)


def find_boxes(text: str) -> list[Box]:
    """Every complete ``\\boxed{...}``/``\\fbox{...}`` (and bare ``\\boxed 5``), in order."""
    closing = _closing_braces(text)
    boxes: list[Box] = []
    for match in _BOX.finditer(text):
        if match["bare"] is not None:
            bare = match.start("bare")
            boxes.append(Box(match.start(), match.end(), bare, match.end(), match["bare"]))
            continue
        close = closing.get(match.end() - 1)
        if close is not None:
            content = text[match.end() : close]
            lead = len(content) - len(content.lstrip())
            boxes.append(
                Box(
                    match.start(),
                    close + 1,
                    match.end() + lead,
                    match.end() + lead + len(content.strip()),
                    content.strip(),
                )
            )
    return [box for i, box in enumerate(boxes) if i == 0 or box.start >= boxes[i - 1].end]


def _closing_braces(text: str) -> dict[int, int]:
    """The index of the ``}`` that closes each ``{`` (one pass; unclosed ones are absent)."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for index, char in enumerate(text):
        if char == "{":
            stack.append(index)
        elif char == "}" and stack:
            pairs[stack.pop()] = index
    return pairs


def _from_boxes(source: str) -> Located | None:
    boxes = find_boxes(source)
    if not boxes:
        return None
    run = [boxes[-1]]
    alternatives = False
    for box in reversed(boxes[:-1]):
        between = source[box.end : run[0].start]
        if not is_connective(between):
            break
        alternatives = alternatives or _OR.search(between) is not None
        run.insert(0, box)
    candidates = tuple(dict.fromkeys(box.content for box in run))
    last = boxes[-1]
    return Located(
        "boxed", last.content, last.content_start, last.content_end, source, candidates,
        alternatives=alternatives and len(candidates) > 1,
    )  # fmt: skip


def _markers(text: str) -> list[tuple[int, int, Method]]:
    return sorted(
        ((m.start(), m.end(), method) for method, p in _PHRASES for m in p.finditer(text)),
        reverse=True,
    )


def _from_phrases(source: str) -> Located | None:
    """The answer after the last phrase that is followed by one."""
    for _, end, method in _markers(source):
        raw = source[end : end + MAX_LINE_LENGTH]
        tail = clean_tail(_phrase_tail(raw))
        if tail and is_prose(tail):  # "Final Answer\n\nThe total is **$18**."
            tail = final_item(last_sentence(drop_asides(_phrase_tail(raw, keep_stars=True)))) or ""
        if tail:
            at = source.find(tail, end, end + MAX_LINE_LENGTH)
            start, stop = (at, at + len(tail)) if at >= 0 else (end, end + len(raw))
            return Located(method, tail, start, stop, source)
    return None


def _ends_with_marker(text: str) -> bool:
    """True when the response ends on an answer marker ("Answer:") with nothing after it."""
    return any(_MARKER_END.fullmatch(text, end) for _, end, _ in _markers(text)[:1])


def _phrase_tail(rest: str, *, keep_stars: bool = False) -> str:
    """The answer that follows a phrase: its math span, else up to the end of the sentence
    (with its closing bold marks when ``keep_stars``)."""
    lines = [line.strip() for line in rest.split("\n")]
    first = next((line for line in lines[:3] if line.strip("*: ")), "")
    first = first.strip().lstrip("*:：= ").strip()
    math = leading_math_run(first)
    if math is not None:
        return math
    end = _SENTENCE_END.search(first)
    if end is not None and not _abbreviation_before(first, end.start()):
        first = first[: end.start()]
    return first.strip() if keep_stars else first.strip().strip("*").strip()


def _abbreviation_before(text: str, period: int) -> bool:
    """A period of "Dec." or "U.S." does not end the sentence."""
    word = re.search(r"[A-Za-z.]+$", text[:period])
    return word is not None and (
        word.group(0)
        in ("Dec", "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov")
        or "." in word.group(0)
    )


def _from_whole(source: str) -> Located | None:
    text = source.strip()
    if "\n" in text or len(text) > MAX_WHOLE_LENGTH or is_prose(text):
        return None
    start = source.find(text)
    return Located("whole", text, start, start + len(text), source)


def is_prose(text: str) -> bool:
    """True for a sentence rather than an answer.

    An answer may hold words only after its figure (``72 clips``, ``$1,500 thousand``,
    ``5 \\text{ cm}``) or be words alone (``no solution``); a word before any digit
    (``So 2+3 = 5``) makes prose.
    """
    if _FIRST_PERSON.search(text):
        return True
    bare = _COMMAND.sub(" ", text)
    words = [w for w in _WORD.finditer(bare) if w.group(0).lower() not in _MATH_NAMES]
    if len(words) >= _PROSE_MAX_WORDS:
        return True
    words_before = [w for w in words if w.group(0).lower() not in _SCALE_NAMES]
    if words_before and any(char.isdigit() for char in bare[words_before[0].end() :]):
        return True
    lowered = [word.group(0).lower() for word in words]
    return len(lowered) >= _PROSE_MIN_WORDS and any(word in _PROSE_WORDS for word in lowered)


def _line_item(line: str) -> str | None:
    return final_item(last_sentence(drop_asides(line[-MAX_LINE_LENGTH:])))


def _from_lines(source: str) -> Located | None:
    lines = [
        (match.start(), match.group(0))
        for match in re.finditer(r"[^\n]+", source)
        if match.group(0).strip()
    ]
    if not lines or is_cut_off(lines[-1][1]):
        return None
    for position, (offset, line) in enumerate(reversed(lines[-MAX_FALLBACK_LINES:])):
        item = _line_item(line)
        if not item and position == 0 and _DIGIT.search(line):
            # a last line with digits but no figure read ("La respuesta es 3,5."): the answer
            # is there, unread; an earlier line's working is not it (a sign-off has no digit)
            return None
        if item:
            method: Method = "last_line" if position == 0 else "last_figure"
            at = line.rfind(item)
            start, end = (
                (offset + at, offset + at + len(item)) if at >= 0 else (offset, offset + len(line))
            )
            return Located(method, item, start, end, source)
    return None
