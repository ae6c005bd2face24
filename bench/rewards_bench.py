"""Bench: vectorised GRPO advantages against verl's per-group Python loop.

B responses in groups of G, T response tokens. Both paths produce token-level advantages
``[B, T]``; the bench checks they agree to 1e-6 and prints both timings and the ratio, for the
per-sample ``[B]`` part (the group statistics) alone, and for the full ``[B, T]`` output against
verl's own ``compute_grpo_outcome_advantage`` (imported when verl is installed, as ``make setup``
does; otherwise a transcription of its loop). The full output is timed twice for assay: into a
fresh tensor, and into a ``[B, T]`` buffer the trainer reuses across steps (``out=``), which on
the CPU skips the page faults of a fresh 256 MiB tensor; verl's function always allocates.

Usage::

    python bench/rewards_bench.py [--batch 16384] [--group 16] [--tokens 4096] [--repeat 3]
        [--device cpu|cuda]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable

import numpy as np
import torch
from assay.rewards.advantages import compute_advantages, grpo_advantages, outcome_token_rewards
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
    """Best wall time of ``repeat`` runs (both sides get the same count), and the last output."""
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
    loop_s, loop = best_of(args.repeat, lambda: verl_grpo_loop(scores.cpu(), index), device)
    error = float((fast.cpu() - loop).abs().max())
    print(
        f"per-sample [B]:  vectorised {fast_s * 1e3:9.2f} ms   verl loop {loop_s * 1e3:9.2f} ms"
        f"   ratio {loop_s / fast_s:8.1f}x   max |diff| {error:.2e}"
    )
    if error > 1e-6:
        raise SystemExit(f"per-sample advantages differ by {error}")

    verl_fn = verl_grpo_function()
    token_rewards = outcome_token_rewards(scores, mask)
    uids = np.array([f"uid-{g}" for g in index], dtype=object)  # verl's uids are strings
    if verl_fn is None:
        print("verl is not importable: its loop is timed from the transcription above")

        def verl_full() -> Tensor:
            per_sample = verl_grpo_loop(token_rewards.sum(dim=-1).cpu(), index)
            return per_sample.to(device).unsqueeze(-1) * mask
    else:

        def verl_full() -> Tensor:
            return verl_fn(token_rewards, mask, uids)[0]

    loop_full_s, loop_full = best_of(args.repeat, verl_full, device)
    fresh_s, fresh = best_of(
        args.repeat, lambda: compute_advantages("grpo", scores, groups, mask), device
    )
    error = float((fresh - loop_full).abs().max())
    del fresh
    buffer = torch.empty_like(mask)
    reused_s, reused = best_of(
        args.repeat,
        lambda: compute_advantages("grpo", scores, groups, mask, out=buffer),
        device,
    )
    error = max(error, float((reused - loop_full).abs().max()))
    source = "verl.compute_grpo_outcome_advantage" if verl_fn else "verl loop (transcribed)"
    print(f"token [B, T]:    {source} {loop_full_s * 1e3:9.2f} ms")
    print(
        f"  assay, fresh [B, T] output      {fresh_s * 1e3:9.2f} ms   ratio "
        f"{loop_full_s / fresh_s:8.1f}x"
    )
    print(
        f"  assay, reused [B, T] buffer     {reused_s * 1e3:9.2f} ms   ratio "
        f"{loop_full_s / reused_s:8.1f}x   max |diff| {error:.2e}"
    )
    if error > 1e-6:
        raise SystemExit(f"token advantages differ by {error}")


def verl_grpo_function() -> Callable[..., tuple[Tensor, Tensor]] | None:
    """verl's own ``compute_grpo_outcome_advantage`` when verl is installed, else None."""
    try:
        from verl.trainer.ppo.core_algos import compute_grpo_outcome_advantage
    except Exception:  # verl absent or missing one of its many optional imports
        return None
    return compute_grpo_outcome_advantage  # type: ignore[no-any-return]


if __name__ == "__main__":
    main()
