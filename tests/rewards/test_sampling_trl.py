"""The task sampler under TRL's GRPOTrainer: the recipe in docs/rewards.md, run as written.

A real GRPOTrainer run on CPU (the tiny local model of test_adapters_trl, no downloads). Of
three prompts one has no reference, so its verdicts are 'error' (masked, reward None). The
sampler draws it first; its group's verdicts hold it back, and the prompts drawn after that
verdict leave it out, where the same sampler without verdicts draws it again. accelerate's
loader reads one batch ahead, so step 2's prompts are drawn before step 1 is scored, and step
3's are the first to follow step 1's verdicts: the run is three steps.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from assay.rewards.adapters.curriculum import GroupRepeatSampler, with_feedback
from assay.rewards.sampling import TaskSampler
from test_adapters_trl import _tiny_grpo_config, _tiny_model_and_tokenizer

from assay.errors import ConfigError

DOC = Path(__file__).resolve().parents[2] / "docs" / "rewards.md"
SEED = 15  # its first draw is the broken prompt, and so is its third when fed no verdicts
ROWS = [
    {"id": "p1", "prompt": "what is 1 + 1 ?", "reference": "2", "domain": "math"},
    {"id": "p2", "prompt": "what is 2 + 2 ?", "reference": "4", "domain": "math"},
    {"id": "p3", "prompt": "what is 3 + 3 ?", "reference": None, "domain": "math"},  # broken
]


def _recipe(section: str) -> str:
    text = DOC.read_text()
    start = text.index(f"### {section}\n")
    block = re.search(r"```python\n(.*?)```", text[start:], re.S)
    assert block is not None
    return block.group(1)


def test_grpo_trainer_prompts_follow_the_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("WANDB_DISABLED", "true")
    from datasets import Dataset

    events: list[tuple[str, Any]] = []
    real_sample, real_update = TaskSampler.sample, TaskSampler.update

    def sample(self: TaskSampler, n: int) -> list[int]:
        batch = real_sample(self, n)
        events.append(("sample", [self.tasks[i].id for i in batch]))
        return batch

    def update(self: TaskSampler, tasks: Any, outcomes: Any) -> None:
        events.append(("update", (list(tasks), list(outcomes))))
        real_update(self, tasks, outcomes)

    monkeypatch.setattr(TaskSampler, "sample", sample)
    monkeypatch.setattr(TaskSampler, "update", update)
    model, tokenizer = _tiny_model_and_tokenizer()
    config = _tiny_grpo_config(tmp_path, tokenizer, max_steps=3, seed=SEED)  # 1 prompt a step
    namespace: dict[str, Any] = {
        "model": model,
        "tokenizer": tokenizer,
        "config": config,
        "dataset": Dataset.from_list(ROWS),
    }
    exec(_recipe("TRL"), namespace)  # the recipe as written, ending in trainer.train()
    trainer, sampler = namespace["trainer"], namespace["sampler"]
    assert trainer.state.global_step == 3

    draws = [ids for kind, ids in events if kind == "sample"]
    fed = [batch for kind, batch in events if kind == "update"]
    kinds = [kind for kind, _ in events]
    # accelerate reads one batch ahead: two draws, then step 1's verdicts, then the next draw
    assert kinds == ["sample", "sample", "update", "sample", "update", "update"], kinds
    # each step trained on the prompt drawn for it, answered twice
    assert [ids for ids, _ in fed] == [d * 2 for d in draws]
    assert draws[0] == ["p3"] and fed[0][1] == [None, None]  # the broken prompt, masked
    assert "p3" not in draws[2]  # the draw after that verdict leaves it out
    assert sampler.held_back() == ["p3"]
    # ... where the same sampler fed nothing draws it again
    blind = TaskSampler(ROWS, sampler.config, seed=SEED)
    assert [blind.tasks[i].id for i in blind.sample(1) + blind.sample(1) + blind.sample(1)][
        2
    ] == "p3"
    # and the sampler's metrics are in TRL's logs
    logged = [e for e in trainer.state.log_history if "sampler/held_back" in e]
    assert len(logged) == 3 and logged[-1]["sampler/held_back"] == 1.0
    assert logged[-1]["sampler/share/math"] == 1.0


@pytest.mark.parametrize(
    ("mini", "batch", "repeat"),
    [(2, 3, 1), (4, 2, 3), (1, 1, 2)],
    ids=["groups-of-2", "reused-3x", "one-prompt"],
)
def test_group_repeat_sampler_keeps_trls_layout(mini: int, batch: int, repeat: int) -> None:
    # TRL's own RepeatSampler (unshuffled) gives the layout; ours fills it with chosen tasks
    from trl.trainer.utils import RepeatSampler

    rows = [{"id": f"t{i}", "domain": "math"} for i in range(7)]
    ours = GroupRepeatSampler(
        TaskSampler(rows, seed=1), mini_repeat_count=mini, batch_size=batch, repeat_count=repeat
    )
    out = list(ours)
    chunks = TaskSampler(rows, seed=1)  # the same draws, one chunk at a time
    chosen = [chunks.sample(batch) for _ in range(ours.num_batches)]
    layout = RepeatSampler(
        list(range(ours.num_batches * batch)),
        mini_repeat_count=mini,
        batch_size=batch,
        repeat_count=repeat,
        shuffle=False,
    )
    assert out == [chosen[j // batch][j % batch] for j in layout]
    assert len(ours) == len(out) == len(layout)


def test_with_feedback_needs_an_id_column() -> None:
    sampler = TaskSampler(ROWS, seed=0)

    def constant(prompts: Any, completions: Any, **columns: Any) -> list[float | None]:
        return [1.0] * len(completions)

    wrapped = with_feedback(constant, sampler)
    assert wrapped.__name__ == "constant"  # TRL logs rewards under the wrapped name
    assert wrapped(None, ["a", "b"], id=["p1", "p1"]) == [1.0, 1.0]
    assert sampler.pass_rate("p1") > sampler.pass_rate("p2")
    with pytest.raises(ConfigError, match="'id' column"):
        wrapped(None, ["a"], question=["q"])
