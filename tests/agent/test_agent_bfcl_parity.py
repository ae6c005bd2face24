"""assay and BFCL's own AST checker agree on a slice of BFCL v4's single-turn categories.

The same harness as ``bench/agent_bfcl_bench.py`` (which runs every row): the ground-truth
answer of each row and systematic perturbations of it (wrong value, wrong type, missing /
extra / duplicated call, wrong function, missing / extra argument, string variants), judged by
BFCL's checker (``bfcl-eval``, installed ``--no-deps`` by the Makefile) and by assay reading
the row as BFCL writes it. The one kind of disagreement allowed is documented in docs/agent.md:
a string variant of an enum value, which BFCL's AST checker accepts (it does not check enums)
and assay's schema check refuses (enums are exact).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "agent_bfcl_bench.py"
ROWS_PER_CATEGORY = 4


def _bench() -> ModuleType:
    if "agent_bfcl_bench" in sys.modules:
        return sys.modules["agent_bfcl_bench"]
    spec = importlib.util.spec_from_file_location("agent_bfcl_bench", BENCH)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {BENCH}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def judged() -> list[Any]:
    bench = _bench()
    return list(bench.judge_all(list(bench.CATEGORIES), ROWS_PER_CATEGORY))


def test_every_category_and_perturbation_is_covered(judged: list[Any]) -> None:
    categories = {j.category for j in judged}
    assert categories == set(_bench().CATEGORIES)
    kinds = {j.kind for j in judged}
    assert {"ground_truth", "ground_truth_json", "wrong_value", "wrong_type", "missing_call",
            "extra_call", "duplicate_call", "wrong_function", "string_variant", "no_call",
            "call"} <= kinds  # fmt: skip


def test_ground_truth_is_correct_for_both(judged: list[Any]) -> None:
    gold = [j for j in judged if j.kind in ("ground_truth", "ground_truth_json", "no_call")]
    assert gold
    for item in gold:
        assert item.bfcl, (item.row_id, item.bfcl_why)  # the harness builds valid answers
        assert item.assay, (item.row_id, item.kind, item.assay_status, item.assay_why)


@pytest.mark.parametrize(
    "kind",
    ["wrong_value", "wrong_type", "missing_arg", "extra_arg", "missing_call", "extra_call",
     "duplicate_call", "wrong_function", "call"],
)  # fmt: skip
def test_perturbations_are_wrong_for_both(judged: list[Any], kind: str) -> None:
    items = [j for j in judged if j.kind == kind]
    assert items
    for item in items:
        assert not item.assay, (item.row_id, item.assay_status, item.assay_why)
        assert item.bfcl == item.assay, (item.row_id, item.bfcl_why)


def test_only_enum_exactness_disagrees(judged: list[Any]) -> None:
    for item in judged:
        if item.bfcl == item.assay:
            continue
        enum = "is not one of" in item.assay_why or "matches none of the anyOf" in item.assay_why
        assert item.kind == "string_variant" and item.bfcl and enum, (
            item.row_id, item.kind, item.assay_why, item.bfcl_why,
        )  # fmt: skip
    agree = sum(j.bfcl == j.assay for j in judged) / len(judged)
    assert agree >= 0.97
