"""The math fixture files that are not plain cases: verl rows and pathological answers."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "math"


def _score(src: Path, out: Path, *extra: str) -> list[dict[str, object]]:
    cmd = [sys.executable, "-m", "assay.cli", "score", str(src), "-o", str(out), *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_verl_rows_score_as_labelled(tmp_path: Path) -> None:
    """verl parquet-shaped rows: data_source picks the domain, ground_truth is the reference."""
    src = FIXTURES / "verl_rows.jsonl"
    rows = [json.loads(line) for line in src.read_text().splitlines()]
    results = _score(src, tmp_path / "out.jsonl")
    expected = [
        (f"{r['data_source']}-test-{r['extra_info']['index']}", r["extra_info"]["expected_status"])
        for r in rows
    ]
    assert [(r["id"], r["status"]) for r in results] == expected
    assert all(r["domain"] == "math" for r in results)


def test_pathological_answers_are_the_responses_fault(tmp_path: Path) -> None:
    """Towers of powers are `incorrect` with a failed `too_costly` check (never a masked
    `timeout`), refused before sympy computes them, so they do not stall the batch."""
    src = FIXTURES / "pathological.jsonl"
    started = time.monotonic()
    results = _score(src, tmp_path / "out.jsonl", "--timeout", "2", "--workers", "2")
    assert [r["status"] for r in results] == ["incorrect"] * 4
    for result in results:
        checks = result["checks"]
        assert isinstance(checks, list)
        assert [c["name"] for c in checks if not c["passed"]] == ["too_costly"]
    assert time.monotonic() - started < 60  # refused up front: no item waits for the limit
