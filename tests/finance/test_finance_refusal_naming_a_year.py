"""A refusal that names the year it cannot answer for (round 3 of the out-of-sample cases).

"The document only gives headcount at the end of 2024 (2,015); the 2023 headcount is not
disclosed." refuses an unanswerable question, and was read as answering "2023". The year is a
refusal's label when the clause that holds it refuses and states no other figure; a figure
given and then disowned ("1,870 people in 2023, though this is not disclosed") still answers.
"""

from __future__ import annotations

import pytest
from finance_cases import QUARRY, C, Case, X, labelled
from finance_cases import verdicts as verdicts_of

HEADCOUNT = {**QUARRY, "question": "How many people did Quarry employ at the end of 2023?",
             "answerable": False}  # fmt: skip
REVENUE = {**QUARRY, "question": "What was revenue in 2024?", "answer": "185254"}
CASES: list[Case] = [
    (
        "names-the-year",
        HEADCOUNT,
        "The document only gives headcount at the end of 2024 "
        "(2,015); the 2023 headcount is not disclosed.",
        C,
    ),
    ("year-first", HEADCOUNT, "Headcount for 2023 is not given in the statements.", C),
    ("plain-refusal", HEADCOUNT, "The statements do not disclose headcount.", C),
    (
        "figure-then-disowned",
        HEADCOUNT,
        "Quarry employed 1,870 people in 2023, though this is not disclosed.",
        X,
    ),
    ("figure-in-parentheses", HEADCOUNT, "Quarry had 1,870 employees in 2023 (not disclosed).", X),
    (
        "figure-then-refusal-clause",
        HEADCOUNT,
        "In 2023 it employed 1,870 people; the figure is not disclosed.",
        X,
    ),
    ("answers-a-figure", HEADCOUNT, "Quarry employed 1,870 people at the end of 2023.", X),
    ("answerable-refused-naming-year", REVENUE, "The 2024 revenue is not disclosed.", X),
]


@pytest.fixture(scope="module")
def verdicts() -> dict[str, tuple[str, str]]:
    return verdicts_of(CASES)


@labelled(CASES)
def test_the_verdict(verdicts: dict[str, tuple[str, str]], cid: str, label: str) -> None:
    status, message = verdicts[cid]
    assert status == label, message
