"""String normalization of extracted answers, before any parsing.

:func:`normalize_answer` rewrites the many ways of writing one answer into one canonical
LaTeX-ish string: math delimiters and layout commands go, Unicode operators become LaTeX,
``\\dfrac`` becomes ``\\frac``, thousands separators, units, currency and degree marks are
dropped, ``\\text{}`` wrappers are unwrapped, and every percent sign is written ``\\%``.
The percent sign itself is kept: whether ``50\\%`` may equal ``0.5`` is decided later.

A plain number (the whole answer one figure: ``\\$18{,}480``, ``2,\\!220``, ``1,250 dollars``,
``25 percent``, ``−3``) is read by the shared reader (:func:`assay.verifiers.reading.read_number`)
and written back as its digits, decimals as written (``1621.9750`` keeps its four), and ``\\%``
when it is a percent (:func:`plain_number`); everything else goes through the LaTeX rewriting.

Everything here is pure ``re``/``str`` work on short strings (no sympy), so it is also the
fast path: two answers whose :func:`string_key` agree are equal without parsing.
"""

from __future__ import annotations

import re
import unicodedata

from assay.verifiers.math.scan import find_top_level, wrapped_by
from assay.verifiers.reading import NumberTooLargeError, read_number
from assay.verifiers.reading.numbers import VULGAR_FRACTIONS

_UNICODE = str.maketrans(
    {
        "\u2212": "-",  # minus sign
        "\u2010": "-",  # hyphen
        "\u2011": "-",  # non-breaking hyphen
        "\u2012": "-",  # figure dash
        "\u2013": "-",  # en dash
        "\u2014": "-",  # em dash
        "\u2015": "-",  # horizontal bar
        "\u2043": "-",  # hyphen bullet
        "\ufe63": "-",  # small hyphen-minus
        "\uff0d": "-",  # full-width hyphen-minus
        "\u00d7": " \\times ",
        "\u22c5": " \\cdot ",
        "\u00b7": " \\cdot ",
        "\u00f7": " \\div ",
        "\u03c0": " \\pi ",
        "\u00b5": " \\mu ",  # the micro sign
        "\u03b1": " \\alpha ",  # α
        "\u03b2": " \\beta ",  # β
        "\u03b3": " \\gamma ",  # γ
        "\u03b4": " \\delta ",  # δ
        "\u03b5": " \\epsilon ",  # ε
        "\u03f5": " \\epsilon ",  # ϵ
        "\u03b6": " \\zeta ",  # ζ
        "\u03b7": " \\eta ",  # η
        "\u03b8": " \\theta ",  # θ
        "\u03d1": " \\theta ",  # ϑ
        "\u03b9": " \\iota ",  # ι
        "\u03ba": " \\kappa ",  # κ
        "\u03bb": " \\lambda ",  # λ
        "\u03bc": " \\mu ",  # μ
        "\u03bd": " \\nu ",  # ν
        "\u03be": " \\xi ",  # ξ
        "\u03c1": " \\rho ",  # ρ
        "\u03c3": " \\sigma ",  # σ
        "\u03c4": " \\tau ",  # τ
        "\u03c5": " \\upsilon ",  # υ
        "\u03c6": " \\phi ",  # φ
        "\u03d5": " \\phi ",  # ϕ
        "\u03c7": " \\chi ",  # χ
        "\u03c8": " \\psi ",  # ψ
        "\u03c9": " \\omega ",  # ω
        "\u0393": " \\Gamma ",  # Γ
        "\u0394": " \\Delta ",  # Δ
        "\u0398": " \\Theta ",  # Θ
        "\u039b": " \\Lambda ",  # Λ
        "\u039e": " \\Xi ",  # Ξ
        "\u03a0": " \\Pi ",  # Π
        "\u03a3": " \\Sigma ",  # Σ
        "\u03a5": " \\Upsilon ",  # Υ
        "\u03a6": " \\Phi ",  # Φ
        "\u03a8": " \\Psi ",  # Ψ
        "\u03a9": " \\Omega ",  # Ω
        "\u221e": " \\infty ",
        "\u221a": "\\sqrt",
        "\u2264": " \\le ",
        "\u2265": " \\ge ",
        "\u2260": " \\ne ",
        "\u222a": " \\cup ",
        "\u2229": " \\cap ",
        "\u2208": " \\in ",
        "\u2205": " \\emptyset ",
        "\u00b0": "^\\circ ",
        "\u00b9": "^1",
        "\u00b2": "^2",
        "\u00b3": "^3",
        "\u00bd": "1/2",
        "\u2153": "1/3",
        "\u00bc": "1/4",
        "\u00be": "3/4",
        "\u2044": "/",
        "\u00a0": " ",
        "\u2009": " ",
        "\u202f": " ",
        "\u200b": "",
    }
)

_DELIMITERS = re.compile(r"\\[()\[\]]|\$")
_LAYOUT = re.compile(
    r"\\(?:left|right)\s*\.|\\(?:left|right|[bB]igg?[lrm]?)(?![a-zA-Z])"
    r"|\\(?:display|text|script)style|\\limits|\\nonumber|\\notag"
    r"|\\(?:hspace|vspace|phantom|hphantom|vphantom)\*?\s*\{[^{}]*\}"
)
_THIN_SPACE_IN_NUMBER = re.compile(r"(?<=\d)(?:,?(?:\\[,!:;]|\\ )|\{,\})\s*(?=\d{3}(?!\d))")
_SPACING = re.compile(
    r"(?<!\\)\\(?:q?quad|enspace|thinspace|medspace|thickspace|negthinspace|[,;:! ])(?![a-zA-Z])|~"
)
_COMMANDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"\\[dtc]frac(?![a-zA-Z])", r"\\frac"),
        (r"\\[dt]binom(?![a-zA-Z])", r"\\binom"),
        (r"\\(?:leqslant|leqq|leq)(?![a-zA-Z])", r"\\le"),
        (r"\\(?:geqslant|geqq|geq)(?![a-zA-Z])", r"\\ge"),
        (r"\\neq(?![a-zA-Z])", r"\\ne"),
        (r"\\lt(?![a-zA-Z])", "<"),
        (r"\\gt(?![a-zA-Z])", ">"),
        (r"\\(?:infin|infinity)(?![a-zA-Z])", r"\\infty"),
        (r"\\(?:lvert|rvert|vert)(?![a-zA-Z])", "|"),
        (r"\\lbrace(?![a-zA-Z])", r"\\{"),
        (r"\\rbrace(?![a-zA-Z])", r"\\}"),
        (r"\\lbrack(?![a-zA-Z])", "["),
        (r"\\rbrack(?![a-zA-Z])", "]"),
        (r"\\langle(?![a-zA-Z])", "("),
        (r"\\rangle(?![a-zA-Z])", ")"),
        (r"\\(?:varnothing|emptyset)(?![a-zA-Z])|\\\{\s*\\\}", r"\\emptyset"),
        (r"\\var(phi|epsilon|theta|rho|sigma|pi|kappa)(?![a-zA-Z])", r"\\\1"),  # one letter
        (r"\\ast(?![a-zA-Z])", "*"),
        (r"\\(?:dots|ldots|cdots)(?![a-zA-Z])", r"\\dots"),
        (r"\\(?:iff|Leftrightarrow|Rightarrow|implies|to|rightarrow)(?![a-zA-Z])", r" \\to "),
    )
)
_FRAC_SHORT = (
    (re.compile(r"\\frac\s*([0-9a-zA-Z])\s*([0-9a-zA-Z])"), r"\\frac{\1}{\2}"),
    (re.compile(r"\\frac\s*([0-9a-zA-Z])\s*\{"), r"\\frac{\1}{"),
    (re.compile(r"\\frac\s*(\{[^{}]*\})\s*([0-9a-zA-Z])"), r"\\frac\1{\2}"),
    (re.compile(r"\\sqrt\s*([0-9a-zA-Z])"), r"\\sqrt{\1}"),
)
_TEXT_COMMAND = (
    r"\\(?:text|textbf|textit|textrm|textnormal|textsf|texttt|mathrm|mathbf|mathit|mathsf"
    r"|mathtt|mbox|boldsymbol|bm|emph)\s*"
)
_TEXT_WRAPPER = re.compile(_TEXT_COMMAND + r"\{([^{}]*)\}")
_TEXT_CONNECTIVE = re.compile(
    r",?\s*" + _TEXT_COMMAND + r"\{\s*,?\s*(?:and|or)?\s*,?\s*\}\s*(?=\S)", re.IGNORECASE
)
_WORD_CONNECTIVE = re.compile(r"(?<=\S)\s*,?\s+(?:and|or)\s+(?=\S)", re.IGNORECASE)
_PERCENT_WORD = re.compile(r"(?<=[\d}])\s*(?:percent|per\s+cent|pct)\b", re.IGNORECASE)
_PERCENT = re.compile(r"\\?%")
_CURRENCY = re.compile(r"[€£¥₹]|\\(?:euro|pounds|yen)(?![a-zA-Z])|^(?:USD|US|Rs\.?|INR|EUR)\s*")
_DEGREE = re.compile(
    r"\s*\^\s*\{?\s*\\circ\s*\}?(?:\s*(?:\\text\s*\{\s*[CF]\s*\}|[CF](?![A-Za-z])))?"
    r"|\\circ(?![a-zA-Z])|\\degree(?![a-zA-Z])"
)
_TRIG = re.compile(r"\\?(?:sin|cos|tan|cot|sec|csc)(?![a-z])")
_TRAILING_TEXT_UNITS = re.compile(
    r"^(?P<body>.*?[^\s/])\s*(?P<units>(?:"
    + _TEXT_COMMAND
    + r"\{[^{}]*\}(?:\s*\^\s*\{?-?\d\}?)?\s*(?:/|\\cdot)?\s*)+)$"
)
_LETTER = re.compile("[A-Za-z]")
_UNIT_CONTENT = re.compile(_TEXT_COMMAND + r"\{([^{}]*)\}")
_MARKDOWN_BOLD = re.compile(r"(?<![\w)])\*\*(?=\S)(.+?)(?<=\S)\*\*(?![\w(])")
_UNIT_TEXT = re.compile(r"^[\sA-Za-z./^\d-]*$")
_TRAILING_WORDS = re.compile(
    r"^(?P<body>.*?[\d}%)])(?P<gap>\s*)"
    r"(?P<unit>[A-Za-z]+\.?(?:(?:\s+|\s*/\s*)[A-Za-z]+\.?|\s*\^\{?\d\}?)*)\s*$"
)
_ATTACHED_UNITS_TEXT = "cm mm km kg mg ml ft mph kmh kph hr hrs min mins sec secs cm2 m2 cm3 m3"
_ATTACHED_UNITS = frozenset(_ATTACHED_UNITS_TEXT.split())
_SINGLE_LETTER_UNITS_TEXT = "m g s h l L K V W J N"
_SINGLE_LETTER_UNITS = frozenset(_SINGLE_LETTER_UNITS_TEXT.split())
_MATH_WORDS_TEXT = (
    "pi sqrt sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh log ln exp "
    "abs inf infty infinity oo and or i e"
)
_MATH_WORDS = frozenset(_MATH_WORDS_TEXT.split())
_NOT_UNIT_WORDS_TEXT = (
    "is isn't are was not no wrong incorrect correct true false answer the it this that plus "
    "minus times divided over squared cubed power to of root thousand thousands million "
    "millions billion billions trillion hundred hundreds dozen dozens half quarter third "
    "equals equal than more less"
)
_NOT_UNIT_WORDS = frozenset(_NOT_UNIT_WORDS_TEXT.split())
"""Words after a number that are never its unit: they go on with the math ("5 plus two",
"10 squared", "5 thousand") or take the number back ("5 is wrong, the answer is 7")."""
_THOUSANDS = re.compile(r"(?<![\d.,])[1-9]\d{0,2}(?:,\d{3})+(?!\d|,\d)")
_SPACE_THOUSANDS = re.compile(r"^-?\d{1,3}(?: \d{3})+(?:\.\d+)?$")
_WHITESPACE = re.compile(r"\s+")
_TRAILING_PUNCT = re.compile(r"(?:\s|[.,;:?]|(?<=[A-Za-z]{2})!|\\\\)+$")
_KEY_SPACE = re.compile(r"(?<![A-Za-z0-9])\s+|\s+(?![A-Za-z0-9])")


def normalize_unicode(text: str) -> str:
    """Map Unicode dashes, operators, superscripts and spaces to ASCII/LaTeX, then NFKC.

    Example:
        >>> normalize_unicode("\u22123 \u00d7 10\u00b2")
        '-3  \\\\times  10^2'
    """
    return unicodedata.normalize("NFKC", text.translate(_UNICODE))


def strip_layout(text: str) -> str:
    """Drop math delimiters, markdown bold, ``\\left``/``\\right``, spacing and styles."""
    text = _MARKDOWN_BOLD.sub(lambda m: m.group(1), text)
    text = text.replace("\\$", " ")
    text = _LAYOUT.sub("", text)
    text = _DELIMITERS.sub(" ", text)
    text = _THIN_SPACE_IN_NUMBER.sub("", text)
    return _SPACING.sub(" ", text)


def canonical_commands(text: str) -> str:
    """Rewrite synonymous commands (``\\dfrac``, ``\\leq``, ``\\lvert``...) and shorthand.

    Example:
        >>> canonical_commands("\\\\dfrac12 + \\\\sqrt3")
        '\\\\frac{1}{2} + \\\\sqrt{3}'
    """
    for pattern, replacement in _COMMANDS:
        text = pattern.sub(replacement, text)
    for pattern, replacement in _FRAC_SHORT:
        text = pattern.sub(replacement, text)
    return text


def split_connectives(text: str) -> str:
    """Turn ``\\text{ or }``, ``and``, ``or`` between two items into a comma."""
    text = _TEXT_CONNECTIVE.sub(", ", text)
    return _WORD_CONNECTIVE.sub(", ", text)


def strip_units(text: str) -> str:
    """Drop currency, degree marks and trailing unit words or ``\\text{unit}``.

    Degree marks stay where a trigonometric function needs them (``\\sin 30^\\circ``).
    """
    text = _PERCENT_WORD.sub("\\%", text)
    text = _CURRENCY.sub(" ", text).strip()
    text = _strip_trailing_text_units(text)
    if not _TRIG.search(text):
        text = _DEGREE.sub(" ", text)
    return _strip_trailing_unit_words(text.strip())


def _strip_trailing_text_units(text: str) -> str:
    """``5 \\text{ cm}^2`` and ``90 \\text{km}/\\text{h}`` lose their units."""
    match = _TRAILING_TEXT_UNITS.match(text)
    if match is None:
        return text
    for content in _UNIT_CONTENT.findall(match.group("units")):
        unit = content.strip()
        if not (_UNIT_TEXT.match(unit) and _LETTER.search(unit)) or unit.lower() in ("or", "and"):
            return text
        if any(c.isdigit() for c in unit.split("^")[0]) or _has_non_unit_word(unit):
            return text  # "\text{ times 4}", "\text{ is wrong}": not a unit
    return match.group("body").strip()


def _has_non_unit_word(text: str) -> bool:
    return any(word.lower() in _NOT_UNIT_WORDS for word in re.findall(r"[A-Za-z']+", text))


def _strip_trailing_unit_words(text: str) -> str:
    match = _TRAILING_WORDS.match(text)
    if match is None:
        return text
    unit = match.group("unit")
    words = re.findall(r"[A-Za-z]+", unit)
    if any(word.lower() in _MATH_WORDS or word.lower() in _NOT_UNIT_WORDS for word in words):
        return text
    if not match.group("gap"):
        if unit.replace("^", "").replace(" ", "").lower() not in _ATTACHED_UNITS:
            return text
    elif any(len(word) == 1 and word not in _SINGLE_LETTER_UNITS for word in words):
        return text
    return match.group("body").strip()


def unwrap_text(text: str) -> str:
    """Replace ``\\text{...}``-style wrappers (``\\mathrm``, ``\\mbox``...) by their content."""
    previous = None
    while previous != text:
        previous = text
        text = _TEXT_WRAPPER.sub(lambda m: m.group(1), text)
    return text


def collapse_thousands(text: str) -> str:
    """Remove thousands separators: ``1,000,000`` and ``1 000 000`` become ``1000000``.

    Only outside brackets, so the point ``(5,100)`` and the set ``\\{1,000\\}`` keep
    their commas.
    """
    text = text.replace("{,}", ",")
    for match in reversed(find_top_level(text, _THOUSANDS)):
        digits = match.group(0).replace(",", "")
        text = text[: match.start()] + digits + text[match.end() :]
    if _SPACE_THOUSANDS.match(text):
        text = text.replace(" ", "")
    return text


def tidy(text: str) -> str:
    """Collapse whitespace, drop trailing punctuation, and braces or quotes around it all."""
    text = _WHITESPACE.sub(" ", text).strip()
    text = _TRAILING_PUNCT.sub("", text)
    while wrapped_by(text, "{", "}") or _quoted(text):
        text = text[1:-1].strip()
    return text


def _quoted(text: str) -> bool:
    """``"0.5"`` or ``“yes”``: a whole answer in quotation marks."""
    return len(text) >= 2 and (text[0], text[-1]) in (('"', '"'), ("“", "”"), ("'", "'"))


def plain_number(text: str) -> str | None:
    """A whole answer that is one plain written number, as digits; else None.

    Separators, currency and the percent sign or word are the shared reader's
    (docs/reading.md); the decimals are kept as written. Not plain here: scale words (``5
    million``), number words, fractions and scientific notation (math parses those exactly),
    a parenthesized figure (``(5)`` and ``(5,100)`` are brackets in math, not negatives), and
    a digit string longer than the reader converts (math's own parser takes those).

    Example:
        >>> plain_number("\\\\$18{,}480"), plain_number("12.50 dollars"), plain_number("x")
        ('18480', '12.50', None)
    """
    try:
        figure = read_number(text)
    except NumberTooLargeError:
        return None
    if figure is None or figure.scale is not None:
        return None
    if figure.kind == "fraction" and figure.fraction is not None and _is_mixed(figure.text):
        top, bottom = figure.fraction  # "1 1/2", "2¾", "½": the exact pair
        sign = "-" if top < 0 else ""
        return f"{sign}\\frac{{{abs(top)}}}{{{bottom}}}" + ("\\%" if figure.percent else "")
    if figure.kind != "digits":
        return None
    if figure.parenthesized:
        return None
    return f"{figure.value:f}" + ("\\%" if figure.percent else "")


def _is_mixed(text: str) -> bool:
    """A vulgar fraction or a mixed number as written (not ``3/4``, which math parses)."""
    return any(glyph in text for glyph in VULGAR_FRACTIONS) or " " in text.strip()


def normalize_answer(text: str) -> str:
    """Canonical form of an extracted answer or a gold answer.

    Example:
        >>> normalize_answer("$\\\\dfrac{1}{2}$")
        '\\\\frac{1}{2}'
        >>> normalize_answer("\\\\$1,000 dollars")
        '1000'
        >>> normalize_answer("50 percent")
        '50\\\\%'
    """
    plain = plain_number(text.strip())
    if plain is not None:
        return plain
    text = _WHITESPACE.sub(" ", normalize_unicode(text))
    text = strip_layout(text)
    text = canonical_commands(text)
    text = split_connectives(text)
    text = _PERCENT.sub(lambda _: "\\%", text)
    text = strip_units(text)
    text = unwrap_text(text)
    text = collapse_thousands(text)
    return tidy(text)


def string_key(normalized: str) -> str:
    """Key of the exact-string fast path: spaces removed except between two word characters."""
    return _KEY_SPACE.sub("", normalized)
