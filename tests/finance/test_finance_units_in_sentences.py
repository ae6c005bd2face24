"""A unit written after the answer's figure in a sentence: basis points and cents.

Round 3 of the out-of-sample finance cases found that the unit counted only in a marked
answer ("Answer: -449 bps"): in a sentence ("Revenue grew by 1,440 bps year over year.") the
answer's span was the figure alone, so a right answer in basis points or cents was wrong, and
"Revenue decreased by 24,175 bps." was paid as -$24,175 thousand (docs/finance.md said that
false credit was closed: only the marked form was). Each row: honest forms stay right, the
wrong unit or scale stays wrong, in both the marked and the sentence form.
"""

from __future__ import annotations

import pytest
from finance_cases import ALDER, HARBOR, C, Case, X, labelled
from finance_cases import verdicts as verdicts_of

GROWTH = {**ALDER, "question": "By what percentage did revenue grow from 2022 to 2023?",
          "answer": "14.4%"}  # fmt: skip
EPS = {**ALDER, "question": "What was basic earnings per share in 2023?", "answer": "0.27"}
CHANGE = {**HARBOR, "question": "By how much did revenue change from 2023 to 2024?",
          "answer": "-24175"}  # fmt: skip
PERCENT = {**HARBOR, "question": "What was the percentage change in revenue from 2023 to 2024?",
           "answer": "-4.49%"}  # fmt: skip

CASES: list[Case] = [
    # basis points on a percentage question
    ("bps-sentence", GROWTH, "Revenue grew by 1,440 bps year over year.", C),
    ("bps-glued", GROWTH, "Revenue grew 1,440bps.", C),
    ("bps-words", GROWTH, "Growth was 1,440 basis points.", C),
    ("bp-sentence", GROWTH, "That is an increase of 1440 bp.", C),
    ("bps-marked", GROWTH, "Answer: 1,440 bps", C),
    ("bps-percent-form", GROWTH, "Revenue grew by 14.4% year over year.", C),
    ("bps-hundredfold-off", GROWTH, "Revenue grew by 14.4 bps.", X),
    ("bps-fell-docs", PERCENT, "Revenue fell by 449 bps.", C),
    ("bps-fell-wrong-sign", PERCENT, "Revenue rose by 449 bps.", X),
    ("bps-fell-marked", PERCENT, "Answer: -449 bps", C),
    # basis points on an amount question: the wrong unit
    ("bps-amount-sentence", CHANGE, "Revenue decreased by 24,175 bps.", X),
    ("bps-amount-marked", CHANGE, "Answer: -24,175 bps", X),
    ("amount-sentence", CHANGE, "Revenue decreased by $24,175 thousand.", C),
    # cents
    ("cents-sentence", EPS, "Basic EPS for 2023 was 27 cents.", C),
    ("cents-sign", EPS, "Basic earnings per share were 27¢ in 2023.", C),
    ("cents-marked", EPS, "Answer: 27 cents", C),
    ("dollars-form", EPS, "Basic EPS for 2023 was $0.27.", C),
    ("cents-as-dollars", EPS, "Basic EPS for 2023 was $27.", X),
    ("cents-wrong-figure", EPS, "Basic EPS for 2023 was 85 cents.", X),
    ("centsless-word", EPS, "Basic EPS for 2023 was 27 centimes.", X),
]


@pytest.fixture(scope="module")
def verdicts() -> dict[str, tuple[str, str]]:
    return verdicts_of(CASES)


@labelled(CASES)
def test_the_unit_after_the_figure_counts(
    verdicts: dict[str, tuple[str, str]], cid: str, label: str
) -> None:
    status, message = verdicts[cid]
    assert status == label, message
