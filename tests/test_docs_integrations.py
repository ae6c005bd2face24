"""The recipes of docs/integrations.md, taken from the page and run as written.

Every fenced ``bash`` / ``python`` block of the page is one of the cases below, so a new or
changed recipe that is not run here fails :func:`test_every_recipe_is_run`. What needs a GPU
or a model download is cut at that point and said so: verl's ``main_ppo`` command lines are
composed with verl's own YAML (as its CLI does) and their reward side loaded by verl's own
functions; OpenRLHF's launch line gives its flags (checked against OpenRLHF's own parser
source) and the URL its client posts to, which is posted to by that client; TRL's block is
imported, not trained. The server's port and worker count are this machine's (``--port 0``,
``--workers 1``): a fixed port can be taken and 8 workers do not fit 2 cores.
"""

from __future__ import annotations

import ast
import asyncio
import os
import re
import shlex
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "integrations.md"


@dataclass(frozen=True)
class Block:
    heading: str
    language: str
    text: str


def _blocks() -> list[Block]:
    blocks: list[Block] = []
    heading = ""
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        fence = re.match(r"^```(\w*)\s*$", line)
        if fence:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            blocks.append(Block(heading, fence.group(1), "\n".join(lines[i + 1 : end])))
            i = end
        i += 1
    return [b for b in blocks if b.language in ("bash", "python")]


BLOCKS = _blocks()


def _find(heading: str, contains: str) -> Block:
    found = [b for b in BLOCKS if b.heading.startswith(heading) and contains in b.text]
    assert len(found) == 1, f"{heading!r} / {contains!r}: {len(found)} blocks"
    return found[0]


def _command_lines(block: Block) -> list[str]:
    return block.text.replace("\\\n", " ").splitlines()


def _main_ppo_overrides(block: Block) -> list[str]:
    (line,) = [c for c in _command_lines(block) if "verl.trainer.main_ppo" in c]
    words = shlex.split(line)
    return [w for w in words[words.index("verl.trainer.main_ppo") + 1 :] if "=" in w]


# (heading, text that picks the block, how it is run)
RECIPES = [
    ("TRL", "GRPOTrainer(", "imports only: training needs a model download"),
    ("`custom_reward_function`", "main_ppo", "main_ppo overrides: verl loads assay's function"),
    ("The reward manager", "reward.reward_manager.name=assay", "main_ppo overrides: registry"),
    ("The reward manager", "source=importlib", "main_ppo overrides: importlib"),
    ("verl parquet files", "write_verl_parquet", "run as written"),
    ("OpenRLHF", "assay serve", "server as written, OpenRLHF's client posts to the doc's URL"),
    ("Hugging Face datasets", "verdict_columns", "run as written"),
]


def test_every_recipe_is_run() -> None:
    covered = {_find(heading, contains) for heading, contains, _ in RECIPES}
    assert covered == set(BLOCKS), [b.heading for b in set(BLOCKS) - covered]


def test_trl_recipe_imports() -> None:
    block = _find("TRL", "GRPOTrainer(")
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

    config = _compose(_main_ppo_overrides(_find("`custom_reward_function`", "main_ppo")))
    loaded = get_custom_reward_fn(config)
    assert loaded is not None, "verl's main_ppo would score with its own function"
    # verl wraps the function with the reward_kwargs: partial(_call_with_kwargs, fn, kwargs)
    function, kwargs = loaded.args
    assert function is adapter.compute_score
    assert kwargs == {"workers": 4}


@pytest.mark.parametrize("contains", ["reward.reward_manager.name=assay", "source=importlib"])
def test_verl_reward_manager_recipes(contains: str) -> None:
    from assay.rewards.adapters.verl_loop import AssayRewardLoopManager
    from verl.trainer.ppo.reward import load_reward_manager, resolve_reward_manager_cls

    config = _compose(_main_ppo_overrides(_find("The reward manager", contains)))
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
    exec(_find("verl parquet files", "write_verl_parquet").text, namespace)
    rows = namespace["rows"]
    assert [r["extra_info"]["id"] for r in rows] == ["p1", "p2"]
    assert rows[0]["reward_model"] == {"style": "rule", "ground_truth": "2"}


def test_datasets_recipe() -> None:
    from datasets import Dataset

    block = _find("Hugging Face datasets", "verdict_columns")
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


def test_openrlhf_recipe() -> None:
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    block = _find("OpenRLHF", "assay serve")
    lines = _command_lines(block)
    (export,) = [line for line in lines if line.startswith("export ASSAY_TOKEN=")]
    token = subprocess.run(
        ["bash", "-c", f'{export}\nprintf %s "$ASSAY_TOKEN"'],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},
    ).stdout
    assert len(token) >= 24 and "," not in token
    (serve,) = [line for line in lines if line.startswith("assay serve")]
    words = shlex.split(serve.rstrip("& ").replace('"$ASSAY_TOKEN"', shlex.quote(token)))
    words[words.index("--port") + 1] = "0"
    words[words.index("--workers") + 1] = "1"
    (train,) = [line for line in lines if "openrlhf.cli.train_ppo_ray" in line]
    flags = shlex.split(train)
    # the flags exist in OpenRLHF's own parser (read from its source: importing it needs GPUs)
    import openrlhf

    parser_source = (Path(openrlhf.__file__).parent / "cli" / "train_ppo_ray.py").read_text()
    for flag in (f for f in flags if f.startswith("--")):
        assert f'"{flag}"' in parser_source, flag
    url_template = flags[flags.index("--reward.remote_url") + 1]
    process = subprocess.Popen(
        [sys.executable, "-m", "assay.cli", *words[1:]], stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert "listening on http://127.0.0.1:" in line, line
        port = line.rsplit(":", 1)[1].strip()
        url = url_template.replace("$ASSAY_TOKEN", token).replace(":8000/", f":{port}/")
        executor = SingleTurnAgentExecutor(remote_rm_url=url)
        answers = asyncio.run(
            executor._fetch_rewards_via_http(["Q? #### 72<|im_end|>"], ["Q? "], ["72"])
        )
        assert answers[0]["rewards"] == [1.0]
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
