"""Math answers from a red-team run (2026-12-03), in ``red_team_2026_12_03.json``.

- ``masked``: answers whose form made the checker raise (a matrix power or product, an
  interval with an end that is not real, a set such as ``\\mathbb{R}`` on one side of a
  relation): the item was a masked ``error``. The response caused it, so it must be judged:
  ``correct`` when it is right, else ``incorrect`` or ``unparsable``, never ``error``.
- ``false_credit``: wrong answers that were paid. The ones tested here read words after a
  number as a unit ("5 \\text{ is not correct the answer is 7}", "10 squared", "5 thousand")
  or added numbers a space separates ("\\boxed{7 2}" for 9); the others are left as found
  (docs/math.md, "Known gaps").
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer

DATA = json.loads((Path(__file__).parent / "red_team_2026_12_03.json").read_text())
MASKED: list[dict[str, Any]] = DATA["masked"]
WORDS_AS_UNITS = [c for c in DATA["false_credit"] if c["response"].startswith("$\\boxed{")
                  and any(w in c["response"] for w in ("text{", " is ", " plus ", " squared",
                                                         " to the power", " thousand"))]  # fmt: skip
SPACED = [c for c in DATA["false_credit"] if c["response"] in ("\\boxed{7 2}", "\\boxed{12 34}")]


@pytest.fixture(scope="module")
def scorer() -> Iterator[Scorer]:
    with Scorer(ScoreOptions(workers=1)) as started:
        yield started


def _status(scorer: Scorer, case: dict[str, Any]) -> tuple[str, str]:
    row = {"id": "x", "domain": "math", "reference": case["reference"],
           "response": case["response"]}  # fmt: skip
    [result] = list(scorer.score_rows([RawRow(1, row)]))
    return result.status.value, result.verdict.message or ""


def test_the_tables_hold_what_they_say() -> None:
    assert len(MASKED) == 21 and len(WORDS_AS_UNITS) == 9 and len(SPACED) == 2


@pytest.mark.parametrize("case", MASKED, ids=[c["response"][:40] for c in MASKED])
def test_an_answer_the_checker_cannot_read_is_judged_not_masked(
    scorer: Scorer, case: dict[str, Any]
) -> None:
    status, message = _status(scorer, case)
    assert status not in ("error", "timeout"), message


HONEST_MATRICES = [
    ({"answer": "\\begin{pmatrix}2&1\\\\1&1\\end{pmatrix}"},
     "$\\boxed{\\begin{pmatrix}1&1\\\\1&0\\end{pmatrix}^{2}}$"),
    ({"answer": "\\begin{pmatrix}1&-1\\\\-1&2\\end{pmatrix}"},
     "$\\boxed{\\begin{pmatrix}2&1\\\\1&1\\end{pmatrix}^{-1}}$"),
    ({"answer": "\\begin{pmatrix}t\\\\2t\\end{pmatrix}"},
     "$\\boxed{t\\begin{pmatrix}1\\\\2\\end{pmatrix}}$"),
]  # fmt: skip


@pytest.mark.parametrize(("reference", "response"), HONEST_MATRICES)
def test_a_right_answer_written_as_a_matrix_expression_is_right(
    scorer: Scorer, reference: dict[str, Any], response: str
) -> None:
    status, message = _status(scorer, {"reference": reference, "response": response})
    assert status == "correct", message


@pytest.mark.parametrize(
    "case", [*WORDS_AS_UNITS, *SPACED], ids=[c["response"][:40] for c in [*WORDS_AS_UNITS, *SPACED]]
)
def test_words_or_numbers_after_the_answer_are_not_dropped(
    scorer: Scorer, case: dict[str, Any]
) -> None:
    status, message = _status(scorer, case)
    assert status != "correct", message
