"""The Python API: batches, single items, threads, datasets."""

from __future__ import annotations

import threading

import datasets

import assay
from assay.types import Result, Status


def test_score_list_of_dicts_keeps_order() -> None:
    rows = [
        {
            "id": str(i),
            "domain": "math",
            "response": f"\\boxed{{{i}}}",
            "reference": {"answer": "3"},
        }
        for i in range(6)
    ]
    results = assay.score(rows, workers=2)
    assert [r.id for r in results] == [str(i) for i in range(6)]
    assert [r.status for r in results].count(Status.CORRECT) == 1


def test_score_a_dataset_object() -> None:
    dataset = datasets.Dataset.from_list(
        [{"id": "a", "domain": "math", "response": "#### 7", "reference": "7"}]
    )
    (result,) = assay.score(dataset, workers=1)
    assert result.status is Status.CORRECT


def test_verify_from_many_threads() -> None:
    """The shared warm worker serves concurrent callers (a trainer's reward threads)."""
    out: dict[int, Result] = {}

    def work(i: int) -> None:
        out[i] = assay.verify("math", f"The answer is {i}.", {"answer": str(i % 2)}, id=str(i))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(out) == list(range(6))
    assert [out[i].status for i in range(2)] == [Status.CORRECT, Status.CORRECT]
    assert out[2].status is Status.INCORRECT


def test_pathological_answer_is_the_responses_fault_in_a_thread() -> None:
    """A tower of powers called from a thread: `incorrect` with `too_costly`, not a masked
    `timeout` (a hang from a thread is killed by the hard limit: tests/test_runner.py)."""
    out: list[Result] = []

    def work() -> None:
        tower = "\\boxed{2^{2^{2^{2^{2^{2^{2^{2}}}}}}}}"
        out.append(assay.verify("math", tower, {"answer": "4"}, timeout_s=2.0))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(timeout=120)
    assert out and out[0].status is Status.INCORRECT
    assert [c.name for c in out[0].verdict.checks if not c.passed] == ["too_costly"]
