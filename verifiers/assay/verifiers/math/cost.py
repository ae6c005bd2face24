"""What an answer would cost to check, decided before sympy computes it (docs/math.md, "Cost").

sympy evaluates exact arithmetic eagerly once :func:`~assay.verifiers.math.scalar.evaluated`
calls ``doit()``: ``10^{10^{10}}`` is an integer of ten billion digits, ``(10^{10})!`` more, and
neither can be stopped once started. :func:`screen_tree` walks the parsed, not yet evaluated
tree and bounds the size (in decimal digits) of every exact number it would produce; an answer
over :data:`MAX_RESULT_DIGITS`, or a variable raised to a power beyond
:data:`MAX_SYMBOLIC_EXPONENT`, raises :class:`TooCostly`. The literal limits of
:mod:`~assay.verifiers.math.scalar` (exponents, digit strings, nesting) raise it too.

For a response, :class:`TooCostly` is the response's fault: ``incorrect`` with a failed
``too_costly`` check (:mod:`assay.blame`); for a reference it is a malformed task. What the
screen cannot foresee (a binomial the LaTeX parser evaluates itself) runs inside the math
verifier's response-owned work, so the pool's hard limit gives the same verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from assay.verifiers.math.errors import TooCostly

MAX_RESULT_DIGITS = 100_000
"""Largest exact number (decimal digits) an answer may make sympy compute."""
MAX_SYMBOLIC_EXPONENT = 10**6
"""Largest exponent of a power whose base is not a number (``x^{10^{10}}`` is refused)."""
_LOG10_2 = math.log10(2)


SMALL_DIGITS = 30
"""Exact values up to this many digits are carried exactly through the walk (cheap)."""


@dataclass(frozen=True, slots=True)
class _Exact:
    """What the walk knows of an exact number: digits of its representation, log10 of its size,
    and the value itself when it is small."""

    size: float
    magnitude: float
    value: Fraction | None


def _log10(value: int) -> float:
    return math.log10(abs(value)) if value else 0.0


def _exact(value: Fraction) -> _Exact:
    size = max(_log10(value.numerator), _log10(value.denominator))
    magnitude = _log10(value.numerator) - _log10(value.denominator) if value else -math.inf
    return _Exact(size, magnitude, value if size <= SMALL_DIGITS else None)


def _limit(size: float, what: str) -> float:
    if size > MAX_RESULT_DIGITS:
        shown = f"{size:.3g}" if math.isfinite(size) else "unboundedly many"
        raise TooCostly(
            f"{what} would have about {shown} digits (limit {MAX_RESULT_DIGITS})",
            {"digits": size if math.isfinite(size) else None, "limit": MAX_RESULT_DIGITS},
        )
    return size


def _power_of_ten(log10_value: float) -> float:
    """``10 ** log10_value``, saturating at infinity instead of raising OverflowError."""
    return math.inf if log10_value > 300 else 10.0**log10_value


def _pow(base: _Exact | None, exponent: _Exact | None) -> _Exact | None:
    if exponent is None:
        return None
    largest = _power_of_ten(exponent.magnitude)  # |exponent|
    if base is None:
        if largest > MAX_SYMBOLIC_EXPONENT:
            raise TooCostly(
                f"a power with an exponent of about 10^{exponent.magnitude:.3g} (limit "
                f"{MAX_SYMBOLIC_EXPONENT} for a power of a variable)",
                {"exponent_log10": exponent.magnitude, "limit": MAX_SYMBOLIC_EXPONENT},
            )
        return None
    if base.size == 0.0:  # 0, 1 or -1 to any power is no bigger
        return base
    size = _limit(largest * base.size, "a power")
    sign = -1.0 if exponent.value is not None and exponent.value < 0 else 1.0
    magnitude = sign * largest * base.magnitude if base.magnitude != -math.inf else base.magnitude
    value = None
    power = exponent.value
    small = size <= SMALL_DIGITS and power is not None and power.denominator == 1
    if small and base.value is not None and power is not None and (base.value or power > 0):
        value = base.value ** int(power)
    return _Exact(size, magnitude, value)


def _factorial(argument: _Exact | None, name: str) -> _Exact | None:
    if argument is None:
        return None
    if argument.value is not None:
        n = max(float(argument.value), 0.0)
        size = math.lgamma(n + 1.0) / math.log(10.0) if n < 1e300 else math.inf
    else:
        size = math.inf
    return _Exact(_limit(size, f"a {name}"), size, None)


def _combine(node: Any, children: list[_Exact | None]) -> _Exact | None:
    """What is known of ``node``'s exact value from its children (None: not an exact number)."""
    import sympy

    exact = [c for c in children if c is not None]
    if isinstance(node, sympy.Pow):
        return _pow(children[0], children[1])
    if isinstance(node, sympy.Mul | sympy.Add):
        size = _limit(sum(c.size for c in exact), "a product" if node.is_Mul else "a sum")
        if len(exact) != len(children):
            return None
        values = [c.value for c in exact]
        if None not in values and size <= SMALL_DIGITS:
            known = [v for v in values if v is not None]
            total = math.prod(known, start=Fraction(1)) if node.is_Mul else sum(known, Fraction())
            return _exact(total)
        if node.is_Mul:
            return _Exact(size, sum(c.magnitude for c in exact), None)
        return _Exact(size, max(c.magnitude for c in exact) + math.log10(len(exact)), None)
    if isinstance(node, sympy.factorial | sympy.factorial2 | sympy.subfactorial):
        return _factorial(children[0], "factorial")
    if isinstance(node, sympy.binomial) and children[0] is not None:
        n = children[0].magnitude  # C(n, k) <= 2^n, and <= n^k
        k = math.inf if children[1] is None else _power_of_ten(children[1].magnitude)
        size = _limit(min(_power_of_ten(n) * _LOG10_2, k * n), "a binomial coefficient")
        return _Exact(size, size, None)
    return None


def _leaf(node: Any) -> _Exact | None:
    import sympy

    if isinstance(node, sympy.Rational):  # Integer is a Rational
        return _exact(Fraction(int(node.p), int(node.q)))
    return None


def screen_tree(expr: Any) -> None:
    """Raise :class:`TooCostly` when evaluating ``expr`` would build too large a number.

    The walk is iterative (a long sum cannot exhaust the stack) and visits each node once.

    Example:
        >>> from sympy import Integer, Pow
        >>> screen_tree(Pow(Integer(10), Integer(10_000), evaluate=False))
        >>> tower = Pow(Integer(10), Pow(Integer(10), Integer(10), evaluate=False), evaluate=False)
        >>> try:
        ...     screen_tree(tower)
        ... except TooCostly as refusal:
        ...     print(refusal)
        a power would have about 1e+10 digits (limit 100000)
    """
    import sympy

    if not isinstance(expr, sympy.Basic):
        return
    known: dict[int, _Exact | None] = {}
    stack: list[tuple[Any, bool]] = [(expr, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in known and not expanded:
            continue
        if not node.args:
            known[id(node)] = _leaf(node)
            continue
        if not expanded:
            stack.append((node, True))
            stack.extend((child, False) for child in node.args)
            continue
        known[id(node)] = _combine(node, [known.get(id(child)) for child in node.args])


def too_costly_text(what: str, size: int, limit: int) -> TooCostly:
    """The refusal of a literal that is too large to read (digits, an exponent, nesting)."""
    return TooCostly(f"{what}: {size} (limit {limit})", {"size": size, "limit": limit})
