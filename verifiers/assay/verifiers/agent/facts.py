"""Required facts in a final answer, matched as numbers and words, never as substrings.

A fact is a number (``42.5``, or a string that is one, ``"10"``), a phrase (``"cancelled"``,
``"ORD-1002"``), or ``{"any": [...]}`` (any one of several). The answer is read into

- numbers: digits with optional thousands separators and decimals, currency and percent signs
  around them (``$1,000.50`` is 1000.5, ``10%`` is 10), and number words (``ten``,
  ``twenty-five``, ``three hundred``); a minus sign counts only at the start of a word;
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

from assay.errors import MalformedTaskError
from assay.types import JSON

_NUMBER = re.compile(
    r"(?<![\w.])(-)?"  # a minus counts only where a word may start
    r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?![\d])"
)
_WORD = re.compile(r"\w+")
_UNIT_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
)
_TEN_WORDS = "twenty thirty forty fifty sixty seventy eighty ninety"
_UNITS = {word: value for value, word in enumerate(_UNIT_WORDS.split())}
_TENS = {word: 10 * (i + 2) for i, word in enumerate(_TEN_WORDS.split())}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}


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
    """Every number stated in ``text``, digits and number words."""
    text = unicodedata.normalize("NFKC", text)
    found = []
    for match in _NUMBER.finditer(text):
        value = float(match.group(2).replace(",", ""))
        found.append(-value if match.group(1) else value)
    found.extend(_word_numbers(words(text.replace("-", " "))))
    return found


def _word_numbers(tokens: Sequence[str]) -> list[float]:
    """Numbers written as words: ``twenty five``, ``three hundred and five``, ``two thousand``.

    ``and`` joins only after ``hundred``/``thousand``/``million``; two units in a row
    (``five three``) are two numbers.
    """
    found: list[float] = []
    total, current, last = 0, 0, ""
    for position, token in enumerate([*tokens, ""]):
        if token in _UNITS and last in ("", "ten", "scale", "and"):
            joins = last != "ten" or _UNITS[token] < 10
            if not joins:
                found.append(_as_float(total + current))
                total, current = 0, 0
            current += _UNITS[token]
            last = "unit"
        elif token in _TENS and last in ("", "scale", "and"):
            current += _TENS[token]
            last = "ten"
        elif token in _UNITS or token in _TENS:
            found.append(_as_float(total + current))
            total, current = _UNITS.get(token, 0), _TENS.get(token, 0)
            last = "unit" if token in _UNITS else "ten"
        elif token in _SCALES and last in ("unit", "ten", "scale"):
            current = max(current, 1) * _SCALES[token]
            if _SCALES[token] > 100:
                total, current = total + current, 0
            last = "scale"
        elif token == "and" and last == "scale" and _is_number_word(tokens, position + 1):
            last = "and"
        else:
            if last:
                found.append(_as_float(total + current))
            total, current, last = 0, 0, ""
    return found


def _as_float(value: int) -> float:
    """``value`` as a float; ``inf`` past float range ("hundred hundred ..." compounds)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _is_number_word(tokens: Sequence[str], position: int) -> bool:
    return position < len(tokens) and (tokens[position] in _UNITS or tokens[position] in _TENS)


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


def check_facts(facts: Sequence[Fact], answer: str) -> list[bool]:
    """For each fact, whether ``answer`` states it."""
    answer_numbers, answer_words = numbers_in(answer), words(answer)
    return [stated(fact, answer_numbers, answer_words) for fact in facts]
