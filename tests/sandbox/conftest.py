"""Shared pools and helpers for the sandbox tests.

Every attack in these tests really runs inside the sandbox; the assertions look at what came
back (as data) and at the host. Pools are module- or session-scoped so the suite stays fast.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from assay.verifiers.sandbox import Isolation, SandboxPool
from sandbox_helpers import FAST


@pytest.fixture(scope="session")
def pool() -> Iterator[SandboxPool]:
    """The best pool this machine offers (bubblewrap where it works)."""
    with SandboxPool(size=1, limits=FAST) as shared:
        yield shared


@pytest.fixture
def bwrap_pool(pool: SandboxPool) -> SandboxPool:
    """The shared pool, when it really is bubblewrap (filesystem tests need that)."""
    if pool.isolation is not Isolation.BWRAP:
        pytest.fail(f"needs bubblewrap isolation, this machine gives {pool.isolation}")
    return pool
