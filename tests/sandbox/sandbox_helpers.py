"""Helpers shared by the sandbox tests (fixtures live in ``conftest.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from assay.verifiers.sandbox import CallOutcome, Data, Limits, SandboxPool

FAST = Limits(timeout_s=1.5, memory_mb=256)
"""Limits for most tests: short enough that hangs and bombs end quickly."""


def call(
    pool: SandboxPool,
    source: str,
    name: str = "attack",
    args: Sequence[Data] = (),
    limits: Limits | None = None,
) -> CallOutcome:
    """Load ``source`` in a fresh session and make one call."""
    with pool.call_session({}, source, limits) as session:
        return session.call(name, args)


SANDBOX_PROCESSES = """
import os

def attack():
    mine = {os.getpid(), os.getppid()}
    return sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in mine)
"""
"""Lists the processes the sandbox can see but the caller and its parent (the template)."""


def other_processes(pool: SandboxPool) -> list[int]:
    """PIDs other than the zygote, the template and the asking child, seen from a fresh run."""
    outcome = call(pool, SANDBOX_PROCESSES)
    assert outcome.ok, outcome
    value = outcome.value
    assert isinstance(value, list)
    return [pid for pid in value if pid != 1]
