"""Parsing answers into math objects and deciding equivalence."""

from __future__ import annotations

from fractions import Fraction

import pytest
from assay.verifiers.math import (
    AnswerParseError,
    CompareOptions,
    Equivalence,
    Value,
    equivalent,
    normalize_answer,
    parse_answer,
)
from assay.verifiers.math.values import kind_of


def read(text: str) -> Value:
    return parse_answer(normalize_answer(text))


def compare(gold: str, answer: str, options: CompareOptions | None = None) -> Equivalence:
    return equivalent(read(gold), read(answer), options or CompareOptions())


KINDS = [
    # Plain numbers never touch sympy.
    ("-12.5", "number"),
    ("\\frac{3}{4}", "number"),
    ("2.5 \\times 10^{-3}", "number"),
    # Anything else is a sympy expression.
    ("\\frac{\\sqrt{2}}{2}", "expression"),
    # A closed or half-open pair is an interval; an open pair may also be a point.
    ("(1, 2]", "interval"),
    ("(1, 2)", "tuple"),
    ("\\{1, 2\\}", "set"),
    ("1, 2", "list"),
    ("(-\\infty, 1) \\cup (2, \\infty)", "union"),
    ("\\begin{bmatrix}1 & 2\\\\3 & 4\\end{bmatrix}", "matrix"),
    ("y = 2x + 1", "relation"),
    ("\\text{(B)}", "choice"),
    ("\\text{Monday}", "text"),
    # "x = 1, 2" is the list of values of x.
    ("x = 1, 2", "list"),
    # \pm stands for two answers.
    ("\\pm \\sqrt{3}", "list"),
    # A repeating decimal is an exact number.
    ("0.\\overline{3}", "number"),
    # A number word is a number.
    ("twelve", "number"),
    # A scalar times a matrix is a matrix.
    ("\\frac{1}{4}\\begin{pmatrix}2 & 0\\\\0 & 1\\end{pmatrix}", "matrix"),
    # A named value: "(x, y) = (1, 2)" is the pair.
    ("(x, y) = (1, 2)", "tuple"),
]


@pytest.mark.parametrize(
    ("text", "kind"),
    KINDS,
    ids=[
        "decimal",
        "fraction",
        "scientific",
        "radical",
        "half-open",
        "open-pair",
        "set",
        "bare-list",
        "union",
        "matrix",
        "equation",
        "choice",
        "word",
        "assignment-list",
        "plus-minus",
        "repeating-decimal",
        "number-word",
        "scalar-times-matrix",
        "named-pair",
    ],
)
def test_kinds(text: str, kind: str) -> None:
    assert kind_of(read(text)) == kind


@pytest.mark.parametrize(
    "text",
    [
        # Python is not math: no eval, and the whitelist refuses the word.
        "__import__('os').system('ls')",
        # A dunder attribute chain.
        "().__class__.__bases__",
        # Broken LaTeX.
        "\\frac{1}{",
        # A literal with an absurd exponent is refused instead of expanded.
        "1e999999",
        # An empty set of braces after normalization is empty.
        "{}",
    ],
    ids=["python-call", "dunder", "broken-latex", "huge-exponent", "empty"],
)
def test_unreadable(text: str) -> None:
    with pytest.raises(AnswerParseError):
        read(text)


EQUIVALENT = [
    # Exact rationals: a decimal equals the fraction it spells.
    ("\\frac{1}{2}", "0.5", "numeric"),
    # Radicals: \frac{\sqrt{2}}{2} is 1/\sqrt{2}.
    ("\\frac{\\sqrt{2}}{2}", "\\frac{1}{\\sqrt{2}}", "symbolic"),
    # A nested-radical identity that needs simplification.
    ("\\frac{1+\\sqrt{5}}{2}", "\\frac{2}{\\sqrt{5}-1}", "symbolic"),
    # Powers are evaluated exactly.
    ("2^{10}", "1024", "numeric"),
    # Complex numbers: i is the imaginary unit, order of terms is irrelevant.
    ("3+4i", "4i+3", "symbolic"),
    # Sets ignore order.
    ("\\{1, 2\\}", "\\{2, 1\\}", "structural"),
    # Unordered roots: "x = 1, 2" against "2, 1".
    ("x = 1, 2", "2, 1", "structural"),
    # \pm expands to both roots.
    ("\\pm 2", "-2, 2", "structural"),
    # Intervals with the same ends.
    ("(1, 2]", "(1,2]", "string"),
    # An inequality is the interval it describes.
    ("(2, \\infty)", "x > 2", "structural"),
    ("(2,\\infty)", "x \\in (2, \\infty)", "structural"),
    ("(1, 2]", "1 < x \\le 2", "structural"),
    # Unions ignore the order of their intervals.
    ("(-\\infty, 1) \\cup (2, \\infty)", "(2, \\infty) \\cup (-\\infty, 1)", "structural"),
    # bmatrix and pmatrix are the same matrix.
    (
        "\\begin{pmatrix}1 & 2\\\\3 & 4\\end{pmatrix}",
        "\\begin{bmatrix}1&2\\\\3&4\\end{bmatrix}",
        "structural",
    ),
    # A column vector written as a tuple.
    ("\\begin{pmatrix}1\\\\-2\\end{pmatrix}", "(1, -2)", "structural"),
    # An assignment against its value, both ways.
    ("x = 3", "3", "numeric"),
    ("3", "x = 3", "numeric"),
    # The same line written two ways.
    ("y = 2x + 1", "2x - y + 1 = 0", "structural"),
    # Expressions: expanded and factored forms.
    ("2(x+1)", "2x+2", "symbolic"),
    # A trigonometric identity (settled at random points, not by simplify).
    ("\\sin^2 x + \\cos^2 x", "1", "numeric"),
    # Multiple choice: the letter, however it is dressed.
    ("B", "(B)", "string"),
    ("\\text{(C)}", "\\text{C}", "string"),
    # Word answers ignore case.
    ("\\text{Monday}", "monday", "string"),
    # A percent sign is ignored against a percent gold...
    ("50\\%", "50", "numeric"),
    # Plain-text math is transliterated, not evaluated.
    ("\\frac{\\sqrt{2}}{2}", "sqrt(2)/2", "symbolic"),
    # A one-element set against its element.
    ("\\{3\\}", "3", "numeric"),
    # Degrees dropped on both sides.
    ("45^\\circ", "45", "string"),
    # Relative tolerance: 1/3 to 7 digits is within 1e-6.
    ("\\frac{1}{3}", "0.3333333", "numeric"),
    # \mathbb{R} is the whole line.
    ("(-\\infty, \\infty)", "\\mathbb{R}", "symbolic"),
    # A repeating decimal is exactly its fraction.
    ("\\frac{1}{6}", "0.1\\overline{6}", "numeric"),
    # A number word against digits.
    ("21", "twenty-one", "numeric"),
]


@pytest.mark.parametrize(
    ("gold", "answer", "method"),
    EQUIVALENT,
    ids=[
        "decimal-fraction",
        "rationalized-radical",
        "golden-ratio",
        "power",
        "complex",
        "set-order",
        "roots-order",
        "plus-minus",
        "interval-spacing",
        "inequality-ray",
        "membership",
        "chain-inequality",
        "union-order",
        "pmatrix-bmatrix",
        "vector-tuple",
        "assignment-gold",
        "assignment-answer",
        "same-line",
        "expanded",
        "pythagorean-identity",
        "choice-parens",
        "choice-text",
        "word-case",
        "percent-gold",
        "plain-text-math",
        "singleton-set",
        "degrees",
        "decimal-within-tolerance",
        "reals",
        "repeating-decimal",
        "number-word",
    ],
)
def test_equivalent(gold: str, answer: str, method: str) -> None:
    if method == "string":
        # The string fast path lives in grade(); parsed forms must agree as well.
        assert compare(gold, answer).equal
        return
    outcome = compare(gold, answer)
    assert (outcome.equal, outcome.method) == (True, method), outcome.detail


NOT_EQUIVALENT = [
    # Exact big integers never go through float.
    ("2^{100}", "2^{100}+1"),
    # Relative tolerance: 1e-7 and 2e-7 differ by half.
    ("2e-7", "1e-7"),
    # 3.14 is not pi at the default tolerance.
    ("\\pi", "3.14"),
    # Open and half-open intervals differ.
    ("(1, 2)", "(1, 2]"),
    # Tuples are ordered.
    ("(1, 2)", "(2, 1)"),
    # A set is not a tuple.
    ("\\{1, 2\\}", "(1, 2)"),
    # Missing a root.
    ("1, 2, 3", "1, 2"),
    # Conjugates differ.
    ("3+4i", "3-4i"),
    # A parallel line is another line.
    ("y = 2x + 1", "y = 2x + 2"),
    # A factor short.
    ("(x-1)(x+1)", "x^2 + 1"),
    # The x100 confusion: a gold without a percent sign is not its hundredth (issue 15).
    ("50", "0.5"),
    # The reverse direction: a gold fraction is not an answer percent by default.
    ("0.5", "50\\%"),
    # A gold percent is not an answer percent a hundred times smaller.
    ("50\\%", "0.5\\%"),
    # Different letters.
    ("B", "C"),
    # Different words.
    ("\\text{Monday}", "\\text{Tuesday}"),
    # A matrix and its transpose.
    ("\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}", "\\begin{pmatrix}1&3\\\\2&4\\end{pmatrix}"),
    # The ray points the other way.
    ("(2, \\infty)", "x < 2"),
    # Two answers offered in one box do not match a single gold.
    ("3", "3, 5"),
    # Different variables.
    ("x = 2", "y = 2"),
    # Infinities of opposite sign.
    ("\\infty", "-\\infty"),
]


@pytest.mark.parametrize(
    ("gold", "answer"),
    NOT_EQUIVALENT,
    ids=[
        "big-integers",
        "relative-tolerance",
        "pi-vs-3.14",
        "interval-ends",
        "tuple-order",
        "set-vs-tuple",
        "missing-root",
        "conjugate",
        "parallel-line",
        "polynomial",
        "times-100",
        "fraction-not-answer-percent",
        "percent-not-smaller-percent",
        "choice",
        "word",
        "transpose",
        "opposite-ray",
        "list-vs-scalar",
        "variables",
        "infinities",
    ],
)
def test_not_equivalent(gold: str, answer: str) -> None:
    outcome = compare(gold, answer)
    assert not outcome.equal, outcome.detail


OPTIONS = [
    # percent_as_fraction: 50% may equal 0.5, both ways.
    ("50\\%", "0.5", CompareOptions(percent_as_fraction=True), True),
    ("0.5", "50\\%", CompareOptions(percent_as_fraction=True), True),
    # A looser tolerance accepts 3.14 for pi.
    ("\\pi", "3.14", CompareOptions(tolerance=Fraction(1, 1000)), True),
    # Tolerance 0 demands equal values even for decimals.
    (
        "0.3333333",
        "\\frac{1}{3}",
        CompareOptions(tolerance=Fraction(0), written_precision=False),
        False,
    ),
    # Without a tolerance of its own, a decimal gold is compared at its written precision.
    ("0.3333333", "\\frac{1}{3}", CompareOptions(tolerance=Fraction(0)), True),
    ("1234567.1", "1234567.0", CompareOptions(), False),
    ("1621.9750", "1621.9751", CompareOptions(), False),
    ("1621.9750", "1621.975", CompareOptions(), True),
    ("3.14159", "3.14", CompareOptions(), False),
    ("3.14159", "3.1415926", CompareOptions(), True),
    # An integer gold is exact; a percent gold equals its fraction, exactly.
    ("9", "9.0000001", CompareOptions(), False),
    ("9", "9.0", CompareOptions(), True),
    ("10\\%", "0.1", CompareOptions(), True),
    ("25\\%", "0.2500001", CompareOptions(), False),
    ("12.5\\%", "0.125", CompareOptions(), True),
    # ordered=True makes a bare list ordered.
    ("1, 2", "2, 1", CompareOptions(ordered=True), False),
    # ordered=False makes a tuple unordered.
    ("(1, 2, 3)", "(3, 1, 2)", CompareOptions(ordered=False), True),
]


@pytest.mark.parametrize(
    ("gold", "answer", "options", "equal"),
    OPTIONS,
    ids=[
        "percent-gold",
        "percent-answer",
        "loose-tolerance",
        "zero-tolerance",
        "precision-default",
        "precision-tenth",
        "precision-last-digit",
        "precision-fewer-zeros",
        "precision-less-precise",
        "precision-more-precise",
        "integer-exact",
        "integer-as-decimal",
        "percent-fraction",
        "percent-fraction-exact",
        "percent-decimal-fraction",
        "ordered-list",
        "unordered-tuple",
    ],
)
def test_options(gold: str, answer: str, options: CompareOptions, equal: bool) -> None:
    assert compare(gold, answer, options).equal is equal
