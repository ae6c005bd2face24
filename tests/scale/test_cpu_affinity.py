"""Workers pinned to CPUs (``cpu_affinity``): which CPUs, inherited by the sandbox, kept."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from assay.errors import ConfigError, WorkerError
from assay.pool import cpu_slots
from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer

CPUS = sorted(os.sched_getaffinity(0))


@pytest.mark.parametrize(
    ("allowed", "size", "mode", "expected"),
    [
        ({0, 1}, 2, "auto", [{0}, {1}]),  # as many workers as CPUs: one each
        ({0, 1}, 4, "auto", [{0}, {1}, {0}, {1}]),  # more workers: round robin
        ({4, 9, 17}, 3, "auto", [{4}, {9}, {17}]),  # only the CPUs this process may use
        ({0, 1, 2, 3}, 2, "auto", None),  # fewer workers than CPUs: left to the kernel
        ({0, 1, 2, 3}, 2, "on", [{0}, {1}]),
        ({0, 1}, 2, "off", None),
        ({3}, 2, "on", None),  # one CPU: nothing to choose
    ],
)
def test_cpu_slots(
    monkeypatch: pytest.MonkeyPatch,
    allowed: set[int],
    size: int,
    mode: str,
    expected: list[set[int]] | None,
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(allowed))
    slots = cpu_slots(size, mode)
    assert (None if slots is None else [set(s) for s in slots]) == expected


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(WorkerError, match="cpu_affinity"):
        cpu_slots(2, "always")
    with pytest.raises(ConfigError, match="cpu_affinity"):
        ScoreOptions(cpu_affinity="always")


def test_cli_offers_the_pools_modes() -> None:
    from assay.cli import _parser
    from assay.pool import CPU_AFFINITY

    score = _parser()._subparsers._group_actions[0].choices["score"]  # type: ignore[union-attr]
    [option] = [a for a in score._actions if "--cpu-affinity" in a.option_strings]
    assert tuple(option.choices) == CPU_AFFINITY and option.default == "auto"


def test_cli_refuses_an_unknown_mode(tmp_path: Path) -> None:
    data = tmp_path / "in.jsonl"
    data.write_text("")
    command = [sys.executable, "-m", "assay.cli", "score", str(data), "--cpu-affinity", "x"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "--cpu-affinity" in done.stderr


def _allowed(pid: int) -> set[int]:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Cpus_allowed_list:"):
            found: set[int] = set()
            for part in line.split(":", 1)[1].strip().split(","):
                low, _, high = part.partition("-")
                found.update(range(int(low), int(high or low) + 1))
            return found
    raise AssertionError(f"no Cpus_allowed_list for {pid}")


def _processes() -> dict[int, tuple[str, int]]:
    """Every process: its command name and its parent."""
    found: dict[int, tuple[str, int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                text = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            close = text.rindex(")")
            found[int(name)] = (
                text[text.index("(") + 1 : close],
                int(text[close + 2 :].split()[1]),
            )
    return found


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for child, (_, parent) in _processes().items():
        children.setdefault(parent, []).append(child)
    found, stack = [], list(children.get(pid, []))
    while stack:
        child = stack.pop()
        found.append(child)
        stack.extend(children.get(child, []))
    return found


def _bwraps(pid: int) -> int:
    """Code sandboxes a worker started: its own children that are bubblewrap."""
    return sum(comm == "bwrap" and parent == pid for comm, parent in _processes().values())


HUMANEVAL_ROW = {
    "domain": "code",
    "response": "def add(a, b):\n    return a + b\n",
    "reference": {
        "tests": "def check(candidate):\n    assert candidate(1, 2) == 3\n",
        "entry_point": "add",
    },
}


def _rows(count: int) -> list[RawRow]:
    return [RawRow(n, {**HUMANEVAL_ROW, "id": f"r{n}"}) for n in range(1, count + 1)]


def test_each_worker_and_its_sandbox_run_on_one_cpu_and_keep_it_when_replaced() -> None:
    """As many workers as usable CPUs (``auto``): each pinned to its own (on a machine of one
    CPU nothing is pinned, and the one worker runs there all the same)."""
    options = ScoreOptions(workers=len(CPUS))
    with Scorer(options) as scorer:
        results = list(scorer.score_rows(_rows(2 * len(CPUS))))
        assert [r.status.value for r in results] == ["correct"] * (2 * len(CPUS))
        pool = scorer.scheduler.pool
        assert pool is not None
        pinned = [frozenset({cpu}) for cpu in CPUS] if len(CPUS) > 1 else [None]
        assert pool.worker_cpus == pinned
        sandboxes = 0
        for pid, cpu in zip(pool.worker_pids, CPUS, strict=True):
            assert _bwraps(pid) == 1  # one zygote on one CPU: its clean-up overlaps nothing
            assert _allowed(pid) == {cpu}
            for child in _descendants(pid):  # its code sandbox (bwrap, zygote, template)
                try:
                    allowed = _allowed(child)
                except OSError:  # a run child that ended meanwhile
                    continue
                assert allowed == {cpu}
                sandboxes += 1
        assert sandboxes >= len(CPUS)  # every worker started its sandbox there
        first = pool.worker_pids[0]
        os.kill(first, signal.SIGKILL)
        again = list(scorer.score_rows(_rows(2 * len(CPUS))))
        assert [r.status.value for r in again] == ["correct"] * (2 * len(CPUS))
        assert pool.worker_pids[0] != first  # replaced ...
        assert _allowed(pool.worker_pids[0]) == {CPUS[0]}  # ... on the same CPU


def test_off_leaves_the_workers_where_the_kernel_puts_them() -> None:
    with Scorer(ScoreOptions(workers=max(2, len(CPUS)), cpu_affinity="off")) as scorer:
        results = list(scorer.score_rows(_rows(2)))
        assert [r.status.value for r in results] == ["correct"] * 2
        pool = scorer.scheduler.pool
        assert pool is not None
        assert pool.worker_cpus == [None] * max(2, len(CPUS))
        assert all(_allowed(pid) == set(CPUS) for pid in pool.worker_pids)
        if len(CPUS) > 1:  # two zygotes: one cleans up while the other serves the next run
            assert [_bwraps(pid) for pid in pool.worker_pids] == [2] * max(2, len(CPUS))
