"""Options of a comparison and its typed outcome."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

EquivalenceMethod = Literal["string", "numeric", "symbolic", "structural"]

DEFAULT_TOLERANCE = Fraction(1, 10**6)
"""Default relative tolerance for inexact (decimal) numbers: ``|a - b| <= 1e-6 * max(|a|, |b|)``."""


@dataclass(frozen=True, slots=True)
class CompareOptions:
    """How answers are compared.

    Attributes:
        tolerance: Relative tolerance used when either side is inexact (a decimal literal such
            as ``3.14`` or ``1e-7``). Exact values (integers, fractions, radicals, ``\\pi``)
            are compared exactly. ``0`` demands equal values.
        percent_as_fraction: Also read ``50\\%`` as ``0.5`` (by default a percent sign is
            ignored: ``50\\%`` equals ``50`` but not ``0.5``).
        ordered: ``None`` keeps the natural reading (sets and bare lists ``1, 2`` unordered,
            tuples ``(1, 2)`` ordered); ``True`` makes bare lists ordered too; ``False``
            makes tuples and lists unordered. Sets are always unordered.
    """

    tolerance: Fraction = DEFAULT_TOLERANCE
    percent_as_fraction: bool = False
    ordered: bool | None = None


@dataclass(frozen=True, slots=True)
class Equivalence:
    """Whether two answers are equal, how that was decided, and why.

    Attributes:
        equal: The decision.
        method: ``string`` (normalized text), ``numeric`` (values, random points),
            ``symbolic`` (sympy identity or simplification) or ``structural`` (sets, tuples,
            intervals, matrices, relations: element by element).
        detail: One line for an audit.
    """

    equal: bool
    method: EquivalenceMethod
    detail: str
