"""Code rows of RL training sets, in the columns those sets ship, read without conversion.

- AceCode-87K (TIGER-Lab): ``test_cases`` is a list of assert statements that call the
  function by name (``"assert count_vowels('hello') == 2"``).
- KodCode-V1: ``test`` is a pytest module that imports the answer (``from solution import f``),
  with ``test_info`` naming the function; no ``entry_point``.
- open-r1's verifiable-coding-problems (and PrimeIntellect's SYNTHETIC-1 sets):
  ``verification_info`` is ``{"language", "test_cases": [{"input", "output", "type":
  "stdin_stdout"}]}``, as an object or as JSON text.
- DeepCoder-Preview (agentica): ``tests`` is JSON text: LiveCodeBench's case list (with
  ``testtype``; ``metadata.func_name`` for functional cases) or TACO's ``{"inputs", "outputs"}``.

Responses are written the way chat models answer (a fenced block after some prose, a
``<think>`` block first). The labels are by hand: what each program does on the row's tests.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from scoring import score

from assay.runner import Scorer

PROSE = "<think>\nLet me count carefully.\n</think>\nHere is the solution:\n\n```python\n{}```\n"

VOWELS_RIGHT = "def count_vowels(s: str) -> int:\n    return sum(c in 'aeiouAEIOU' for c in s)\n"
VOWELS_CASE = "def count_vowels(s: str) -> int:\n    return sum(c in 'aeiou' for c in s)\n"
VOWELS_EQ = (
    "class Always:\n    def __eq__(self, other):\n        return True\n\n\n"
    "def count_vowels(s):\n    return Always()\n"
)
ACECODE = {
    "id": "oss_2101",
    "source": "oss",
    "question": "Write a function `count_vowels(s: str) -> int` that counts the vowels in s.",
    "test_cases": [
        "assert count_vowels('hello') == 2",
        "assert count_vowels('') == 0",
        "assert count_vowels('AEIOU') == 5",
        "assert count_vowels('rhythm') == 0",
    ],
}

PALINDROME_TESTS = (
    "from solution import is_palindrome\n\n\n"
    "def test_odd():\n    assert is_palindrome('racecar')\n\n\n"
    "def test_not():\n    assert not is_palindrome('ab')\n\n\n"
    "def test_empty():\n    assert is_palindrome('')\n"
)
KODCODE = {
    "question_id": "Leetcode_1021_I",
    "question": "Given a string s, return True if it reads the same backwards.",
    "solution": "def is_palindrome(s):\n    return s == s[::-1]\n",
    "test": PALINDROME_TESTS,
    "test_info": [
        {
            "function_name": "is_palindrome",
            "parameter_list": "(s)",
            "function_declaration": "def is_palindrome(s):",
            "docstring": None,
        }
    ],
    "gpt_pass_trial_num": 10,
}

SUM_CASES = [
    {"fn_name": None, "input": "3\n1 2 3\n", "output": "6\n", "type": "stdin_stdout"},
    {"fn_name": None, "input": "1\n5\n", "output": "5\n", "type": "stdin_stdout"},
]
OPENR1 = {
    "source": "codeforces",
    "problem": "Print the sum of the n numbers.",
    "verification_info": {"language": "python", "test_cases": SUM_CASES},
}
SUM_RIGHT = "n = int(input())\nprint(sum(map(int, input().split())))\n"
SUM_WRONG = "n = int(input())\nprint(n)\n"

# PrimeIntellect's function_call cases (from TACO's Codewars problems): each case names the
# function; its input is the argument list (or JSON lines of arguments), its output the value
# wrapped in a one-element list, as the public loaders hand them to APPS's call-based harness
CALL_CASES = [
    {"fn_name": "area", "input": [3, 4], "output": [12], "type": "function_call"},
    {"fn_name": "area", "input": [0, 9], "output": [0], "type": "function_call"},
]
OPENR1_CALLS = {
    "source": "codewars",
    "problem": "Return the area of a w by h rectangle.",
    "verification_info": {"language": "python", "test_cases": CALL_CASES},
}
CALL_TEXT_CASES = [
    {"fn_name": "area", "input": "3\n4", "output": "12", "type": "function_call"},
    {"fn_name": "area", "input": "0\n9", "output": "0", "type": "function_call"},
]

ADD_STDIN = [{"input": "3 5\n", "output": "8\n", "testtype": "stdin"}]
DEEPCODER_LCB = {"problem": "Print a + b.", "tests": json.dumps(ADD_STDIN), "metadata": {}}
DEEPCODER_TACO = {"problem": "Print a + b.", "tests": json.dumps({"inputs": ["3 5\n", "0 0\n"],
                                                                 "outputs": ["8\n", "0\n"]})}  # fmt: skip
DEEPCODER_FUNCTIONAL = {
    "problem": "Return the sum of nums.",
    "starter_code": "class Solution:\n    def sumList(self, nums: List[int]) -> int:\n        ",
    "tests": json.dumps(
        [
            {"input": "[1, 2, 3]", "output": "6", "testtype": "functional"},
            {"input": "[]", "output": "0", "testtype": "functional"},
        ]
    ),
    "metadata": json.dumps({"func_name": "sumList"}),
}
ADD = "a, b = map(int, input().split())\n"

CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("acecode-right", ACECODE, PROSE.format(VOWELS_RIGHT), "correct"),
    ("acecode-case-sensitive", ACECODE, PROSE.format(VOWELS_CASE), "partial"),
    ("acecode-always-equal", ACECODE, PROSE.format(VOWELS_EQ), "incorrect"),
    ("acecode-no-function", ACECODE, "```python\nprint('hello')\n```", "incorrect"),
    ("kodcode-right", KODCODE, PROSE.format(KODCODE["solution"]), "correct"),
    ("kodcode-always-true", KODCODE, PROSE.format("def is_palindrome(s):\n    return True\n"),
     "partial"),
    ("kodcode-test-class", {**KODCODE, "test": "from solution import is_palindrome\n\n\n"
     "class TestPalindrome:\n    def test_odd(self):\n        assert is_palindrome('aba')\n\n"
     "    def test_not(self):\n        assert not is_palindrome('ab')\n"},
     PROSE.format("def is_palindrome(s):\n    return True\n"), "partial"),
    ("kodcode-other-name", KODCODE, PROSE.format("def palindrome(s):\n    return s == s[::-1]\n"),
     "incorrect"),
    ("openr1-right", OPENR1, PROSE.format(SUM_RIGHT), "correct"),
    ("openr1-wrong", OPENR1, PROSE.format(SUM_WRONG), "incorrect"),
    ("openr1-json-text", {**OPENR1, "verification_info": json.dumps(OPENR1["verification_info"])},
     PROSE.format(SUM_RIGHT), "correct"),
    ("openr1-function-call", OPENR1_CALLS, PROSE.format("def area(w, h):\n    return w * h\n"),
     "correct"),
    ("openr1-function-call-float", OPENR1_CALLS,
     PROSE.format("def area(w, h):\n    return w * h * 1.0\n"), "correct"),
    ("openr1-function-call-wrong", OPENR1_CALLS,
     PROSE.format("def area(w, h):\n    return w + h\n"), "incorrect"),
    ("openr1-function-call-solution-class", OPENR1_CALLS,
     PROSE.format("class Solution:\n    def area(self, w, h):\n        return w * h\n"),
     "correct"),
    ("openr1-function-call-json-lines", {**OPENR1_CALLS, "verification_info": json.dumps(
        {"language": "python", "test_cases": CALL_TEXT_CASES})},
     PROSE.format("def area(w, h):\n    return w * h\n"), "correct"),
    ("deepcoder-lcb", DEEPCODER_LCB, PROSE.format(ADD + "print(a + b)\n"), "correct"),
    ("deepcoder-lcb-float", DEEPCODER_LCB, PROSE.format(ADD + "print(float(a + b))\n"), "correct"),
    ("deepcoder-lcb-wrong", DEEPCODER_LCB, PROSE.format(ADD + "print(a * b)\n"), "incorrect"),
    ("deepcoder-taco", DEEPCODER_TACO, PROSE.format(ADD + "print(a + b)\n"), "correct"),
    ("deepcoder-taco-wrong", DEEPCODER_TACO, PROSE.format(ADD + "print(a * b)\n"), "partial"),
    ("deepcoder-functional", DEEPCODER_FUNCTIONAL,
     PROSE.format("class Solution:\n    def sumList(self, nums):\n        return sum(nums)\n"),
     "correct"),
    ("deepcoder-functional-wrong", DEEPCODER_FUNCTIONAL,
     PROSE.format("class Solution:\n    def sumList(self, nums):\n        return len(nums)\n"),
     "partial"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("row", "response", "status"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_rl_code_rows_as_shipped(
    code_scorer: Scorer, row: dict[str, Any], response: str, status: str
) -> None:
    [result] = score(code_scorer, [{**row, "domain": "code", "response": response}])
    assert result.status.value == status, result.verdict.message


@pytest.mark.parametrize(
    "row",
    [
        {"test_cases": ["assert add(1, 2) == 3", 7]},  # not all statements
        {"test_cases": ["this is not python"]},
        {"verification_info": {"language": "python", "test_cases": []}},
        {"verification_info": "{not json"},
        {"verification_info": {"test_cases": [{"input": "1", "output": "1", "type": "magic"}]}},
        {"tests": "[1, 2"},  # JSON-looking text that is not JSON: Python source, which fails
        {"verification_info": {"test_cases": [CALL_CASES[0], SUM_CASES[0]]}},  # mixed kinds
        {"verification_info": {"test_cases": [{**CALL_CASES[0], "fn_name": None}]}},
        {"verification_info": {"test_cases": [CALL_CASES[0], {**CALL_CASES[1], "fn_name": "b"}]}},
        {"input_output": json.dumps({"inputs": ["1\n"], "outputs": [None]})},
        {"input_output": json.dumps({"inputs": [[1]], "outputs": [[1]], "fn_name": 3})},
    ],
    ids=[
        "mixed-list",
        "not-python",
        "no-cases",
        "bad-json",
        "unknown-type",
        "broken-json",
        "calls-and-stdio",
        "call-without-name",
        "calls-to-two-names",
        "apps-null-output",
        "apps-number-fn-name",
    ],
)
def test_a_row_whose_tests_cannot_be_read_is_a_malformed_task(
    code_scorer: Scorer, row: dict[str, Any]
) -> None:
    [result] = score(code_scorer, [{**row, "domain": "code", "response": "print(1)"}])
    assert result.status.value == "error", result.verdict.message
    assert result.verdict.message, result


def test_a_kodcode_test_module_cannot_be_changed_by_the_answer(code_scorer: Scorer) -> None:
    # the answer writes a conftest.py / rewrites the test file: it must not pass the tests
    hostile = (
        "import pathlib\n"
        "for name in ('conftest.py', 'test_solution.py'):\n"
        "    try:\n"
        "        pathlib.Path(name).write_text('def test_ok():\\n    assert True\\n')\n"
        "    except OSError:\n"
        "        pass\n\n"
        "def is_palindrome(s):\n    return False\n"
    )
    [result] = score(
        code_scorer, [{**KODCODE, "domain": "code", "response": PROSE.format(hostile)}]
    )
    assert result.status.value in ("incorrect", "partial"), result.verdict.message
    assert result.score < 1.0


STAR_TESTS = (
    "import pytest\nfrom solution import *\n\n\n"
    "def reference(s):\n    return s == s[::-1]\n\n\n"
    "@pytest.mark.parametrize('s', ['racecar', 'ab', '', 'abca'])\n"
    "def test_matches_reference(s):\n    assert is_palindrome(s) == reference(s)\n\n\n"
    "def test_helper_of_the_answer():\n    assert normalize('A b') == 'ab'\n"
)
STAR_ROW = {**KODCODE, "test": STAR_TESTS}
STAR_RIGHT = (
    "def normalize(s):\n    return s.replace(' ', '').lower()\n\n\n"
    "def is_palindrome(s):\n    return s == s[::-1]\n"
)


@pytest.mark.parametrize(
    ("response", "status"),
    [
        (STAR_RIGHT, "correct"),
        (STAR_RIGHT.replace("s == s[::-1]\n", "True\n"), "partial"),
        # the test module's own names are its own: an answer that defines `reference` or
        # `pytest` does not replace them, so agreeing with itself earns nothing
        ("def reference(s):\n    return True\n\n\ndef is_palindrome(s):\n    return True\n\n\n"
         "def normalize(s):\n    return 'ab'\n", "partial"),
        ("pytest = None\n\n\n" + STAR_RIGHT, "correct"),
        ("def is_palindrome(s):\n    return s == s[::-1]\n", "partial"),  # no normalize
    ],
    ids=["right", "always-true", "shadows-reference", "shadows-pytest", "missing-helper"],
)  # fmt: skip
def test_a_pytest_module_that_star_imports_the_answer(
    code_scorer: Scorer, response: str, status: str
) -> None:
    [result] = score(code_scorer, [{**STAR_ROW, "domain": "code", "response": response}])
    assert result.status.value == status, result.verdict.message


def test_an_empty_fn_name_is_a_stdin_problem(code_scorer: Scorer) -> None:
    """Loaders of these sets write ``"fn_name": ""`` for stdin problems (``.get("fn_name",
    "")``): read as stdio, as without the key."""
    io = {"inputs": ["3\n1 2 3\n"], "outputs": ["6\n"], "fn_name": ""}
    row = {"domain": "code", "reference": {"input_output": json.dumps(io)},
           "response": PROSE.format(SUM_RIGHT)}  # fmt: skip
    [result] = score(code_scorer, [row])
    assert result.status.value == "correct", result.verdict.message
