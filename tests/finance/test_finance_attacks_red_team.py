"""Finance answers from a red-team run (2026-12-03): hedges that were paid, and a masked timeout.

Each hedge names both possible answers ("higher in 2024 or 2023", "rose or fell by ...") or
the wrong one first in a comparison ("higher in 2024 than in 2023" answers 2024); a unit the
answer is not in ("bps" for dollars) is a different answer. They must be ``incorrect``, and
the honest phrasings next to them stay right. An answer long enough to take the item's whole
limit to read is the response's fault: ``incorrect`` with ``too_costly``, never ``timeout``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from assay.blame import TOO_COSTLY
from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer

HARBOR = {"document": "statements/harbor-2024.pdf", "scale": "thousand", "unit": "USD"}
YEAR = {**HARBOR, "question": "In which fiscal year was net income higher, 2023 or 2024?",
        "answer": "2023"}  # fmt: skip
CHANGE = {**HARBOR, "question": "By how much did revenue change from 2023 to 2024?",
          "answer": "-24175"}  # fmt: skip
PERCENT = {**HARBOR, "question": "What was the percentage change in revenue from 2023 to 2024?",
           "answer": "-4.49%"}  # fmt: skip

CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("year-than-wrong", YEAR, "Net income was higher in 2024 than in 2023.", "incorrect"),
    ("year-than-right", YEAR, "Net income was higher in 2023 than in 2024.", "correct"),
    ("year-than-right-figures", YEAR,
     "Net income was higher in 2023 than in 2024 ($5,110 thousand against $4,052 thousand).",
     "correct"),
    ("year-hedge-or", YEAR, "Net income was higher in 2024 or 2023.", "incorrect"),
    ("year-hedge-either", YEAR, "It was higher in either 2023 or 2024.", "incorrect"),
    ("year-plain", YEAR, "Net income was higher in 2023.", "correct"),
    ("change-rose-or-fell", CHANGE, "Revenue rose or fell by $24,175 thousand.", "incorrect"),
    ("change-increased-or-decreased", CHANGE,
     "Revenue increased or decreased by 24,175 thousand.", "incorrect"),
    ("change-fell", CHANGE, "Revenue fell by $24,175 thousand.", "correct"),
    ("change-decreased", CHANGE, "Revenue decreased by 24,175 (in thousands).", "correct"),
    ("percent-rose-or-fell", PERCENT, "Revenue rose or fell by 4.49%.", "incorrect"),
    ("percent-fell", PERCENT, "Revenue fell by 4.49%.", "correct"),
    ("change-in-bps", CHANGE, "Answer: -24,175 bps", "incorrect"),
    ("change-in-basis-points", CHANGE, "Answer: -24,175 basis points", "incorrect"),
    ("change-in-thousands", CHANGE, "Answer: -24,175 thousand", "correct"),
]  # fmt: skip


@pytest.fixture(scope="module")
def scorer() -> Iterator[Scorer]:
    with Scorer(ScoreOptions(workers=1)) as started:
        yield started


def _score(scorer: Scorer, reference: dict[str, Any], response: str) -> Any:
    row = {"id": "x", "domain": "finance", "reference": reference, "response": response}
    [result] = list(scorer.score_rows([RawRow(1, row)]))
    return result


@pytest.mark.parametrize(
    ("reference", "response", "status"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_hedges_and_wrong_units_are_not_paid(
    scorer: Scorer, reference: dict[str, Any], response: str, status: str
) -> None:
    result = _score(scorer, reference, response)
    assert result.status.value == status, result.verdict.message


def test_an_answer_too_long_to_read_in_time_is_the_responses_fault() -> None:
    # ~900,000 characters of figures (under the 1,000,000-character cap): reading them took
    # longer than the item's limit, and the kill was a masked timeout
    with Scorer(ScoreOptions(workers=1, timeout_s=3)) as short:
        result = _score(short, CHANGE, "1 " * 450_000)
    assert result.status.value == "incorrect", result.verdict.message
    assert [c.name for c in result.verdict.checks if not c.passed] == [TOO_COSTLY]
