"""What counts as agreement, false positive and false negative; reading labelled fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_verifiers import ExactVerifier

from assay.errors import InputError
from assay.evaluation.cases import LabelledCase, load_cases
from assay.evaluation.metrics import Outcome, compute_metrics, percentile
from assay.evaluation.run import Evaluator, select_entries
from assay.registry import Registry
from assay.types import Result, Status, Verdict


def _case(expected: str, score: float | None = None, category: str = "") -> LabelledCase:
    return LabelledCase("c", Status(expected), score, category, {"id": "c"})


def _result(status: str, score: float, elapsed_ms: float = 1.0) -> Result:
    return Result("c", "d", Verdict(Status(status), score), "d@1", elapsed_ms)


# label, expected score, got status, got score, agrees, false positive, false negative
CLASSIFICATION = [
    # the plain hit
    ("correct", None, "correct", 1.0, True, False, False),
    # gold answer refused: a false negative
    ("correct", None, "incorrect", 0.0, False, False, True),
    # gold answer half-credited is still a false negative (full credit was due)
    ("correct", None, "partial", 0.5, False, False, True),
    # gold answer lost to a timeout: infrastructure, but credit withheld all the same
    ("correct", None, "timeout", 0.0, False, False, True),
    # known-bad answer credited: the false positive a trainer learns from
    ("incorrect", None, "correct", 1.0, False, True, False),
    # known-bad answer given partial credit is a false positive too
    ("incorrect", None, "partial", 0.3, False, True, False),
    # wrong status but no credit: disagreement only
    ("incorrect", None, "unparsable", 0.0, False, False, False),
    # partial label, full credit: over-credit counts as a false positive
    ("partial", 0.5, "correct", 1.0, False, True, False),
    # partial label, the pinned score: agreement
    ("partial", 0.5, "partial", 0.5, True, False, False),
    # partial label, another partial score: no FP/FN, but not agreement either
    ("partial", 0.5, "partial", 0.75, False, False, False),
    # partial label, nothing: a false negative
    ("partial", 0.5, "incorrect", 0.0, False, False, True),
    # malformed task labelled error and got error
    ("error", 0.0, "error", 0.0, True, False, False),
]


@pytest.mark.parametrize(
    ("label", "pinned", "status", "score", "agrees", "fp", "fn"),
    CLASSIFICATION,
    ids=[f"{c[0]}-got-{c[2]}-{c[3]}" for c in CLASSIFICATION],
)
def test_classification(  # noqa: PLR0917 - one column of the table each
    label: str,
    pinned: float | None,
    status: str,
    score: float,
    agrees: bool,
    fp: bool,
    fn: bool,
) -> None:
    outcome = Outcome(_case(label, pinned), _result(status, score))
    assert (outcome.agrees, outcome.false_positive, outcome.false_negative) == (agrees, fp, fn)


def test_metrics_rates_counts_and_latency() -> None:
    outcomes = [
        Outcome(_case("correct"), _result("correct", 1.0, 1.0)),
        Outcome(_case("correct"), _result("incorrect", 0.0, 2.0)),
        Outcome(_case("incorrect", category="hostile"), _result("correct", 1.0, 3.0)),
        Outcome(_case("incorrect"), _result("incorrect", 0.0, 4.0)),
        Outcome(_case("unparsable"), _result("unparsable", 0.0, 100.0)),
    ]
    m = compute_metrics(outcomes)
    assert (m.cases, m.agreement) == (5, 3 / 5)
    assert (m.false_positives, m.false_positive_rate) == (1, 1 / 3)  # 3 labelled not correct
    assert (m.false_negatives, m.false_negative_rate) == (1, 1 / 2)  # 2 labelled correct
    assert (m.hostile_cases, m.hostile_false_positives) == (1, 1)
    assert m.status_counts == {
        "correct": 2,
        "partial": 0,
        "incorrect": 2,
        "unparsable": 1,
        "timeout": 0,
        "error": 0,
    }
    assert m.confusion["incorrect"]["correct"] == 1
    assert m.latency_p50_ms == 3.0
    assert m.latency_p95_ms == pytest.approx(4.0 + 0.8 * 96.0)


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [([], 50, 0.0), ([5.0], 95, 5.0), ([1.0, 2.0, 3.0, 4.0], 50, 2.5), ([0.0, 10.0], 95, 9.5)],
)
def test_percentile(values: list[float], q: float, expected: float) -> None:
    assert percentile(values, q) == pytest.approx(expected)


GOOD = '{"id": "a", "response": "x", "reference": "y", "meta": {"expected_status": "correct"}}'
BAD_FIXTURES = [
    # not JSON at all
    ("{nope", ":1: not JSON"),
    # a JSON array is not a record
    ("[1, 2]", "must be a JSON object"),
    # no label
    ('{"id": "a", "response": "x", "reference": "y"}', "needs a string 'id' and a 'meta'"),
    # a label that is not a status
    (
        '{"id": "a", "response": "x", "meta": {"expected_status": "right"}}',
        "expected_status must be one of",
    ),
    # a pinned score that is not a number
    (
        '{"id": "a", "meta": {"expected_status": "partial", "expected_score": "half"}}',
        "expected_score must be a number",
    ),
    # a score range must be [low, high] inside [0, 1], and not given beside a pinned score
    (
        '{"id": "a", "meta": {"expected_status": "partial", "expected_score_range": [0.6, 0.4]}}',
        "expected_score_range must be .low, high. with 0 <= low <= high <= 1",
    ),
    (
        '{"id": "a", "meta": {"expected_status": "partial", "expected_score_range": [0.4]}}',
        "expected_score_range must be .low, high. with 0 <= low <= high <= 1",
    ),
    (
        '{"id": "a", "meta": {"expected_status": "partial", "expected_score_range": [0, 1.5]}}',
        "expected_score_range must be .low, high. with 0 <= low <= high <= 1",
    ),
    (
        '{"id": "a", "meta": {"expected_status": "partial", "expected_score": 0.5,'
        ' "expected_score_range": [0.4, 0.6]}}',
        "not both",
    ),
    # the same id twice would make the baseline ambiguous
    (f"{GOOD}\n{GOOD}", ":2: duplicate case id 'a'"),
]


@pytest.mark.parametrize(
    ("text", "message"),
    BAD_FIXTURES,
    ids=[
        "not-json",
        "array",
        "no-meta",
        "bad-label",
        "bad-score",
        "range-reversed",
        "range-short",
        "range-above-1",
        "range-and-score",
        "dup",
    ],
)
def test_bad_fixture_files_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_cases(path, "d")


@pytest.mark.parametrize(
    "separator",
    ["\u2028", "\u2029", "\x85"],
    ids=["line-separator", "paragraph-separator", "next-line"],
)
def test_a_response_with_a_unicode_line_break_is_one_case(tmp_path: Path, separator: str) -> None:
    # json.dumps(..., ensure_ascii=False) writes these raw; only "\n" ends a JSONL line
    row = {"id": "a", "response": f"x{separator}y", "meta": {"expected_status": "incorrect"}}
    path = tmp_path / "cases.jsonl"
    path.write_text(
        json.dumps(row, ensure_ascii=False) + "\r\n" + GOOD.replace('"a"', '"b"'), encoding="utf-8"
    )
    first, second = load_cases(path, "d")
    assert first.row["response"] == f"x{separator}y" and second.id == "b"


def test_cases_are_routed_to_their_verifier(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(GOOD.replace('"id"', '"domain": "other", "id"') + "\n\n", encoding="utf-8")
    (case,) = load_cases(path, "mine")
    assert case.row["domain"] == "mine"
    assert (case.expected, case.expected_score, case.category) == (Status.CORRECT, None, "")


def test_verifiers_without_a_fixture_file_are_skipped_with_the_reason() -> None:
    class NoFixtures(ExactVerifier):
        name = "no_fixtures"
        fixtures = None

    class MissingFile(ExactVerifier):
        name = "missing_file"
        fixtures = Path("/nonexistent/cases.jsonl")  # e.g. a wheel installed without the repo

    registry = Registry()
    for cls in (NoFixtures, MissingFile):
        registry.register(cls)
    with Evaluator(registry) as evaluator:
        run = evaluator.evaluate(select_entries(registry, None))
    assert run.runs == ()
    assert run.skipped == (
        ("missing_file", "its fixtures '/nonexistent/cases.jsonl' are not there"),
        ("no_fixtures", "declares no fixtures"),
    )


# range, got score, agrees (a partial label and a partial verdict)
RANGES = [
    ((0.6, 0.62), 0.61, True),
    # the bounds are inclusive (within the score tolerance)
    ((0.6, 0.62), 0.6, True),
    ((0.6, 0.62), 0.62 + 5e-7, True),
    # outside on either side
    ((0.6, 0.62), 0.5999, False),
    ((0.6, 0.62), 0.63, False),
]


@pytest.mark.parametrize(("bounds", "score", "agrees"), RANGES)
def test_a_labelled_score_range(bounds: tuple[float, float], score: float, agrees: bool) -> None:
    case = LabelledCase("c", Status.PARTIAL, None, "", {"id": "c"}, bounds)
    assert Outcome(case, _result("partial", score)).agrees is agrees


def test_a_score_range_is_read_from_the_fixture(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    line = (
        '{"id": "a", "meta": {"expected_status": "partial", "expected_score_range": [0.25, 0.5]}}'
    )
    path.write_text(line + "\n", encoding="utf-8")
    (case,) = load_cases(path, "d")
    assert (case.expected_score, case.expected_score_range) == (None, (0.25, 0.5))
