"""Attacks with deep syntax trees: text that Python parses but that is nested past the depth a
recursive reader of the tree can follow (red team of 2026-12-04).

A fenced block of ``-`` 1200 times and ``1`` parses (CPython's parser takes about 2,980
levels), and the extractor's check "is this block only values?" followed it one call per level
past the recursion limit: the verdict became ``error``, masked, so a policy could hide any wrong
answer behind such a block. Whatever the response nests and wherever, its verdict is its own:
never ``error`` or ``timeout``, never more than the honest answer next to it earns.
"""

from __future__ import annotations

from typing import Any

import pytest
from assay.domains.code.verifier import CodeVerifier

from assay.boundary import run_verifier
from assay.types import Record, Status

CHECK = "def check(candidate):\n" + "".join(
    f"    assert candidate({i}) == {i * i}\n" for i in range(3)
)
TESTS = {"entry_point": "f", "tests": CHECK, "timeout_s": 2.0}
STDIO = {"stdio": [{"stdin": "3\n", "stdout": "9\n"}], "timeout_s": 2.0}
RIGHT = "def f(x):\n    return x * x\n"
WRONG = "f = lambda x: -1\n"

DEPTH = 1200  # past the recursion limit (1000), under the parser's (~2980)
DEEP: dict[str, str] = {
    "minus chain": "-" * DEPTH + "1",
    "not chain": "not " * DEPTH + "x",
    "tilde chain": "~" * DEPTH + "1",
    "nested lists": "[" * 190 + "]" * 190,  # the parser's own limit on brackets is lower
    "nested tuples": "(" * 190 + "1," + ")" * 190,
    "left-deep sum": "+".join(["1"] * 20_000),
    "left-deep attribute": "x" + ".a" * 20_000,
    "left-deep subscript": "x" + "[0]" * 20_000,
    "left-deep call": "f" + "()" * 20_000,
    "right-deep power": "**".join(["2"] * 2_000),
    "nested conditional": "1 if x else " * 1_000 + "0",
    "nested lambda": "lambda: " * 1_000 + "0",
    "compare chain": " < ".join(["1"] * 20_000),
    "bool chain": " or ".join(["x"] * 20_000),
}


def _score(verifier: CodeVerifier, response: str, reference: dict[str, Any]) -> Any:
    return run_verifier(verifier, Record("deep", "code", response, reference))


@pytest.fixture(scope="module")
def verifier() -> CodeVerifier:
    return CodeVerifier()


@pytest.mark.parametrize("shape", sorted(DEEP))
@pytest.mark.parametrize(
    ("layout", "answer", "honest"),
    [
        # the deep block alone after a wrong answer in its own block
        ("wrong, then deep", f"```python\n{WRONG}```\n```python\n{{deep}}\n```", "incorrect"),
        # the deep block inside the answer's own block
        ("deep inside wrong", f"```python\n{WRONG}x = {{deep}}\n```", "incorrect"),
        # a right answer with a deep block of "sample output" after it
        ("right, then deep", f"```python\n{RIGHT}```\n```python\n{{deep}}\n```", "correct"),
    ],
    ids=["wrong-then-deep", "deep-inside-wrong", "right-then-deep"],
)
def test_a_deep_tree_is_the_responses_own_verdict(
    verifier: CodeVerifier, shape: str, layout: str, answer: str, honest: str
) -> None:
    response = answer.replace("{deep}", DEEP[shape])
    result = _score(verifier, response, TESTS)
    assert result.status not in (Status.ERROR, Status.TIMEOUT), result.verdict.message
    honest_result = _score(verifier, answer.replace("{deep}", "1"), TESTS)
    assert honest_result.status.value == honest
    assert result.score <= honest_result.score


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_a_deep_block_next_to_a_stdio_program_is_not_masked(
    verifier: CodeVerifier, shape: str
) -> None:
    response = f"```python\nprint(-1)\n```\n```python\n{DEEP[shape]}\n```"
    result = _score(verifier, response, STDIO)
    assert result.status not in (Status.ERROR, Status.TIMEOUT), result.verdict.message
    assert result.score == 0.0
