"""Numbers written in words: "ten", "twenty-five", "one hundred twelve", "a dozen".

Grammar (English, cardinal): units ``zero``..``nineteen``, tens ``twenty``..``ninety`` (joined to
a unit by a space or a hyphen), ``hundred`` after a unit or a ten, then the big scales
``thousand``, ``million``, ``billion``, ``trillion`` in decreasing order; ``and`` joins only
after a scale (``three hundred and five``); ``a`` counts as one before a scale or ``dozen``
(``a hundred``, ``a dozen``), and ``dozen`` multiplies by 12 (``two dozen``). Anything else
ends the number, and a word that cannot continue it starts a new one: ``five three`` is two
numbers, ``thousand thousand`` too. So the value of one phrase stays below 10**15 whatever
the response writes (at most 24 words make one phrase), so no phrase needs a size limit.
Ordinals (``third``) and fractions (``half``) are not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

_UNIT_TEXT = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
)
UNITS = {word: value for value, word in enumerate(_UNIT_TEXT.split())}
TENS = {
    word: 10 * (i + 2)
    for i, word in enumerate(
        ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    )
}
BIG_SCALES = {
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
}
_WORD = re.compile(r"[A-Za-z]+")
_JOIN = re.compile(r"[ \t]+|[ \t]*-[ \t]*")


@dataclass(frozen=True, slots=True)
class WordNumber:
    """A number phrase: its value and its span in the text."""

    value: Decimal
    start: int
    end: int


def _is_number_word(word: str) -> bool:
    return word in UNITS or word in TENS or word in BIG_SCALES or word in ("hundred", "dozen")


class _Phrase:
    """The state of one number phrase being read."""

    def __init__(self, start: int) -> None:
        self.start = start
        self.end = start
        self.total = 0
        self.current = 0
        self.last = ""  # "", "unit", "ten", "hundred", "big", "and", "a", "dozen"
        self.big = 10**15  # the next big scale must be smaller than this

    def take(self, word: str) -> bool:
        """Add ``word`` to the phrase; False when it cannot continue it."""
        if word in UNITS:
            value = UNITS[word]
            if self.last in ("", "hundred", "big", "and") or (self.last == "ten" and value < 10):
                self.current += value
                self.last = "unit"
                return True
            return False
        if word in TENS:
            if self.last in ("", "hundred", "big", "and"):
                self.current += TENS[word]
                self.last = "ten"
                return True
            return False
        if word == "hundred":
            if self.last in ("unit", "ten", "a") and 0 < max(self.current, 1) < 100:
                self.current = max(self.current, 1) * 100
                self.last = "hundred"
                return True
            return False
        if word == "dozen":
            if self.last in ("unit", "a") and 0 < max(self.current, 1) < 100:
                self.current = max(self.current, 1) * 12
                self.last = "dozen"
                return True
            return False
        if word in BIG_SCALES:
            scale = BIG_SCALES[word]
            if self.last in ("unit", "ten", "hundred", "a", "dozen") and scale < self.big:
                self.total += max(self.current, 1) * scale
                self.current = 0
                self.big = scale
                self.last = "big"
                return True
            return False
        return False

    @property
    def value(self) -> int:
        return self.total + self.current

    @property
    def complete(self) -> bool:
        return self.last not in ("", "and", "a")


def find_word_numbers(text: str) -> list[WordNumber]:
    """Every number phrase of ``text``, in order.

    Example:
        >>> [(str(n.value), n.start) for n in find_word_numbers("twenty-five and a dozen")]
        [('25', 0), ('12', 16)]
    """
    found: list[WordNumber] = []
    phrase: _Phrase | None = None
    pending: tuple[str, int] | None = None  # an "a" or "and" that may join the next word
    previous_end = -1
    for match in _WORD.finditer(text):
        word = match.group(0).lower()
        joined = (
            previous_end >= 0 and _JOIN.fullmatch(text, previous_end, match.start()) is not None
        )
        previous_end = match.end()
        if phrase is not None and not joined:
            found.append(_close(phrase))
            phrase, pending = None, None
        if word in ("and", "a", "an"):
            pending = _pending_after(word, phrase, match.start())
            if pending is None and phrase is not None:
                found.append(_close(phrase))
                phrase = None
            continue
        if not _is_number_word(word):
            if phrase is not None:
                found.append(_close(phrase))
            phrase, pending = None, None
            continue
        phrase = _advance(phrase, pending, word, match.start(), found)
        pending = None
        if phrase is not None:
            phrase.end = match.end()
    if phrase is not None:
        found.append(_close(phrase))
    return [number for number in found if number.end > number.start]


def _pending_after(word: str, phrase: _Phrase | None, start: int) -> tuple[str, int] | None:
    if word == "and":
        return ("and", start) if phrase is not None and phrase.last in ("hundred", "big") else None
    return ("a", start) if phrase is None else None


def _advance(
    phrase: _Phrase | None,
    pending: tuple[str, int] | None,
    word: str,
    start: int,
    found: list[WordNumber],
) -> _Phrase | None:
    """Feed ``word`` to the open phrase, or start a new one (closing the old)."""
    if phrase is not None and pending is not None and pending[0] == "and":
        phrase.last = "and"
    if phrase is not None and phrase.take(word):
        return phrase
    if phrase is not None:
        found.append(_close(phrase))
    fresh = _Phrase(pending[1] if pending is not None and pending[0] == "a" else start)
    if pending is not None and pending[0] == "a":
        fresh.last = "a"
    if fresh.take(word):
        return fresh
    return None


def _close(phrase: _Phrase) -> WordNumber:
    if not phrase.complete:
        return WordNumber(Decimal(0), phrase.start, phrase.start)
    return WordNumber(Decimal(phrase.value), phrase.start, phrase.end)
