"""Answers that make the trusted side fail in their place (red team, 2026-12-03).

A policy that cannot solve a task gains when its sample is masked (``error``/``timeout``)
instead of punished. Each answer here did that before, by making work on the trusted side go
wrong rather than failing itself:

- source nested deeper than the trusted side's recursive scans reach (500 unary minus signs,
  a 500-branch ``elif``), which CPython itself compiles and runs;
- a returned int past the int -> str digit limit, which the failure message of an assert
  (``assert candidate(1) == 5, candidate(1)``) or a trusted ``KeyError`` had to print;
- a returned list of distinct tuples that all share one hash, which a test's ``set()`` takes
  quadratic time to build.

Each must earn what an honest wrong answer earns: ``incorrect`` (or ``unparsable`` for source
the parser refuses), never ``error`` or ``timeout``; and an honest answer written the same way
(a long ``elif`` chain) is judged on its merits.
"""

from __future__ import annotations

from typing import Any

import pytest
from scoring import score

from assay.runner import Scorer

HUMANEVAL = {
    "tests": "def check(candidate):\n    assert candidate(1) == 5\n    assert candidate(2) == 6\n",
    "entry_point": "f",
}
MBPP = {"test_list": ["assert f(1) == 5", "assert f(2) == 6"]}
STDIO = {"stdio": [{"stdin": "1\n", "stdout": "5\n"}]}
PYTEST = {"pytest": "from solution import f\n\n\ndef test_one():\n    assert f(1) == 5\n"}
TEST_CASES = {"test_cases": [{"args": [1], "expected": 5}], "entry_point": "f"}
WRONG_F = "def f(x):\n    return x\n"
WRONG_PROGRAM = "print(0)\n"

DEEP: dict[str, str] = {
    "unary-500": "_ = " + "-" * 500 + "0\n",
    "not-500": "_ = " + "not " * 500 + "0\n",
    "lambda-600": "_ = " + "lambda: " * 600 + "0\n",
    "sum-1000": "_ = " + "+".join(["1"] * 1000) + "\n",
    "elif-500": (
        "def _g(x):\n    if x == 0:\n        return 0\n"
        + "".join(f"    elif x == {k}:\n        return {k}\n" for k in range(1, 500))
    ),
}


def fenced(code: str) -> str:
    return f"Here it is.\n\n```python\n{code}```\n"


def verdict(scorer: Scorer, reference: dict[str, Any], code: str) -> tuple[str, float, str]:
    [result] = score(scorer, [{"domain": "code", "reference": reference, "response": fenced(code)}])
    return result.status.value, result.verdict.score, result.verdict.message or ""


@pytest.mark.parametrize("construct", list(DEEP), ids=list(DEEP))
def test_deep_source_is_judged_not_masked(code_scorer: Scorer, construct: str) -> None:
    status, value, message = verdict(code_scorer, HUMANEVAL, DEEP[construct] + WRONG_F)
    assert (status, value) == ("incorrect", 0.0), message


@pytest.mark.parametrize(
    ("reference", "code"),
    [(MBPP, WRONG_F), (STDIO, WRONG_PROGRAM), (PYTEST, WRONG_F), (TEST_CASES, WRONG_F)],
    ids=["mbpp", "stdio", "pytest", "test_cases"],
)
def test_deep_source_is_judged_in_every_mode(
    code_scorer: Scorer, reference: dict[str, Any], code: str
) -> None:
    status, value, message = verdict(code_scorer, reference, DEEP["unary-500"] + code)
    assert (status, value) == ("incorrect", 0.0), message


def test_a_right_answer_written_as_a_long_elif_chain_is_right(code_scorer: Scorer) -> None:
    chain = "def f(x):\n    if x == 0:\n        return 4\n" + "".join(
        f"    elif x == {k}:\n        return {k + 4}\n" for k in range(1, 500)
    )
    status, value, message = verdict(code_scorer, HUMANEVAL, chain)
    assert (status, value) == ("correct", 1.0), message


def test_source_nested_past_the_parser_is_the_answers_fault(code_scorer: Scorer) -> None:
    status, value, message = verdict(code_scorer, HUMANEVAL, "_ = " + "-" * 20000 + "0\n" + WRONG_F)
    assert status in ("unparsable", "incorrect") and value == 0.0, (status, message)


HUGE = "def f(x):\n    return 10 ** 5000\n"
HUGE_IN_LIST = "def f(x):\n    return [10 ** 5000]\n"


@pytest.mark.parametrize(
    ("reference", "code"),
    [
        ({"tests": "def check(candidate):\n    assert candidate(1) == 5, candidate(1)\n",
          "entry_point": "f"}, HUGE),
        ({"tests": "def check(candidate):\n    assert candidate(1) == 5, (candidate(1), 5)\n",
          "entry_point": "f"}, HUGE),
        ({"tests": "def check(candidate):\n    r = candidate(1)\n    assert r == 5, r\n",
          "entry_point": "f"}, HUGE),
        ({"tests": "def check(candidate):\n    table = {1: 'a', 2: 'b'}\n"
                   "    assert table[candidate(1)] == 'a'\n", "entry_point": "f"}, HUGE),
        ({"tests": "def check(candidate):\n    assert {(1, 2): 3}[tuple(candidate(1))] == 3\n",
          "entry_point": "f"}, HUGE_IN_LIST),
        ({"test_list": ["assert f(1) == 5, f(1)"]}, HUGE),
    ],
    ids=["message", "message-tuple", "message-name", "key-error", "key-error-tuple", "mbpp"],
)  # fmt: skip
def test_a_value_no_message_can_print_fails_its_unit(
    code_scorer: Scorer, reference: dict[str, Any], code: str
) -> None:
    status, value, message = verdict(code_scorer, reference, code)
    assert (status, value) == ("incorrect", 0.0), message


COLLIDING_PAIRS = (
    "def f(x):\n"
    "    mod, p1, p2, p5 = 2 ** 64, 11400714785074694791, 14029467366897019727, "
    "2870177450012600261\n"
    "    big = 2 ** 61 - 1\n"
    "    inverse = pow(p2, -1, mod)\n"
    "    def lane(a):\n"
    "        acc = (p5 + a * p2) % mod\n"
    "        return (((acc << 31) | (acc >> 33)) % mod) * p1 % mod\n"
    "    out, a = [], 0\n"
    "    while len(out) < 150000:\n"
    "        a += 1\n"
    "        b = (12345 - lane(a)) * inverse % mod\n"
    "        if b < big:\n"
    "            out.append((a, b))\n"
    "        elif mod - b < big and mod - b > 2:\n"
    "            out.append((a, b - mod))\n"
    "    return out\n"
)


@pytest.mark.parametrize(
    "reference",
    [
        {"tests": "def check(candidate):\n    assert set(candidate(1)) == {(1, 2)}\n",
         "entry_point": "f"},
    ],
    ids=["humaneval"],
)  # fmt: skip
def test_colliding_tuples_a_test_puts_in_a_set_fail_fast(
    code_scorer: Scorer, reference: dict[str, Any]
) -> None:
    status, value, message = verdict(code_scorer, reference, COLLIDING_PAIRS)
    assert (status, value) == ("incorrect", 0.0), message


INF_TABLE = "def f(x):\n    return [0] + [10 ** 18] * 9\n"


@pytest.mark.parametrize(
    "reference",
    [
        {"test_cases": [{"args": [1], "expected": [0] + [10**18] * 9}], "entry_point": "f"},
        {"tests": "def check(candidate):\n    assert candidate(1) == [0] + [10 ** 18] * 9\n",
         "entry_point": "f"},
    ],
    ids=["test_cases", "humaneval"],
)  # fmt: skip
def test_a_right_answer_with_repeated_large_ints_is_right(
    code_scorer: Scorer, reference: dict[str, Any]
) -> None:
    # 10**18 is a common "infinity" of shortest-path and DP answers: nine copies of one large
    # int are repeats, not a hash-collision attack
    status, value, message = verdict(code_scorer, reference, INF_TABLE)
    assert (status, value) == ("correct", 1.0), message
