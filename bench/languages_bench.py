"""Code, languages beyond Python: a GRPO group of identical samples per language, graded
through the warm pool with the artifact cache versus compiling and running each sample in a
fresh sandbox pool, side by side in one run.

For each language the right answer of the fixtures' ``stdio-<language>-sum`` task (3 stdio
cases) is graded ``--group`` times:

- warm: ``CodeVerifier.verify`` on one warm pool; the first sample compiles, the rest hit the
  cache (the cache is cleared before each language).
- fresh: per sample a new ``SandboxPool`` (bubblewrap start), an uncached compile, the three
  runs, and the pool closed.

Run: ``python bench/languages_bench.py [--group 8] [--languages c,go]``. Prints samples per
second of each and the ratio warm/fresh.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "fixtures" / "code" / "cases.jsonl"


def right_answers() -> dict[str, dict[str, Any]]:
    found = {}
    for line in CASES.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["id"].startswith("code-stdio-") and row["id"].endswith("-sum-right"):
            found[row["reference"]["language"]] = row
    return found


def warm(rows: list[dict[str, Any]]) -> float:
    from assay.domains.code import languages
    from assay.domains.code.verifier import CodeVerifier

    from assay.types import Record

    verifier = CodeVerifier()
    verifier.setup()
    languages.CACHE.clear()
    started = time.perf_counter()
    for index, row in enumerate(rows):
        verdict = verifier.verify(Record(str(index), "code", row["response"], row["reference"]))
        if verdict.status.value != "correct":
            raise SystemExit(f"warm: {row['id']} graded {verdict.status.value}: {verdict.message}")
    seconds = time.perf_counter() - started
    verifier.pool.close()
    return len(rows) / seconds


def fresh(rows: list[dict[str, Any]]) -> float:
    from assay.domains.code import compiled, languages
    from assay.domains.code.modes import Budget, Run
    from assay.domains.code.task import parse_task
    from assay.verifiers.code.extract import extract_fenced
    from assay.verifiers.sandbox import SandboxPool

    started = time.perf_counter()
    for row in rows:
        task = parse_task(row["reference"], ROOT)
        language = languages.LANGUAGES[task.language]
        code = extract_fenced(row["response"], language.tags | {""})
        with SandboxPool(size=1) as pool:
            limits = languages.compile_limits(task.compile_timeout_s, task.compile_memory_mb)
            result = languages.compile_source(pool, language, code, limits, cache=None)
            units = compiled.run_stdio(Run(pool, task, Budget(300.0)), language, code,
                                       result.artifacts)  # fmt: skip
        if not all(u.passed for u in units):
            raise SystemExit(f"fresh: {row['id']} failed: {[u.message for u in units]}")
    return len(rows) / (time.perf_counter() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--group", type=int, default=8, help="identical samples per language")
    parser.add_argument("--languages", default="", help="comma-separated (default: all)")
    args = parser.parse_args(argv)
    answers = right_answers()
    wanted = [n for n in args.languages.split(",") if n] or sorted(answers)
    header = f"{'language':<11} {'warm+cache/s':>12} {'fresh/s':>9} {'ratio':>7}"
    print(f"{header}   ({args.group} samples)")
    for name in wanted:
        rows = [answers[name]] * args.group
        fast, slow = warm(rows), fresh(rows)
        print(f"{name:<11} {fast:>12.2f} {slow:>9.2f} {fast / slow:>6.1f}x")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
