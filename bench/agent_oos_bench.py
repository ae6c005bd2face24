"""Agent: agreement with labels assay was not tuned on, reported apart from the fixtures.

Scores ``fixtures/agent/oos/cases.jsonl`` (written before the issue-16 changes; see its
``write_cases.py``) and, for comparison in the same run, the in-sample fixtures
``fixtures/agent/cases.jsonl``, through ``assay``'s record builder and worker pool, as
``assay score`` reads them (BFCL rows included). Per category:

- credit: the label says ``correct`` and assay says ``correct``, or neither does;
- status: assay's status equals the label's exactly.

Then every gaming case (``meta.below``) is compared with the honest partial attempt it must
earn less than. Every disagreement of the out-of-sample set is listed with the case's note.

Run: ``python bench/agent_oos_bench.py [--workers 2]``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from oos_agreement import load, score
from oos_agreement import report as table

ROOT = Path(__file__).resolve().parents[1]
OOS = ROOT / "fixtures" / "agent" / "oos" / "cases.jsonl"
IN_SAMPLE = ROOT / "fixtures" / "agent" / "cases.jsonl"


def report(title: str, cases: list[dict[str, Any]], results: dict[str, Any], misses: bool) -> None:
    """The agreement table; with ``misses``, the disagreements and the gaming pairs."""
    table(title, cases, results, misses)
    if not misses:
        return
    gaming = [c for c in cases if c["meta"].get("below")]
    held = 0
    print(f"\ngaming strategies vs the honest partial attempt ({len(gaming)} pairs)")
    for case in gaming:
        honest = results[case["meta"]["below"]]
        gamed = results[case["id"]]
        ok = gamed.score < honest.score
        held += ok
        print(
            f"  {'ok  ' if ok else 'PAYS'} {case['id']} {gamed.score:.3f} < "
            f"{case['meta']['below']} {honest.score:.3f}"
        )
    print(f"held {held}/{len(gaming)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    oos = load(OOS)
    in_sample = load(IN_SAMPLE)
    report("out of sample (fixtures/agent/oos)", oos, score(oos, args.workers), misses=True)
    report(
        "in sample (fixtures/agent/cases.jsonl)",
        in_sample,
        score(in_sample, args.workers),
        misses=False,
    )


if __name__ == "__main__":
    main()
