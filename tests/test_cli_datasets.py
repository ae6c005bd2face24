"""`assay score` on datasets as they come: exit codes, hints, output paths, closed pipes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from assay.cli import main

AGENT_CASES = Path(__file__).resolve().parents[1] / "fixtures" / "agent" / "cases.jsonl"
ROWS = [
    {"qid": f"q{k}", "domain": "math", "answer_text": f"#### {k}", "gold": str(k)} for k in range(3)
]


class Ran:
    def __init__(self, returncode: int, stderr: str) -> None:
        self.returncode, self.stderr = returncode, stderr


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Any:
    """`assay ARGS` in this process (a subprocess per case costs seconds of imports)."""

    def call(*args: str) -> Ran:
        code = main(list(args))
        return Ran(code, capsys.readouterr().err)

    return call


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_all_error_exits_6_with_top_errors_and_did_you_mean(tmp_path: Path, run: Any) -> None:
    rows = [{k if k != "gold" else "reference": v for k, v in row.items()} for row in ROWS]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    proc = run("score", str(src), "-o", str(tmp_path / "o.jsonl"), "--workers", "0")
    assert proc.returncode == 6, proc.stderr
    assert "3 of 3 records are 'error'" in proc.stderr
    assert "     3  missing field 'response'" in proc.stderr  # the most frequent error, counted
    assert "Did you mean --response-field answer_text?" in proc.stderr
    assert "Columns: qid, domain, answer_text, reference" in proc.stderr


@pytest.mark.parametrize(
    ("columns", "guess"),
    [
        ({"answer": "#### 72"}, "answer"),  # GSM8K's own column
        ({"problem": "x", "solution": "\\boxed{72}"}, "solution"),  # MATH's
        ({"question": "x", "final_answer": "72"}, "final_answer"),  # DeepMath-103K's
        ({"prompt": "x", "gold": "72"}, "gold"),
        ({"Problem": "x", "Answer": 72}, "Answer"),  # AIME_2024's
    ],
    ids=["gsm8k", "math", "deepmath", "gold", "aime"],
)
def test_a_missing_reference_suggests_the_answer_column_that_is_there(
    tmp_path: Path, run: Any, columns: dict[str, Any], guess: str
) -> None:
    rows = [{"id": f"r{k}", "response": "#### 72", **columns} for k in range(3)]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    proc = run("score", str(src), "-o", os.devnull, "--workers", "0", "--domain", "math")
    assert proc.returncode == 6, proc.stderr
    assert f"Did you mean --reference-field {guess}?" in proc.stderr


@pytest.mark.parametrize(
    ("field", "guess"),
    [
        ("data.answer", "data.ans"),  # the right column, the wrong key inside it
        ("dat.ans", "data.ans"),  # a typo in the column
        ("data.meta.txt", "data.meta.text"),  # two levels down
    ],
)
def test_a_missing_dotted_field_suggests_the_nested_path_that_is_there(
    tmp_path: Path, run: Any, field: str, guess: str
) -> None:
    rows = [
        {"uid": f"u{k}", "data": {"ans": f"#### {k}", "meta": {"text": "x"}}, "gold": str(k)}
        for k in range(3)
    ]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    proc = run("score", str(src), "-o", os.devnull, "--workers", "0", "--domain", "math",
               "--response-field", field, "--reference-field", "gold")  # fmt: skip
    assert proc.returncode == 6, proc.stderr
    assert f"Did you mean --response-field {guess}?" in proc.stderr
    assert "Columns: uid, data, gold" in proc.stderr


def test_named_fields_on_the_command_line_score(tmp_path: Path, run: Any) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", ROWS)
    out = tmp_path / "o.jsonl"
    proc = run(
        "score",
        str(src),
        "-o",
        str(out),
        "--workers",
        "0",
        "--response-field",
        "answer_text",
        "--reference-field",
        "gold",
        "--id-field",
        "qid",
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["status"]) for r in lines] == [(f"q{k}", "correct") for k in range(3)]


@pytest.mark.parametrize(
    ("max_rate", "code"),
    [(None, 0), ("0.5", 0), ("0.25", 6)],  # 1 of 3 error: under 0.5, over 0.25; default: all
    ids=["default-needs-all", "under-limit", "over-limit"],
)
def test_max_error_rate(tmp_path: Path, run: Any, max_rate: str | None, code: int) -> None:
    rows = [
        {"id": "a", "domain": "math", "response": "#### 1", "reference": "1"},
        {"id": "b", "domain": "math", "response": "#### 2", "reference": "2"},
        {"id": "c", "domain": "math", "reference": "3"},
    ]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    extra = ["--max-error-rate", max_rate] if max_rate else []
    proc = run("score", str(src), "-o", str(tmp_path / "o.jsonl"), "--workers", "0", *extra)
    assert proc.returncode == code, proc.stderr


def test_output_paths(tmp_path: Path, run: Any) -> None:
    src = write_jsonl(
        tmp_path / "in.jsonl",
        [{"id": "a", "domain": "math", "response": "#### 1", "reference": "1"}],
    )
    deep = tmp_path / "new" / "dir" / "out.jsonl"
    assert run("score", str(src), "-o", str(deep), "--workers", "0").returncode == 0
    assert json.loads(deep.read_text())["status"] == "correct"  # missing folders are made
    null = run("score", str(src), "-o", os.devnull, "--workers", "0")
    assert null.returncode == 0 and "Traceback" not in null.stderr, null.stderr
    csv = run("score", str(src), "-o", str(tmp_path / "out.csv"), "--workers", "0")
    assert csv.returncode == 2 and "cannot write '.csv'" in csv.stderr
    assert not (tmp_path / "out.csv").exists()


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    # agent rows: the subprocess's cost is its imports, and the agent domain's are the lightest
    # (math's sympy is seconds); 300 verdicts are ~600 KB, far past a pipe's buffer, so the
    # writer is still writing when head has gone
    case = json.loads(AGENT_CASES.read_text().splitlines()[0])
    rows = [{**case, "id": str(k)} for k in range(300)]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    proc = subprocess.run(
        f"{sys.executable} -m assay.cli score {src} --workers 0 --quiet | head -n 1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.stdout.count("\n") == 1 and json.loads(proc.stdout)["id"] == "0"
    assert proc.stderr == "", proc.stderr  # no BrokenPipeError traceback
