"""Every figure of a text, with its role (value, year, date), as real answers write them."""

from __future__ import annotations

from decimal import Decimal

import pytest
from assay.verifiers.reading import find_numbers, scan_numbers

# (text, [(figure as written, value, role)])
SCANS: list[tuple[str, list[tuple[str, str, str]]]] = [
    # --- ported from tests/agent/test_agent_pieces.py (numbers_in) ---
    ("$1,000 refunded", [("$1,000", "1000", "value")]),  # thousands and currency
    ("10% off", [("10%", "10", "value")]),  # percent
    ("-3 degrees", [("-3", "-3", "value")]),  # a minus at the start of a word
    (
        "2024-05-10",  # agent read 2024, 5, 10; here the parts are a date, not values
        [("2024", "2024", "date"), ("05", "5", "date"), ("10", "10", "date")],
    ),
    (
        "twenty-five and three hundred and five",  # words, "and" after hundred
        [("twenty-five", "25", "value"), ("three hundred and five", "305", "value")],
    ),
    ("version v1.2.3 or a2b", []),  # digits glued to letters are not numbers
    (
        "total: 4.50, (42)",  # agent read +42; accounting parentheses make it -42 here
        [("4.50", "4.50", "value"), ("(42)", "-42", "value")],
    ),
    # --- ported from tests/finance/test_numbers.py (years flagged, not dropped) ---
    (
        "In fiscal 2024 revenue rose 12.5% to $5,432 thousand from 2023.",
        [
            ("2024", "2024", "year"),
            ("12.5%", "12.5", "value"),
            ("$5,432 thousand", "5432", "value"),
            ("2023", "2023", "year"),
        ],
    ),
    # --- dates are not answers ---
    (
        "Total assets were $656,901 thousand at December 31, 2024.",  # US date after
        [("$656,901 thousand", "656901", "value"), ("31", "31", "date"), ("2024", "2024", "date")],
    ),
    (
        "As of December 31, 2024, total assets stood at $656,901 thousand.",  # date first
        [("31", "31", "date"), ("2024", "2024", "date"), ("$656,901 thousand", "656901", "value")],
    ),
    (
        "Revenue for the year ended 31 December 2023 was $537.6 million.",  # day-month-year
        [("31", "31", "date"), ("2023", "2023", "date"), ("$537.6 million", "537.6", "value")],
    ),
    (
        "Cash was $46,132 thousand on Dec. 31, 2023.",  # abbreviated month with a period
        [("$46,132 thousand", "46132", "value"), ("31", "31", "date"), ("2023", "2023", "date")],
    ),
    (
        "Filed on 12/31/2024.",  # US numeric date
        [("12", "12", "date"), ("31", "31", "date"), ("2024", "2024", "date")],
    ),
    (
        "Filed on 31.12.2023.",  # European numeric date
        [("31", "31", "date"), ("12", "12", "date"), ("2023", "2023", "date")],
    ),
    ("In March 2024 it was 5.", [("2024", "2024", "date"), ("5", "5", "value")]),  # month year
    ("On June 5th it rained 3 mm.", [("5", "5", "date"), ("3", "3", "value")]),  # ordinal day
    # --- years ---
    ("It was higher in 2024.", [("2024", "2024", "year")]),  # a bare year is a year mention
    ("from 2018 to 2019", [("2018", "2018", "year"), ("2019", "2019", "year")]),  # a range
    ("$2,011", [("$2,011", "2011", "value")]),  # currency: not a year
    ("2,011 people", [("2,011", "2011", "value")]),  # grouping: not a year
    ("1500", [("1500", "1500", "value")]),  # outside 1900-2100: not a year
    ("2024.5", [("2024.5", "2024.5", "value")]),  # decimals: not a year
    ("2050%", [("2050%", "2050", "value")]),  # percent: not a year
    # --- money in word problems ---
    (
        "She sells them for $2 each, so she makes $18.",  # two prices, no LaTeX
        [("$2", "2", "value"), ("$18", "18", "value")],
    ),
    (
        "He pays $5+$3=$8 in total.",  # dollars around operators
        [("$5", "5", "value"), ("$3", "3", "value"), ("$8", "8", "value")],
    ),
    (
        "Each ticket costs $12.50 and she buys 4, spending $50.",  # GSM8K-style
        [("$12.50", "12.50", "value"), ("4", "4", "value"), ("$50", "50", "value")],
    ),
    ("So $x = 2$.", [("2", "2", "value")]),  # LaTeX: the $ is no currency
    # --- tokens that hold digits ---
    ("H2O and CO2", []),  # chemical formulas
    ("COVID-19 cases", []),  # a hyphenated name
    ("GPT-4 scored 86.4%", [("86.4%", "86.4", "value")]),  # model name, then a score
    ("the 3rd quarter", []),  # an ordinal
    ("call (555) 123-4567", []),  # a phone number
    ("call +1 555 123 4567", []),  # an international phone number
    ("area 12 cm^2", [("12", "12", "value")]),  # the exponent of a unit is not a number
    ("area 12 cm^{2}", [("12", "12", "value")]),  # braced exponent
    ("x^2 + 3", [("3", "3", "value")]),  # exponent of a variable
    ("10^{-3} m", []),  # a bare power is an expression
    ("a_1 = 5", [("5", "5", "value")]),  # a subscript index
    ("1,2,3", []),  # a comma list with no spaces is ambiguous
    ("1, 2, 3", [("1", "1", "value"), ("2", "2", "value"), ("3", "3", "value")]),  # spaced list
    ("5 - 3 = 2", [("5", "5", "value"), ("3", "3", "value"), ("2", "2", "value")]),  # binary minus
    ("5-3", [("5", "5", "value"), ("3", "3", "value")]),  # a dash between digits is no sign
    ("12cm", [("12", "12", "value")]),  # a unit glued to the number
    ("5m long", [("5", "5", "value")]),  # a bare m is metres, not million
    ("the answer\u20145", [("5", "5", "value")]),  # an em dash as punctuation is no minus
    ("costs\u2014$5", [("$5", "5", "value")]),  # ... and does not hide the currency
    ("30^\\circ", [("30", "30", "value")]),  # degrees
    # --- number rows of tests/math/test_extract.py (NORMALIZED) ---
    ("30\u00b0", [("30", "30", "value")]),  # Unicode degree sign
    ("5\\text{ cm}^2", [("5", "5", "value")]),  # units in \text with a power
    ("\u22125 \u2013 2", [("\u22125", "-5", "value"), ("2", "2", "value")]),  # minus, en dash
    ("(5,100)", [("(5,100)", "-5100", "value")]),  # a point reads as an accounting negative:
    # math parses its brackets before any number is read (normalize keeps the comma there)
    # --- number words ---
    ("I have no one to ask", [("one", "1", "value")]),  # words are read; locate ignores "one"
    ("There are two segments.", [("two", "2", "value")]),  # TAT-QA count answer
    ("a hundred and one", [("a hundred and one", "101", "value")]),  # "a" before a scale
    ("five three", [("five", "5", "value"), ("three", "3", "value")]),  # two numbers
    ("thousand thousand", []),  # scales alone are no number
    ("ninety-nine bottles", [("ninety-nine", "99", "value")]),  # hyphenated tens
    ("twenty ten", [("twenty", "20", "value"), ("ten", "10", "value")]),  # not 30
    # --- scientific and fractions in text ---
    ("k = 1.2e-3 per s", [("1.2e-3", "0.0012", "value")]),  # e notation
    ("about 3/4 of it", [("3/4", "0.75", "value")]),  # fraction
    # --- a decimal comma before a currency written after the figure (agent round 3) ---
    ("Refund: 133,50 $.", [("133,50", "133.50", "value")]),  # French order, dollars
    ("1 234,50 $", [("1 234,50", "1234.50", "value")]),  # space-grouped thousands
    ("1 234,50 USD", [("1 234,50 USD", "1234.50", "value")]),  # an ISO code after it
    ("3,50 dollars", [("3,50 dollars", "3.50", "value")]),  # the word
    ("the roots are $1,2$", []),  # a $ glued to the digits closes LaTeX math: still a list
    ("1,234 $", [("1,234", "1234", "value")]),  # a comma before three digits is thousands
    ("is 1 234,50", [("1", "1", "value")]),  # no currency after: no space grouping
    # --- cents ---
    (
        "It costs four hundred twelve dollars and fifty cents.",  # a cheque amount
        [("four hundred twelve dollars and fifty cents", "412.50", "value")],
    ),
]


@pytest.mark.parametrize(("text", "expected"), SCANS, ids=[s[0][:40] for s in SCANS])
def test_scan(text: str, expected: list[tuple[str, str, str]]) -> None:
    got = [(f.text, f.value, f.role) for f in find_numbers(text)]
    assert got == [(t, Decimal(v), r) for t, v, r in expected]


def test_positions_index_the_text() -> None:
    text = "Gross profit was $211,374 thousand (revenue of $514,354K)."
    for figure in find_numbers(text):
        assert text[figure.start : figure.end] == figure.text


def test_values_leave_out_years_and_dates() -> None:
    scan = scan_numbers("At December 31, 2024, in fiscal 2024, it was 5.")
    assert [f.text for f in scan.values()] == ["5"]
    assert [f.is_year for f in scan.figures] == [False, False, True, False]


def test_in_math_is_marked() -> None:
    figures = find_numbers("It costs $5, and $x = 7$.")
    assert [(f.text, f.in_math, f.currency) for f in figures] == [
        ("$5", False, "USD"),
        ("7", True, None),
    ]


def test_oversized_numbers_are_reported_not_read() -> None:
    scan = scan_numbers("The answer is " + "9" * 500 + " or 7.")
    assert [f.text for f in scan.figures] == ["7"]
    assert len(scan.oversized) == 1 and "digits" in scan.oversized[0].reason
