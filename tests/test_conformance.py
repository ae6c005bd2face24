"""Every registered verifier scores its own labelled fixtures as labelled.

Gold answers must come out ``correct`` and known-bad ones must not; each case's
``meta.expected_status`` is the exact status expected, and a ``partial`` case's score is pinned by
``meta.expected_score`` (within ``SCORE_TOLERANCE``: finance rounds scores to 4 digits) or
bounded by ``meta.expected_score_range``. The verdicts come from the session's one
``assay eval`` run (tests/bundled_eval.py), which scores every case through the worker pool.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bundled_eval import EvalOutput

from assay.evaluation.cases import SCORE_TOLERANCE
from assay.registry import list_domains
from assay.testing import Conformance


def _cases() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for entry in list_domains():
        path = entry.cls.fixtures
        if path is None or not Path(path).exists():
            continue
        with Path(path).open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    out.append((entry.name, json.loads(line)))
    return out


CASES = _cases()


def test_every_verifier_has_fixtures() -> None:
    names = {name for name, _ in CASES}
    assert names == {entry.name for entry in list_domains()}


@pytest.fixture(scope="module")
def verdicts(bundled: EvalOutput) -> dict[str, tuple[str, float]]:
    # the session's one `assay eval` run (worker pool, no cache) scored every case
    verdicts = bundled.verdicts()
    assert verdicts, bundled.stdout
    return verdicts


@pytest.mark.parametrize("case", [case for _, case in CASES], ids=[case["id"] for _, case in CASES])
def test_fixture_case(verdicts: dict[str, tuple[str, float]], case: dict[str, Any]) -> None:
    meta = case["meta"]
    status, score = verdicts[case["id"]]
    assert status == meta["expected_status"], meta.get("note", "")
    if "expected_score" in meta:
        assert score == pytest.approx(meta["expected_score"], abs=SCORE_TOLERANCE), meta["note"]
    if "expected_score_range" in meta:
        low, high = meta["expected_score_range"]
        assert low - SCORE_TOLERANCE <= score <= high + SCORE_TOLERANCE, meta["note"]


PARTIAL = [case for _, case in CASES if case["meta"]["expected_status"] == "partial"]


@pytest.mark.parametrize("case", PARTIAL, ids=[case["id"] for case in PARTIAL])
def test_every_partial_case_labels_its_score(case: dict[str, Any]) -> None:
    # A partial verdict's score is the reward: the label says what it must be (or, where it
    # rests on sampling or rendering, the range it must fall in), not only the status.
    meta = case["meta"]
    assert ("expected_score" in meta) != ("expected_score_range" in meta), meta["note"]


# Cases per verifier for the determinism check (each scored twice): the code domain runs
# programs in the sandbox and mesh loads meshes, so they get fewer.
DETERMINISM_SAMPLE = {"code": 10, "mesh": 6}
DEFAULT_DETERMINISM_SAMPLE = 16


@pytest.mark.parametrize("name", [e.name for e in list_domains()])
def test_verifier_is_deterministic(name: str) -> None:
    # A sample of the fixtures (the same cases every run, every category represented) scored
    # twice, the second time in reverse order in the same warm workers: a verdict that changes
    # for the same input is noise in the reward.
    entry = next(e for e in list_domains() if e.name == name)
    size = DETERMINISM_SAMPLE.get(name, DEFAULT_DETERMINISM_SAMPLE)
    conformance = Conformance(entry.cls, workers=2, sample=size)
    assert len(conformance.cases()) == size
    conformance.check_deterministic()
