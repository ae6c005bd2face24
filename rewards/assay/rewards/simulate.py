"""A simulated learner, to try a task sampler's knobs without a model (tests and bench use it).

Each task has a difficulty; the learner has a skill per domain and a bonus per task, and solves
task ``i`` with probability ``sigmoid(scale * (skill[domain] + bonus[i] - difficulty[i]))``.
It learns only from a group with a learning signal, as GRPO does: a group of ``group_size``
answers of one task where ``k`` of them pass raises the task's bonus by ``lr_task * 4q(1-q)``
(``q = k / group_size``) and its domain's skill by ``lr_domain`` times the same factor. So a task
the learner always or never solves teaches nothing, and practice on a domain's easy tasks makes
its hard ones reachable: the pass rate on a task rises with the times it was sampled while it
was within reach.

Example:
    >>> tasks, difficulty = make_tasks({"math": 6, "code": 3}, levels=3, seed=0)
    >>> learner = SimulatedLearner(tasks, difficulty, seed=0)
    >>> ids, scores = learner.attempt([0, 1])
    >>> len(ids) == len(scores) == 2 * learner.group_size
    True
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

from assay.rewards.sampling import TaskInfo


def make_tasks(
    sizes: Mapping[str, int], *, levels: int = 3, spread: float = 1.0, seed: int = 0
) -> tuple[list[TaskInfo], list[float]]:
    """Tasks per domain over ``levels`` curriculum levels, and their difficulties.

    A task of level ``l`` has difficulty ``l * spread`` plus noise of a tenth of ``spread``.
    """
    rng = random.Random(seed)
    tasks: list[TaskInfo] = []
    difficulty: list[float] = []
    for domain, count in sizes.items():
        for j in range(count):
            level = j * levels // count
            tasks.append(TaskInfo(f"{domain}-{j}", domain, level))
            difficulty.append(level * spread + rng.uniform(-0.1, 0.1) * spread)
    return tasks, difficulty


class SimulatedLearner:
    """A policy whose pass rate on a task rises with useful practice; see the module docstring."""

    def __init__(
        self,
        tasks: Sequence[TaskInfo],
        difficulty: Sequence[float],
        *,
        group_size: int = 8,
        scale: float = 3.0,
        lr_task: float = 0.1,
        lr_domain: float = 0.02,
        start_skill: float = 0.5,
        seed: int = 0,
    ) -> None:
        self.tasks = list(tasks)
        self.difficulty = list(difficulty)
        self.group_size = group_size
        self.scale = scale
        self.lr_task = lr_task
        self.lr_domain = lr_domain
        self.skill = {t.domain: start_skill for t in self.tasks}
        self.bonus = [0.0] * len(self.tasks)
        self.times_sampled = [0] * len(self.tasks)
        self._rng = random.Random(seed)

    def pass_probability(self, index: int) -> float:
        """The true chance that one answer to task ``index`` passes."""
        task = self.tasks[index]
        x = self.scale * (self.skill[task.domain] + self.bonus[index] - self.difficulty[index])
        return 1.0 / (1.0 + math.exp(-x))

    def attempt(self, indices: Sequence[int]) -> tuple[list[int], list[float]]:
        """Answer each task ``group_size`` times and learn; returns (task per answer, scores)."""
        tasks: list[int] = []
        scores: list[float] = []
        for index in indices:
            p = self.pass_probability(index)
            passed = sum(self._rng.random() < p for _ in range(self.group_size))
            q = passed / self.group_size
            signal = 4.0 * q * (1.0 - q)
            self.bonus[index] += self.lr_task * signal
            self.skill[self.tasks[index].domain] += self.lr_domain * signal
            self.times_sampled[index] += 1
            tasks += [index] * self.group_size
            scores += [1.0] * passed + [0.0] * (self.group_size - passed)
        return tasks, scores

    def mean_pass_rate(self) -> float:
        """Mean over domains of the mean true pass rate of the domain's tasks."""
        by_domain: dict[str, list[float]] = {}
        for i, task in enumerate(self.tasks):
            by_domain.setdefault(task.domain, []).append(self.pass_probability(i))
        return sum(sum(v) / len(v) for v in by_domain.values()) / len(by_domain)
