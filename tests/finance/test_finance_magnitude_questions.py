"""A question that asks for the negative item itself: its sign is how it is written, not news.

"What was interest expense?" is answered by "$5.8 million" and by the statement's own "$(5.8)
million" (wrong until finance@1.4.1, round 3 of the out-of-sample cases). "Net cash used in"
is not such a question: the fixture set's trap ``qa/negative-dropped`` (asked for by the
finance issue) holds that the outflow given as a positive amount is wrong, so "£26.7 million"
stays wrong there and "-26.7" or "£(26.7) million" is right. A wrong magnitude stays wrong,
and a question about a change keeps its sign.
"""

from __future__ import annotations

import pytest
from finance_cases import ALDER, HARBOR, LUMEN, C, Case, X, labelled
from finance_cases import verdicts as verdicts_of

INTEREST = {**ALDER, "question": "What was interest expense in 2023?", "answer": "5.8"}
USED = {**LUMEN, "question": "What was net cash used in investing activities in 2023?",
        "answer": "-26.7"}  # fmt: skip
CHANGE = {**HARBOR, "question": "By how much did revenue change from 2023 to 2024?",
          "answer": "-24175"}  # fmt: skip
CASES: list[Case] = [
    ("expense-plain", INTEREST, "Interest expense was $5.8 million in 2023.", C),
    ("expense-parens", INTEREST, "Interest expense was $(5.8) million in 2023.", C),
    ("expense-minus", INTEREST, "Interest expense: -5.8", C),
    ("expense-wrong", INTEREST, "Interest expense was $(6.8) million in 2023.", X),
    ("expense-prior-year", INTEREST, "Interest expense was $7.1 million.", X),
    ("used-magnitude", USED, "Net cash used in investing activities was £26.7 million.", X),
    ("used-parens", USED, "Net cash used in investing activities: £(26.7) million", C),
    ("used-minus", USED, "-26.7", C),
    ("used-wrong", USED, "Net cash used in investing activities was £25.7 million.", X),
    ("change-keeps-its-sign", CHANGE, "Revenue increased by $24,175 thousand.", X),
    ("change-right", CHANGE, "Revenue decreased by $24,175 thousand.", C),
]


@pytest.fixture(scope="module")
def verdicts() -> dict[str, tuple[str, str]]:
    return verdicts_of(CASES)


@labelled(CASES)
def test_the_verdict(verdicts: dict[str, tuple[str, str]], cid: str, label: str) -> None:
    status, message = verdicts[cid]
    assert status == label, message
