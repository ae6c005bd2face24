"""The question's own rules: how sign words read, the unit it names, year answers (issue 15).

Each table row is a real phrasing (from FinQA/TAT-QA questions and the finance fixtures).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from assay.domains.finance.task import parse_task
from assay.verifiers.finance import final_answer
from assay.verifiers.finance.answers import (
    answer_amount,
    apply_sign,
    asks_for_year,
    named_scale,
    sign_reading,
)

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "finance"

# (question, reading)
SIGN_READINGS: list[tuple[str, str | None]] = [
    ("what was operating income ( loss ) in 2019 ( in millions ) ?", "signed"),  # FinQA
    ("What was other income (expense), net in 2023?", "signed"),  # an (expense) line
    ("By how much did revenue change from 2023 to 2024?", "signed"),  # a change
    ("What is the difference between 2019 and 2018 revenue?", "signed"),  # a difference
    ("What was the revenue growth in 2019?", "signed"),  # growth
    ("What was the net increase (decrease) in cash?", "signed"),  # net increase
    ("What was the net loss in 2019?", "magnitude"),  # TAT-QA: the loss itself
    ("What were total operating expenses in 2024?", "magnitude"),  # expenses
    ("What was the impairment charge in 2017?", "magnitude"),  # impairment
    ("What was revenue in 2023?", None),  # neither: only written signs count
    ("", None),  # no question
]


@pytest.mark.parametrize(
    ("question", "reading"), SIGN_READINGS, ids=[q[:40] for q, _ in SIGN_READINGS]
)
def test_sign_reading(question: str, reading: str | None) -> None:
    assert sign_reading(question) == reading


# (answer text, question, signed value): the sign rule both ways
SIGNS: list[tuple[str, str, str]] = [
    ("an operating loss of $134 thousand", "What was operating income (loss)?", "-134"),
    ("a loss of 871", "What was the net loss in 2019?", "871"),  # magnitude: the loss itself
    ("Revenue decreased by 24,175", "By how much did revenue change?", "-24175"),
    ("Revenue increased by 67.7", "By how much did revenue change?", "67.7"),  # up keeps +
    ("a decrease of -5", "By how much did cash change?", "-5"),  # written negative already
    ("an expense of 358", "What was other income (expense), net?", "-358"),
    ("income of 367", "What was other income (expense), net?", "367"),
    ("a decrease of 5,127", "What was revenue in 2023?", "5127"),  # no reading: word ignored
]


@pytest.mark.parametrize(("text", "question", "value"), SIGNS, ids=[s[0] for s in SIGNS])
def test_sign_words_apply_as_the_question_reads(text: str, question: str, value: str) -> None:
    amount, hedged = answer_amount(text)
    assert amount is not None and not hedged
    assert apply_sign(amount, sign_reading(question)).value == Decimal(value)


# (question, named scale)
NAMED: list[tuple[str, str | None]] = [
    ("What was net income in 2024, in U.S. dollars?", "unit"),
    ("What was revenue in euros?", "unit"),
    ("What was revenue in US$?", "unit"),
    ("what was the change ( in millions ) ?", "million"),  # FinQA's scale note
    ("What was revenue in thousands of dollars?", "thousand"),  # a scale word wins
    ("What was net income in 2024?", None),
]


@pytest.mark.parametrize(("question", "scale"), NAMED, ids=[q for q, _ in NAMED])
def test_named_scale(question: str, scale: str | None) -> None:
    assert named_scale(question) == scale


# (question, asks for a year)
YEARS: list[tuple[str, bool]] = [
    ("In which fiscal year was net income higher, 2023 or 2024?", True),
    ("Which year had the higher margin?", True),
    ("What year did the company go public?", True),
    ("When did revenue peak?", True),
    ("What was stock-based compensation in 2024?", False),  # a year in a numeric question
    ("How many people did Harbor employ at the end of 2024?", False),
]


@pytest.mark.parametrize(("question", "year"), YEARS, ids=[q for q, _ in YEARS])
def test_asks_for_year(question: str, year: bool) -> None:
    assert asks_for_year(question) is year


# (answer, question, answer_type given): whether a bare four-digit answer is a year (text)
FOUR_DIGITS: list[tuple[str, str, bool]] = [
    ("2023", "In which fiscal year was net income higher, 2023 or 2024?", True),
    ("1500", "What was stock-based compensation in 2024?", False),  # 1500 thousand dollars
    ("1993", "What was stock-based compensation in 2024?", False),  # year-like, still a number
    ("2011", "How many people did Harbor employ at the end of 2024?", False),
]


@pytest.mark.parametrize(
    ("answer", "question", "text"), FOUR_DIGITS, ids=[f[0] for f in FOUR_DIGITS]
)
def test_bare_four_digit_answer_is_text_only_as_a_year(
    answer: str, question: str, text: bool
) -> None:
    reference = {
        "document": "statements/harbor-2024.pdf",
        "scale": "thousand",
        "unit": "USD",
        "question": question,
        "answer": answer,
    }
    task = parse_task(reference, (ROOT,))
    assert (task.text_answers == (answer,)) is text
    assert (task.answer is None) is text


# (response, options, final answer text): the task-aware preferences of the finder
FINDER: list[tuple[str, dict[str, bool], str]] = [
    (
        "Operating income peaked in 2023 at €99,282 thousand, before falling to €83,023 thousand "
        "in 2024.",
        {"year_answer": True},
        "2023",
    ),  # the year of the main clause
    ("Net income was higher in 2023 ($66,246K vs $58,926K).", {"year_answer": True}, "2023"),
    ("No, net income fell from $212.4 million to $57.9 million.", {"yes_no": True}, "no"),
    ("Yes.", {"yes_no": True}, "yes"),  # an opening Yes, normalized
    (
        "Receivables went from $28,171K to $23,390K, a drop of $4,781 thousand.",
        {"change": True},
        "$4,781 thousand",
    ),  # the cued change figure
    (
        "Receivables went from $28,171K to $23,390K, a drop of $4,781 thousand.",
        {},
        "$23,390K",
    ),  # not a change question: the main clause's level
    ("Answer: $23,390K", {"change": True}, "$23,390K"),  # a marked answer is never overridden
]


@pytest.mark.parametrize(("response", "options", "text"), FINDER, ids=[f[0][:40] for f in FINDER])
def test_final_answer_prefers_what_the_task_asks(
    response: str, options: dict[str, bool], text: str
) -> None:
    found = final_answer(response, **options)
    assert found is not None and found.text == text


def test_a_worked_line_answers_after_its_last_equals() -> None:
    amount, _ = answer_amount("514,354 - 538,529 = -24,175")
    assert amount is not None and amount.value == Decimal("-24175")
