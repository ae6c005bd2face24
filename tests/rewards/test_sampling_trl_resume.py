"""A resumed CurriculumGRPOTrainer run draws the prompts of the uninterrupted one.

Real GRPOTrainer runs on CPU (the tiny local model of test_adapters_trl, no downloads). The
completions are forced, so each task's verdict is known from its row: 1 + 1 = 2 (correct),
2 + 2 = 5 (incorrect), no reference ('error', masked). One run trains three steps, saving a
checkpoint at each; a second trainer, with a sampler of its own, resumes from the one of step 1
(what a run stopped right after it would have left: the save comes before any stop). The
prompts of steps 2 and 3 (step 3 drawn after step 1's verdicts), and the sampler's whole final state, must be the same as in the run
that was never stopped, where a sampler that restarts blind (the behaviour before
``assay_sampler.json``) draws other ones.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from assay.rewards.adapters.curriculum import GroupRepeatSampler, with_feedback
from assay.rewards.adapters.trl import reward_function
from assay.rewards.adapters.trl_curriculum import (
    SAMPLER_STATE_NAME,
    CurriculumGRPOTrainer,
    load_sampler_state,
)
from assay.rewards.sampling import SamplerConfig, TaskSampler
from test_adapters_trl import _tiny_grpo_config, _tiny_model_and_tokenizer

from assay.errors import ConfigError

SEED = 15  # step 1 draws a broken task; a blind restart draws another step 3 (asserted below)
STEPS, SAVE_AT = 3, 1
ROWS = [
    {"id": "a1", "prompt": "what is 1 + 1 ?", "reference": "2", "domain": "math"},
    {"id": "a2", "prompt": "what is 1 + 1 ?", "reference": "2", "domain": "math"},
    {"id": "b1", "prompt": "what is 2 + 2 ?", "reference": "4", "domain": "math"},
    {"id": "b2", "prompt": "what is 2 + 2 ?", "reference": "4", "domain": "math"},
    {"id": "x1", "prompt": "what is 1 + 1 ?", "reference": None, "domain": "math"},  # broken
    {"id": "x2", "prompt": "what is 2 + 2 ?", "reference": None, "domain": "math"},  # broken
]


def _run(
    output_dir: Path,
    *,
    resume: bool = False,
    save: bool = False,
) -> tuple[list[list[str]], TaskSampler, Any]:
    """Train with a fresh sampler; returns the task ids each step was scored on."""
    from datasets import Dataset

    model, tokenizer = _tiny_model_and_tokenizer()
    config = _tiny_grpo_config(
        output_dir,
        tokenizer,
        max_steps=STEPS,  # one prompt, two generations, per step
        save_strategy="steps" if save else "no",
        save_steps=SAVE_AT,
        save_only_model=False,
        seed=SEED,
    )
    knobs = SamplerConfig(group_size=2, hold_after=2, hold_steps=2)
    sampler = TaskSampler(ROWS, knobs, seed=SEED)
    scored: list[list[str]] = []
    math = reward_function("math")

    def reward(prompts: Any, completions: Any, **columns: Any) -> list[float | None]:
        scored.append(list(columns["id"]))
        return math(prompts, completions, **columns)

    trainer = CurriculumGRPOTrainer(
        model=model,
        args=config,
        train_dataset=Dataset.from_list(ROWS),
        processing_class=tokenizer,
        reward_funcs=[with_feedback(reward, sampler)],
        task_sampler=sampler,
    )
    trainer.train(resume_from_checkpoint=resume or None)  # True: output_dir's last checkpoint
    return [ids[::2] for ids in scored], sampler, trainer  # each prompt is answered twice


def test_resumed_run_draws_what_the_uninterrupted_run_drew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("WANDB_DISABLED", "true")
    whole, whole_sampler, _ = _run(tmp_path / "whole", save=True)
    assert len(whole) == STEPS
    checkpoint = tmp_path / "whole" / f"checkpoint-{SAVE_AT}"
    saved = json.loads((checkpoint / SAMPLER_STATE_NAME).read_text())
    # the loader had read one batch ahead: two chunks drawn, one step scored
    assert len(saved["chunks"]) == SAVE_AT + 1 and saved["epoch"] == 0

    shutil.copytree(checkpoint, tmp_path / "resumed" / checkpoint.name)  # its only checkpoint
    rest, rest_sampler, trainer = _run(tmp_path / "resumed", resume=True)
    assert trainer.state.global_step == STEPS
    assert rest == whole[SAVE_AT:]  # the prompts after the resume are the run's
    assert rest_sampler.state_dict() == whole_sampler.state_dict()  # and so is all the rest

    # control: a sampler restarted blind, its skipped batches drawn again, draws other prompts
    blind = TaskSampler(ROWS, whole_sampler.config, seed=SEED)
    redrawn = [[blind.tasks[i].id for i in blind.sample(1)] for _ in range(STEPS)]
    assert redrawn[SAVE_AT:] != whole[SAVE_AT:]


def _group(rows: int = 6, batch: int = 2) -> GroupRepeatSampler:
    sampler = TaskSampler([{"id": f"t{i}", "domain": "math"} for i in range(rows)], seed=4)
    return GroupRepeatSampler(sampler, mini_repeat_count=2, batch_size=batch, repeat_count=2)


@pytest.mark.parametrize("read", [0, 1, 5, 9, 24], ids=lambda n: f"read-{n}")
def test_group_repeat_sampler_resumes_mid_epoch(read: int) -> None:
    # read `read` indices, save, restore into a new sampler: it yields the whole epoch of the
    # uninterrupted one (the replayed part included), and the next epoch too
    whole = _group()
    epochs = [list(whole), list(whole)]
    cut = _group()
    stream = iter(cut)
    head = [next(stream) for _ in range(read)]
    state = json.loads(json.dumps(cut.state_dict()))
    resumed = _group()
    resumed.load_state_dict(state)
    assert head == epochs[0][:read]
    assert list(resumed) == epochs[0]
    resumed.set_epoch(1)
    assert list(resumed) == epochs[1]


def test_group_repeat_sampler_drops_the_replay_in_another_epoch() -> None:
    # saved once the epoch was finished: the trainer resumes in the next epoch, which draws on
    whole = _group()
    epochs = [list(whole), list(whole)]
    cut = _group()
    list(cut)
    resumed = _group()
    resumed.load_state_dict(cut.state_dict())
    resumed.set_epoch(1)
    assert list(resumed) == epochs[1]


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda s: {k: v for k, v in s.items() if k != "chunks"}, "malformed"),
        (lambda s: {**s, "chunks": [[0]]}, "does not fit"),  # batch_size 2
        (lambda s: {**s, "chunks": [[0, 99]]}, "does not fit"),  # no task 99
        (lambda s: {**s, "chunks": [[0, 1]] * 4}, "does not fit"),  # 3 chunks an epoch
        (lambda s: {**s, "epoch": "one"}, "malformed"),
    ],
    ids=["no-chunks", "short-chunk", "out-of-range", "too-many", "bad-epoch"],
)
def test_group_repeat_sampler_rejects_a_state_that_does_not_fit(edit: Any, match: str) -> None:
    state = _group().state_dict()
    with pytest.raises(ConfigError, match=match):
        _group().load_state_dict(edit(state))


@pytest.mark.parametrize(
    ("content", "match"),
    [(None, "is missing"), ("{not json", "cannot read"), ("[1, 2]", "not a JSON object")],
    ids=["missing", "not-json", "not-an-object"],
)
def test_load_sampler_state_names_a_bad_file(
    tmp_path: Path, content: str | None, match: str
) -> None:
    if content is not None:
        (tmp_path / SAMPLER_STATE_NAME).write_text(content)
    with pytest.raises(ConfigError, match=match):
        load_sampler_state(str(tmp_path))
