"""BFCL multi-turn replay on BFCL's own environments and data (bfcl-eval), against BFCL's checker.

A slice of multi_turn_base (8 entries covering every environment class): the ground truth
replays to correct, and for each perturbation (a skipped call, a changed argument, an extra
state-changing call) assay's verdict is BFCL's own ``multi_turn_checker``'s. Then hostile calls:
nothing the response writes is evaluated, private names are never reached, absurd arguments are
the response's fault, and MathAPI's global precision does not leak into the worker.
"""

from __future__ import annotations

import copy
import importlib.resources
import inspect
import itertools
import json
import os
from typing import Any

import mpmath
import pytest
from assay.domains.agent.bfcl_multi_turn import verify_multi_turn
from assay.domains.agent.envs.bfcl import BfclWorld, Scenario, bfcl_class, parse_call_text
from assay.domains.agent.verifier import AgentVerifier
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

from assay.boundary import run_verifier
from assay.types import Record, Verdict

DATA = importlib.resources.files("bfcl_eval") / "data"
# one entry per class pairing: files+twitter, files+ticket, files+math, vehicle+math,
# trading, trading+ticket, travel, message+travel
SLICE = (0, 2, 15, 57, 100, 102, 150, 154)
_RUN = itertools.count()


def _entries() -> dict[int, dict[str, Any]]:
    rows = (DATA / "BFCL_v4_multi_turn_base.json").read_text().splitlines()
    answers = (DATA / "possible_answer" / "BFCL_v4_multi_turn_base.json").read_text()
    gold = {a["id"]: a["ground_truth"] for a in map(json.loads, answers.splitlines())}
    out = {}
    for number in SLICE:
        row = json.loads(rows[number])
        out[number] = {
            "id": row["id"], "involved_classes": row["involved_classes"],
            "initial_config": row["initial_config"], "ground_truth": gold[row["id"]],
        }  # fmt: skip
    return out


ENTRIES = _entries()
EXTRA = {  # a state-changing call (refused where the task never logs in: BFCL passes those)
    "GorillaFileSystem": "touch(file_name='assay_extra.txt')",
    "VehicleControlAPI": "adjustClimateControl(temperature=30.0, unit='celsius', fanSpeed=50, "
    "mode='auto')",
    "TradingBot": "add_to_watchlist(stock='AAPL')",
    "TravelAPI": "set_budget_limit(access_token='abc123token', budget_limit=1.0)",
}


def _verify(entry: dict[str, Any], turns: list[list[str]]) -> Verdict:
    response = json.dumps([[calls] if calls else [] for calls in turns])
    return run_verifier(AgentVerifier(), Record(entry["id"], "agent", response, entry)).verdict


def _bfcl(entry: dict[str, Any], turns: list[list[str]]) -> bool:
    decoded = [[calls] if calls else [] for calls in turns]
    meta = {k: entry[k] for k in ("id", "involved_classes", "initial_config")}
    model = f"assay_test_{next(_RUN)}"  # BFCL keeps instances in module globals by model name
    return bool(multi_turn_checker(decoded, entry["ground_truth"], meta, "base", model)["valid"])


def _changed(value: Any) -> Any:
    if isinstance(value, str):
        return value + "_x"
    if isinstance(value, list):
        return [*value[:-1], value[-1] + 1]
    return value + 1


def _perturbed(entry: dict[str, Any], kind: str) -> list[list[str]]:
    turns = copy.deepcopy(entry["ground_truth"])
    last = max(t for t, calls in enumerate(turns) if calls)
    if kind == "skip":
        turns[last].pop()
    elif kind == "wrong_arg":  # the last gold call with an argument
        t, i = next(
            (t, i)
            for t in reversed(range(len(turns)))
            for i in reversed(range(len(turns[t])))
            if "()" not in turns[t][i]
        )
        call = parse_call_text(turns[t][i])
        key, value = next(iter(call.kwargs.items())) if call.kwargs else (0, call.args[0])
        new = _changed(value)
        kwargs = {**call.kwargs, key: new} if call.kwargs else {}
        args = call.args if call.kwargs else (new, *call.args[1:])
        turns[t][i] = type(call)(call.name, args, kwargs).text()
    else:
        extra = next(EXTRA[c] for c in entry["involved_classes"] if c in EXTRA)
        turns[last].append(extra)
    return turns


@pytest.mark.parametrize("number", SLICE, ids=[f"base_{n}" for n in SLICE])
def test_ground_truth_replays_to_correct(number: int) -> None:
    # BFCL's own gold must pass its own checker, and assay's
    entry = ENTRIES[number]
    verdict = _verify(entry, entry["ground_truth"])
    assert verdict.status.value == "correct", verdict.message
    assert [c.name for c in verdict.checks] == ["turns", "state", "results"]


@pytest.mark.parametrize("kind", ["skip", "wrong_arg", "extra"])
@pytest.mark.parametrize("number", SLICE, ids=[f"base_{n}" for n in SLICE])
def test_perturbation_judged_as_bfcl_judges(number: int, kind: str) -> None:
    # the last gold call skipped / its first argument changed / a state change added at the end
    entry = ENTRIES[number]
    turns = _perturbed(entry, kind)
    verdict = _verify(entry, turns)
    assert (verdict.status.value == "correct") == _bfcl(entry, turns), (turns, verdict.message)


def test_most_perturbations_fail() -> None:
    # a checker that passes everything would agree with a lax BFCL on nothing: most must fail
    failed = sum(
        _verify(ENTRIES[n], _perturbed(ENTRIES[n], kind)).status.value == "incorrect"
        for n in SLICE
        for kind in ("skip", "wrong_arg", "extra")
    )
    assert failed >= 22, failed  # 23 of 24 today


def _steps(entry: dict[str, Any], turns: list[list[tuple[str, dict[str, Any]]]]) -> list[Any]:
    """OpenAI messages: a user message per turn, one assistant message with its calls."""
    messages: list[dict[str, Any]] = []
    ids = itertools.count()
    for number, calls in enumerate(turns):
        messages.append({"role": "user", "content": f"turn {number}"})
        if not calls:
            messages.append({"role": "assistant", "content": "Nothing to do."})
            continue
        tool_calls = [
            {"id": f"c{next(ids)}", "type": "function",
             "function": {"name": name, "arguments": json.dumps(arguments)}}
            for name, arguments in calls
        ]  # fmt: skip
        messages.append({"role": "assistant", "content": None, "tool_calls": tool_calls})
        messages += [
            {"role": "tool", "tool_call_id": c["id"], "content": "recorded, not trusted"}
            for c in tool_calls
        ]
    return messages


def _named(entry: dict[str, Any]) -> list[list[tuple[str, dict[str, Any]]]]:
    """The gold calls with their positional arguments named, as a chat model sends them."""
    out = []
    for calls in entry["ground_truth"]:
        turn = []
        for text in calls:
            call = parse_call_text(text)
            cls = next(
                bfcl_class(c)
                for c in entry["involved_classes"]
                if hasattr(bfcl_class(c), call.name)
            )
            bound = inspect.signature(getattr(cls, call.name)).bind(None, *call.args, **call.kwargs)
            turn.append((call.name, {k: v for k, v in bound.arguments.items() if k != "self"}))
        out.append(turn)
    return out


def _record(entry: dict[str, Any], steps: list[Any]) -> Record:
    return Record(entry["id"], "agent", "", entry, steps=tuple(steps))


def test_openai_steps_replay_to_correct_and_turns_are_split_by_user_messages() -> None:
    # the same gold, as a chat trajectory; moving a call into the next turn fails that turn
    entry = ENTRIES[0]
    named = _named(entry)
    verdict = run_verifier(AgentVerifier(), _record(entry, _steps(entry, named))).verdict
    assert verdict.status.value == "correct", verdict.message
    assert [s.evidence["turn"] for s in verdict.steps] == [0, 1, 2, 3]
    late = copy.deepcopy(named)
    late[1].append(late[0].pop())  # mv done one turn late: turn 0's state is not the gold's
    verdict = run_verifier(AgentVerifier(), _record(entry, _steps(entry, late))).verdict
    assert verdict.status.value == "incorrect"
    assert verdict.checks[-1].name == "state" and verdict.checks[-1].evidence["turn"] == 0
    assert [s.evidence["useful_call"] for s in verdict.steps] == [False] * 4


def test_turn_count_must_match() -> None:
    # BFCL: a result with fewer turns than the task was force-terminated
    entry = ENTRIES[0]
    verdict = _verify(entry, entry["ground_truth"][:-1])
    assert verdict.status.value == "incorrect" and verdict.checks[0].name == "turns"


MARKER = "/tmp/assay-bfcl-pwned"
HOSTILE = [
    ("__import__('os').system('touch /tmp/assay-bfcl-pwned')", "call_safety"),
    ("_load_scenario({'root': {}})", "call_safety"),
    ("__init__()", "call_safety"),
    ("cd(folder=open('/etc/passwd').read())", "call_safety"),
    ("cd(**{'folder': 'document'})", "call_safety"),
    ("GorillaFileSystem.cd(folder='document')", "call_safety"),
    ("cd(folder='document'); __import__('os')", "call_safety"),
]


@pytest.mark.parametrize(("text", "check"), HOSTILE, ids=[h[0][:30] for h in HOSTILE])
def test_hostile_call_text_is_never_run(text: str, check: str) -> None:
    # code in the call text, private methods, non-literal arguments: incorrect, and not run
    entry = ENTRIES[0]
    turns = copy.deepcopy(entry["ground_truth"])
    turns[0].insert(0, text)
    verdict = _verify(entry, turns)
    assert verdict.status.value == "incorrect", verdict.message
    assert verdict.checks[-1].name == check
    assert not os.path.exists(MARKER)


@pytest.mark.parametrize("name", ["_load_scenario", "__class__", "__init__", "__eq__"])
def test_private_tool_name_in_a_chat_trajectory(name: str) -> None:
    # an OpenAI tool call naming a private method of an environment class
    entry = ENTRIES[0]
    named = _named(entry)
    named[0].insert(0, (name, {}))
    verdict = run_verifier(AgentVerifier(), _record(entry, _steps(entry, named))).verdict
    assert verdict.status.value == "incorrect" and verdict.checks[-1].name == "call_safety"


@pytest.mark.parametrize(
    "text",
    ["eval(source='1')", "exec(source='x=1')", "post_tweet(content='x')", "ls(a=True, b=2)"],
    ids=["eval", "exec", "class-not-involved", "bad-signature"],
)
def test_unknown_function_is_an_error_result_not_a_call(text: str) -> None:
    # BFCL's harness answers an unknown function with an error; the turn still has to pass
    world = BfclWorld(Scenario(("GorillaFileSystem",), ENTRIES[0]["initial_config"]))
    assert world.run(parse_call_text(text)).startswith("Error during execution: ")


COSTLY = [
    "power(base=10, exponent=100000000)",
    "logarithm(value=2.0, base=10.0, precision=1000000000)",
    "square_root(number=2.0, precision=1000000000)",
    "mean(numbers=[" + "9" * 5000 + "])",
]


@pytest.mark.parametrize("text", COSTLY, ids=["power", "log-precision", "sqrt-precision", "bigint"])
def test_absurd_arguments_are_the_responses_fault(text: str) -> None:
    # too costly to run: incorrect with a failed too_costly check, never a masked timeout
    entry = ENTRIES[15]  # GorillaFileSystem + MathAPI
    turns = copy.deepcopy(entry["ground_truth"])
    turns[-1].insert(0, text)
    verdict = _verify(entry, turns)
    assert verdict.status.value == "incorrect", verdict.message
    assert any(c.name == "too_costly" and not c.passed for c in verdict.checks)


NESTED = [
    "cd(folder=" + "-" * 5_000 + "1)",  # the parser's recursion limit
    "cd(folder=" + "-" * 50_000 + "1)",  # the parser's memory error
    "cd(folder=" + "(" * 300 + "1" + ")" * 300 + ")",  # too many nested parentheses
]


@pytest.mark.parametrize("text", NESTED, ids=["recursion", "parser-memory", "parentheses"])
def test_call_text_nested_past_the_parser_is_the_responses_fault(text: str) -> None:
    # the parser gives up on it: not a call, so the turn fails (incorrect), never a masked error
    entry = ENTRIES[0]
    turns = copy.deepcopy(entry["ground_truth"])
    turns[0].insert(0, text)
    verdict = _verify(entry, turns)
    assert verdict.status.value == "incorrect", verdict.message
    assert verdict.score == 0.0


def test_math_precision_does_not_leak_into_the_worker() -> None:
    # MathAPI sets mpmath.mp.dps and the decimal precision globally; both are restored
    import decimal

    dps, prec = mpmath.mp.dps, decimal.getcontext().prec
    world = BfclWorld(Scenario(("MathAPI",), {}))
    assert "mpf" in world.run(parse_call_text("logarithm(value=8.0, base=2.0, precision=60)"))
    world.run(parse_call_text("square_root(number=2.0, precision=80)"))
    assert (mpmath.mp.dps, decimal.getcontext().prec) == (dps, prec)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"involved_classes": ["NoSuchAPI"]}, "unknown BFCL class"),
        ({"involved_classes": []}, "involved_classes"),
        ({"ground_truth": "cd(folder='x')"}, "ground_truth"),
        ({"ground_truth": [["__import__('os')"]]}, "ground_truth turn 0"),
        ({"initial_config": []}, "initial_config"),
    ],
    ids=["unknown-class", "no-classes", "gold-not-turns", "gold-unsafe", "config-not-object"],
)
def test_malformed_task_is_an_error(change: dict[str, Any], message: str) -> None:
    # the task's fault, not the response's: a masked error that says what is wrong
    entry = ENTRIES[0] | change
    verdict = run_verifier(AgentVerifier(), Record("x", "agent", "[[]]", entry)).verdict
    assert verdict.status.value == "error" and message in (verdict.message or "")


def test_unreadable_response_is_unparsable() -> None:
    # neither steps nor BFCL's result list
    verdict = verify_multi_turn(Record("x", "agent", "I moved the file.", ENTRIES[0]))
    assert verdict.status.value == "unparsable"


def _env_reference(number: int, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    entry = ENTRIES[number]
    state = {k: entry[k] for k in ("involved_classes", "initial_config")}
    goal = [{"name": name, "arguments": arguments} for name, arguments in calls]
    return {"env": {"name": "bfcl", "state": state}, "goal": {"calls": goal}}


def _chat(calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, ...]:
    return (*tuple(_steps(ENTRIES[0], [calls])), {"role": "assistant", "content": "Done."})


FS_GOLD = [("cd", {"folder": "document"}), ("mkdir", {"dir_name": "temp"}),
           ("mv", {"source": "final_report.pdf", "destination": "temp"})]  # fmt: skip


@pytest.mark.parametrize(
    ("number", "calls", "status"),
    [
        (100, [("fund_account", {"amount": 2203.4})], "correct"),
        (100, [("fund_account", {"amount": 2203.5})], "incorrect"),  # another balance
        (0, FS_GOLD, "correct"),
        (0, FS_GOLD[:2], "incorrect"),  # the report is never moved
        (0, [*FS_GOLD, ("touch", {"file_name": "x.txt"})], "incorrect"),  # an extra file
        (
            0,
            [
                FS_GOLD[0],
                ("mkdir", {"dir_name": "tmp"}),
                ("mv", {"source": "final_report.pdf", "destination": "tmp"}),
            ],
            "incorrect",
        ),
    ],
    ids=["fund", "fund-other-amount", "fs-gold", "fs-skip-mv", "fs-extra-file", "fs-wrong-dir"],
)
def test_bfcl_as_a_replay_environment(
    number: int, calls: list[tuple[str, dict[str, Any]]], status: str
) -> None:
    # "env": "bfcl" with goal calls: the existing replay compares the final public state
    gold = FS_GOLD if number == 0 else [("fund_account", {"amount": 2203.4})]
    record = Record("x", "agent", "", _env_reference(number, gold), steps=_chat(calls))
    verdict = run_verifier(AgentVerifier(), record).verdict
    assert verdict.status.value == status, verdict.message


def test_bfcl_env_tools_and_refusals() -> None:
    # the tools are bfcl-eval's function docs; a class the task does not involve refuses
    from assay.domains.agent.envs import get_env
    from assay.verifiers.agent.environment import ToolError

    cls = get_env("bfcl")
    assert {"cd", "post_tweet", "fund_account", "logarithm", "book_flight"} <= set(cls.tools)
    assert not any(name.startswith("_") for name in cls.tools)
    env = cls(cls.base({"involved_classes": ["TradingBot"], "initial_config": {}}))
    with pytest.raises(ToolError, match="no function named cd"):
        env.call("cd", {"folder": "x"})
    with pytest.raises(ToolError, match="unknown tool"):
        env.call("_load_scenario", {})


def test_result_list_with_call_objects() -> None:
    # BFCL's decoded form {"name": {arguments}} (arguments also as JSON text) reads as calls
    entry = ENTRIES[100]
    response = json.dumps([[[{"get_stock_info": {"symbol": "NVDA"}}]],
                           [[{"fund_account": json.dumps({"amount": 2203.4})}]]])  # fmt: skip
    assert verify_multi_turn(Record("x", "agent", response, entry)).status.value == "correct"


def test_too_many_calls_is_the_responses_fault() -> None:
    # a flood of harmless calls spends the replay budget: incorrect too_costly, not a timeout
    entry = ENTRIES[0]
    turns = copy.deepcopy(entry["ground_truth"])
    turns[0] = ["pwd()"] * 1001 + turns[0]
    verdict = _verify(entry, turns)
    assert verdict.status.value == "incorrect"
    assert any(c.name == "too_costly" for c in verdict.checks)


def test_missing_bfcl_eval_is_a_masked_error_naming_the_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # without the extra, a BFCL task cannot be judged: the verifier's problem, not the response's
    import sys

    from assay.domains.agent.envs.bfcl import _bfcl_module

    monkeypatch.setitem(sys.modules, "bfcl_eval.constants.executable_backend_config", None)
    _bfcl_module.cache_clear()  # modules found before are cached
    entry = ENTRIES[0] | {"id": "multi_turn_base_0_uncached"}
    try:
        verdict = run_verifier(AgentVerifier(), Record("x", "agent", "[[]]", entry)).verdict
    finally:
        _bfcl_module.cache_clear()
    assert verdict.status.value == "error"
    assert "pip install --no-deps bfcl-eval==2026.3.23" in (verdict.message or "")
