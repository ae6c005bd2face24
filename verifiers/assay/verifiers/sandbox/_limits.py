"""Per-run resource limits."""

from __future__ import annotations

import math
from dataclasses import dataclass

from assay.errors import ConfigError

from ._inside.codec import Data

__all__ = ["Limits"]


@dataclass(frozen=True, slots=True)
class Limits:
    """What one run (a call session, a program, a command) may use.

    Attributes:
        timeout_s: Wall-clock limit, per call in a session, per run otherwise. The zygote
            SIGKILLs the run's whole process group when it expires.
        memory_mb: RLIMIT_AS of each process of the run: allocations beyond it fail
            (``MemoryError`` in Python); it includes the interpreter (~20-60 MB). Also the cap
            on the memory of all the run's processes together (proportional set size, polled
            every 0.1 s by the zygote, which ends the run as ``memory``).
        cpu_s: RLIMIT_CPU per process (SIGXCPU, then SIGKILL a second later). ``None``: the
            timeout rounded up, plus one second. In a session it covers all calls together.
        max_output_bytes: Bytes kept per call or run of stdout (the first ones) and of stderr
            (the last ones, where a traceback ends); the rest is read and dropped, so a flood
            neither blocks the writer nor fills memory.
        max_processes: Processes (threads count) the run may add (RLIMIT_NPROC above what the
            sandbox already holds). Stops fork bombs.
        max_open_files: RLIMIT_NOFILE.
        max_file_bytes: RLIMIT_FSIZE: the largest file the run may write.
        max_value_bytes: Largest encoded return value, call argument set, or collected file.
        address_space_mb: RLIMIT_AS of each process when it must differ from ``memory_mb``:
            runtimes that reserve far more virtual memory than they touch (the JVM, V8, the
            Go toolchain) get a wide address space while ``memory_mb`` stays the cap on
            what the run's processes really hold (the 0.1 s poll). ``None``: ``memory_mb``.

    Example:
        >>> Limits(timeout_s=2.0).effective_cpu_s
        3
    """

    timeout_s: float = 5.0
    memory_mb: int = 512
    cpu_s: int | None = None
    max_output_bytes: int = 64 * 1024
    max_processes: int = 32
    max_open_files: int = 64
    max_file_bytes: int = 16 * 1024 * 1024
    max_value_bytes: int = 8 * 1024 * 1024
    address_space_mb: int | None = None

    def __post_init__(self) -> None:
        if not (math.isfinite(self.timeout_s) and self.timeout_s > 0):
            raise ConfigError(f"timeout_s must be a positive number, not {self.timeout_s!r}")
        for name in (
            "memory_mb",
            "max_output_bytes",
            "max_processes",
            "max_open_files",
            "max_file_bytes",
            "max_value_bytes",
        ):
            value = getattr(self, name)
            if type(value) is not int or value <= 0:
                raise ConfigError(f"{name} must be a positive int, not {value!r}")
        if self.cpu_s is not None and (type(self.cpu_s) is not int or self.cpu_s <= 0):
            raise ConfigError(f"cpu_s must be a positive int or None, not {self.cpu_s!r}")
        if self.address_space_mb is not None and (
            type(self.address_space_mb) is not int or self.address_space_mb < self.memory_mb
        ):
            raise ConfigError(
                f"address_space_mb must be an int >= memory_mb, not {self.address_space_mb!r}"
            )
        if self.max_open_files < 16:
            raise ConfigError("max_open_files below 16 leaves Python unable to start")

    @property
    def effective_cpu_s(self) -> int:
        """The CPU-seconds limit actually applied."""
        return self.cpu_s if self.cpu_s is not None else math.ceil(self.timeout_s) + 1

    def to_wire(self) -> dict[str, Data]:
        """The limits as the zygote reads them."""
        return {
            "timeout_s": float(self.timeout_s),
            "memory_bytes": self.memory_mb * 1024 * 1024,
            "cpu_s": self.effective_cpu_s,
            "max_output_bytes": self.max_output_bytes,
            "max_processes": self.max_processes,
            "max_open_files": self.max_open_files,
            "max_file_bytes": self.max_file_bytes,
            "max_value_bytes": self.max_value_bytes,
            "address_bytes": (self.address_space_mb or self.memory_mb) * 1024 * 1024,
        }
