"""Verdicts keep their invariants; results serialise to the documented output line."""

from __future__ import annotations

import json

import pytest

import assay
from assay.types import Check, Result, Status, StepResult, Verdict


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (1.0, Status.CORRECT),  # full marks
        (0.0, Status.INCORRECT),  # nothing right
        (0.25, Status.PARTIAL),  # anything between is partial credit
    ],
    ids=["one", "zero", "between"],
)
def test_graded_status_follows_score(score: float, expected: Status) -> None:
    assert Verdict.graded(score).status is expected


@pytest.mark.parametrize(
    ("status", "score"),
    [
        (Status.ERROR, 0.5),  # infrastructure failures never carry reward
        (Status.TIMEOUT, 1.0),
        (Status.UNPARSABLE, 0.1),
        (Status.CORRECT, 1.5),  # out of [0, 1]
        (Status.CORRECT, float("nan")),  # NaN would poison a batch mean
    ],
    ids=["error-scored", "timeout-scored", "unparsable-scored", "over-one", "nan"],
)
def test_invalid_verdicts_are_rejected(status: Status, score: float) -> None:
    with pytest.raises(ValueError):
        Verdict(status, score)


def test_infrastructure_statuses_are_masked() -> None:
    masked = {s for s in Status if s.is_infrastructure}
    assert masked == {Status.ERROR, Status.TIMEOUT}


def test_result_round_trips_through_json() -> None:
    verdict = Verdict(
        Status.PARTIAL,
        0.5,
        (Check("tests", False, 0.5, "1 of 2", {"passed": 1}),),
        (StepResult(0, "test[0]", True, 1.0), StepResult(1, "test[1]", False, 0.0, "boom")),
    )
    result = Result("a", "code", verdict, "code@1", 12.5, group="g", meta={"k": 1})
    line = json.loads(json.dumps(result.to_dict()))
    assert set(line) >= {
        "id",
        "domain",
        "status",
        "score",
        "checks",
        "steps",
        "verifier",
        "elapsed_ms",
        "error",
    }
    assert line["error"] is None
    assert Result.from_dict(line) == result


def test_error_line_carries_message() -> None:
    result = Result("a", "math", Verdict.error("boom"), "math@1", 0.0)
    assert result.to_dict()["error"] == "boom"


def test_public_names_match_all() -> None:
    for name in assay.__all__:
        assert getattr(assay, name) is not None
    public = {n for n in dir(assay) if not n.startswith("_")} | {"__version__"}
    assert set(assay.__all__) == public


def test_results_cross_processes_by_pickle_unchanged() -> None:
    """Workers send results to the parent (and Ray actors to the driver) pickled; the state is
    the list of field values, as a slotted dataclass writes it, and stays frozen."""
    import pickle

    from assay.types import Record

    verdict = Verdict.graded(
        0.5,
        checks=(Check("tests", False, 0.5, "1/2 passed", {"failed": ["t2"]}),),
        steps=(StepResult(0, "t1", True, 1.0, "", {"kind": "test"}),),
        message="half",
    )
    record = Record("r1", "code", "def f(): pass", {"tests": "x"}, group="g", meta={"k": 1})
    result = Result("r1", "code", verdict, "code@1", 12.5, "g", {"k": 1})
    for value in (verdict, record, result, *verdict.checks, *verdict.steps):
        state = value.__getstate__()
        assert isinstance(state, list) and len(state) == len(type(value).__slots__)
        again = pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        assert again == value and type(again) is type(value)
        field = next(iter(type(value).__slots__))
        with pytest.raises((AttributeError, TypeError)):  # frozen (3.11 says TypeError there)
            setattr(again, field, None)
        assert getattr(again, field) == getattr(value, field)
