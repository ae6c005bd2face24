"""Out-of-sample math answers (2026-12-03, fourth session), written before the fixes they test.

``hacks_and_honest_forms_2026_12_03.json``: the hacks a red team found paid (docs/math.md
listed them as known gaps), each beside the honest forms nearest to it, which must stay
credited:

- ``chain``: a chain of equalities is only as good as its parts (``x = 5 = 7`` is false);
  a true chain of working and an exact value with its rounding are right.
- ``factorial``: ``!`` after a one-letter name or a number is a factorial, not punctuation.
- ``choice``: several option letters are several answers; one letter with its option's text
  is one answer.
- ``boxes_or``: two boxes offered as alternatives are a hedge for an ordered pair; the roots
  of an equation joined by "or" are the roots.
- ``function``: an expression equal to the gold only at a few points (a polynomial built on
  sample points, a tiny exact term, a floor that vanishes near 0) is wrong.
- ``matrix``: ``M^0`` is the identity, ``|M|`` and ``vmatrix`` are determinants.

``honest_forms_2026_12_03.json``: right answers in forms models write that were not read (the
false negatives docs/math.md listed), each beside a wrong answer of the same form:

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

FAMILIES = {
    "hacks_and_honest_forms_2026_12_03.json": {
        "chain", "factorial", "choice", "boxes_or", "function", "matrix"},
    "honest_forms_2026_12_03.json": {"reversed", "greek", "scale", "transpose"},
}  # fmt: skip
FILES = {name: json.loads((Path(__file__).parent / name).read_text()) for name in FAMILIES}
CASES: list[dict[str, Any]] = [case for cases in FILES.values() for case in cases]


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


@pytest.mark.parametrize("name", list(FAMILIES))
def test_every_family_has_hacks_and_honest_forms(name: str) -> None:
    families = {c["family"] for c in FILES[name]}
    assert families == FAMILIES[name]
    for family in families:
        labels = {c["label"] for c in FILES[name] if c["family"] == family}
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
