"""Returned values compared as the benchmark's own judge compares them.

Call-based rows of two families, with answers written the way models write LeetCode and
Codewars solutions (``/`` where ``//`` was meant, ``return 1 - n % 2`` for a yes/no, a tuple
for a pair):

- **LiveCodeBench functional rows.** Its ``grade_call_based`` reads each expected output with
  ``json.loads``, turns a returned tuple into a list, and passes the call when
  ``prediction == expected``: Python's ``==``, so ``6.0`` is ``6`` and ``1`` is ``True``.
- **APPS / TACO call-based rows** (``fn_name``; verl's ``prime_code`` harness, APPS's own): an
  output is wrapped in a one-element list, and the call passes when the returned value ``==``
  that list or its item.

The labels below are those rules applied by hand to each answer, with two deliberate
differences, each a test of its own at the end: a float is right within the task's float
tolerance (LeetCode's own judge takes float answers within 1e-5; LiveCodeBench's ``==`` does
not), and a tuple inside a returned list is a list too (JSON has no tuples). A task in
assay's own format keeps the typed rule (``3.0`` is not ``3``) unless it asks for
``value_match: equal``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from scoring import score

from assay.runner import Scorer


def lcb_row(name: str, signature: str, cases: list[tuple[str, str]]) -> dict[str, Any]:
    """A LiveCodeBench LeetCode row: starter code, functional cases (JSON lines in, JSON out)."""
    tests = [{"input": i, "output": o, "testtype": "functional"} for i, o in cases]
    return {
        "question_id": f"9{len(name)}{len(cases)}",
        "platform": "leetcode",
        "starter_code": f"class Solution:\n    def {name}(self, {signature}):\n        ",
        "public_test_cases": json.dumps(tests[:1]),
        "private_test_cases": json.dumps(tests[1:]),
        "metadata": json.dumps({"func_name": name}),
    }


def solution(name: str, signature: str, body: str) -> str:
    return (
        f"```python\nclass Solution:\n    def {name}(self, {signature}):\n"
        + "".join(f"        {line}\n" for line in body.splitlines())
        + "```"
    )


PAIRS = lcb_row("numberOfPairs", "n: int) -> int", [("4", "6"), ("1", "0"), ("10", "45")])
EVEN = lcb_row("isEven", "n: int) -> bool", [("4", "true"), ("7", "false"), ("0", "true")])
TWO_SUM = lcb_row(
    "twoSum", "nums: List[int], target: int) -> List[int]",
    [("[2,7,11,15]\n9", "[0,1]"), ("[3,2,4]\n6", "[1,2]")],
)  # fmt: skip
AVERAGE = lcb_row(
    "minimumAverage", "nums: List[int]) -> float",
    [("[7,8,3,4,15,13,4,1]", "5.5"), ("[1,9,8,3,10,5]", "5.5"), ("[1,2,3,7,8,9]", "5.0")],
)  # fmt: skip
PRODUCT = lcb_row(
    "product", "a: int, b: int) -> int",
    [("1000000007\n1000000009", "1000000016000000063"), ("3\n4", "12")],
)  # fmt: skip
MIN_AVG = (
    "nums.sort()\navgs = []\nwhile nums:\n    avgs.append((nums.pop(0) + nums.pop()) {op} 2)\n"
    "return min(avgs)"
)

LCB_CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("pairs-floor", PAIRS, solution("numberOfPairs", "n", "return n * (n - 1) // 2"), "correct"),
    ("pairs-true-division", PAIRS, solution("numberOfPairs", "n", "return n * (n - 1) / 2"),
     "correct"),
    ("pairs-comb", PAIRS, solution("numberOfPairs", "n", "import math\nreturn math.comb(n, 2)"),
     "correct"),
    ("pairs-float-off", PAIRS, solution("numberOfPairs", "n", "return n * n / 2"), "incorrect"),
    ("pairs-text", PAIRS, solution("numberOfPairs", "n", "return str(n * (n - 1) // 2)"),
     "incorrect"),
    ("pairs-nan", PAIRS, solution("numberOfPairs", "n", "return float('nan')"), "incorrect"),
    ("even-bool", EVEN, solution("isEven", "n", "return n % 2 == 0"), "correct"),
    ("even-one-zero", EVEN, solution("isEven", "n", "return 1 - n % 2"), "correct"),
    ("even-float", EVEN, solution("isEven", "n", "return 1.0 - n % 2"), "correct"),
    ("even-inverted", EVEN, solution("isEven", "n", "return n % 2"), "incorrect"),
    ("even-text", EVEN, solution("isEven", "n", "return 'true' if n % 2 == 0 else 'false'"),
     "incorrect"),
    ("even-two", EVEN, solution("isEven", "n", "return 2 if n % 2 == 0 else 0"), "partial"),
    ("two-sum-list", TWO_SUM, solution(
        "twoSum", "nums, target",
        "seen = {}\nfor i, x in enumerate(nums):\n    if target - x in seen:\n"
        "        return [seen[target - x], i]\n    seen[x] = i",
    ), "correct"),
    ("two-sum-tuple", TWO_SUM, solution(
        "twoSum", "nums, target",
        "for i in range(len(nums)):\n    for j in range(i + 1, len(nums)):\n"
        "        if nums[i] + nums[j] == target:\n            return i, j",
    ), "correct"),
    ("two-sum-reversed", TWO_SUM, solution(
        "twoSum", "nums, target",
        "for i in range(len(nums)):\n    for j in range(i + 1, len(nums)):\n"
        "        if nums[i] + nums[j] == target:\n            return [j, i]",
    ), "incorrect"),
    ("average", AVERAGE, solution("minimumAverage", "nums", MIN_AVG.format(op="/")), "correct"),
    ("average-floored", AVERAGE, solution("minimumAverage", "nums", MIN_AVG.format(op="//")),
     "partial"),
    ("product", PRODUCT, solution("product", "a, b", "return a * b"), "correct"),
    ("product-through-float", PRODUCT, solution("product", "a, b", "return a * b / 1"),
     "partial"),
    ("product-float-rounded", PRODUCT, solution("product", "a, b", "return int(a * 1.0 * b)"),
     "partial"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("row", "response", "status"),
    [case[1:] for case in LCB_CASES],
    ids=[case[0] for case in LCB_CASES],
)
def test_livecodebench_functional_rows_compare_as_livecodebench_does(
    code_scorer: Scorer, row: dict[str, Any], response: str, status: str
) -> None:
    [result] = score(code_scorer, [{**row, "response": response}])
    assert result.status.value == status, result.verdict.message


def apps_row(name: str, inputs: list[list[Any]], outputs: list[Any]) -> dict[str, Any]:
    """A TACO / APPS call-based row as verl's data recipes keep it (``input_output`` text)."""
    wrapped = [[output] for output in outputs]
    return {
        "domain": "code",
        "reference": {"input_output": json.dumps(
            {"fn_name": name, "inputs": inputs, "outputs": wrapped}
        )},
    }  # fmt: skip


HALVES = apps_row("half", [[4], [9], [0]], [2, 4.5, 0])
SQUARE = apps_row("is_square", [[16], [15], [1]], [True, False, True])
DIGITS = apps_row("digits", [[123], [7]], [[1, 2, 3], [7]])

APPS_CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("half", HALVES, "def half(n):\n    return n / 2\n", "correct"),
    ("half-int-when-whole", HALVES,
     "def half(n):\n    return n // 2 if n % 2 == 0 else n / 2\n", "correct"),
    ("half-floored", HALVES, "def half(n):\n    return n // 2\n", "partial"),
    ("square-bool", SQUARE, "def is_square(n):\n    return int(n ** 0.5) ** 2 == n\n", "correct"),
    ("square-one-zero", SQUARE,
     "def is_square(n):\n    return 1 if int(n ** 0.5) ** 2 == n else 0\n", "correct"),
    ("square-text", SQUARE,
     "def is_square(n):\n    return str(int(n ** 0.5) ** 2 == n)\n", "incorrect"),
    ("digits", DIGITS, "def digits(n):\n    return [int(c) for c in str(n)]\n", "correct"),
    ("digits-tuple", DIGITS, "def digits(n):\n    return tuple(int(c) for c in str(n))\n",
     "correct"),
    ("digits-floats", DIGITS, "def digits(n):\n    return [float(c) for c in str(n)]\n",
     "correct"),
    ("digits-text", DIGITS, "def digits(n):\n    return list(str(n))\n", "incorrect"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("row", "response", "status"),
    [case[1:] for case in APPS_CASES],
    ids=[case[0] for case in APPS_CASES],
)
def test_apps_call_based_rows_compare_as_their_harness_does(
    code_scorer: Scorer, row: dict[str, Any], response: str, status: str
) -> None:
    [result] = score(code_scorer, [{**row, "response": response}])
    assert result.status.value == status, result.verdict.message


ATTACKS = [  # a value that is not the answer's data never equals it, whatever it claims
    ("always-equal", "class A:\n    def __eq__(self, other):\n        return True\n"
     "    __hash__ = None\n", "return A()"),
    ("int-subclass", "class I(int):\n    def __eq__(self, other):\n        return True\n"
     "    __hash__ = int.__hash__\n", "return I(-1)"),
    ("float-subclass", "class F(float):\n    def __eq__(self, other):\n        return True\n"
     "    __hash__ = float.__hash__\n", "return F(-1.5)"),
    ("list-subclass", "class L(list):\n    def __eq__(self, other):\n        return True\n",
     "return L()"),
    ("bool-for-count", "", "return True"),
    ("infinity", "", "return float('inf')"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("prelude", "body"), [case[1:] for case in ATTACKS], ids=[case[0] for case in ATTACKS]
)
def test_values_that_only_claim_equality_do_not_pay(
    code_scorer: Scorer, prelude: str, body: str
) -> None:
    response = (
        f"```python\n{prelude}\nclass Solution:\n    def numberOfPairs(self, n):\n"
        f"        {body}\n```"
    )
    [result] = score(code_scorer, [{**PAIRS, "response": response}])
    assert result.status.value == "incorrect", result.verdict.message
    assert result.verdict.score == 0.0


def test_floats_are_right_within_the_tolerance_where_livecodebench_wants_the_same_float(
    code_scorer: Scorer,
) -> None:
    row = lcb_row("third", "a: int) -> float", [("1", "0.3"), ("3", "0.9")])
    near = solution("third", "a", "return a * 0.1 + a * 0.2")  # 0.30000000000000004 for a=1
    off = solution("third", "a", "return round(a * 0.3, 3) + 1e-6")
    right, wrong = score(code_scorer, [{**row, "response": near}, {**row, "response": off}])
    assert right.status.value == "correct", right.verdict.message
    assert wrong.status.value == "incorrect", wrong.verdict.message


def test_a_tuple_inside_a_returned_list_is_a_list(code_scorer: Scorer) -> None:
    row = lcb_row("pairsOf", "n: int) -> List[List[int]]", [("2", "[[0,1],[1,0]]")])
    response = solution("pairsOf", "n", "return [(i, n - 1 - i) for i in range(n)]")
    [result] = score(code_scorer, [{**row, "response": response}])
    assert result.status.value == "correct", result.verdict.message


@pytest.mark.parametrize(
    ("value_match", "status"),
    [(None, "incorrect"), ("typed", "incorrect"), ("equal", "correct")],
    ids=["default", "typed", "equal"],
)
def test_a_task_in_assays_format_chooses_its_rule(
    code_scorer: Scorer, value_match: str | None, status: str
) -> None:
    reference: dict[str, Any] = {
        "entry_point": "pairs",
        "test_cases": [{"args": [4], "expected": 6}, {"args": [1], "expected": 0}],
    }
    if value_match is not None:
        reference["value_match"] = value_match
    row = {"domain": "code", "reference": reference,
           "response": "def pairs(n):\n    return n * (n - 1) / 2\n"}  # fmt: skip
    [result] = score(code_scorer, [row])
    assert result.status.value == status, result.verdict.message


@pytest.mark.parametrize("value", ["loose", 1, True, ["equal"]])
def test_an_unknown_value_match_is_a_malformed_task(code_scorer: Scorer, value: Any) -> None:
    reference = {"entry_point": "f", "test_cases": [{"args": [], "expected": 1}],
                 "value_match": value}  # fmt: skip
    [result] = score(code_scorer, [{"domain": "code", "reference": reference,
                                    "response": "def f():\n    return 1\n"}])  # fmt: skip
    assert result.status.value == "error", result.verdict.message
    assert "value_match" in (result.verdict.message or "")


SUM_CASES = [("[1, 2, 3]", "6"), ("[]", "0")]
FLOAT_SUM = "def total(nums):\n    return float(sum(nums))\n"
FLOAT_SUM_CLASS = "class Solution:\n    def total(self, nums):\n        return sum(nums) / 1\n"


@pytest.mark.parametrize(
    ("row", "response"),
    [
        ({"problem": "Sum.", "tests": json.dumps(
            [{"input": i, "output": o, "testtype": "functional"} for i, o in SUM_CASES]),
          "metadata": json.dumps({"func_name": "total"})}, FLOAT_SUM_CLASS),
        ({"domain": "code", "reference": json.dumps(
            [{"input": i, "output": o, "testtype": "functional", "metadata": {"func_name": "total"}}
             for i, o in SUM_CASES])}, FLOAT_SUM_CLASS),
        ({"problem": "Sum.", "verification_info": {"language": "python", "test_cases": json.dumps(
            {"fn_name": "total", "inputs": [[[1, 2, 3]], [[]]], "outputs": [[6], [0]]})}},
         FLOAT_SUM),
        ({"domain": "code", "reference": json.dumps(
            {"fn_name": "total", "inputs": [[[1, 2, 3]], [[]]], "outputs": [[6], [0]]})},
         FLOAT_SUM),
    ],
    ids=["deepcoder-tests", "verl-list-ground-truth", "open-r1-verification-info",
         "prime-code-ground-truth"],
)  # fmt: skip
def test_the_rule_follows_those_rows_whatever_column_they_come_in(
    code_scorer: Scorer, row: dict[str, Any], response: str
) -> None:
    [result] = score(code_scorer, [{**row, "response": f"```python\n{response}```"}])
    assert result.status.value == "correct", result.verdict.message
