"""Program output compared as the task's own judge compares it.

Two families of stdio tasks, with programs written the way models write contest answers
(``print(*ans)``, f-strings, a stray ``print()`` left from debugging, ``float`` arithmetic):

- **LiveCodeBench stdin rows.** LiveCodeBench's ``grade_stdio`` strips the whole output, strips
  every line at both ends, needs as many lines as expected, and then takes a line that is not
  the same text when every whitespace-separated token of it is the same *number*
  (``decimal.Decimal`` equality: ``7.0`` is ``7``, ``0.50`` is ``0.5``, ``0.5000001`` is not).
  The labels below are that rule applied by hand to each output.
- **Tasks with ``float_tolerance``** (a real-valued answer "accepted within an absolute or
  relative error of 1e-6", as contest statements say): a numeric token is right within the
  tolerance, any other token must be the same text, line by line.

A task with neither keeps the strict rule (trailing whitespace per line and trailing blank
lines ignored, nothing else): ``tests/code/test_code_pieces.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from scoring import score

from assay.runner import Scorer

SUM_ROW = {  # AtCoder-style: N, then N integers; print their sum
    "question_id": "abc900_a",
    "platform": "atcoder",
    "starter_code": "",
    "public_test_cases": json.dumps(
        [{"input": "3\n1 2 4\n", "output": "7\n", "testtype": "stdin"}]
    ),
    "private_test_cases": json.dumps(
        [{"input": "2\n5 5\n", "output": "10\n", "testtype": "stdin"}]
    ),
    "metadata": "{}",
}
READ = "n = int(input())\na = list(map(int, input().split()))\n"
PAIR_ROW = {  # two integers; print their sum and product on one line
    **SUM_ROW,
    "question_id": "abc900_b",
    "public_test_cases": json.dumps([{"input": "3 4\n", "output": "7 12\n", "testtype": "stdin"}]),
    "private_test_cases": json.dumps([{"input": "0 9\n", "output": "9 0\n", "testtype": "stdin"}]),
}
YES_ROW = {  # print Yes when the number is even, else No
    **SUM_ROW,
    "question_id": "abc900_c",
    "public_test_cases": json.dumps(
        [
            {"input": "4\n", "output": "Yes\n", "testtype": "stdin"},
            {"input": "7\n", "output": "No\n", "testtype": "stdin"},
        ]
    ),
    "private_test_cases": "[]",
}
HALF_ROW = {  # print N / 2
    **SUM_ROW,
    "question_id": "abc900_d",
    "public_test_cases": json.dumps(
        [
            {"input": "1\n", "output": "0.5\n", "testtype": "stdin"},
            {"input": "3\n", "output": "1.5\n", "testtype": "stdin"},
        ]
    ),
    "private_test_cases": "[]",
}

LCB_CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("sum", SUM_ROW, READ + "print(sum(a))\n", "correct"),
    ("sum-trailing-space", SUM_ROW, READ + "print(sum(a), end=' \\n')\n", "correct"),
    ("sum-leading-space", SUM_ROW, READ + "print('', sum(a))\n", "correct"),
    ("sum-debug-blank-line-first", SUM_ROW, READ + "print()\nprint(sum(a))\n", "correct"),
    ("sum-as-float", SUM_ROW, READ + "print(float(sum(a)))\n", "correct"),
    ("sum-off-by-half", SUM_ROW, READ + "print(sum(a) + 0.5)\n", "incorrect"),
    ("sum-extra-token", SUM_ROW, READ + "print(sum(a), 0)\n", "incorrect"),
    ("sum-extra-line", SUM_ROW, READ + "print(sum(a))\nprint(n)\n", "incorrect"),
    ("sum-labelled", SUM_ROW, READ + "print('answer:', sum(a))\n", "incorrect"),
    ("pair", PAIR_ROW, "a, b = map(int, input().split())\nprint(a + b, a * b)\n", "correct"),
    (
        "pair-double-space",
        PAIR_ROW,
        "a, b = map(int, input().split())\nprint(a + b, a * b, sep='  ')\n",
        "correct",
    ),
    (
        "pair-tab",
        PAIR_ROW,
        "a, b = map(int, input().split())\nprint(f'{a + b}\\t{a * b}')\n",
        "correct",
    ),
    (
        "pair-on-two-lines",
        PAIR_ROW,
        "a, b = map(int, input().split())\nprint(a + b)\nprint(a * b)\n",
        "incorrect",
    ),
    (
        "pair-swapped",
        PAIR_ROW,
        "a, b = map(int, input().split())\nprint(a * b, a + b)\n",
        "incorrect",
    ),
    ("yes", YES_ROW, "print('Yes' if int(input()) % 2 == 0 else 'No')\n", "correct"),
    ("yes-padded", YES_ROW, "print(' Yes ' if int(input()) % 2 == 0 else 'No ')\n", "correct"),
    ("yes-lower", YES_ROW, "print('yes' if int(input()) % 2 == 0 else 'no')\n", "incorrect"),
    ("yes-always", YES_ROW, "print('Yes')\n", "partial"),
    ("half", HALF_ROW, "print(int(input()) / 2)\n", "correct"),
    ("half-fixed-digits", HALF_ROW, "print(f'{int(input()) / 2:.5f}')\n", "correct"),
    ("half-scientific", HALF_ROW, "print(f'{int(input()) / 2:e}')\n", "correct"),
    ("half-close-not-equal", HALF_ROW, "print(int(input()) / 2 + 1e-7)\n", "incorrect"),
    ("half-floored", HALF_ROW, "print(int(input()) // 2)\n", "incorrect"),
    ("half-nan", HALF_ROW, "input()\nprint(float('nan'))\n", "incorrect"),
]


@pytest.mark.parametrize(
    ("row", "response", "status"),
    [case[1:] for case in LCB_CASES],
    ids=[case[0] for case in LCB_CASES],
)
def test_livecodebench_stdin_rows_compare_as_livecodebench_does(
    code_scorer: Scorer, row: dict[str, Any], response: str, status: str
) -> None:
    [result] = score(code_scorer, [{**row, "response": f"```python\n{response}```"}])
    assert result.status.value == status, result.verdict.message


CIRCLE = [  # radius -> area, printed to full precision by the setter
    {"stdin": "1\n", "stdout": "3.141592653589793\n"},
    {"stdin": "2\n", "stdout": "12.566370614359172\n"},
    {"stdin": "1000\n", "stdout": "3141592.653589793\n"},
]
SEGMENT = [  # x1 y1 x2 y2 -> length and midpoint, "within 1e-6"
    {"stdin": "0 0 3 4\n", "stdout": "5.0\n1.5 2.0\n"},
    {"stdin": "1 1 2 2\n", "stdout": "1.4142135623730951\n1.5 1.5\n"},
]
AREA = "import math\nr = int(input())\n"
SEG = (
    "import math\nx1, y1, x2, y2 = map(int, input().split())\n"
    "d = math.hypot(x2 - x1, y2 - y1)\nmx, my = (x1 + x2) / 2, (y1 + y2) / 2\n"
)
TOLERANCE_CASES: list[tuple[str, list[dict[str, str]], str, str]] = [
    ("area-repr", CIRCLE, AREA + "print(math.pi * r * r)\n", "correct"),
    ("area-10-digits", CIRCLE, AREA + "print(f'{math.pi * r * r:.10f}')\n", "correct"),
    ("area-pi-5-digits", CIRCLE, AREA + "print(3.14159 * r * r)\n", "correct"),
    ("area-2-digits", CIRCLE, AREA + "print(f'{math.pi * r * r:.2f}')\n", "partial"),
    ("area-22-over-7", CIRCLE, AREA + "print(22 / 7 * r * r)\n", "incorrect"),
    ("area-nan", CIRCLE, AREA + "print(float('nan'))\n", "incorrect"),
    ("area-inf", CIRCLE, AREA + "print(float('inf'))\n", "incorrect"),
    ("area-two-answers", CIRCLE, AREA + "print(math.pi * r * r, 3.14)\n", "incorrect"),
    ("area-labelled", CIRCLE, AREA + "print('area', math.pi * r * r)\n", "incorrect"),
    ("area-empty", CIRCLE, AREA + "pass\n", "incorrect"),
    ("segment", SEGMENT, SEG + "print(d)\nprint(mx, my)\n", "correct"),
    ("segment-fixed", SEGMENT, SEG + "print(f'{d:.9f}')\nprint(f'{mx:.9f} {my:.9f}')\n", "correct"),
    ("segment-int-mid", SEGMENT, SEG + "print(d)\nprint(mx, int(my))\n", "partial"),
    ("segment-one-line", SEGMENT, SEG + "print(d, mx, my)\n", "incorrect"),
]


@pytest.mark.parametrize(
    ("cases", "response", "status"),
    [case[1:] for case in TOLERANCE_CASES],
    ids=[case[0] for case in TOLERANCE_CASES],
)
def test_stdio_with_a_float_tolerance_takes_numbers_within_it(
    code_scorer: Scorer, cases: list[dict[str, str]], response: str, status: str
) -> None:
    reference = {"stdio": cases, "float_tolerance": 1e-6}
    row = {"domain": "code", "reference": reference, "response": f"```python\n{response}```"}
    [result] = score(code_scorer, [row])
    assert result.status.value == status, result.verdict.message


@pytest.mark.parametrize(
    ("response", "status"),
    [
        ("print(f'{int(input()) / 2:.5f}')\n", "incorrect"),
        ("print(' ' + str(int(input()) / 2))\n", "incorrect"),
        ("print(int(input()) / 2)\n", "correct"),
    ],
    ids=["fixed-digits", "leading-space", "same-text"],
)
def test_a_plain_stdio_task_keeps_the_strict_rule(
    code_scorer: Scorer, response: str, status: str
) -> None:
    cases = [{"stdin": "1\n", "stdout": "0.5\n"}, {"stdin": "3\n", "stdout": "1.5\n"}]
    row = {"domain": "code", "reference": {"stdio": cases}, "response": response}
    [result] = score(code_scorer, [row])
    assert result.status.value == status, result.verdict.message


def test_stdout_match_tokens_can_be_asked_for_on_any_stdio_task(code_scorer: Scorer) -> None:
    cases = [{"stdin": "3 4\n", "stdout": "7 12\n"}]
    response = "a, b = map(int, input().split())\nprint(' ', a + b, float(a * b))\n"
    rows = [
        {"domain": "code", "reference": {"stdio": cases, "stdout_match": match},
         "response": response}
        for match in ("tokens", "exact")
    ]  # fmt: skip
    tokens, exact = score(code_scorer, rows)
    assert tokens.status.value == "correct", tokens.verdict.message
    assert exact.status.value == "incorrect", exact.verdict.message


@pytest.mark.parametrize("value", ["numbers", 1, True])
def test_an_unknown_stdout_match_is_a_malformed_task(code_scorer: Scorer, value: Any) -> None:
    cases = [{"stdin": "", "stdout": "1\n"}]
    row = {"domain": "code", "reference": {"stdio": cases, "stdout_match": value},
           "response": "print(1)"}  # fmt: skip
    [result] = score(code_scorer, [row])
    assert result.status.value == "error", result.verdict.message
    assert "stdout_match" in result.verdict.message


def apps_stdio(inputs: list[str], outputs: list[str]) -> dict[str, Any]:
    """An APPS / TACO stdin row as verl's data recipes keep it (``input_output`` text)."""
    io = json.dumps({"inputs": inputs, "outputs": outputs})
    return {"domain": "code", "reference": {"input_output": io}}


APPS_SUM = apps_stdio(["3\n1 2 3\n", "1\n5\n"], ["6\n", "5\n"])
APPS_PAIR = apps_stdio(["3 4\n", "0 9\n"], ["7 12\n", "9 0\n"])
SUMS = READ + "s = sum(a)\n"
# APPS's harness (verl's prime_code runs it) drops blank lines, strips lines and takes lines of
# numbers equal as floats (labels: that harness's verdict on each answer); `tokens` takes
# nothing it fails (it is stricter: numbers by value, not within np.allclose)
APPS_CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("sum", APPS_SUM, SUMS + "print(s)\n", "correct"),
    ("sum-padded", APPS_SUM, SUMS + "print(' ', s)\n", "correct"),
    ("sum-blank-first-line", APPS_SUM, SUMS + "print()\nprint(s)\n", "correct"),
    ("sum-float", APPS_SUM, SUMS + "print(float(s))\n", "correct"),
    ("sum-off-by-one", APPS_SUM, SUMS + "print(s + 1)\n", "incorrect"),
    ("sum-two-answers", APPS_SUM, SUMS + "print(s, s)\n", "incorrect"),
    ("pair", APPS_PAIR, "a, b = map(int, input().split())\nprint(a + b, a * b)\n", "correct"),
    ("pair-float", APPS_PAIR, "a, b = map(int, input().split())\nprint(a + b, a * b / 1)\n",
     "correct"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("row", "response", "status"),
    [case[1:] for case in APPS_CASES],
    ids=[case[0] for case in APPS_CASES],
)
def test_apps_stdin_rows_take_what_their_harness_takes(
    code_scorer: Scorer, row: dict[str, Any], response: str, status: str
) -> None:
    [result] = score(code_scorer, [{**row, "response": f"```python\n{response}```"}])
    assert result.status.value == status, result.verdict.message


def test_apps_stdin_rows_keep_the_order_of_a_lines_tokens(code_scorer: Scorer) -> None:
    """The order of a line's tokens counts (``12 7`` is not ``7 12``), as in verl's copy of
    the harness: only whitespace and the spelling of numbers are let go."""
    response = "a, b = map(int, input().split())\nprint(a * b, a + b)\n"
    [result] = score(code_scorer, [{**APPS_PAIR, "response": response}])
    assert result.status.value == "incorrect", result.verdict.message
