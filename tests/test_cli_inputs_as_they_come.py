"""`assay score` on inputs as users have them (black-box findings of 2026-12-03, each a case).

Before these fixes: `-o IN` emptied the input and exited 0; a full disk was a traceback; a
`--id-field` typo, or an id that is a list or a float, was silently replaced by `line-<n>`;
`samples.jsonl.gz`, a `.json` list and a CSV were read as JSON lines (junk error verdicts);
a task missing from `--problems` lost its id; the hint named a struct column as the response;
`messages.-1.content` was "missing"; one null sample in verl's `responses` made the whole
row one unparsable record; a misspelt split read like a missing one; `--domain` could not
name a verl set whose `data_source` no domain claims.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from assay.cli import main

MATH = [
    {"id": "r1", "domain": "math", "response": "\\boxed{2}", "reference": "2"},
    {"id": "r2", "domain": "math", "response": "\\boxed{3}", "reference": "2"},
]


class Ran:
    def __init__(self, returncode: int, stderr: str, stdout: str) -> None:
        self.returncode, self.stderr, self.stdout = returncode, stderr, stdout


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Any:
    def call(*args: str) -> Ran:
        code = main([*args, "--workers", "0"])
        captured = capsys.readouterr()
        return Ran(code, captured.err, captured.out)

    return call


def jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def verdicts(path: Path) -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [(r["id"], r["status"]) for r in rows]


@pytest.mark.parametrize("resume", [False, True])
@pytest.mark.parametrize("kind", ["same", "symlink", "parquet"])
def test_the_input_is_never_the_output(tmp_path: Path, run: Any, kind: str, resume: bool) -> None:
    if kind == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        src = tmp_path / "in.parquet"
        pq.write_table(pa.Table.from_pylist(MATH), src)
    else:
        src = tmp_path / "in.jsonl"
        src.write_text(jsonl(MATH))
    before = src.read_bytes()
    out = src
    if kind == "symlink":
        out = tmp_path / "link.jsonl"
        out.symlink_to(src)
    ran = run("score", str(src), "-o", str(out), *(["--resume"] if resume else []))
    assert ran.returncode == 2 and "is the input" in ran.stderr, ran.stderr
    assert src.read_bytes() == before


def test_the_problems_file_is_never_the_output(tmp_path: Path, run: Any) -> None:
    problems = tmp_path / "problems.jsonl"
    problems.write_text(jsonl([{"task_id": "t1", "prompt": "", "test": "", "entry_point": "f"}]))
    src = tmp_path / "samples.jsonl"
    src.write_text(jsonl([{"task_id": "t1", "completion": "def f(): pass"}]))
    before = problems.read_bytes()
    ran = run("score", str(src), "--problems", str(problems), "-o", str(problems))
    assert ran.returncode == 2 and "--problems" in ran.stderr
    assert problems.read_bytes() == before


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_full_disk_is_exit_3_with_a_message(tmp_path: Path, run: Any) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(jsonl(MATH))
    ran = run("score", str(src), "-o", "/dev/full")
    assert ran.returncode == 3, ran.stderr
    assert "No space left on device" in ran.stderr and "Traceback" not in ran.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_full_standard_output_is_exit_3_with_a_message(tmp_path: Path) -> None:
    agent = Path(__file__).resolve().parents[1] / "fixtures" / "agent" / "cases.jsonl"
    src = tmp_path / "in.jsonl"
    src.write_text(agent.read_text().splitlines()[0] + "\n")
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "assay.cli", "score", str(src), "--workers", "0", "--quiet"],
            stdout=full, stderr=subprocess.PIPE, text=True, timeout=300, check=False,
        )  # fmt: skip
    assert proc.returncode == 3, proc.stderr
    assert "cannot write standard output" in proc.stderr and "Traceback" not in proc.stderr


def test_an_id_field_missing_everywhere_is_an_error_with_a_hint(tmp_path: Path, run: Any) -> None:
    rows = [{"qid": f"q{k}", "domain": "math", "response": "\\boxed{1}", "reference": "1"}
            for k in range(2)]  # fmt: skip
    src = tmp_path / "in.jsonl"
    src.write_text(jsonl(rows))
    out = tmp_path / "out.jsonl"
    ran = run("score", str(src), "--id-field", "quid", "-o", str(out))
    assert ran.returncode == 6
    assert "Did you mean --id-field qid?" in ran.stderr, ran.stderr
    assert {s for _, s in verdicts(out)} == {"error"}
    assert run("score", str(src), "--id-field", "qid", "-o", str(out)).returncode == 0
    assert verdicts(out) == [("q0", "correct"), ("q1", "correct")]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (["x"], "error"),
        ({"a": 1}, "error"),
        (1.5, "error"),
        (True, "error"),
        ("", "line-1"),  # an empty cell: no id
        (7, "7"),
        (3.0, "3"),  # an integer id column with gaps, as pandas writes it
        (None, "line-1"),  # no id: the line's number
    ],
)
def test_an_id_that_is_no_id_is_refused(
    tmp_path: Path, run: Any, value: Any, expected: str
) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(
        jsonl([{"id": value, "domain": "math", "response": "\\boxed{1}", "reference": "1"}])
    )
    out = tmp_path / "out.jsonl"
    run("score", str(src), "-o", str(out))
    ((row_id, status),) = verdicts(out)
    if expected == "error":
        assert status == "error" and row_id == "line-1"
        assert "must be a non-empty string or an integer" in out.read_text()
    else:
        assert (row_id, status) == (expected, "correct")


@pytest.mark.parametrize("opener", [gzip.open, bz2.open, lzma.open], ids=["gz", "bz2", "xz"])
def test_compressed_input_is_read(tmp_path: Path, run: Any, opener: Any) -> None:
    src = tmp_path / "in.jsonl.z"
    with opener(src, "wb") as handle:
        handle.write(jsonl(MATH).encode())
    out = tmp_path / "out.jsonl"
    assert run("score", str(src), "-o", str(out)).returncode == 0
    assert verdicts(out) == [("r1", "correct"), ("r2", "incorrect")]


def test_a_json_list_and_json_lines_named_json(tmp_path: Path, run: Any) -> None:
    listed = tmp_path / "predictions.json"
    listed.write_text(json.dumps(MATH, indent=2))
    lines = tmp_path / "lines.json"
    lines.write_text(jsonl(MATH))
    for src in (listed, lines):
        out = tmp_path / f"{src.stem}.out.jsonl"
        assert run("score", str(src), "-o", str(out)).returncode == 0
        assert verdicts(out) == [("r1", "correct"), ("r2", "incorrect")]


def test_a_json_list_keeps_every_item(tmp_path: Path, run: Any) -> None:
    src = tmp_path / "mixed.json"
    src.write_text(json.dumps([MATH[0], ["not", "a", "record"], MATH[1]]))
    out = tmp_path / "out.jsonl"
    run("score", str(src), "-o", str(out))
    assert [s for _, s in verdicts(out)] == ["correct", "error", "incorrect"]


@pytest.mark.parametrize("delimiter", [",", "\t"])
def test_csv_and_tsv_with_a_header(tmp_path: Path, run: Any, delimiter: str) -> None:
    suffix = ".csv" if delimiter == "," else ".tsv"
    src = tmp_path / f"in{suffix}"
    header = delimiter.join(["id", "domain", "response", "reference", "note"])
    body = [
        delimiter.join(["r1", "math", "\\boxed{2}", "2", ""]),  # an empty cell: no field
        delimiter.join(["r2", "math", '"so it is, \\boxed{3}"', "2", "x"]),
    ]
    src.write_text("\n".join([header, *body]) + "\n")
    out = tmp_path / "out.jsonl"
    assert run("score", str(src), "-o", str(out)).returncode == 0
    assert verdicts(out) == [("r1", "correct"), ("r2", "incorrect")]


def test_a_task_missing_from_problems_keeps_its_id(tmp_path: Path, run: Any) -> None:
    problems = tmp_path / "problems.jsonl"
    problems.write_text(jsonl([{"task_id": "t1", "prompt": "", "test": "", "entry_point": "f"}]))
    src = tmp_path / "samples.jsonl"
    src.write_text(
        jsonl([{"task_id": "T/9", "completion": "x"}, {"task_id": "T/9", "completion": "y"}])
    )
    out = tmp_path / "out.jsonl"
    run("score", str(src), "--problems", str(problems), "-o", str(out))
    assert verdicts(out) == [("T/9", "error"), ("T/9#1", "error")]
    assert "'T/9' is not in --problems" in out.read_text()


def test_the_hint_names_the_text_inside_a_struct_column(tmp_path: Path, run: Any) -> None:
    rows = [{"uid": "a", "domain": "math", "output": {"text": "\\boxed{1}", "tokens": 5},
             "reference": "1"}]  # fmt: skip
    src = tmp_path / "in.jsonl"
    src.write_text(jsonl(rows))
    ran = run("score", str(src), "-o", str(tmp_path / "out.jsonl"))
    assert "Did you mean --response-field output.text?" in ran.stderr, ran.stderr


def test_a_negative_index_counts_from_the_end(tmp_path: Path, run: Any) -> None:
    rows = [{"id": "a", "domain": "math", "reference": "3", "messages": [
        {"role": "user", "content": "1+2?"}, {"role": "assistant", "content": "\\boxed{3}"}]}]  # fmt: skip
    src = tmp_path / "in.jsonl"
    src.write_text(jsonl(rows))
    out = tmp_path / "out.jsonl"
    assert run("score", str(src), "--response-field", "messages.-1.content", "-o", str(out)) \
        .returncode == 0  # fmt: skip
    assert verdicts(out) == [("a", "correct")]


def test_a_null_sample_is_its_own_record(tmp_path: Path, run: Any) -> None:
    rows = [{"id": "p0", "domain": "math", "reference": "1",
             "responses": ["\\boxed{1}", None, "\\boxed{2}"]}]  # fmt: skip
    src = tmp_path / "in.jsonl"
    src.write_text(jsonl(rows))
    out = tmp_path / "out.jsonl"
    run("score", str(src), "-o", str(out))
    assert verdicts(out) == [("p0#0", "correct"), ("p0#1", "unparsable"), ("p0#2", "incorrect")]
    assert {json.loads(line)["group"] for line in out.read_text().splitlines()} == {"p0"}


def test_a_misspelt_split_is_named(tmp_path: Path, run: Any) -> None:
    import datasets

    folder = tmp_path / "dsdict"
    datasets.DatasetDict(
        {"train": datasets.Dataset.from_list(MATH), "test": datasets.Dataset.from_list(MATH)}
    ).save_to_disk(str(folder))
    ran = run("score", str(folder), "--split", "tran", "-o", str(tmp_path / "o.jsonl"))
    assert ran.returncode == 3 and "no split 'tran'" in ran.stderr, ran.stderr


def test_domain_names_a_verl_set_no_domain_claims(tmp_path: Path, run: Any) -> None:
    rows = [
        {"data_source": "my_org/custom_math", "response": "\\boxed{2}",
         "reward_model": {"ground_truth": "2"}, "extra_info": {"split": "train", "index": 0}},
        {"domain": "my_org/custom_math", "id": "named", "response": "\\boxed{2}",
         "reference": "2"},  # a domain named outright stays the row's own word
    ]  # fmt: skip
    src = tmp_path / "in.jsonl"
    src.write_text(jsonl(rows))
    out = tmp_path / "out.jsonl"
    run("score", str(src), "--domain", "math", "-o", str(out))
    assert verdicts(out) == [("my_org/custom_math-train-0", "correct"), ("named", "error")]
    run("score", str(src), "-o", str(out))  # without --domain: an unknown domain, as before
    assert verdicts(out) == [("my_org/custom_math-train-0", "error"), ("named", "error")]
