"""Equations and inequalities: the same relation up to a constant factor."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from assay.verifiers.math.intervals import FLIP, compare_intervals, relation_interval
from assay.verifiers.math.numeric import evaluate, points_key, sample_points, to_sympy
from assay.verifiers.math.outcome import CompareOptions, Equivalence
from assay.verifiers.math.scalar import sympy_errors
from assay.verifiers.math.values import Relation, display

RATIO_TOLERANCE = Fraction(1, 10**12)
"""Relative spread allowed between the ratios of two exact relations at random points."""
_NEGLIGIBLE = 1e-20


def compare_relations(gold: Relation, answer: Relation, options: CompareOptions) -> Equivalence:
    """One-variable inequalities as intervals; other relations by :func:`proportional`."""
    gold_interval, answer_interval = relation_interval(gold), relation_interval(answer)
    if gold_interval is not None and answer_interval is not None:
        return compare_intervals(gold_interval, answer_interval, options)
    gold_form, answer_form = normal_form(gold), normal_form(answer)
    if gold_form is None or answer_form is None:
        return Equivalence(False, "structural", f"cannot compare {gold} with {answer}")
    if gold_form[0] != answer_form[0]:
        return Equivalence(False, "structural", f"relations {gold_form[0]} vs {answer_form[0]}")
    exact = all(part.exact for part in (*gold.parts, *answer.parts))
    tolerance = RATIO_TOLERANCE if exact else options.tolerance
    positive = gold_form[0] not in ("=", "!=")
    return proportional(gold_form[1], answer_form[1], positive, tolerance)


def normal_form(relation: Relation) -> tuple[str, Any] | None:
    """``lhs - rhs`` with the operator turned to ``=``, ``!=``, ``>`` or ``>=``.

    A chain of equalities ``a = b = c`` keeps its ends; other chains have no normal form.
    """
    if len(set(relation.ops)) != 1:
        return None
    op = relation.ops[0]
    if op == "=":
        left, right = relation.parts[0], relation.parts[-1]
    elif len(relation.parts) == 2:
        left, right = relation.parts
    else:
        return None
    try:
        difference = to_sympy(left) - to_sympy(right)
    except TypeError:  # a side that is no number: a set (``x = \\mathbb{R}``), a matrix
        return None
    if op in ("<", "<="):
        return FLIP[op], -difference
    return op, difference


def proportional(gold: Any, answer: Any, positive: bool, tolerance: Fraction) -> Equivalence:
    """True when ``answer == c * gold`` for a constant ``c != 0`` (``c > 0`` if ``positive``).

    ``y = 2x + 1`` and ``2x - y + 1 = 0`` are the same line: their differences are
    proportional. The ratio is checked at random points, then named by ``cancel``.
    """
    if gold == answer:
        return Equivalence(True, "structural", "identical relations")
    symbols = sorted(gold.free_symbols | answer.free_symbols, key=str)
    ratios = []
    for point in sample_points(len(symbols), points_key(gold, answer)):
        subs = dict(zip(symbols, point, strict=True))
        gold_value, answer_value = evaluate(gold, subs=subs), evaluate(answer, subs=subs)
        if gold_value is None or answer_value is None or abs(gold_value) < _NEGLIGIBLE:
            continue
        ratios.append(answer_value / gold_value)
    if len(ratios) < 2 or abs(ratios[0]) < _NEGLIGIBLE:
        return Equivalence(False, "structural", "relations are not proportional")
    spread = max(abs(r - ratios[0]) for r in ratios) / abs(ratios[0])
    sign_ok = not positive or (abs(ratios[0].imag) < _NEGLIGIBLE and ratios[0].real > 0)
    if spread > float(tolerance) or not sign_ok:
        return Equivalence(False, "structural", "relations are not proportional")
    return Equivalence(True, "structural", _factor_detail(gold, answer, len(ratios)))


def _factor_detail(gold: Any, answer: Any, points: int) -> str:
    import sympy

    try:
        ratio = sympy.cancel(answer / gold)
    except sympy_errors():
        ratio = None
    if ratio is not None and not ratio.free_symbols:
        return f"relations differ by the factor {display(ratio)}"
    return f"relations proportional at {points} random points"
