"""Comparing an answer with a labelled figure at the precision the figure was reported at.

A labelled figure (:class:`Figure`) is a value as the document reports it (``1,250`` in
thousands of USD, ``14.1`` percent) with its reported decimals. Two amounts agree when they
differ by at most half a unit of the figure's last reported digit, after both are put in base
units (dollars, or a fraction for percentages). The answer's own precision never widens that
band: ``0.1`` is not ``0.14136`` and ``$1.3 million`` is not ``1,250`` thousand.

Reading rules (see docs/finance.md):

- a written scale word counts (``1.25 million``); a bare number is read in the figure's
  reporting scale or as a whole amount (``1,250`` and ``1250000`` both say 1,250 thousand);
- a percent sign means a hundredth (``14.1%`` is ``0.141``); a bare number stands for a
  percentage (``14.1``) or a fraction (``0.141``) only when the figure is a percentage;
- a currency that differs from the figure's, or money given for a percentage, is wrong;
- the sign is part of the value: ``4.2`` is not ``−4.2``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from assay.verifiers.finance.numbers import (
    SCALES,
    Amount,
    amount_from_number,
    parse_amount,
    scale_name,
)
from assay.verifiers.reading import CURRENCIES, NumberTooLargeError

PERCENT = "percent"
_HUNDRED = Decimal(100)
_CURRENCIES = frozenset(CURRENCIES.values())


@dataclass(frozen=True, slots=True)
class Figure:
    """A labelled value as the document reports it.

    Attributes:
        value: The number as reported (``1250`` for "1,250" in a table "in thousands").
        scale: The reporting scale: ``unit``, ``thousand``, ``million``, ``billion``...
        unit: ``USD``/``EUR``/... for money, ``percent``, ``shares``, ``ratio`` or ``""``.
        decimals: Digits after the decimal point the document reports.
    """

    value: Decimal
    scale: str = "unit"
    unit: str = ""
    decimals: int = 0

    @property
    def multiplier(self) -> Decimal:
        """Base units per reported unit (a percentage point is 0.01)."""
        factor = SCALES[self.scale]
        return factor / _HUNDRED if self.unit == PERCENT else factor

    @property
    def base(self) -> Decimal:
        """The value in base units (dollars; a fraction for percentages)."""
        return self.value * self.multiplier

    @property
    def tolerance(self) -> Decimal:
        """Half a unit of the last reported digit, in base units."""
        return Decimal(5).scaleb(-(self.decimals + 1)) * self.multiplier

    def describe(self) -> str:
        unit = "%" if self.unit == PERCENT else f" {self.unit}" if self.unit else ""
        scale = "" if self.scale == "unit" else f" ({self.scale}s)"
        return f"{self.value}{unit}{scale}"


@dataclass(frozen=True, slots=True)
class Comparison:
    """The outcome of comparing one answer with one figure."""

    matched: bool
    reason: str
    reading: Decimal | None = None
    """The answer in base units: the reading that matched, else the first one allowed."""


def read_figure(spec: object, scale: str = "unit", unit: str = "") -> Figure:
    """A :class:`Figure` from a reference value.

    ``spec`` is a number, a string such as ``"$1,250"`` or ``"14.1%"``, or a dict with
    ``value`` and optional ``scale``, ``unit``, ``decimals``. ``scale`` and ``unit`` are the
    defaults for keys the dict does not give; a percentage or a ratio takes the default scale
    only when it names one itself.

    Raises:
        ValueError: the value is missing, not finite, or not a number.
    """
    decimals: int | None = None
    explicit_scale = False
    if isinstance(spec, Mapping):
        explicit_scale = "scale" in spec
        scale = scale_name(str(spec.get("scale", scale)))
        unit = str(spec.get("unit", unit))
        if spec.get("decimals") is not None:
            decimals = _decimals(spec["decimals"])
        spec = spec.get("value")
    amount = _gold_amount(spec)
    if amount.percent:
        unit = PERCENT
    elif amount.currency is not None:
        unit = amount.currency
    if amount.scale is not None:
        scale = amount.scale
    elif not explicit_scale and unit in (PERCENT, "ratio"):
        scale = "unit"  # a document's "in thousands" does not scale its ratios
    return Figure(
        value=amount.value,
        scale=scale_name(scale),
        unit=unit,
        decimals=amount.decimals if decimals is None else decimals,
    )


def _gold_amount(spec: object) -> Amount:
    if isinstance(spec, float) and not math.isfinite(spec):
        raise ValueError(f"a figure's value must be finite, got {spec!r}")
    try:
        amount = amount_from_number(spec) if not isinstance(spec, str) else parse_amount(spec)
    except NumberTooLargeError as exc:
        raise ValueError(f"a figure's value is too large to read: {exc}") from exc
    if amount is None:
        raise ValueError(f"a figure's value must be a number or a numeric string, got {spec!r}")
    return amount


def _decimals(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 12:
        raise ValueError(f"decimals must be an integer from 0 to 12, got {value!r}")
    return value


def candidate_values(
    answer: Amount, figure: Figure, scale: str | None = None, named: str | None = None
) -> list[Decimal]:
    """The base-unit readings of ``answer`` that the rules allow (empty: a unit mismatch).

    Args:
        answer: The amount as the response wrote it.
        figure: The labelled figure it answers.
        scale: A scale the response gave separately (a JSON ``"scale"`` key).
        named: The scale the question names ("in U.S. dollars" is ``unit``): a bare number
            is read in it only.
    """
    if not _units_agree(answer, figure):
        return []
    written_scale = answer.scale or (scale_name(scale) if scale else None)
    if answer.percent:
        return [answer.value * SCALES[written_scale or "unit"] / _HUNDRED]
    if written_scale is not None:
        factor = SCALES[written_scale]
        return [answer.value * factor / (_HUNDRED if figure.unit == PERCENT else 1)]
    if named is not None and figure.unit != PERCENT:
        return [answer.value * SCALES[named]]
    readings = [answer.value * figure.multiplier]
    if answer.value not in readings:  # a whole amount, or a fraction for a percentage
        readings.append(answer.value)
    return readings


def _units_agree(answer: Amount, figure: Figure) -> bool:
    if answer.currency is not None:
        if figure.unit in _CURRENCIES:
            return answer.currency == figure.unit
        return figure.unit not in (PERCENT, "ratio", "shares")
    if answer.percent:
        return figure.unit in (PERCENT, "ratio", "")
    return True


def compare(
    answer: Amount, figure: Figure, scale: str | None = None, named: str | None = None
) -> Comparison:
    """Whether ``answer`` states ``figure`` within half a unit of its reported precision.

    ``scale`` and ``named`` are as in :func:`candidate_values`.
    """
    readings = candidate_values(answer, figure, scale, named)
    if not readings:
        return Comparison(False, f"{answer.text!r} is in another unit than {figure.describe()}")
    for reading in readings:
        if abs(reading - figure.base) <= figure.tolerance:
            return Comparison(True, f"{answer.text!r} states {figure.describe()}", reading)
    shown = ", ".join(plain(r) for r in readings)
    return Comparison(
        False,
        f"{answer.text!r} (read as {shown}) differs from {figure.describe()} = "
        f"{plain(figure.base)} by more than {plain(figure.tolerance)}",
        readings[0],
    )


def plain(value: Decimal) -> str:
    """``value`` in plain notation, without trailing zeros (``1.5E+3`` -> ``1500``)."""
    try:
        return f"{value.normalize():f}"
    except InvalidOperation:
        return str(value)


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_NOT_WORD = re.compile(r"[^\w%.-]+")


def normalize_text(text: str) -> str:
    """Case, accents, punctuation and articles removed, for text answers."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().casefold()
    folded = _ARTICLES.sub(" ", folded)
    return " ".join(_NOT_WORD.sub(" ", folded).strip(" .").split())
