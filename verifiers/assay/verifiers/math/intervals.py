"""Intervals: reading inequalities as intervals, comparing ends, and sympy set forms."""

from __future__ import annotations

from typing import Any

from assay.verifiers.math.numeric import compare_scalars, to_sympy
from assay.verifiers.math.outcome import CompareOptions, Equivalence
from assay.verifiers.math.scalar import sympy_errors
from assay.verifiers.math.values import Collection, Expression, Interval, Number, Relation, Value

FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
"""The operator that holds when the two sides of an inequality swap places."""


def relation_interval(relation: Relation) -> Interval | None:
    """The interval of a one-variable inequality, or None for any other relation.

    ``x > 2`` is ``(2, oo)``, ``1 < x <= 2`` is ``(1, 2]``, ``3 >= x`` is ``(-oo, 3]``.
    """
    import sympy

    if any(op in ("=", "!=") for op in relation.ops) or len(relation.parts) > 3:
        return None
    exprs = [to_sympy(part) for part in relation.parts]
    lone = [i for i, e in enumerate(exprs) if getattr(e, "is_Symbol", False)]
    if len(lone) != 1 or any(e.free_symbols for i, e in enumerate(exprs) if i != lone[0]):
        return None
    index, ops, parts = lone[0], list(relation.ops), list(relation.parts)
    if ops[0] in (">", ">="):
        ops, parts, index = [FLIP[op] for op in reversed(ops)], parts[::-1], len(parts) - 1 - index
    if any(op not in ("<", "<=") for op in ops):
        return None
    left = parts[index - 1] if index > 0 else Expression(-sympy.oo, source="-\\infty")
    right = parts[index + 1] if index + 1 < len(parts) else Expression(sympy.oo, source="\\infty")
    left_open = index == 0 or ops[index - 1] == "<"
    right_open = index + 1 == len(parts) or ops[index] == "<"
    return Interval(left, right, left_open, right_open)


def open_pair(value: Collection) -> Interval | None:
    """The open interval a pair ``(a, b)`` may stand for, or None for any other collection."""
    if value.collection != "tuple" or value.brackets != "()" or len(value.items) != 2:
        return None
    left, right = value.items
    if isinstance(left, Number | Expression) and isinstance(right, Number | Expression):
        return Interval(left, right, left_open=True, right_open=True)
    return None


def interval_like(value: Value) -> bool:
    """An interval, a union, or a pair ``(a, b)`` that may be an open interval."""
    if isinstance(value, Interval):
        return True
    if isinstance(value, Collection):
        return value.collection == "union" or open_pair(value) is not None
    return False


def interval_parts(value: Value) -> list[Value]:
    """The pieces of a union (a pair read as an open interval); one piece otherwise."""
    if isinstance(value, Collection) and value.collection == "union":
        return list(value.items)
    if isinstance(value, Collection):
        pair = open_pair(value)
        return [pair] if pair is not None else [value]
    return [value]


def compare_intervals(gold: Interval, answer: Interval, options: CompareOptions) -> Equivalence:
    """Same open/closed ends and equal endpoints: ``(1, 2]`` is not ``(1, 2)``."""
    if (gold.left_open, gold.right_open) != (answer.left_open, answer.right_open):
        return Equivalence(False, "structural", f"ends differ: {gold} vs {answer}")
    for gold_end, answer_end in ((gold.left, answer.left), (gold.right, answer.right)):
        if not compare_scalars(gold_end, answer_end, options).equal:
            return Equivalence(False, "structural", f"endpoints differ: {gold} vs {answer}")
    return Equivalence(True, "structural", f"same interval {gold}")


def to_sympy_set(value: Value) -> Any:
    """The sympy set of an interval, a union, a set of scalars or a sympy set; else None."""
    import sympy

    if isinstance(value, Expression) and isinstance(value.expr, sympy.Set):
        return value.expr
    if isinstance(value, Collection):
        value = open_pair(value) or value
    if isinstance(value, Interval):
        ends = to_sympy(value.left), to_sympy(value.right)
        return sympy.Interval(*ends, value.left_open, value.right_open)
    if isinstance(value, Collection) and value.collection == "union":
        parts = [to_sympy_set(item) for item in value.items]
        return None if any(part is None for part in parts) else sympy.Union(*parts)
    if isinstance(value, Collection) and value.collection == "set":
        items = [item for item in value.items if isinstance(item, Number | Expression)]
        if len(items) == len(value.items):
            return sympy.FiniteSet(*(to_sympy(item) for item in items))
    return None


def sympy_set_equal(gold: Value, answer: Value) -> Equivalence | None:
    """Compare as sympy sets (``\\mathbb{R}`` vs ``(-\\infty, \\infty)``, merged unions).

    Returns None when either side has no sympy set form.
    """
    gold_set, answer_set = to_sympy_set(gold), to_sympy_set(answer)
    if gold_set is None or answer_set is None:
        return None
    try:
        equal = bool(gold_set == answer_set)
    except sympy_errors():
        return None
    return Equivalence(equal, "symbolic", f"as sets: {gold_set} vs {answer_set}")
