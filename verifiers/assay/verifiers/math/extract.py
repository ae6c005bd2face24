"""Finding the final answer in a model's response.

The methods, tried in order (the first that finds something wins):

``boxed``
    The last ``\\boxed{...}`` or ``\\fbox{...}`` (nested braces allowed); a box that never
    closes (a cut-off response) leaves nothing to extract. Boxes offered
    together (separated only by connectives such as ``,``, ``or``, ``and``, ``x =``) form a
    *run*; the run's distinct contents are reported as ``candidates`` so the grader can
    refuse a hedge (``\\boxed{3} or \\boxed{5}``) or read it as a list when the gold is one.
``final_answer_phrase`` / ``answer_colon`` / ``hash``
    The text after the last "final answer is", "the answer is", "Answer:" or ``####``:
    the math delimiters that open it, else up to the end of the sentence, without asides
    ("7 (since 7^2 = 49)"), corrections ("not 5, it is 7") or trailing clauses. A marker
    with nothing after it ends the search: the response stopped before its answer.
``whole``
    A short one-line response that is not prose is the answer itself (words may follow
    the math, as units, or make up the whole answer, as in ``no solution``).
``last_line``
    Fallback, on the last non-empty line: its last bold span, else the answer its last
    sentence ends on (a run of math spans, a run of choice letters, or the last number of
    its main clause). A line cut off mid-sentence ("... so we compute") yields nothing.

Only the text after a closing ``</think>`` is searched when the response has one; a
``<think>`` that never closes means the response was cut off while thinking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from assay.verifiers.math.sentence import (
    clean_tail,
    drop_asides,
    final_item,
    is_connective,
    is_cut_off,
    last_sentence,
    leading_math_run,
)

Method = Literal["boxed", "final_answer_phrase", "answer_colon", "hash", "whole", "last_line"]

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
MAX_WHOLE_LENGTH = 100
"""Longest one-line response read as the answer itself."""
MAX_LINE_LENGTH = 1000
"""Characters of a line read after a phrase, or at the end of the last line."""

_BOX = re.compile(r"\\(?:boxed|fbox)\s*(?:\{|(?P<bare>[^\s{$\\][^\s$]*))")
_PHRASES: tuple[tuple[Method, re.Pattern[str]], ...] = (
    (
        "final_answer_phrase",
        re.compile(r"final\s+answer\s*\**\s*(?:is\b|:|=)?", re.IGNORECASE),
    ),
    (
        "final_answer_phrase",
        re.compile(
            r"\bthe\s+(?:correct\s+)?answer\s+(?:is|would\s+be|should\s+be)\b", re.IGNORECASE
        ),
    ),
    ("answer_colon", re.compile(r"(?<!final\s)\banswer\s*\**\s*[:：]", re.IGNORECASE)),
    ("hash", re.compile(r"####")),
)
_DISPLAY_MATH = re.compile(r"\\\[.*?\\\]|\$\$.*?\$\$", re.S)
_SENTENCE_END = re.compile(r"\.(?=\s|$)|\s+(?:I hope|Hope this)\b")
_MARKER_END = re.compile(r"[\s*:：.]*")
_FIRST_PERSON = re.compile(r"\bI\s+[a-z]|n't\b")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_WORD = re.compile(r"[A-Za-z]{2,}")
_PROSE_WORDS_TEXT = (
    "the is are was be so thus therefore hence we answer equals get have this that of to which it"
)
_PROSE_WORDS = frozenset(_PROSE_WORDS_TEXT.split())
_MATH_NAMES_TEXT = "sqrt sin cos tan cot sec csc log ln exp pi abs mod gcd lcm inf infinity"
_MATH_NAMES = frozenset(_MATH_NAMES_TEXT.split())
_PROSE_MIN_WORDS = 3
_PROSE_MAX_WORDS = 6


@dataclass(frozen=True, slots=True)
class Extraction:
    """What was taken from a response, and how.

    Attributes:
        method: Which rule found it (see the module docstring).
        text: The extracted answer, raw (not normalized).
        candidates: For ``boxed``: the contents of the run of boxes offered together, in
            order and without exact repeats; more than one means the model hedged.
    """

    method: Method
    text: str
    candidates: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Box:
    """One ``\\boxed{...}``: its span in the text and its content."""

    start: int
    end: int
    content: str


def _join_display_math(text: str) -> str:
    """Put each display-math block (``\\[ ... \\]``, ``$$ ... $$``) on one line.

    Models often write the final answer as a display block over several lines; the line-based
    fallbacks must see it whole.
    """
    return _DISPLAY_MATH.sub(lambda m: m.group(0).replace("\n", " "), text)


def answer_region(response: str) -> str:
    """The part of a response that holds the answer: the text after the last ``</think>``.

    Empty when a ``<think>`` never closes (the response was cut off while thinking).
    """
    index = response.rfind(THINK_CLOSE)
    if index >= 0:
        return response[index + len(THINK_CLOSE) :]
    return "" if THINK_OPEN in response else response


def extract_answer(response: str) -> Extraction | None:
    """Find the final answer of a response, or None when there is nothing to extract.

    Example:
        >>> extract_answer("So $x = 2$, and the area is $\\\\boxed{\\\\frac{1}{2}}$.")
        Extraction(method='boxed', text='\\\\frac{1}{2}', candidates=('\\\\frac{1}{2}',))
        >>> extract_answer("Natalia sold 48 + 24 = 72 clips.\\n#### 72").text
        '72'
    """
    text = _join_display_math(answer_region(response)).strip()
    if not text:
        return None
    boxed = _from_boxes(text)
    if boxed is not None or _BOX.search(text):
        return boxed  # a box that never closes is a cut-off answer: nothing to extract
    if _ends_with_marker(text):
        return None
    for finder in (_from_phrases, _from_whole, _from_last_line):
        found = finder(text)
        if found is not None:
            return found
    return None


def find_boxes(text: str) -> list[Box]:
    """Every complete ``\\boxed{...}``/``\\fbox{...}`` (and bare ``\\boxed 5``), in order."""
    closing = _closing_braces(text)
    boxes: list[Box] = []
    for match in _BOX.finditer(text):
        if match["bare"] is not None:
            boxes.append(Box(match.start(), match.end(), match["bare"]))
            continue
        close = closing.get(match.end() - 1)
        if close is not None:
            boxes.append(Box(match.start(), close + 1, text[match.end() : close].strip()))
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


def _from_boxes(text: str) -> Extraction | None:
    boxes = find_boxes(text)
    if not boxes:
        return None
    run = [boxes[-1]]
    for box in reversed(boxes[:-1]):
        if not is_connective(text[box.end : run[0].start]):
            break
        run.insert(0, box)
    candidates = tuple(dict.fromkeys(box.content for box in run))
    return Extraction("boxed", boxes[-1].content, candidates)


def _from_phrases(text: str) -> Extraction | None:
    """The answer after the last phrase that is followed by one."""
    markers = sorted(
        (
            (match.start(), match.end(), method)
            for method, p in _PHRASES
            for match in p.finditer(text)
        ),
        reverse=True,
    )
    for _, end, method in markers:
        tail = clean_tail(_phrase_tail(text[end : end + MAX_LINE_LENGTH]))
        if tail:
            return Extraction(method, tail)
    return None


def _ends_with_marker(text: str) -> bool:
    """True when the response ends on an answer marker ("Answer:") with nothing after it."""
    for _, pattern in _PHRASES:
        for match in pattern.finditer(text):
            if _MARKER_END.fullmatch(text, match.end()):
                return True
    return False


def _phrase_tail(rest: str) -> str:
    """The answer that follows a phrase: its math span, else up to the end of the sentence."""
    lines = [line.strip() for line in rest.split("\n")]
    first = next((line for line in lines[:3] if line.strip("*: ")), "")
    first = first.strip().lstrip("*:： ").strip()
    math = leading_math_run(first)
    if math is not None:
        return math
    end = _SENTENCE_END.search(first)
    if end is not None:
        first = first[: end.start()]
    return first.strip().strip("*").strip()


def _from_whole(text: str) -> Extraction | None:
    if "\n" in text or len(text) > MAX_WHOLE_LENGTH or is_prose(text):
        return None
    return Extraction("whole", text)


def is_prose(text: str) -> bool:
    """True for a sentence rather than an answer.

    An answer may hold words only after its math (``72 clips``, ``5 \\text{ cm}``) or be
    words alone (``no solution``); a word before any digit (``So 2+3 = 5``) makes prose.
    """
    if _FIRST_PERSON.search(text):
        return True
    bare = _COMMAND.sub(" ", text)
    words = [w for w in _WORD.finditer(bare) if w.group(0).lower() not in _MATH_NAMES]
    if len(words) >= _PROSE_MAX_WORDS:
        return True
    if words and any(char.isdigit() for char in bare[words[0].end() :]):
        return True
    lowered = [word.group(0).lower() for word in words]
    return len(lowered) >= _PROSE_MIN_WORDS and any(word in _PROSE_WORDS for word in lowered)


def _from_last_line(text: str) -> Extraction | None:
    lines = [line for line in text.splitlines() if line.strip()]
    line = lines[-1][-MAX_LINE_LENGTH:] if lines else ""
    if not line or is_cut_off(line):
        return None
    item = final_item(last_sentence(drop_asides(line)))
    return Extraction("last_line", item) if item else None
