"""Math answers written with vulgar fractions, mixed numbers and decimal commas (issue 15)."""

from __future__ import annotations

import pytest
from assay.domains.math import MathVerifier

from assay.types import Record, Status


@pytest.fixture(scope="module")
def verifier() -> MathVerifier:
    instance = MathVerifier()
    instance.setup()
    return instance


# (response, gold, status)
CASES: list[tuple[str, str, Status]] = [
    ("The answer is ½.", "\\frac{1}{2}", Status.CORRECT),  # a vulgar fraction
    ("#### 2¾", "11/4", Status.CORRECT),  # a whole glued to a vulgar fraction
    ("It takes 2 1/2 hours.\n#### 2 1/2", "2.5", Status.CORRECT),  # a mixed number
    ("#### 1 1/2", "\\frac{3}{2}", Status.CORRECT),  # a mixed number against LaTeX
    ("#### 1 1/2", "\\frac{1}{2}", Status.INCORRECT),  # the whole part counts
    ("#### -1 1/2", "-\\frac{3}{2}", Status.CORRECT),  # the sign covers the whole number
    ("Final answer: 12,5 %", "12.5\\%", Status.CORRECT),  # comma decimal before a percent
    ("Final answer: 1.234,5", "1234.5", Status.CORRECT),  # dot grouping, comma decimal
    ("Final answer: 1,234", "1234", Status.CORRECT),  # a comma before three digits: thousands
    ("Final answer: 1,234", "1.234", Status.INCORRECT),  # never a decimal comma
    ("Final answer: 3,5", "3.5", Status.INCORRECT),  # a bare 3,5 is the list 3, 5
]


@pytest.mark.parametrize(("response", "gold", "status"), CASES, ids=[c[0] for c in CASES])
def test_reader_gaps(verifier: MathVerifier, response: str, gold: str, status: Status) -> None:
    record = Record(id="t", domain="math", response=response, reference={"answer": gold})
    verdict = verifier.verify(record)
    assert verdict.status is status, verdict.message
