"""The CLI end to end, as a user runs it: real subprocesses, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ASSAY = [sys.executable, "-m", "assay.cli"]
GOOD = [
    {
        "id": "a",
        "domain": "math",
        "response": "So the answer is \\boxed{42}.",
        "reference": {"answer": "42"},
    },
    {"id": "b", "domain": "math", "response": "#### 41", "reference": {"answer": "42"}},
    {"id": "c", "domain": "lighteval/MATH", "response": "$\\frac{1}{2}$", "reference": "0.5"},
]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.run(
        [*ASSAY, *args],
        capture_output=True,
        text=True,
        input=stdin,
        env=env,
        timeout=300,
        check=False,
    )


def write_jsonl(path: Path, rows: list[Any], extra_lines: list[str] = ()) -> Path:  # type: ignore[assignment]
    lines = [json.dumps(r) for r in rows] + list(extra_lines)
    path.write_text("\n".join(lines) + "\n")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_score_end_to_end(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", GOOD)
    out = tmp_path / "out.jsonl"
    proc = run("score", str(src), "-o", str(out), "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    rows = read_jsonl(out)
    assert [(r["id"], r["status"], r["score"]) for r in rows] == [
        ("a", "correct", 1.0),
        ("b", "incorrect", 0.0),
        ("c", "correct", 1.0),
    ]
    assert all(r["verifier"].startswith("math@") and r["error"] is None for r in rows)
    assert "mean score" in proc.stderr and "math" in proc.stderr  # the summary table


def test_schedule_flags_keep_verdicts_and_order(tmp_path: Path) -> None:
    # priorities, a per-domain limit (aliases and data_sources resolve) and a warm domain
    # reorder work between workers, never the output
    src = write_jsonl(tmp_path / "in.jsonl", GOOD)
    out = tmp_path / "out.jsonl"
    flags = ["--priority", "lighteval/MATH=2", "--limit", "gsm8k=1", "--warm", "math"]
    proc = run("score", str(src), "-o", str(out), "--workers", "2", *flags)
    assert proc.returncode == 0, proc.stderr
    rows = read_jsonl(out)
    assert [(r["id"], r["status"]) for r in rows] == [
        ("a", "correct"),
        ("b", "incorrect"),
        ("c", "correct"),
    ]


def test_bad_input_is_data_and_nothing_is_lost(tmp_path: Path) -> None:
    bad = [
        '{"id": "torn", "domain": "math", "resp',  # malformed JSON
        json.dumps({"id": "typo", "domain": "mth", "response": "1", "reference": "1"}),
        json.dumps({"id": "nores", "domain": "math", "reference": "1"}),
        json.dumps({"id": "int", "domain": "math", "response": 5, "reference": "5"}),
        json.dumps(
            {"id": "huge", "domain": "math", "response": "1" * 10_000_001, "reference": "1"}
        ),
    ]
    src = write_jsonl(tmp_path / "in.jsonl", GOOD, bad)
    out = tmp_path / "out.jsonl"
    proc = run("score", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    rows = {r["id"]: r for r in read_jsonl(out)}
    assert len(rows) == 8  # every input line exactly once
    assert rows["torn"]["status"] == "error" and "malformed JSON" in rows["torn"]["error"]
    assert "Did you mean 'math'" in rows["typo"]["error"]
    assert rows["nores"]["status"] == "error"
    assert rows["int"]["status"] == "unparsable"
    assert rows["huge"]["status"] == "unparsable"


def test_strict_fails_fast(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", GOOD, ["{oops"])
    proc = run("score", str(src), "-o", str(tmp_path / "o.jsonl"), "--strict")
    assert proc.returncode == 4
    assert "malformed JSON" in proc.stderr


def test_resume_skips_done_ids(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", GOOD)
    out = tmp_path / "out.jsonl"
    out.write_text(
        json.dumps({"id": "a", "domain": "math", "status": "correct", "score": 1.0})
        + "\n"
        + '{"id": "b", "sta'
    )  # killed mid-line
    proc = run("score", str(src), "-o", str(out), "--resume")
    assert proc.returncode == 0, proc.stderr
    assert [r["id"] for r in read_jsonl(out)] == ["a", "b", "c"]
    assert "1 already in" in proc.stderr


def test_cache_hits_on_rescore(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", GOOD)
    cache = tmp_path / "cache"
    first = run("score", str(src), "-o", str(tmp_path / "1.jsonl"), "--cache", str(cache))
    second = run("score", str(src), "-o", str(tmp_path / "2.jsonl"), "--cache", str(cache))
    assert "cache: 0 hits, 3 misses" in first.stderr
    assert "cache: 3 hits, 0 misses" in second.stderr
    strip = [
        {k: v for k, v in r.items() if k != "elapsed_ms"} for r in read_jsonl(tmp_path / "1.jsonl")
    ]
    again = [
        {k: v for k, v in r.items() if k != "elapsed_ms"} for r in read_jsonl(tmp_path / "2.jsonl")
    ]
    assert strip == again


def test_parquet_in_and_out(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    pq.write_table(
        pa.Table.from_pylist([{**r, "reference": json.dumps(r["reference"])} for r in GOOD]), src
    )
    out = tmp_path / "out.parquet"
    proc = run("score", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    table = pq.read_table(out).to_pylist()
    assert [r["status"] for r in table] == ["correct", "incorrect", "correct"]


def test_pathological_item_is_the_responses_fault_without_stalling(tmp_path: Path) -> None:
    """A tower of powers is `incorrect` (too costly: the response's fault, never a masked
    `timeout`), and the batch goes on."""
    tower = {
        "id": "tower",
        "domain": "math",
        "response": "\\boxed{9^{9^{9^{9^{9^{9}}}}}}",
        "reference": {"answer": "4"},
    }
    src = write_jsonl(tmp_path / "in.jsonl", [tower, *GOOD])
    out = tmp_path / "out.jsonl"
    proc = run("score", str(src), "-o", str(out), "--timeout", "3")
    assert proc.returncode == 0, proc.stderr
    rows = read_jsonl(out)
    assert [r["status"] for r in rows] == ["incorrect", "correct", "incorrect", "correct"]
    assert [c["name"] for c in rows[0]["checks"] if not c["passed"]] == ["too_costly"]


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["score", "/nonexistent.jsonl"], 3, "does not exist"),  # missing input
        (["score", "x.jsonl", "--domain", "mth"], 2, "Did you mean 'math'"),  # typo in --domain
        (["score", "x.jsonl", "--bogus"], 2, "unrecognized arguments"),  # unknown option
        ([], 2, "assay score"),  # no command: help
        (["score", "x.jsonl", "--limit", "code"], 2, "expected DOMAIN=N"),  # no number
        (["score", "x.jsonl", "--priority", "math=high"], 2, "expected DOMAIN=N"),  # not a number
        (["score", "x.jsonl", "--limit", "code=0"], 2, "needs N >= 1"),  # no worker at all
        (["score", "x.jsonl", "--warm", "mth"], 2, "Did you mean 'math'"),  # typo in --warm
    ],
    ids=[
        "missing-input",
        "domain-typo",
        "bad-option",
        "no-command",
        "limit-without-number",
        "priority-not-a-number",
        "limit-zero",
        "warm-typo",
    ],
)
def test_exit_codes(args: list[str], code: int, needle: str) -> None:
    proc = run(*args)
    assert proc.returncode == code
    assert needle in proc.stderr + proc.stdout


def test_verify_one_item() -> None:
    proc = run(
        "verify",
        "--domain",
        "math",
        "--response",
        "x = \\frac{1}{2}",
        "--reference",
        '{"answer": "0.5"}',
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "correct"


def test_verify_bare_string_reference() -> None:
    proc = run("verify", "--domain", "gsm8k", "--response", "#### 1,000", "--reference", "1000")
    assert json.loads(proc.stdout)["status"] == "correct"


def test_domains_lists_versions() -> None:
    proc = run("domains", "--json")
    rows = {row["name"]: row for row in json.loads(proc.stdout)}
    assert set(rows) >= {"math", "code"}
    assert rows["math"]["version"] and "lighteval/MATH" in rows["math"]["data_sources"]
    languages = rows["code"]["languages"]  # the code verifier's capabilities: each toolchain
    assert set(languages) == {"python", "c", "cpp", "java", "go", "rust", "javascript",
                              "typescript", "bash"}  # fmt: skip
    assert all(languages.values()), languages
    text = run("domains").stdout
    assert "languages go: go version" in text and "NOT AVAILABLE" not in text


def test_help_explains_statuses() -> None:
    proc = run("score", "--help")
    assert proc.returncode == 0
    for word in ("correct", "unparsable", "timeout", "error", "mask", "--resume", "--cache"):
        assert word in proc.stdout
