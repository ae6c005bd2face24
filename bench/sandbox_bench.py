"""Executions per second of a trivial task: warm sandbox pool vs a fresh process per task.

Run: ``.venv/bin/python bench/sandbox_bench.py [--seconds 3] [--rounds 3]``

Each round measures, one after the other in the same process:

* ``pool``: ``pool.call_session({}, "def add(a, b): ...")`` + one ``session.call("add", (1, 2))``
  through a warm :class:`assay.verifiers.sandbox.SandboxPool` of size 1 (bubblewrap if present);
* ``fresh python``: ``subprocess.run([sys.executable, "-c", ...])`` per task (no isolation);
* ``fresh pytest``: ``subprocess.run([sys.executable, "-m", "pytest", ...])`` per task, on a
  test file that checks ``add(1, 2) == 3`` (no isolation).

It prints the median rate of each over the rounds and the ratios, and the page faults of
each pool run child (the template's ``cminflt`` in ``/proc``: the faults of the children it
has reaped), a figure the machine's noise does not move: most of a run's cost is the
copy-on-write faults of its fresh fork (docs/code.md, "Measured").
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from assay.verifiers.sandbox import SandboxPool

SOURCE = "def add(a, b):\n    return a + b\n"
TEST = "from solution import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"


def rate(task: Callable[[], None], seconds: float) -> float:
    """Tasks per second over about ``seconds``."""
    task()  # warm-up
    count, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        task()
        count += 1
    return count / elapsed


def _stat(pid: int) -> list[str] | None:
    """Fields of ``/proc/PID/stat`` after the command name (field 3 first), or ``None``."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def _zygote_code(pid: int) -> bool:
    """A Python process of the sandbox (the zygote, its template or a run child)."""
    try:
        if Path(f"/proc/{pid}/comm").read_text().strip() == "bwrap":  # its argv names the code
            return False
        return b"_inside.zygote" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def template_pids() -> list[int]:
    """Host pids of the templates: sandbox processes whose parent, not grandparent, is one."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or not _zygote_code(pid := int(entry.name)):
            continue
        fields = _stat(pid)
        parent = int(fields[1]) if fields else 0
        parent_fields = _stat(parent) if _zygote_code(parent) else None
        if parent_fields is not None and not _zygote_code(int(parent_fields[1])):
            found.append(pid)
    return found


def faults_per_child(task: Callable[[], None], runs: int) -> float | None:
    """Minor page faults per run child over ``runs`` tasks (``None`` if not measurable)."""
    task()  # the spare of the next run is forked, and so counted, from here on
    before = {pid: _stat(pid) for pid in template_pids()}
    for _ in range(runs):
        task()
    total = 0
    for pid, fields in before.items():
        after = _stat(pid)
        if fields is None or after is None:
            return None  # the template was replaced: its children's faults are lost
        total += int(after[8]) - int(fields[8])  # cminflt, field 11
    return total / runs if before else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sandbox-bench-"))
    (work / "solution.py").write_text(SOURCE)
    (work / "test_solution.py").write_text(TEST)

    with SandboxPool(size=1, max_runs_per_worker=1000) as pool:

        def pool_task() -> None:
            with pool.call_session({}, SOURCE) as session:
                if session.call("add", (1, 2)).value != 3:
                    raise RuntimeError("wrong answer from the sandbox")

        def fresh_python() -> None:
            code = SOURCE + "assert add(1, 2) == 3\n"
            subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)

        def fresh_pytest() -> None:
            command = [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "test_solution.py",
            ]
            subprocess.run(command, check=True, capture_output=True, cwd=work)

        faults = faults_per_child(pool_task, 200)
        results: dict[str, list[float]] = {"pool": [], "fresh python": [], "fresh pytest": []}
        for _ in range(args.rounds):
            results["pool"].append(rate(pool_task, args.seconds))
            results["fresh python"].append(rate(fresh_python, args.seconds))
            results["fresh pytest"].append(rate(fresh_pytest, args.seconds))
        isolation = pool.isolation

    medians = {name: statistics.median(values) for name, values in results.items()}
    print(f"isolation of the pool: {isolation}")
    for name, value in medians.items():
        rounds = ", ".join(f"{v:.1f}" for v in results[name])
        print(f"{name:>13}: {value:8.1f} tasks/s  (rounds: {rounds})")
    print(f"pool / fresh python: {medians['pool'] / medians['fresh python']:.1f}x")
    print(f"pool / fresh pytest: {medians['pool'] / medians['fresh pytest']:.1f}x")
    shown = (
        "not measurable (no template, or it was replaced)" if faults is None else f"{faults:.0f}"
    )
    print(f"page faults per pool run child (200 runs): {shown}")


if __name__ == "__main__":
    main()
