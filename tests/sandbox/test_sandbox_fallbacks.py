"""Weaker isolation levels: they must work, and they must say loudly that they are weaker."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from assay.verifiers.sandbox import (
    CallStatus,
    Isolation,
    ProgramStatus,
    SandboxPool,
    SandboxUnavailableError,
)
from sandbox_helpers import FAST, call

from assay.errors import ConfigError


@pytest.fixture(scope="module", params=[Isolation.UNSHARE, Isolation.NONE], ids=["unshare", "none"])
def weak_pool(request: pytest.FixtureRequest) -> Iterator[SandboxPool]:
    try:
        pool = SandboxPool(limits=FAST, isolation=request.param)
    except SandboxUnavailableError as exc:
        pytest.fail(str(exc))
    with pool:
        yield pool


def test_weak_level_is_what_was_asked(weak_pool: SandboxPool) -> None:
    assert weak_pool.isolation in (Isolation.UNSHARE, Isolation.NONE)
    assert weak_pool.report.level is weak_pool.isolation


def test_weak_level_runs_honest_code(weak_pool: SandboxPool) -> None:
    # the same API, the same outcomes, on every level
    assert call(weak_pool, "def attack():\n    return {'x': (1.5, True)}\n").value == {
        "x": (1.5, True)
    }
    program = weak_pool.run_program("print(input()[::-1])", "abc\n")
    assert (program.status, program.stdout) == (ProgramStatus.OK, "cba\n")
    command = weak_pool.run_command(["python", "-c", "print(open('f').read())"], files={"f": "F"})
    assert command.stdout == "F\n"


def test_weak_level_still_limits(weak_pool: SandboxPool) -> None:
    # rlimits and timeouts hold at every level
    assert (
        call(weak_pool, "def attack():\n    return len(bytearray(10**10))\n").status
        is CallStatus.MEMORY
    )
    assert (
        call(weak_pool, "def attack():\n    while True:\n        pass\n").status
        is CallStatus.TIMEOUT
    )


@pytest.mark.parametrize("level", ["unshare", "none"], ids=["unshare", "none"])
def test_reduced_isolation_is_logged_loudly(level: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="assay.verifiers.sandbox")
    try:
        with SandboxPool(isolation=level):
            pass
    except SandboxUnavailableError as exc:
        pytest.fail(str(exc))
    assert any("SANDBOX ISOLATION REDUCED" in record.getMessage() for record in caplog.records)


def test_unshare_level_sees_host_files_read_only(tmp_path: Path) -> None:
    # the host is visible at this level, but nothing on it can be changed
    victim = tmp_path / f"victim-{uuid.uuid4().hex}"
    victim.write_text("original")
    source = "def attack(path):\n    try:\n        open(path, 'w').write('pwned')\n        return 'written'\n    except OSError as exc:\n        return type(exc).__name__\n"
    try:
        pool = SandboxPool(limits=FAST, isolation="unshare")
    except SandboxUnavailableError as exc:
        pytest.fail(str(exc))
    with pool:
        assert call(pool, source, args=(str(victim),)).value != "written"
    assert victim.read_text() == "original"


def test_minimum_isolation_is_enforced() -> None:
    # a grader that demands bubblewrap gets an error, never a silently weaker sandbox
    with pytest.raises(SandboxUnavailableError):
        SandboxPool(isolation="none", min_isolation="bwrap")


def test_unknown_isolation_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        SandboxPool(isolation="docker")
