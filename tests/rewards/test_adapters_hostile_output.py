"""Trainer adapters fed what no UTF-8 file can hold: every call returns, every value is typed.

A lone surrogate (``\\ud800``) in a completion, an id, a reference or a column, NaN and
non-JSON objects in the columns, and a verifier whose verdicts and exceptions carry them: TRL's
reward function, verl's ``compute_score`` / ``compute_score_batch`` and the datasets map
function return one value per item and never raise.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
from assay.rewards.adapters._batch import SharedScorer
from assay.rewards.adapters.datasets import VerdictColumns
from assay.rewards.adapters.trl import reward_function
from assay.rewards.adapters.verl import compute_score, compute_score_batch
from hostile_verifier import HostileOutputVerifier, Unprintable

from assay.registry import Registry
from assay.runner import ScoreOptions

COMPLETIONS = [
    "\\boxed{4} \ud800",  # a correct answer with a lone surrogate after it
    "\udfff",
    [{"role": "assistant", "content": "\\boxed{4}\ud83d"}],  # chat form, lone high surrogate
    "raise:\ud800 boom",  # the hostile verifier raises with it in the message
]


@pytest.fixture(scope="module")
def hostile_scorer() -> Iterator[SharedScorer]:
    registry = Registry()
    registry.register(HostileOutputVerifier)
    scorer = SharedScorer(ScoreOptions(workers=1), registry)
    yield scorer
    scorer.close()


def test_trl_reward_function_with_hostile_verdicts(hostile_scorer: SharedScorer) -> None:
    reward = reward_function("hostile-output", scorer=hostile_scorer)
    columns: dict[str, list[Any]] = {
        "domain": ["hostile-output"] * 4,  # a scorer of its own routes by the rows' domain
        "reference": ["4\ud800", "x", "4", "x"],
        "id": ["a\ud800", "b", "c", "d"],
        "meta": [{"nan": math.nan, "obj": Unprintable()}, None, {"k\udfff": [1e999]}, {}],
    }
    rewards = reward(["p\ud800"] * 4, COMPLETIONS, None, **columns)
    # echoed verdicts are the verifier's incorrect (0.0); the raise is masked (None)
    assert rewards == [0.0, 0.0, 0.0, None]


def test_trl_reward_function_math() -> None:
    reward = reward_function("math", workers=1)
    rewards = reward(None, COMPLETIONS[:3], None, reference=["4", "4", "4"])
    assert rewards[0] == 1.0  # the surrogate is replaced, the boxed answer still read
    assert all(r is None or 0.0 <= r <= 1.0 for r in rewards)


def test_verl_compute_score_with_surrogates() -> None:
    single = compute_score("lighteval/MATH", "\\boxed{4} \ud800", "4\ud800", {"index": "\ud800"})
    assert set(single) == {"score", "status", "masked"}
    batch = compute_score_batch(
        ["math", "math", "nope\ud800"],
        ["\\boxed{4}\udfff", "\ud800", "\\boxed{4}"],
        ["4", '{"answer": "4\\ud800"}', "4"],
        [None, {"split": "\ud800", "index": 1}, None],
        workers=1,
    )
    # the lone "\ud800" response is U+FFFD, no answer in it: the model's fault, not masked
    assert [item["status"] for item in batch] == ["correct", "unparsable", "error"]
    assert [item["masked"] for item in batch] == [False, False, True]
    assert all(isinstance(item["score"], float) for item in batch)


def test_datasets_map_columns_are_strict_json() -> None:
    columns = VerdictColumns(ScoreOptions(workers=1))
    batch = {
        "id": ["a\ud800", "b", "c"],
        "domain": ["math", "m\ud800th", "math"],
        "response": ["\\boxed{4}\ud800", "\\boxed{4}", "\\boxed{\udfff}"],
        "reference": ["4", "4", "4"],
    }
    out = columns(batch)
    # a surrogate in the domain name is an unknown domain (masked); "\\boxed{\udfff}" holds no
    # answer once the surrogate is replaced
    assert out["assay_status"] == ["correct", "error", "unparsable"]
    assert out["assay_masked"] == [False, True, False]
    for text in out["assay_checks"] + out["assay_error"]:
        text.encode("utf-8")  # no lone surrogate survives
    for text in out["assay_checks"]:
        json.loads(text, parse_constant=_reject)


def _reject(name: str) -> None:
    raise ValueError(f"{name} is not JSON")
