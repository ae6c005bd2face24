"""Bench: vectorised GRPO advantages against verl's per-group Python loop.

B responses in groups of G, T response tokens. Both paths produce token-level advantages
``[B, T]``; the bench checks they agree to 1e-6 and prints both timings and the ratio, for the
full ``[B, T]`` output and for the per-sample ``[B]`` part (the group statistics) alone.

Usage::

    python bench/rewards_bench.py [--batch 16384] [--group 16] [--tokens 4096] [--repeat 3]
        [--device cpu|cuda]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable

import torch
from assay.rewards.advantages import compute_advantages, grpo_advantages
from torch import Tensor


def verl_grpo_loop(
    scores: Tensor, index: list[int], epsilon: float = 1e-6, norm_by_std: bool = True
) -> Tensor:
    """verl's ``compute_grpo_outcome_advantage`` inner loop, per sample ``[B]``."""
    scores = scores.clone()
    id2score: dict[int, list[Tensor]] = defaultdict(list)
    id2mean: dict[int, Tensor] = {}
    id2std: dict[int, Tensor] = {}
    with torch.no_grad():
        bsz = scores.shape[0]
        for i in range(bsz):
            id2score[index[i]].append(scores[i])
        for idx, members in id2score.items():
            if len(members) == 1:
                id2mean[idx] = torch.tensor(0.0)
                id2std[idx] = torch.tensor(1.0)
            else:
                group = torch.stack(members)
                id2mean[idx] = torch.mean(group)
                id2std[idx] = torch.std(group)
        for i in range(bsz):
            if norm_by_std:
                scores[i] = (scores[i] - id2mean[index[i]]) / (id2std[index[i]] + epsilon)
            else:
                scores[i] = scores[i] - id2mean[index[i]]
    return scores


def best_of(repeat: int, fn: Callable[[], Tensor], device: torch.device) -> tuple[float, Tensor]:
    """Best wall time of ``repeat`` runs, and the last output."""
    best = float("inf")
    out = torch.empty(0)
    for _ in range(repeat):
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        out = fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=16384)
    parser.add_argument("--group", type=int, default=16)
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    device = torch.device(args.device)

    generator = torch.Generator().manual_seed(0)
    scores = (torch.rand(args.batch, generator=generator) > 0.5).float()
    scores += 0.1 * torch.rand(args.batch, generator=generator)
    groups = torch.arange(args.batch) // args.group
    lengths = torch.randint(1, args.tokens + 1, (args.batch,), generator=generator)
    mask = (torch.arange(args.tokens) < lengths.unsqueeze(-1)).float().to(device)
    scores, groups = scores.to(device), groups.to(device)
    index = groups.tolist()
    print(
        f"B={args.batch} groups of {args.group} T={args.tokens} device={device} "
        f"threads={torch.get_num_threads()}"
    )

    fast_s, fast = best_of(args.repeat, lambda: grpo_advantages(scores, groups), device)
    loop_s, loop = best_of(1, lambda: verl_grpo_loop(scores.cpu(), index), device)
    error = float((fast.cpu() - loop).abs().max())
    print(
        f"per-sample [B]:  vectorised {fast_s * 1e3:9.2f} ms   verl loop {loop_s * 1e3:9.2f} ms"
        f"   ratio {loop_s / fast_s:8.1f}x   max |diff| {error:.2e}"
    )
    if error > 1e-6:
        raise SystemExit(f"per-sample advantages differ by {error}")

    full_fast_s, full_fast = best_of(
        args.repeat, lambda: compute_advantages("grpo", scores, groups, mask), device
    )
    del full_fast
    full_loop_s, full_loop = best_of(
        1, lambda: verl_grpo_loop(scores.cpu(), index).to(device).unsqueeze(-1) * mask, device
    )
    full_fast = compute_advantages("grpo", scores, groups, mask)
    full_error = float((full_fast - full_loop).abs().max())
    print(
        f"token [B, T]:    vectorised {full_fast_s * 1e3:9.2f} ms   verl loop "
        f"{full_loop_s * 1e3:9.2f} ms   ratio {full_loop_s / full_fast_s:8.1f}x   "
        f"max |diff| {full_error:.2e}"
    )
    if full_error > 1e-6:
        raise SystemExit(f"token advantages differ by {full_error}")


if __name__ == "__main__":
    main()
