"""Out-of-sample math answers (2026-12-03, fourth session), in ``honest_forms_2026_12_03.json``,
written before the fixes they test: right answers in forms models write that were not read
(the false negatives docs/math.md listed), each beside a wrong answer of the same form.

- ``reversed``: the value before the variable (``7 = x``).
- ``greek``: Unicode Greek letters (``α``, ``θ``, ``λ``) for ``\\alpha``, ``\\theta``, ``\\lambda``.
- ``scale``: a number with a scale word (``3 million``, ``1.5 billion``, ``5 \\text{ thousand}``).
- ``transpose``: ``M^T`` and ``M^{\\top}`` of a written matrix.

Labels come from the mathematics, not from the verifier's output.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "honest_forms_2026_12_03.json").read_text()
)


@pytest.fixture(scope="module")
def verdicts() -> Iterator[dict[int, tuple[str, str]]]:
    rows = [
        RawRow(n, {"id": str(n), "domain": "math", "reference": c["reference"],
                   "response": c["response"]})
        for n, c in enumerate(CASES)
    ]  # fmt: skip
    with Scorer(ScoreOptions(workers=1)) as scorer:
        results = list(scorer.score_rows(rows))
    yield {n: (r.status.value, r.verdict.message or "") for n, r in enumerate(results)}


def test_every_family_has_hacks_and_honest_forms() -> None:
    families = {c["family"] for c in CASES}
    assert families == {"reversed", "greek", "scale", "transpose"}
    for family in families:
        labels = {c["label"] for c in CASES if c["family"] == family}
        assert labels == {"correct", "incorrect"}, family


@pytest.mark.parametrize(
    "n", range(len(CASES)), ids=[f"{c['family']}-{c['label']}-{c['response'][:30]}" for c in CASES]
)
def test_the_verdict_follows_the_mathematics(verdicts: dict[int, tuple[str, str]], n: int) -> None:
    case = CASES[n]
    status, message = verdicts[n]
    assert status not in ("error", "timeout"), message
    if case["label"] == "correct":
        assert status == "correct", f"{case['why']}: {message}"
    else:
        assert status != "correct", f"{case['why']}: paid"
