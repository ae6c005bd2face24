"""Each run's environment: the documented set, none of the host's, never an earlier run's.

Sessions and programs inherit the environment the template set once (so a spare child sets
nothing); commands get it plus their own variables. A run that edits its environment, through
``os.environ`` or the C library, leaves the next run on the same worker untouched.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest
from assay.verifiers.sandbox import Isolation, SandboxPool
from sandbox_helpers import FAST, call

BASE_KEYS = {
    "PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "USER", "LOGNAME", "PYTHONDONTWRITEBYTECODE",
    "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
}  # fmt: skip
SECRET = "ASSAY_TEST_HOST_SECRET"

SHOW = """
import os

def attack():
    return dict(os.environ)
"""
SHOW_C = """
import json, subprocess, sys

def attack():  # a child process gets the C library's environment, not os.environ
    code = "import json, os; print(json.dumps(dict(os.environ)))"
    return json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                     text=True, check=True).stdout)
"""
EDIT = """
import ctypes, os

os.environ["HOME"] = "/planted"
os.environ["PLANTED"] = "1"
del os.environ["PATH"]
os.putenv("PLANTED_C", "1")
ctypes.CDLL(None).setenv(b"PLANTED_LIBC", b"1", 1)

def attack():
    return sorted(os.environ)
"""
PROGRAM_SHOW = "import json, os\nprint(json.dumps(dict(os.environ)))\n"
PROGRAM_EDIT = 'import os\nos.environ["PLANTED"] = "1"\nos.environ["HOME"] = "/planted"\n'


@pytest.fixture(scope="module", params=["auto", "none"])
def env_pool(request: pytest.FixtureRequest) -> Iterator[SandboxPool]:
    """A pool started while the host holds a secret variable (isolated, and not)."""
    os.environ[SECRET] = "hunter2"
    try:
        with SandboxPool(size=1, limits=FAST, isolation=request.param) as pool:
            # "auto" must not quietly fall back to no isolation (both cases would test one)
            assert (pool.isolation is Isolation.NONE) == (request.param == "none")
            yield pool
    finally:
        del os.environ[SECRET]


def _program_env(pool: SandboxPool) -> dict[str, str]:
    outcome = pool.run_program(PROGRAM_SHOW)
    assert outcome.exit_code == 0, outcome
    found = json.loads(outcome.stdout)
    assert isinstance(found, dict)
    return found


def test_a_session_sees_the_documented_environment_and_no_host_variable(
    env_pool: SandboxPool,
) -> None:
    outcome = call(env_pool, SHOW)
    assert outcome.ok, outcome
    env = outcome.value
    assert isinstance(env, dict)
    assert set(env) == BASE_KEYS
    assert "hunter2" not in json.dumps(env)
    assert env["LANG"] == "C.UTF-8" and env["USER"] == "sandbox"
    assert _program_env(env_pool) == env  # programs inherit the same one
    from_c = call(env_pool, SHOW_C)
    assert from_c.ok, from_c
    assert from_c.value == env


def test_environment_edits_do_not_reach_the_next_run(env_pool: SandboxPool) -> None:
    before = call(env_pool, SHOW).value
    edited = call(env_pool, EDIT)
    assert edited.ok, edited
    assert "PLANTED" in (edited.value or [])  # the edit took effect inside that run
    assert call(env_pool, SHOW).value == before
    assert env_pool.run_program(PROGRAM_EDIT).exit_code == 0
    assert _program_env(env_pool) == before
    assert call(env_pool, SHOW).value == before


def test_a_command_gets_its_own_variables_on_top_and_they_do_not_stay(
    env_pool: SandboxPool,
) -> None:
    script = "import json, os\nprint(json.dumps(dict(os.environ)))\n"
    outcome = env_pool.run_command(
        ["python", "-I", "show.py"], files={"show.py": script}, env={"EXTRA": "yes"}
    )
    assert outcome.exit_code == 0, outcome
    env = json.loads(outcome.stdout)
    assert env["EXTRA"] == "yes" and set(env) >= BASE_KEYS and SECRET not in env
    after = call(env_pool, SHOW).value
    assert isinstance(after, dict) and "EXTRA" not in after and set(after) == BASE_KEYS
