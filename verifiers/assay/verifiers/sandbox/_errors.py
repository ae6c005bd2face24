"""Errors of the sandbox, grafted onto assay's one exception tree.

::

    AssayError
    ├── ConfigError                 bad arguments (limits, file names, non-data call args)
    └── WorkerError
        └── SandboxError
            └── SandboxUnavailableError   no worker could start at the isolation required

Candidate behaviour never raises: a crash, hang, flood or forged message is an outcome
(``crashed``, ``timeout``, ...), and the worker it broke is replaced.
"""

from __future__ import annotations

from assay.errors import WorkerError

__all__ = ["SandboxError", "SandboxUnavailableError"]


class SandboxError(WorkerError):
    """The sandbox machinery itself failed (not the candidate code it ran)."""


class SandboxUnavailableError(SandboxError):
    """No sandbox worker could be started, or not at the isolation level required."""


class _WorkerLostError(SandboxError):
    """A zygote stopped answering, answered garbage, or died (internal; becomes an outcome)."""

    def __init__(self, reason: str, timed_out: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.timed_out = timed_out
