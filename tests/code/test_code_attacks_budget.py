"""Attacks on blame and budget in the code domain: hang, hoard, bomb or flood when unsure.

A response that makes the verifier time out is masked by every trainer, so "hang when unsure"
would escape its negative reward. Each attack here exceeds a limit on purpose; it must come
back ``incorrect`` with score 0 and a failed ``resources`` check naming the cause (never
``timeout`` or ``error``), earn no more than an honest wrong answer, stop the item at its
first fault instead of paying every unit's limit again, and leave the warm worker able to
grade the next item correctly.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from assay.domains.code.modes import Budget, Run, run_test_cases
from assay.domains.code.task import parse_task
from assay.domains.code.verifier import PROJECT_ROOT, CodeVerifier, item_budget_s

from assay.blame import RESOURCES
from assay.boundary import run_verifier
from assay.types import Record, Result, Status

CASES = [{"args": [i], "expected": i * i} for i in range(6)]
CALL_REFERENCE = {"entry_point": "f", "test_cases": CASES, "timeout_s": 1.0, "memory_mb": 256}
CHECK = "def check(candidate):\n" + "".join(
    f"    assert candidate({i}) == {i * i}\n" for i in range(7)
)
HUMANEVAL_REFERENCE = {"entry_point": "f", "tests": CHECK, "timeout_s": 1.0, "memory_mb": 256}
STDIO_REFERENCE = {
    "stdio": [{"stdin": f"{i}\n", "stdout": f"{i * i}\n"} for i in range(4)],
    "timeout_s": 1.0,
    "memory_mb": 256,
}
PYTEST_REFERENCE = {
    "pytest": "from solution import f\n"
    + "".join(f"def test_{i}():\n    assert f({i}) == {i * i}\n" for i in range(5)),
    "timeout_s": 1.0,
    "memory_mb": 256,
}
HONEST = "def f(x):\n    return x * x\n"
HONEST_WRONG = "def f(x):\n    return x + 1000\n"
HONEST_STDIO = "print(int(input()) ** 2)\n"
HONEST_WRONG_STDIO = "print(-1)\n"

CALL_ATTACKS: dict[str, tuple[str, set[str]]] = {
    "loops forever": ("def f(x):\n    while True:\n        pass\n", {"time"}),
    "sleeps past the limit": ("import time\ndef f(x):\n    time.sleep(30)\n", {"time"}),
    "loops at import": ("while True:\n    pass\n", {"time"}),
    "burns CPU in threads": (
        "import threading\ndef spin():\n    while True:\n        pass\n"
        "def f(x):\n    for _ in range(4):\n        threading.Thread(target=spin).start()\n"
        "    spin()\n",
        {"time"},
    ),
    "allocates past the cap": ("def f(x):\n    return len(bytearray(10 ** 10))\n", {"memory"}),
    "grows a list until it dies": (
        "def f(x):\n    hoard = []\n    while True:\n        hoard.append(bytearray(1 << 20))\n",
        {"memory", "time"},  # a slow machine may reach the time limit first: same verdict
    ),
    "hides memory in memfds": (
        "import os, time\ndef f(x):\n    fds = []\n    for i in range(60):\n"
        "        fd = os.memfd_create('m')\n        os.write(fd, b'x' * (8 << 20))\n"
        "        fds.append(fd)\n    time.sleep(5)\n    return x * x\n",
        {"memory", "time"},
    ),
    "fork bomb": (
        "import os\ndef f(x):\n    while True:\n        os.fork()\n",
        {"processes", "time", "memory"},
    ),
    "thread bomb": (
        "import threading, time\ndef f(x):\n    while True:\n"
        "        threading.Thread(target=time.sleep, args=(60,)).start()\n",
        {"processes", "time", "memory"},
    ),
}


def _verify(
    verifier: CodeVerifier, code: str, reference: dict[str, Any], steps: tuple[Any, ...] = ()
) -> Result:
    return run_verifier(
        verifier, Record("budget", "code", f"```python\n{code}```", reference, steps=steps)
    )


def _resources(result: Result) -> Any:
    return next(c for c in result.verdict.checks if c.name == RESOURCES)


def _assert_blamed(result: Result, honest_wrong: Result, causes: set[str]) -> None:
    verdict = result.verdict
    assert result.status is Status.INCORRECT, verdict
    assert verdict.score == 0.0 and verdict.score <= honest_wrong.verdict.score
    resources = _resources(result)
    assert not resources.passed, verdict
    assert resources.evidence["cause"] in causes, resources
    assert resources.message.startswith(resources.evidence["cause"])


@pytest.mark.parametrize("name", sorted(CALL_ATTACKS))
@pytest.mark.parametrize(
    "reference",
    [CALL_REFERENCE, HUMANEVAL_REFERENCE, PYTEST_REFERENCE],
    ids=["cases", "humaneval", "pytest"],
)
def test_a_response_that_exceeds_a_limit_is_blamed(
    verifier: CodeVerifier, reference: dict[str, Any], name: str
) -> None:
    code, causes = CALL_ATTACKS[name]
    honest_wrong = _verify(verifier, HONEST_WRONG, reference)
    assert honest_wrong.status is Status.INCORRECT and _resources(honest_wrong).passed
    result = _verify(verifier, code, reference)
    _assert_blamed(result, honest_wrong, causes)
    # the run stopped at its first fault: at most one unit (and HumanEval's prefetch batch)
    # reached the sandbox, the rest were refused at once. (A batch whose calls all failed
    # fast shares its time among them, so there every unit shows some.)
    cause = _resources(result).evidence["cause"]
    if reference is not HUMANEVAL_REFERENCE or cause == "time":
        paid = [s for s in result.verdict.steps if s.evidence["wall_s"] > 0.0]
        assert len(paid) <= 2, [s.message for s in result.verdict.steps]
    assert _verify(verifier, HONEST, reference).status is Status.CORRECT  # nothing left behind


STDIO_ATTACKS: dict[str, tuple[str, set[str]]] = {
    "loops forever": ("while True:\n    pass\n", {"time"}),
    "floods stdout forever": ("while True:\n    print('x' * 1000)\n", {"time", "output"}),
    "floods stdout, then exits": ("import sys\nsys.stdout.write('1\\n' * 5_000_000)\n", {"output"}),
    "allocates past the cap": ("x = bytearray(10 ** 10)\n", {"memory"}),
    "fork bomb": ("import os\nwhile True:\n    os.fork()\n", {"processes", "time", "memory"}),
    "fills /dev/shm and memfds": (
        "import os, time\nopen('/dev/shm/x', 'wb').write(b'x' * (15 << 20))\nfds = []\n"
        "for i in range(40):\n    fd = os.memfd_create('m')\n    os.write(fd, b'x' * (8 << 20))\n"
        "    fds.append(fd)\ntime.sleep(5)\n",
        {"memory", "time"},
    ),
}


@pytest.mark.parametrize("name", sorted(STDIO_ATTACKS))
def test_a_program_that_exceeds_a_limit_is_blamed(verifier: CodeVerifier, name: str) -> None:
    code, causes = STDIO_ATTACKS[name]
    honest_wrong = _verify(verifier, HONEST_WRONG_STDIO, STDIO_REFERENCE)
    assert honest_wrong.status is Status.INCORRECT
    result = _verify(verifier, code, STDIO_REFERENCE)
    _assert_blamed(result, honest_wrong, causes)
    not_run = [s for s in result.verdict.steps if "not run" in s.message]
    assert len(not_run) == len(STDIO_REFERENCE["stdio"]) - 1  # only the first case ran
    assert _verify(verifier, HONEST_STDIO, STDIO_REFERENCE).status is Status.CORRECT


def test_an_honest_slow_answer_that_passes_is_not_blamed(verifier: CodeVerifier) -> None:
    code = "import time\ndef f(x):\n    time.sleep(0.05)\n    return x * x\n"
    result = _verify(verifier, code, CALL_REFERENCE)
    assert result.status is Status.CORRECT and _resources(result).passed


def test_an_honest_crash_is_a_wrong_answer_not_a_resource_fault(verifier: CodeVerifier) -> None:
    code = "import os\ndef f(x):\n    if x == 2:\n        os._exit(3)\n    return x * x\n"
    result = _verify(verifier, code, CALL_REFERENCE)
    assert result.status is Status.PARTIAL and _resources(result).passed


def _trajectory(commands: list[str]) -> tuple[dict[str, Any], ...]:
    steps: list[dict[str, Any]] = [{"role": "user", "content": "write f"}]
    for code in commands:
        steps.append({"role": "assistant", "content": f"```python\n{code}```"})
        steps.append({"role": "user", "content": "ran it"})
    return tuple(steps)


def test_sixteen_looping_commands_fit_the_item_budget(verifier: CodeVerifier) -> None:
    """Each looping command is blamed on its own step; the final answer still gets graded."""
    looping = CALL_ATTACKS["loops forever"][0]
    steps = _trajectory([looping] * 16)
    record = Record("t", "code", f"```python\n{HONEST}```", CALL_REFERENCE, steps=steps)
    assert item_budget_s(record) * 1.5 + 30 <= CodeVerifier.timeout_for(record) + 1e-9
    result = _verify(verifier, HONEST, CALL_REFERENCE, steps=steps)
    assert result.status is Status.CORRECT, result.verdict
    commands = [s for s in result.verdict.steps if s.evidence.get("kind") == "command"]
    assert len(commands) == 16
    assert all(s.score == 0.0 and s.message.startswith("resources:") for s in commands)
    assert all(s.evidence.get("fault") in ("time", "budget") for s in commands)


def test_a_looping_final_answer_is_blamed_after_honest_commands(verifier: CodeVerifier) -> None:
    steps = _trajectory([HONEST, HONEST_WRONG])
    result = _verify(verifier, CALL_ATTACKS["loops forever"][0], CALL_REFERENCE, steps=steps)
    assert result.status is Status.INCORRECT and not _resources(result).passed
    commands = [s for s in result.verdict.steps if s.evidence.get("kind") == "command"]
    assert [s.score for s in commands] == [1.0, 0.0]


def test_units_draw_on_one_budget_and_stop_when_it_is_spent(verifier: CodeVerifier) -> None:
    """Slow calls under the per-unit limit still cannot run past the item's budget."""
    task = parse_task({**CALL_REFERENCE, "timeout_s": 5.0}, PROJECT_ROOT)
    run = Run(verifier.pool, task, Budget(total_s=1.0))
    code = "import time\ndef f(x):\n    time.sleep(0.4)\n    return x * x\n"
    units = run_test_cases(run, code)
    assert run.fault is not None and run.fault.cause in ("budget", "time")
    not_run = [u for u in units if u.message.startswith("not run")]
    assert len(not_run) >= len(CASES) - 3  # at most 1.0 s / 0.4 s of calls got a turn
    assert all(u.wall_s == 0.0 for u in not_run)


@pytest.mark.parametrize(
    ("total", "elapsed", "wanted"), [(10.0, 9.7, 5.0), (10.0, 2.0, 5.0), (3.0, 0.0, 1.0)]
)
def test_a_units_limit_is_cut_to_what_is_left(
    verifier: CodeVerifier, total: float, elapsed: float, wanted: float
) -> None:
    task = parse_task({**CALL_REFERENCE, "timeout_s": wanted}, PROJECT_ROOT)
    run = Run(verifier.pool, task, Budget(total_s=total, started=time.monotonic() - elapsed))
    limits = run.limits()
    assert limits is not None and limits.timeout_s <= min(wanted, total - elapsed) + 1e-6


def test_a_spent_budget_refuses_the_next_unit(verifier: CodeVerifier) -> None:
    task = parse_task(CALL_REFERENCE, PROJECT_ROOT)
    run = Run(verifier.pool, task, Budget(total_s=5.0, started=time.monotonic() - 6.0))
    assert run.limits() is None
    assert run.fault is not None and run.fault.cause == "budget"
    units = run_test_cases(run, HONEST)
    assert [u.passed for u in units] == [False] * len(CASES)


@pytest.mark.parametrize("per_unit", [0.05, 1.0, 5.0, 60.0, 1e5, "bad", True, -1])
@pytest.mark.parametrize("units", [1, 30, 1000])
@pytest.mark.parametrize("commands", [0, 5, 16])
def test_the_item_budget_always_fits_inside_the_hard_kill(
    per_unit: Any, units: int, commands: int
) -> None:
    reference = {"entry_point": "f", "timeout_s": per_unit, "test_cases": CASES[:1] * units}
    record = Record("t", "code", "x", reference, steps=_trajectory([HONEST] * commands))
    budget = item_budget_s(record)
    assert 0 < budget <= 380.0
    # one unit may overshoot what is left by its kill latency: the hard kill is 30 s further
    assert budget + 30.0 <= CodeVerifier.timeout_for(record) <= 600.0


def test_a_large_expected_output_is_room_not_a_flood(verifier: CodeVerifier) -> None:
    """The output cap follows the expected output: an honest big answer passes, a flood not."""
    lines = 40_000
    reference = {"stdio": [{"stdin": "", "stdout": "7\n" * lines}], "timeout_s": 5.0}
    honest = _verify(verifier, f"import sys\nsys.stdout.write('7\\n' * {lines})\n", reference)
    assert honest.status is Status.CORRECT, honest.verdict
    flood = _verify(verifier, f"import sys\nsys.stdout.write('7\\n' * {lines * 5})\n", reference)
    assert flood.status is Status.INCORRECT
    assert _resources(flood).evidence["cause"] == "output"
