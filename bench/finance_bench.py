"""Finance: questions per second over one 50-page filing, with and without the document cache.

Same run, same questions. The filing is fixtures/finance's Harbor Logistics statements repeated
to 50 pages (built on the fly with fixtures/finance/build_statements.py). Each question cites
a page somewhere in the filing, so answering it needs that page's text and tables:

- cached: one :class:`DocumentCache` for the whole batch, as each assay worker holds: the file
  is parsed once and each page extracted once.
- uncached: a fresh cache per question, so every question re-opens the PDF and re-extracts the
  page it cites (what a scorer without a per-document cache does).

Run: ``python bench/finance_bench.py [--questions 1000] [--uncached 60]``. Prints questions/s
of each and the ratio; the cached run also proves the file was opened once.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "finance"
REPEAT = 16  # highlights + 16 x (income, balance sheet, cash flow) + notes = 50 pages


def build_filing(directory: Path) -> tuple[Path, Any]:
    sys.path.insert(0, str(FIXTURES))
    try:
        import build_statements
    finally:
        sys.path.remove(str(FIXTURES))
    company = build_statements.COMPANIES[0]  # balance sheet on one page: 3 pages per repeat
    build_statements.populate(company)
    path = directory / "harbor-50-pages.pdf"
    build_statements.build_filing(company, path, repeat=REPEAT)
    return path, company


def questions(path: Path, company: Any, count: int) -> list[tuple[dict[str, Any], str]]:
    """Field extractions and QA items, each citing a page of one of the 16 repeats."""
    rng = random.Random(7)
    year = company.year
    out = []
    for index in range(count):
        block = 3 * rng.randrange(REPEAT)
        if index % 2:
            key, page = "total_assets", 3 + block
            value = company.shown(key, year)
            reference = {
                "document": str(path),
                "scale": "thousand",
                "unit": "USD",
                "fields": {f"{key}_{year}": {"value": f"{value}"}},
            }
            response = json.dumps({f"{key}_{year}": {"value": f"{value:,}", "page": page}})
        else:
            key, page = "capital_expenditures", 4 + block
            value = company.shown(key, year)
            reference = {
                "document": str(path),
                "scale": "thousand",
                "unit": "USD",
                "answer": f"{value}",
            }
            response = json.dumps({"answer": f"({abs(value):,})", "page": page})
        out.append((reference, response))
    return out


def run(items: list[tuple[dict[str, Any], str]], cached: bool) -> tuple[float, Any]:
    from assay.domains.finance import FinanceVerifier
    from assay.verifiers.finance import DocumentCache

    from assay.types import Record, Status

    shared = DocumentCache()
    start = time.perf_counter()
    for index, (reference, response) in enumerate(items):
        cache = shared if cached else DocumentCache()
        verdict = FinanceVerifier(cache).verify(Record(str(index), "finance", response, reference))
        if verdict.status is not Status.CORRECT:
            raise SystemExit(f"question {index} scored {verdict.status}: {verdict.message}")
        if not cached:
            cache.clear()
    return time.perf_counter() - start, shared.stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=1000, help="questions, cached run")
    parser.add_argument("--uncached", type=int, default=60, help="questions, uncached run")
    args = parser.parse_args()
    from assay.domains.finance.task import ROOTS_ENV
    from assay.verifiers.finance import DocumentCache

    with tempfile.TemporaryDirectory() as tmp:
        os.environ[ROOTS_ENV] = tmp  # the filing lives outside fixtures/: allow its folder
        path, company = build_filing(Path(tmp))
        pages = DocumentCache().open(path).page_count
        cached_items = questions(path, company, args.questions)
        cached_s, stats = run(cached_items, cached=True)
        uncached_s, _ = run(cached_items[: args.uncached], cached=False)
    cached_qps = args.questions / cached_s
    uncached_qps = args.uncached / uncached_s
    print(f"one {pages}-page filing ({path.name}), questions citing pages all over it")
    print(
        f"  cached   {args.questions:5d} questions {cached_qps:9.1f} q/s ({cached_s:.2f} s);"
        f" file opened {stats.opened}x, {stats.pages_read} pages extracted, {stats.hits} hits"
    )
    print(f"  uncached {args.uncached:5d} questions {uncached_qps:9.1f} q/s ({uncached_s:.2f} s)")
    print(f"  cache speed-up: {cached_qps / uncached_qps:.1f}x questions/s")


if __name__ == "__main__":
    main()
