"""The code verifier end to end, on cases the fixtures do not spell out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from assay.domains.code.replay import main as replay_main
from assay.domains.code.verifier import CodeVerifier

from assay.boundary import run_verifier
from assay.types import Record, Result

STACK = """
class EmptyStack(IndexError):
    pass

class Stack:
    def __init__(self):
        self.items = []
    def push(self, x):
        self.items.append(x)
    def pop(self):
        if not self.items:
            raise EmptyStack("empty")
        return self.items.pop()
    def __len__(self):
        return len(self.items)
"""
STACK_TESTS = """
import pytest
from solution import Stack, EmptyStack

def test_push_pop():
    s = Stack()
    s.push(1); s.push(2)
    assert s.pop() == 2 and len(s) == 1

def test_custom_exception():
    with pytest.raises(EmptyStack):
        Stack().pop()

def test_builtin_base():
    with pytest.raises(IndexError):
        Stack().pop()

def test_attribute():
    s = Stack(); s.push(5)
    assert s.items == [5]
"""


def _verify(verifier: CodeVerifier, response: str, reference: dict[str, Any]) -> Result:
    return run_verifier(verifier, Record("t", "code", response, reference))


def test_pytest_mode_supports_classes_and_exceptions(verifier: CodeVerifier) -> None:
    result = _verify(verifier, STACK, {"pytest": STACK_TESTS})
    assert result.status.value == "correct", result.verdict.message
    assert [s.name for s in result.verdict.steps] == [
        "test_push_pop",
        "test_custom_exception",
        "test_builtin_base",
        "test_attribute",
    ]


def test_pytest_mode_always_equal_object_fails(verifier: CodeVerifier) -> None:
    hostile = "class A:\n    def __eq__(self, o):\n        return True\n\ndef add(a, b):\n    return A()\n"
    tests = "from solution import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    result = _verify(verifier, hostile, {"pytest": tests})
    assert result.status.value == "incorrect"
    assert not next(c for c in result.verdict.checks if c.name == "suspicious").passed


def test_callbacks_and_iterators_reach_the_candidate(verifier: CodeVerifier) -> None:
    code = "def apply(f, xs):\n    return [f(x) for x in xs]\n"
    tests = (
        "from solution import apply\n\n"
        "def test_builtin():\n    assert apply(str.upper, ['a']) == ['A']\n\n"
        "def test_lambda():\n    assert apply(lambda x: x * 2, iter([1, 2])) == [2, 4]\n"
    )
    assert _verify(verifier, code, {"pytest": tests}).status.value == "correct"


def test_all_or_nothing_and_ruff_weight(verifier: CodeVerifier) -> None:
    reference = {
        "entry_point": "f",
        "test_cases": [{"args": [1], "expected": 1}, {"args": [2], "expected": 4}],
    }
    half = "def f(x):\n    return x\n"
    assert _verify(verifier, half, reference).score == 0.5
    assert _verify(verifier, half, {**reference, "all_or_nothing": True}).score == 0.0
    noisy = "import os\n\ndef f(x):\n    return x * x\n"
    weighted = _verify(verifier, noisy, {**reference, "ruff_weight": 0.5})
    assert weighted.status.value == "correct" and weighted.score == pytest.approx(0.875)


def test_static_analysis_can_be_skipped(verifier: CodeVerifier) -> None:
    reference = {"entry_point": "f", "test_cases": [{"args": [1], "expected": 1}]}
    names = {
        c.name for c in _verify(verifier, "def f(x):\n    return x\n", reference).verdict.checks
    }
    assert "ruff" in names
    quiet = {**reference, "static_analysis": False}
    names = {c.name for c in _verify(verifier, "def f(x):\n    return x\n", quiet).verdict.checks}
    assert "ruff" not in names


def test_runtime_budget_check(verifier: CodeVerifier) -> None:
    slow = "def f(x):\n    s = 0\n    for i in range(3_000_000):\n        s += i\n    return x\n"
    reference = {
        "entry_point": "f",
        "test_cases": [{"args": [1], "expected": 1}],
        "reference_time_s": 0.001,
        "time_budget_factor": 2,
    }
    result = _verify(verifier, slow, reference)
    budget = next(c for c in result.verdict.checks if c.name == "runtime_budget")
    assert result.status.value == "correct" and not budget.passed


def test_replay_file_records_the_run(
    verifier: CodeVerifier, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_REPLAY_DIR", str(tmp_path))
    reference = {"entry_point": "f", "test_cases": [{"args": [2], "expected": 4}]}
    _verify(verifier, "def f(x):\n    print('hi')\n    return 3\n", reference)
    (path,) = tmp_path.glob("*.json")
    replay = json.loads(path.read_text())
    assert replay["record"]["reference"] == reference
    assert replay["sandbox"]["isolation"] == verifier.pool.isolation.value
    assert replay["verdict"]["status"] == "incorrect"
    assert replay["verdict"]["steps"][0]["evidence"]["cpu_s"] >= 0
    assert replay["verdict"]["steps"][0]["evidence"]["stdout_tail"] == "hi\n"
    monkeypatch.delenv("ASSAY_REPLAY_DIR")
    assert replay_main([str(path)]) == 0  # the same verdict when re-run


@pytest.mark.parametrize(
    ("reference", "needle"),
    [
        ({"entry_point": "f"}, "exactly one of"),  # no test mode
        (
            {"entry_point": "f", "tests": "x", "stdio": [{"stdin": "", "stdout": ""}]},
            "exactly one of",
        ),
        ({"repo": "fixtures/code/repos/memo", "fail_to_pass": []}, "non-empty fail_to_pass"),
        (
            {"repo": "/etc", "fail_to_pass": ["t"]},
            "not a directory under the project",
        ),  # outside roots
        ({"test_cases": [{"args": [1], "expected": 1}]}, "entry_point"),  # no function name
        ({"language": "cobol", "stdio": [{"stdin": "", "stdout": ""}]}, "not supported"),
        ({"language": "rust", "pytest": "def test(): pass"}, "takes stdio tasks"),
        ({"language": "js", "entry_point": "a-b", "test_cases": [{"expected": 1}]}, "identifier"),
    ],
    ids=[
        "no-mode",
        "two-modes",
        "empty-fail-to-pass",
        "repo-outside",
        "no-entry-point",
        "language",
        "language-mode",
        "js-entry-point",
    ],
)
def test_malformed_tasks_are_errors(
    verifier: CodeVerifier, reference: dict[str, Any], needle: str
) -> None:
    result = _verify(verifier, "def f(x):\n    return x\n", reference)
    assert result.status.value == "error"
    assert needle in (result.verdict.message or "")


@pytest.mark.parametrize(
    ("reference", "code"),
    [
        # APPS / TACO / verl code ground truth without fn_name: stdin -> stdout
        (
            {"inputs": ["1 2\n", "5 7\n"], "outputs": ["3\n", "12\n"]},
            "a, b = map(int, input().split())\nprint(a + b)\n",
        ),
        # with fn_name: call-based, outputs wrapped in one-element lists as APPS does
        (
            {"fn_name": "add", "inputs": [[1, 2], [5, 7]], "outputs": [[3], [12]]},
            "def add(a, b):\n    return a + b\n",
        ),
    ],
    ids=["apps-stdio", "apps-call"],
)
def test_apps_format_references(
    verifier: CodeVerifier, reference: dict[str, Any], code: str
) -> None:
    record = Record("a", "code", code, json.dumps(reference))
    from assay.records import RawRow, RecordBuilder  # the verl path decodes the JSON string
    from assay.registry import default_registry

    built = RecordBuilder(default_registry()).build(
        RawRow(
            1,
            {
                "data_source": "codecontests",
                "response": code,
                "reward_model": {"ground_truth": record.reference},
            },
        )
    )
    assert isinstance(built, Record)
    assert run_verifier(verifier, built).status.value == "correct"


def test_trajectory_commands_get_step_results(verifier: CodeVerifier) -> None:
    """Each command an agent ran is scored against the tests: progress per turn."""
    reference = {
        "entry_point": "sq",
        "test_cases": [{"args": [2], "expected": 4}, {"args": [3], "expected": 9}],
    }

    def call(code: str) -> dict[str, Any]:
        arguments = json.dumps({"code": code})
        return {
            "id": "c",
            "type": "function",
            "function": {"name": "python", "arguments": arguments},
        }

    steps = [
        {"role": "user", "content": "write sq"},
        {"role": "assistant", "content": None, "tool_calls": [call("def sq(x):\n    return 4\n")]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"},
        {"role": "assistant", "content": None, "tool_calls": [call("def sq(x:\n")]},
        {"role": "tool", "tool_call_id": "c", "content": "SyntaxError"},
        {"role": "assistant", "content": "```python\ndef sq(x):\n    return x * x\n```"},
    ]
    record = Record("t", "code", "def sq(x):\n    return x * x\n", reference, steps=tuple(steps))
    result = run_verifier(verifier, record)
    assert result.status.value == "correct"
    commands = [s for s in result.verdict.steps if s.evidence.get("kind") == "command"]
    assert [(s.name, s.score) for s in commands] == [
        ("command[1]", 0.5),
        ("command[3]", 0.0),
        ("command[5]", 1.0),
    ]
    tests = [s for s in result.verdict.steps if s.evidence.get("kind") == "test"]
    assert [s.index for s in tests] == [3, 4] and all(s.passed for s in tests)
