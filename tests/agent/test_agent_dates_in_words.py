"""A date fact stated with its month in words (round 3 of the out-of-sample agent cases).

"Monday, March 10, 2025" stated the fact 2025-03-10 and was read as not stating it. Dates with
the month in words are read as ISO dates; dates in digits alone stay as written (03/10/2025
is March or October), and so does a month without a day or a day that no month has.
"""

from __future__ import annotations

import pytest
from assay.verifiers.agent.facts import canonical_text

CASES = [
    ("Monday, March 10, 2025 at 09:15", "Monday, 2025-03-10 at 09:15"),
    ("on March 10th, 2025", "on 2025-03-10"),
    ("Mar. 10 2025", "2025-03-10"),
    ("10 March 2025", "2025-03-10"),
    ("the 10th of March, 2025", "the 2025-03-10"),
    ("SEPT 3, 2024", "2024-09-03"),
    ("3 May 2024.", "2024-05-03."),
    ("May 2024", "May 2024"),  # no day
    ("March 40, 2025", "March 40, 2025"),  # no such day
    ("03/10/2025", "03/10/2025"),  # digits alone are ambiguous
    ("2025-03-10", "2025-03-10"),
    ("It was 1:00 PM on March 3, 2025", "It was 13:00 on 2025-03-03"),
]


@pytest.mark.parametrize(("text", "canonical"), CASES, ids=[c[0] for c in CASES])
def test_dates_in_words_are_iso(text: str, canonical: str) -> None:
    assert canonical_text(text) == canonical
