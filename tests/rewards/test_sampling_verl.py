"""The task sampler under verl 0.9.1: its real RLHFDataset, StatefulDataLoader and DataProto.

The loop below is verl's ``RayPPOTrainer.fit`` minus the model: the loader built as
``_create_dataloader`` builds it, each batch ``DataProto.from_single_dict`` then repeated
``rollout.n`` times, scored by assay's reward manager, its extra info put into the batch as fit
does, then fed to the sampler; the checkpoint is ``_save_checkpoint``'s ``data.pt``.
(``RayPPOTrainer`` itself is not imported: its module pulls in Ray workers, FSDP engines and
peft; ``test_verl_trainer_hook_contract`` reads its source for the hook this relies on.)
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from assay.rewards.adapters.curriculum import (
    StatefulTaskSampler,
    VerlSamplerFeedback,
    feed_verl_batch,
)
from assay.rewards.adapters.verl import AssayRewardManager, write_verl_parquet
from assay.rewards.sampling import SamplerConfig, TaskSampler
from omegaconf import OmegaConf
from test_adapters_verl import _Tokenizer
from torchdata.stateful_dataloader import StatefulDataLoader
from verl import DataProto
from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

from assay.errors import ConfigError

N = 2  # rollout.n: answers per prompt
BROKEN = "t3"  # this task's reference is unusable: every verdict is 'error' (masked)


@pytest.fixture(scope="module")
def train_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    records: list[dict[str, Any]] = [
        {"id": f"t{a}", "domain": "math", "prompt": f"{a} + {a} ?", "reference": str(2 * a)}
        for a in range(8)
    ]
    records[3]["reference"] = {"no": "answer here"}  # a malformed task
    path = tmp_path_factory.mktemp("verl") / "train.parquet"
    write_verl_parquet(records, path)
    return path


def _loader(path: Path, seed: int = 11) -> tuple[RLHFDataset, StatefulTaskSampler, Any]:
    config = OmegaConf.create({"filter_overlong_prompts": False, "cache_dir": str(path.parent)})
    dataset = RLHFDataset(data_files=[str(path)], tokenizer=None, config=config)
    knobs = SamplerConfig(group_size=N, hold_after=N, hold_steps=100)
    sampler = StatefulTaskSampler(
        TaskSampler(list(dataset.dataframe), knobs, seed=seed), batch_size=2
    )
    loader = StatefulDataLoader(
        dataset=dataset,
        batch_size=2,
        num_workers=0,
        drop_last=True,
        collate_fn=collate_fn,
        sampler=sampler,
    )
    return dataset, sampler, loader


def _answer(tokenizer: _Tokenizer, batch: DataProto, step: int) -> DataProto:
    """Responses for a repeated batch: right on even steps, one wrong answer per group on odd."""
    texts = []
    for i, info in enumerate(batch.non_tensor_batch["extra_info"]):
        a = int(info["id"][1:])
        texts.append(f"\\boxed{{{2 * a + (step % 2) * (i % 2)}}}")
    responses = torch.zeros(len(texts), 12, dtype=torch.long)
    mask = torch.zeros(len(texts), 3 + 12, dtype=torch.long)
    mask[:, :3] = 1
    for i, text in enumerate(texts):
        ids = tokenizer.encode(text)
        responses[i, : len(ids)] = torch.tensor(ids)
        mask[i, 3 : 3 + len(ids)] = 1
    batch.batch["responses"] = responses
    batch.batch["attention_mask"] = mask
    return batch


def _step(
    loader_iter: Any, sampler: StatefulTaskSampler, manager: AssayRewardManager, step: int
) -> list[str]:
    batch = DataProto.from_single_dict(next(loader_iter))
    drawn = [info["id"] for info in batch.non_tensor_batch["extra_info"]]
    batch = _answer(manager.tokenizer, batch.repeat(repeat_times=N, interleave=True), step)
    reward = manager(batch, return_dict=True)
    batch.batch["token_level_scores"] = reward["reward_tensor"]
    batch.non_tensor_batch.update({k: np.array(v) for k, v in reward["reward_extra_info"].items()})
    assert feed_verl_batch(sampler.sampler, batch) == 2 * N
    return drawn


@pytest.fixture(scope="module")
def manager() -> AssayRewardManager:
    return AssayRewardManager(_Tokenizer(), workers=1)


def test_batches_follow_verdicts_and_resume_exactly(
    train_file: Path, manager: AssayRewardManager, tmp_path: Path
) -> None:
    dataset, sampler, loader = _loader(train_file)
    it = iter(loader)
    whole = [_step(it, sampler, manager, s) for s in range(4)]
    # step 1 draws the broken task; its group is all 'error', so it is held back from step 2
    # on, where the same sampler without the verdicts draws it again
    assert BROKEN in whole[0] and all(BROKEN not in ids for ids in whole[1:]), whole
    assert sampler.sampler.held_back() == [BROKEN]
    blind = TaskSampler(list(dataset.dataframe), sampler.sampler.config, seed=11)
    blind_draws = [[blind.tasks[i].id for i in blind.sample(2)] for _ in range(4)]
    assert BROKEN in blind_draws[0] and any(BROKEN in ids for ids in blind_draws[1:])

    # verl's checkpoint: the dataloader's state_dict in data.pt, after step 2's verdicts
    _, sampler_a, loader_a = _loader(train_file)
    it_a = iter(loader_a)
    head = [_step(it_a, sampler_a, manager, s) for s in range(2)]
    torch.save(loader_a.state_dict(), tmp_path / "data.pt")
    _, sampler_b, loader_b = _loader(train_file, seed=0)  # a fresh process, another seed
    loader_b.load_state_dict(torch.load(tmp_path / "data.pt", weights_only=False))
    it_b = iter(loader_b)
    tail = [_step(it_b, sampler_b, manager, s) for s in range(2, 4)]
    assert head + tail == whole
    assert sampler_b.sampler.state_dict() == sampler.sampler.state_dict()


def test_epoch_length_is_what_verl_counts_steps_by(train_file: Path) -> None:
    # verl: total_training_steps = len(train_dataloader) * total_epochs
    _, sampler, loader = _loader(train_file)
    assert len(loader) == 4 and len(sampler) == 8
    assert sum(1 for _ in loader) == 4  # an epoch ends, and the next one starts again
    assert sum(1 for _ in loader) == 4


def test_feedback_mixin_feeds_then_updates(train_file: Path, manager: AssayRewardManager) -> None:
    class Base:
        def _update_actor(self, batch: DataProto) -> str:
            return "actor updated"

    class Trainer(VerlSamplerFeedback, Base):
        pass

    _, sampler, loader = _loader(train_file)
    trainer = Trainer()
    trainer.train_dataloader = loader
    batch = DataProto.from_single_dict(next(iter(loader)))
    batch = _answer(manager.tokenizer, batch.repeat(repeat_times=N, interleave=True), 0)
    batch.batch["token_level_scores"] = manager(batch)
    before = sampler.sampler.state_dict()["tasks"]
    assert trainer._update_actor(batch) == "actor updated"
    assert sampler.sampler.state_dict()["tasks"] != before
    trainer.train_dataloader = StatefulDataLoader(list(range(4)), batch_size=2)
    with pytest.raises(ConfigError, match="StatefulTaskSampler"):
        trainer._update_actor(batch)


def test_verl_trainer_hook_contract() -> None:
    # what VerlSamplerFeedback and StatefulTaskSampler rely on, read from verl 0.9.1's source:
    # RayPPOTrainer takes train_sampler and gives it to a StatefulDataLoader; fit puts the
    # reward's extra info into the batch, then calls _update_actor(batch), then checkpoints
    spec = importlib.util.find_spec("verl")
    assert spec is not None and spec.origin is not None
    source = (Path(spec.origin).parent / "trainer" / "ppo" / "ray_trainer.py").read_text()
    tree = ast.parse(source)
    trainer = next(
        n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "RayPPOTrainer"
    )
    methods = {n.name: n for n in trainer.body if isinstance(n, ast.FunctionDef)}
    assert [a.arg for a in methods["_update_actor"].args.args] == ["self", "batch"]
    assert "train_sampler" in [a.arg for a in methods["__init__"].args.args]
    loader = ast.get_source_segment(source, methods["_create_dataloader"]) or ""
    assert "StatefulDataLoader(" in loader and "sampler=train_sampler" in loader
    fit = ast.get_source_segment(source, methods["fit"]) or ""
    extra = fit.index("batch.non_tensor_batch.update(")
    update = fit.index("self._update_actor(batch)")
    save = fit.index("self._save_checkpoint()")
    assert extra < update < save
    assert "self.train_dataloader.state_dict()" in source
