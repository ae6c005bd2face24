"""The recipes of docs/integrations.md, taken from the page and run as written.

Every fenced ``bash`` / ``python`` block of the page is one of the cases below, so a new or
changed recipe that is not run here fails :func:`test_every_recipe_is_run`. What needs a GPU
or a model download is cut at that point and said so: verl's ``main_ppo`` command lines are
composed with verl's own YAML (as its CLI does) and their reward side loaded by verl's own
functions; OpenRLHF's launch line gives its flags (checked against OpenRLHF's own parser
source) and the URL its client posts to, which is posted to by that client; TRL's block is
imported, not trained. The OpenRLHF recipe's server is the one
tests/rewards/test_trainer_openrlhf.py runs (one server for both).
"""

from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from docs_recipes import Block, blocks, command_lines, find

BLOCKS = blocks()


def _main_ppo_overrides(block: Block) -> list[str]:
    (line,) = [c for c in command_lines(block) if "verl.trainer.main_ppo" in c]
    words = shlex.split(line)
    return [w for w in words[words.index("verl.trainer.main_ppo") + 1 :] if "=" in w]


# (heading, text that picks the block, how it is run)
RECIPES = [
    ("TRL", "GRPOTrainer(", "imports only: training needs a model download"),
    ("`custom_reward_function`", "main_ppo", "main_ppo overrides: verl loads assay's function"),
    ("Offline evaluation", "main_eval", "main_eval overrides: verl loads the float form"),
    ("The reward manager", "reward.reward_manager.name=assay", "main_ppo overrides: registry"),
    ("The reward manager", "source=importlib", "main_ppo overrides: importlib"),
    ("verl parquet files", "write_verl_parquet", "run as written"),
    # run in tests/rewards/test_trainer_openrlhf.py: its server is this recipe's
    ("OpenRLHF", "assay serve", "server as written, OpenRLHF's client posts to the doc's URL"),
    ("Hugging Face datasets", "verdict_columns", "run as written"),
]


def test_every_recipe_is_run() -> None:
    covered = {find(heading, contains) for heading, contains, _ in RECIPES}
    assert covered == set(BLOCKS), [b.heading for b in set(BLOCKS) - covered]


def test_trl_recipe_imports() -> None:
    block = find("TRL", "GRPOTrainer(")
    tree = ast.parse(block.text)
    imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    assert imports, block.text
    namespace: dict[str, Any] = {}
    exec(compile(ast.Module(body=imports, type_ignores=[]), "docs", "exec"), namespace)
    # the reward function the recipe builds, built as written
    call = re.search(r"reward_funcs=\[(.+?)\]", block.text)
    assert call is not None
    assert callable(eval(call.group(1), namespace))


def _compose(overrides: list[str]) -> Any:
    import verl
    from hydra import compose, initialize_config_dir

    config_dir = Path(verl.__file__).parent / "trainer" / "config"
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


def test_verl_custom_reward_function_recipe() -> None:
    from assay.rewards.adapters import verl as adapter
    from verl.trainer.ppo.reward import get_custom_reward_fn

    config = _compose(_main_ppo_overrides(find("`custom_reward_function`", "main_ppo")))
    loaded = get_custom_reward_fn(config)
    assert loaded is not None, "verl's main_ppo would score with its own function"
    # verl wraps the function with the reward_kwargs: partial(_call_with_kwargs, fn, kwargs)
    function, kwargs = loaded.args
    assert function is adapter.compute_score
    assert kwargs == {"workers": 4}


def test_verl_main_eval_recipe() -> None:
    # main_eval itself is run on a local Ray in tests/rewards/test_verl_main_eval.py
    import verl
    from assay.rewards.adapters import verl as adapter
    from hydra import compose, initialize_config_dir
    from verl.trainer.ppo.reward import get_custom_reward_fn

    (line,) = [
        c for c in command_lines(find("Offline evaluation", "main_eval")) if "main_eval" in c
    ]
    words = shlex.split(line)
    overrides = [w for w in words[words.index("verl.trainer.main_eval") + 1 :] if "=" in w]
    config_dir = Path(verl.__file__).parent / "trainer" / "config"
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        config = compose(config_name="evaluation", overrides=overrides)
    loaded = get_custom_reward_fn(config)
    assert loaded is not None
    function, kwargs = loaded.args
    assert function is adapter.compute_score_float
    assert kwargs == {"workers": 4}
    assert config.data.path == "generated.parquet"


@pytest.mark.parametrize("contains", ["reward.reward_manager.name=assay", "source=importlib"])
def test_verl_reward_manager_recipes(contains: str) -> None:
    from assay.rewards.adapters.verl_loop import AssayRewardLoopManager
    from verl.trainer.ppo.reward import load_reward_manager, resolve_reward_manager_cls

    config = _compose(_main_ppo_overrides(find("The reward manager", contains)))
    assert resolve_reward_manager_cls(config) is AssayRewardLoopManager
    manager = load_reward_manager(config, tokenizer=None)
    assert isinstance(manager, AssayRewardLoopManager)
    if contains != "source=importlib":
        assert manager.domain == "math"
        assert manager._scorer.options.workers == 4


def test_verl_parquet_recipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    records = [
        {"id": "p1", "domain": "math", "prompt": "1+1?", "reference": "2"},
        {"id": "p2", "domain": "math", "prompt": "half?", "reference": {"answer": "0.5"}},
    ]
    namespace: dict[str, Any] = {"records": records}
    exec(find("verl parquet files", "write_verl_parquet").text, namespace)
    rows = namespace["rows"]
    assert [r["extra_info"]["id"] for r in rows] == ["p1", "p2"]
    assert rows[0]["reward_model"] == {"style": "rule", "ground_truth": "2"}


def test_datasets_recipe() -> None:
    from datasets import Dataset

    block = find("Hugging Face datasets", "verdict_columns")
    dataset = Dataset.from_list(
        [
            {"id": "d1", "domain": "math", "response": "\\boxed{4}", "reference": "4"},
            {"id": "d2", "domain": "math", "response": "\\boxed{5}", "reference": "4"},
        ]
    )
    namespace: dict[str, Any] = {"dataset": dataset}
    exec(block.text, namespace)
    scored = namespace["scored"]
    # the columns the recipe's comment promises
    promised = re.search(r"# adds (.+)", block.text)
    assert promised is not None
    names = re.findall(r"assay_\w+", promised.group(1))
    assert set(names) <= set(scored.column_names), scored.column_names
    assert scored["assay_status"] == ["correct", "incorrect"]
