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
