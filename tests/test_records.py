"""Bad input is data: every row becomes exactly one record or one typed verdict."""

from __future__ import annotations

from typing import Any

import pytest

from assay.records import RawRow, RecordBuilder
from assay.registry import Registry
from assay.types import Record, Result

GOOD: dict[str, Any] = {"id": "a", "domain": "probe", "response": "ok", "reference": "x"}


def _build(registry: Registry, row: RawRow, **kwargs: Any) -> Record | Result:
    return RecordBuilder(registry, **kwargs).build(row)


@pytest.mark.parametrize(
    ("row", "status", "needle"),
    [
        # a torn or hand-edited line: the id is salvaged from the raw text
        (
            RawRow(3, problem="malformed JSON: x", raw_text='{"id": "q7", "resp'),
            "error",
            "malformed",
        ),
        (RawRow(4, data=[1, 2]), "error", "expected an object"),  # JSON, but not an object
        (RawRow(5, data={**GOOD, "domain": "prob"}), "error", "Did you mean 'probe'"),  # typo
        (
            RawRow(6, data={k: v for k, v in GOOD.items() if k != "domain"}),
            "error",
            "missing field 'domain'",
        ),
        (
            RawRow(7, data={k: v for k, v in GOOD.items() if k != "response"}),
            "error",
            "missing field 'response'",
        ),
        (
            RawRow(8, data={k: v for k, v in GOOD.items() if k != "reference"}),
            "error",
            "missing field 'reference'",
        ),
        (RawRow(9, data={**GOOD, "response": 42}), "unparsable", "must be a string"),  # not text
        (
            RawRow(10, data={**GOOD, "response": None}),
            "unparsable",
            "response is null",
        ),  # empty generation
        (
            RawRow(11, data={**GOOD, "response": "x" * 10_000_001}),
            "unparsable",
            "over the limit",
        ),  # 10 MB
        (RawRow(12, data={**GOOD, "steps": "not a list"}), "error", "'steps'"),
        (RawRow(13, data={**GOOD, "domain": 7}), "error", "must be a string"),
    ],
    ids=[
        "malformed-json",
        "not-object",
        "unknown-domain",
        "no-domain",
        "no-response",
        "no-reference",
        "int-response",
        "null-response",
        "huge-response",
        "bad-steps",
        "int-domain",
    ],
)
def test_bad_rows_become_typed_verdicts(
    probe_registry: Registry, row: RawRow, status: str, needle: str
) -> None:
    result = _build(probe_registry, row)
    assert isinstance(result, Result)
    assert result.status.value == status
    assert needle in (result.verdict.message or "")
    assert result.id  # every row keeps an id so it can be found in the output


def test_salvaged_id_from_malformed_line(probe_registry: Registry) -> None:
    result = _build(probe_registry, RawRow(3, problem="bad", raw_text='{"id": "q7", "resp'))
    assert result.id == "q7"


def test_duplicate_ids_are_flagged(probe_registry: Registry) -> None:
    builder = RecordBuilder(probe_registry)
    assert isinstance(builder.build(RawRow(1, GOOD)), Record)
    second = builder.build(RawRow(2, GOOD))
    assert isinstance(second, Result) and "duplicate id" in (second.verdict.message or "")


def test_verl_row_is_mapped(probe_registry: Registry) -> None:
    row = {
        "data_source": "probe/gsm8k",
        "prompt": [{"role": "user", "content": "1+1?"}],
        "ability": "math",
        "reward_model": {"style": "rule", "ground_truth": "2"},
        "extra_info": {"split": "test", "index": 17},
        "response": "ok",
    }
    record = _build(probe_registry, RawRow(1, row))
    assert isinstance(record, Record)
    assert (record.id, record.domain, record.reference) == ("probe/gsm8k-test-17", "probe", "2")
    assert record.meta["extra_info"] == {"split": "test", "index": 17}


def test_verl_json_ground_truth_is_decoded(probe_registry: Registry) -> None:
    row = {
        "data_source": "probe",
        "response": "ok",
        "reward_model": {"ground_truth": '{"tests": [1, 2]}'},
    }
    record = _build(probe_registry, RawRow(1, row))
    assert isinstance(record, Record) and record.reference == {"tests": [1, 2]}


def test_default_domain_fills_missing(probe_registry: Registry) -> None:
    row = {k: v for k, v in GOOD.items() if k != "domain"}
    record = _build(probe_registry, RawRow(1, row), default_domain="probe")
    assert isinstance(record, Record) and record.domain == "probe"
