"""Equality of two scalars: exact when both are exact, relative tolerance otherwise.

Plain numbers compare as :class:`~fractions.Fraction` (no sympy, no float). Expressions go
through sympy with the cheapest decisive test first: structural identity, then numeric
evaluation (which settles most unequal pairs), and only when two exact values agree to 30
digits a symbolic proof (``doit``/``is_zero``, then ``simplify``). Expressions with free
symbols are evaluated at deterministic pseudo-random points instead of being simplified.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction
from functools import lru_cache
from typing import Any

from assay.verifiers.math.outcome import CompareOptions, Equivalence
from assay.verifiers.math.scalar import sympy_errors
from assay.verifiers.math.values import Expression, Number, Scalar, display

DIGITS = 30
"""Working precision (decimal digits) of numeric evaluation."""
PROOF_DIGITS = 120
"""Precision of the last-resort check when no symbolic proof settles two exact constants."""
EXACT_TOLERANCE = Fraction(1, 10**20)
"""Two exact constants closer than this (relatively) at 30 digits get a symbolic proof."""
POINT_TOLERANCE = Fraction(1, 10**20)
"""Relative tolerance of exact expressions evaluated at random points (they are evaluated to
30 digits, so equal ones agree far closer; ``2x + 10^{-15}`` is not ``2x``)."""
POINT_FLOOR = Fraction(1, 10**20)
"""Absolute slack at random points, for values that are zero up to rounding."""
POINT_COUNT = 5
WIDE_POINT_COUNT = 4
"""Extra points, of magnitudes 10 to 10^30, when the answer adds a function that is not
analytic (``\\lfloor``, ``\\lceil``, ``\\operatorname{sign}``...): such a function can
hide a term that is 0 near the origin (``x + \\lfloor x^2/10 \\rfloor`` is ``x`` only for
``|x| < 3.17``)."""
MIN_AGREEING_POINTS = 2
MAX_SYMBOLS = 8
SEED = 20240611
NOT_ANALYTIC = (
    "floor", "ceiling", "frac", "sign", "Heaviside", "Piecewise", "Mod", "Max", "Min",
    "Abs", "re", "im", "arg", "conjugate", "DiracDelta", "KroneckerDelta",
)  # fmt: skip
"""Functions whose presence in an answer (and not in the gold) calls for the wide points."""


def compare_scalars(gold: Scalar, answer: Scalar, options: CompareOptions) -> Equivalence:
    """Compare two scalars, also reading a gold percent as its fraction (see :func:`_readings`).

    When no reading is equal, the outcome of the plain reading is reported.
    """
    first: Equivalence | None = None
    for gold_reading, answer_reading, note in _readings(gold, answer, options):
        result = _compare(gold_reading, answer_reading, options, strict=gold_reading is not gold)
        if result.equal:
            return Equivalence(True, result.method, result.detail + note)
        first = first or result
    if first is None:  # unreachable: _readings always yields the plain reading first
        raise RuntimeError("no reading to compare")
    return first


def _readings(
    gold: Scalar, answer: Scalar, options: CompareOptions
) -> Iterator[tuple[Scalar, Scalar, str]]:
    """The plain reading (a percent sign ignored), then the fraction readings.

    A gold percent equals its fraction when the answer has no percent sign (``10\\%`` and
    ``0.1``; ``0.1\\%`` is not ``10\\%``). With ``percent_as_fraction``, an answer percent
    also equals a gold fraction (``0.1`` and ``10\\%``). Never the x100 confusion: a gold
    ``10`` without a percent sign is not ``0.1``.
    """
    yield gold, answer, ""
    if gold.percent and not answer.percent:
        yield _hundredth(gold), answer, " (the percent gold read as a fraction)"
    if options.percent_as_fraction and answer.percent and not gold.percent:
        yield gold, _hundredth(answer), " (answer percent read as a fraction)"


def _hundredth(value: Scalar) -> Scalar:
    if isinstance(value, Number):
        decimals = None if value.decimals is None else value.decimals + 2
        return Number(value.value / 100, value.exact, decimals=decimals)
    import sympy

    return Expression(value.expr / sympy.Integer(100), value.exact, source=value.source)


def _compare(
    gold: Scalar, answer: Scalar, options: CompareOptions, *, strict: bool = False
) -> Equivalence:
    """One reading; ``strict``: the gold is the fraction of an exact percent (``25\\%``)."""
    exact = gold.exact and answer.exact
    if isinstance(gold, Number) and isinstance(answer, Number):
        if options.written_precision:
            if gold.decimals is not None:
                return compare_at_precision(gold.value, answer.value, gold.decimals)
            if gold.exact and (strict or gold.value.denominator == 1):
                exact = True  # an integer gold (or percent) is exact, whatever the answer's form
        return compare_fractions(gold.value, answer.value, exact, options.tolerance)
    return compare_sympy(to_sympy(gold), to_sympy(answer), exact, options.tolerance)


def compare_at_precision(gold: Fraction, answer: Fraction, decimals: int) -> Equivalence:
    """Equal when the answer, rounded half away from zero to ``decimals``, is the gold.

    The gold's written precision rules: a more precise answer that rounds to it is right
    (``3.1415926`` for ``3.14159``), a less precise one is compared as written (``3.14`` is
    ``3.14000``, not ``3.14159``), and the relative tolerance plays no part (``1234567.0`` is
    not ``1234567.1``).

    Example:
        >>> compare_at_precision(Fraction("1621.9750"), Fraction("1621.9751"), 4).equal
        False
        >>> compare_at_precision(Fraction("3.14159"), Fraction("3.1415926"), 5).equal
        True
    """
    scale = 10**decimals
    scaled = abs(answer) * scale
    rounded = Fraction(int(scaled + Fraction(1, 2)), scale) * (-1 if answer < 0 else 1)
    places = f"{decimals} decimal{'s' if decimals != 1 else ''}"
    if rounded == gold:
        return Equivalence(True, "numeric", f"equal at the gold's {places}")
    detail = f"at the gold's {places}: {_shown(rounded)} vs {_shown(gold)}"
    return Equivalence(False, "numeric", detail)


def _shown(value: Fraction) -> str:
    """``value`` for a message; one too large for a float is described by its size."""
    try:
        return display(float(value))
    except OverflowError:
        digits = int((abs(value.numerator) // value.denominator).bit_length() * 0.30103) + 1
        return f"{'-' if value < 0 else ''}a number of about {digits} digits"


def to_sympy(value: Scalar) -> Any:
    """The sympy form of a scalar (a plain number becomes an exact ``Rational``)."""
    if isinstance(value, Expression):
        return value.expr
    import sympy

    return sympy.Rational(value.value.numerator, value.value.denominator)


def compare_fractions(
    gold: Fraction, answer: Fraction, exact: bool, tolerance: Fraction
) -> Equivalence:
    """Exact equality when ``exact``, else ``|a - b| <= tolerance * max(|a|, |b|)``.

    Example:
        >>> tolerance = Fraction(1, 10**6)
        >>> compare_fractions(Fraction(1, 10**7), Fraction(2, 10**7), False, tolerance).equal
        False
    """
    if gold == answer:
        return Equivalence(True, "numeric", "equal values")
    if exact:
        return Equivalence(
            False, "numeric", f"exact values differ: {display(gold)} vs {display(answer)}"
        )
    scale = max(abs(gold), abs(answer))
    relative = abs(gold - answer) / scale
    equal = relative <= tolerance
    sign = "<=" if equal else ">"
    detail = f"relative difference {float(relative):.3g} {sign} tolerance {float(tolerance):g}"
    return Equivalence(equal, "numeric", detail)


def compare_sympy(gold: Any, answer: Any, exact: bool, tolerance: Fraction) -> Equivalence:
    """Compare two sympy objects (expressions, or sets such as ``\\mathbb{R}``)."""
    import sympy

    if gold == answer:
        return Equivalence(True, "symbolic", "identical expressions")
    if exact and gold.is_Rational and answer.is_Rational:
        return Equivalence(
            False, "numeric", f"exact values differ: {display(gold)} vs {display(answer)}"
        )
    if isinstance(gold, sympy.Set) or isinstance(answer, sympy.Set):
        return Equivalence(False, "symbolic", "different sets")
    symbols = gold.free_symbols | answer.free_symbols
    if symbols:
        return compare_functions(gold, answer, exact, tolerance)
    return compare_constants(gold, answer, exact, tolerance)


def compare_constants(gold: Any, answer: Any, exact: bool, tolerance: Fraction) -> Equivalence:
    """Compare two expressions without free symbols (``\\frac{\\sqrt{2}}{2}``, ``2^{100}+1``)."""
    gold_value, answer_value = evaluate(gold), evaluate(answer)
    if gold_value is None or answer_value is None:
        return Equivalence(False, "symbolic", "a value is not a finite number")
    if not exact:
        return _tolerance_outcome(gold_value, answer_value, tolerance)
    if not close(gold_value, answer_value, EXACT_TOLERANCE):
        return Equivalence(
            False, "numeric", f"values differ: {_show(gold_value)} vs {_show(answer_value)}"
        )
    proof = prove_zero(gold - answer)
    if proof is not None:
        detail = "difference simplifies to 0" if proof else "difference is not 0"
        return Equivalence(proof, "symbolic", detail)
    precise = evaluate(gold, PROOF_DIGITS), evaluate(answer, PROOF_DIGITS)
    equal = None not in precise and close(precise[0], precise[1], Fraction(1, 10**100))
    return Equivalence(
        bool(equal), "numeric", f"no symbolic proof; agree to 100 digits: {bool(equal)}"
    )


def _tolerance_outcome(gold: Any, answer: Any, tolerance: Fraction) -> Equivalence:
    equal = close(gold, answer, tolerance)
    sign = "within" if equal else "beyond"
    detail = f"{_show(gold)} vs {_show(answer)}: {sign} relative tolerance {float(tolerance):g}"
    return Equivalence(equal, "numeric", detail)


def prove_zero(difference: Any) -> bool | None:
    """True/False when sympy can decide whether ``difference`` is zero, else None."""
    import sympy

    try:
        decided = difference.is_zero
        if decided is None:
            decided = sympy.simplify(difference).is_zero
    except sympy_errors():
        return None
    return None if decided is None else bool(decided)


def compare_functions(gold: Any, answer: Any, exact: bool, tolerance: Fraction) -> Equivalence:
    """Compare expressions with free symbols at deterministic pseudo-random points."""
    symbols = sorted(gold.free_symbols | answer.free_symbols, key=str)
    if len(symbols) > MAX_SYMBOLS:
        return _symbolic_only(gold, answer)
    point_tolerance = POINT_TOLERANCE if exact else tolerance
    applied, allowed = _not_analytic(answer), _not_analytic(gold)
    wide = any(count > allowed.get(name, 0) for name, count in applied.items())
    agreeing = 0
    for point in sample_points(len(symbols), points_key(gold, answer), wide):
        subs = dict(zip(symbols, point, strict=True))
        gold_value, answer_value = evaluate(gold, DIGITS, subs), evaluate(answer, DIGITS, subs)
        if gold_value is None and answer_value is None:
            continue
        if (
            gold_value is None
            or answer_value is None
            or not close(gold_value, answer_value, point_tolerance, POINT_FLOOR)
        ):
            where = ", ".join(f"{s}={float(v):.4g}" for s, v in subs.items())
            return Equivalence(False, "numeric", f"differ at {where}")
        agreeing += 1
    if agreeing < MIN_AGREEING_POINTS:
        return _symbolic_only(gold, answer)
    if exact:  # agreeing at the points; a rational function's difference is decided exactly
        decided = rational_difference(gold, answer, symbols)
        if decided is not None:
            return decided
        if cheap_identity(gold, answer):
            return Equivalence(True, "symbolic", "difference expands to 0")
    return Equivalence(True, "numeric", f"agree at {agreeing} random points")


def rational_difference(gold: Any, answer: Any, symbols: list[Any]) -> Equivalence | None:
    """Decide two rational functions with rational coefficients exactly, else None.

    For them ``cancel`` is a decision procedure: a difference that does not cancel to 0 is a
    nonzero rational function, whatever points it vanishes at (a polynomial built to agree
    with the gold at sample points, ``2x + 10^{-15}``). Other expressions (radicals, ``sin``,
    symbolic coefficients) are left to the points.
    """
    import sympy

    try:
        if not (gold.is_rational_function(*symbols) and answer.is_rational_function(*symbols)):
            return None
        difference = sympy.cancel(gold - answer)
        if difference == 0:
            return Equivalence(True, "symbolic", "difference cancels to 0")
        numerator, _ = sympy.fraction(difference)
        domain = sympy.Poly(numerator, *symbols).get_domain()
    except sympy_errors():
        return None
    if not (domain.is_ZZ or domain.is_QQ):
        return None
    return Equivalence(False, "symbolic", f"difference is {display(difference)}, not 0")


def _not_analytic(expr: Any) -> dict[str, int]:
    """How many distinct applications of each function of :data:`NOT_ANALYTIC` ``expr`` has
    (an answer that adds one more ``\\lfloor`` than the gold has is tested wide too)."""
    import sympy

    try:
        applied = [type(node).__name__ for node in expr.atoms(sympy.Function)]
    except sympy_errors():
        return {}
    counts: dict[str, int] = {}
    for name in applied:
        if name in NOT_ANALYTIC:
            counts[name] = counts.get(name, 0) + 1
    return counts


def points_key(gold: Any, answer: Any) -> bytes:
    """A digest of both expressions: the points depend on what is compared, so no answer can
    be built to agree with the gold at points known in advance."""
    import hashlib

    return hashlib.blake2b(f"{gold}\x00{answer}".encode(), digest_size=8).digest()


def cheap_identity(gold: Any, answer: Any) -> bool:
    """True when ``gold - answer`` expands or cancels to 0 (no ``simplify``)."""
    import sympy

    difference = gold - answer
    try:
        return bool(sympy.expand(difference) == 0 or sympy.cancel(difference) == 0)
    except sympy_errors():
        return False


def _symbolic_only(gold: Any, answer: Any) -> Equivalence:
    proof = prove_zero(gold - answer)
    return Equivalence(proof is True, "symbolic", f"simplified difference is zero: {proof}")


def sample_points(count: int, key: bytes = b"", wide: bool = False) -> tuple[tuple[Any, ...], ...]:
    """``POINT_COUNT`` points of ``count`` rational coordinates in ±(0.3, 2.7), then with
    ``wide`` ``WIDE_POINT_COUNT`` more of magnitudes 10 to 10^30.

    The signs follow a fixed seed (every comparison sees the same mix of positive and
    negative coordinates); the magnitudes follow ``key`` (see :func:`points_key`).
    """
    import sympy

    signs = _signs(count)
    magnitudes = random.Random(int.from_bytes(key, "big") ^ SEED)
    points = [
        tuple(sympy.Rational(sign * _magnitude(magnitudes), 10_000) for sign in signs[index])
        for index in range(POINT_COUNT)
    ]
    for index in range(WIDE_POINT_COUNT if wide else 0):
        points.append(
            tuple(
                sympy.Rational(
                    sign * magnitudes.randint(10**6, 10**7 - 1) * 10 ** magnitudes.randint(1, 30),
                    10**6,
                )
                for sign in signs[index]
            )
        )
    return tuple(points)


def _magnitude(generator: random.Random) -> int:
    """Ten-thousandths from 0.3 to 2.7 that are no multiple of 1/100, so that no point is a
    simple number where an honest answer has a removable gap (``(x^2-1)/(x-1)`` at 1)."""
    while True:
        value = generator.randint(3_000, 27_000)
        if value % 100:
            return value


@lru_cache(maxsize=MAX_SYMBOLS + 1)
def _signs(count: int) -> tuple[tuple[int, ...], ...]:
    generator = random.Random(SEED + count)
    signs = []
    for _ in range(POINT_COUNT):
        point = []
        for _ in range(count):
            point.append(generator.choice((-1, 1)))
            generator.randint(30, 270)  # the magnitude the fixed seed drew before (unused)
        signs.append(tuple(point))
    return tuple(signs)


def evaluate(expr: Any, digits: int = DIGITS, subs: dict[Any, Any] | None = None) -> Any:
    """The complex value of ``expr`` as an ``mpmath.mpc``, or None when it is not finite."""
    mpmath = _mpmath()
    import sympy

    try:
        value = expr.evalf(digits, subs=subs) if subs else expr.evalf(digits)
        real, imaginary = value.as_real_imag()
    except sympy_errors():
        return None
    if not (real.is_Number and imaginary.is_Number):
        return None
    if not (real.is_finite and imaginary.is_finite):
        return None
    with mpmath.workdps(digits + 10):
        return mpmath.mpc(
            mpmath.mpf(sympy.Float(real, digits)), mpmath.mpf(sympy.Float(imaginary, digits))
        )


def close(first: Any, second: Any, tolerance: Fraction, floor: Fraction = Fraction(0)) -> bool:
    """``|a - b| <= tolerance * max(|a|, |b|) + floor`` in mpmath arithmetic."""
    mpmath = _mpmath()

    with mpmath.workdps(PROOF_DIGITS + 10):
        relative = mpmath.mpf(tolerance.numerator) / tolerance.denominator
        slack = mpmath.mpf(floor.numerator) / floor.denominator
        return bool(abs(first - second) <= relative * max(abs(first), abs(second)) + slack)


def _mpmath() -> Any:
    import mpmath  # type: ignore[import-untyped]

    return mpmath


def _show(value: Any) -> str:
    mpmath = _mpmath()

    return str(mpmath.nstr(value, 12))
