"""Math: assay against Math-Verify 0.9 on the same cases, same run.

1. Agreement with the labels of fixtures/math/cases.jsonl (each case's ``expected_status``):
   the share of cases where each tool's correct / not-correct call matches the label.
2. Throughput: N records (default 5,000, the fixture cases repeated) scored by
   ``assay score --workers 2`` (a whole CLI run: start-up, isolation and hard timeouts on)
   versus Math-Verify's ``verify(parse(gold), parse(answer))`` in a loop in one process.

Run: ``python bench/math_bench.py [--records 5000]`` (Math-Verify is installed by ``make bench``).
Prints absolute figures and the ratios; absolute times on shared machines mean little.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "fixtures" / "math" / "cases.jsonl"


def load_cases() -> list[dict[str, Any]]:
    with CASES.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def gold_of(case: dict[str, Any]) -> str:
    reference = case["reference"]
    return str(reference["answer"] if isinstance(reference, dict) else reference)


def math_verify_status(gold: str, response: str) -> str:
    """Math-Verify as its README shows it: parse both sides, then verify."""
    from math_verify import parse, verify

    gold_parsed = parse(f"${gold}$") or parse(gold)
    answer = parse(response)
    if not answer:
        return "unparsable"
    return "correct" if verify(gold_parsed, answer) else "incorrect"


def agreement(cases: list[dict[str, Any]]) -> None:
    from assay.records import RawRow
    from assay.runner import ScoreOptions, Scorer

    rows = [RawRow(i, c) for i, c in enumerate(cases, start=1)]
    with Scorer(ScoreOptions(workers=2)) as scorer:
        ours = {r.id: r.status.value for r in scorer.score_rows(rows)}
    theirs = {c["id"]: math_verify_status(gold_of(c), c["response"]) for c in cases}
    totals: Counter[str] = Counter()
    by_category: dict[str, Counter[str]] = {}
    disagreements = []
    for case in cases:
        expected = case["meta"]["expected_status"]
        want = expected == "correct"
        mine, other = ours[case["id"]] == "correct", theirs[case["id"]] == "correct"
        cat = by_category.setdefault(case["meta"].get("category", "?"), Counter())
        cat["n"] += 1
        totals["n"] += 1
        totals["assay"] += mine == want
        totals["assay_exact"] += ours[case["id"]] == expected
        totals["math_verify"] += other == want
        cat["assay"] += mine == want
        cat["math_verify"] += other == want
        if mine != want:
            disagreements.append((case["id"], expected, ours[case["id"]]))
    n = totals["n"]
    print(f"agreement with labels on {n} cases (correct vs not correct):")
    print(
        f"  assay        {totals['assay'] / n:.3f}  ({totals['assay']}/{n}); "
        f"exact status {totals['assay_exact'] / n:.3f}"
    )
    print(f"  math-verify  {totals['math_verify'] / n:.3f}  ({totals['math_verify']}/{n})")
    print(f"  {'category':<22} {'n':>4} {'assay':>7} {'math-verify':>12}")
    for name in sorted(by_category):
        c = by_category[name]
        ours_rate, theirs_rate = c["assay"] / c["n"], c["math_verify"] / c["n"]
        print(f"  {name:<22} {c['n']:>4} {ours_rate:>7.3f} {theirs_rate:>12.3f}")
    for case_id, expected, got in disagreements:
        print(f"  assay disagrees: {case_id}: label {expected}, assay {got}")


def throughput(cases: list[dict[str, Any]], records: int) -> None:
    usable = [c for c in cases if c["meta"]["expected_status"] != "timeout"]
    batch = []
    for i in range(records):
        case = dict(usable[i % len(usable)])
        case["id"] = f"{case['id']}#{i}"
        batch.append(case)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "batch.jsonl"
        src.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in batch) + "\n")
        assay = [
            str(Path(sys.executable).parent / "assay"),
            "score",
            str(src),
            "-o",
            str(Path(tmp) / "out.jsonl"),
            "--workers",
            "2",
            "--quiet",
            "--no-progress",
        ]
        start = time.perf_counter()
        subprocess.run(assay, check=True, env={**os.environ})
        assay_s = time.perf_counter() - start

        start = time.perf_counter()
        for case in batch:
            math_verify_status(gold_of(case), case["response"])
        mv_s = time.perf_counter() - start
    print(f"throughput on {records} records:")
    rows = [
        ("assay score --workers 2 (whole CLI run)", records / assay_s, assay_s),
        ("math-verify loop, one process", records / mv_s, mv_s),
    ]
    for label, rate, seconds in rows:
        print(f"  {label:<42}{rate:8.1f} records/s ({seconds:.1f} s)")
    print(f"  {'ratio assay / math-verify':<42}{mv_s / assay_s:8.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--skip-throughput", action="store_true")
    args = parser.parse_args()
    cases = [c for c in load_cases()]
    agreement(cases)
    if not args.skip_throughput:
        throughput(cases, args.records)


if __name__ == "__main__":
    main()
