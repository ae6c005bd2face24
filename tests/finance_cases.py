"""Finance answer tables: the shipped statements, and the verdicts of (id, reference, response,
label) rows through a started scorer, for the test modules that each hold one table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer

ALDER = {"document": "statements/alder-2023.pdf", "scale": "million", "unit": "USD"}
LUMEN = {"document": "statements/lumen-2023.pdf", "scale": "million", "unit": "GBP"}
QUARRY = {"document": "statements/quarry-2024.pdf", "scale": "thousand", "unit": "USD"}
HARBOR = {"document": "statements/harbor-2024.pdf", "scale": "thousand", "unit": "USD"}
KESTREL = {"document": "statements/kestrel-2022.pdf", "scale": "million", "unit": "EUR"}
MERIDIAN = {"document": "statements/meridian-2024.pdf", "scale": "thousand", "unit": "GBP"}
SUMMIT = {"document": "statements/summit-2023.pdf", "scale": "thousand", "unit": "USD"}
TIDEWATER = {"document": "statements/tidewater-2024.pdf", "scale": "thousand", "unit": "EUR"}
C, X = "correct", "incorrect"

Case = tuple[str, dict[str, Any], str, str]
"""(id, reference, response, the status a finance grader gives)."""


def q(doc: dict[str, str], question: str, answer: Any = None, **extra: Any) -> dict[str, Any]:
    """A question reference over one of the shipped PDFs."""
    ref: dict[str, Any] = {**doc, "question": question}
    if answer is not None:
        ref["answer"] = answer
    ref.update(extra)
    return ref


def verdicts(cases: Sequence[Case]) -> dict[str, tuple[str, str]]:
    """Each case's status and message, scored together by a started scorer (two workers)."""
    rows = [
        RawRow(n, {"id": cid, "domain": "finance", "reference": ref, "response": response})
        for n, (cid, ref, response, _) in enumerate(cases, 1)
    ]
    with Scorer(ScoreOptions(workers=2)) as scorer:
        return {r.id: (r.status.value, r.verdict.message or "") for r in scorer.score_rows(rows)}


def labelled(cases: Sequence[Case]) -> Any:
    """``pytest.mark.parametrize`` over the cases' ids and labels."""
    return pytest.mark.parametrize(
        ("cid", "label"), [(c[0], c[3]) for c in cases], ids=[c[0] for c in cases]
    )
