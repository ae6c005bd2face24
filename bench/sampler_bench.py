"""Bench: steps a simulated learner needs to reach a target pass rate, by how tasks are chosen.

The learner (:mod:`assay.rewards.simulate`) learns from a task only when a group of answers is
mixed, and practice on a domain's easy tasks makes its hard ones reachable. Three domains of
120, 30 and 60 tasks over three difficulty levels; each step draws ``--batch`` prompts of
``--group`` answers. For each seed the same learner is trained with prompts drawn uniformly at
random and with :class:`~assay.rewards.sampling.TaskSampler` (default knobs, then without its
curriculum levels), until the mean over domains of the true pass rate reaches ``--target``.
Prints steps per seed and the ratio of the mean number of steps, sampler over uniform (below 1:
the sampler gets there sooner).

Usage::

    python bench/sampler_bench.py [--seeds 10] [--target 0.8] [--batch 8] [--group 8]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics

from assay.rewards.sampling import SamplerConfig, TaskSampler
from assay.rewards.simulate import SimulatedLearner, make_tasks

SIZES = {"math": 120, "code": 30, "chem": 60}


def steps_to_target(
    mode: str, seed: int, *, target: float, batch: int, group: int, max_steps: int = 20_000
) -> int:
    """Steps until the learner's mean pass rate reaches ``target`` (``max_steps`` if never)."""
    tasks, difficulty = make_tasks(SIZES, levels=3, seed=seed)
    if mode == "sampler, no levels":
        tasks = [dataclasses.replace(t, level=0) for t in tasks]
    learner = SimulatedLearner(tasks, difficulty, group_size=group, seed=seed)
    sampler = TaskSampler(tasks, SamplerConfig(group_size=group), seed=seed)
    rng = random.Random(seed)
    for step in range(1, max_steps + 1):
        if mode == "uniform":
            chosen = rng.sample(range(len(tasks)), batch)
        else:
            chosen = sampler.sample(batch)
        ids, scores = learner.attempt(chosen)
        if mode != "uniform":
            sampler.update(ids, scores)
        if learner.mean_pass_rate() >= target:
            return step
    return max_steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--target", type=float, default=0.8)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--group", type=int, default=8)
    args = parser.parse_args()
    modes = ["uniform", "sampler", "sampler, no levels"]
    steps: dict[str, list[int]] = {m: [] for m in modes}
    print(f"tasks {SIZES}, 3 levels, batch {args.batch} x {args.group}, target {args.target}")
    print(f"{'seed':>4}  " + "  ".join(f"{m:>18}" for m in modes))
    for seed in range(args.seeds):
        for mode in modes:
            steps[mode].append(
                steps_to_target(mode, seed, target=args.target, batch=args.batch, group=args.group)
            )
        print(f"{seed:>4}  " + "  ".join(f"{steps[m][-1]:>18}" for m in modes))
    base = statistics.mean(steps["uniform"])
    for mode in modes[1:]:
        ratios = [s / u for s, u in zip(steps[mode], steps["uniform"], strict=True)]
        print(
            f"{mode}: mean steps {statistics.mean(steps[mode]):.1f} vs uniform {base:.1f}"
            f"  ratio {statistics.mean(steps[mode]) / base:.3f}"
            f"  per seed {min(ratios):.3f}-{max(ratios):.3f}"
        )


if __name__ == "__main__":
    main()
