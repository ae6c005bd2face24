"""TRL's ``GRPOTrainer`` with assay's task sampler under its repeat structure.

``GRPOTrainer`` gets its train sampler from ``_get_train_sampler``, a ``RepeatSampler`` that
repeats each prompt ``num_generations`` times and each chunk ``num_iterations *
steps_per_generation`` times. :class:`CurriculumGRPOTrainer` overrides that hook with a
:class:`~assay.rewards.adapters.curriculum.GroupRepeatSampler` of the same layout whose chunks
the :class:`~assay.rewards.sampling.TaskSampler` chooses, and adds the sampler's metrics to
every training log. The verdicts reach the sampler through a reward function wrapped by
:func:`~assay.rewards.adapters.curriculum.with_feedback`.

One process: with several (``accelerate launch``), every process must draw the same prompts,
so each one's sampler would need every process's verdicts; the wrapper feeds only the local
ones, and this trainer refuses to start.

Example:
    >>> trainer = CurriculumGRPOTrainer(  # doctest: +SKIP
    ...     model=model, args=config, train_dataset=dataset, processing_class=tokenizer,
    ...     reward_funcs=[with_feedback(reward_function("math"), sampler)], task_sampler=sampler)
"""

from __future__ import annotations

from typing import Any

from assay.rewards.adapters.curriculum import GroupRepeatSampler
from assay.rewards.sampling import TaskSampler
from trl.trainer.grpo_trainer import GRPOTrainer

from assay.errors import ConfigError


class CurriculumGRPOTrainer(GRPOTrainer):
    """``GRPOTrainer`` whose prompts come from ``task_sampler``; see the module docstring.

    Args:
        task_sampler: Built over ``train_dataset``'s rows, in order.
        *args: ``GRPOTrainer``'s arguments.
        **kwargs: ``GRPOTrainer``'s keyword arguments.
    """

    def __init__(self, *args: Any, task_sampler: TaskSampler, **kwargs: Any) -> None:
        self.task_sampler = task_sampler
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
        return GroupRepeatSampler(
            self.task_sampler,
            mini_repeat_count=generations,
            batch_size=args.generation_batch_size // generations,
            repeat_count=self.num_iterations * args.steps_per_generation,
        )

    def log(self, logs: dict[str, float], *args: Any, **kwargs: Any) -> None:
        """TRL's log, plus the sampler's metrics on training logs."""
        model: Any = self.model
        if model.training and "loss" in logs:
            logs = {**logs, **self.task_sampler.metrics()}
        super().log(logs, *args, **kwargs)
