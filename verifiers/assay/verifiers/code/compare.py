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
"""

from __future__ import annotations

import math
from typing import Any

REL_TOL = 1e-9
ABS_TOL = 1e-12


def json_equal(actual: Any, expected: Any, rel_tol: float = REL_TOL) -> bool:
    """Type-aware equality of a candidate value against a JSON expected value.

    Never raises because of ``actual``: what cannot be compared is not equal.
    """
    try:
        return _equal(actual, expected, rel_tol)
    except (OverflowError, RecursionError, MemoryError, ValueError):
        return False


def _equal(actual: Any, expected: Any, rel_tol: float) -> bool:
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
        return all(_equal(a, e, rel_tol) for a, e in zip(actual, expected, strict=True))
    if isinstance(expected, dict):
        if type(actual) is not dict or set(actual) != set(expected):
            return False
        return all(_equal(actual[k], v, rel_tol) for k, v in expected.items())
    if expected is None:
        return actual is None
    return type(actual) is type(expected) and actual == expected


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def stdout_equal(actual: str, expected: str) -> bool:
    """Program output equality: trailing whitespace per line and trailing blank lines ignored."""
    return _lines(actual) == _lines(expected)
