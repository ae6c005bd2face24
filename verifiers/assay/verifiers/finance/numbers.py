"""Finance's own number rules, on the shared reader :mod:`assay.verifiers.reading`.

What a written number is (separators, parentheses negatives, Unicode minus, currency marks,
scale words, percent, dates and years) is the shared reader's; see docs/reading.md. This
module keeps what is finance's: an :class:`Amount` (the reader's figure with the fields a
comparison needs), JSON numbers as amounts, and reporting-scale labels ("in thousands").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from decimal import Decimal

from assay.verifiers.reading import Figure as ReadFigure
from assay.verifiers.reading import SignCue, read_number, scan_numbers

SCALES: dict[str, Decimal] = {
    "unit": Decimal(1),
    "thousand": Decimal(10) ** 3,
    "million": Decimal(10) ** 6,
    "billion": Decimal(10) ** 9,
    "trillion": Decimal(10) ** 12,
}
"""Named reporting scales and their multipliers."""

_SCALE_WORDS: dict[str, str] = {
    "thousands": "thousand",
    "k": "thousand",
    "millions": "million",
    "mn": "million",
    "mm": "million",
    "m": "million",
    "billions": "billion",
    "bn": "billion",
    "b": "billion",
    "trillions": "trillion",
    "tn": "trillion",
}
"""Labels a reference or a JSON ``scale`` key may use for a scale."""


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
        role: The reader's role: ``value``, ``year`` ("in 2024") or ``date``.
        cue: The sign word written before it ("a decrease of"), never applied here.
    """

    value: Decimal
    decimals: int
    scale: str | None = None
    currency: str | None = None
    percent: bool = False
    text: str = ""
    start: int = 0
    role: str = "value"
    cue: SignCue | None = None

    @property
    def is_year_like(self) -> bool:
        """A year mention in its context ("in 2024", "FY2023"): the reader's ``year`` role."""
        return self.role == "year"


def to_amount(figure: ReadFigure) -> Amount:
    """The :class:`Amount` of a figure of the shared reader."""
    return Amount(
        value=figure.value,
        decimals=figure.decimals,
        scale=figure.scale,
        currency=figure.currency,
        percent=figure.percent,
        text=figure.text,
        start=figure.start,
        role=figure.role,
        cue=figure.cue,
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


_GLUED_SCALE = re.compile(r"(mm|m|bn|b)(?![A-Za-z])")
"""Finance's own: a scale letter glued to a figure ("413,271m", "3.2b") is millions/billions
(the shared reader reads a bare "5m" as five metres and takes it only after a currency)."""


def with_glued_scale(text: str, figure: ReadFigure) -> tuple[Amount, int]:
    """``figure`` as an amount, with a glued scale letter read; and where the amount ends."""
    amount = to_amount(figure)
    if figure.scale is not None or figure.percent or figure.role != "value":
        return amount, figure.end
    glued = _GLUED_SCALE.match(text, figure.end)
    if glued is None:
        return amount, figure.end
    scale = _SCALE_WORDS[glued.group(1)]
    return replace(amount, scale=scale, text=amount.text + glued.group(1)), glued.end()


def find_amounts(text: str) -> list[Amount]:
    """Every amount in ``text``, in order, dates excluded (years kept, see ``is_year_like``)."""
    return [with_glued_scale(text, f)[0] for f in scan_numbers(text).figures if f.role != "date"]


def parse_amount(text: str) -> Amount | None:
    """The amount ``text`` consists of (surrounding space and a final period allowed).

    Raises:
        NumberTooLargeError: ``text`` is one number too large to read.
    """
    figure = read_number(text)
    if figure is None:
        stripped = text.strip().rstrip(".").strip()
        figures = scan_numbers(stripped).figures
        if len(figures) == 1 and figures[0].start == 0:
            amount, end = with_glued_scale(stripped, figures[0])
            if end == len(stripped):
                return amount
        return None
    if figure.role == "date":
        return None
    if figure.role == "year" and not figure.text.strip().isdigit():
        return None  # "FY2024" names a year, it is no amount
    return to_amount(figure)
