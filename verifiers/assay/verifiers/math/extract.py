"""Finding the final answer in a model's response, with the shared reader.

Math reads responses with :func:`assay.verifiers.reading.locate_answer` (docs/reading.md):
special tokens a decoder left in (``<|im_end|>``, ``</s>``, ``<|eot_id|>``...) are removed,
only the text after a closing ``</think>`` is searched, and money dollar signs in word
problems ("sells them for $2 each, so she makes $18") are prices, not LaTeX delimiters. This
module only names the reader's methods in math's vocabulary:

``boxed``
    The last complete ``\\boxed{...}``/``\\fbox{...}``; the distinct contents of a run of boxes
    offered together are the ``candidates`` (a hedge, or a list).
``final_answer_phrase``
    After the last "final answer (is)", "the (correct) answer is", or a JSON ``answer`` key.
``answer_colon`` / ``hash``
    After the last "Answer:" or GSM8K's ``####``.
``whole``
    A short one-line response that is not prose.
``last_line``
    The item the last line's main clause ends on.
``last_figure``
    When the last line is a sign-off, the item of the nearest earlier line that has one (the
    least trusted method; accepted: the response still commits to that item last).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Literal

from assay.verifiers.reading import locate_answer
from assay.verifiers.reading.numbers import OR_WORDS

Method = Literal[
    "boxed", "final_answer_phrase", "answer_colon", "hash", "whole", "last_line", "last_figure"
]

_METHODS: dict[str, Method] = {
    "json": "final_answer_phrase",
    "boxed": "boxed",
    "final_answer": "final_answer_phrase",
    "answer_is": "final_answer_phrase",
    "answer_colon": "answer_colon",
    "hash": "hash",
    "whole": "whole",
    "last_line": "last_line",
    "last_figure": "last_figure",
}


@dataclass(frozen=True, slots=True)
class Extraction:
    """What was taken from a response, and how.

    Attributes:
        method: Which rule found it (see the module docstring).
        text: The extracted answer, raw (not normalized).
        candidates: For ``boxed``: the contents of the run of boxes offered together, in
            order and without exact repeats; more than one means the model hedged. Otherwise
            the two figures of "X or Y" when the answer is one of them.
        alternatives: The candidates are joined by "or".
    """

    method: Method
    text: str
    candidates: tuple[str, ...] = ()
    alternatives: bool = False


_GLUED_ROLE_WORD = re.compile(r"(?:(?<=[0-9})\]$])|(?<=[0-9})\]$]\.))assistant\s*\Z")
"""The next turn's role word glued to the final answer at the very end: a decode with
``skip_special_tokens`` of a policy that ran past its end of turn (Llama 3's
``#### 72<|eot_id|><|start_header_id|>assistant<|end_header_id|>`` is ``#### 72assistant``;
verl's gsm8k scorer reads the 72). Only right after a digit, ``}``, ``)``, ``]`` or ``$``,
or one of them and a full stop ("The answer is 72.assistant"), so an answer that ends in a
word of its own is never cut."""


@lru_cache(maxsize=16)  # grade_identical and grade read the same response in turn
def extract_answer(response: str) -> Extraction | None:
    """Find the final answer of a response, or None when there is nothing to extract.

    Example:
        >>> extract_answer("So $x = 2$, and the area is $\\\\boxed{\\\\frac{1}{2}}$.")
        ... # doctest: +NORMALIZE_WHITESPACE
        Extraction(method='boxed', text='\\\\frac{1}{2}', candidates=('\\\\frac{1}{2}',),
                   alternatives=False)
        >>> extract_answer("Natalia sold 48 + 24 = 72 clips.\\n#### 72<|im_end|>").text
        '72'
        >>> extract_answer("48 + 24 = 72\\n#### 72assistant").text
        '72'
    """
    found = locate_answer(_GLUED_ROLE_WORD.sub("", response))
    if found is None:
        return None
    method = _METHODS[found.method]
    if found.method != "boxed":
        offered = _offered_with(found.source, found.start, found.end, found.text)
        if offered is not None:  # "The answer is 18 or 20.": two answers, not the last one
            return Extraction(method, found.text, offered, alternatives=True)
    return Extraction(method, found.text, found.candidates, found.alternatives)


_OR_WORDS = f"(?:{OR_WORDS})"
_FIG = r"[-−]?[$€£¥]?\d[\d,.]*(?:/\d+)?%?"
_UNIT = r"(?:\s*[^\W\d_]+){0,2}"
"""Up to two words after the first figure ("18 apples or 20 apples")."""
_HEDGE_WORD = r"(?:[^\W\d_]+\s+){0,3}"
"""Up to three words between the "or" and the second figure ("18 or maybe even 20")."""
_OR = rf"\s*[,;，、]?\s*(?:{_OR_WORDS}|[～〜])\s*[,;，、]?\s*{_HEDGE_WORD}"
_JOIN = rf"\$?{_UNIT}{_OR}"
_OR_BEFORE = re.compile(
    rf"(?P<fig>{_FIG})\$?(?P<unit>{_UNIT}){_OR}(?:[A-Za-z]\s*=\s*)?[$]?\s*\Z", re.IGNORECASE
)
_WORD_AFTER = re.compile(r"\s*([^\W\d_]+)")
_OR_AFTER = re.compile(rf"{_JOIN}(?:[A-Za-z]\s*=\s*)?\$?\s*(?P<fig>{_FIG})", re.IGNORECASE)
_OR_INSIDE = re.compile(rf"\s*(?P<a>{_FIG}){_JOIN}(?P<b>{_FIG})\s*", re.IGNORECASE)
_RANGE_BEFORE = re.compile(
    rf"(?:\bbetween\s+(?P<a>{_FIG}){_UNIT}\s+and|(?<!from\s)(?<![\d.,])(?P<b>{_FIG}){_UNIT}\s+to)"
    rf"\s+\$?\s*\Z",
    re.IGNORECASE,
)
"""A range ending at the answer ("between 18 and 20", "18 to 20"; not "from 18 to 20")."""


def _offered_with(source: str, start: int, end: int, text: str) -> tuple[str, str] | None:
    """The two answers of "X or Y" (or a range "between X and Y") when the located answer is
    one of them: a hedge against one gold answer, the solutions of an equation against a set
    of two. One value written two ways ("3/4 or 0.75", "0.5, or 50%") is no hedge."""
    inside = _OR_INSIDE.fullmatch(text)
    if inside is not None:
        return _two(inside["a"], inside["b"])
    window = max(0, start - 80)
    before = _OR_BEFORE.search(source, window, start)
    if before is not None and _word_boundary(source, before.start("fig")):
        unit, after = before["unit"].split(), _WORD_AFTER.match(source, end)
        if unit and after is not None and unit[0].lower() != after.group(1).lower():
            return None  # "2 hours or 120 minutes": one quantity in two units
        return _two(before["fig"], text)
    ranged = _RANGE_BEFORE.search(source, window, start)
    if ranged is not None:
        group = "a" if ranged["a"] else "b"
        if _word_boundary(source, ranged.start(group)):
            return _two(ranged[group], text)
    after = _OR_AFTER.match(source, end, end + 80)
    if after is not None and _after_figure_ends(source, after.end()):
        return _two(text, after["fig"])
    return None


def _two(first: str, second: str) -> tuple[str, str] | None:
    first, second = first.strip(" ,.$"), second.strip(" ,.$")
    if not first or not second or first == second or _same_value(first, second):
        return None
    return first, second


def _same_value(first: str, second: str) -> bool:
    """Whether two figures are one value written two ways: 3/4 and 0.75, 0.5 and 50%."""
    a, b = _value(first), _value(second)
    if a is None or b is None:
        return False
    return a[0] == b[0] or (a[1] != b[1] and (a[0] == b[0] * 100 or a[0] * 100 == b[0]))


def _value(text: str) -> tuple[Fraction, bool] | None:
    """A figure's value and whether it was a percentage (``None``: not a plain figure)."""
    bare = text.strip().lstrip("$€£¥").replace(",", "").replace("−", "-")
    percent = bare.endswith("%")
    try:
        return Fraction(bare.rstrip("%")), percent
    except (ValueError, ZeroDivisionError):
        return None


def _word_boundary(source: str, at: int) -> bool:
    """The figure starts a token: no Latin letter, digit or separator glued before it (a kana
    or ideograph may be: "答えは18か20")."""
    return at == 0 or not _GLUED.match(source[at - 1])


def _after_figure_ends(source: str, at: int) -> bool:
    return at >= len(source) or not _GLUED.match(source[at])


_GLUED = re.compile(r"[A-Za-z0-9.,]|\d")
