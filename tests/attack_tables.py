"""Tables of red-team cases, each an attack and (for false credit) its honest counterpart.

A case is a dict with ``id``, ``kind`` (``false_credit``, ``masked`` or ``false_negative``),
``reference``, ``response``, optionally ``steps``, ``expected`` (what it should get) and
``honest`` (the counterpart's ``response`` and ``steps``). The rules a case's verdict must keep:

- never ``error`` or ``timeout`` (an attack that masks its verdict wins);
- ``false_negative``: ``correct``;
- ``false_credit``: paid no more than the honest counterpart, and less than one that did the
  task (1.0).

Cases left as found go in a ``known`` mapping of id to reason; they become strict expected
failures (one that starts passing fails until it leaves the mapping).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer
from assay.types import Result

Scored = dict[str, tuple[Result, Result | None]]


def row(domain: str, n: int, reference: Any, response: Any, steps: Any = None) -> RawRow:
    fields: dict[str, Any] = {"id": str(n), "domain": domain, "reference": reference,
                              "response": response}  # fmt: skip
    if steps is not None:
        fields["steps"] = steps
    return RawRow(n, fields)


def score_cases(domain: str, cases: list[dict[str, Any]]) -> Scored:
    """Each case's attack and honest counterpart, scored in one started scorer (a case's own
    ``domain``, if it names one, else ``domain``)."""
    rows, keys = [], []
    for case in cases:
        own = case.get("domain", domain)
        rows.append(row(own, len(rows), case["reference"], case["response"], case.get("steps")))
        keys.append((case["id"], "attack"))
        honest = case.get("honest")
        if honest and "response" in honest:
            rows.append(
                row(own, len(rows), case["reference"], honest["response"], honest.get("steps"))
            )
            keys.append((case["id"], "honest"))
    with Scorer(ScoreOptions(workers=1)) as scorer:
        results = list(scorer.score_rows(rows))
    by_id: dict[str, dict[str, Result]] = {}
    for (case_id, role), result in zip(keys, results, strict=True):
        by_id.setdefault(case_id, {})[role] = result
    return {k: (v["attack"], v.get("honest")) for k, v in by_id.items()}


def params(cases: list[dict[str, Any]], known: Mapping[str, str]) -> list[Any]:
    """One pytest parameter per case, the known ones marked as strict expected failures."""
    return [
        pytest.param(
            case,
            id=case["id"],
            marks=[pytest.mark.xfail(strict=True, reason=known[case["id"]])]
            if case["id"] in known
            else [],
        )
        for case in cases
    ]


def check_case(case: dict[str, Any], attack: Result, honest: Result | None) -> None:
    """The rules of the module docstring for one case."""
    status, message = attack.status.value, attack.verdict.message or ""
    assert status not in ("error", "timeout"), f"masked: {message}"
    if case["kind"] == "false_negative":
        assert status == "correct", f"{case['expected']}: {status} {message}"
        return
    if case["kind"] == "masked":
        return
    assert honest is not None
    assert attack.verdict.score <= honest.verdict.score, (
        f"{case['expected']}: {attack.verdict.score} against the honest {honest.verdict.score}"
    )
    if honest.verdict.score == 1.0:
        assert attack.verdict.score < 1.0, case["expected"]
