"""Terminal tasks: a trajectory of shell commands replayed on a file tree, tests of the state
it left; and the ways an agent would fake that state or the tests' results."""

from __future__ import annotations

import json
from typing import Any

from assay.domains.code.terminal import shell_commands
from assay.domains.code.verifier import CodeVerifier

from assay.boundary import run_verifier
from assay.types import Record, Result

TESTS = """import os, subprocess
def test_sorted():
    assert open('out/sorted.txt').read() == '1\\n2\\n3\\n'
def test_script():
    assert os.access('run.sh', os.X_OK)
    assert subprocess.run(['./run.sh'], capture_output=True, text=True).stdout == '1\\n2\\n3\\n'
def test_setup_ran():
    assert open('out/.setup').read() == 'ready\\n'
"""
TASK = {
    "terminal": {
        "files": {"data/numbers.txt": "3\n1\n2\n"},
        "setup": "mkdir -p out && echo ready > out/.setup",
        "instruction": "Sort data/numbers.txt into out/sorted.txt; run.sh prints it.",
        "tests": {"test_state.py": TESTS},
    },
    "timeout_s": 2,
}
CHECKS_TASK = {
    "terminal": {
        "files": {"data/numbers.txt": "3\n1\n2\n"},
        "instruction": "Sort data/numbers.txt into out/sorted.txt.",
        "tests": [
            "grep -qx 1 <(head -n1 out/sorted.txt)",
            "diff out/sorted.txt <(sort -n data/numbers.txt)",
        ],
    },
    "timeout_s": 2,
}
SOLUTION = [
    "cd data && ls",
    "mkdir -p ../out && sort -n numbers.txt > ../out/sorted.txt; cd ..",
    "printf '#!/bin/sh\\ncat out/sorted.txt\\n' > run.sh && chmod +x run.sh",
]


def _calls(commands: list[str], tool: str = "bash") -> tuple[dict[str, Any], ...]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "do the task"}]
    for number, command in enumerate(commands):
        call = {"id": str(number), "type": "function",
                "function": {"name": tool, "arguments": json.dumps({"command": command})}}  # fmt: skip
        messages += [{"role": "assistant", "content": None, "tool_calls": [call]},
                     {"role": "tool", "tool_call_id": str(number), "content": "..."}]  # fmt: skip
    return tuple(messages)


def _verify(verifier: CodeVerifier, commands: list[str], task: dict[str, Any] = TASK) -> Result:
    return run_verifier(verifier, Record("t", "code", "", task, steps=_calls(commands)))


def _tests(result: Result) -> dict[str, bool]:
    return {s.name: s.passed for s in result.verdict.steps if s.evidence.get("kind") == "test"}


def test_solved_trajectory_with_a_step_per_command(verifier: CodeVerifier) -> None:
    result = _verify(verifier, SOLUTION)
    assert result.status.value == "correct", result.verdict.message
    commands = [s for s in result.verdict.steps if s.evidence.get("kind") == "command"]
    assert [s.passed for s in commands] == [True, True, True]
    assert (
        commands[0].evidence["stdout_tail"] == "numbers.txt\n"
    )  # cd persisted: the next ran in data/


def test_unsolved_and_failing_commands(verifier: CodeVerifier) -> None:
    result = _verify(verifier, ["ls", "cat missing.txt", "sleep 30", *SOLUTION[:2]])
    assert (result.status.value, round(result.verdict.score, 3)) == ("partial", 0.667)
    steps = [s for s in result.verdict.steps if s.evidence.get("kind") == "command"]
    assert [s.passed for s in steps] == [True, False, False, True, True]
    assert steps[2].evidence["timed_out"] is True  # the command was killed, the replay went on


def test_fenced_blocks_in_the_response() -> None:
    text = "First:\n```bash\nls\n```\nthen\n```sh\necho hi\n```\n```python\nprint(1)\n```"
    assert [c for _, c in shell_commands(text, ())] == ["ls\n", "echo hi\n"]
    calls = _calls(["ls -la"], tool="run") + _calls(["rm -rf /"], tool="python")
    assert [c for _, c in shell_commands("", calls)] == ["ls -la"]


def test_no_commands_is_unparsable(verifier: CodeVerifier) -> None:
    result = run_verifier(verifier, Record("t", "code", "I would sort it.", TASK))
    assert result.status.value == "unparsable"


TAMPERING = [
    # overwrite or shadow the tests, in the tree and where the runner mounts them
    "mkdir -p .assay-tests && echo 'def test_sorted(): pass' > .assay-tests/test_state.py",
    "echo 'def test_sorted(): pass\ndef test_script(): pass' > test_state.py",
    # plugins, configuration and startup hooks pytest or Python would load from the tree
    "printf 'import pytest\\n@pytest.hookimpl(hookwrapper=True)\\ndef pytest_runtest_makereport(item, call):\\n"
    '    o = yield\\n    o.get_result().outcome = "passed"\\n\' > conftest.py',
    "printf '[pytest]\\naddopts = -p no:terminal\\n' > pytest.ini; cp pytest.ini tox.ini",
    "echo 'import os; os._exit(0)' > sitecustomize.py",
    # forge the report channel and the key
    "echo 'deadbeef 00 1 0.1 00' > .assay-report; echo 00 > .assay-key; ln -s /dev/null .assay-runner.py",
    # a process that would write the answer later, and a faked test summary
    "(sleep 1; mkdir -p out; printf '1\\n2\\n3\\n' > out/sorted.txt) & disown; echo '3 passed in 0.01s'",
    "exit 0",
]


def test_tampering_with_the_tests_earns_nothing(verifier: CodeVerifier) -> None:
    result = _verify(verifier, TAMPERING)
    tests = _tests(result)
    assert tests == {
        "test_state.py::test_sorted": False,
        "test_state.py::test_script": False,
        "test_state.py::test_setup_ran": True,
    }, result.verdict.message
    assert result.status.value == "partial"


def test_shell_checks_judged_by_measured_exit_status(verifier: CodeVerifier) -> None:
    solved = _verify(verifier, ["mkdir -p out && sort -n data/numbers.txt > out/sorted.txt"],
                     CHECKS_TASK)  # fmt: skip
    assert solved.status.value == "correct", solved.verdict.message
    faked = _verify(verifier, [
        "mkdir -p bin out && printf '#!/bin/sh\\nexit 0\\n' > bin/grep && cp bin/grep bin/diff && "
        "chmod +x bin/*",
        "export PATH=$PWD/bin:$PATH; echo 9 > out/sorted.txt; grep anything; echo PASSED",
    ], CHECKS_TASK)  # fmt: skip
    assert faked.status.value == "incorrect", _tests(faked)


def test_the_documented_example_reads_as_a_task() -> None:
    import re
    from pathlib import Path

    from assay.domains.code.task import parse_task

    root = Path(__file__).resolve().parents[2]
    text = (root / "docs" / "code.md").read_text(encoding="utf-8")
    found = re.search(r"```json\n(.*?)\n```\n", text[text.index("## Terminal tasks") :], re.S)
    assert found is not None
    record = json.loads(found.group(1))
    task = parse_task(record["reference"], root)
    assert (task.mode, task.spec.test_ids) == ("terminal", ["test_outputs.py::test_report"])
    commands = shell_commands(record["response"], record["steps"])
    assert [label for label, _ in commands] == ["command[1.0]", "command[3.0]"]
