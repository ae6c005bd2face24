"""Reading a normalized answer string into a :data:`~assay.verifiers.math.values.Value`.

The structure (lists, sets, tuples, intervals, unions, matrices, relations, choices, words)
is read here with bracket-aware splitting, so ordered and unordered forms stay distinct;
only the scalars at the leaves go to :func:`~assay.verifiers.math.scalar.parse_scalar`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from typing import Any

from assay.verifiers.math.cost import too_costly_text
from assay.verifiers.math.scalar import (
    AnswerParseError,
    is_exact,
    matrix_notation,
    parse_number,
    parse_scalar,
)
from assay.verifiers.math.scan import find_top_level, matching_close, split_top_level, wrapped_by
from assay.verifiers.math.values import (
    Choice,
    Collection,
    Expression,
    Interval,
    Matrix,
    Number,
    Relation,
    Scalar,
    Text,
    Value,
    assigned_value,
)

MAX_DEPTH = 24
"""Deepest nesting of lists, sets and tuples that is read."""

_CHOICE = re.compile(
    r"^(?:\(?(?P<a>[A-J])\)|(?P<b>[A-J])|\((?P<c>[a-j])\)|\((?P<d>[A-J])\)\s+\S.*"
    r"|(?P<e>[A-J])[.):]\s+\S.*)$"
)
_SCALES = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}
_SCALED = re.compile(
    r"^(?P<number>[-+]?(?:\d+(?:\.\d+)?|\.\d+))\s*(?P<scale>thousand|million|billion|trillion)s?$",
    re.IGNORECASE,
)
_JUSTIFIED_CHOICE = re.compile(
    r"^\(?(?P<letter>[A-J])\)\s*,?\s+(?:not|since|because|as|but|rather\s+than|instead\s+of)\b"
)
_CHOICE_MARK = re.compile(r"(?<![A-Za-z0-9\\])(?:\((?P<p>[A-Ja-j])\)|(?P<q>[A-J])\))")
_CHOICE_JOIN = re.compile(r"^(?:\s|[,;&]|\b(?:and|or)\b|\\text\{\s*(?:and|or)?\s*\})*$")
_MEMBERSHIP = re.compile(r"^[A-Za-z](?:_\{?\w+\}?)?\s*\\in\s*(?P<rest>.+)$")
_MATRIX = re.compile(
    r"^\\begin\{(?P<env>[pbB]?matrix|smallmatrix|array)\}(?:\{[lcr|]*\})?(?P<body>.*)"
    r"\\end\{(?P=env)\}$",
    re.DOTALL,
)
_CUP = re.compile(r"\\cup(?![a-zA-Z])")
_RELATION = re.compile(r"\\le(?![a-zA-Z])|\\ge(?![a-zA-Z])|\\ne(?![a-zA-Z])|<=|>=|!=|=|<|>")
_RELATION_OPS = {"\\le": "<=", "\\ge": ">=", "\\ne": "!="}
_PLUS_MINUS = re.compile(r"\\(?:pm|mp)(?![a-zA-Z])")
_WORDS = re.compile(r"^[A-Za-z][A-Za-z' -]*$")
_MATH_WORDS_TEXT = (
    "pi sqrt sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh log ln exp "
    "abs inf infty infinity oo"
)
_MATH_WORDS = frozenset(_MATH_WORDS_TEXT.split())
_MIN_TEXT_WORD = 3
_UNIT_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
)
_UNITS = {word: value for value, word in enumerate(_UNIT_WORDS.split())}
_TENS_WORDS = "twenty thirty forty fifty sixty seventy eighty ninety"
_TENS = {word: 20 + 10 * index for index, word in enumerate(_TENS_WORDS.split())}

Reader = Callable[[str, int], Value | None]


@lru_cache(maxsize=8192)
def parse_answer(text: str) -> Value:
    """Read a normalized answer (see :func:`~assay.verifiers.math.normalize.normalize_answer`).

    Raises:
        AnswerParseError: the text cannot be read as math or as a word answer.

    Example:
        >>> str(parse_answer("(1, 2]")), str(parse_answer("x = 1, 2"))
        ('(1, 2]', '1, 2')
    """
    return _parse(text, 0)


def _parse(text: str, depth: int) -> Value:
    if depth > MAX_DEPTH:
        raise too_costly_text("lists, sets and tuples nested too deeply", depth, MAX_DEPTH)
    text = text.strip()
    if not text:
        raise AnswerParseError("empty answer")
    if "\\begin" in text:
        text = matrix_notation(text)
    if _SIDE_BY_SIDE.fullmatch(text):  # "7 2": two answers, or digits a space split
        raise AnswerParseError(f"numbers side by side with nothing between them: {text[:40]!r}")
    for reader in _READERS:
        value = reader(text, depth)
        if value is not None:
            return value
    scalar = parse_scalar(text)
    return _sympy_matrix(scalar) or scalar


def _sympy_matrix(scalar: Scalar) -> Matrix | None:
    """A matrix the LaTeX parser built (``\\frac{1}{4}\\begin{pmatrix}...``) as a Matrix."""
    if not isinstance(scalar, Expression) or not getattr(scalar.expr, "is_Matrix", False):
        return None
    rows = _explicit_rows(scalar.expr)
    return Matrix(
        tuple(
            tuple(Expression(cell, is_exact(cell), source=str(cell)) for cell in row)
            for row in rows
        )
    )


_TAKEN_BACK = re.compile(r"\b(?:not|wrong|incorrect|isn't|false)\b", re.IGNORECASE)
_SIDE_BY_SIDE = re.compile(r"-?\d+(?:\.\d+)?(?:\s+\d+(?:\.\d+)?)+")
_MAX_MATRIX_POWER = 64
_MAX_MATRIX_CELLS = 100


def _explicit_rows(expr: Any) -> list[list[Any]]:
    """The rows of a matrix the parser built: a matrix, or a small product or integer power
    of matrices (``t\\begin{pmatrix}1\\\\2\\end{pmatrix}``, ``M^{-1}``, ``M^2``), worked out.

    Raises:
        AnswerParseError: another matrix expression (``\\sqrt{M}``, ``M^{10^6}``): its value is
            not written, and working it out may not be cheap.
    """
    import sympy

    if hasattr(expr, "tolist"):
        return list(expr.tolist())
    powers = [p for p in sympy.preorder_traversal(expr) if isinstance(p, sympy.MatPow)]
    shape = getattr(expr, "shape", (0, 0))
    small = all(isinstance(n, int | sympy.Integer) for n in shape) and shape[0] * shape[1] <= (
        _MAX_MATRIX_CELLS
    )
    if small and all(p.exp.is_Integer and abs(int(p.exp)) <= _MAX_MATRIX_POWER for p in powers):
        try:
            return list(expr.as_explicit().tolist())
        except (ValueError, TypeError, ArithmeticError, NotImplementedError) as exc:
            raise AnswerParseError(f"the matrix expression has no value: {exc}") from None
    raise AnswerParseError("a matrix expression whose entries are not written out")


def _scalar(text: str, depth: int) -> Scalar:
    value = _parse(text, depth)
    if not isinstance(value, Number | Expression):
        raise AnswerParseError(f"expected a number or an expression, got {value}")
    return value


def _read_choice(text: str, depth: int) -> Value | None:
    justified = _JUSTIFIED_CHOICE.match(text)
    if justified is not None:  # "(B), not (A)", "(C), since (A) and (B) are too small"
        return Choice(justified["letter"].upper())
    several = _several_choices(text)
    if several is not None:
        return several
    match = _CHOICE.match(text)
    if match is None:
        return None
    if (match["d"] or match["e"]) and _TAKEN_BACK.search(text):
        return None  # "(B) is wrong": the option named and taken back
    letter = next(group for group in match.groups() if group)
    return Choice(letter.upper())


def _several_choices(text: str) -> Collection | None:
    """Option letters named together: a list of choices, however the gold is written.

    Either nothing but letters and connectives (``(A) (B) (C) (D)``, ``A) C)``, ``(A) or
    (C)``) or the options listed in order from ``(A)`` with their texts (``(A) 4 (B) 5 (C)
    6``); one letter with an option text that names others (``(D) both (A) and (B)``) stays
    one choice.
    """
    marks = list(_CHOICE_MARK.finditer(text))
    if len(marks) < 2 or text[: marks[0].start()].strip():
        return None
    letters = [(mark["p"] or mark["q"]).upper() for mark in marks]
    gaps = [text[a.end() : b.start()] for a, b in itertools.pairwise(marks)]
    only_letters = all(_CHOICE_JOIN.match(gap) for gap in [*gaps, text[marks[-1].end() :]])
    in_order = len(letters) >= 3 and letters == [chr(ord("A") + i) for i in range(len(letters))]
    if not (only_letters or in_order):
        return None
    return Collection(tuple(Choice(letter) for letter in dict.fromkeys(letters)), "list")


def _read_membership(text: str, depth: int) -> Value | None:
    match = _MEMBERSHIP.match(text)
    return None if match is None else _parse(match["rest"], depth + 1)


def _read_matrix(text: str, depth: int) -> Value | None:
    match = _MATRIX.match(text)
    if match is None:
        return None
    lines = [line for line in match["body"].split("\\\\") if line.strip()]
    rows = tuple(tuple(_scalar(cell, depth + 1) for cell in line.split("&")) for line in lines)
    if not rows or len({len(row) for row in rows}) != 1:
        raise AnswerParseError("matrix rows differ in length")
    return Matrix(rows)


def _read_union(text: str, depth: int) -> Value | None:
    cups = find_top_level(text, _CUP)
    if not cups:
        return None
    bounds = [0, *(m.start() for m in cups), len(text)]
    pieces = [text[a:b].removeprefix("\\cup") for a, b in itertools.pairwise(bounds)]
    parts = tuple(_as_interval(_parse(piece, depth + 1)) for piece in pieces)
    return Collection(parts, "union")


def _as_interval(value: Value) -> Value:
    """A tuple ``(a, b)`` inside a union is the open interval."""
    if isinstance(value, Collection) and value.collection == "tuple" and value.brackets == "()":
        left, right = value.items if len(value.items) == 2 else (None, None)
        if isinstance(left, Number | Expression) and isinstance(right, Number | Expression):
            return Interval(left, right, left_open=True, right_open=True)
    return value


def _read_set(text: str, depth: int) -> Value | None:
    if text == "\\emptyset":
        return Collection((), "set")
    if not wrapped_by(text, "\\{", "\\}"):
        return None
    inner = text[2:-2]
    pieces = [piece for piece in split_top_level(inner, ",;") if piece.strip()]
    return Collection(tuple(_parse(piece, depth + 1) for piece in pieces), "set")


def _read_list(text: str, depth: int) -> Value | None:
    pieces = [piece for piece in split_top_level(text, ",;") if piece.strip()]
    if len(pieces) < 2:
        return None
    items = tuple(_parse(piece, depth + 1) for piece in pieces)
    return Collection(_collapse_assignments(items), "list")


def _collapse_assignments(items: tuple[Value, ...]) -> tuple[Value, ...]:
    """``x = 1, 2`` and ``x = 1, x = 2`` are the list of values ``1, 2``."""
    first = items[0]
    if not isinstance(first, Relation) or assigned_value(first) is None:
        return items
    target = str(first.parts[0])
    rest = items[1:]
    if not any(isinstance(item, Relation) for item in rest):
        return (first.parts[-1], *rest)
    same_target = all(
        isinstance(item, Relation)
        and assigned_value(item) is not None
        and str(item.parts[0]) == target
        for item in rest
    )
    if same_target:
        return tuple(item.parts[-1] for item in items if isinstance(item, Relation))
    return items


def _read_bracketed(text: str, depth: int) -> Value | None:
    if text[0] not in "([" or text[-1] not in ")]" or matching_close(text, 0) != len(text) - 1:
        return None
    pieces = split_top_level(text[1:-1], ",")
    if len(pieces) == 1:
        return _parse(pieces[0], depth + 1)
    items = tuple(_parse(piece, depth + 1) for piece in pieces)
    brackets = text[0] + text[-1]
    if len(items) == 2 and brackets != "()":
        left, right = items
        if isinstance(left, Number | Expression) and isinstance(right, Number | Expression):
            return Interval(left, right, text[0] == "(", text[-1] == ")")
    return Collection(items, "tuple", brackets)


def _read_plus_minus(text: str, depth: int) -> Value | None:
    signs = _PLUS_MINUS.findall(text)
    if len(signs) != 1:
        return None
    plus = _PLUS_MINUS.sub("+", text)
    minus = _PLUS_MINUS.sub("-", text)
    if signs[0] == "\\mp":
        plus, minus = minus, plus
    return _parse(f"{plus}, {minus}", depth + 1)


def _read_relation(text: str, depth: int) -> Value | None:
    matches = find_top_level(text, _RELATION)
    if not matches:
        return None
    bounds = [0, *(p for m in matches for p in (m.start(), m.end())), len(text)]
    pieces = [text[bounds[i] : bounds[i + 1]] for i in range(0, len(bounds), 2)]
    ops = [_RELATION_OPS.get(m.group(0), m.group(0)) for m in matches]
    if not pieces[0].strip() and ops[0] == "=" and len(ops) == 1:
        return _parse(pieces[1], depth + 1)
    values = [_parse(piece, depth + 1) for piece in pieces]
    scalars = tuple(v for v in values if isinstance(v, Number | Expression))
    if len(scalars) == len(values):
        return Relation(tuple(ops), scalars)
    if ops == ["="] and re.search("[A-Za-z]", pieces[0]):
        return values[1]  # "(x, y) = (1, 2)", "A^T = \\begin{pmatrix}...": the named value
    raise AnswerParseError(f"cannot relate {', '.join(str(v) for v in values)}")


def _read_text(text: str, depth: int) -> Value | None:
    if not _WORDS.match(text):
        return None
    words = text.lower().replace("-", " ").split()
    if any(word in _MATH_WORDS for word in words):
        return None
    number = number_from_words(words)
    if number is not None:
        return Number(Fraction(number))
    if len(words) < 2 and len(words[0]) < _MIN_TEXT_WORD:
        return None
    return Text(" ".join(text.lower().split()))


def number_from_words(words: list[str]) -> int | None:
    """``twelve`` is 12, ``twenty one`` is 21 (0 to 99); None for other words.

    Example:
        >>> number_from_words(["forty", "two"]), number_from_words(["monday"])
        (42, None)
    """
    if len(words) == 1 and words[0] in _UNITS:
        return _UNITS[words[0]]
    if 1 <= len(words) <= 2 and words[0] in _TENS:
        if len(words) == 1:
            return _TENS[words[0]]
        if words[1] in _UNITS and 0 < _UNITS[words[1]] < 10:
            return _TENS[words[0]] + _UNITS[words[1]]
    return None


def _read_scaled(text: str, depth: int) -> Value | None:
    """A number with a scale word: ``3 million`` is 3000000, ``1.5 billion`` 1500000000."""
    match = _SCALED.match(text)
    if match is None:
        return None
    number = parse_number(match["number"])
    if number is None:
        return None
    scale = 10 ** _SCALES[match["scale"].lower()]
    return Number(number.value * scale, number.exact, number.percent)


_READERS: tuple[Reader, ...] = (
    _read_choice,
    _read_scaled,
    _read_membership,
    _read_matrix,
    _read_union,
    _read_set,
    _read_list,
    _read_bracketed,
    _read_plus_minus,
    _read_relation,
    _read_text,
)
