"""The math objects an answer is parsed into.

Each is a frozen dataclass with a ``kind`` (a stable name for evidence) and a ``__str__``
(the form written into a verdict's ``parse`` check). :data:`Scalar` values are numbers or
sympy expressions; the other kinds are built from them.
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

CollectionKind = Literal["set", "tuple", "list", "union"]
MAX_DISPLAY = 200
"""Longest text of one value written into evidence."""


def display(obj: object) -> str:
    """``str(obj)`` for evidence, shortened; a number too long to print is described instead.

    Example:
        >>> display(2**20000)
        '<number too large to print>'
    """
    try:
        text = str(obj)
    except ValueError:  # int -> str refuses more than sys.get_int_max_str_digits() digits
        return "<number too large to print>"
    return text if len(text) <= MAX_DISPLAY else text[: MAX_DISPLAY - 3] + "..."


def _decimal_text(value: Fraction) -> str:
    with decimal.localcontext() as context:
        context.prec = 15
        return str(decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator))


@dataclass(frozen=True, slots=True)
class Number:
    """A plain number read without sympy.

    Attributes:
        value: The exact value of the literal (``0.1`` is ``1/10``).
        exact: False for decimal or scientific literals, which compare with a tolerance.
        percent: The literal carried a percent sign.
        decimals: For a plain decimal literal (``1621.9750``, not ``1.5e-3``): the digits
            written after its point (4); None otherwise. A gold answer with decimals is
            compared at that precision (:mod:`~assay.verifiers.math.numeric`).
    """

    value: Fraction
    exact: bool = True
    percent: bool = False
    kind: Literal["number"] = "number"
    decimals: int | None = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        text = display(self.value) if self.exact else _decimal_text(self.value)
        return text + ("%" if self.percent else "")


@dataclass(frozen=True, slots=True)
class Expression:
    """A sympy object parsed from LaTeX (an expression, or a set such as ``\\mathbb{R}``).

    Attributes:
        expr: The sympy object (typed ``Any``: sympy ships no type information).
        exact: False when the expression holds a floating-point literal.
        percent: The expression carried a trailing percent sign.
        source: The normalized text it was parsed from.
    """

    expr: Any
    exact: bool = True
    percent: bool = False
    source: str = ""
    kind: Literal["expression"] = "expression"

    def __str__(self) -> str:
        return display(self.expr) + ("%" if self.percent else "")


Scalar = Number | Expression


@dataclass(frozen=True, slots=True)
class Text:
    """A word answer (``Monday``, ``yes``, ``no solution``), compared case-insensitively."""

    text: str
    kind: Literal["text"] = "text"

    def __str__(self) -> str:
        return repr(self.text)


@dataclass(frozen=True, slots=True)
class Choice:
    """A multiple-choice letter: ``B``, ``(B)``, ``\\text{(B)}``, ``B) 42``."""

    letter: str
    kind: Literal["choice"] = "choice"

    def __str__(self) -> str:
        return f"({self.letter})"


@dataclass(frozen=True, slots=True)
class Interval:
    """An interval with open or closed ends; infinite ends are ``sympy.oo`` expressions."""

    left: Scalar
    right: Scalar
    left_open: bool
    right_open: bool
    kind: Literal["interval"] = "interval"

    def __str__(self) -> str:
        opener = "(" if self.left_open else "["
        closer = ")" if self.right_open else "]"
        return f"{opener}{self.left}, {self.right}{closer}"


@dataclass(frozen=True, slots=True)
class Relation:
    """An equation, inequality or chain: ``parts[0] ops[0] parts[1] ops[1] ...``.

    Attributes:
        ops: Operators, each one of ``=``, ``<``, ``<=``, ``>``, ``>=``, ``!=``.
        parts: The compared scalars, one more than ``ops``.
    """

    ops: tuple[str, ...]
    parts: tuple[Scalar, ...]
    kind: Literal["relation"] = "relation"

    def __str__(self) -> str:
        words = [str(self.parts[0])]
        for op, part in zip(self.ops, self.parts[1:], strict=True):
            words += [op, str(part)]
        return " ".join(words)


@dataclass(frozen=True, slots=True)
class Matrix:
    """A matrix from a ``pmatrix``/``bmatrix``/``matrix`` environment, row by row."""

    rows: tuple[tuple[Scalar, ...], ...]
    kind: Literal["matrix"] = "matrix"

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.rows), len(self.rows[0]) if self.rows else 0)

    def __str__(self) -> str:
        return "[" + "; ".join(", ".join(str(cell) for cell in row) for row in self.rows) + "]"


@dataclass(frozen=True, slots=True)
class Collection:
    """Several answers at once.

    Attributes:
        items: The elements.
        collection: ``set`` (``\\{1, 2\\}``, unordered), ``tuple`` (``(1, 2)``, ordered),
            ``list`` (a bare ``1, 2``: unordered unless the task says ``ordered``), or
            ``union`` (intervals joined by ``\\cup``).
        brackets: The opening and closing bracket of a tuple, e.g. ``"()"``.
    """

    items: tuple[Value, ...]
    collection: CollectionKind
    brackets: str = ""
    kind: Literal["collection"] = "collection"

    def __str__(self) -> str:
        inner = ", ".join(str(item) for item in self.items)
        if self.collection == "set":
            return "{" + inner + "}"
        if self.collection == "union":
            return " U ".join(str(item) for item in self.items)
        if self.collection == "tuple":
            return f"{self.brackets[:1]}{inner}{self.brackets[1:]}"
        return inner


Value = Number | Expression | Text | Choice | Interval | Relation | Matrix | Collection


def kind_of(value: Value) -> str:
    """A stable name of the value's kind for evidence: ``number``, ``set``, ``interval``..."""
    if isinstance(value, Collection):
        return value.collection
    return value.kind


def assigned_value(relation: Relation) -> Scalar | None:
    """The value of an assignment ``x = ...`` (or ``f(x) = ...``, a chain ``x = a = b``, or the
    value first, ``7 = x``).

    Returns the last part when every operator is ``=`` and the left side is a lone symbol or
    an undefined function applied to arguments (the first part when only the right side is);
    None for any other relation, and for a chain
    whose exact rational parts differ (``x = 5 = 7`` is false, so it has no value).
    """
    if any(op != "=" for op in relation.ops):
        return None
    parts = relation.parts
    if _is_target(parts[0]):
        return None if _false_chain(parts[1:]) else _last_value(parts[1:])
    if _is_target(parts[-1]):  # the value first: ``7 = x``
        return None if _false_chain(parts[:-1]) else parts[0]
    if all(_constant(part) for part in parts) and not _false_chain(parts):
        return _last_value(parts)  # working with no variable: ``2 + 3 = 5``, ``3 \times 6 = 18``
    return None


def _last_value(parts: tuple[Scalar, ...]) -> Scalar:
    """The last part, or before a closing percent the last part that is none (1/2 = 50%
    answers 1/2: the percent restates it)."""
    last = parts[-1]
    if isinstance(last, Number) and last.percent:
        plain = [p for p in parts if not (isinstance(p, Number | Expression) and p.percent)]
        if plain:
            return plain[-1]
    return last


def _constant(part: Scalar) -> bool:
    return isinstance(part, Number) or not getattr(part.expr, "free_symbols", True)


def _is_target(part: Scalar) -> bool:
    """A lone symbol, or an undefined function applied to arguments (``f(x)``)."""
    if not isinstance(part, Expression):
        return False
    expr = part.expr
    if getattr(expr, "is_Symbol", False):
        return True
    func = getattr(expr, "func", None)
    return bool(getattr(expr, "is_Function", False)) and type(func).__name__ == "UndefinedFunction"


def _false_chain(parts: tuple[Scalar, ...]) -> bool:
    """Whether two of these parts are exact rational numbers that differ.

    Only plain numbers and expressions sympy has already reduced to a rational are compared,
    so no hostile expression is evaluated here; an inexact part (``0.333``) is a rounding,
    not a claim of equality, and is left to the comparison of the last part.
    """
    seen: set[Fraction] = set()
    for part in parts:
        if isinstance(part, Number):
            if part.exact:
                seen.add(part.value / 100 if part.percent else part.value)  # 50% is 1/2
        elif part.exact and getattr(part.expr, "is_Rational", False):
            value = Fraction(int(part.expr.p), int(part.expr.q))
            seen.add(value / 100 if part.percent else value)
        if len(seen) > 1:
            return True
    return False
