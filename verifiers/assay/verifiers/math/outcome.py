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
        percent_as_fraction: Also read an answer's ``50\\%`` as ``0.5`` against a gold that
            is no percent (``0.5``). Always, flag or not: a gold percent equals its bare
            number (``50\\%`` and ``50``) and its fraction (``50\\%`` and ``0.5``, issue 15);
            an answer percent against a gold without one is compared as its bare number.
        written_precision: Compare with a gold plain decimal (``1621.9750``) at the precision
            it is written with, and with a gold integer exactly (see
            :func:`~assay.verifiers.math.numeric.compare_at_precision`); the relative
            ``tolerance`` then serves the other inexact comparisons only. False when the
            reference sets its own ``tolerance``: the task's tolerance is its precision.
        ordered: ``None`` keeps the natural reading (sets and bare lists ``1, 2`` unordered,
            tuples ``(1, 2)`` ordered); ``True`` makes bare lists ordered too; ``False``
            makes tuples and lists unordered. Sets are always unordered.
    """

    tolerance: Fraction = DEFAULT_TOLERANCE
    percent_as_fraction: bool = False
    ordered: bool | None = None
    written_precision: bool = True


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
