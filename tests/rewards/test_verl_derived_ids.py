"""Ids derived from verl rows name the data source: a concatenated train set does not collide.

verl's own preprocessing scripts (``examples/data_preprocess/gsm8k.py``, ``math_dataset.py``)
give each row ``extra_info = {"split", "index", ...}`` numbered from 0 in each file, and
``data.train_files=[gsm8k.parquet, math.parquet]`` concatenates the files (``RLHFDataset``).
An id of ``"<split>-<index>"`` made ``train-0`` of GSM8K and ``train-0`` of MATH one id: a
``duplicate id`` error for the second, or one GRPO group of two unrelated prompts when the rows
hold n samples. The derived id is ``"<data_source>-<split>-<index>"`` (docs/formats.md).

The train set is read by verl's ``RLHFDataset`` from two parquet files, as ``main_ppo`` reads
``data.train_files``; the rows it holds are then scored as ``assay score`` reads a verl parquet
of generations, by ``assay.api.score``, and drawn by the task sampler.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import torch
from assay.rewards.batch import compute_rewards
from assay.rewards.sampling import SamplerConfig, TaskSampler
from omegaconf import OmegaConf
from verl.utils.dataset.rl_dataset import RLHFDataset

from assay.api import score
from assay.cli import main

GSM8K = "openai/gsm8k"
MATH = "DigitalLearningGmbH/MATH-lighteval"  # verl's math_dataset.py data_source

# (data_source, question, ground truth, [responses], [statuses]): both files number from 0
SOURCES: dict[str, list[tuple[str, str, list[str], list[str]]]] = {
    GSM8K: [
        ("Natalia sold 48 clips in April and half as many in May. How many in all?", "72",
         ["48 + 24 = 72\n#### 72", "48 + 24 = 72\n#### 72"], ["correct", "correct"]),
        ("Weng earns 12 an hour. How much for 50 minutes?", "10",
         ["12 * 50 / 60 = 10\n#### 10", "#### 12"], ["correct", "incorrect"]),
    ],
    MATH: [
        ("What is $1 + 2$?", "3", ["$\\boxed{3}$", "$\\boxed{4}$"], ["correct", "incorrect"]),
        ("Simplify $\\frac{2}{4}$.", "\\frac{1}{2}",
         ["$\\boxed{\\frac{1}{2}}$", "$\\boxed{0.5}$"], ["correct", "correct"]),
        ("What is $2^3$?", "8", ["$\\boxed{8}$", "$\\boxed{9}$"], ["correct", "incorrect"]),
    ],
}  # fmt: skip


def _verl_file(path: Path, source: str, split: str = "train") -> Path:
    """A parquet file in the schema of verl's preprocessing scripts."""
    rows = [
        {
            "data_source": source,
            "prompt": [{"role": "user", "content": question}],
            "ability": "math",
            "reward_model": {"style": "rule", "ground_truth": truth},
            "extra_info": {"split": split, "index": i, "question": question},
        }
        for i, (question, truth, _, _) in enumerate(SOURCES[source])
    ]
    pq.write_table(pa.Table.from_pylist(rows), str(path))
    return path


@pytest.fixture(scope="module")
def train_rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("verl-ids")
    files = [_verl_file(folder / "gsm8k.parquet", GSM8K), _verl_file(folder / "math.parquet", MATH)]
    config = OmegaConf.create({"filter_overlong_prompts": False, "cache_dir": str(folder)})
    dataset = RLHFDataset(data_files=[str(f) for f in files], tokenizer=None, config=config)
    rows: list[dict[str, Any]] = list(dataset.dataframe)
    assert [r["extra_info"]["index"] for r in rows] == [0, 1, 0, 1, 2]  # the overlap
    return rows


def _expected() -> list[tuple[str, int, str, list[str]]]:
    """(data_source, index, id, statuses) of each row, in the order verl concatenates them."""
    return [
        (source, i, f"{source}-train-{i}", statuses)
        for source, items in SOURCES.items()
        for i, (_, _, _, statuses) in enumerate(items)
    ]


def _with_responses(rows: list[dict[str, Any]], n: int | None) -> list[dict[str, Any]]:
    out = []
    for row, (source, i, _, _) in zip(rows, _expected(), strict=True):
        responses = SOURCES[source][i][2]
        extra = {"response": responses[0]} if n is None else {"responses": responses[:n]}
        out.append({**row, **extra})
    return out


@pytest.mark.parametrize("n", [None, 1, 2], ids=["response", "responses-1", "responses-2"])
def test_cli_scores_a_concatenated_verl_parquet_without_collisions(
    tmp_path: Path, train_rows: list[dict[str, Any]], n: int | None, capsys: Any
) -> None:
    src = tmp_path / "generations.parquet"
    pq.write_table(pa.Table.from_pylist(_with_responses(train_rows, n)), str(src))
    out = tmp_path / "verdicts.jsonl"
    code = main(["score", str(src), "-o", str(out), "--workers", "0"])
    capsys.readouterr()
    assert code == 0
    got = [json.loads(line) for line in out.read_text().splitlines()]
    if n is None:
        want = [(rid, statuses[0], None) for _, _, rid, statuses in _expected()]
    else:
        want = [
            (f"{rid}#{k}", statuses[k], rid)
            for _, _, rid, statuses in _expected()
            for k in range(n)
        ]
    assert [(v["id"], v["status"], v.get("group")) for v in got] == want
    assert not [v for v in got if "duplicate" in json.dumps(v)]


def test_groups_of_n_samples_stay_per_prompt_for_grpo(train_rows: list[dict[str, Any]]) -> None:
    results = score(_with_responses(train_rows, 2), workers=1)
    groups = [r.group for r in results]
    assert groups == [rid for _, _, rid, _ in _expected() for _ in range(2)]
    mask = torch.ones(len(results), 4)
    batch = compute_rewards(results, mask, estimator="grpo")
    advantages = batch.advantages[:, -1].tolist()
    # GSM8K train-0 answered right twice: no spread, no advantage (merged with MATH train-0,
    # right then wrong, it was pushed up; MATH's right answer was pushed down)
    assert advantages[0:2] == [0.0, 0.0]
    assert advantages[4] > 0 > advantages[5]
    assert batch.zero_variance.tolist()[0:2] == [True, True]
    rloo = compute_rewards(results, mask, estimator="rloo").advantages[:, -1].tolist()
    assert rloo[0:2] == [0.0, 0.0] and rloo[4] == 1.0 and rloo[5] == -1.0


@pytest.mark.parametrize(
    ("extra_info", "source", "want"),
    [
        ({"split": "train", "index": 7}, GSM8K, f"{GSM8K}-train-7"),
        ({"split": "test", "index": 7}, GSM8K, f"{GSM8K}-test-7"),
        ({"index": 7}, GSM8K, f"{GSM8K}-7"),  # no split
        ({"split": "train", "index": "a7"}, MATH, f"{MATH}-train-a7"),
        ({"split": "train", "index": 7, "id": "q-7"}, MATH, f"{MATH}-train-7"),
    ],
)
def test_the_derived_id_is_data_source_split_index(
    extra_info: dict[str, Any], source: str, want: str
) -> None:
    row = {
        "data_source": source,
        "response": "#### 7",
        "reward_model": {"ground_truth": "7"},
        "extra_info": extra_info,
    }
    first = score([row], workers=1, domain="math")[0]
    again = score([dict(row)], workers=1, domain="math")[0]  # stable: the same row, the same id
    assert first.id == again.id == want
    # an explicit id is the row's own and wins
    assert score([{**row, "id": "mine"}], workers=1, domain="math")[0].id == "mine"


def test_the_task_sampler_reads_a_concatenated_train_set(train_rows: list[dict[str, Any]]) -> None:
    sampler = TaskSampler(train_rows, SamplerConfig(group_size=2), seed=3)
    assert [t.id for t in sampler.tasks] == [rid for _, _, rid, _ in _expected()]
    assert sorted(sampler.sample(5)) == [0, 1, 2, 3, 4]
    sampler.update([f"{MATH}-train-0", f"{GSM8K}-train-0"], [1.0, 0.0])
