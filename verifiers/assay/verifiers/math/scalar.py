"""Reading one scalar (a number or an expression) from a normalized string.

Plain numbers (``-12``, ``0.5``, ``3/4``, ``\\frac{3}{4}``, ``1.5e-7``, ``2 \\times 10^{5}``)
are read with :class:`fractions.Fraction`, without sympy. Everything else goes through
latex2sympy2_extended's ANTLR parser, which builds sympy objects and never evaluates text;
the number tokens it lexes are read here with ``int`` and :class:`sympy.Float` (the library's own
``sympy.Number(text)`` would go through ``sympify``). Plain-text math (``sqrt(2)/2``, ``x**2``) is
first checked against a whitelist of tokens and transliterated to LaTeX, so no string from a model
ever reaches ``eval``, ``sympify`` or ``parse_expr``.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import Any

from assay.verifiers.math.cost import screen_tree, too_costly_text
from assay.verifiers.math.errors import AnswerParseError as AnswerParseError  # noqa: PLC0414 - re-export from its old home
from assay.verifiers.math.scan import depths, matching_close
from assay.verifiers.math.values import Expression, Number, Scalar

MAX_EXPONENT = 1000
"""Largest power of ten a plain literal may carry (``1e999999`` is refused, not expanded)."""

_DECIMAL = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
_SLASH = re.compile(r"^[+-]?\d+\s*/\s*\d+$")
_FRAC = re.compile(r"^(?P<sign>[+-]?)\s*\\frac\{\s*(?P<num>[+-]?\d+)\s*\}\{\s*(?P<den>\d+)\s*\}$")
_TIMES_TEN = re.compile(
    r"^(?P<mantissa>[+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*(?:\\times|\\cdot|\*)\s*10\s*\^\s*"
    r"(?:\{\s*(?P<braced>[+-]?\d+)\s*\}|(?P<bare>[+-]?\d))$"
)
_POWER = re.compile(
    r"^(?P<sign>[+-]?)(?P<base>\d+)\s*\^\s*(?:\{\s*(?P<braced>[+-]?\d+)\s*\}|(?P<bare>\d))$"
)
_REPEATING = re.compile(
    r"^(?P<sign>[+-]?)(?P<whole>\d*)\.(?P<fixed>\d*)\\overline\{(?P<cycle>\d+)\}$"
)
MAX_NESTING = 40
"""Deepest bracket nesting handed to the LaTeX parser (its cost grows fast with depth)."""
MAX_DIGITS = 4000
"""Longest plain literal read (Python refuses to convert longer digit strings)."""
_EXPONENT = re.compile(r"[eE]([+-]?\d+)$")
_PERCENT_SUFFIX = re.compile(r"\s*\\%$")

_PLAIN_TOKEN = re.compile(r"\d+(?:\.\d+)?|[A-Za-z]+|\*\*|[-+*/^()\[\]{}!.,|=<>_'\s]")
_FUNCTION_NAMES = "sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh log ln exp"
_PLAIN_NAMES = {
    "sqrt": "\\sqrt",
    "abs": "\\abs",
    "pi": "\\pi",
    "inf": "\\infty",
    "infty": "\\infty",
    "infinity": "\\infty",
    "oo": "\\infty",
    **{name: "\\" + name for name in _FUNCTION_NAMES.split()},
}
_PLAIN_NAME = re.compile(r"(?<![\\A-Za-z])(" + "|".join(_PLAIN_NAMES) + r")(?![A-Za-z])")
_MAX_IMPLICIT_PRODUCT = 3


def parse_number(text: str) -> Number | None:
    """Read a plain numeric literal exactly, or return None when ``text`` is not one.

    Example:
        >>> parse_number("-\\\\frac{3}{4}"), parse_number("0.5").exact
        (Number(value=Fraction(-3, 4), exact=True, percent=False, kind='number'), False)
    """
    percent = _PERCENT_SUFFIX.search(text)
    body = text[: percent.start()] if percent else text
    body = body.strip()
    if len(body) > MAX_DIGITS:
        raise too_costly_text("a literal too long to read (characters)", len(body), MAX_DIGITS)
    value = _literal_value(body)
    if value is None:
        return None
    number, exact = value
    return Number(number, exact, percent is not None, decimals=written_decimals(body))


def written_decimals(body: str) -> int | None:
    """The digits after the point of a plain decimal literal (``1.50``: 2); else None."""
    if not _DECIMAL.match(body) or "." not in body or any(c in body for c in "eE"):
        return None
    return len(body) - body.index(".") - 1


def _literal_value(body: str) -> tuple[Fraction, bool] | None:
    if _DECIMAL.match(body):
        _check_exponent(body)
        return Fraction(body), not any(c in body for c in ".eE")
    if _SLASH.match(body):
        numerator, denominator = body.split("/")
        if int(denominator) == 0:
            return None
        return Fraction(int(numerator), int(denominator)), True
    frac = _FRAC.match(body)
    if frac is not None:
        if int(frac["den"]) == 0:
            return None
        value = Fraction(int(frac["num"]), int(frac["den"]))
        return (-value if frac["sign"] == "-" else value), True
    power = _POWER.match(body)
    if power is not None:
        return _integer_power(power)
    repeating = _REPEATING.match(body)
    if repeating is not None:
        return _repeating_decimal(repeating), True
    power = _TIMES_TEN.match(body)
    if power is not None:
        exponent = int(power["braced"] or power["bare"])
        if abs(exponent) > MAX_EXPONENT:
            raise too_costly_text("a power of ten too large", exponent, MAX_EXPONENT)
        mantissa = power["mantissa"]
        return Fraction(mantissa) * Fraction(10) ** exponent, "." not in mantissa
    return None


def _integer_power(power: re.Match[str]) -> tuple[Fraction, bool] | None:
    """``2^{10}``, ``10^{-7}``, ``-3^2`` (the sign applies to the power) when not too long."""
    exponent = int(power["braced"] or power["bare"])
    if abs(exponent) * len(power["base"]) > MAX_DIGITS or power["base"].strip("0") == "":
        return None
    value = Fraction(int(power["base"])) ** exponent
    return (-value if power["sign"] == "-" else value), True


def _repeating_decimal(match: re.Match[str]) -> Fraction:
    """``0.\\overline{3}`` is exactly 1/3, ``0.1\\overline{6}`` is 1/6."""
    fixed, cycle = match["fixed"], match["cycle"]
    value = Fraction(int(match["whole"] or "0"))
    if fixed:
        value += Fraction(int(fixed), 10 ** len(fixed))
    value += Fraction(int(cycle), (10 ** len(cycle) - 1) * 10 ** len(fixed))
    return -value if match["sign"] == "-" else value


def _check_exponent(body: str) -> None:
    match = _EXPONENT.search(body)
    if match is not None and abs(int(match.group(1))) > MAX_EXPONENT:
        raise too_costly_text("an exponent too large", int(match.group(1)), MAX_EXPONENT)


def to_latex(text: str) -> str:
    """Transliterate plain-text math to LaTeX after checking its tokens against a whitelist.

    Raises:
        AnswerParseError: a character or word outside the whitelist.

    Example:
        >>> to_latex("sqrt(2)/2 + x**2")
        '\\\\sqrt{2}/2 + x^2'
    """
    if "\\" not in text:
        _check_plain_tokens(text)
    text = text.replace("**", "^")
    text = _PLAIN_NAME.sub(lambda m: _PLAIN_NAMES[m.group(1)], text)
    text = _brace_call(text, "\\sqrt", "\\sqrt{", "}")
    return _brace_call(text, "\\abs", "|", "|")


def _check_plain_tokens(text: str) -> None:
    position = 0
    for match in _PLAIN_TOKEN.finditer(text):
        if match.start() != position:
            raise AnswerParseError(f"unexpected character {text[position]!r}")
        word = match.group(0)
        if word.isalpha() and word not in _PLAIN_NAMES and len(word) > _MAX_IMPLICIT_PRODUCT:
            raise AnswerParseError(f"unknown word {word!r}")
        position = match.end()
    if position != len(text):
        raise AnswerParseError(f"unexpected character {text[position]!r}")


def _brace_call(text: str, name: str, opener: str, closer: str) -> str:
    """Rewrite ``name(...)`` as ``opener ... closer`` (``\\sqrt(2)`` -> ``\\sqrt{2}``)."""
    start = text.find(name + "(")
    while start != -1:
        paren = start + len(name)
        close = matching_close(text, paren)
        if close is None:
            raise AnswerParseError(f"unbalanced parenthesis after {name}")
        text = text[:start] + opener + text[paren + 1 : close] + closer + text[close + 1 :]
        start = text.find(name + "(")
    return text


def parse_scalar(text: str) -> Scalar:
    """Read one number or expression.

    Raises:
        AnswerParseError: ``text`` is not a well-formed scalar.
    """
    number = parse_number(text)
    if number is not None:
        return number
    percent = _PERCENT_SUFFIX.search(text)
    body = text[: percent.start()].strip() if percent else text
    expr = parse_latex(matrix_notation(to_latex(body)))
    return Expression(expr, exact=is_exact(expr), percent=percent is not None, source=text)


_BARRED_MATRIX = re.compile(
    r"(?:\\left\s*)?\|\s*\\begin\{(?P<env>[pbB]?matrix)\}(?P<body>(?:(?!\\end\{).)*)"
    r"\\end\{(?P=env)\}\s*(?:\\right\s*)?\|",
    re.DOTALL,
)
_TRANSPOSED = re.compile(
    r"(?P<end>\\end\{[pbB]?matrix\})\s*\^\s*(?:\{\s*(?:\\top|\\intercal|\\mathsf\{T\}"
    r"|\\mathrm\{T\}|\\text\{T\})\s*\}|\\top|\\intercal)"
)
_MATRIX_TO_ZERO = re.compile(
    r"\\begin\{(?P<env>[pbB]?matrix)\}(?P<body>(?:(?!\\end\{).)*)\\end\{(?P=env)\}"
    r"\s*\^\s*(?:\{\s*0\s*\}|0(?![0-9.]))",
    re.DOTALL,
)


def matrix_notation(latex: str) -> str:
    """Write out what the LaTeX parser reads wrongly about matrices.

    ``|M|`` (or ``\\left| M \\right|``) is a determinant, as ``vmatrix`` is (the parser took
    the bars for nothing); ``M^0`` is the identity matrix (the parser made it the number 1);
    ``M^{\\top}`` (``\\intercal``, ``\\mathsf{T}``) is ``M^T``, the transpose.

    Raises:
        AnswerParseError: a matrix that is not square raised to the power 0.
    """
    latex = _TRANSPOSED.sub(r"\g<end>^T", latex)
    latex = _BARRED_MATRIX.sub(r"\\begin{vmatrix}\g<body>\\end{vmatrix}", latex)
    return _MATRIX_TO_ZERO.sub(_identity_like, latex)


def _identity_like(match: re.Match[str]) -> str:
    rows = [row for row in match["body"].split("\\\\") if row.strip()]
    size = len(rows)
    if size == 0 or any(len(row.split("&")) != size for row in rows):
        raise AnswerParseError("a matrix that is not square, raised to the power 0")
    lines = ("&".join("1" if i == j else "0" for j in range(size)) for i in range(size))
    return "\\begin{pmatrix}" + "\\\\".join(lines) + "\\end{pmatrix}"


@lru_cache(maxsize=4096)
def parse_latex(latex: str) -> Any:
    """Parse LaTeX into a sympy object with latex2sympy2_extended (``i`` is the imaginary unit).

    Raises:
        AnswerParseError: the parser rejects the text, or it is not a scalar or a set.
    """
    import sympy

    depth = max(depths(latex), default=0)
    if depth > MAX_NESTING:
        raise too_costly_text("brackets nested too deeply", depth, MAX_NESTING)
    try:
        # A fresh converter per text, as latex2sympy() makes one (it holds per-parse state).
        expr = _converter_class()(None, is_real=True, convert_degrees=True).parse(latex)
    except AnswerParseError:
        raise
    except Exception as exc:
        # The parser reports bad input with a bare Exception, and sympy with its usual errors;
        # anything else (an AssertionError, a KeyError, ...) is a bug and propagates.
        if type(exc) is not Exception and not isinstance(exc, sympy_errors()):
            raise
        raise AnswerParseError(f"not valid LaTeX math: {_first_line(exc)}") from exc
    if isinstance(expr, sympy.MatrixBase) and not isinstance(expr, sympy.ImmutableMatrix):
        expr = sympy.ImmutableMatrix(expr)  # a worked-out matrix expression (``M^T``)
    if not isinstance(expr, (sympy.Expr, sympy.Set)) or isinstance(expr, sympy.Tuple):
        raise AnswerParseError(f"not a scalar: {type(expr).__name__}")
    imaginary = [s for s in expr.free_symbols if s.name == "i"]
    if imaginary:
        expr = expr.xreplace({s: sympy.I for s in imaginary})
    screen_tree(expr)  # before doit(): refuse a number too large to compute (cost.TooCostly)
    return evaluated(expr)


_TOKEN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def literal_number(text: str) -> Any:
    """A number token of the LaTeX lexer as a sympy number, without ``sympify``.

    Integers go through ``int``, decimals and E-notation through :class:`sympy.Float` (the value and
    precision ``sympy.Number(text)`` gives, which parses the text as Python code first).

    Raises:
        AnswerParseError: ``text`` is not a plain decimal literal.
    """
    import sympy

    body = text.strip()
    if _TOKEN_NUMBER.fullmatch(body) is None:
        raise AnswerParseError(f"not a number: {body[:40]!r}")
    if re.fullmatch(r"[+-]?\d+", body):
        return sympy.Integer(int(body))
    return sympy.Float(body)


@lru_cache(maxsize=1)
def _converter_class() -> Any:
    """latex2sympy2_extended's converter with its two ``sympy.Number(text)`` calls replaced."""
    from latex2sympy2_extended import latex2sympy2 as l2s

    class NoEvalConverter(l2s._Latex2Sympy):  # type: ignore[misc]
        """Reads number tokens with :func:`literal_number`; the rest is the library's."""

        def parse_number(self, text: str) -> Any:
            return literal_number(text.replace(",", ""))

        def parse(self, latex_str: str) -> Any:
            # The library's parse, whose comma-number branch calls sympy.Number on the whole text.
            math = self.create_parser(latex_str).math()
            if math.set_relation():
                return self.convert_set_relation(math.set_relation())
            if math.set_elements():
                if l2s.comma_number_regex.match(latex_str):
                    return literal_number(_comma_number(latex_str))
                return self.convert_set_elements(math.set_elements())
            if math.set_elements_relation():
                return self.convert_set_elements_relation(math.set_elements_relation())
            raise AnswerParseError("nothing matched")

    return NoEvalConverter


def _comma_number(text: str) -> str:
    """The library's ``convert_number`` rewrite: ``1,000`` -> ``1000``, ``0,111`` -> ``.111``."""
    if "," in text and text.startswith("0"):
        text = text.replace(",", ".")
    return text.translate(str.maketrans("", "", ", ")).lstrip("0") or "0"


def evaluated(expr: Any) -> Any:
    """``expr.doit()``: evaluate what the parser left unevaluated (``2^{10}``, ``\\binom{5}{2}``).

    When sympy cannot evaluate a part, the expression is kept as parsed.
    """
    try:
        return expr.doit()
    except sympy_errors():
        return expr


def sympy_errors() -> tuple[type[BaseException], ...]:
    """Exceptions sympy raises when an operation is undefined or unsupported for its input."""
    from sympy.polys.polyerrors import BasePolynomialError

    return (
        ArithmeticError,
        TypeError,
        ValueError,
        NotImplementedError,
        AttributeError,
        RecursionError,
        BasePolynomialError,
    )


def is_exact(expr: Any) -> bool:
    """False when ``expr`` holds a floating-point literal."""
    import sympy

    return not expr.atoms(sympy.Float)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def warm_up() -> None:
    """Import sympy and latex2sympy2_extended and run the parser once over typical forms."""
    for latex in ("\\frac{\\sqrt{2}}{2}", "x^2+2x+1", "3+4i", "\\sin(x)", "2\\pi r"):
        parse_latex(latex)
