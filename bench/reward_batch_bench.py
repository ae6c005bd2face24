"""Bench: :func:`compute_rewards` on a device, pinned copies, against the same on the CPU.

B results in groups of G, a ``[B, T]`` response mask made on the CPU, as a trainer hands it
over after decoding. Three ways to a :class:`RewardBatch` on ``--device``, timed side by side
in one run (median of ``--repeat``):

- baseline: everything on the CPU, then each ``[B, T]`` tensor copied with a plain ``.to()``;
- assay, ``device=``: per-sample scalars built on the CPU and copied pinned and
  ``non_blocking``, the ``[B, T]`` work on the device;
- assay, mask already on the device (what a trainer that keeps its batch there passes).

All three must agree to 1e-5. On ``--device cpu`` the first two are the same work.

Usage::

    python bench/reward_batch_bench.py [--batch 4096] [--group 16] [--tokens 4096]
        [--repeat 7] [--device cuda]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import torch
from assay.rewards.batch import RewardBatch, compute_rewards

from assay.types import Result, Status, Verdict


def results_of(batch: int, group: int) -> list[Result]:
    generator = torch.Generator().manual_seed(0)
    draws = torch.rand(batch, generator=generator).tolist()
    out = []
    for i, draw in enumerate(draws):
        if draw < 0.45:
            verdict = Verdict.correct()
        elif draw < 0.9:
            verdict = Verdict.incorrect()
        elif draw < 0.97:
            verdict = Verdict(Status.PARTIAL, round(draw - 0.9, 3) * 10)
        else:
            verdict = Verdict.error("sandbox unavailable")  # masked
        out.append(Result(str(i), "math", verdict, "math@bench", 0.0, group=f"g{i // group}"))
    return out


def median_time(
    repeat: int, fn: Callable[[], RewardBatch], device: torch.device
) -> tuple[float, RewardBatch]:
    times, out = [], None
    for _ in range(repeat + 1):  # the first is a warm-up
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        out = fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    assert out is not None
    return statistics.median(times[1:]), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--group", type=int, default=16)
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    device = torch.device(args.device)
    results = results_of(args.batch, args.group)
    generator = torch.Generator().manual_seed(1)
    lengths = torch.randint(1, args.tokens + 1, (args.batch,), generator=generator)
    mask = (torch.arange(args.tokens) < lengths.unsqueeze(-1)).float()
    print(f"B={args.batch} groups of {args.group} T={args.tokens} device={device}")

    def baseline() -> RewardBatch:
        cpu = compute_rewards(results, mask, device="cpu")
        return RewardBatch(
            scores=cpu.scores.to(device), raw_scores=cpu.raw_scores.to(device),
            token_level_rewards=cpu.token_level_rewards.to(device),
            advantages=cpu.advantages.to(device), response_mask=cpu.response_mask.to(device),
            loss_mask=cpu.loss_mask.to(device), zero_variance=cpu.zero_variance.to(device),
            metrics=cpu.metrics,
        )  # fmt: skip

    on_device = mask.to(device)
    base_s, base = median_time(args.repeat, baseline, device)
    pinned_s, pinned = median_time(
        args.repeat, lambda: compute_rewards(results, mask, device=device), device
    )
    there_s, there = median_time(args.repeat, lambda: compute_rewards(results, on_device), device)
    error = max(float((a.advantages - base.advantages).abs().max()) for a in (pinned, there))
    print(f"  CPU, then .to() each tensor   {base_s * 1e3:9.2f} ms   (baseline)")
    print(
        f"  compute_rewards(device=)      {pinned_s * 1e3:9.2f} ms   "
        f"ratio {base_s / pinned_s:6.2f}x"
    )
    print(
        f"  mask already on the device    {there_s * 1e3:9.2f} ms   ratio {base_s / there_s:6.2f}x"
    )
    print(f"  max |advantage diff| {error:.2e}")
    if error > 1e-5:
        raise SystemExit(f"advantages differ by {error}")


if __name__ == "__main__":
    main()
