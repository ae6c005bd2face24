"""Typed results of sandboxed runs. Candidate behaviour is reported here, never raised."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Self

from ._inside.codec import Data

__all__ = [
    "CallOutcome",
    "CallStatus",
    "CommandOutcome",
    "Isolation",
    "IsolationReport",
    "PoolStats",
    "ProgramOutcome",
    "ProgramStatus",
    "ResourceUsage",
]


class Isolation(StrEnum):
    """How strongly a pool's workers are isolated, weakest first.

    ``bwrap``: bubblewrap; own user, PID, network, IPC, UTS, mount (and cgroup) namespaces, a
    read-only minimal filesystem. ``unshare``: the same namespaces, but the host filesystem is
    visible with the caller's permissions. ``none``: rlimits and a scratch dir only.
    """

    NONE = "none"
    UNSHARE = "unshare"
    BWRAP = "bwrap"

    @property
    def rank(self) -> int:
        """Order for comparisons: none < unshare < bwrap."""
        return (Isolation.NONE, Isolation.UNSHARE, Isolation.BWRAP).index(self)


@dataclass(frozen=True, slots=True)
class IsolationReport:
    """What a pool's first worker found out about its sandbox when it started.

    Attributes:
        level: The isolation level in use.
        readonly_mounts: Read-only files are read-only bind mounts (not only mode 0444).
        nested_userns_disabled: Candidate code cannot create user namespaces of its own.
        namespace_init: The zygote is PID 1 of its own PID namespace, so it cannot be killed
            from inside, and it sees (and kills) exactly the sandbox's processes; each run
            then also has an IPC namespace of its own.
        seccomp: The seccomp filters (docs/code.md) bind the zygote and every run.
    """

    level: Isolation
    readonly_mounts: bool
    nested_userns_disabled: bool
    namespace_init: bool
    seccomp: bool = False


@dataclass(frozen=True, slots=True)
class PoolStats:
    """Counters of a pool's life (for monitoring; recycled workers count in ``started``)."""

    started: int
    recycled: int
    runs: int


@dataclass(frozen=True, slots=True)
class ResourceUsage:
    """Resources one call or run used, measured by the zygote (not by candidate code).

    Attributes:
        wall_s: Elapsed wall-clock seconds.
        cpu_s: User plus system CPU seconds, of the process and its reaped children.
        peak_rss_bytes: Peak resident set size (high-water mark).
    """

    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_rss_bytes: int = 0


class CallStatus(StrEnum):
    """How a call into candidate code ended."""

    OK = "ok"  # returned plain data: see ``value``
    EXCEPTION = "exception"  # raised: see ``exception_type`` and ``exception_message``
    TIMEOUT = "timeout"  # exceeded the wall-clock or CPU limit; the session is over
    CRASHED = "crashed"  # the process died, or the session had already ended
    UNENCODABLE = "unencodable"  # returned something that is not plain data
    MEMORY = "memory"  # raised MemoryError (the RLIMIT_AS limit)


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """Result of loading a module or calling a function in a call session.

    ``value`` is meaningful only when ``status`` is ``ok``; it is rebuilt on the trusted side
    from builtin types only, so ``type(value)`` is exact (``bool`` is never ``int``).
    ``stdout`` keeps the head of what the call printed, ``stderr`` the tail; the ``_truncated``
    flags say whether anything was dropped.
    """

    status: CallStatus
    value: Data = None
    exception_type: str | None = None
    exception_message: str | None = None
    exception_bases: tuple[str, ...] = ()
    traceback: str = ""
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    usage: ResourceUsage = field(default_factory=ResourceUsage)
    detail: str = ""
    stuck_call: int | None = None
    """For a batch killed on one call's own time limit: that call's index (the last the
    sandbox reported starting)."""

    @property
    def ok(self) -> bool:
        """Whether the call returned a value."""
        return self.status is CallStatus.OK


class ProgramStatus(StrEnum):
    """How a program or command ended."""

    OK = "ok"  # exit code 0
    ERROR = "error"  # non-zero exit code (an uncaught exception in a Python program)
    TIMEOUT = "timeout"  # exceeded the wall-clock or CPU limit and was killed
    MEMORY = "memory"  # a Python program hit MemoryError
    KILLED = "killed"  # ended by a signal it did not ask for
    CRASHED = "crashed"  # the sandbox worker was lost while it ran


@dataclass(frozen=True, slots=True)
class ProgramOutcome:
    """Result of :meth:`SandboxPool.run_program`."""

    status: ProgramStatus
    exit_code: int | None
    signal: int | None
    timed_out: bool
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    usage: ResourceUsage
    detail: str = ""

    @classmethod
    def lost(cls, reason: str, timed_out: bool) -> Self:
        """The outcome of a run whose sandbox worker was lost while it ran."""
        return cls(
            ProgramStatus.CRASHED, None, None, timed_out, "", "", False, False, ResourceUsage(),
            detail=reason,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class CommandOutcome(ProgramOutcome):
    """Result of :meth:`SandboxPool.run_command`: a program's outcome plus result files.

    ``collected`` maps each requested result file that existed as a regular file to its first
    ``max_value_bytes`` bytes. Candidate code may have written it: see the threat model.
    """

    collected: Mapping[str, bytes] = field(default_factory=dict)
    collected_truncated: frozenset[str] = frozenset()
