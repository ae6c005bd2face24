"""A refusal that names the year it cannot answer for (round 3 of the out-of-sample cases).

"The document only gives headcount at the end of 2024 (2,015); the 2023 headcount is not
disclosed." refuses an unanswerable question, and was read as answering "2023". The year is a
refusal's label when the clause that holds it refuses and states no other figure; a figure
given and then disowned ("1,870 people in 2023, though this is not disclosed") still answers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer

QUARRY = {"document": "statements/quarry-2024.pdf", "scale": "thousand", "unit": "USD"}
HEADCOUNT = {**QUARRY, "question": "How many people did Quarry employ at the end of 2023?",
             "answerable": False}  # fmt: skip
REVENUE = {**QUARRY, "question": "What was revenue in 2024?", "answer": "185254"}
C, X = "correct", "incorrect"
CASES: list[tuple[str, dict[str, Any], str, str]] = [
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
IDS = [case[0] for case in CASES]


@pytest.fixture(scope="module")
def verdicts() -> Iterator[dict[str, tuple[str, str]]]:
    rows = [
        RawRow(n, {"id": cid, "domain": "finance", "reference": ref, "response": response})
        for n, (cid, ref, response, _) in enumerate(CASES, 1)
    ]
    with Scorer(ScoreOptions(workers=2)) as scorer:
        yield {r.id: (r.status.value, r.verdict.message or "") for r in scorer.score_rows(rows)}


@pytest.mark.parametrize(("cid", "label"), [(c[0], c[3]) for c in CASES], ids=IDS)
def test_the_verdict(verdicts: dict[str, tuple[str, str]], cid: str, label: str) -> None:
    status, message = verdicts[cid]
    assert status == label, message
