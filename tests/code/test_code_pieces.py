"""The code checkers on their own: extraction, comparison, suspicious-code flags, ruff."""

from __future__ import annotations

import ast
from typing import Any

import pytest
from assay.verifiers.code import (
    extract_code,
    extract_patch,
    json_equal,
    ruff_report,
    scan_suspicious,
    static,
    stdout_equal,
    stdout_tokens_equal,
    syntax_error,
    value_equal,
)

FENCE = "```"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Plan.\n{FENCE}python\nx = 1\n{FENCE}\n", "x = 1\n"),  # the usual answer
        (
            f"{FENCE}python\na = 1\n{FENCE}\nthen\n{FENCE}py\nb = 2\n{FENCE}",
            "b = 2\n",
        ),  # last block wins
        (f"{FENCE}\nc = 3\n{FENCE}", "c = 3\n"),  # untagged fence
        (
            f"{FENCE}text\nnot code\n{FENCE}\n",
            f"{FENCE}text\nnot code\n{FENCE}\n",
        ),  # no python block: whole text
        ("def f():\n    return 1\n", "def f():\n    return 1\n"),  # bare code
        (
            f"Here:\n{FENCE}python\ndef f():\n    return 2\n",
            "def f():\n    return 2\n",
        ),  # cut off, unclosed
    ],
    ids=["one-block", "last-block", "untagged", "other-language", "bare", "unclosed"],
)
def test_extract_code(text: str, expected: str) -> None:
    assert extract_code(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # 20,000 unclosed tagged fences: the first opens a block that runs to the end (this
        # took 52 s when every opener searched the rest of the text for its closer)
        (f"{FENCE}a\n" * 20_000, f"{FENCE}a\n" * 20_000),
        (f"{FENCE}\n" * 20_001 + "x", "x"),  # 10,000 empty blocks, then one left open
        # only \n ends a line, but a fence line may end in \r\n (Windows): it closes the block,
        # whose code is read with \n (code@1.9.0; before, the block swallowed its closing fence)
        (f"{FENCE}py\nx = 1\r\n{FENCE}\r\n", "x = 1\n"),
        (f"{FENCE}py\nx = 1\u2028y = 2\n{FENCE}\n", "x = 1\u2028y = 2\n"),  # no break at U+2028
    ],
    ids=["many-unclosed-fences", "many-empty-blocks", "carriage-return", "line-separator"],
)
def test_extract_code_hostile_fences(text: str, expected: str) -> None:
    assert extract_code(text) == expected


DIFF = "--- a/p.py\n+++ b/p.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (f"Fix:\n{FENCE}diff\n{DIFF}{FENCE}", True),  # fenced diff
        (f"diff --git a/p.py b/p.py\n{DIFF}", True),  # bare git diff
        ("I would change x to 2.", False),  # prose only
    ],
    ids=["fenced", "bare", "prose"],
)
def test_extract_patch(text: str, found: bool) -> None:
    patch = extract_patch(text)
    assert (patch is not None) == found
    if patch is not None:
        assert "+x = 2" in patch


class Str(str):
    pass


@pytest.mark.parametrize(
    ("actual", "expected", "equal"),
    [
        (3, 3, True),  # same int
        (True, 1, False),  # a bool is not a number
        (1, True, False),  # nor the other way round
        (3.0, 3, False),  # a float for an int is wrong
        (3, 3.0, True),  # an int for a float is fine
        (0.1 + 0.2, 0.3, True),  # within the float tolerance
        (0.31, 0.3, False),  # outside it
        (float("nan"), float("nan"), True),  # nan matches nan
        ((1, 2), [1, 2], True),  # JSON has no tuples
        ("3", 3, False),  # a string is not a number
        ({1: "a"}, {"1": "a"}, False),  # JSON keys are strings
        (b"x", "x", False),  # bytes are not str
        (None, None, True),  # None
        ([1, [2, 3.0000000001]], [1, [2, 3.0]], True),  # nested, within tolerance
    ],
    ids=[
        "int",
        "bool-for-int",
        "int-for-bool",
        "float-for-int",
        "int-for-float",
        "float-close",
        "float-far",
        "nan",
        "tuple-list",
        "str-int",
        "int-keys",
        "bytes-str",
        "none",
        "nested",
    ],
)
def test_json_equal(actual: Any, expected: Any, equal: bool) -> None:
    assert json_equal(actual, expected) is equal


class Always:
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__


@pytest.mark.parametrize(
    ("actual", "expected", "equal"),
    [
        (6.0, 6, True),  # a float of the same value, as Python's == reads it
        (1, True, True),
        (0, False, True),
        (1.0, True, True),
        (True, 0, False),
        (True, 2, False),
        (2.5, 2, False),
        (float(10**18 + 1), 10**18 + 1, False),  # rounds to 1e18: not the int
        (float("inf"), 10**400, False),
        (float("nan"), 0, False),
        (10**400, 1.0, False),  # past every float: not equal, and no OverflowError
        (0.1 + 0.2, 0.3, True),  # a float expected keeps the tolerance
        ([1.0, (2, True)], [1, [2, 1]], True),
        ({"a": 1.0}, {"a": 1}, True),
        ({1: 1}, {"1": 1}, False),
        ("6", 6, False),
        (b"x", "x", False),
        (None, 0, False),
        (Always(), 6, False),  # only plain data is compared
        ([Always()], [6], False),
        (Str("x"), "x", False),
    ],
    ids=[
        "float-for-int", "int-for-true", "int-for-false", "float-for-true", "true-for-0",
        "true-for-2", "float-off", "float-rounding-big-int", "inf-huge-int", "nan", "huge-int",
        "float-close", "nested", "dict", "int-keys", "str-int", "bytes-str", "none-zero",
        "claims-equal", "claims-equal-inside", "str-subclass",
    ],
)  # fmt: skip
def test_value_equal(actual: Any, expected: Any, equal: bool) -> None:
    assert value_equal(actual, expected) is equal


def test_stdout_equal_ignores_only_trailing_whitespace() -> None:
    assert stdout_equal("1 2  \n3\n\n\n", "1 2\n3")
    assert not stdout_equal("1  2\n", "1 2\n")  # inner spacing matters
    assert not stdout_equal("2.5\n", "2.500000\n")  # no numeric leniency


@pytest.mark.parametrize(
    ("actual", "expected", "tolerance", "equal"),
    [
        ("\n 3 \n", "3\n", None, True),
        ("3.0e0", "3", None, True),
        ("-0", "0", None, True),
        ("+5", "5", None, True),
        ("Yes 3.0", "Yes 3", None, False),  # LiveCodeBench: a differing line must be numbers
        ("Yes 3.0", "Yes 3", 1e-6, True),  # with a tolerance, words match as text
        ("1e99999999999999999999", "1", None, False),  # past Decimal's exponents: not a number
        ("1e99999999999999999999", "1", 1e-6, False),
        ("1" * 5000, "1" * 5000 + "0", None, False),
        ("nan", "nan", None, True),  # the same text
        ("nan", "0", 1e-6, False),
        ("inf", "1e400", 1e-6, False),  # inf is text, not the float a numeral overflows to
        ("Infinity", "Infinity", None, True),
        ("1_000", "1000", None, False),  # Decimal() would take it; a numeral does not
        ("0x10", "16", 1e-6, False),
        ("0.0000005", "0", 1e-6, True),  # absolute error within the tolerance
        ("0.000002", "0", 1e-6, False),
        ("1\r\n2\r\n", "1\n2", None, True),
        ("", "0", None, False),
        ("", "", None, True),
        ("1 2", "1\n2", None, False),
    ],
)
def test_stdout_tokens_equal(
    actual: str, expected: str, tolerance: float | None, equal: bool
) -> None:
    assert stdout_tokens_equal(actual, expected, tolerance) is equal


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("import sys\nsys.exit(0)", "exit"),  # exits before the tests
        ("import os\nos._exit(0)", "exit"),
        ("raise SystemExit(0)", "exit"),
        ("import sys\nx = sys._getframe(1).f_locals", "introspection"),  # reads the caller
        ("import gc\nobjs = gc.get_objects()", "introspection"),
        ("import _pytest.runner", "framework"),  # patches pytest
        ("import builtins\nbuiltins.abs = lambda x: 0", "patching"),
        ("import time\ntime.time = lambda: 0", "clock"),
        ("class A:\n    def __eq__(self, o):\n        return True", "always-equal"),
        ("open('conftest.py', 'w').write('x')", "test-files"),
        ("import socket", "network"),
        ("import subprocess", "process"),
    ],
    ids=[
        "sys-exit",
        "os-exit",
        "raise-systemexit",
        "frames",
        "gc",
        "pytest",
        "builtins",
        "clock",
        "always-equal",
        "conftest",
        "socket",
        "subprocess",
    ],
)
def test_suspicious_flags(code: str, kind: str) -> None:
    assert kind in {flag.kind for flag in scan_suspicious(code)}


def test_honest_code_has_no_flags() -> None:
    code = "from collections import Counter\n\ndef top(xs):\n    return Counter(xs).most_common(1)[0][0]\n"
    assert scan_suspicious(code) == []


def test_syntax_errors_are_described() -> None:
    assert syntax_error("def f(:\n") is not None
    assert syntax_error("x = 1\n") is None
    assert "null" in (syntax_error("x = 1\x00") or "")


def test_ruff_findings_by_rule_and_severity() -> None:
    report = ruff_report("import os\n\ndef f(a=[]):\n    return undefined_name\n")
    assert report.by_rule == {"F401": 1, "B006": 1, "F821": 1}
    assert report.by_severity == {"warning": 2, "error": 1}
    assert not report.passed and report.score == 0.0  # 1 - (1.0 + 2 * 0.25), floored at 0
    warned = ruff_report("def f(a=[]):\n    return a\n")
    assert warned.passed and warned.score == 0.75  # one bugbear warning
    clean = ruff_report("def add(a, b):\n    return a + b\n")
    assert clean.passed and clean.score == 1.0


PARSE_CASES = [
    "x = 1\n",
    "def f(:\n",
    "    return 1\n",
    "x = 1\x00",
    "(" * 300 + ")" * 300,
    "def f():\n    return [i for i in range(3)]\n",
    "print('unterminated\n",
]


@pytest.mark.parametrize("code", PARSE_CASES)
def test_the_shared_parse_agrees_with_a_fresh_compile(code: str) -> None:
    """One parse serves syntax, definitions and suspicious constructs: each caller gets what a
    parse of its own would give, however many other sources were parsed in between."""
    for _ in range(2):
        for other in PARSE_CASES:  # more sources than the few kept
            static.syntax_error(other)
        try:
            fresh = ast.dump(ast.parse(code))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            fresh = None
        tree = static.parse_module(code)
        assert (tree is None) == (fresh is None) == (static.syntax_error(code) is not None)
        if tree is not None:
            assert ast.dump(tree) == fresh


def test_the_shared_parse_keeps_few_trees_and_no_large_ones() -> None:
    for n in range(20):
        static.parse_module(f"x = {n}\n")
    assert len(static._parsed) <= static._PARSED_KEPT
    big = "x = 1\n" * (static._PARSED_MAX_CHARS // 6 + 1)
    assert static.parse_module(big) is not None and big not in static._parsed


def test_the_shared_parse_is_safe_from_several_threads() -> None:
    # in-process scoring (--workers 0, an asyncio executor) may verify from several threads
    from concurrent.futures import ThreadPoolExecutor

    def one(n: int) -> bool:
        good = static.syntax_error(f"x = {n}\n") is None
        bad = static.syntax_error(f"x = ({n}\n") is not None
        return good and bad

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(one, range(4000)))
    assert len(static._parsed) <= static._PARSED_KEPT
