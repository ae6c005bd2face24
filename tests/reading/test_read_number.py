"""One written number, read as written: value, written decimals, scale, currency, percent."""

from __future__ import annotations

from decimal import Decimal

import pytest
from assay.verifiers.reading import Figure, NumberTooLargeError, read_number


def _key(figure: Figure) -> tuple[Decimal, int, str | None, str | None, bool]:
    return (figure.value, figure.decimals, figure.scale, figure.currency, figure.percent)


# (text, value, decimals, scale, currency, percent)
READINGS: list[tuple[str, str, int, str | None, str | None, bool]] = [
    # --- ported from tests/finance/test_numbers.py (READINGS) ---
    ("(1,250)", "-1250", 0, None, None, False),  # accounting parentheses
    ("−5", "-5", 0, None, None, False),  # U+2212 minus sign
    ("–1,636", "-1636", 0, None, None, False),  # en dash, as one fixture filing prints negatives
    ("-(5)", "-5", 0, None, None, False),  # minus and parentheses: still negative five
    ("$(1,250)", "-1250", 0, None, "USD", False),  # currency outside the parentheses
    ("$-5", "-5", 0, None, "USD", False),  # minus after the currency symbol
    ("−$4.2 million", "-4.2", 1, "million", "USD", False),  # sign, symbol, scale word
    ("1.2 million", "1.2", 1, "million", None, False),  # scale word, precision kept
    ("$3bn", "3", 0, "billion", "USD", False),  # short scale, no space
    ("450k", "450", 0, "thousand", None, False),  # k suffix, no currency
    ("$1.2MM", "1.2", 1, "million", "USD", False),  # banker's MM
    ("14.1%", "14.1", 1, None, None, True),  # percent sign
    ("14.1 percent", "14.1", 1, None, None, True),  # percent word
    ("USD 1,250", "1250", 0, None, "USD", False),  # currency code before
    ("1,250 EUR", "1250", 0, None, "EUR", False),  # currency code after
    ("€81.416 million", "81.416", 3, "million", "EUR", False),  # euro, three decimals
    ("0.14136", "0.14136", 5, None, None, False),  # FinQA-style five decimals
    ("1,250.50", "1250.50", 2, None, None, False),  # trailing zero is reported precision
    # --- thousands separators ---
    ("1,234", "1234", 0, None, None, False),  # plain comma grouping
    ("1,234,567", "1234567", 0, None, None, False),  # two groups
    ("1,234,567.89", "1234567.89", 2, None, None, False),  # grouping and decimals
    ("2,\\!220", "2220", 0, None, None, False),  # MATH dataset's negative thin space
    ("10{,}000", "10000", 0, None, None, False),  # MATH's braced comma
    ("1\\,000", "1000", 0, None, None, False),  # LaTeX thin space
    ("1\\,000\\,000", "1000000", 0, None, None, False),  # LaTeX thin spaces, two groups
    ("12\u2009345", "12345", 0, None, None, False),  # U+2009 thin space (SI style)
    ("12\u202f345", "12345", 0, None, None, False),  # U+202F narrow no-break (French style)
    ("12\u00a0345", "12345", 0, None, None, False),  # U+00A0 no-break space
    ("12 345", "12345", 0, None, None, False),  # plain space grouping in a whole answer
    ("1 000 000", "1000000", 0, None, None, False),  # plain spaces, two groups
    ("$1,000", "1000", 0, None, "USD", False),  # dollars with grouping
    ("1234567.1", "1234567.1", 1, None, None, False),  # written precision: one decimal
    ("1234567.10", "1234567.10", 2, None, None, False),  # ... two decimals
    ("1621.9750", "1621.9750", 4, None, None, False),  # reasoning-gym decimal_arithmetic style
    (".5", "0.5", 1, None, None, False),  # leading decimal point
    ("0.5", "0.5", 1, None, None, False),  # leading zero
    ("007", "7", 0, None, None, False),  # leading zeros read as the integer
    # --- signs ---
    ("-7", "-7", 0, None, None, False),  # ASCII hyphen-minus
    ("+7", "7", 0, None, None, False),  # explicit plus
    ("‒3", "-3", 0, None, None, False),  # U+2012 figure dash
    ("－3", "-3", 0, None, None, False),  # U+FF0D full-width hyphen-minus
    ("(587.4)", "-587.4", 1, None, None, False),  # parentheses negative with decimals
    ("($5,127)", "-5127", 0, None, "USD", False),  # currency inside the parentheses
    ("-$24,175", "-24175", 0, None, "USD", False),  # minus before the dollar sign
    ("−0.25", "-0.25", 2, None, None, False),  # Unicode minus, decimal
    ("(0)", "0", 0, None, None, False),  # zero in parentheses is zero
    # --- currency ---
    ("\\$12.50", "12.50", 2, None, "USD", False),  # escaped LaTeX dollar
    ("\\$\\,12.50", "12.50", 2, None, "USD", False),  # ... with a LaTeX thin space (math's row)
    ("\\$~5", "5", 0, None, "USD", False),  # ... with a LaTeX tie
    ("US$5", "5", 0, None, "USD", False),  # US$ prefix
    ("£3.20", "3.20", 2, None, "GBP", False),  # pound sign
    ("¥500", "500", 0, None, "JPY", False),  # yen sign
    ("₹1,200", "1200", 0, None, "INR", False),  # rupee sign
    ("5 €", "5", 0, None, "EUR", False),  # euro after, with a space
    ("5€", "5", 0, None, "EUR", False),  # euro after, attached
    ("12 dollars", "12", 0, None, "USD", False),  # currency word
    ("58,926 U.S. dollars", "58926", 0, None, "USD", False),  # "U.S. dollars"
    ("EUR 3.5", "3.5", 1, None, "EUR", False),  # ISO code before
    ("CHF 100", "100", 0, None, "CHF", False),  # Swiss francs
    ("Rs. 500", "500", 0, None, "INR", False),  # rupees abbreviation
    # --- scale words ---
    ("$58.926 million", "58.926", 3, "million", "USD", False),  # scale with decimals
    ("$48,843K", "48843", 0, "thousand", "USD", False),  # K suffix with grouping
    ("$58.7M", "58.7", 1, "million", "USD", False),  # attached M
    ("$2.1B", "2.1", 1, "billion", "USD", False),  # attached B
    ("$5m", "5", 0, "million", "USD", False),  # lower-case m after a currency
    ("$3b", "3", 0, "billion", "USD", False),  # lower-case b after a currency
    ("3 thousand", "3", 0, "thousand", None, False),  # word scale
    ("2 billion", "2", 0, "billion", None, False),  # billion
    ("1.5 trillion", "1.5", 1, "trillion", None, False),  # trillion
    ("$1.1tn", "1.1", 1, "trillion", "USD", False),  # tn abbreviation
    ("€4.5bn", "4.5", 1, "billion", "EUR", False),  # bn abbreviation
    ("£120mn", "120", 0, "million", "GBP", False),  # mn abbreviation
    ("$450 thousands", "450", 0, "thousand", "USD", False),  # plural scale word
    ("4.2 Million", "4.2", 1, "million", None, False),  # capitalised scale word
    # --- percent ---
    ("10\\%", "10", 0, None, None, True),  # LaTeX percent
    ("12.5 per cent", "12.5", 1, None, None, True),  # British "per cent"
    ("3 pct", "3", 0, None, None, True),  # "pct"
    ("-3.4%", "-3.4", 1, None, None, True),  # negative percent
    ("(5.0)%", "-5.0", 1, None, None, True),  # accounting negative percent
    ("33.2 %", "33.2", 1, None, None, True),  # space before the sign (French style)
    # --- scientific notation ---
    ("1.2e-3", "0.0012", 4, None, None, False),  # e notation, negative exponent
    ("3E5", "3E+5", 0, None, None, False),  # capital E, positive exponent
    ("6.02e23", "6.02E+23", 0, None, None, False),  # Avogadro, no sign
    ("1.2 \\times 10^{-3}", "0.0012", 4, None, None, False),  # LaTeX times ten to the power
    ("1.2×10^-3", "0.0012", 4, None, None, False),  # Unicode times, bare exponent
    ("2.5 \\cdot 10^{4}", "2.50E+4", 0, None, None, False),  # \cdot form
    ("-4.1e2", "-4.1E+2", 0, None, None, False),  # negative mantissa
    # --- fractions ---
    ("3/4", "0.75", 0, None, None, False),  # slash fraction
    ("\\frac{3}{4}", "0.75", 0, None, None, False),  # LaTeX fraction
    ("\\dfrac{1}{2}", "0.5", 0, None, None, False),  # display fraction
    ("-\\frac{1}{4}", "-0.25", 0, None, None, False),  # negative LaTeX fraction
    ("½", "0.5", 0, None, None, False),  # a vulgar fraction
    ("¾", "0.75", 0, None, None, False),  # three quarters
    ("2¾", "2.75", 0, None, None, False),  # a whole glued to a vulgar fraction
    ("1 ½", "1.5", 0, None, None, False),  # a whole and a vulgar fraction
    ("1 1/2", "1.5", 0, None, None, False),  # a mixed number (recipe style)
    ("−2 1/4", "-2.25", 0, None, None, False),  # a negative mixed number (U+2212)
    # --- decimal commas, only where unambiguous (docs/reading.md) ---
    ("1.234,56", "1234.56", 2, None, None, False),  # dot grouping then a comma decimal
    ("€ 1.000,50", "1000.50", 2, None, "EUR", False),  # euro, dot grouping, comma decimal
    ("€3,50", "3.50", 2, None, "EUR", False),  # a euro sign before a comma decimal
    ("3,50 €", "3.50", 2, None, "EUR", False),  # a euro sign after it
    ("12,5 %", "12.5", 1, None, None, True),  # a percent after it (German style)
    ("12,5%", "12.5", 1, None, None, True),  # glued percent
    ("1.234.567,8 EUR", "1234567.8", 1, None, "EUR", False),  # several dot groups
    # --- number words ---
    ("ten", "10", 0, None, None, False),  # single word
    ("twenty-five", "25", 0, None, None, False),  # hyphenated
    ("one hundred twelve", "112", 0, None, None, False),  # hundreds
    ("three hundred and five", "305", 0, None, None, False),  # British "and"
    ("a dozen", "12", 0, None, None, False),  # "a dozen"
    ("two dozen", "24", 0, None, None, False),  # two dozen
    ("five million", "5000000", 0, None, None, False),  # words absorb their scale
    ("Forty", "40", 0, None, None, False),  # capitalised
    ("twenty percent", "20", 0, None, None, True),  # word number with percent
    ("four hundred twelve dollars and fifty cents", "412.50", 2, None, "USD", False),  # cheque
    ("12 dollars and 50 cents", "12.50", 2, None, "USD", False),  # digits and cents
    # --- wrappers a whole answer may have ---
    ("**42**", "42", 0, None, None, False),  # markdown bold
    ("$42$", "42", 0, None, None, False),  # LaTeX inline math around it: not money
    ("\\(42\\)", "42", 0, None, None, False),  # \( \) math
    ("42.", "42", 0, None, None, False),  # a final period
    ("  42  ", "42", 0, None, None, False),  # surrounding space
]


@pytest.mark.parametrize("row", READINGS, ids=[row[0] for row in READINGS])
def test_read_number(row: tuple[str, str, int, str | None, str | None, bool]) -> None:
    text, value, decimals, scale, currency, percent = row
    figure = read_number(text)
    assert figure is not None
    assert _key(figure) == (Decimal(value), decimals, scale, currency, percent)


NOT_NUMBERS = [
    "(see note 5",  # an open parenthesis alone: ported from finance ("not a negative figure")
    "1,25",  # a decimal comma is not a thousands separator (ported from finance)
    "FY2024",  # glued to letters (ported from finance)
    "abc123",  # digits inside an identifier
    "v2",  # a version
    "H2O",  # a formula
    "3rd",  # an ordinal
    "1.2.3",  # a version string
    "555-123-4567",  # a phone number
    "10^5",  # a power is an expression, not a figure
    "5 and 6",  # two numbers
    "",  # nothing
    "dollars",  # a word without a number
    "1,2345",  # a broken grouping
    "0x1F",  # hexadecimal
    "x = 5",  # an equation
    "1/0",  # a zero denominator is no number (not 1)
    "\\frac{3}{0}",  # nor in LaTeX
    "1.234.567",  # dots as thousands separators without a comma decimal: not read
    "3,5",  # a bare comma decimal: a list or a pair in math ("x = 3,5"), not read
    "(3,5)",  # an interval or a point
    "$1,25",  # a dollar amount with a comma decimal is no style anyone writes: not read
    "3 4/3",  # an improper fraction after a whole is no mixed number
    "2 1/0",  # nor is a zero denominator
]


@pytest.mark.parametrize("text", NOT_NUMBERS, ids=[repr(t) for t in NOT_NUMBERS])
def test_not_a_number(text: str) -> None:
    assert read_number(text) is None


KINDS = [
    ("1.2e-3", "scientific"),  # e notation
    ("3/4", "fraction"),  # slash fraction
    ("\\frac{1}{3}", "fraction"),  # LaTeX fraction
    ("twenty", "words"),  # number words
    ("1,234", "digits"),  # plain digits
]


@pytest.mark.parametrize(("text", "kind"), KINDS, ids=[k[0] for k in KINDS])
def test_kinds(text: str, kind: str) -> None:
    figure = read_number(text)
    assert figure is not None and figure.kind == kind


def test_fraction_keeps_the_exact_pair() -> None:
    # 1/3 has no finite decimal: the pair is what a domain compares exactly.
    figure = read_number("-\\frac{1}{3}")
    assert figure is not None and figure.fraction == (-1, 3)
    slash = read_number("2/3")
    assert slash is not None and slash.fraction == (2, 3)


def test_scaled_value_and_grouping() -> None:
    figure = read_number("$1.25 million")
    assert figure is not None and figure.scaled == Decimal("1250000.00")
    grouped = read_number("1,250")
    plain = read_number("1250")
    assert grouped is not None and plain is not None and grouped.grouped and not plain.grouped
    negative = read_number("(5)")
    assert negative is not None and negative.parenthesized


@pytest.mark.parametrize(
    "text",
    [
        "9" * 101,  # more digits than MAX_DIGITS
        "1," + ",".join(["000"] * 40),  # grouped, still too many digits
        "1e401",  # exponent beyond MAX_EXPONENT
        "1.5 \\times 10^{-999}",  # LaTeX form, tiny beyond the bound
    ],
    ids=["digits", "grouped", "exponent", "latex-exponent"],
)
def test_too_large_is_reported(text: str) -> None:
    with pytest.raises(NumberTooLargeError):
        read_number(text)


def test_largest_readable_number_is_read() -> None:
    figure = read_number("9" * 100)  # exactly MAX_DIGITS: still a number
    assert figure is not None and figure.value == Decimal("9" * 100)
