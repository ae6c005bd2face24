"""Reading amounts the way financial documents and model answers write them.

An :class:`Amount` keeps what was written (digits, decimals, sign, currency, scale word,
percent sign) so a comparison can tell ``1.2 million`` from a bare ``1.2`` and knows the
precision a figure was reported at. Handled: parentheses negatives ``(1,250)``, a Unicode
minus ``−5`` (U+2212) or en dash, ``-(5)`` and ``$(5)`` and ``$-5``, currency symbols and
codes, thousands separators, scale words (``1.2 million``, ``$3bn``, ``450k``), percent signs
and words. Four-digit years (``2024``, ``FY2023``) are flagged so answer extraction can skip them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

SCALES: dict[str, Decimal] = {
    "unit": Decimal(1),
    "thousand": Decimal(10) ** 3,
    "million": Decimal(10) ** 6,
    "billion": Decimal(10) ** 9,
    "trillion": Decimal(10) ** 12,
}
"""Named reporting scales and their multipliers."""

_SCALE_WORDS: dict[str, str] = {
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

CURRENCY_SYMBOLS: dict[str, str] = {
    "$": "USD",
    "us$": "USD",
    "usd": "USD",
    "€": "EUR",
    "eur": "EUR",
    "£": "GBP",
    "gbp": "GBP",
    "¥": "JPY",
    "jpy": "JPY",
    "chf": "CHF",
    "cad": "CAD",
    "c$": "CAD",
}

_MINUS = "-−–‒"  # hyphen-minus, U+2212 minus sign, en dash, figure dash
_AMOUNT = re.compile(
    r"""
    (?<![\w.,])
    (?P<neg1>[-−–‒])?
    (?P<open>\()?
    (?P<neg2>[-−–‒])?
    (?P<cur>US\$|C\$|[$€£¥]|(?:USD|EUR|GBP|JPY|CHF|CAD)(?=[\s\d(−–‒-]))?\s?
    (?P<neg3>[-−–‒])?
    (?P<open2>\()?
    (?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
    (?P<close>\))?
    (?P<pct>\s?%|\s(?:percent|per\scent)\b)?
    (?P<scale>\s?(?:thousands?|millions?|billions?|trillions?|bn|mn|mm|tn|[kmb])\b)?
    (?P<cur2>\s(?:USD|EUR|GBP|JPY|CHF|CAD)\b)?
    (?![\w,]*\d)
    """,
    re.VERBOSE | re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Amount:
    """One number as written.

    Attributes:
        value: The signed number as written, before any scale (``1.2`` in ``$1.2 million``).
        decimals: Digits after the decimal point as written (the reported precision).
        scale: ``"unit"``, ``"thousand"``, ``"million"``, ``"billion"`` or ``"trillion"``;
            ``None`` when no scale word was written.
        currency: ISO code of a written currency symbol or code, else ``None``.
        percent: Whether a percent sign or word followed the number.
        text: The matched text.
        start: Offset of the match in the scanned text.
    """

    value: Decimal
    decimals: int
    scale: str | None = None
    currency: str | None = None
    percent: bool = False
    text: str = ""
    start: int = 0

    @property
    def is_year_like(self) -> bool:
        """A bare four-digit integer between 1900 and 2100: read as a year, not a value."""
        return (
            self.decimals == 0
            and self.scale is None
            and self.currency is None
            and not self.percent
            and re.fullmatch(r"[12]\d{3}", self.text.strip()) is not None
            and 1900 <= self.value <= 2100
        )


def amount_from_number(value: object) -> Amount | None:
    """An :class:`Amount` from a JSON number (``1250.0`` counts as written ``1250``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    text = repr(value) if isinstance(value, float) else str(value)
    number = Decimal(text)
    exponent = number.as_tuple().exponent
    decimals = max(0, -exponent) if isinstance(exponent, int) else 0
    if isinstance(value, float) and number == number.to_integral_value():
        decimals = 0
    return Amount(value=number, decimals=decimals, text=text)


def scale_name(word: str) -> str:
    """The canonical scale of a word (``"bn"`` -> ``"billion"``); ``ValueError`` if unknown."""
    key = word.strip().lower()
    if key in SCALES:
        return key
    if key in ("", "one", "ones", "unit", "units", "none"):
        return "unit"
    if key in _SCALE_WORDS:
        return _SCALE_WORDS[key]
    raise ValueError(f"unknown scale {word!r}; use one of {', '.join(SCALES)}")


_SCALE_HEADER = re.compile(
    r"\bin\s+(?:[A-Z]{3}\s+|[$€£¥]\s*)?(thousands|millions|billions|trillions)\b", re.IGNORECASE
)


def declared_scale(text: str) -> str | None:
    """The scale a phrase declares ("in thousands", "USD in millions"), or ``None``."""
    match = _SCALE_HEADER.search(text)
    return scale_name(match.group(1)) if match else None


def scale_of_label(label: str) -> str | None:
    """The one scale a label names ("thousand", "in millions", "USD bn"), else ``None``."""
    found = set()
    for word in re.findall(r"[a-z]+", label.lower()):
        try:
            found.add(scale_name(word))
        except ValueError:
            continue
    return found.pop() if len(found) == 1 else None


def find_amounts(text: str) -> list[Amount]:
    """Every amount in ``text``, in order (years included; see :attr:`Amount.is_year_like`)."""
    found = []
    for match in _AMOUNT.finditer(text):
        amount = _from_match(match)
        if amount is not None:
            found.append(amount)
    return found


def parse_amount(text: str) -> Amount | None:
    """The amount ``text`` consists of (surrounding space and a final period allowed)."""
    stripped = text.strip().rstrip(".").strip()
    match = _AMOUNT.fullmatch(stripped)
    if match is None:
        return None
    return _from_match(match)


def _from_match(match: re.Match[str]) -> Amount | None:
    groups = match.groupdict()
    opened = bool(groups["open"] or groups["open2"])
    closed = bool(groups["close"])
    if opened and not closed:
        return None  # "(see note 5" is not a negative figure
    digits = (groups["num"] or "").replace(",", "")
    try:
        value = Decimal(digits)
    except InvalidOperation:
        return None
    negative = opened or any(groups[key] for key in ("neg1", "neg2", "neg3"))
    scale_word = (groups["scale"] or "").strip().lower()
    currency = groups["cur"] or (groups["cur2"] or "").strip()
    text = match.group(0)
    if closed and not opened:  # "5)" of a list item: the parenthesis is not part of it
        text = text.replace(")", "")
    return Amount(
        value=-value if negative else value,
        decimals=len(digits.split(".")[1]) if "." in digits else 0,
        scale=_SCALE_WORDS.get(scale_word) if scale_word else None,
        currency=CURRENCY_SYMBOLS.get(currency.lower()) if currency else None,
        percent=bool(groups["pct"]),
        text=text.strip(),
        start=match.start(),
    )


def normalize_minus(text: str) -> str:
    """``text`` with every minus-like dash turned into ``-`` (for quote matching)."""
    return text.translate({ord(c): "-" for c in _MINUS})
