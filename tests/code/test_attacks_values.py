"""Values a candidate returns to crash the comparison, as a policy would try.

A policy that makes the grader raise or hang gets its sample masked (``error``/``timeout``)
instead of punished. Each hostile answer here must earn what an honest wrong answer earns on
the same task, in every function-call mode: status ``incorrect`` (never ``error`` or
``timeout``), the same score, and the verifier must go on grading the next item normally.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from assay.domains.code.verifier import CodeVerifier

from assay.boundary import run_verifier
from assay.types import Record, Result

HONEST_WRONG = "def f(x):\n    return None\n"

HOSTILE_RETURNS: list[tuple[str, str]] = [
    # (name, an expression the candidate returns)
    ("int-5000-digits", "10 ** 5000"),  # past the int->str limit: repr() raises ValueError
    ("int-too-big-for-float", "2 ** 1024"),  # float() raises OverflowError
    ("negative-huge-int", "-(10 ** 4400)"),
    ("huge-int-in-list", "[10 ** 5000]"),
    ("huge-int-in-dict", "{'a': 10 ** 5000, 'b': 2 ** 1024}"),
    ("huge-int-in-tuple", "(2 ** 1024, 10 ** 5000)"),
    ("nan", "float('nan')"),
    ("inf", "float('inf')"),
    ("minus-inf", "-float('inf')"),
    ("nan-in-list", "[float('nan')] * 3"),
    ("deep-list", "__import__('functools').reduce(lambda acc, _: [acc], range(95), [])"),
    ("lone-surrogate", "'\\ud800' * 10"),
    ("bool-for-number", "True"),
    ("bytes-for-str", "b'0.5'"),
    ("colliding-big-ints", "[k * (2 ** 61 - 1) for k in range(1, 3000)]"),
    ("many-nones", "[None] * 2_000_000"),  # past the decoding budget
    ("big-string", "'x' * 7_000_000"),
    ("int-past-a-million-bits", "1 << (1 << 20)"),  # refused on decoding: squaring it is costly
]

EXPECTATIONS: list[tuple[str, Any]] = [
    ("float", 0.5),
    ("int", 3),
    ("list", [0.5, 1]),
    ("dict", {"a": 0.5}),
    ("str", "0.5"),
]


def _verify(verifier: CodeVerifier, code: str, reference: dict[str, Any]) -> Result:
    return run_verifier(verifier, Record("attack", "code", f"```python\n{code}```", reference))


_WRONG: dict[str, Result] = {}


def _honest_wrong(verifier: CodeVerifier, reference: dict[str, Any]) -> Result:
    key = json.dumps(reference, sort_keys=True)
    if key not in _WRONG:
        _WRONG[key] = _verify(verifier, HONEST_WRONG, reference)
    return _WRONG[key]


def _no_better_than_honest_wrong(
    verifier: CodeVerifier, hostile: str, reference: dict[str, Any]
) -> None:
    wrong = _honest_wrong(verifier, reference)
    attack = _verify(verifier, hostile, reference)
    assert wrong.status.value == "incorrect", wrong.verdict.message
    assert attack.status.value == "incorrect", (attack.status, attack.verdict.message)
    assert attack.score <= wrong.score == 0.0
    tests = next(c for c in attack.verdict.checks if c.name == "tests")
    assert not tests.passed and tests.evidence["passed"] == 0
    # nothing left behind: the next item is graded as if the attack never ran
    honest = _verify(verifier, "def f(x):\n    return x\n", {**reference, "static_analysis": False})
    assert honest.status.value in ("correct", "incorrect", "partial")


@pytest.mark.parametrize(
    "returned", [r for _, r in HOSTILE_RETURNS], ids=[n for n, _ in HOSTILE_RETURNS]
)
@pytest.mark.parametrize("expected", [e for _, e in EXPECTATIONS], ids=[n for n, _ in EXPECTATIONS])
def test_test_cases_mode(verifier: CodeVerifier, returned: str, expected: Any) -> None:
    reference = {
        "entry_point": "f",
        "test_cases": [{"args": [1], "expected": expected}, {"args": [2], "expected": expected}],
        "static_analysis": False,
    }
    _no_better_than_honest_wrong(verifier, f"def f(x):\n    return {returned}\n", reference)


CHECKS = [
    # HumanEval statements that reach the value in ways that raise on hostile values
    ("eq-float", "assert candidate(1) == 0.5"),
    ("abs-diff", "assert abs(candidate(1) - 0.5) < 1e-6"),
    ("isclose", "import math\n    assert math.isclose(candidate(1), 0.5)"),
    ("str", "assert str(candidate(1)) == '0.5'"),
    ("repr", "assert repr(candidate(1)) == '0.5'"),
    ("f-string", "assert f'{candidate(1)}' == '0.5'"),
    ("round", "assert round(candidate(1), 2) == 0.5"),
    ("float-of", "assert float(candidate(1)) == 0.5"),
    ("sorted", "assert sorted(candidate(1)) == [0.5]"),
    ("set-of", "assert set(candidate(1)) == {0.5}"),
    ("len", "assert len(candidate(1)) == 3"),
    ("in", "assert 0.5 in candidate(1)"),
    ("truth", "assert candidate(1)"),
    ("ge", "assert candidate(1) >= 0.5"),
]


@pytest.mark.parametrize(
    "returned", [r for _, r in HOSTILE_RETURNS], ids=[n for n, _ in HOSTILE_RETURNS]
)
@pytest.mark.parametrize("statement", [s for _, s in CHECKS], ids=[n for n, _ in CHECKS])
def test_humaneval_mode(verifier: CodeVerifier, returned: str, statement: str) -> None:
    tests = f"def check(candidate):\n    {statement}\n"
    reference = {"tests": tests, "entry_point": "f", "static_analysis": False}
    code = f"def f(x):\n    return {returned}\n"
    attack = _verify(verifier, code, reference)
    assert attack.status.value not in ("error", "timeout"), attack.verdict.message
    if not _passes_in_plain_python(statement, returned):
        # the value fails (or crashes) the statement: it must fail the unit, not the grader
        assert attack.status.value == "incorrect", attack.verdict.message
        assert attack.score == 0.0


def _passes_in_plain_python(statement: str, returned: str) -> bool:
    """Whether the statement passes with the value returned by a plain local function: what
    Python itself says (``float(b'0.5')`` is 0.5, a NaN is true), not an exploit."""
    namespace: dict[str, Any] = {}
    program = f"def check(candidate):\n    {statement}\ncheck(lambda x: {returned})\n"
    try:
        exec(program, namespace)
    except Exception:
        return False
    return True


PYTEST_TESTS = """
import math
import pytest
from solution import f

def test_eq():
    assert f(1) == 0.5

def test_approx():
    assert f(1) == pytest.approx(0.5)

def test_isclose():
    assert math.isclose(f(1), 0.5)

def test_str():
    assert str(f(1)) == "0.5"

def test_in():
    assert 0.5 in f(1)
"""


@pytest.mark.parametrize(
    "returned", [r for _, r in HOSTILE_RETURNS], ids=[n for n, _ in HOSTILE_RETURNS]
)
def test_pytest_mode(verifier: CodeVerifier, returned: str) -> None:
    reference = {"pytest": PYTEST_TESTS, "static_analysis": False}
    _no_better_than_honest_wrong(verifier, f"def f(x):\n    return {returned}\n", reference)


def test_hostile_objects_in_pytest_mode(verifier: CodeVerifier) -> None:
    # an object (not data) answering every question with yes earns an honest wrong answer
    liar = (
        "class Yes:\n"
        "    def __eq__(self, o): return True\n"
        "    def __contains__(self, x): return True\n"
        "    def __bool__(self): return True\n"
        "    def __lt__(self, o): return True\n"
        "    def __gt__(self, o): return True\n"
        "    def __float__(self): return 0.5\n"
        "    def __len__(self): return 3\n"
        "    def __iter__(self): return iter([])\n"
        "    def __getattr__(self, name): return True\n"
        "def f(x):\n    return Yes()\n"
    )
    tests = (
        "from solution import f\n\n"
        "def test_in():\n    assert 'needle' in f(1)\n\n"
        "def test_truth():\n    assert f(1)\n\n"
        "def test_order():\n    assert f(1) > 2\n\n"
        "def test_eq():\n    assert f(1) == [1, 2]\n\n"
        "def test_float():\n    assert float(f(1)) == 0.5\n\n"
        "def test_sorted():\n    assert sorted(f(1)) == [1]\n"
    )
    _no_better_than_honest_wrong(verifier, liar, {"pytest": tests, "static_analysis": False})


def test_forged_marker_dicts_earn_nothing(verifier: CodeVerifier) -> None:
    # the shape the protocol once used for handles, returned as plain data in every mode
    forged = (
        "import sys\n"
        "child = next(m for n, m in sys.modules.items() if n.endswith('inside.child'))\n"
        "class Yes:\n    def __contains__(self, x): return True\n"
        "child._handles[1] = Yes()\n"
        "def f(x):\n    return {'\\x00h': 1, '\\x00t': 'list'}\n"
    )
    humaneval = {"tests": "def check(candidate):\n    assert 'a' in candidate(1)\n",
                 "entry_point": "f", "static_analysis": False}  # fmt: skip
    pytest_mode = {"pytest": "from solution import f\ndef test_in():\n    assert 'a' in f(1)\n",
                   "static_analysis": False}  # fmt: skip
    for reference in (humaneval, pytest_mode):
        _no_better_than_honest_wrong(verifier, forged, reference)
