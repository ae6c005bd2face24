"""A fourth red team (size and shape): every domain through the trainers' entry point, the
started :class:`~assay.runner.Scorer` with ``workers=2`` (the real pool, its per-item limits,
its phase board), with inputs as large or as deep as a policy can make them.

The rule every case keeps (docs/architecture.md, "Blame"): what the response causes (a loop, a
value too large to compare, a mesh too costly to check, text too long or deep to parse) is the
response's fault, an ``incorrect`` (or ``unparsable``) verdict with score 0 and, where named, a
failed check naming the cause; never ``error`` or ``timeout`` (masked in training: the attack
escapes its negative reward), never more than the domain's honest-wrong answer gets, and never
a crash that stops the batch.

Each domain's cases are scored together in one started scorer (one pool per domain); the
verdict of each is checked alone. An attack that wins today is a strict expected failure that
says what happens and where. Inputs are built when the domain's fixture runs, cheaply (one
long string shared where a JSON line would repeat it); no assertion is on time.

Measured on the 2-core machine (2026-12-04), the wins:

- ``code``: a trajectory (``steps``, or a chat-message response such as TRL's conversational
  completions) with one tool call whose JSON ``arguments`` nest deeper than the recursion
  limit (1,100 brackets) raises ``RecursionError`` out of ``Scorer.score_rows``: the batch
  stops. ``Scheduler.submit`` calls ``CodeVerifier.timeout_for`` in the parent with no
  boundary; ``item_budget_s`` counts the commands with
  ``assay.domains.code.trajectory.commands``, whose ``call_arguments`` catches only
  ``ValueError`` around ``json.loads``. With ``timeout_s`` set (``--timeout``) the parent
  skips ``timeout_for`` and the same ``RecursionError`` comes in the worker's ``verify``
  (``Budget(item_budget_s(record))``), outside any declaration: a masked ``error``.
- reading rows: a JSON line whose ``steps`` nest deeper than the decoder's limit is an
  ``error`` row (``assay.io.read_rows``: "malformed JSON: nested too deeply"), though the same
  row given in process is the response's ``unparsable`` ("field 'steps' nests deeper than 100
  levels"): the steps are the model's output, read by ``assay score`` from a file.
"""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from assay.io import read_rows
from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer
from assay.types import Result

ROOT = Path(__file__).resolve().parents[1]
MASKED = ("error", "timeout")
ZERO = frozenset({"incorrect", "unparsable"})


@dataclass(frozen=True)
class Case:
    """One attack: built lazily (``make`` returns response, steps), what the rule requires."""

    id: str
    make: Callable[[], tuple[Any, Any]]
    want: frozenset[str] = ZERO
    check: str | None = None  # a failed check that must name the cause
    known: str | None = None  # a win today: strict xfail with this reason
    reference: Any = None  # default: the domain's reference
    extra: dict[str, Any] = field(default_factory=dict)


def params(cases: list[Case]) -> list[Any]:
    return [
        pytest.param(
            case,
            id=case.id,
            marks=[pytest.mark.xfail(strict=True, reason=case.known)] if case.known else [],
        )
        for case in cases
    ]


def score(domain: str, reference: Any, cases: list[Case], **options: Any) -> dict[str, Result]:
    """Every case of a domain in one started scorer with two workers, by id."""
    rows = []
    for n, case in enumerate(cases):
        response, steps = case.make()
        data: dict[str, Any] = {
            "id": case.id,
            "domain": domain,
            "reference": case.reference if case.reference is not None else reference,
            "response": response,
        }
        if steps is not None:
            data["steps"] = steps
        rows.append(RawRow(n, data))
    with Scorer(ScoreOptions(workers=2, **options)) as scorer:
        results = list(scorer.score_rows(rows))
    return {r.id: r for r in results}


def check(case: Case, result: Result, honest: Result) -> None:
    verdict = result.verdict
    status, message = verdict.status.value, verdict.message or ""
    assert status not in MASKED, f"masked ({status}): {message}"
    assert status in case.want, f"{status}: {message}"
    assert verdict.score <= honest.verdict.score, (
        f"paid {verdict.score} against the honest-wrong {honest.verdict.score}: {message}"
    )
    if case.check is not None:
        failed = [c.name for c in verdict.checks if not c.passed]
        assert case.check in failed, f"no failed {case.check!r} check: {failed} {message}"


def text(response: Any) -> Callable[[], tuple[Any, Any]]:
    return lambda: (response() if callable(response) else response, None)


def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


# --- agent ---------------------------------------------------------------------------------

AGENT_REF = {
    "env": "retail",
    "goal": {
        "calls": [
            {
                "name": "cancel_order",
                "arguments": {"order_id": "W1001", "reason": "no longer needed"},
            }
        ]
    },
    "facts": [50],
    "gold_steps": 2,
}
USER = {"role": "user", "content": "Cancel W1001"}
HERMES = '<tool_call>\n{"name": "get_order", "arguments": {"order_id": "W1001"}}\n</tool_call>\n'


def _call(i: int, name: str = "get_order", args: str = '{"order_id": "W1001"}') -> list[dict]:
    call = {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": args}}
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"c{i}", "content": "ok"},
    ]


WRONG_CANCEL = _call(0, "cancel_order", '{"order_id": "W1002", "reason": "no longer needed"}')


def _agent(steps: Callable[[], list[dict]]) -> Callable[[], tuple[Any, Any]]:
    return lambda: ("", steps())


def _many_calls(n: int) -> list[dict]:
    steps = [USER]
    for i in range(n):
        steps += _call(i)
    return [*steps, {"role": "assistant", "content": "Cancelled."}]


def _one_message_calls(n: int, answered: bool = True) -> list[dict]:
    calls = [
        {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": "get_order", "arguments": '{"order_id": "W1001"}'},
        }
        for i in range(n)
    ]
    results = [
        {"role": "tool", "tool_call_id": f"c{i}", "content": "ok"}
        if answered
        else {"role": "tool", "content": "ok"}  # answers the oldest open call
        for i in range(n)
    ]
    return [
        USER,
        {"role": "assistant", "content": None, "tool_calls": calls},
        *results,
        {"role": "assistant", "content": "done"},
    ]


def _anthropic(n: int) -> list[dict]:
    uses = [
        {"type": "tool_use", "id": f"t{i}", "name": "get_order", "input": {"order_id": "W1001"}}
        for i in range(n)
    ]
    results = [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok"} for i in range(n)]
    return [
        USER,
        {"role": "assistant", "content": uses},
        {"role": "user", "content": results},
        {"role": "assistant", "content": "done"},
    ]


def _legacy(n: int) -> list[dict]:
    pair = (
        {
            "role": "assistant",
            "content": None,
            "function_call": {"name": "get_order", "arguments": '{"order_id": "W1001"}'},
        },
        {"role": "function", "name": "get_order", "content": "ok"},
    )
    return [USER, *(m for _ in range(n) for m in pair), {"role": "assistant", "content": "done"}]


def _numbers(chars: int) -> str:
    return " ".join(str(i) for i in range(chars // 6))[:chars]


AGENT = [
    Case(
        "honest_wrong",
        _agent(lambda: [USER, *WRONG_CANCEL, {"role": "assistant", "content": "Cancelled."}]),
    ),
    Case("steps_1e5_calls", _agent(lambda: _many_calls(100_000)), check="too_costly"),
    Case(
        "steps_3e5_user_messages",
        _agent(
            lambda: (
                [{"role": "user", "content": "x"}] * 300_000
                + [{"role": "assistant", "content": "Cancelled."}]
            )
        ),
    ),
    Case(
        "steps_2e5_assistant_text_turns",
        _agent(
            lambda: (
                [USER, *WRONG_CANCEL] + [{"role": "assistant", "content": "Cancelled."}] * 200_000
            )
        ),
    ),
    Case(
        "arguments_50MB",
        _agent(
            lambda: [
                USER,
                *_call(
                    0, "cancel_order", json.dumps({"order_id": "W1001", "reason": "x" * 50_000_000})
                ),
                {"role": "assistant", "content": "ok"},
            ]
        ),
        check="too_costly",
    ),
    Case(
        "arguments_nested_1e4_text",
        _agent(
            lambda: [
                USER,
                *_call(0, "cancel_order", '{"order_id": ' + "[" * 10_000 + "]" * 10_000 + "}"),
                {"role": "assistant", "content": "Cancelled."},
            ]
        ),
    ),
    Case(
        "tool_name_20MB",
        _agent(
            lambda: [USER, *_call(0, "g" * 20_000_000), {"role": "assistant", "content": "done"}]
        ),
        check="too_costly",
    ),
    Case(
        "tool_call_id_20MB",
        _agent(
            lambda: [
                USER,
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c" * 20_000_000,
                            "type": "function",
                            "function": {"name": "get_order", "arguments": '{"order_id": "W1001"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c" * 20_000_000, "content": "ok"},
                {"role": "assistant", "content": "done"},
            ]
        ),
    ),
    Case("one_message_3e4_calls", _agent(lambda: _one_message_calls(30_000)), check="too_costly"),
    Case(
        "3e4_results_without_ids",
        _agent(lambda: _one_message_calls(30_000, answered=False)),
        check="too_costly",
    ),
    Case("anthropic_3e4_tool_use", _agent(lambda: _anthropic(30_000)), check="too_costly"),
    Case("legacy_3e4_function_calls", _agent(lambda: _legacy(30_000)), check="too_costly"),
    Case(
        "content_1e5_parts",
        _agent(
            lambda: [
                USER,
                *WRONG_CANCEL,
                {"role": "assistant", "content": [{"type": "text", "text": "a"}] * 100_000},
            ]
        ),
    ),
    Case(
        "final_text_2MB_of_figures",
        _agent(
            lambda: [USER, *WRONG_CANCEL, {"role": "assistant", "content": _numbers(2_000_000)}]
        ),
    ),
    Case(
        "hermes_2e5_blocks_in_a_step",
        _agent(lambda: [USER, {"role": "assistant", "content": HERMES * 200_000}]),
        check="too_costly",
    ),
    Case(
        "unterminated_tool_call_tags_in_a_step",
        _agent(lambda: [USER, {"role": "assistant", "content": "<tool_call>{" * 1_000_000}]),
    ),
    Case("text_1e4_tool_call_blocks", text((HERMES * 10_000)[:999_000]), check="too_costly"),
    Case("text_unterminated_tool_call_tags", text("<tool_call>" * 80_000)),
    Case("text_nested_tool_call_tags", text("<tool_call>" * 40_000 + "</tool_call>" * 40_000)),
    Case(
        "text_3e4_python_calls",
        text("[" + ", ".join(['get_order(order_id="W1001")'] * 30_000) + "]"),
        check="too_costly",
    ),
    Case(
        "text_python_call_nested_1e5",
        text("get_order(order_id=" + "[" * 100_000 + "]" * 100_000 + ")"),
    ),
    Case("text_json_nested_4e5", text("[" * 400_000 + "]" * 400_000)),
    Case(
        "text_python_call_900k_argument",
        text("cancel_order(order_id='W1001', reason='" + "x" * 900_000 + "')"),
        check="too_costly",
    ),
]


@pytest.fixture(scope="module")
def agent_results() -> dict[str, Result]:
    return score("agent", AGENT_REF, AGENT)


@pytest.mark.parametrize("case", params(AGENT[1:]))
def test_agent(agent_results: dict[str, Result], case: Case) -> None:
    check(case, agent_results[case.id], agent_results["honest_wrong"])


# --- code ----------------------------------------------------------------------------------

CODE_REF = {
    "entry_point": "add",
    "tests": "def check(candidate):\n    assert candidate(1, 2) == 3\n"
    "    assert candidate(5, 7) == 12\n",
}
CODE_STDIO = {"stdio": [{"stdin": "1 2\n", "stdout": "3\n"}]}
CODE_CALLS = {"entry_point": "add", "test_cases": [{"args": [1, 2], "expected": 3}]}
WRONG_ADD = "```python\ndef add(a, b):\n    return a - b\n```"


def _add(body: str) -> Callable[[], tuple[Any, Any]]:
    return text("def add(a, b):\n" + body)


CODE = [
    Case("honest_wrong", text(WRONG_ADD)),
    Case("response_5MB", text(lambda: "x" * 5_000_000)),
    Case("fenced_blocks_1e4", text(WRONG_ADD + ("\n" + WRONG_ADD) * 9_999)),
    Case(
        "unterminated_fence_900k",
        text(lambda: "```python\ndef add(a, b):\n    return a - b\n" + "# pad\n" * 150_000),
    ),
    Case("unclosed_openers_9e4", text("```python\n" * 90_000)),
    Case(
        "giant_line_sum_2e5_terms",
        text(lambda: "def add(a, b):\n    return a - b + " + "+".join(["1"] * 200_000) + "\n"),
    ),
    Case(
        "giant_comment_line_990k",
        text(lambda: "def add(a, b):\n    return a - b  # " + "x" * 990_000 + "\n"),
    ),
    Case(
        "nested_parentheses_5e3",
        text("def add(a, b):\n    return " + "(" * 5_000 + "a-b" + ")" * 5_000 + "\n"),
    ),
    Case(
        "nested_lists_9e4",
        text("def add(a, b):\n    x = " + "[" * 90_000 + "]" * 90_000 + "\n    return a - b\n"),
    ),
    Case(
        "prints_100MB",
        _add("    import sys\n    sys.stdout.write('x' * 100_000_000)\n    return a - b\n"),
    ),
    Case(
        "stdio_prints_100MB",
        text("import sys\nsys.stdout.write('3\\n' + 'x' * 100_000_000)\n"),
        reference=CODE_STDIO,
        check="resources",
    ),
    Case(
        "stderr_100MB",
        _add("    import sys\n    sys.stderr.write('x' * 100_000_000)\n    return a - b\n"),
    ),
    Case("returns_5e7_list", _add("    return [0] * 50_000_000\n"), check="resources"),
    Case(
        "returns_nested_1e5",
        _add("    x = []\n    for _ in range(100000):\n        x = [x]\n    return x\n"),
    ),
    Case("returns_7_pow_3e6", _add("    return 7 ** 3_000_000\n")),
    Case("returns_200MB_str", _add("    return 'x' * 200_000_000\n")),
    Case("returns_3e6_sets", _add("    return [set() for _ in range(3_000_000)]\n")),
    Case("raises_100MB_message", _add("    raise ValueError('x' * 100_000_000)\n")),
    Case(
        "repr_100MB",
        text(
            "class R:\n    def __repr__(self):\n        return 'x' * 100_000_000\n"
            "def add(a, b):\n    return R()\n"
        ),
    ),
    Case("call_returns_5e7_list", _add("    return [0] * 50_000_000\n"), reference=CODE_CALLS),
    Case(
        "call_returns_nested_1e5",
        _add("    x = []\n    for _ in range(100000):\n        x = [x]\n    return x\n"),
        reference=CODE_CALLS,
    ),
    Case(
        "steps_code_nested_parentheses",
        lambda: (
            WRONG_ADD,
            [
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "content": "```python\nx = " + "(" * 100_000 + ")" * 100_000 + "\n```",
                },
            ],
        ),
    ),
]


@pytest.fixture(scope="module")
def code_results() -> dict[str, Result]:
    return score("code", CODE_REF, CODE)


@pytest.mark.parametrize("case", params(CODE[1:]))
def test_code(code_results: dict[str, Result], case: Case) -> None:
    check(case, code_results[case.id], code_results["honest_wrong"])


DEEP_ARGUMENTS = '{"code": ' + "[" * 1_100 + "]" * 1_100 + "}"
DEEP_CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "t1",
            "type": "function",
            "function": {"name": "python", "arguments": DEEP_ARGUMENTS},
        }
    ],
}
DEEP_RESULT = {"role": "tool", "tool_call_id": "t1", "content": "ok"}
CODE_DEEP = [
    Case(
        "steps_arguments_nested_1100",
        lambda: (WRONG_ADD, [{"role": "user", "content": "x"}, DEEP_CALL, DEEP_RESULT]),
    ),
    Case(
        "chat_response_arguments_nested_1100",
        lambda: ([DEEP_CALL, DEEP_RESULT, {"role": "assistant", "content": WRONG_ADD}], None),
    ),
    Case(
        "steps_arguments_nested_1100_with_timeout",
        lambda: (WRONG_ADD, [{"role": "user", "content": "x"}, DEEP_CALL, DEEP_RESULT]),
        extra={"timeout_s": 60},
    ),
]


@pytest.mark.parametrize("case", params(CODE_DEEP))
def test_code_trajectory_arguments_nested_past_the_decoder(
    code_results: dict[str, Result], case: Case
) -> None:
    """Each alone: today the first two raise out of the scorer, which would end a shared one."""
    results = score("code", CODE_REF, [case], **case.extra)
    check(case, results[case.id], code_results["honest_wrong"])


# --- math ----------------------------------------------------------------------------------

MATH_REF = {"answer": "\\frac{1}{2}"}


def _boxed(body: str) -> Callable[[], tuple[Any, Any]]:
    return text("\\boxed{" + body + "}")


MATH = [
    Case("honest_wrong", text("The answer is \\boxed{\\frac{1}{3}}")),
    Case("digits_990k", _boxed("9" * 990_000), check="too_costly"),
    Case("nested_parentheses_1e5", _boxed("(" * 100_000 + "1" + ")" * 100_000), check="too_costly"),
    Case("nested_frac_1e4", _boxed("\\frac{1}{" * 10_000 + "2" + "}" * 10_000), check="too_costly"),
    Case(
        "left_right_1e4", _boxed("\\left(" * 10_000 + "1" + "\\right)" * 10_000), check="too_costly"
    ),
    Case("nested_sqrt_5e3", _boxed("\\sqrt{" * 5_000 + "2" + "}" * 5_000), check="too_costly"),
    Case("tower_9_9_9_9_braced", _boxed("9^{9^{9^{9}}}"), check="too_costly"),
    Case("tower_9^9^9^9", _boxed("9^9^9^9")),
    Case("power_10^10^10", _boxed("10^{10^{10}}"), check="too_costly"),
    Case("factorial_of_10^10", _boxed("(10^{10})!"), check="too_costly"),
    Case("factorial_100000!!!", _boxed("100000!!!"), check="too_costly"),
    Case("float_1e999999999", _boxed("1e999999999"), check="too_costly"),
    Case("decimal_900k_digits", _boxed("0." + "5" * 900_000), check="too_costly"),
    Case("boxed_1e5_times", text("\\boxed{1} " * 100_000)),
    Case("boxed_nested_1e5", text("\\boxed{" * 100_000 + "}" * 100_000), check="too_costly"),
    Case("boxed_unclosed_1e5", text(("\\boxed{" * 141_000)[:990_000])),
    Case(
        "matrix_300x300",
        _boxed(
            "\\begin{pmatrix}"
            + "\\\\".join("&".join("x" for _ in range(300)) for _ in range(300))
            + "\\end{pmatrix}"
        ),
        check="too_costly",
    ),
    Case(
        "matrix_4x4_symbolic_inverse",
        _boxed("\\begin{pmatrix}a&b&c&d\\\\e&f&g&h\\\\i&j&k&l\\\\m&n&o&p\\end{pmatrix}^{-1}"),
        check="too_costly",
    ),
    Case(
        "sum_5e4_terms", _boxed("+".join(f"x^{{{i}}}" for i in range(50_000))), check="too_costly"
    ),
    Case(
        "set_1e5_elements",
        _boxed("\\{" + ",".join(str(i) for i in range(100_000)) + "\\}"),
        check="too_costly",
    ),
    Case(
        "interval_union_2e4",
        _boxed("\\cup".join(f"[{i},{i + 1}]" for i in range(20_000))),
        check="too_costly",
    ),
    Case("sum_to_10^9", _boxed("\\sum_{k=1}^{10^{9}} \\frac{1}{k^2}"), check="too_costly"),
    Case("binomial_10^6", _boxed("\\binom{10^{6}}{500000}"), check="too_costly"),
    Case("gamma_10^7", _boxed("\\Gamma(10^{7})"), check="too_costly"),
    Case("exp_tower_e5", _boxed("e^{e^{e^{e^{e}}}}")),
    Case("json_answer_nested_4e5", text('{"answer": ' + "[" * 400_000 + "]" * 400_000 + "}")),
    Case("digits_and_commas_990k", text("1," * 495_000)),
    Case("dollars_1e6", text("$" * 990_000)),
    Case("backslashes_1e6", text("\\" * 990_000)),
    Case("numbers_1.5e5_in_text", text(" ".join(str(i) for i in range(150_000)))),
    Case("lone_surrogates", text("\\boxed{\ud800\udfff\ud800}" * 1_000)),
]


@pytest.fixture(scope="module")
def math_results() -> dict[str, Result]:
    return score("math", MATH_REF, MATH)


@pytest.mark.parametrize("case", params(MATH[1:]))
def test_math(math_results: dict[str, Result], case: Case) -> None:
    check(case, math_results[case.id], math_results["honest_wrong"])


# --- finance -------------------------------------------------------------------------------

FINANCE_REF = {
    "document": "statements/harbor-2024.pdf",
    "scale": "thousand",
    "unit": "USD",
    "question": "By how much did revenue change from 2023 to 2024?",
    "answer": "-24175",
}


def _fields_reference() -> Any:
    with (ROOT / "fixtures" / "finance" / "cases.jsonl").open() as lines:
        return json.loads(lines.readline())["reference"]


FIELDS_REF = _fields_reference()
N = 990_000
FINANCE = [
    Case("honest_wrong", text("Answer: +24,175")),
    Case("digits_990k", text("Answer: " + "9" * N), check="too_costly"),
    Case("digit_groups_990k", text("Answer: " + ("123," * (N // 4))[:N]), check="too_costly"),
    Case("digits_and_commas_990k", text("Answer: " + ("1," * (N // 2))[:N])),
    Case("digits_and_spaces_990k", text("Answer: " + ("1 " * (N // 2))[:N])),
    Case("digits_and_dots_990k", text(("1." * (N // 2))[:N])),
    Case("dollars_990k", text("$" * N)),
    Case("parentheses_5e5_around_the_figure", text("(" * (N // 2) + "24,175" + ")" * (N // 2))),
    Case(
        "markdown_table_4e4_rows",
        text("| a | b | c |\n|---|---|---|\n" + "| 1,000 | 2,000 | 3,000 |\n" * 40_000),
    ),
    Case("json_answer_nested_4e5", text('{"answer": ' + "[" * 400_000 + "]" * 400_000 + "}")),
    Case("json_6e4_keys", text("{" + ",".join(f'"k{i}": "{i},000"' for i in range(60_000)) + "}")),
    Case("answer_label_1e5_times", text("Answer: " * (N // 8))),
    Case("dates_9e4", text(("12/31/2024 " * (N // 11))[:N])),
    Case("boxed_9e4_times", text("\\boxed{1} " * 90_000)),
    Case("page_5000_digits", text('{"answer": "+24,175", "page": ' + "9" * 5_000 + "}")),
    Case(
        "evidence_900k",
        text('{"answer": "+24,175", "page": 3, "evidence": "' + "Revenue 1 " * 90_000 + '"}'),
    ),
    Case(
        "fields_value_nested_5e4",
        text('```json\n{"cash_2024": ' + '{"value": ' * 50_000 + "1" + "}" * 50_000 + "}\n```"),
        reference=FIELDS_REF,
    ),
]


@pytest.fixture(scope="module")
def finance_results() -> dict[str, Result]:
    return score("finance", FINANCE_REF, FINANCE)


@pytest.mark.parametrize("case", params(FINANCE[1:]))
def test_finance(finance_results: dict[str, Result], case: Case) -> None:
    check(case, finance_results[case.id], finance_results["honest_wrong"])


# --- mesh ----------------------------------------------------------------------------------


def _mesh_reference() -> Any:
    with (ROOT / "fixtures" / "mesh" / "cases.jsonl").open() as lines:
        return json.loads(lines.readline())["reference"]  # the 20 x 10 x 5 block


MESH_REF = _mesh_reference()


def _box(side: float) -> str:
    corners = [(x, y, z) for x in (0, side) for y in (0, side) for z in (0, side)]
    faces = [
        (1, 2, 4),
        (1, 4, 3),
        (5, 7, 8),
        (5, 8, 6),
        (1, 5, 6),
        (1, 6, 2),
        (3, 4, 8),
        (3, 8, 7),
        (1, 3, 7),
        (1, 7, 5),
        (2, 6, 8),
        (2, 8, 4),
    ]
    return "".join(f"v {x} {y} {z}\n" for x, y, z in corners) + "".join(
        f"f {a} {b} {c}\n" for a, b, c in faces
    )


def _glb(count: int) -> str:
    """A GLB whose accessors claim ``count`` vertices and indices over a 48-byte buffer."""
    gltf = {
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": 48}],
        "bufferViews": [
            {"buffer": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 12},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": count, "type": "VEC3"},
            {"bufferView": 1, "componentType": 5125, "count": count, "type": "SCALAR"},
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0,
    }
    chunk = json.dumps(gltf).encode()
    chunk += b" " * (-len(chunk) % 4)
    binary = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0) + struct.pack("<3I", 0, 1, 2)
    body = (
        struct.pack("<I", len(chunk))
        + b"JSON"
        + chunk
        + struct.pack("<I", len(binary))
        + b"BIN\x00"
        + binary
    )
    data = b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body
    return "```base64\n" + base64.b64encode(data).decode() + "\n```"


PLY_HEAD = "ply\nformat {} 1.0\nelement vertex 1000000000\nproperty float x\nproperty float y\n"
PLY_HEAD += (
    "property float z\nelement face {}\nproperty list uchar int vertex_indices\nend_header\n"
)
MESH = [
    Case("honest_wrong", text(_box(3))),
    Case(
        "ply_ascii_header_1e9",
        text(PLY_HEAD.format("ascii", 1_000_000_000) + "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"),
    ),
    Case("ply_binary_header_1e9", text(PLY_HEAD.format("binary_little_endian", 1) + "\0" * 100)),
    Case("off_header_1e9", text("OFF\n1000000000 1000000000 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")),
    Case("glb_accessors_1e8", text(_glb(100_000_000))),
    Case("obj_index_1e12", text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 1000000000000\n")),
    Case("obj_index_minus_1e9", text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -1000000000\n")),
    Case(
        "obj_one_polygon_4e4",
        text(
            lambda: (
                "".join(f"v {i} {i * i % 7} 0\n" for i in range(40_000))
                + "f "
                + " ".join(str(i + 1) for i in range(40_000))
                + "\n"
            )
        ),
    ),
    Case("obj_1.2e5_degenerate_faces", text("v 0 0 0\nv 0 0 0\nv 0 0 0\n" + "f 1 2 3\n" * 120_000)),
    Case("obj_nan_inf", text("v nan nan nan\nv inf 0 0\nv 0 -inf 0\nf 1 2 3\n")),
    Case(
        "obj_1e308",
        text(
            "v 1e308 0 0\nv 0 1e308 0\nv 0 0 1e308\nv 0 0 0\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n"
        ),
        check="too_costly",
    ),
    Case(
        "stl_binary_5000_zero_faces",
        text(
            "```base64\n"
            + base64.b64encode(b"\0" * 80 + struct.pack("<I", 5_000) + b"\0" * 50 * 5_000).decode()
            + "\n```"
        ),
    ),
    Case("obj_fences_4e4", text("```obj\nv 0 0 0\n```\n" * 40_000)),
    Case("backticks_then_900k", text("```" + "a" * 900_000)),
    Case("path_dev_zero", text("/dev/zero.stl")),
    Case("path_proc_self_mem", text("/proc/self/mem.obj")),
]


@pytest.fixture(scope="module")
def mesh_results() -> dict[str, Result]:
    return score("mesh", MESH_REF, MESH)


@pytest.mark.parametrize("case", params(MESH[1:]))
def test_mesh(mesh_results: dict[str, Result], case: Case) -> None:
    check(case, mesh_results[case.id], mesh_results["honest_wrong"])


# --- the record itself ---------------------------------------------------------------------

RECORDS = [
    Case("honest_wrong", text("\\boxed{1/3}")),
    Case("response_100MB", text(lambda: "1" * 100_000_000)),
    Case(
        "steps_nested_1e4",
        lambda: ("x", [{"role": "user", "content": nested(10_000)}]),
        reference=AGENT_REF,
        extra={"domain": "agent"},
    ),
    Case(
        "meta_nested_1e4",
        text("\\boxed{1/3}"),
        extra={"meta": {"m": nested(10_000)}},
        want=frozenset({"incorrect"}),
    ),
    Case(
        "prompt_nested_1e4",
        text("\\boxed{1/3}"),
        extra={"prompt": nested(10_000)},
        want=frozenset({"incorrect"}),
    ),
    Case("chat_content_nested_1e4", text([{"role": "assistant", "content": nested(10_000)}])),
    Case(
        "chat_3e5_messages",
        text(
            [{"role": "user", "content": "q"}] * 300_000
            + [{"role": "assistant", "content": "\\boxed{1/3}"}]
        ),
    ),
    Case("group_10MB", text("\\boxed{1/3}"), extra={"group": "g" * 10_000_000}),
    Case("surrogates_around_the_answer", text("\\boxed{\ud800 1/3 \udfff}")),
]


def _record_rows(cases: list[Case]) -> Iterator[RawRow]:
    for n, case in enumerate(cases):
        response, steps = case.make()
        data: dict[str, Any] = {
            "id": case.id,
            "domain": "math",
            "reference": case.reference or MATH_REF,
            "response": response,
            **case.extra,
        }
        if steps is not None:
            data["steps"] = steps
        yield RawRow(n, data)


@pytest.fixture(scope="module")
def record_results() -> dict[str, Result]:
    with Scorer(ScoreOptions(workers=2)) as scorer:
        return {r.id: r for r in scorer.score_rows(_record_rows(RECORDS))}


@pytest.mark.parametrize("case", params(RECORDS[1:]))
def test_records(record_results: dict[str, Result], case: Case) -> None:
    check(case, record_results[case.id], record_results["honest_wrong"])


FILE_LINES = {
    "honest_wrong": json.dumps(
        {"id": "honest_wrong", "domain": "math", "reference": MATH_REF, "response": "\\boxed{1/3}"}
    ),
    "line_100MB": json.dumps(
        {"id": "line_100MB", "domain": "math", "reference": MATH_REF, "response": "1" * 100_000_000}
    ),
    "line_surrogate_escape": '{"id": "line_surrogate_escape", "domain": "math", "reference": '
    '{"answer": "\\\\frac{1}{2}"}, "response": "\\\\boxed{1/3} \\ud800"}',
    "line_steps_nested_2000": '{"id": "line_steps_nested_2000", "domain": "agent", "reference": '
    + json.dumps(AGENT_REF)
    + ', "response": "Cancelled.", "steps": [{"role": "user", '
    '"content": ' + "[" * 2_000 + "]" * 2_000 + "}]}",
}
FILE_CASES = [
    Case("line_100MB", text("")),
    Case("line_surrogate_escape", text("")),
    Case(
        "line_steps_nested_2000",
        text(""),
    ),
]


@pytest.fixture(scope="module")
def file_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    path = tmp_path_factory.mktemp("lines") / "rows.jsonl"
    path.write_text("".join(line + "\n" for line in FILE_LINES.values()))
    with Scorer(ScoreOptions(workers=2)) as scorer:
        results = list(scorer.score_rows(read_rows(path)))
    return dict(zip(FILE_LINES, results, strict=True))


@pytest.mark.parametrize("case", params(FILE_CASES))
def test_rows_read_from_a_file(file_results: dict[str, Result], case: Case) -> None:
    check(case, file_results[case.id], file_results["honest_wrong"])
