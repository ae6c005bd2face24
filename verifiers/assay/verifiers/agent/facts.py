"""Required facts in a final answer, matched as numbers and words, never as substrings.

A fact is a number (``42.5``, or a string that is one, ``"10"``), a phrase (``"cancelled"``,
``"ORD-1002"``), or ``{"any": [...]}`` (any one of several). The answer is read into

- numbers: every figure the shared reader (:mod:`assay.verifiers.reading`) finds: digits with
  thousands separators and decimals, currency and percent signs around them (``$1,000.50`` is
  1000.5, ``10%`` is 10), scale words (``1.5 million`` counts as 1.5 and as 1500000),
  scientific notation, and number words (``ten``, ``twenty-five``, ``three hundred``,
  ``a dozen``); a minus sign counts only at the start of a word, accounting parentheses are no
  sign in a chat reply (``(42)`` is 42), and the numbers of a date count (a fact may be a day).
  Digits glued to letters (``v10``, ``3rd``, ``H2O``) are no numbers;
- words: casefolded NFKC runs of letters and digits.

A number fact is stated when some number of the answer equals it (relative tolerance 1e-9):
``10`` is *not* found in ``$1,000`` (that number is 1000), nor in ``100`` or ``10.5``. A phrase is
stated when its words occur contiguously in the answer's words: ``"cancel"`` is not found in
``"cancelled"``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assay.verifiers.reading import scan_numbers

from assay.errors import MalformedTaskError
from assay.types import JSON

_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Fact:
    """One required fact: alternatives, each a number or a phrase (tuple of words)."""

    label: str
    numbers: tuple[float, ...]
    phrases: tuple[tuple[str, ...], ...]


def words(text: str) -> list[str]:
    """Casefolded NFKC word tokens."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def _as_number(value: JSON) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        found = numbers_in(value)
        stripped = re.sub(r"[\s$€£¥%]", "", value)
        if len(found) == 1 and re.fullmatch(r"-?[\d,]*\.?\d+", stripped):
            return found[0]
    return None


def parse_facts(facts: JSON) -> list[Fact]:
    """Facts from a reference list; raises :class:`MalformedTaskError` on a bad entry."""
    if not isinstance(facts, list):
        raise MalformedTaskError(f"facts must be a list, got {type(facts).__name__}")
    parsed = []
    for position, fact in enumerate(facts):
        options = fact.get("any") if isinstance(fact, Mapping) else [fact]
        if not isinstance(options, list) or not options:
            raise MalformedTaskError(f"facts[{position}] must be a value or {{'any': [values]}}")
        numbers, phrases = [], []
        for option in options:
            number = _as_number(option)
            if number is not None:
                numbers.append(number)
            elif isinstance(option, str) and words(option):
                phrases.append(tuple(words(option)))
            else:
                raise MalformedTaskError(f"facts[{position}]: {option!r} is no number or phrase")
        label = " | ".join(str(o) for o in options)
        parsed.append(Fact(label, tuple(numbers), tuple(phrases)))
    return parsed


def numbers_in(text: str) -> list[float]:
    """Every number stated in ``text``, digits and number words (read by the shared reader).

    Example:
        >>> numbers_in("Refunded $1,000 for twenty-five items on 2024-05-10.")
        [1000.0, 25.0, 2024.0, 5.0, 10.0]
    """
    found: list[float] = []
    for figure in scan_numbers(text).figures:
        value = -figure.value if figure.parenthesized else figure.value
        found.append(float(value))
        if figure.scale is not None:
            found.append(float(figure.scaled))
    return found


def _contains(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    size = len(needle)
    return any(
        list(haystack[i : i + size]) == list(needle) for i in range(len(haystack) - size + 1)
    )


def stated(fact: Fact, answer_numbers: Sequence[float], answer_words: Sequence[str]) -> bool:
    """Whether one fact is stated by an answer read into numbers and words."""
    for target in fact.numbers:
        if any(math.isclose(n, target, rel_tol=1e-9, abs_tol=1e-12) for n in answer_numbers):
            return True
    return any(_contains(answer_words, phrase) for phrase in fact.phrases)


_ITEM = r"[^\s,;:()]+"
_HEDGE_LIST = re.compile(
    rf"{_ITEM}(?:\s*,\s*{_ITEM})+\s*,?\s+(?:or|and/or)\s+{_ITEM}"  # "A, B, C or D"
    r"|[-+$€£]?\d[\d,.]*%?\s+(?:or|and/or)\s+[-+$€£]?\d[\d,.]*%?",  # "$50 or $60"
    re.IGNORECASE,
)
"""Alternatives joined by "or": a list that names several answers commits to none."""


def check_facts(facts: Sequence[Fact], answer: str) -> list[bool]:
    """For each fact, whether ``answer`` states it.

    A fact stated only among alternatives joined by "or" ("pending, delivered, cancelled or
    returned", "0, 1, 2, ... or 10 events", "$50 or $60") is not stated: the hedge covers
    the fact without committing to it.
    """
    answer_numbers, answer_words = numbers_in(answer), words(answer)
    found = [stated(fact, answer_numbers, answer_words) for fact in facts]
    if any(found) and _HEDGE_LIST.search(answer):
        committed = _HEDGE_LIST.sub(" ; ", answer)
        numbers, plain = numbers_in(committed), words(committed)
        found = [ok and stated(fact, numbers, plain) for ok, fact in zip(found, facts, strict=True)]
    return found
