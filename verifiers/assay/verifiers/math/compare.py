"""Equivalence of a parsed answer with a parsed gold answer.

:func:`equivalent` first aligns the two forms (an assignment ``x = 3`` against a bare ``3``
compares its value; an inequality ``x > 2`` against an interval becomes ``(2, \\infty)``; a
one-element set against a scalar compares the element), then dispatches on the kinds:
scalars to :mod:`~assay.verifiers.math.numeric`, containers element by element.
"""

from __future__ import annotations

from collections.abc import Callable

from assay.verifiers.math.intervals import (
    compare_intervals,
    interval_like,
    interval_parts,
    relation_interval,
    sympy_set_equal,
)
from assay.verifiers.math.numeric import compare_scalars
from assay.verifiers.math.outcome import CompareOptions, Equivalence
from assay.verifiers.math.relations import compare_relations
from assay.verifiers.math.values import (
    Choice,
    Collection,
    Expression,
    Interval,
    Matrix,
    Number,
    Relation,
    Text,
    Value,
    assigned_value,
    kind_of,
)

DEFAULT_OPTIONS = CompareOptions()
Comparer = Callable[[Value, Value, CompareOptions], Equivalence]


def equivalent(
    gold: Value, answer: Value, options: CompareOptions = DEFAULT_OPTIONS
) -> Equivalence:
    """Decide whether ``answer`` is mathematically the same answer as ``gold``.

    Example:
        >>> from assay.verifiers.math.parse import parse_answer
        >>> equivalent(parse_answer("\\\\{1, 2\\\\}"), parse_answer("\\\\{2, 1\\\\}")).equal
        True
        >>> equivalent(parse_answer("(1, 2)"), parse_answer("(2, 1)")).equal
        False
    """
    gold, answer = _align(gold, answer)
    if isinstance(gold, Choice) or isinstance(answer, Choice):
        return _compare_choice(gold, answer)
    if isinstance(gold, Text) or isinstance(answer, Text):
        return _compare_text(gold, answer)
    if isinstance(gold, Number | Expression) and isinstance(answer, Number | Expression):
        return compare_scalars(gold, answer, options)
    if isinstance(gold, Relation) and isinstance(answer, Relation):
        return compare_relations(gold, answer, options)
    if interval_like(gold) and interval_like(answer):
        return _compare_interval_sets(gold, answer, options)
    if isinstance(gold, Collection) and isinstance(answer, Collection):
        return _compare_collections(gold, answer, options)
    if isinstance(gold, Matrix) or isinstance(answer, Matrix):
        return _compare_matrices(gold, answer, options)
    as_sets = sympy_set_equal(gold, answer)
    if as_sets is not None:
        return as_sets
    return Equivalence(False, "structural", f"a {kind_of(answer)} is not a {kind_of(gold)}")


def _align(gold: Value, answer: Value) -> tuple[Value, Value]:
    if isinstance(gold, Relation) and not isinstance(answer, Relation):
        gold = _relation_as(gold, answer)
    elif isinstance(answer, Relation) and not isinstance(gold, Relation):
        answer = _relation_as(answer, gold)
    if not isinstance(answer, Collection):
        gold = _single_element(gold) or gold
    if not isinstance(gold, Collection):
        answer = _single_element(answer) or answer
    return gold, answer


def _relation_as(relation: Relation, other: Value) -> Value:
    """Read a relation the way the other side is written: a value, or an interval."""
    value = assigned_value(relation)
    if value is not None:
        return value
    if interval_like(other):
        interval = relation_interval(relation)
        if interval is not None:
            return interval
    return relation


def _single_element(value: Value) -> Value | None:
    """The element of a one-element set (``\\{3\\}`` against ``3``), else None."""
    if isinstance(value, Collection) and value.collection == "set" and len(value.items) == 1:
        return value.items[0]
    return None


def _compare_choice(gold: Value, answer: Value) -> Equivalence:
    gold_letter, answer_letter = _letter(gold), _letter(answer)
    equal = gold_letter is not None and gold_letter == answer_letter
    return Equivalence(equal, "string", f"choice {gold_letter} vs {answer_letter}")


def _letter(value: Value) -> str | None:
    if isinstance(value, Choice):
        return value.letter
    if isinstance(value, Expression) and len(value.source) == 1 and value.source.isalpha():
        return value.source.upper()
    return None


def _compare_text(gold: Value, answer: Value) -> Equivalence:
    gold_text, answer_text = _as_text(gold), _as_text(answer)
    equal = gold_text == answer_text
    return Equivalence(equal, "string", f"{gold_text!r} vs {answer_text!r}")


def _as_text(value: Value) -> str:
    if isinstance(value, Text):
        return value.text
    if isinstance(value, Expression) and value.source:
        return " ".join(value.source.lower().split())
    return str(value).lower()


def _compare_interval_sets(gold: Value, answer: Value, options: CompareOptions) -> Equivalence:
    if (
        isinstance(gold, Collection)
        and isinstance(answer, Collection)
        and gold.collection == answer.collection == "tuple"
    ):
        return _compare_collections(gold, answer, options)
    gold_parts, answer_parts = interval_parts(gold), interval_parts(answer)
    if len(gold_parts) == len(answer_parts) == 1:
        outcome = _compare_part(gold_parts[0], answer_parts[0], options)
    elif match_unordered(gold_parts, answer_parts, options, _compare_part):
        outcome = Equivalence(True, "structural", "all intervals of the union match")
    else:
        outcome = Equivalence(False, "structural", "the unions differ")
    if outcome.equal:
        return outcome
    return sympy_set_equal(gold, answer) or outcome


def _compare_part(gold: Value, answer: Value, options: CompareOptions) -> Equivalence:
    if isinstance(gold, Interval) and isinstance(answer, Interval):
        return compare_intervals(gold, answer, options)
    if isinstance(gold, Interval) or isinstance(answer, Interval):
        return Equivalence(False, "structural", f"a {kind_of(answer)} is not a {kind_of(gold)}")
    return equivalent(gold, answer, options)


def _compare_collections(
    gold: Collection, answer: Collection, options: CompareOptions
) -> Equivalence:
    kinds = {gold.collection, answer.collection}
    if kinds == {"set", "tuple"}:
        return Equivalence(False, "structural", "a set is not a tuple")
    if len(gold.items) != len(answer.items):
        return Equivalence(
            False, "structural", f"{len(answer.items)} vs {len(gold.items)} elements"
        )
    ordered = _is_ordered(gold, options)
    if ordered:
        equal = all(
            equivalent(g, a, options).equal for g, a in zip(gold.items, answer.items, strict=True)
        )
    else:
        equal = match_unordered(list(gold.items), list(answer.items), options)
    order = "in order" if ordered else "in any order"
    detail = f"{len(gold.items)} elements {order}: {'all match' if equal else 'mismatch'}"
    return Equivalence(equal, "structural", detail)


def _is_ordered(gold: Collection, options: CompareOptions) -> bool:
    if gold.collection == "set":
        return False
    if options.ordered is not None:
        return options.ordered
    return gold.collection == "tuple"


def match_unordered(
    gold: list[Value],
    answer: list[Value],
    options: CompareOptions,
    compare: Comparer | None = None,
) -> bool:
    """A perfect matching of equal elements exists (Kuhn's augmenting paths)."""
    compare = compare or equivalent
    cache: dict[tuple[int, int], bool] = {}

    def equal(g: int, a: int) -> bool:
        if (g, a) not in cache:
            cache[(g, a)] = compare(gold[g], answer[a], options).equal
        return cache[(g, a)]

    owner: dict[int, int] = {}

    def assign(g: int, seen: set[int]) -> bool:
        for a in range(len(answer)):
            if a in seen or not equal(g, a):
                continue
            seen.add(a)
            if a not in owner or assign(owner[a], seen):
                owner[a] = g
                return True
        return False

    return len(gold) == len(answer) and all(assign(g, set()) for g in range(len(gold)))


def _compare_matrices(gold: Value, answer: Value, options: CompareOptions) -> Equivalence:
    gold_grid, answer_grid = _grid(gold), _grid(answer)
    if gold_grid is None or answer_grid is None:
        return Equivalence(False, "structural", f"a {kind_of(answer)} is not a {kind_of(gold)}")
    if gold_grid[0] != answer_grid[0]:
        return Equivalence(
            False, "structural", f"shapes differ: {answer_grid[0]} vs {gold_grid[0]}"
        )
    for gold_cell, answer_cell in zip(gold_grid[1], answer_grid[1], strict=True):
        if not equivalent(gold_cell, answer_cell, options).equal:
            return Equivalence(False, "structural", f"entries differ: {gold_cell} vs {answer_cell}")
    return Equivalence(True, "structural", f"{len(gold_grid[1])} entries match")


def _grid(value: Value) -> tuple[tuple[int, int], list[Value]] | None:
    """Shape and entries, row by row; a row, a column and a tuple are the same vector."""
    if isinstance(value, Matrix):
        rows, columns = value.shape
        cells: list[Value] = [cell for row in value.rows for cell in row]
        return ((rows * columns, 1) if min(rows, columns) == 1 else (rows, columns)), cells
    if isinstance(value, Collection) and value.collection == "tuple":
        return (len(value.items), 1), list(value.items)
    return None
