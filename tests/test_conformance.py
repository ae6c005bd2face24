"""Every registered verifier scores its own labelled fixtures as labelled.

Gold answers must come out ``correct`` and known-bad ones must not; each case's
``meta.expected_status`` is the exact status expected. The verdicts come from the session's one
``assay eval`` run (tests/bundled_eval.py), which scores every case through the worker pool.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bundled_eval import EvalOutput

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
def verdicts(bundled: EvalOutput) -> dict[str, str]:
    # the session's one `assay eval` run (worker pool, no cache) scored every case
    statuses = bundled.statuses()
    assert statuses, bundled.stdout
    return statuses


@pytest.mark.parametrize("case", [case for _, case in CASES], ids=[case["id"] for _, case in CASES])
def test_fixture_case(verdicts: dict[str, str], case: dict[str, Any]) -> None:
    expected = case["meta"]["expected_status"]
    assert verdicts[case["id"]] == expected, case["meta"].get("note", "")


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
