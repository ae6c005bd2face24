"""verl's offline evaluation (``python -m verl.trainer.main_eval``) with assay as its scorer.

main_eval reads a parquet of generated responses (``responses``: n per prompt), scores each
with the ``custom_reward_function`` in a Ray task and averages with ``np.mean``: it needs a
float per response. assay's ``compute_score`` returns a dict (``score``, ``status``,
``masked``) for the training path, which ``np.mean`` cannot average; ``compute_score_float``
is the float form. The run here is verl's own ``main`` (the function under ``@hydra.main``),
on its own ``evaluation`` YAML composed with the overrides its CLI takes, on a local Ray.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import ray
import verl
from assay.rewards.adapters.verl import compute_score_float
from hydra import compose, initialize_config_dir

CONFIG_DIR = Path(verl.__file__).parent / "trainer" / "config"
ADAPTER = "pkg://assay.rewards.adapters.verl"

# (data_source, ground truth, responses): a gsm8k set and a MATH set, n = 2 and 3
GENERATED: list[tuple[str, str, list[str]]] = [
    ("openai/gsm8k", "72", ["48 + 24 = 72\n#### 72", "#### 71"]),
    ("openai/gsm8k", "10", ["#### 10<|im_end|>", "#### 10"]),
    ("lighteval/MATH", "\\frac{1}{2}", ["$\\boxed{0.5}$", "$\\boxed{\\frac12}$", "so 1/3"]),
    ("lighteval/MATH", "3", ["$\\boxed{3}$", "$\\boxed{4}$", "$\\boxed{3}$"]),
]
# main_eval's means: per prompt, then per data source
WANT = {
    "test_score/openai/gsm8k": (0.5 + 1.0) / 2,
    "test_score/lighteval/MATH": (2 / 3 + 2 / 3) / 2,
}


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _generated(path: Path, rows: list[tuple[str, Any, list[str]]]) -> Path:
    table = pa.Table.from_pylist(
        [
            {
                "data_source": source,
                "prompt": [{"role": "user", "content": "..."}],
                "responses": responses,
                "reward_model": {"style": "rule", "ground_truth": truth},
            }
            for source, truth, responses in rows
        ]
    )
    pq.write_table(table, str(path))
    return path


def _run_main_eval(path: Path, name: str, capsys: Any, extra: list[str] = ()) -> dict[str, float]:
    from verl.trainer import main_eval

    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base=None):
        config = compose(
            config_name="evaluation",
            overrides=[
                f"data.path={path}",
                # verl 0.9.1's get_custom_reward_fn reads reward.custom_reward_function only
                f"+reward.custom_reward_function.path={ADAPTER}",
                f"+reward.custom_reward_function.name={name}",
                "+reward.custom_reward_function.reward_kwargs.workers=1",
                *extra,
            ],
        )
    capsys.readouterr()
    main_eval.main.__wrapped__(config)  # what `python -m verl.trainer.main_eval ...` runs
    printed = capsys.readouterr().out
    pairs = re.findall(r"'(test_score/[^']+)': (?:np\.float64\()?([-\w.]+)\)?", printed)
    return {key: float(value) for key, value in pairs}


@pytest.mark.parametrize(
    ("source", "response", "truth", "want"),
    [
        ("openai/gsm8k", "#### 72", "72", 1.0),
        ("openai/gsm8k", "#### 71", "72", 0.0),
        ("lighteval/MATH", "$\\boxed{0.5}$", "\\frac{1}{2}", 1.0),
        ("lighteval/MATH", "$\\boxed{3}$", None, 0.0),  # masked (no reference): 0.0
    ],
)
def test_compute_score_float_is_a_float(
    source: str, response: str, truth: Any, want: float
) -> None:
    got = compute_score_float(source, response, truth, workers=1)
    assert type(got) is float and got == want


def test_masked_score_can_be_nan_to_show_in_the_mean() -> None:
    assert math.isnan(
        compute_score_float("math", "\\boxed{3}", None, workers=1, masked_score="nan")
    )
    assert compute_score_float("math", "\\boxed{3}", "3", workers=1, masked_score="nan") == 1.0


def test_main_eval_averages_compute_score_float(
    tmp_path: Path, local_ray: None, capsys: Any
) -> None:
    path = _generated(tmp_path / "generated.parquet", GENERATED)
    got = _run_main_eval(path, "compute_score_float", capsys)
    assert got.keys() == WANT.keys()
    for key, value in WANT.items():
        assert got[key] == pytest.approx(value)


def test_main_eval_with_nan_for_masked_items(tmp_path: Path, local_ray: None, capsys: Any) -> None:
    rows = [*GENERATED, ("openai/gsm8k", None, ["#### 72"])]  # a row with no reference
    path = _generated(tmp_path / "generated.parquet", rows)
    got = _run_main_eval(path, "compute_score_float", capsys)
    assert got["test_score/openai/gsm8k"] == pytest.approx((0.5 + 1.0 + 0.0) / 3)
    extra = ["+reward.custom_reward_function.reward_kwargs.masked_score=nan"]
    got = _run_main_eval(path, "compute_score_float", capsys, extra)
    assert math.isnan(got["test_score/openai/gsm8k"])  # an infrastructure fault is not hidden
    assert got["test_score/lighteval/MATH"] == pytest.approx(2 / 3)


def test_main_eval_cannot_average_the_dict_form(
    tmp_path: Path, local_ray: None, capsys: Any
) -> None:
    # why the float form exists: np.mean of compute_score's dicts fails in the Ray task
    path = _generated(tmp_path / "generated.parquet", GENERATED[:1])
    with pytest.raises(Exception, match="dict"):
        _run_main_eval(path, "compute_score", capsys)
