"""Comparing candidate outputs with expected ones, in the trusted process.

Values returned by candidate code arrive as plain data (see :mod:`assay.verifiers.sandbox`).
Expected values come from JSON. The rules (documented in docs/code.md):

- ``bool`` is never a number: ``True`` does not equal ``1``.
- An ``int`` equals an expected ``float`` of the same value; a ``float`` does not equal an
  expected ``int`` (a function that should return ``3`` must not return ``3.0``).
- Floats compare with ``math.isclose(rel_tol=1e-9, abs_tol=1e-12)``; ``nan`` equals ``nan``.
- Tuples compare as lists (JSON has no tuples); dict keys must match exactly (JSON keys are
  strings, so a candidate dict keyed by ints does not match).
- ``str`` and ``bytes`` never equal each other.
- A value that cannot be compared (an ``int`` too large for a ``float``, nesting past the
  interpreter's recursion limit) does not equal anything: :func:`json_equal` never raises on
  what a candidate returns.

:func:`value_equal` is the looser rule of benchmarks whose harness compares with Python's
``==`` (LiveCodeBench's functional rows, APPS's call-based ones): numbers by value whatever
their type (``6.0`` is ``6``, ``1`` is ``True``), the rest as above.

Program output (stdio) has four rules: :func:`stdout_equal`, strict,
:func:`stdout_tokens_equal`, as LiveCodeBench's grader and contest checkers read output,
:func:`stdout_words_equal`, Codeforces' standard checker (testlib's ``wcmp``), and
:func:`stdout_codecontests_equal`, DeepMind's CodeContests harness.
"""

from __future__ import annotations

import math
import re
import string
from decimal import Decimal, InvalidOperation
from typing import Any

REL_TOL = 1e-9
ABS_TOL = 1e-12


def json_equal(
    actual: Any, expected: Any, rel_tol: float = REL_TOL, *, by_value: bool = False
) -> bool:
    """Type-aware equality of a candidate value against a JSON expected value (with
    ``by_value``, :func:`value_equal`'s rule).

    Never raises because of ``actual``: what cannot be compared is not equal.
    """
    try:
        return _equal(actual, expected, rel_tol, by_value)
    except (OverflowError, RecursionError, MemoryError, ValueError):
        return False


_NUMBERS = (bool, int, float)


def _equal(actual: Any, expected: Any, rel_tol: float, by_value: bool = False) -> bool:
    """The comparison of :func:`json_equal`, or with ``by_value`` that of :func:`value_equal`
    (numbers of any of the three types compared as Python compares them)."""
    if by_value and type(expected) in _NUMBERS:
        if type(actual) not in _NUMBERS:
            return False
        if type(expected) is not float:
            return bool(actual == expected)  # int or bool expected: exact, as Python compares
        actual = float(actual)  # then as a float (OverflowError past every float: not equal)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if type(expected) is float:
        if type(actual) not in (int, float):
            return False
        number = float(actual)  # OverflowError for an int beyond every float: not equal
        if math.isnan(expected) or math.isnan(number):
            return math.isnan(expected) and math.isnan(number)
        return math.isclose(number, expected, rel_tol=rel_tol, abs_tol=ABS_TOL)
    if type(expected) is int:
        return type(actual) is int and actual == expected
    if isinstance(expected, list | tuple):
        if type(actual) not in (list, tuple) or len(actual) != len(expected):
            return False
        pairs = zip(actual, expected, strict=True)
        return all(_equal(a, e, rel_tol, by_value) for a, e in pairs)
    if isinstance(expected, dict):
        if type(actual) is not dict or set(actual) != set(expected):
            return False
        return all(_equal(actual[k], v, rel_tol, by_value) for k, v in expected.items())
    if expected is None:
        return actual is None
    return type(actual) is type(expected) and actual == expected


def value_equal(actual: Any, expected: Any, rel_tol: float = REL_TOL) -> bool:
    """Equality of a candidate value against a JSON expected value, numbers by value.

    As Python's ``==`` reads plain data, which is how LiveCodeBench's and APPS's harnesses
    compare a returned value: ``6.0`` equals ``6`` and ``1`` equals ``True`` (``bool`` is a
    number here), an ``int`` expected is matched exactly (a float that only rounds to a large
    ``int`` is not it), and a ``float`` expected within ``rel_tol`` as in :func:`json_equal`.
    Tuples are lists, dict keys must match exactly, and only plain data is compared: a value
    of any other type (a proxy of a candidate's object, whatever its ``__eq__`` says) equals
    nothing. Never raises because of ``actual``.
    """
    return json_equal(actual, expected, rel_tol, by_value=True)


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def stdout_equal(actual: str, expected: str) -> bool:
    """Program output equality: trailing whitespace per line and trailing blank lines ignored."""
    return _lines(actual) == _lines(expected)


_NUMERAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
"""A decimal numeral as programs print one (no ``nan``, ``inf``, ``_`` separators or hex)."""


def _stripped_lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().split("\n")]


def _same_number(actual: str, expected: str, rel_tol: float | None) -> bool:
    if not (_NUMERAL.fullmatch(actual) and _NUMERAL.fullmatch(expected)):
        return False
    if rel_tol is None:
        try:
            return Decimal(actual) == Decimal(expected)
        except InvalidOperation:  # an exponent past what Decimal holds
            return False
    return math.isclose(float(actual), float(expected), rel_tol=rel_tol, abs_tol=rel_tol)


def _same_line(actual: str, expected: str, rel_tol: float | None) -> bool:
    if actual == expected:
        return True
    got, want = actual.split(), expected.split()
    if len(got) != len(want):
        return False
    if rel_tol is None:  # LiveCodeBench: a line that differs must be numbers, all equal
        return all(_same_number(a, e, None) for a, e in zip(got, want, strict=True))
    return all(a == e or _same_number(a, e, rel_tol) for a, e in zip(got, want, strict=True))


def stdout_tokens_equal(actual: str, expected: str, rel_tol: float | None = None) -> bool:
    """Program output equality line by line, whitespace and the spelling of numbers aside.

    Both outputs are stripped, and so is each line; there must be as many lines. A line is
    right when it is the same text, or when its whitespace-separated tokens pair up with the
    expected line's: without ``rel_tol``, every token a decimal numeral of the same value
    (``7.0`` is ``7``, ``5e-01`` is ``0.5``: LiveCodeBench's ``grade_stdio`` rule); with it,
    each token the same text or a numeral within ``rel_tol``, absolute or relative, as
    contest statements give a real-valued answer's error. ``nan`` and ``inf`` are text.

    Example:
        >>> stdout_tokens_equal(" 7  12.0\\n\\n", "7 12"), stdout_tokens_equal("7 12", "7\\n12")
        (True, False)
        >>> stdout_tokens_equal("Case 1: 0.3333333", "Case 1: 0.333333333333", rel_tol=1e-6)
        True
    """
    got, want = _stripped_lines(actual), _stripped_lines(expected)
    if len(got) != len(want):
        return False
    return all(_same_line(a, e, rel_tol) for a, e in zip(got, want, strict=True))


_BLANKS = re.compile(r"[ \t\r\n]+")
"""What testlib reads as blanks between words: space, tab, CR and LF (not other Unicode)."""


def stdout_words_equal(actual: str, expected: str) -> bool:
    """Program output equality as testlib's ``wcmp`` (Codeforces' standard checker) reads it.

    Both outputs are sequences of words separated by blanks (spaces, tabs, line breaks, any
    number of them); the sequences must be the same, word for word, as text: line structure
    does not count, the spelling of a number does (``4.0`` is not ``4``), and so does case.

    Example:
        >>> stdout_words_equal("1 2\\n3\\n", " 1  2 3"), stdout_words_equal("4.0", "4")
        (True, False)
    """
    return _words(actual, _BLANKS) == _words(expected, _BLANKS)


def _words(text: str, blanks: re.Pattern[str]) -> list[str]:
    return [word for word in blanks.split(text) if word]


CODECONTESTS_TOL = 1e-5
"""The absolute error DeepMind's CodeContests harness allows a number (``kDoublePrecision``)."""
_CC_BLANKS = re.compile(r"[ \t\r\n\v]+")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_INTEGER = re.compile(r"[+-]?\d+")


def _cc_same(actual: str, expected: str, tolerance: float) -> bool:
    if actual == expected:
        return True
    if not (_NUMERAL.fullmatch(actual) and _NUMERAL.fullmatch(expected)):
        return False
    try:
        if _INTEGER.fullmatch(actual) and _INTEGER.fullmatch(expected):
            return int(actual) == int(expected)
        return abs(float(actual) - float(expected)) < tolerance
    except (ValueError, OverflowError):  # past int's digit limit: only the same text matches
        return False


def stdout_codecontests_equal(
    actual: str, expected: str, tolerance: float = CODECONTESTS_TOL
) -> bool:
    """Program output equality as DeepMind's CodeContests harness reads it (``OutputsMatch``).

    Both outputs are split on blanks (space, tab, CR, LF, VT) and lowercased (ASCII only);
    the word lists must be as long, and each pair of words the same text or, both decimal
    numerals, the same integer or numbers within an absolute ``tolerance``: ``6.0`` is
    ``6``, ``Yes`` is ``YES``, ``0.33333`` is ``0.333333333333``. Unlike that harness, which
    reads every number as a double, integers compare exactly (``10**18 + 1`` is not
    ``10**18``). ``nan`` and ``inf`` are text.

    Example:
        >>> stdout_codecontests_equal("Yes 6.0\\n", "YES\\n6"), stdout_codecontests_equal("7", "6")
        (True, False)
    """
    got = _words(actual.translate(_ASCII_LOWER), _CC_BLANKS)
    want = _words(expected.translate(_ASCII_LOWER), _CC_BLANKS)
    if len(got) != len(want):
        return False
    return all(_cc_same(a, e, tolerance) for a, e in zip(got, want, strict=True))
