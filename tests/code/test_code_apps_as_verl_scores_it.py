"""APPS / TACO / PRIME code rows, answered as chat models answer them, labelled by verl's scorer.

verl scores ``data_source`` ``apps``, ``taco``, ``codecontests``, ``codeforces`` with its
``prime_code`` reward (APPS's testing harness as LiveCodeBench and PRIME carry it). That harness
puts an import string above every answer (``from typing import *``, ``from math import *``,
``from collections import *``, ...), calls ``Solution().<fn_name>`` when the answer holds a
LeetCode-style ``class Solution``, and reads a call-based row's inputs as newline-separated JSON
arguments when they are text (PRIME's and LiveCodeBench's form; APPS itself gives argument
lists). The labels here are the all-pass verdicts of verl 0.9.1's own ``check_correctness``,
computed in the test; an APPS-form row (argument lists) is labelled through the same rows in
the text form, which is the only form verl's harness reads.

Where verl's harness pays what a careful label would not (an object whose ``__eq__`` is always
true; the first element of a longer expected list), the label is the careful one and the
difference is said in the case.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from scoring import score
from verl.utils.reward_score.prime_code.utils import check_correctness

from assay.runner import Scorer

FENCE = "Here is my solution.\n\n```python\n{}```\n\nIt runs in linear time.\n"

MAX_PROFIT = (
    "class Solution:\n"
    "    def maxProfit(self, prices: List[int]) -> int:\n"
    "        best, low = 0, float('inf')\n"
    "        for price in prices:\n"
    "            low = min(low, price)\n"
    "            best = max(best, price - low)\n"
    "        return best\n"
)
MAX_PROFIT_WRONG = MAX_PROFIT.replace("price - low", "price - prices[0]")
COUNT_PAIRS = (
    "class Solution:\n"
    "    def countPairs(self, nums: List[int], target: int) -> int:\n"
    "        return sum(1 for i, j in combinations(range(len(nums)), 2)\n"
    "                   if nums[i] + nums[j] < target)\n"
)
HYPOTENUSE = (  # Codewars style: a top-level function, math's names without an import
    "def hypotenuse_gcd(a, b):\n    return [round(sqrt(a * a + b * b), 3), gcd(a, b)]\n"
)
TOP_WORDS = "def top_word(text):\n    return Counter(text.lower().split()).most_common(1)[0][0]\n"
PRIMES_UPTO = (  # a list result; APPS wraps each expected output in one more list
    "def primes_upto(n):\n"
    "    return [k for k in range(2, n + 1) if all(k % d for d in range(2, int(k ** 0.5) + 1))]\n"
)
UNDEFINED = "def top_word(text):\n    return Tally(text.split()).most_common(1)[0][0]\n"
STDIN_GROUPS = (
    "n = int(input())\n"
    "groups = defaultdict(list)\n"
    "for _ in range(n):\n"
    "    name, team = input().split()\n"
    "    groups[team].append(name)\n"
    "print(len(groups))\n"
    "print(max(len(v) for v in groups.values()))\n"
)
STDIN_MAIN = (
    "import sys\n\n\n"
    "def main():\n"
    "    data = sys.stdin.read().split()\n"
    "    n = int(data[0])\n"
    "    nums = list(map(int, data[1:1 + n]))\n"
    "    q = deque(sorted(nums))\n"
    "    print(q[0] + q[-1])\n\n\n"
    'if __name__ == "__main__":\n'
    "    main()\n"
)

# (rows in APPS's argument-list form: fn_name, inputs as argument lists, outputs as APPS wraps them)
APPS_CALLS: dict[str, dict[str, Any]] = {
    "maxProfit": {
        "fn_name": "maxProfit",
        "inputs": [[[7, 1, 5, 3, 6, 4]], [[7, 6, 4, 3, 1]], [[2, 4, 1]], [[3, 2, 6, 5, 0, 3]]],
        "outputs": [[5], [0], [2], [4]],
    },
    "countPairs": {
        "fn_name": "countPairs",
        "inputs": [[[-1, 1, 2, 3, 1], 2], [[-6, 2, 5, -2, -7, -1, 3], -2]],
        "outputs": [[3], [10]],
    },
    "hypotenuse_gcd": {
        "fn_name": "hypotenuse_gcd",
        "inputs": [[3, 4], [6, 8], [5, 12]],
        "outputs": [[[5.0, 1]], [[10.0, 2]], [[13.0, 1]]],
    },
    "top_word": {
        "fn_name": "top_word",
        "inputs": [["the cat and the hat"], ["A a b"]],
        "outputs": [["the"], ["a"]],
    },
    "primes_upto": {
        "fn_name": "primes_upto",
        "inputs": [[10], [2], [1]],
        "outputs": [[[2, 3, 5, 7]], [[2]], [[]]],
    },
}
STDIN_ROWS: dict[str, dict[str, Any]] = {
    "groups": {
        "inputs": ["4\nann red\nbob blue\ncy red\ndee red\n", "1\nx y\n"],
        "outputs": ["2\n3\n", "1\n1\n"],
    },
    "extremes": {"inputs": ["3\n5 1 9\n", "1\n4\n"], "outputs": ["10\n", "8\n"]},
}


def text_form(row: dict[str, Any], wrapped: bool = True) -> dict[str, Any]:
    """The same call-based row as PRIME / LiveCodeBench write it: JSON lines of arguments, and
    each output as JSON text, still in APPS's one-element list or (``wrapped=False``) not."""
    outputs = row["outputs"] if wrapped else [out[0] for out in row["outputs"]]
    return {
        "fn_name": row["fn_name"],
        "inputs": ["\n".join(json.dumps(arg) for arg in args) for args in row["inputs"]],
        "outputs": [json.dumps(out) for out in outputs],
    }


def verl_label(row: dict[str, Any], code: str) -> bool:
    """verl 0.9.1's prime_code harness: does every case pass?"""
    listed = "fn_name" in row and not isinstance(row["inputs"][0], str)
    in_outs = text_form(row) if listed else row  # verl reads only the text form
    results, _ = check_correctness(in_outs=json.loads(json.dumps(in_outs)), generation=code,
                                   timeout=5, debug=False)  # fmt: skip
    return bool(results) and all(r is True for r in results)


CASES = [
    ("maxProfit", MAX_PROFIT, True),
    ("maxProfit", MAX_PROFIT_WRONG, False),
    ("countPairs", COUNT_PAIRS, True),  # List and combinations from the import string
    ("hypotenuse_gcd", HYPOTENUSE, True),  # sqrt and gcd from the import string
    ("top_word", TOP_WORDS, True),  # Counter from the import string
    ("top_word", UNDEFINED, False),  # Tally is defined nowhere
    ("primes_upto", PRIMES_UPTO, True),  # [2] is the list result itself, [[2]] as APPS wraps it
]
CASE_IDS = ["solution-class", "solution-class-wrong", "solution-class-imports", "math-names",
            "collections-names", "undefined-name", "list-results"]  # fmt: skip
STDIN_CASES = [("groups", STDIN_GROUPS, True), ("extremes", STDIN_MAIN, True),
               ("extremes", STDIN_MAIN.replace("q[-1]", "q[1]"), False)]  # fmt: skip


def verl_row(data_source: str, in_outs: dict[str, Any], response: str) -> dict[str, Any]:
    """A row as verl's reward manager hands it over: ground truth as a JSON string."""
    return {"data_source": data_source, "response": response,
            "reward_model": {"style": "rule", "ground_truth": json.dumps(in_outs)}}  # fmt: skip


@pytest.mark.parametrize(("problem", "code", "label"), CASES, ids=CASE_IDS)
@pytest.mark.parametrize("form", ["apps-argument-lists", "json-lines-wrapped", "json-lines"])
def test_call_based_answers_agree_with_verls_harness(
    code_scorer: Scorer, problem: str, code: str, label: bool, form: str
) -> None:
    row = APPS_CALLS[problem]
    assert verl_label(row, code) is label  # the label, from verl's own harness
    in_outs = row if form == "apps-argument-lists" else text_form(row, form == "json-lines-wrapped")
    if form == "json-lines":
        assert verl_label(in_outs, code) is label
    [result] = score(code_scorer, [verl_row("taco", in_outs, FENCE.format(code))])
    assert (result.status.value == "correct") is label, result.verdict.message


@pytest.mark.parametrize(("problem", "code", "label"), STDIN_CASES,
                         ids=["collections-names", "main-guard", "main-guard-wrong"])  # fmt: skip
def test_stdin_answers_agree_with_verls_harness(
    code_scorer: Scorer, problem: str, code: str, label: bool
) -> None:
    row = STDIN_ROWS[problem]
    assert verl_label(row, code) is label
    [result] = score(code_scorer, [verl_row("apps", row, FENCE.format(code))])
    assert (result.status.value == "correct") is label, result.verdict.message


def test_apps_input_output_column_as_published(code_scorer: Scorer) -> None:
    # APPS / TACO on the Hub: input_output a JSON string, the answer a LeetCode class
    row = {"problem_id": 4001, "question": "Best time to buy and sell stock.",
           "solutions": "[]", "starter_code": "class Solution:\n    def maxProfit(self, prices):",
           "input_output": json.dumps(APPS_CALLS["maxProfit"]), "difficulty": "interview",
           "response": FENCE.format(MAX_PROFIT)}  # fmt: skip
    [result] = score(code_scorer, [row])
    assert result.status.value == "correct", result.verdict.message


EVERYTHING_EQUAL = (
    "class Yes:\n"
    "    def __eq__(self, other):\n"
    "        return True\n\n\n"
    "class Solution:\n"
    "    def maxProfit(self, prices):\n"
    "        return Yes()\n"
)


def test_an_object_equal_to_everything_earns_nothing(code_scorer: Scorer) -> None:
    row = APPS_CALLS["maxProfit"]
    assert not verl_label(row, EVERYTHING_EQUAL)  # verl's harness: json.dumps(output) raises
    for in_outs in (row, text_form(row)):
        [result] = score(code_scorer, [verl_row("taco", in_outs, FENCE.format(EVERYTHING_EQUAL))])
        assert result.status.value == "incorrect", result.verdict.message


def test_the_first_element_of_a_longer_expected_list_is_not_the_answer(code_scorer: Scorer) -> None:
    # verl's harness also accepts ``output == expected[0]`` for any non-empty expected list, so
    # returning 2 where [2, 3, 5, 7] is expected passes there; only a one-element list is
    # APPS's wrapping, and only there is the item accepted
    row = {"fn_name": "primes_upto", "inputs": [[10], [20]], "outputs": [[2, 3, 5, 7], [2, 3]]}
    first = "def primes_upto(n):\n    return 2\n"
    assert verl_label(row, first)  # verl pays it
    [result] = score(code_scorer, [verl_row("taco", row, first)])
    assert result.status.value == "incorrect", result.verdict.message


@pytest.mark.parametrize(
    ("code", "status"),
    [("from collections import defaultdict\n" + STDIN_GROUPS, "correct"),
     (STDIN_GROUPS, "incorrect")],  # DeepMind's harness runs the program as it is: no imports
    ids=["own-import", "no-import-string"],
)  # fmt: skip
def test_codecontests_rows_as_published(code_scorer: Scorer, code: str, status: str) -> None:
    tests = STDIN_ROWS["groups"]
    row = {"name": "1500_A. Groups", "description": "Count the teams.",
           "public_tests": {"input": tests["inputs"][:1], "output": tests["outputs"][:1]},
           "private_tests": {"input": tests["inputs"][1:], "output": tests["outputs"][1:]},
           "generated_tests": {"input": [], "output": []}, "response": FENCE.format(code)}  # fmt: skip
    [result] = score(code_scorer, [row])
    assert result.status.value == status, result.verdict.message


@pytest.mark.parametrize(
    ("input_output", "message"),
    [
        ("", "input_output is not valid JSON"),  # APPS rows without tests have an empty one
        ('{"inputs": 5, "outputs": []}', "inputs and outputs must be lists"),
        ('{"inputs": ["[1,2"], "outputs": ["3"], "fn_name": "add"}', "must be JSON"),
        ('{"inputs": ["[1, 2]"], "outputs": ["three"], "fn_name": "add"}', "must be JSON"),
    ],
    ids=["empty", "inputs-not-a-list", "input-not-json", "output-not-json"],
)
def test_a_malformed_row_is_the_tasks_error_not_the_answers(
    code_scorer: Scorer, input_output: str, message: str
) -> None:
    row = {"input_output": input_output, "response": "def add(a, b):\n    return a + b\n"}
    [result] = score(code_scorer, [row])
    assert result.status.value == "error", result.verdict.message
    assert message in result.verdict.message
