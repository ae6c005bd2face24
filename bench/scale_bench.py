"""Scale: one mixed batch over every registered domain, local 1 and 2 workers and Ray, same run.

The batch takes up to ``--per-domain`` labelled cases from each registered verifier's fixtures
(``Verifier.fixtures``: math, code, mesh, finance, agent... whatever the registry holds when it
runs), interleaved domain by domain as a trainer's mixed batch would be. Each configuration
warms its workers (every domain set up at start, then one untimed pass over the batch, since
some verifiers still load lazily on their first items in each worker), then scores the batch:

- local, 1 worker (the baseline) and local, 2 workers: speed-up = time(1) / time(2);
- Ray: a local Ray cluster, one actor with 2 workers: overhead = time(Ray) / time(local 2) - 1.

For each: wall time, items per second, the CPU seconds of assay's own processes (driver,
workers and their helpers such as sandboxes; for Ray the driver, the actor and its workers,
not Ray's own daemons) as a share of the machine's cores, and
the whole machine's busy share over the same interval (other programs included). Verdicts
(status and score) must be identical in every configuration.

A second, smaller part separates the scheduler from the CPU it gets: a verifier that waits
(``--io-ms`` per item, like a remote judge or a service call) scored with 1, 2 and 4 workers.

The configurations are kept warm side by side and timed in interleaved rounds (order rotated),
so each sees the same background load; the table shows each one's median round, the ratios
are per round (median and range). On a machine shared with other work, the wall-time ratios
follow the CPU each configuration managed to get (the "assay CPU" column).

Run: ``python bench/scale_bench.py [--per-domain 40] [--rounds 3] [--no-ray] [--io-items 100]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.evaluation.cases import load_cases
from assay.records import RawRow
from assay.registry import Registry, default_registry
from assay.runner import ScoreOptions, Scorer
from assay.scheduling.policy import SchedulePolicy
from assay.types import Record, Result, Verdict
from assay.verifier import Verifier

TICKS = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1


def mixed_batch(registry: Registry, per_domain: int) -> list[dict[str, Any]]:
    """Up to ``per_domain`` fixture cases of each registered domain, interleaved."""
    columns: list[list[dict[str, Any]]] = []
    for entry in registry.entries():
        path = entry.cls.fixtures
        if path is None or not Path(path).is_file():
            continue
        cases = load_cases(Path(path), entry.name)[:per_domain]
        columns.append([dict(case.row) for case in cases])
    batch: list[dict[str, Any]] = []
    for row in range(max((len(c) for c in columns), default=0)):
        batch += [column[row] for column in columns if row < len(column)]
    return batch


def process_tree(pid: int) -> Iterator[int]:
    yield pid
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            yield from process_tree(int(child))


def cpu_seconds(trees: list[int], single: list[int]) -> float:
    """CPU seconds of the processes under ``trees`` and of the ``single`` processes alone.

    Own time plus reaped children's: verifiers start short-lived helpers (sandboxes,
    renderers), whose time lands in the parent's ``cutime`` / ``cstime`` once reaped.
    """
    total = 0
    for pid in {pid for root in trees for pid in process_tree(root)} | set(single):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(value) for value in fields[11:15])
    return total / TICKS


def machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


@dataclass
class Run:
    name: str
    wall_s: float
    items: int
    assay_cpu_s: float
    machine_busy: float
    results: list[Result]

    @property
    def items_per_s(self) -> float:
        return self.items / self.wall_s

    @property
    def assay_util(self) -> float:
        return self.assay_cpu_s / (self.wall_s * CORES)


@dataclass
class Contestant:
    """A warm configuration: how to score a batch, and which processes do the work."""

    name: str
    score: Callable[[list[RawRow]], list[Result]]
    processes: Callable[[], list[int]]


def measure(contestant: Contestant, rows: list[RawRow]) -> Run:
    trees, driver = contestant.processes(), [os.getpid()]
    cpu_before, (busy_before, total_before) = cpu_seconds(trees, driver), machine_ticks()
    started = time.perf_counter()
    results = contestant.score(rows)
    wall = time.perf_counter() - started
    cpu_after, (busy_after, total_after) = cpu_seconds(trees, driver), machine_ticks()
    busy = (busy_after - busy_before) / max(1, total_after - total_before)
    return Run(contestant.name, wall, len(results), cpu_after - cpu_before, busy, results)


def options(workers: int, registry: Registry) -> ScoreOptions:
    return ScoreOptions(workers=workers, schedule=SchedulePolicy(warm=registry.names()))


def local(stack: ExitStack, workers: int, registry: Registry, warm: list[RawRow]) -> Contestant:
    scorer = stack.enter_context(Scorer(options(workers, registry), registry))
    scorer.warm()
    list(scorer.score_rows(warm))

    def workers_now() -> list[int]:
        pool = scorer.scheduler.pool
        return pool.worker_pids if pool is not None else []

    name = f"local, {workers} worker{'s' if workers > 1 else ''}"
    return Contestant(name, lambda batch: list(scorer.score_rows(batch)), workers_now)


def on_ray(stack: ExitStack, registry: Registry, warm: list[RawRow]) -> Contestant:
    import ray

    from assay.backends.ray_backend import RayBackend, RayOptions

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    stack.callback(ray.shutdown)
    backend = stack.enter_context(RayBackend(options(2, registry), RayOptions(actors=1), registry))
    list(backend.score_rows(warm))

    def actors_now() -> list[int]:
        return [int(ray.get(actor.pid.remote())) for actor in backend.actors]

    name = "Ray, 1 actor x 2 workers"
    return Contestant(name, lambda batch: list(backend.score_rows(batch)), actors_now)


def median_run(runs: list[Run]) -> Run:
    return sorted(runs, key=lambda run: run.wall_s)[len(runs) // 2]


def spread(values: list[float]) -> str:
    """Median, and the range over the rounds."""
    return f"{statistics.median(values):.2f}x (rounds: {min(values):.2f}-{max(values):.2f})"


class WaitVerifier(Verifier):
    """Waits ``reference`` milliseconds, then says correct: an I/O-bound verifier."""

    name = "wait"
    version = "1"

    def verify(self, record: Record) -> Verdict:
        time.sleep(float(record.reference) / 1000.0)
        return Verdict.correct()


def io_bound(items: int, wait_ms: float) -> list[tuple[int, float]]:
    """Wall seconds to score ``items`` waiting items with 1, 2 and 4 workers."""
    import scale_bench  # this file under an importable name: workers load the class by it

    registry = Registry()
    registry.register(scale_bench.WaitVerifier)
    rows = [
        RawRow(i, {"id": str(i), "domain": "wait", "response": "x", "reference": wait_ms})
        for i in range(items)
    ]
    timings = []
    for workers in (1, 2, 4):
        with Scorer(options(workers, registry), registry) as scorer:
            scorer.warm()
            list(scorer.score_rows(rows[:workers]))
            started = time.perf_counter()
            list(scorer.score_rows(rows))
            timings.append((workers, time.perf_counter() - started))
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-domain", type=int, default=40, help="cases per domain (40)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timed rounds (3)")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray configuration")
    parser.add_argument("--io-items", type=int, default=100, help="waiting items (100; 0: skip)")
    parser.add_argument("--io-ms", type=float, default=20.0, help="wait per item, ms (20)")
    args = parser.parse_args()

    registry = default_registry()
    batch = mixed_batch(registry, args.per_domain)
    rows = [RawRow(i, case) for i, case in enumerate(batch, start=1)]
    warm = rows
    mix = Counter(case["domain"] for case in batch)
    print(
        f"mixed batch: {len(rows)} items ({', '.join(f'{d} {n}' for d, n in sorted(mix.items()))})"
    )
    print(f"machine: {CORES} cores; load average before: {os.getloadavg()[0]:.2f}")
    print("assay CPU: CPU time of the driver, workers (Ray: actor too) / (wall x cores)\n")

    rounds: list[list[Run]] = []
    with ExitStack() as stack:
        contestants = [local(stack, 1, registry, warm), local(stack, 2, registry, warm)]
        if not args.no_ray:
            contestants.append(on_ray(stack, registry, warm))
        for index in range(args.rounds):  # interleaved, order rotated: each sees the same load
            shift = index % len(contestants)
            order = contestants[shift:] + contestants[:shift]
            measured = {c.name: measure(c, rows) for c in order}
            rounds.append([measured[c.name] for c in contestants])
    runs = [median_run([r[i] for r in rounds]) for i in range(len(rounds[0]))]
    base = runs[0]
    print(f"{'configuration':<26} {'wall s':>7} {'items/s':>8} {'vs 1 worker':>11} "
          f"{'assay CPU':>9} {'items/CPU-s':>11} {'machine busy':>12}")  # fmt: skip
    for run in runs:
        print(
            f"{run.name:<26} {run.wall_s:>7.2f} {run.items_per_s:>8.1f} "
            f"{base.wall_s / run.wall_s:>10.2f}x {100 * run.assay_util:>8.0f}% "
            f"{run.items / max(run.assay_cpu_s, 1e-9):>11.1f} {100 * run.machine_busy:>11.0f}%"
        )
    speedups = [r[0].wall_s / r[1].wall_s for r in rounds]
    print(f"\nspeed-up 1 -> 2 workers, per round: {spread(speedups)} (target >= 1.8x)")
    if len(runs) > 2:
        ray_ratio = [r[2].wall_s / r[1].wall_s for r in rounds]
        print(f"Ray / local time, 2 workers each, per round: {spread(ray_ratio)} (target < 1.15x)")
    reference = [(r.id, r.status, r.score) for r in runs[0].results]
    every = [run for measured in rounds for run in measured]
    same = all([(r.id, r.status, r.score) for r in run.results] == reference for run in every)
    per_item_ms = {
        d: statistics.fmean(r.elapsed_ms for r in runs[0].results if r.domain == d) for d in mix
    }
    print(
        "mean verifier time per item, ms: "
        + ", ".join(f"{d} {v:.1f}" for d, v in sorted(per_item_ms.items()))
    )
    print(f"verdicts identical in every configuration: {'yes' if same else 'NO'}")
    for run in every:
        for ours, theirs in zip(runs[0].results, run.results, strict=True):
            if (ours.id, ours.status, ours.score) != (theirs.id, theirs.status, theirs.score):
                print(
                    f"  {run.name}: {ours.id}: {ours.status.value} {ours.score:g} "
                    f"vs {theirs.status.value} {theirs.score:g} ({theirs.verdict.message})"
                )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if args.io_items:
        timings = io_bound(args.io_items, args.io_ms)
        print(f"\nI/O-bound verifier ({args.io_items} items x {args.io_ms:g} ms wait):")
        for workers, wall in timings:
            print(
                f"  {workers} worker{'s' if workers > 1 else ' '}: {wall:6.2f} s, "
                f"speed-up {timings[0][1] / wall:.2f}x"
            )
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
