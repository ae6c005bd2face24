"""TRL's ``GRPOTrainer`` with assay's task sampler under its repeat structure.

``GRPOTrainer`` gets its train sampler from ``_get_train_sampler``, a ``RepeatSampler`` that
repeats each prompt ``num_generations`` times and each chunk ``num_iterations *
steps_per_generation`` times. :class:`CurriculumGRPOTrainer` overrides that hook with a
:class:`~assay.rewards.adapters.curriculum.GroupRepeatSampler` of the same layout whose chunks
the :class:`~assay.rewards.sampling.TaskSampler` chooses, and adds the sampler's metrics to
every training log. The verdicts reach the sampler through a reward function wrapped by
:func:`~assay.rewards.adapters.curriculum.with_feedback`.

Resume is exact: every checkpoint folder gets ``assay_sampler.json`` (the
:class:`~assay.rewards.adapters.curriculum.GroupRepeatSampler`'s state: the task sampler's,
the epoch, the chunks drawn in it), and ``train(resume_from_checkpoint=...)`` restores it
before the loader is built. The batches the trainer skips on resume, and the one its loader had
read ahead, are replayed from the saved chunks without drawing, so the prompts after the resume
are those of the uninterrupted run. With ``ignore_data_skip=True`` nothing is skipped: the
restored sampler draws on from its saved state (mix, pass rates and generator carry over), and
the epoch's saved chunks are not replayed. TRL itself does not save the generation buffer:
with ``steps_per_generation > 1``, save at a multiple of it.

One process: with several (``accelerate launch``), every process must draw the same prompts,
so each one's sampler would need every process's verdicts; the wrapper feeds only the local
ones, and this trainer refuses to start.

Example:
    >>> trainer = CurriculumGRPOTrainer(  # doctest: +SKIP
    ...     model=model, args=config, train_dataset=dataset, processing_class=tokenizer,
    ...     reward_funcs=[with_feedback(reward_function("math"), sampler)], task_sampler=sampler)
"""

from __future__ import annotations

import json
import os
from typing import Any

from assay.rewards.adapters.curriculum import GroupRepeatSampler
from assay.rewards.sampling import TaskSampler
from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR, get_last_checkpoint
from trl.trainer.grpo_trainer import GRPOTrainer

from assay.errors import ConfigError

SAMPLER_STATE_NAME = "assay_sampler.json"


class CurriculumGRPOTrainer(GRPOTrainer):
    """``GRPOTrainer`` whose prompts come from ``task_sampler``; see the module docstring.

    Args:
        task_sampler: Built over ``train_dataset``'s rows, in order.
        *args: ``GRPOTrainer``'s arguments.
        **kwargs: ``GRPOTrainer``'s keyword arguments.
    """

    def __init__(self, *args: Any, task_sampler: TaskSampler, **kwargs: Any) -> None:
        self.task_sampler = task_sampler
        self.group_sampler: GroupRepeatSampler | None = None
        self._resume_state: dict[str, Any] | None = None
        super().__init__(*args, **kwargs)
        if self.accelerator.num_processes > 1:
            raise ConfigError("CurriculumGRPOTrainer runs in one process (see its docstring)")
        dataset: Any = self.train_dataset
        if len(dataset) != len(task_sampler.tasks):
            raise ConfigError(
                f"task_sampler has {len(task_sampler.tasks)} tasks, "
                f"train_dataset has {len(dataset)} rows"
            )

    def _get_train_sampler(self, dataset: Any = None) -> GroupRepeatSampler:
        args: Any = self.args  # a GRPOConfig
        generations = int(args.num_generations)
        sampler = GroupRepeatSampler(
            self.task_sampler,
            mini_repeat_count=generations,
            batch_size=args.generation_batch_size // generations,
            repeat_count=self.num_iterations * args.steps_per_generation,
        )
        if self._resume_state is not None:
            state, self._resume_state = self._resume_state, None
            if args.ignore_data_skip:  # the trainer re-reads the epoch: draw on, replay nothing
                state = {**state, "chunks": []}
            sampler.load_state_dict(state)
        self.group_sampler = sampler
        return sampler

    def train(
        self, resume_from_checkpoint: str | bool | None = None, *args: Any, **kwargs: Any
    ) -> Any:
        """TRL's train; from a checkpoint, the sampler's state is restored first.

        Raises:
            ConfigError: The checkpoint has no ``assay_sampler.json`` (saved by another
                trainer), or it is not valid JSON or not this sampler's state.
        """
        if resume_from_checkpoint:
            folder = resume_from_checkpoint
            if folder is True:
                last: Any = get_last_checkpoint  # untyped in transformers
                folder = last(str(self.args.output_dir))
                if folder is None:
                    raise ConfigError(f"no checkpoint in {self.args.output_dir}")
            self._resume_state = load_sampler_state(str(folder))
        return super().train(resume_from_checkpoint, *args, **kwargs)

    def _save_checkpoint(self, model: Any, trial: Any) -> None:
        save: Any = super()._save_checkpoint  # untyped in TRL
        save(model, trial)
        if self.group_sampler is None or not self.args.should_save:
            return
        folder = os.path.join(
            self._get_output_dir(trial=trial), f"{PREFIX_CHECKPOINT_DIR}-{self.state.global_step}"
        )
        path = os.path.join(folder, SAMPLER_STATE_NAME)
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(self.group_sampler.state_dict(), handle)

    def log(self, logs: dict[str, float], *args: Any, **kwargs: Any) -> None:
        """TRL's log, plus the sampler's metrics on training logs."""
        model: Any = self.model
        if model.training and "loss" in logs:
            logs = {**logs, **self.task_sampler.metrics()}
        super().log(logs, *args, **kwargs)


def load_sampler_state(checkpoint: str) -> dict[str, Any]:
    """The sampler state saved in a checkpoint folder by :class:`CurriculumGRPOTrainer`.

    Raises:
        ConfigError: The file is missing, not JSON, or not a JSON object.
    """
    path = os.path.join(checkpoint, SAMPLER_STATE_NAME)
    try:
        with open(path, encoding="utf-8") as handle:
            state = json.load(handle)
    except FileNotFoundError as exc:
        raise ConfigError(
            f"{path} is missing: the checkpoint was not saved by CurriculumGRPOTrainer, and "
            "resuming without the sampler's state would not draw what the run would have"
        ) from exc
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the sampler state: {exc}") from exc
    if not isinstance(state, dict):
        raise ConfigError(f"{path}: the sampler state is not a JSON object")
    return state
