"""Reading amounts and comparing them with labelled figures at the reported precision."""

from __future__ import annotations

from decimal import Decimal

import pytest
from assay.verifiers.finance import (
    answer_amount,
    compare,
    final_answer,
    find_amounts,
    is_refusal,
    normalize_text,
    parse_amount,
    read_figure,
)
from assay.verifiers.finance.numbers import scale_of_label

READINGS = [
    # (text, value, decimals, scale, currency, percent)
    ("(1,250)", "-1250", 0, None, None, False),  # accounting parentheses
    ("−5", "-5", 0, None, None, False),  # U+2212 minus sign
    ("–1,636", "-1636", 0, None, None, False),  # en dash, as one fixture filing prints negatives
    ("-(5)", "-5", 0, None, None, False),  # minus and parentheses: still negative five
    ("$(1,250)", "-1250", 0, None, "USD", False),  # currency outside the parentheses
    ("$-5", "-5", 0, None, "USD", False),  # minus after the currency symbol
    ("−$4.2 million", "-4.2", 1, "million", "USD", False),  # sign, symbol, scale word
    ("1.2 million", "1.2", 1, "million", None, False),  # scale word, precision kept
    ("$3bn", "3", 0, "billion", "USD", False),  # short scale, no space
    ("450k", "450", 0, "thousand", None, False),
    ("$1.2MM", "1.2", 1, "million", "USD", False),  # banker's MM
    ("14.1%", "14.1", 1, None, None, True),
    ("14.1 percent", "14.1", 1, None, None, True),
    ("USD 1,250", "1250", 0, None, "USD", False),  # currency code before
    ("1,250 EUR", "1250", 0, None, "EUR", False),  # currency code after
    ("€81.416 million", "81.416", 3, "million", "EUR", False),
    ("0.14136", "0.14136", 5, None, None, False),  # FinQA-style five decimals
    ("1,250.50", "1250.50", 2, None, None, False),  # trailing zero is reported precision
    ("five million", "5000000", 0, None, None, False),  # number words (the shared reader)
    ("413,271m", "413271", 0, "million", None, False),  # finance: a glued m is millions
    ("3.2bn", "3.2", 1, "billion", None, False),
]


@pytest.mark.parametrize("reading", READINGS, ids=[r[0] for r in READINGS])
def test_parse_amount(reading: tuple[str, str, int, str | None, str | None, bool]) -> None:
    text, value, decimals, scale, currency, percent = reading
    amount = parse_amount(text)
    assert amount is not None
    assert (amount.value, amount.decimals, amount.scale, amount.currency, amount.percent) == (
        Decimal(value),
        decimals,
        scale,
        currency,
        percent,
    )


NOT_AMOUNTS = [
    "(see note 5",  # an open parenthesis is not a negative figure
    "1,25",  # a decimal comma is not a thousands separator
    "FY2024",  # glued to letters
]


@pytest.mark.parametrize("text", NOT_AMOUNTS, ids=NOT_AMOUNTS)
def test_not_an_amount(text: str) -> None:
    assert parse_amount(text) is None


def test_years_are_flagged_not_dropped() -> None:
    found = find_amounts("In fiscal 2024 revenue rose 12.5% to $5,432 thousand from 2023.")
    assert [(str(a.value), a.is_year_like) for a in found] == [
        ("2024", True),
        ("12.5", False),
        ("5432", False),
        ("2023", True),
    ]


COMPARISONS = [
    # (answer, figure spec, defaults (scale, unit), matches)
    ("1,250", {"value": 1250}, ("thousand", "USD"), True),  # bare: in the reporting scale
    ("1250000", {"value": 1250}, ("thousand", "USD"), True),  # bare: a whole amount
    ("$1.25 million", {"value": 1250}, ("thousand", "USD"), True),
    ("$1.3 million", {"value": 1250}, ("thousand", "USD"), False),  # coarser than reported
    ("1,250 million", {"value": 1250}, ("thousand", "USD"), False),  # wrong scale word
    ("€1,250", {"value": 1250}, ("thousand", "USD"), False),  # wrong currency
    ("1,250.4", {"value": 1250}, ("thousand", "USD"), True),  # within half a reported unit
    ("1,250.6", {"value": 1250}, ("thousand", "USD"), False),  # beyond it
    ("0.1", "0.14136", ("unit", ""), False),  # the truncation loophole
    ("0.14", "0.14136", ("unit", ""), False),  # rounding to the answer's precision: no
    ("0.141360", "0.14136", ("unit", ""), True),  # more digits are fine
    ("14.136%", "0.14136", ("unit", ""), True),  # explicit percent is just notation
    ("14.136", "0.14136", ("unit", ""), False),  # no x100 unless the question is a percentage
    ("14.1", "14.1%", ("unit", ""), True),  # percentage question: points
    ("0.141", "14.1%", ("unit", ""), True),  # percentage question: fraction
    ("14%", "14.1%", ("unit", ""), False),
    ("14.14%", "14.1%", ("unit", ""), True),  # within 0.05 points of a one-decimal label
    ("4.2", "−4.2", ("unit", ""), False),  # a dropped Unicode minus
    ("(4.2)", "-4.2", ("unit", ""), True),
    ("$0.62", {"value": "0.62", "scale": "unit"}, ("thousand", "USD"), True),  # per share
    ("62%", {"value": "0.62", "scale": "unit"}, ("thousand", "USD"), False),  # money vs percent
    ("2.5", {"value": "2.50", "unit": "ratio"}, ("thousand", "USD"), True),  # ratios unscaled
]


@pytest.mark.parametrize(
    ("answer", "spec", "defaults", "matches"),
    COMPARISONS,
    ids=[f"{c[0]}~{c[1]}" for c in COMPARISONS],
)
def test_compare(answer: str, spec: object, defaults: tuple[str, str], matches: bool) -> None:
    amount = parse_amount(answer)
    assert amount is not None
    figure = read_figure(spec, *defaults)
    assert compare(amount, figure).matched is matches


def test_figure_precision_from_decimals_key() -> None:
    figure = read_figure({"value": 14.1, "unit": "percent", "decimals": 2})
    assert figure.tolerance == Decimal("0.00005")


@pytest.mark.parametrize(
    "spec", [None, True, "abc", float("nan"), {"value": 1, "decimals": -1}], ids=repr
)
def test_bad_figures_raise(spec: object) -> None:
    with pytest.raises(ValueError):
        read_figure(spec)


FINAL_ANSWERS = [
    # (response, span, method)
    ('Reasoning...\n{"answer": "$5.2 million", "page": 3}', "$5.2 million", "json"),
    ("so \\boxed{0.1414}", "0.1414", "boxed"),
    ("Revenue grew.\nFinal answer: 12.5%", "12.5%", "marker"),
    ("#### 42", "42", "marker"),
    ("In 2024 the company earned 5,432 in 2023 dollars", "5,432", "last_figure"),
    ("Nothing to see here.", None, None),
]


@pytest.mark.parametrize(
    ("response", "span", "method"), FINAL_ANSWERS, ids=[f[2] or "none" for f in FINAL_ANSWERS]
)
def test_final_answer(response: str, span: str | None, method: str | None) -> None:
    found = final_answer(response)
    got = (found.text, found.method) if found else (None, None)
    assert got == (span, method)


def test_answer_amount_skips_years_and_flags_hedges() -> None:
    amount, hedged = answer_amount("In fiscal 2024 it was $5,432 thousand")
    assert amount is not None and amount.value == 5432 and not hedged
    _, hedged = answer_amount("5,432 or 5,433")
    assert hedged


REFUSALS = [
    ("The filing does not disclose this figure; it is not disclosed.", True),
    ("This cannot be determined from the statements.", True),
    ("N/A", True),
    ("Net income was 5,432.", False),
    ("Revenue is not the same as cash received.", False),
]


@pytest.mark.parametrize(("text", "refuses"), REFUSALS, ids=[r[0][:30] for r in REFUSALS])
def test_refusals(text: str, refuses: bool) -> None:
    assert is_refusal(text) is refuses


def test_normalize_text() -> None:
    assert normalize_text("  The Fiscal-Year 2024! ") == normalize_text("fiscal-year 2024")


LABELS = [
    ("thousand", "thousand"),
    ("in millions", "million"),  # a header phrase
    ("USD bn", "billion"),
    ("thousands of dollars", "thousand"),
    ("units", "unit"),
    ("crore", None),  # unknown: the value becomes unreadable, never a guess
    ("in millions or billions", None),  # two scales: ambiguous
]


@pytest.mark.parametrize(("label", "scale"), LABELS, ids=[lab[0] for lab in LABELS])
def test_scale_of_label(label: str, scale: str | None) -> None:
    assert scale_of_label(label) == scale


def test_answer_span_header_sets_the_scale() -> None:
    amount, _ = answer_amount("-24.175 (in millions)")
    assert amount is not None and amount.scale == "million"
    amount, _ = answer_amount("4.49% (in thousands of rows)")  # a percentage keeps no scale
    assert amount is not None and amount.scale is None
