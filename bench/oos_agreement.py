"""Agreement with labelled cases, per category, for the out-of-sample benches.

Shared by ``agent_oos_bench.py`` and ``finance_oos_bench.py`` (run as scripts, this folder is on
``sys.path``). Two agreements per category:

- credit: the label says ``correct`` and assay says ``correct``, or neither does;
- status: assay's status equals the label's exactly.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def load(path: Path) -> list[dict[str, Any]]:
    """The cases of a JSONL file."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def score(cases: list[dict[str, Any]], workers: int) -> dict[str, Any]:
    """Results by id, through assay's record builder and worker pool, as ``assay score``."""
    from assay.records import RawRow
    from assay.runner import ScoreOptions, Scorer

    rows = [RawRow(i, c) for i, c in enumerate(cases, start=1)]
    with Scorer(ScoreOptions(workers=workers)) as scorer:
        return {r.id: r for r in scorer.score_rows(rows)}


def report(
    title: str,
    cases: list[dict[str, Any]],
    results: Mapping[str, Any],
    misses: bool,
    *,
    width: int = 20,
    explained: Mapping[str, str] | None = None,
) -> None:
    """Print the per-category table; with ``misses``, every disagreement with its note."""
    credit: Counter[str] = Counter()
    status: Counter[str] = Counter()
    total: Counter[str] = Counter()
    wrong = []
    for case in cases:
        category = case["meta"].get("category", "?")
        expected = case["meta"]["expected_status"]
        got = results[case["id"]].status.value
        total[category] += 1
        credit[category] += (expected == "correct") == (got == "correct")
        status[category] += expected == got
        if expected != got:
            wrong.append((case, got, results[case["id"]].verdict.message))
    n = sum(total.values())
    print(f"\n{title}: {n} cases")
    print(f"{'category':<{width}} {'n':>4} {'credit':>8} {'status':>8}")
    for category in sorted(total):
        t = total[category]
        print(
            f"{category:<{width}} {t:>4} {credit[category] / t:>8.2f} {status[category] / t:>8.2f}"
        )
    print(
        f"{'all':<{width}} {n:>4} {sum(credit.values()) / n:>8.3f} {sum(status.values()) / n:>8.3f}"
    )
    if not misses:
        return
    for case, got, message in wrong:
        print(
            f"  {case['id']}: label {case['meta']['expected_status']}, assay {got}"
            f" ({case['meta']['note']}){f' | {message}' if message else ''}"
        )
        if explained and case["id"] in explained:
            print(f"    explained: {explained[case['id']]}")
