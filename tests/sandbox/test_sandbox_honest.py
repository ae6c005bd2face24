"""Honest candidates: correct code must come back correct, with exact types."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest
from assay.verifiers.sandbox import (
    CallStatus,
    Data,
    Limits,
    ProgramStatus,
    SandboxPool,
    strict_equal,
)
from sandbox_helpers import call

RETURNS: list[tuple[str, str, Data]] = [
    ("dict", "{'a': [1, 2], 'b': {'c': None}}", {"a": [1, 2], "b": {"c": None}}),
    ("list-of-floats", "[0.1 + 0.2, float('inf'), -0.0]", [0.1 + 0.2, float("inf"), -0.0]),
    ("float", "2 ** 0.5", 2**0.5),
    ("tuple", "(1, 'x', b'y')", (1, "x", b"y")),
    ("set", "{1, 2, 3}", {1, 2, 3}),
    ("big-int", "3 ** 5000", 3**5000),  # far beyond 64 bits, and over the str-digits limit
    ("none", "None", None),
    ("bool", "1 < 2", True),
]


@pytest.mark.parametrize(
    ("expression", "expected"), [r[1:] for r in RETURNS], ids=[r[0] for r in RETURNS]
)
def test_call_returns_plain_data(pool: SandboxPool, expression: str, expected: Data) -> None:
    outcome = call(pool, f"def attack():\n    return {expression}\n")
    assert outcome.status is CallStatus.OK, outcome
    assert strict_equal(outcome.value, expected)


def test_args_and_kwargs_arrive_as_data(pool: SandboxPool) -> None:
    source = "def f(a, b, *, scale):\n    return {'sum': (a + sum(b)) * scale, 'types': [type(x).__name__ for x in b]}\n"
    with pool.call_session({}, source) as session:
        outcome = session.call("f", (1, [2, 3.5, True]), {"scale": 2})
    assert outcome.value == {"sum": 15.0, "types": ["int", "float", "bool"]}


def test_session_keeps_module_state_between_calls(pool: SandboxPool) -> None:
    # several calls share one loaded module: a memoised solution keeps its cache
    source = "calls = []\ndef f(x):\n    calls.append(x)\n    return len(calls)\n"
    with pool.call_session({}, source) as session:
        values = [session.call("f", (i,)).value for i in range(3)]
    assert values == [1, 2, 3]


def test_candidate_files_are_importable(pool: SandboxPool) -> None:
    # a multi-file answer: solution.py imports its helper module
    files = {"helpers/__init__.py": "", "helpers/mathx.py": "def double(x):\n    return 2 * x\n"}
    source = "from helpers.mathx import double\ndef f(x):\n    return double(x)\n"
    with pool.call_session(files, source) as session:
        assert session.call("f", (21,)).value == 42


def test_exception_is_reported_with_type_and_message(pool: SandboxPool) -> None:
    outcome = call(pool, "def attack():\n    raise ValueError('bad input')\n")
    assert outcome.status is CallStatus.EXCEPTION
    assert (outcome.exception_type, outcome.exception_message) == ("ValueError", "bad input")
    assert "solution.py" in outcome.traceback


def test_load_error_is_the_outcome_of_every_call(pool: SandboxPool) -> None:
    # a syntax error in the answer: no call can succeed, none may hang
    with pool.call_session({}, "def f(:\n") as session:
        assert session.load.status is CallStatus.EXCEPTION
        assert session.load.exception_type == "SyntaxError"
        assert session.call("f").status is CallStatus.EXCEPTION
        assert session.call("f").detail == "the module failed to load"


def test_stdout_is_captured_per_call(pool: SandboxPool) -> None:
    source = "import sys\ndef f(x):\n    print('out', x)\n    print('err', x, file=sys.stderr)\n    return x\n"
    with pool.call_session({}, source) as session:
        first, second = session.call("f", (1,)), session.call("f", (2,))
    assert (first.stdout, first.stderr) == ("out 1\n", "err 1\n")
    assert (second.stdout, second.stderr) == ("out 2\n", "err 2\n")


def test_usage_is_measured(pool: SandboxPool) -> None:
    outcome = call(pool, "def attack():\n    return sum(range(10**5))\n")
    assert outcome.usage.wall_s >= 0 and outcome.usage.cpu_s >= 0
    assert outcome.usage.peak_rss_bytes > 0


PROGRAMS: list[tuple[str, str, str, ProgramStatus, int, str]] = [
    # id, source, stdin, status, exit code, stdout
    ("sum-of-stdin", "import sys\nprint(sum(map(int, sys.stdin.read().split())))", "1 2 3\n",
     ProgramStatus.OK, 0, "6\n"),
    ("input-lines", "n = int(input())\nfor _ in range(n):\n    print(input()[::-1])", "2\nab\ncd\n",
     ProgramStatus.OK, 0, "ba\ndc\n"),
    ("main-guard", "if __name__ == '__main__':\n    print('main')", "", ProgramStatus.OK, 0, "main\n"),
    ("sys-exit-code", "import sys\nprint('x')\nsys.exit(3)", "", ProgramStatus.ERROR, 3, "x\n"),
    ("uncaught-exception", "raise KeyError('k')", "", ProgramStatus.ERROR, 1, ""),
    ("syntax-error", "print(", "", ProgramStatus.ERROR, 1, ""),
]  # fmt: skip


@pytest.mark.parametrize("case", [p[1:] for p in PROGRAMS], ids=[p[0] for p in PROGRAMS])
def test_program_reads_stdin_writes_stdout(
    pool: SandboxPool, case: tuple[str, str, ProgramStatus, int, str]
) -> None:
    source, stdin, status, exit_code, stdout = case
    outcome = pool.run_program(source, stdin)
    assert (outcome.status, outcome.exit_code, outcome.stdout) == (status, exit_code, stdout)


def test_program_traceback_goes_to_stderr(pool: SandboxPool) -> None:
    outcome = pool.run_program("raise KeyError('k')")
    assert "KeyError: 'k'" in outcome.stderr


SOLUTION = "def add(a, b):\n    return a + b\n"
WRONG_SOLUTION = "def add(a, b):\n    return a - b\n"
TESTS = "from solution import add\n\ndef test_small():\n    assert add(1, 2) == 3\n\ndef test_negative():\n    assert add(-1, -2) == -3\n"
PYTEST = [
    "python",
    "-I",
    "-m",
    "pytest",
    "-q",
    "-p",
    "no:cacheprovider",
    "--junitxml=report.xml",
    "test_solution.py",
]


@pytest.mark.parametrize(
    ("solution", "exit_code", "failures"),
    [(SOLUTION, 0, "0"), (WRONG_SOLUTION, 1, "2")],
    ids=["correct-solution", "wrong-solution"],
)
def test_pytest_runs_tests_against_solution(
    pool: SandboxPool, solution: str, exit_code: int, failures: str
) -> None:
    outcome = pool.run_command(
        PYTEST,
        files={"solution.py": solution},
        readonly_files={"test_solution.py": TESTS},
        limits=Limits(timeout_s=60, memory_mb=1024),
        collect=["report.xml"],
    )
    assert outcome.exit_code == exit_code, outcome.stdout + outcome.stderr
    suite = ElementTree.fromstring(outcome.collected["report.xml"]).find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("2", failures)


def test_collect_skips_missing_files(pool: SandboxPool) -> None:
    outcome = pool.run_command(
        ["python", "-c", "open('a.txt', 'w').write('A')"], collect=["a.txt", "b.txt"]
    )
    assert dict(outcome.collected) == {"a.txt": b"A"}


def test_readonly_files_win_over_candidate_files(pool: SandboxPool) -> None:
    # a candidate that ships its own "test_solution.py" does not replace the real one
    outcome = pool.run_command(
        ["python", "-c", "print(open('test_solution.py').read())"],
        files={"test_solution.py": "def test_fake(): pass\n"},
        readonly_files={"test_solution.py": "REAL\n"},
    )
    assert outcome.stdout == "REAL\n\n"
