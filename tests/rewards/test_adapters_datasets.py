"""The datasets adapter: ``Dataset.map(verdict_columns(), batched=True)``."""

from __future__ import annotations

import json
import math

from assay.rewards.adapters.datasets import verdict_columns
from datasets import Dataset


def test_map_adds_verdict_columns() -> None:
    dataset = Dataset.from_list(
        [
            # assay records
            {"id": "a", "domain": "math", "response": "\\boxed{2}", "reference": "2"},
            {"id": "b", "domain": "math", "response": "\\boxed{3}", "reference": "2"},
            # no answer at all: the model's fault, scored 0
            {"id": "c", "domain": "math", "response": "I don't know", "reference": "2"},
            # an unknown domain is infrastructure: masked (NaN), never 0
            {"id": "d", "domain": "nope", "response": "\\boxed{2}", "reference": "2"},
        ]
    )
    scored = dataset.map(verdict_columns(workers=1), batched=True, batch_size=3)
    assert scored["assay_status"][:2] == ["correct", "incorrect"]
    assert scored["assay_status"][3] == "error"
    assert scored["assay_score"][:2] == [1.0, 0.0]
    assert math.isnan(scored["assay_score"][3])
    assert scored["assay_masked"] == [False, False, False, True]
    assert scored["assay_error"][0] == ""
    assert "nope" in scored["assay_error"][3]
    assert scored["assay_verifier"][0].startswith("math@")
    assert isinstance(json.loads(scored["assay_checks"][0]), list)
    assert scored["id"] == ["a", "b", "c", "d"]


def test_verl_rows_and_default_domain() -> None:
    dataset = Dataset.from_list(
        [
            {"response": "\\boxed{7}", "reward_model": {"style": "rule", "ground_truth": "7"}},
            {"response": "\\boxed{8}", "reward_model": {"style": "rule", "ground_truth": "7"}},
        ]
    )
    scored = dataset.map(verdict_columns("math", workers=1, prefix="v_"), batched=True)
    assert scored["v_score"] == [1.0, 0.0]


def test_first_batch_all_masked_keeps_column_types() -> None:
    # a first batch of only masked verdicts must not fix assay_score's type to null
    dataset = Dataset.from_list(
        [
            {"id": "x", "domain": "nope", "response": "1", "reference": "1"},
            {"id": "y", "domain": "math", "response": "\\boxed{1}", "reference": "1"},
        ]
    )
    scored = dataset.map(verdict_columns(workers=1), batched=True, batch_size=1)
    assert math.isnan(scored["assay_score"][0])
    assert scored["assay_score"][1] == 1.0
    assert scored["assay_error"][1] == ""
