"""assay.testing: the conformance checks catch each way a verifier can break the contract."""

from __future__ import annotations

import pytest
from eval_verifiers import (
    ANSWERS,
    BlamesResponseForReference,
    CrashOnEmpty,
    CreditsLongAnswers,
    ExactVerifier,
    Flaky,
    Lenient,
    TrustsAnyReference,
    fixture_lines,
)

from assay.evaluation.cases import LabelledCase
from assay.registry import list_domains
from assay.testing import Conformance, ConformanceError, sample_cases
from assay.types import Status
from assay.verifier import Verifier


def test_fixture_file_is_generated_from_the_table() -> None:
    # data/answers.jsonl is written by `python tests/eval/eval_verifiers.py`
    assert ANSWERS.read_text(encoding="utf-8").splitlines() == fixture_lines()


@pytest.fixture(scope="module")
def exact() -> Conformance:
    return Conformance(ExactVerifier)  # the fixtures are scored once, shared by the checks


@pytest.mark.parametrize(
    "check",
    [
        "check_gold_scores_correct",
        "check_known_bad_not_correct",
        "check_labels",
        "check_bad_input_typed",
        "check_deterministic",
    ],
)
def test_a_verifier_that_keeps_the_contract_passes(exact: Conformance, check: str) -> None:
    getattr(exact, check)()


BROKEN = [
    # an empty response raises IndexError inside verify: an escaped exception, not a verdict
    (CrashOnEmpty, "check_bad_input_typed", "response:empty: an exception escaped"),
    # ... and the fixture labelled unparsable comes out as error
    (CrashOnEmpty, "check_labels", "exact-006: label unparsable, got error"),
    # a 200,000-character response is credited: a reward hack
    (CreditsLongAnswers, "check_bad_input_typed", "response:huge: got correct"),
    # a reference with no answer is paid as correct, where the contract wants a masked error
    (TrustsAnyReference, "check_bad_input_typed", "reference:empty-object: got correct"),
    (TrustsAnyReference, "check_bad_input_typed", "reference:wrong-type: got correct"),
    # ... or charged to the response as an unmasked 0
    (BlamesResponseForReference, "check_bad_input_typed", "reference:wrong-type: got incorrect"),
    # the hostile case mentions the answer without giving it
    (Lenient, "check_known_bad_not_correct", "exact-005: label incorrect, got correct"),
    # state leaks across calls, so a second scoring differs
    (Flaky, "check_deterministic", "change when scored again"),
    # not installed through an entry point
    (ExactVerifier, "check_registered", "'exact' is not registered"),
]


@pytest.mark.parametrize(
    ("verifier", "check", "message"),
    BROKEN,
    ids=[f"{cls.__name__}-{check}" for cls, check, _ in BROKEN],
)
def test_each_breach_is_caught(verifier: type[Verifier], check: str, message: str) -> None:
    with pytest.raises(ConformanceError, match=message):
        getattr(Conformance(verifier), check)()


def test_no_fixtures_is_a_conformance_error() -> None:
    class NoFixtures(ExactVerifier):
        fixtures = None

    with pytest.raises(ConformanceError, match="declares no fixtures"):
        Conformance(NoFixtures).check_gold_scores_correct()


@pytest.mark.parametrize("name", [e.name for e in list_domains()])
def test_registered_verifiers_answer_bad_input_with_typed_verdicts(name: str) -> None:
    entry = next(e for e in list_domains() if e.name == name)
    conformance = Conformance(entry.cls, workers=2)
    conformance.check_registered()
    conformance.check_bad_input_typed()


def _case(case_id: str, category: str) -> LabelledCase:
    return LabelledCase(case_id, Status.CORRECT, None, category, {"id": case_id})


SAMPLES = [
    # every category before any twice; within one, spread through the file; file order kept
    (["a", "a", "a", "a", "b", "c"], 3, ["0", "4", "5"]),
    (["a", "a", "a", "a", "b", "c"], 4, ["0", "2", "4", "5"]),
    # one category: evenly spaced
    (["", "", "", "", "", "", "", ""], 4, ["0", "2", "4", "6"]),
    # more places than cases: all of them
    (["a", "b"], 5, ["0", "1"]),
    # a small category runs out, the places go to the others
    (["a", "b", "b", "b", "b"], 4, ["0", "1", "2", "3"]),
]


@pytest.mark.parametrize(("categories", "size", "ids"), SAMPLES)
def test_sample_cases(categories: list[str], size: int, ids: list[str]) -> None:
    cases = [_case(str(i), c) for i, c in enumerate(categories)]
    assert [c.id for c in sample_cases(cases, size)] == ids


def test_a_sample_still_catches_a_flaky_verifier() -> None:
    conformance = Conformance(Flaky, sample=4)
    assert len(conformance.cases()) == 4
    with pytest.raises(ConformanceError, match="change when scored again"):
        conformance.check_deterministic()
