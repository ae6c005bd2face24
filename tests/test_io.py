"""JSONL, Parquet and Hugging Face datasets in; JSONL and Parquet out; resume-safe files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import datasets
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay.errors import InputError
from assay.io import open_writer, read_results, read_rows, without_nulls
from assay.types import Result, Verdict

ROWS = [
    {"id": "a", "domain": "probe", "response": "ok", "reference": "x"},
    {"id": "b", "domain": "probe", "response": "wrong", "reference": "x"},
]


def test_jsonl_bad_lines_are_rows_with_problems(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(
        json.dumps(ROWS[0]).encode()
        + b"\n\n{not json\n"
        + b'{"id": "\xff"}\n'
        + json.dumps(ROWS[1]).encode()  # no trailing newline
    )
    rows = list(read_rows(path))
    assert [r.position for r in rows] == [1, 3, 4, 5]  # blank line 2 holds no record
    assert rows[0].data == ROWS[0] and rows[3].data == ROWS[1]
    assert "malformed JSON" in (rows[1].problem or "")
    assert "not UTF-8" in (rows[2].problem or "")


def test_parquet_rows(tmp_path: Path) -> None:
    path = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS), path)
    assert [r.data for r in read_rows(path)] == ROWS


def test_saved_dataset_and_dataset_object(tmp_path: Path) -> None:
    dataset = datasets.Dataset.from_list(ROWS)
    dataset.save_to_disk(str(tmp_path / "ds"))
    assert [r.data["id"] for r in read_rows(tmp_path / "ds")] == ["a", "b"]
    assert [r.data["id"] for r in read_rows(dataset)] == ["a", "b"]
    both = datasets.DatasetDict({"train": dataset, "test": dataset})
    with pytest.raises(InputError, match="choose a split"):
        list(read_rows(both))
    assert len(list(read_rows(both, split="test"))) == 2


def test_missing_input_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        read_rows(tmp_path / "nope.jsonl")


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"], ids=["jsonl", "parquet"])
def test_writer_resume_keeps_existing_and_appends(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"out{suffix}"
    writer, done = open_writer(path, resume=False)
    writer.write(Result("a", "probe", Verdict.correct(), "probe@1", 1.0))
    writer.close()
    if suffix == ".jsonl":
        with path.open("a") as handle:
            handle.write('{"id": "torn", "sta')  # a run killed mid-line
    writer, done = open_writer(path, resume=True)
    assert done == {"a"}
    writer.write(Result("b", "probe", Verdict.incorrect(), "probe@1", 1.0))
    writer.close()
    assert [row["id"] for row in read_results(path)] == ["a", "b"]


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        (np.int64(7), 7),
        (np.float64(0.5), 0.5),
        (np.bool_(True), True),
        (np.str_("72"), "72"),
        (np.array(["a", "b"], dtype=object), ["a", "b"]),
        (np.array([[1, 2], [3, 4]]), [[1, 2], [3, 4]]),
        (
            {"answer": np.array([np.str_("1"), None], dtype=object), "k": None},
            {"answer": ["1", None]},
        ),
        (np.array([{"x": np.int32(1), "y": None}], dtype=object), [{"x": 1}]),
    ],
    ids=["int64", "float64", "bool", "str", "object-array", "2d", "nested", "array-of-dicts"],
)
def test_without_nulls_gives_numpy_values_as_python(value: Any, plain: Any) -> None:
    got = without_nulls(value)
    assert got == plain
    assert json.loads(json.dumps(got)) == plain  # plain JSON all the way down
