"""What a written number is: one scan that reads every figure of a text as written.

A :class:`Figure` keeps what was written, so each domain can compare at its own rules: the
signed value before any scale word, the count of decimals as written (the precision it was
reported at: ``1234567.1`` has 1, ``1.50`` has 2), the currency, the scale word, a percent sign,
how it was written (digits, scientific, a fraction, words), its role (a value, a year mention,
part of a calendar date) and a sign word before it (see :mod:`.cues`).

Read as one number:

- thousands separators ``1,234``, MATH's ``2,\\!220``, ``10{,}000`` and ``1\\,000``, and the
  no-break, thin and narrow no-break spaces (``12 345`` with U+00A0/U+2009/U+202F); the same
  separator throughout. A plain ASCII space groups digits only in :func:`read_number` (a whole
  answer), never in a scan ("in 2023 100 people" is two numbers);
- signs: ``-``, U+2212 minus and the dashes, ``+``; accounting parentheses ``(587.4)``,
  ``$(1,250)``, ``-(5)``; a sign counts only where a word may start (``2024-05`` has no minus);
- currency before or after: ``$`` (not when it delimits LaTeX, see :mod:`.dollars`), ``\\$``,
  ``US$``, ``€``, ``£``, ``¥``, ``₹``, ISO codes, "dollars", "U.S. dollars", "euros"...;
- scale words ``thousand``/``million``/``billion``/``trillion`` and ``k``, ``mn``, ``mm``,
  ``MM``, ``bn``, ``tn``, attached ``K``/``M``/``B``; attached ``m``/``b`` only after a currency
  (``$5m``; a bare ``5m`` is five metres);
- percent: ``%``, ``\\%``, "percent", "per cent", "pct";
- scientific notation ``1.2e-3``, ``1.2 \\times 10^{-3}``, ``1.2×10^-3``;
- fractions ``3/4`` and ``\\frac{3}{4}`` (``fraction`` holds the exact pair), vulgar fractions
  ``½``, ``2¾``, ``1 ½`` and mixed numbers ``1 1/2`` (a whole, one space, a proper fraction);
- decimal commas only where unambiguous: after dot grouping (``1.234,56``), beside a euro or
  percent mark (``€3,50``, ``12,5 %``), or before a currency written after the figure
  (``133,50 $``, ``1 234,50 USD``: space-grouped thousands too); a comma before three digits is
  always thousands;
- number words ("twenty-five", "one hundred twelve", "a dozen"), and "412 dollars and 50 cents".

Not numbers: digits glued to letters before them (``abc123``, ``v2``, ``H2O``), ordinals
(``3rd``), version strings and bare decimal commas (``1.2.3``, ``1,25``), phone numbers and
hyphenated codes (``555-123-4567``), the base or exponent of a power (``10^5``, ``cm^2``).

Bounded cost: one linear regex scan; a digit string longer than :data:`MAX_DIGITS` or an
exponent beyond :data:`MAX_EXPONENT` is not converted but reported in
:attr:`NumberScan.oversized`, so a domain can blame the response (``assay.blame.TOO_COSTLY``);
:func:`read_number` raises :class:`NumberTooLargeError` for it.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace
from decimal import Decimal, localcontext
from functools import lru_cache
from typing import Literal

from assay.verifiers.reading.cues import CueIndex, SignCue
from assay.verifiers.reading.dates import date_spans, is_plausible_year
from assay.verifiers.reading.dollars import Dollars, read_dollars
from assay.verifiers.reading.words import find_word_numbers

from assay.errors import AssayError

MAX_DIGITS = 100
"""Most digits one figure may have before it is oversized (not converted)."""
MAX_EXPONENT = 400
"""Largest absolute power of ten a scientific figure may have."""
MAX_CACHED_TEXT = 2000
"""Longest text whose scan is cached."""

Kind = Literal["digits", "scientific", "fraction", "words"]
Role = Literal["value", "year", "date"]

SCALES: dict[str, int] = {
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
}
_SCALE_WORDS = {
    "thousand": "thousand",
    "thousands": "thousand",
    "k": "thousand",
    "million": "million",
    "millions": "million",
    "mn": "million",
    "mm": "million",
    "m": "million",
    "billion": "billion",
    "billions": "billion",
    "bn": "billion",
    "b": "billion",
    "trillion": "trillion",
    "trillions": "trillion",
    "tn": "trillion",
}
CURRENCIES: dict[str, str] = {
    "$": "USD",
    "\\$": "USD",
    "us$": "USD",
    "usd": "USD",
    "dollar": "USD",
    "dollars": "USD",
    "u.s. dollars": "USD",
    "u.s. dollar": "USD",
    "us dollars": "USD",
    "€": "EUR",
    "eur": "EUR",
    "euro": "EUR",
    "euros": "EUR",
    "£": "GBP",
    "gbp": "GBP",
    "pound": "GBP",
    "pounds": "GBP",
    "¥": "JPY",
    "jpy": "JPY",
    "yen": "JPY",
    "₹": "INR",
    "inr": "INR",
    "rs": "INR",
    "rs.": "INR",
    "chf": "CHF",
    "cad": "CAD",
    "c$": "CAD",
    "aud": "AUD",
    "a$": "AUD",
    "cny": "CNY",
    "rmb": "CNY",
}
"""Written currency marks and their ISO codes."""

_DASHES = "\u2212\u2013\u2012\u2014\ufe63\uff0d"
_SIGN = rf"[-+{_DASHES}]"
_CODES = r"USD|EUR|GBP|JPY|CHF|CAD|AUD|CNY|RMB|INR"
_SEP = r",\\!|\{,\}|\\,|,|[\u00a0\u2009\u202f]"
_EU_MARK = (
    r"\s?(?:\\?%|€|EUR\b|euros?\b|Euro\b|percent\b|Prozent\b|USD\b|dollars?\b"
    r"|\s\$(?![\w\\{(]))"
)
"""What after a comma decimal makes it unambiguous (``12,5 %``, ``3,50 €``, ``133,50 $``: a
currency written after the figure is the European order; a ``$`` right after the digits
closes LaTeX math, ``$1,2$``, and is not one)."""
_EU_GROUPING = str.maketrans("", "", ". \u00a0\u202f")
"""What groups the thousands of a figure with a decimal comma (``1.234,50``, ``1 234,50 $``)."""
UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
"""Kana, CJK ideographs and Hangul: scripts written without spaces, where a figure follows a
character directly ("合計は133.50ドル"); a figure glued to a Latin letter ("v10") is no figure."""
CJK_OR = "か|または|もしくは|あるいは|ないし|或者|或是|或|还是|還是|또는|혹은|아니면"
"""Japanese, Chinese and Korean "or": as figures after those scripts are read, the readers of
alternatives ("133.50ドルか124.50ドル") need their "or" too."""
OR_WORDS = (
    r"\b(?:or|and/or|else|otherwise|alternatively|vs\.?|versus|o|u|oder|ou|oppure|eller|lub"
    r"|veya|atau|hoặc|или|либо|або|au)\b"
    rf"|{CJK_OR}|乃至|หรือ|లేదా|অথবা|বা|या|أو"
)
""""Or" in the languages models answer word problems in (MGSM's among them)."""
AND_WORDS = r"\b(?:and|y|e|und|et|и|na)\b|和|与|及|と|및|그리고"
""""And" in the same languages: "\\boxed{2} y \\boxed{3}" is one list."""
_FIGURE = re.compile(
    rf"""
    (?=[-+{_DASHES}(\\$€£¥₹UCAEGJRI.\d])
    (?<![.,\\^])(?<![^\W{UNSPACED}])(?<!\^\{{)(?<!_\{{)(?<!\^\s)(?<!\^[-{_DASHES}])(?<!\^\{{[-{_DASHES}])
    (?<![A-Za-z]-)
    (?:
      (?P<frac>(?P<fsign>{_SIGN})?\\[dtc]?frac\s*\{{\s*(?P<fnum>\d{{1,9}})\s*\}}\s*\{{\s*(?P<fden>\d{{1,9}})\s*\}})
    | (?P<sign1>{_SIGN})?
      (?P<open>\()?
      (?P<sign2>{_SIGN})?
      (?:(?P<cur>US\$|C\$|A\$|\\\$|\$|€|£|¥|₹|(?:{_CODES}|Rs\.?)(?=\s?[\d(.{_DASHES}-]))
         (?:\s|\\[,;:! ]|~)?)?
      (?P<sign3>{_SIGN})?
      (?P<open2>\()?
      (?P<num>
          (?P<eu>\d{{1,3}}(?:\.\d{{3}})+,\d+(?![\d,]|\.\d)
            | \d{{1,3}}(?:[ \u00a0\u202f]\d{{3}})+,\d{{1,2}}(?![\d.,])(?={_EU_MARK})
            | (?:(?<=€)|(?<=€\s))\d+,(?!\d{{3}}(?!\d))\d+(?![\d,]|\.\d)
            | \d+,(?!\d{{3}}(?!\d))\d+(?![\d.,])(?={_EU_MARK}))
        | \d{{1,3}}(?P<sep>{_SEP})\d{{3}}(?:(?P=sep)\d{{3}})*(?!\d)(?:\.\d+)?
        | \d+(?:\.\d+)?
        | \.\d+
      )
      (?P<exp>[eE](?P<esign>[-+])?(?P<edigits>\d{{1,6}})(?!\w|\.\d)
        | \s?(?:\\times|×|\\cdot|\*|x)\s?10\s?\^\s?
          (?:\{{\s*(?P<bsign>{_SIGN})?\s*(?P<bdigits>\d{{1,6}})\s*\}}
            |(?P<bsign2>{_SIGN})?(?P<bdigits2>\d{{1,6}}))
      )?
      (?P<den>/\d{{1,9}}(?![\d/.]))?
      (?P<close>\))?
      (?P<pct>\s?\\?%|\s?(?:percent|per\s?cent|pct)\b)?
      (?P<scale>\s?(?i:thousands?|millions?|billions?|trillions?|bn|mn|tn)\b|(?:mm|MM|[kKMBmb])(?![\w]))?
      (?P<close2>\))?
      (?P<cur2>\s?(?:{_CODES})\b|\s?(?:U\.S\.\s?dollars?|US\s?dollars?|dollars?|euros?|pounds?|yen)\b|\s?[€£¥₹])?
    )
    """,
    re.VERBOSE,
)
VULGAR_FRACTIONS: dict[str, tuple[int, int]] = {
    "½": (1, 2),
    "⅓": (1, 3),
    "⅔": (2, 3),
    "¼": (1, 4),
    "¾": (3, 4),
    "⅕": (1, 5),
    "⅖": (2, 5),
    "⅗": (3, 5),
    "⅘": (4, 5),
    "⅙": (1, 6),
    "⅚": (5, 6),
    "⅐": (1, 7),
    "⅛": (1, 8),
    "⅜": (3, 8),
    "⅝": (5, 8),
    "⅞": (7, 8),
    "⅑": (1, 9),
    "⅒": (1, 10),
}
"""Unicode vulgar fractions and their exact pairs."""
_GLYPHS = "".join(VULGAR_FRACTIONS)
_ANY_GLYPH = re.compile(f"[{_GLYPHS}]")
_VULGAR = re.compile(
    rf"(?<![\w.,/])(?P<sign>[-{_DASHES}])?(?:(?P<whole>\d{{1,9}})\s?)?(?P<glyph>[{_GLYPHS}])"
)
_MIXED = re.compile(
    rf"(?<![\w.,/\\^{_DASHES}-])(?P<sign>[-{_DASHES}](?=\d))?(?P<whole>\d{{1,9}}) "
    r"(?P<num>\d{1,9})/(?P<den>\d{1,9})(?![\d/.,]|\w)"
)
"""A mixed number: a whole, one space, a proper fraction ("2 1/2" is 5/2)."""
_CODE = re.compile(
    r"(?<![\w.])(?:\d+(?:-\d+){2,}|\(\d{3}\)\s?\d{3}-\d{4}|\+\d{1,3}(?:[\s.-]\d{2,4}){2,4})(?![\w])"
)
_WORD_SUFFIX = re.compile(
    r"(?P<pct>\s?(?:percent|per\s?cent)\b)?(?P<scale>\s(?:thousand|million|billion|trillion)s?\b)?"
    r"(?P<cur2>\s(?:dollars?|euros?|pounds?|yen)\b)?"
)
_CENTS = re.compile(r"\s+and\s+(?P<cents>\d{1,2}|[a-z]+(?:[ -][a-z]+)?)\s+cents?\b", re.IGNORECASE)
_AFTER_ALL = 1 << 62
_ZERO_DENOMINATOR = "zero denominator"
_ANY_DIGIT = re.compile(r"\d")
_ANY_NUMBER_WORD = re.compile(
    r"(?<![A-Za-z])(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty"
    r"|fifty|sixty|seventy|eighty|ninety|dozen)(?![A-Za-z])",
    re.IGNORECASE,
)
_NO_DOLLARS = Dollars((), frozenset())
_DIGITS = re.compile(r"\d+")
_YEAR_TEXT = re.compile(r"\d{4}(?:\s+(?:dollars?|euros?|pounds?|yen))?")
"""A year, also in "2023 dollars" (constant dollars of that year); never after a symbol."""
_YEAR_CUE = re.compile(
    r"(?:\b(?:in|for|during|since|until|till|through|throughout|fiscal|FY|years?|between|ended"
    r"|ending|circa|early|late|Q[1-4]|H[12]|(?:end|start|beginning|close|middle)\s+of|as\s+of)\s+"
    r"(?:fiscal\s+|year\s+)?|\bFY|\bmid-)$",
    re.IGNORECASE,
)
_GLUED_YEAR = re.compile(r"\b(?:FY|CY|mid-)(?P<year>\d{4})(?![\w])", re.IGNORECASE)
_IN = re.compile(r"\bin\s+$", re.IGNORECASE)
_FROM = re.compile(r"\bfrom\s+$", re.IGNORECASE)
_RANGE_AFTER = re.compile(r"\s*(?:to|-|–)\s*[$€£]?\d", re.IGNORECASE)
_YEAR_JOIN = re.compile(r"\s*(?:to|and|or|vs\.?|versus|through|than|[-–/])\s*", re.IGNORECASE)
_ORDINAL = re.compile(r"(?:st|nd|rd|th)(?![A-Za-z])")


class NumberTooLargeError(AssayError):
    """A number too large to read (too many digits, too large an exponent).

    Attributes:
        text: The number as written (cut to 40 characters).
        reason: What is too large, with the limit.
    """

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(f"number too large to read ({reason}): {text[:40]!r}")
        self.text = text[:40]
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Figure:
    """One number as written.

    Attributes:
        value: The signed number as written, before any scale word (``1.2`` in ``$1.2 million``;
            ``0.0012`` for ``1.2e-3``; the quotient, to 40 digits, for a fraction).
        text: The figure as written, currency and scale words included.
        start: Offset of ``text`` in the scanned text.
        end: Offset just past it.
        decimals: Digits after the decimal point as written: the reported precision
            (``1.2e-3`` has 4; number words and fractions 0).
        kind: ``digits``, ``scientific``, ``fraction`` or ``words``.
        role: ``value``; ``year`` for a plain four-digit year; ``date`` inside a calendar date.
        currency: ISO code of a written currency mark, else ``None``.
        scale: ``thousand``, ``million``, ``billion`` or ``trillion`` when a scale word was
            written, else ``None``.
        percent: Whether a percent sign or word followed it.
        parenthesized: Whether accounting parentheses made it negative.
        grouped: Whether thousands separators were written.
        fraction: ``(numerator, denominator)`` of a fraction, signed numerator.
        cue: The sign word before it, if any (never applied to ``value``).
        in_math: Whether it stands inside a LaTeX math span.
    """

    value: Decimal
    text: str
    start: int
    end: int
    decimals: int = 0
    kind: Kind = "digits"
    role: Role = "value"
    currency: str | None = None
    scale: str | None = None
    percent: bool = False
    parenthesized: bool = False
    grouped: bool = False
    fraction: tuple[int, int] | None = None
    cue: SignCue | None = None
    in_math: bool = False

    @property
    def scaled(self) -> Decimal:
        """``value`` times its scale word (``$1.2 million`` is 1200000); percent not divided."""
        if self.scale is None:
            return self.value
        with localcontext() as context:
            context.prec = MAX_DIGITS + 20
            return self.value * SCALES[self.scale]

    @property
    def is_year(self) -> bool:
        """A year mention ("in 2024", "fiscal 2023"); a domain whose answer is a year takes it."""
        return self.role == "year"


@dataclass(frozen=True, slots=True)
class Oversized:
    """A number that was not converted: its span and why."""

    start: int
    end: int
    reason: str


@dataclass(frozen=True, slots=True)
class NumberScan:
    """Every figure of a text, in order, and the numbers too large to read."""

    figures: tuple[Figure, ...]
    oversized: tuple[Oversized, ...]

    def values(self) -> tuple[Figure, ...]:
        """The figures that are values: neither a year mention nor part of a date."""
        return tuple(figure for figure in self.figures if figure.role == "value")


def scan_numbers(text: str, dollars: Dollars | None = None) -> NumberScan:
    """Read every figure of ``text`` (digits, scientific, fractions, words), in order.

    Scans of short texts are cached (the result is immutable): the sentence rules read the
    same line several times.

    Example:
        >>> scan = scan_numbers("At December 31, 2024 it was $1.2 million, up 5%.")
        >>> [(f.text, f.role) for f in scan.figures]
        [('31', 'date'), ('2024', 'date'), ('$1.2 million', 'value'), ('5%', 'value')]
    """
    if dollars is None and len(text) <= MAX_CACHED_TEXT:
        return _scan_cached(text)
    return _scan(text, dollars)


@lru_cache(maxsize=2048)
def _scan_cached(text: str) -> NumberScan:
    return _scan(text, None)


def _scan(text: str, dollars: Dollars | None) -> NumberScan:
    has_digits = _ANY_DIGIT.search(text) is not None
    has_words = _ANY_NUMBER_WORD.search(text) is not None
    has_glyphs = _ANY_GLYPH.search(text) is not None
    if not has_digits and not has_words and not has_glyphs:
        return NumberScan((), ())
    found_dollars = dollars if dollars is not None else _dollars_of(text)
    figures: list[Figure] = []
    oversized: list[Oversized] = []
    dates: list[tuple[int, int]] = []
    if has_digits or has_glyphs:
        dates = date_spans(text) if has_digits else []
        mixed = _mixed_numbers(text, dates) if has_digits or has_glyphs else []
        figures.extend(mixed)
        taken = sorted((f.start, f.end) for f in mixed)
        codes = [(m.start(), m.end()) for m in _CODE.finditer(text)] if has_digits else []
        for match in _FIGURE.finditer(text) if has_digits else ():
            if (
                _inside(match.start(), dates)
                or _inside(match.start(), codes)
                or _inside(match.start(), taken)
            ):
                continue
            read = _from_match(text, match, found_dollars)
            if isinstance(read, Oversized):
                oversized.append(read)
            elif read is not None:
                figures.append(read)
        figures.extend(_date_parts(text, dates))
        figures.extend(_glued_years(text))
    if has_words:
        figures.extend(_word_figures(text, figures))
    figures.sort(key=lambda figure: figure.start)
    if not figures:
        return NumberScan((), tuple(oversized))
    figures = _merge_cents(text, figures)
    cues = CueIndex(text)
    finished = [_finish(figure, dates, found_dollars, cues) for figure in figures]
    return NumberScan(tuple(_mark_years(text, finished)), tuple(oversized))


def _mixed_numbers(text: str, dates: list[tuple[int, int]]) -> list[Figure]:
    """Vulgar fractions (``½``, ``2¾``, ``1 ½``) and mixed numbers (``1 1/2``): exact pairs."""
    found: list[Figure] = []
    for match in _VULGAR.finditer(text):
        top, bottom = VULGAR_FRACTIONS[match["glyph"]]
        found.append(_mixed_figure(match, int(match["whole"] or 0), top, bottom))
    for match in _MIXED.finditer(text):
        top, bottom = int(match["num"]), int(match["den"])
        if 0 < top < bottom and not _inside(match.start(), dates):
            found.append(_mixed_figure(match, int(match["whole"]), top, bottom))
    found.sort(key=lambda figure: figure.start)
    return [f for i, f in enumerate(found) if i == 0 or f.start >= found[i - 1].end]


def _mixed_figure(match: re.Match[str], whole: int, top: int, bottom: int) -> Figure:
    numerator = whole * bottom + top
    if match["sign"] is not None:
        numerator = -numerator
    with localcontext() as context:
        context.prec = 40
        value = Decimal(numerator) / bottom
    return Figure(
        value=value,
        text=match.group(0),
        start=match.start(),
        end=match.end(),
        kind="fraction",
        fraction=(numerator, bottom),
    )


def _dollars_of(text: str) -> Dollars:
    if "$" not in text and "\\(" not in text and "\\[" not in text:
        return _NO_DOLLARS
    return read_dollars(text)


def find_numbers(text: str) -> list[Figure]:
    """Every figure of ``text`` (see :func:`scan_numbers`); oversized numbers are left out."""
    return list(scan_numbers(text).figures)


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    """Whether ``position`` lies in one of ``spans`` (sorted, disjoint)."""
    at = bisect.bisect_right(spans, (position, _AFTER_ALL)) - 1
    return at >= 0 and spans[at][0] <= position < spans[at][1]


def _finish(
    figure: Figure, dates: list[tuple[int, int]], dollars: Dollars, cues: CueIndex
) -> Figure:
    """Set the role (date parts only; years come after), the sign cue and math."""
    role: Role = "date" if _inside(figure.start, dates) else figure.role
    return replace(
        figure, role=role, cue=cues.before(figure.start), in_math=dollars.in_math(figure.start)
    )


def _year_candidate(figure: Figure) -> bool:
    return (
        figure.role == "value"
        and figure.kind == "digits"
        and figure.scale is None
        and not figure.percent
        and _YEAR_TEXT.fullmatch(figure.text) is not None
        and is_plausible_year(figure.value, figure.text[:4])
    )


def _after_year_word(text: str, figure: Figure) -> bool:
    """Whether a year word stands right before the figure ("up from 2023", not "from 2000 to")."""
    begin = max(0, figure.start - 24)
    if len(figure.text) > 4:  # "2023 dollars" is a year only as "in 2023 dollars"
        return _IN.search(text, begin, figure.start) is not None
    if _YEAR_CUE.search(text, begin, figure.start) is not None:
        return True
    return (
        _FROM.search(text, begin, figure.start) is not None
        and _RANGE_AFTER.match(text, figure.end) is None
    )


_YEAR_MARKS = ("年", "년")
"""The Japanese / Chinese and Korean year mark glued after a year ("2023年")."""


def _mark_years(text: str, figures: list[Figure]) -> list[Figure]:
    """Mark year mentions: a plausible year after a year word ("in", "fiscal", "FY", "end of")
    or before a year mark ("2023年"), or joined to another plausible year ("2018 to 2019",
    "2023 vs 2024")."""
    candidates = [_year_candidate(figure) for figure in figures]
    years = [
        candidate and (_after_year_word(text, figure) or text.startswith(_YEAR_MARKS, figure.end))
        for figure, candidate in zip(figures, candidates, strict=True)
    ]
    for index in range(len(figures) - 1):
        first, second = figures[index], figures[index + 1]
        if (
            candidates[index]
            and candidates[index + 1]
            and _YEAR_JOIN.fullmatch(text, first.end, second.start) is not None
        ):
            years[index] = years[index + 1] = True
    return [
        replace(figure, role="year") if year else figure
        for figure, year in zip(figures, years, strict=True)
    ]


def _glued_years(text: str) -> list[Figure]:
    """Years glued to a prefix ("FY2024", "mid-2023", "CY2022"): year mentions."""
    return [
        Figure(Decimal(m.group("year")), m.group("year"), m.start("year"), m.end(), role="year")
        for m in _GLUED_YEAR.finditer(text)
        if is_plausible_year(Decimal(m.group("year")), m.group("year"))
    ]


def _date_parts(text: str, dates: list[tuple[int, int]]) -> list[Figure]:
    """The day, month and year numbers of each date, as figures (their role is ``date``)."""
    return [
        Figure(Decimal(match.group(0)), match.group(0), match.start(), match.end())
        for start, end in dates
        for match in _DIGITS.finditer(text, start, end)
    ]


def _strip_separators(digits: str) -> str:
    for separator in (",\\!", "{,}", "\\,", ",", "\u00a0", "\u2009", "\u202f"):
        digits = digits.replace(separator, "")
    return digits


def _from_match(text: str, match: re.Match[str], dollars: Dollars) -> Figure | Oversized | None:
    """The figure one regex match writes, or None when it is no number after all."""
    if match.group("frac") is not None:
        return _fraction(match)
    groups = match.groupdict()
    start, end = match.start(), match.end()
    opened = groups["open"] is not None or groups["open2"] is not None
    closed = groups["close"] is not None or groups["close2"] is not None
    parenthesized = opened and closed
    signs = [match.start(k) for k in ("sign1", "sign2", "sign3") if groups[k] is not None]
    if opened and not closed:  # "(see note 5": the parenthesis is not part of the figure
        start = max(match.start(k) for k in ("open", "open2") if groups[k] is not None) + 1
    if closed and not opened:  # "5)" of a list item
        end = max(match.start(k) for k in ("close", "close2") if groups[k] is not None)
    currency = groups["cur"]
    if currency == "$" and match.start("cur") not in dollars.money:
        currency = None  # the $ opens LaTeX math
        start = max(start, match.end("cur"))
    signs = [position for position in signs if position >= start]
    negative = any(text[position] != "+" for position in signs)
    european = groups["eu"]
    digits = (
        european.translate(_EU_GROUPING).replace(",", ".")
        if european is not None
        else _strip_separators(groups["num"])
    )
    if len(digits.replace(".", "")) > MAX_DIGITS:
        return Oversized(start, end, f"more than {MAX_DIGITS} digits")
    read = _mantissa(match, digits)
    if read is _ZERO_DENOMINATOR:
        return None  # "1/0" is no number
    if isinstance(read, str):
        return Oversized(start, end, read)
    value, decimals, kind, fraction = read
    scale, end = _scale(match, groups, currency, end)
    if _glued(text, end if groups["cur2"] is None else match.end("num")):
        return None
    if kind == "fraction" and fraction is not None and negative:
        fraction = (-fraction[0], fraction[1])
    written = text[start:end].strip()
    cur = currency or (groups["cur2"] or "").strip() or None
    return Figure(
        value=-value if (negative or parenthesized) and value else value,
        text=written,
        start=start + (len(text[start:end]) - len(text[start:end].lstrip())),
        end=start + len(text[start:end].rstrip()),
        decimals=decimals,
        kind=kind,
        currency=CURRENCIES.get(cur.lower()) if cur else None,
        scale=scale,
        percent=groups["pct"] is not None,
        parenthesized=parenthesized,
        grouped=groups["sep"] is not None or (european is not None and "." in european),
        fraction=fraction,
    )


def _mantissa(
    match: re.Match[str], digits: str
) -> tuple[Decimal, int, Kind, tuple[int, int] | None] | str:
    """Value, decimals, kind and fraction of the number part; a string when oversized."""
    value = Decimal(digits)
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    exponent_digits = match.group("edigits") or match.group("bdigits") or match.group("bdigits2")
    if exponent_digits is not None:
        sign = match.group("esign") or match.group("bsign") or match.group("bsign2") or "+"
        exponent = int(exponent_digits) * (1 if sign == "+" else -1)
        if abs(exponent) > MAX_EXPONENT:
            return f"exponent beyond {MAX_EXPONENT}"
        return value.scaleb(exponent), max(0, decimals - exponent), "scientific", None
    denominator = match.group("den")
    if denominator is not None and decimals == 0 and match.group("sep") is None:
        bottom = int(denominator[1:])
        if bottom == 0:
            return _ZERO_DENOMINATOR
        with localcontext() as context:
            context.prec = 40
            return value / bottom, 0, "fraction", (int(digits), bottom)
    return value, decimals, "digits", None


def _fraction(match: re.Match[str]) -> Figure | None:
    top, bottom = int(match.group("fnum")), int(match.group("fden"))
    if bottom == 0:
        return None
    negative = match.group("fsign") not in (None, "+")
    with localcontext() as context:
        context.prec = 40
        value = Decimal(top) / bottom
    return Figure(
        value=-value if negative else value,
        text=match.group(0),
        start=match.start(),
        end=match.end(),
        kind="fraction",
        fraction=(-top if negative else top, bottom),
    )


def _scale(
    match: re.Match[str], groups: dict[str, str | None], currency: str | None, end: int
) -> tuple[str | None, int]:
    """The scale word, and the figure's end once an unaccepted scale letter is given back."""
    word = groups["scale"]
    if word is None:
        return None, end
    key = word.strip()
    if key in ("m", "b", "mm") and currency is None:  # "5m" is five metres, "5mm" millimetres
        tail = (groups["close2"] or "") + (groups["cur2"] or "")
        return None, match.start("scale") if not tail else end
    return _SCALE_WORDS[key.lower()], end


def _glued(text: str, end: int) -> bool:
    """Whether the figure ending at ``end`` is part of a token (``3rd``, ``1.2.3``, ``10^5``)."""
    if end >= len(text):
        return False
    following = text[end]
    if following in ".," and end + 1 < len(text) and text[end + 1].isdigit():
        return True
    if following == "^":
        return not re.match(r"\^\s*\{?\s*\\circ", text[end : end + 12])
    if following == "_":
        return True
    if following.isalpha():
        run = re.match(r"[A-Za-z]+", text[end : end + 40])
        if run is None:
            return False
        if _ORDINAL.fullmatch(run.group(0)):
            return True
        after = end + run.end()
        return after < len(text) and text[after].isdigit()
    return False


def _word_figures(text: str, figures: list[Figure]) -> list[Figure]:
    """Number words that no digit figure already covers, with their suffixes."""
    taken = sorted((figure.start, figure.end) for figure in figures)
    found: list[Figure] = []
    for number in find_word_numbers(text):
        if _inside(number.start, taken) or _inside(number.end - 1, taken):
            continue
        suffix = _WORD_SUFFIX.match(text, number.end)
        end = suffix.end() if suffix is not None else number.end
        scale = suffix.group("scale") if suffix is not None else None
        currency = suffix.group("cur2") if suffix is not None else None
        found.append(
            Figure(
                value=number.value,
                text=text[number.start : end],
                start=number.start,
                end=end,
                kind="words",
                scale=_SCALE_WORDS[scale.strip().lower()] if scale else None,
                percent=suffix is not None and suffix.group("pct") is not None,
                currency=CURRENCIES.get(currency.strip().lower()) if currency else None,
            )
        )
    return found


def _merge_cents(text: str, figures: list[Figure]) -> list[Figure]:
    """ "412 dollars and 50 cents" (digits or words) is one figure, 412.50."""
    merged: list[Figure] = []
    index = 0
    while index < len(figures):
        figure = figures[index]
        cents = _CENTS.match(text, figure.end) if figure.currency is not None else None
        following = figures[index + 1] if index + 1 < len(figures) else None
        if (
            cents is not None
            and following is not None
            and following.start == cents.start("cents")
            and following.end <= cents.end()
            and following.value == following.value.to_integral_value()
            and 0 <= following.value < 100
            and figure.decimals == 0
        ):
            value = figure.value + following.value / 100
            merged.append(
                replace(
                    figure,
                    value=value,
                    decimals=2,
                    text=text[figure.start : cents.end()],
                    end=cents.end(),
                )
            )
            index += 2
            continue
        merged.append(figure)
        index += 1
    return merged


_SPACE_GROUPS = re.compile(r"(?<![\d ])\d{1,3}(?: \d{3})+(?![\d ])")
_WRAPPERS = (("**", "**"), ("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))


def _unwrap(text: str) -> str:
    """``text`` without one pair of bold or math delimiters around all of it."""
    for opener, closer in _WRAPPERS:
        if (
            len(text) > len(opener) + len(closer)
            and text.startswith(opener)
            and text.endswith(closer)
        ):
            return text[len(opener) : -len(closer)].strip()
    return text


def read_number(text: str) -> Figure | None:
    """The figure ``text`` consists of, or None (surrounding space, a final period, bold and
    math delimiters allowed; digits may be grouped by plain spaces here).

    Raises:
        NumberTooLargeError: ``text`` is one number too large to read.

    Example:
        >>> figure = read_number("$1.2 million.")
        >>> (figure.value, figure.scale, figure.currency)
        (Decimal('1.2'), 'million', 'USD')
        >>> read_number("12 345").value
        Decimal('12345')
    """
    stripped = text.strip().rstrip(".").strip()
    unwrapped = _unwrap(stripped)
    if unwrapped != stripped and unwrapped:
        return read_number(unwrapped)
    grouped = _SPACE_GROUPS.sub(lambda m: m.group(0).replace(" ", "\u202f"), stripped)
    scan = scan_numbers(grouped)
    for item in scan.oversized:
        if item.start == 0 and item.end >= len(grouped.rstrip()):
            raise NumberTooLargeError(stripped, item.reason)
    if len(scan.figures) != 1:
        return None
    figure = scan.figures[0]
    if figure.start != 0 or figure.end != len(grouped):
        return None
    return replace(figure, text=stripped)
