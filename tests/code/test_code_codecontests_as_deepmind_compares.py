"""CodeContests rows, judged as DeepMind's own harness judges their output.

``deepmind/code_contests`` ships its tests as ``public_tests`` / ``private_tests`` /
``generated_tests`` (``{input: [...], output: [...]}``). Its harness
(``execution/tester_sandboxer.cc``, ``OutputsMatch``) splits both outputs on blanks (space,
tab, CR, LF, VT; empty parts dropped), lowercases them (ASCII), and passes when the word lists
are equal, or have the same length with each pair equal as text or, when both parse as
numbers, within an absolute 1e-5. So ``6.0`` is ``6``, ``Yes`` is ``YES``, ``0.33333`` is
``0.333333333333``, and three numbers on one line are three on three lines.

The labels are that rule applied by hand to each program's output. One deliberate difference
is tested on its own: DeepMind's harness reads every number as a double, so two integers past
2**53 that differ by one match there; here integers compare exactly.
"""

from __future__ import annotations

from typing import Any

import pytest
from scoring import score

from assay.runner import Scorer

FENCE = "Here is the program.\n\n```python\n{}```\n"


def row(name: str, tests: list[tuple[str, str]], **extra: Any) -> dict[str, Any]:
    """A code_contests row, with the columns the set ships (the tests split as it splits them)."""
    cases = [{"input": i, "output": o} for i, o in tests]
    public, private = cases[:1], cases[1:]
    return {
        "name": name,
        "description": "...",
        "public_tests": {"input": [c["input"] for c in public],
                         "output": [c["output"] for c in public]},
        "private_tests": {"input": [c["input"] for c in private],
                          "output": [c["output"] for c in private]},
        "generated_tests": {"input": [], "output": []},
        "source": 2,
        "difficulty": 7,
        "solutions": {"language": [], "solution": []},
        "incorrect_solutions": {"language": [], "solution": []},
        "cf_contest_id": 1,
        "cf_index": "A",
        "cf_points": 500.0,
        "cf_rating": 1000,
        "cf_tags": ["math"],
        "is_description_translated": False,
        "untranslated_description": "",
        "time_limit": {"seconds": 1, "nanos": 0},
        "memory_limit_bytes": 256000000,
        "input_file": "",
        "output_file": "",
        **extra,
    }  # fmt: skip


SUM = row("1000_A. Sum", [("3\n1 2 3\n", "6\n"), ("2\n10 -4\n", "6\n"), ("1\n0\n", "0\n")])
READ_SUM = "input()\ns = sum(map(int, input().split()))\n"
EVEN = row("1000_B. Even or not", [("3\n2 3 4\n", "YES\nNO\nYES\n"), ("1\n7\n", "NO\n")])
READ_EVEN = "input()\nfor x in map(int, input().split()):\n"
THIRD = row("1000_C. A third", [("1\n", "0.333333333333\n"), ("2\n", "0.666666666667\n")])
COUNT = row("1000_D. Count to n", [("3\n", "1\n2\n3\n"), ("1\n", "1\n")])
BIG = row("1000_E. Big", [("0\n", "1000000000000000000\n")])

CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("sum-right", SUM, READ_SUM + "print(s)\n", "correct"),
    ("sum-as-float", SUM, READ_SUM + "print(float(s))\n", "correct"),
    ("sum-spaced-out", SUM, READ_SUM + "print(' ', s, ' ')\nprint()\n", "correct"),
    ("sum-wrong", SUM, READ_SUM + "print(s + 1)\n", "incorrect"),
    ("sum-wrong-once", SUM, READ_SUM + "print(abs(s) if s else 1)\n", "partial"),
    ("sum-with-words", SUM, READ_SUM + "print('answer:', s)\n", "incorrect"),
    ("even-right", EVEN, READ_EVEN + "    print('YES' if x % 2 == 0 else 'NO')\n", "correct"),
    ("even-mixed-case", EVEN, READ_EVEN + "    print('Yes' if x % 2 == 0 else 'no')\n", "correct"),
    ("even-one-line", EVEN, "input()\nprint(*('YES' if int(x) % 2 == 0 else 'NO' "
     "for x in input().split()))\n", "correct"),
    ("even-inverted", EVEN, READ_EVEN + "    print('NO' if x % 2 == 0 else 'YES')\n", "incorrect"),
    ("third-right", THIRD, "print(f'{int(input()) / 3:.12f}')\n", "correct"),
    ("third-five-places", THIRD, "print(f'{int(input()) / 3:.5f}')\n", "correct"),
    ("third-four-places", THIRD, "print(f'{int(input()) / 3:.4f}')\n", "incorrect"),
    ("third-exponent", THIRD, "print(f'{int(input()) / 3:e}')\n", "correct"),
    ("third-nan", THIRD, "print(float('nan'))\n", "incorrect"),
    ("count-right", COUNT, "for i in range(1, int(input()) + 1):\n    print(i)\n", "correct"),
    ("count-one-line", COUNT, "print(*range(1, int(input()) + 1))\n", "correct"),
    ("count-one-short", COUNT, "n = int(input())\nprint(*range(1, n + (n == 1)))\n", "partial"),
    ("big-right", BIG, "print(10 ** 18)\n", "correct"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("row", "code", "status"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_codecontests_output_as_deepmind_compares(
    code_scorer: Scorer, row: dict[str, Any], code: str, status: str
) -> None:
    [result] = score(code_scorer, [{**row, "response": FENCE.format(code)}])
    assert result.status.value == status, result.verdict.message


def test_deliberate_difference_integers_compare_exactly(code_scorer: Scorer) -> None:
    # DeepMind's harness reads 10**18 + 1 as the double 1e18 and passes it; an integer answer
    # one off is wrong here, however large
    [result] = score(code_scorer, [{**BIG, "response": FENCE.format("print(10 ** 18 + 1)\n")}])
    assert result.status.value == "incorrect", result.verdict.message


def test_a_row_can_still_ask_for_exact_output(code_scorer: Scorer) -> None:
    [result] = score(
        code_scorer,
        [
            {
                **SUM,
                "stdout_match": "exact",
                "response": FENCE.format(READ_SUM + "print(float(s))\n"),
            }
        ],
    )
    assert result.status.value == "incorrect", result.verdict.message
