"""The caller-facing API: validation, pool life cycle, concurrency, public names."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from assay.verifiers import sandbox
from assay.verifiers.sandbox import CallStatus, Limits, SandboxPool, SandboxUnavailableError
from sandbox_helpers import FAST, call

from assay.errors import ConfigError, WorkerError


@pytest.mark.parametrize(
    "kwargs",
    [
        {"timeout_s": 0},  # no time at all
        {"timeout_s": float("nan")},  # NaN compares false with everything
        {"timeout_s": float("inf")},  # never times out
        {"memory_mb": -1},
        {"memory_mb": 1.5},  # must be an int
        {"cpu_s": 0},
        {"max_output_bytes": 0},
        {"max_processes": 0},
        {"max_open_files": 3},  # Python cannot even start
        {"max_value_bytes": True},  # a bool is not an int here either
        {"memory_mb": 512, "address_space_mb": 256},  # below the memory cap
    ],
    ids=[
        "zero-timeout", "nan-timeout", "inf-timeout", "negative-memory", "float-memory",
        "zero-cpu", "zero-output", "zero-processes", "too-few-files", "bool-value-bytes",
        "address-below-memory",
    ],
)  # fmt: skip
def test_bad_limits_are_config_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        Limits(**kwargs)


def test_cpu_limit_defaults_from_timeout() -> None:
    assert Limits(timeout_s=2.5).effective_cpu_s == 4
    assert Limits(timeout_s=2.5, cpu_s=10).effective_cpu_s == 10


@pytest.mark.parametrize(
    "name",
    ["/etc/passwd", "../escape.py", "a/../../b", "", "a//b", "./a", "nul\x00.py"],
    ids=["absolute", "dot-dot", "nested-dot-dot", "empty", "empty-part", "dot", "nul-byte"],
)
def test_bad_file_names_are_config_errors(pool: SandboxPool, name: str) -> None:
    # file names must stay inside the scratch dir
    with pytest.raises(ConfigError), pool.call_session({name: "x"}, "pass"):
        pass
    with pytest.raises(ConfigError):
        pool.run_command(["python", "-c", "pass"], readonly_files={name: "x"})


def test_non_data_arguments_are_config_errors(pool: SandboxPool) -> None:
    # the caller's bug, not the candidate's: raised, not reported
    with pool.call_session({}, "def f(x):\n    return x\n") as session:
        with pytest.raises(ConfigError):
            session.call("f", (object(),))
        assert session.call("f", (1,)).value == 1


def test_errors_belong_to_the_assay_tree() -> None:
    assert issubclass(SandboxUnavailableError, WorkerError)


def test_closed_pool_refuses_work() -> None:
    pool = SandboxPool(limits=FAST)
    pool.close()
    with pytest.raises(SandboxUnavailableError):
        pool.run_program("print(1)")


def test_workers_are_recycled_after_max_runs() -> None:
    with SandboxPool(limits=FAST, max_runs_per_worker=2) as pool:
        values = [call(pool, f"def attack():\n    return {i}\n").value for i in range(5)]
        assert values == [0, 1, 2, 3, 4]
        assert pool.stats.recycled >= 2


def test_parallel_sessions_from_threads() -> None:
    # two workers serve two threads at once; each gets its own answer
    results: dict[int, object] = {}
    with SandboxPool(size=2, limits=FAST) as pool:

        def work(index: int) -> None:
            results[index] = call(pool, f"def attack():\n    return {index} * 10\n").value

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert results == {0: 0, 1: 10, 2: 20, 3: 30}


def test_session_after_close_reports_instead_of_hanging(pool: SandboxPool) -> None:
    with pool.call_session({}, "def f():\n    return 1\n") as session:
        assert session.call("f").value == 1
    assert session.call("f").status is CallStatus.CRASHED


def test_public_names() -> None:
    public = {name for name in dir(sandbox) if not name.startswith("_")}
    exported = set(sandbox.__all__)
    assert exported <= public
    assert {"SandboxPool", "Limits", "CallOutcome", "ProgramOutcome", "CommandOutcome"} <= exported


def test_command_stdin_and_address_space(pool: SandboxPool) -> None:
    """A command reads its ``stdin``; ``address_space_mb`` widens RLIMIT_AS, not the cap."""
    script = "import resource, sys; print(sys.stdin.read().upper(), resource.getrlimit(resource.RLIMIT_AS)[0] >> 20)"
    wide = Limits(timeout_s=10, memory_mb=256, address_space_mb=4096)
    outcome = pool.run_command(["python", "-I", "-c", script], stdin="abc\n", limits=wide)
    assert outcome.stdout.split() == ["ABC", "4096"], outcome.stderr
    plain = pool.run_command(
        ["python", "-I", "-c", script], limits=Limits(timeout_s=10, memory_mb=256)
    )
    assert plain.stdout.split() == ["256"], plain.stderr  # no stdin: empty; RLIMIT_AS = the cap
