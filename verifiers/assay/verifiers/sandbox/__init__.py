"""A sandbox for untrusted Python: a pool of warm, isolated workers that fork per run.

Results come back as data, never as objects: return values cross the boundary through a
strict codec and are rebuilt from builtin types only. See ``docs/code.md`` for the threat
model.

Example:
    >>> from assay.verifiers.sandbox import SandboxPool, Limits
    >>> with SandboxPool(limits=Limits(timeout_s=2)) as pool:  # doctest: +SKIP
    ...     with pool.call_session({}, "def add(a, b): return a + b") as session:
    ...         outcome = session.call("add", (1, 2))
    ...     outcome.status, outcome.value
    (<CallStatus.OK: 'ok'>, 3)
"""

from ._compare import strict_equal
from ._errors import SandboxError, SandboxUnavailableError
from ._inside.codec import Data, DecodeError, UnencodableError, decode, encode
from ._limits import Limits
from ._outcomes import (
    CallOutcome,
    CallStatus,
    CommandOutcome,
    Isolation,
    IsolationReport,
    PoolStats,
    ProgramOutcome,
    ProgramStatus,
    ResourceUsage,
)
from ._pool import DEFAULT_PRELOAD, SandboxPool
from ._session import CallSession

__all__ = [
    "DEFAULT_PRELOAD",
    "CallOutcome",
    "CallSession",
    "CallStatus",
    "CommandOutcome",
    "Data",
    "DecodeError",
    "Isolation",
    "IsolationReport",
    "Limits",
    "PoolStats",
    "ProgramOutcome",
    "ProgramStatus",
    "ResourceUsage",
    "SandboxError",
    "SandboxPool",
    "SandboxUnavailableError",
    "UnencodableError",
    "decode",
    "encode",
    "strict_equal",
]
