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

import json
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assay.verifiers.reading import scan_numbers
from assay.verifiers.reading.numbers import OR_WORDS, Figure

from assay.errors import MalformedTaskError
from assay.types import JSON

_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Fact:
    """One required fact: alternatives, each a number or a phrase (tuple of words)."""

    label: str
    numbers: tuple[float, ...]
    phrases: tuple[tuple[str, ...], ...]


_CLOCK = re.compile(
    r"(?<![\d:])(?P<h>\d{1,2})(?::(?P<m>[0-5]\d)(?![\d:])(?:\s*(?P<p>[ap])\.?\s*m\b\.?)?"
    r"|\s*(?P<q>[ap])\.?\s*m\b\.?)",
    re.IGNORECASE,
)
_GLUED_CODE = re.compile(r"\b(USD|EUR|GBP|CAD|AUD|JPY|CHF|CNY|INR)(?=\d)")
_MONTHS = {
    name: number
    for number, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
         ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
         ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
         ("december", "dec")],
        start=1,
    )
    for name in names
}  # fmt: skip
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ORDINAL = r"(?:st|nd|rd|th)?"
_WORD_DATE = re.compile(
    rf"\b(?:(?P<m1>{_MONTH})\.?\s+(?P<d1>\d{{1,2}}){_ORDINAL},?\s+(?P<y1>\d{{4}})"
    rf"|(?P<d2>\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?(?P<m2>{_MONTH})\.?,?\s+(?P<y2>\d{{4}}))\b",
    re.IGNORECASE,
)
"""A date with its month in words and its year ("March 10, 2025", "10th of Mar 2025"); dates
in digits alone stay as written (``03/10/2025`` is March or October)."""
_DAY_MONTH = re.compile(
    rf"\b(?:(?P<m1>{_MONTH})\.?\s+(?P<d1>\d{{1,2}}){_ORDINAL}"
    rf"|(?P<d2>\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?(?P<m2>{_MONTH}))\b(?!\.?,?\s+\d)",
    re.IGNORECASE,
)
"""A date with its month in words and no year ("Tuesday, 11 March", "March 11th")."""
_ISO_DATE = re.compile(r"\d{4}-(?P<m>\d{2})-(?P<d>\d{2})")


def _month_day(month: int, day: int) -> str:
    """The token a date without its year states (a word: digits alone would read as a number)."""
    return f"monthday{month:02d}x{day:02d}"


def month_days(text: str) -> list[str]:
    """The month-day tokens of the dates in words without a year that ``text`` writes."""
    found = []
    for match in _DAY_MONTH.finditer(text):
        if (match["m1"] or match["m2"]) == "may":
            continue  # "you may 2 ...": the verb (the month is written May)
        month = _MONTHS[(match["m1"] or match["m2"]).lower()]
        day = int(match["d1"] or match["d2"])
        if 1 <= day <= 31:
            found.append(_month_day(month, day))
    return found


def canonical_text(text: str) -> str:
    """Dates with the month in words as ISO dates (``March 10, 2025`` is ``2025-03-10``), clock
    times as 24-hour ``HH:MM`` (``1:00 PM`` is ``13:00``, ``9:15`` is ``09:15``) and a
    currency code glued to its figure spaced (``USD133.50`` is ``USD 133.50``), so a fact and
    an answer that write the same value differently agree."""

    def clock(match: re.Match[str]) -> str:
        hour, minute = int(match["h"]), match["m"] or "00"
        half = (match["p"] or match["q"] or "").lower()
        if hour > 23 or (half and not 1 <= hour <= 12):
            return match.group(0)
        if half:
            hour = hour % 12 + (12 if half == "p" else 0)
        return f"{hour:02d}:{minute}"

    def iso(match: re.Match[str]) -> str:
        month = _MONTHS[(match["m1"] or match["m2"]).lower()]
        day, year = int(match["d1"] or match["d2"]), match["y1"] or match["y2"]
        return f"{year}-{month:02d}-{day:02d}" if 1 <= day <= 31 else match.group(0)

    return _GLUED_CODE.sub(r"\1 ", _CLOCK.sub(clock, _WORD_DATE.sub(iso, text)))


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
                phrases.append(tuple(words(canonical_text(option))))
                iso = _ISO_DATE.fullmatch(option.strip())
                if iso is not None:  # "2025-03-11" is stated by "Tuesday, 11 March" too
                    phrases.append((_month_day(int(iso["m"]), int(iso["d"])),))
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
    return [n for figure in scan_numbers(text).figures for n in figure_values(figure)]


def figure_values(figure: Figure) -> list[float]:
    """The numbers a figure states: its value (negative in accounting parentheses), and the
    scaled value too when a scale word was written (``$1.2 million`` is 1.2 and 1,200,000)."""
    value = float(-figure.value if figure.parenthesized else figure.value)
    return [value, float(figure.scaled)] if figure.scale is not None else [value]


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


_NUMBER_WORDS = (
    "zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    "fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    "eighty|ninety|hundred|dozen"
)
_VALUE = (
    rf"(?:[-+]?[$€£]?\d[\d,]*(?:\.\d+)?%?(?:\s+(?:dollars|usd|euros|events?|items?|orders?))?"
    rf"|\b(?:{_NUMBER_WORDS})\b(?:\s+(?:events?|items?|orders?))?)"
)
"""A bare figure: digits (a currency or percent sign, a unit word) or a number word."""
_DIGITS = r"[-+]?[$€£]?\d[\d,]*(?:\.\d+)?%?"
_MONEY = r"[$€£]\d[\d,]*(?:\.\d+)?"
_GLUE = (
    "and|or|the|a|an|is|are|was|were|be|been|to|of|in|on|at|for|with|it|its|has|have|had|"
    "your|my|our|their|this|that|these|those|then|than|but|not|no|so|as|by|from|also|both"
)
_WORD_VALUE = rf"\b(?!(?:{_GLUE})\b)[A-Za-z][\w-]*\b"
_BARE = rf"(?:{_VALUE}|{_WORD_VALUE})"
_ITEM = r"[^\s,;:()]+"
_HEDGE_LIST = re.compile(
    rf"{_ITEM}(?:\s*,\s*{_ITEM})+\s*,?\s+(?:or|and/or)\s+{_ITEM}"  # "A, B, C or D"
    rf"|{_BARE}(?:\s*[,;/]\s*{_BARE}){{2,}}"  # "0, 1, 2, 3"; "pending; delivered; cancelled"
    rf"|{_DIGITS}(?:\s+{_DIGITS}){{2,}}"  # "0 0.5 1 1.5 2"
    rf"|{_BARE}\s*/\s*{_BARE}"  # "pending / delivered"
    rf"|{_BARE},?\s+(?:or|and/or)\s+(?:maybe\s+|perhaps\s+|possibly\s+)?{_BARE}"  # "2 or 3"
    rf"|{_BARE}\s*[,(]?\s*(?:or\s+)?(?:maybe|perhaps|possibly|probably)\s+{_BARE}\)?"
    rf"|\bbetween\s+{_VALUE}\s+and\s+{_VALUE}"  # "between 2 and 3"
    rf"|(?<!from ){_MONEY}\s*(?:-|–|—|to)\s*{_MONEY}"  # "$124.50–$133.50", "$124.50 to $133.50"
    rf"|{_MONEY}(?:,?\s+and|\s*,)\s+{_MONEY}(?!\s*(?:,|and)\s)"  # "$124.50 and $133.50"
    rf"|{_BARE}\s*\(\s*(?:or|maybe|perhaps|possibly|probably|likely)\s+{_BARE}\s*\)"
    rf"|{_BARE}\s*(?:[—–]+\s*|,\s*)?(?:or|unless|vs\.?|versus)\s+(?:else\s+|it'?s\s+|it\s+is\s+)?{_BARE}"
    rf"|{_BARE}\s*\|\s*{_BARE}"
    # "133.50ドルか124.50ドル", "124.50달러 또는 133.50달러"
    rf"|(?<![A-Za-z\d.,]){_DIGITS}[^\W\d]{{0,4}}\s*[、，,]?\s*(?:{OR_WORDS}|[～〜])\s*[$€£¥]?{_DIGITS}",
    re.IGNORECASE,
)
"""Alternatives offered together: a list or range that names several answers commits to
none ("A, B, C or D", "2 or 3", "pending / delivered", "$124.50 (possibly $133.50)", "1, 2,
3, 4, 5", "0 0.5 1 1.5 2", "between 2 and 3")."""
_UNSURE = re.compile(
    rf"\b(?:maybe|perhaps|possibly|probably|likely|presumably|could\s+be|might\s+be|may\s+be)"
    rf"\s+(?:be\s+|have\s+been\s+|been\s+)?{_BARE}"
    rf"|{_BARE}\s*\?"  # "delivered?"
    rf"|(?:たぶん|多分|おそらく|恐らく|大概|也许|也許|或许|或許|可能是|아마)[^\d\n]{{0,8}}{_DIGITS}"
    rf"|{_DIGITS}[^\W\d]{{0,4}}(?:かもしれ|くらい|ぐらい|ほど|左右|上下|정도|쯤)",
    re.IGNORECASE,
)
"""A figure or word put forward without commitment ("maybe 2")."""
_NEGATED = re.compile(
    rf"(?:\b(?:not|never|no\s+longer|far\s+from|neither|nor|cannot)|\b\w+n't|\bisnt)\s+"
    rf"(?:(?:yet|been|be|quite|actually|really|fully|already)\s+)*{_BARE}"
    rf"(?:\s+nor\s+{_BARE})?",
    re.IGNORECASE,
)
"""A figure or word the answer denies ("not $133.50", "is not delivered")."""


def committed_text(answer: str, facts: Sequence[Fact] = (), quoted: Sequence[str] = ()) -> str:
    """The answer without what it does not commit to: alternatives offered together, figures
    or words put forward as maybe, and ones it denies (each blanked to a clause break).

    A list whose every value is a required fact is no set of alternatives (``W1001, W1002 and
    W1003`` when all three are asked for) and stays; so does a list whose items are values of
    one object of a ``quoted`` tool result, two of them or more in words (an address, "9 Oak
    Rd, Bletchley, 02202" from the street, city and zip of one order, is what the tool gave,
    not three answers offered).
    """
    records = [record for text in quoted for record in _records(text)]

    def alternatives(match: re.Match[str]) -> str:
        span = match.group(0)
        if facts and _only_facts(span, facts):
            return span
        return span if records and _quoted(span, records) else " ; "

    text = _HEDGE_LIST.sub(alternatives, answer)
    text = _UNSURE.sub(" ; ", text)
    return _NEGATED.sub(" ; ", text)


def _records(text: str) -> list[list[list[str]]]:
    """A JSON tool result's objects, each as the words of its scalar values
    (``{"street": "9 Oak Rd", "city": "Bletchley"}`` is one record of two values)."""
    if not text.lstrip().startswith(("{", "[")):
        return []
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return []
    found: list[list[list[str]]] = []
    stack: list[object] = [data]
    seen = 0
    while stack and seen < _MAX_VALUES:
        item = stack.pop()
        if isinstance(item, dict):
            values = [v for v in item.values() if isinstance(v, str | int | float)]
            found.append([words(canonical_text(str(v))) for v in values if not isinstance(v, bool)])
            stack.extend(v for v in item.values() if isinstance(v, dict | list))
            seen += len(item)
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, dict | list))
            seen += len(item)
    return found


def _quoted(span: str, records: Sequence[list[list[str]]]) -> bool:
    """Whether a list is one object of a tool result written out: each item is (part of) a
    value of the same object, two items or more hold letters and at most one is a bare figure
    (an address's street, city and zip; "4.5, 10, 45" of one product, or "W1, delivered,
    133.5, 13.5" of one order, stays a set of answers)."""
    items = [words(item) for item in _ITEM_BREAK.split(span)]
    items = [item for item in items if item]
    worded = sum(1 for item in items if any(not w.isdigit() for w in item))
    if len(items) < 2 or worded < 2 or len(items) - worded > 1:
        return False  # two figures listed stay alternatives ("W1, delivered, 133.5, 13.5")
    return any(
        all(any(_contains(value, item) for value in record) for item in items) for record in records
    )


_ITEM_BREAK = re.compile(r"\s*[,;/|]\s*")
_MAX_VALUES = 10_000


def _only_facts(span: str, facts: Sequence[Fact]) -> bool:
    values = re.findall(_BARE, span, re.IGNORECASE)
    if len(values) < 2:
        return False
    for value in values:
        numbers, plain = numbers_in(value), words(value)
        if not any(stated(fact, numbers, plain) for fact in facts):
            return False
    return True


def check_facts(facts: Sequence[Fact], answer: str, quoted: Sequence[str] = ()) -> list[bool]:
    """For each fact, whether ``answer`` states it.

    A fact stated only among alternatives ("pending, delivered, cancelled or returned",
    "0, 1, 2, ... or 10 events", "$50 or $60", "pending / delivered", "two or three",
    "between 2 and 3", "$124.50 (possibly $133.50)"), only as a maybe ("maybe 2"), or only
    denied ("not $133.50; it is $124.50", "not delivered") is not stated: the answer covers
    the fact without committing to it. A list that writes out one object of a ``quoted``
    tool result is no set of alternatives (:func:`committed_text`). A date fact
    (``2025-03-11``) is also stated by the date in words without its year ("Tuesday, 11
    March"); in digits alone (``03/11``) it stays ambiguous.
    """
    answer = canonical_text(answer)
    answer_numbers, answer_words = numbers_in(answer), words(answer) + month_days(answer)
    found = [stated(fact, answer_numbers, answer_words) for fact in facts]
    if any(found):
        committed = committed_text(answer, facts, quoted)
        if committed != answer:
            numbers, plain = numbers_in(committed), words(committed) + month_days(committed)
            found = [
                ok and stated(fact, numbers, plain) for ok, fact in zip(found, facts, strict=True)
            ]
    return found
