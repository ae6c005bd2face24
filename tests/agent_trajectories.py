"""Agent trajectories for the labelled case tables: tool calls run on a fresh environment while
the trajectory is built (a call its schema refuses gets the error an API sends back), written
in OpenAI, Anthropic or Hermes form."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from assay.domains.agent.envs.calendar import CalendarEnv
from assay.domains.agent.envs.files import FilesEnv
from assay.domains.agent.envs.retail import RetailEnv

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer
from assay.types import Result

ENVS: dict[str, Any] = {"retail": RetailEnv, "calendar": CalendarEnv, "filesystem": FilesEnv}


@dataclass
class Call:
    """One tool call: its arguments, how they are written, and a forced result if any."""

    name: str
    args: dict[str, Any]
    raw: str | None = None  # the arguments string as the model wrote it
    decoded: bool = False  # arguments given as an object, not a JSON string
    error: str | None = None  # the API's error for a call its schema refuses


def call(name: str, /, _raw: str | None = None, _decoded: bool = False,
         _error: str | None = None, **args: Any) -> Call:  # fmt: skip
    return Call(name, args, _raw, _decoded, _error)


@dataclass
class User:
    text: str


@dataclass
class Case:
    id: str
    label: str
    reason: str
    env: str
    prompt: str
    turns: list[Any]
    reference: dict[str, Any]
    system: str | None = None
    score: float | None = None  # the docs' score for a partial label
    form: str = "openai"  # "openai", "anthropic" or "hermes"
    steps: list[dict[str, Any]] | None = None  # a hand-written trajectory (other forms)


def run_tool(instance: Any, c: Call) -> str:
    """The tool message's content: the environment's result, or its error."""
    if c.error is not None:
        return f"Error: {c.error}"
    try:
        return json.dumps(getattr(instance, c.name)(**c.args))
    except Exception as exc:  # ToolError
        return f"Error: {exc}"


def _openai_turn(calls: list[Call], results: list[str], n: int) -> list[dict[str, Any]]:
    tool_calls, messages = [], []
    for k, (c, result) in enumerate(zip(calls, results, strict=True), start=n):
        arguments: Any = (
            c.args if c.decoded else (c.raw if c.raw is not None else json.dumps(c.args))
        )
        tool_calls.append({"id": f"call_{k}", "type": "function",
                           "function": {"name": c.name, "arguments": arguments}})  # fmt: skip
        messages.append({"role": "tool", "tool_call_id": f"call_{k}", "content": result})
    return [{"role": "assistant", "content": None, "tool_calls": tool_calls}, *messages]


def _anthropic_turn(calls: list[Call], results: list[str], n: int) -> list[dict[str, Any]]:
    uses = [{"type": "tool_use", "id": f"toolu_{k:02d}", "name": c.name, "input": c.args}
            for k, c in enumerate(calls, start=n)]  # fmt: skip
    answers = [{"type": "tool_result", "tool_use_id": f"toolu_{k:02d}", "content": result}
               for k, result in enumerate(results, start=n)]  # fmt: skip
    return [{"role": "assistant", "content": uses}, {"role": "user", "content": answers}]


def _hermes_turn(calls: list[Call], results: list[str], n: int) -> list[dict[str, Any]]:
    blocks = [f"<tool_call>\n{json.dumps({'name': c.name, 'arguments': c.args})}\n</tool_call>"
              for c in calls]  # fmt: skip
    return [{"role": "assistant", "content": "\n".join(blocks)},
            *({"role": "tool", "content": result} for result in results)]  # fmt: skip


TURN = {"openai": _openai_turn, "anthropic": _anthropic_turn, "hermes": _hermes_turn}


def build_steps(case: Case) -> list[dict[str, Any]]:
    instance = ENVS[case.env]()
    steps: list[dict[str, Any]] = []
    if case.system:
        steps.append({"role": "system", "content": case.system})
    steps.append({"role": "user", "content": case.prompt})
    n = 1
    for turn in case.turns:
        if isinstance(turn, str):
            if case.form == "anthropic":
                steps.append({"role": "assistant", "content": [{"type": "text", "text": turn}]})
            else:
                steps.append({"role": "assistant", "content": turn})
        elif isinstance(turn, User):
            steps.append({"role": "user", "content": turn.text})
        else:
            calls = turn if isinstance(turn, list) else [turn]
            results = [run_tool(instance, c) for c in calls]
            steps.extend(TURN[case.form](calls, results, n))
            n += len(calls)
    return steps


def ref(env: str, goal: list[Call] | None = None, facts: list[Any] | None = None,
        gold: int | None = None, **extra: Any) -> dict[str, Any]:  # fmt: skip
    reference: dict[str, Any] = {"env": env}
    if goal is not None:
        reference["goal"] = {"calls": [{"name": c.name, "arguments": c.args} for c in goal]}
    if facts is not None:
        reference["facts"] = facts
    if gold is not None:
        reference["gold_steps"] = gold
    reference.update(extra)
    return reference


def record(case: Case) -> dict[str, Any]:
    """The case as a record ``assay score`` reads (its trajectory as ``steps``)."""
    steps = case.steps if case.steps is not None else build_steps(case)
    return {"id": case.id, "domain": "agent", "response": "", "steps": steps,
            "reference": case.reference}  # fmt: skip


def scored(cases: Sequence[Case]) -> dict[str, Result]:
    """Each case's result, all scored in one batch by a started scorer (two workers)."""
    rows = [RawRow(i, record(c)) for i, c in enumerate(cases, start=1)]
    with Scorer(ScoreOptions(workers=2)) as scorer:
        return {r.id: r for r in scorer.score_rows(rows)}


def params(cases: Sequence[Case], xfail: Mapping[str, str]) -> list[Any]:
    """One ``pytest.param`` a case; a case in ``xfail`` is a strict expected failure."""
    out = []
    for case in cases:
        reason = xfail.get(case.id)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(case, id=case.id, marks=marks))
    return out


def check(case: Case, result: Result) -> None:
    """The verdict is the label (and, for a partial label, the docs' score)."""
    got, message = result.status.value, result.verdict.message
    assert got == case.label, f"{case.id}: assay {got} {result.score} ({message}); {case.reason}"
    if case.score is not None:
        assert result.score == pytest.approx(case.score, abs=0.01), message


ToolCall = tuple[str, dict[str, Any]]
"""A call as (name, arguments), for the short attack tables."""


def openai_steps(env: str, prompt: str, turns: list[Any]) -> list[dict[str, Any]]:
    """An OpenAI-style trajectory of text turns and (name, arguments) calls, each call run in
    turn on one fresh environment (a tool the environment lacks gets an API's error)."""
    instance = ENVS[env]()
    out: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    for n, turn in enumerate(turns):
        if isinstance(turn, str):
            out.append({"role": "assistant", "content": turn})
            continue
        name, arguments = turn
        try:
            result = json.dumps(getattr(instance, name)(**arguments))
        except AttributeError:
            result = f"Error: unknown tool '{name}'"
        except Exception as exc:  # the environment's ToolError
            result = f"Error: {exc}"
        function = {"name": name, "arguments": json.dumps(arguments)}
        tool_call = {"id": f"c{n}", "type": "function", "function": function}
        out.append({"role": "assistant", "content": None, "tool_calls": [tool_call]})
        out.append({"role": "tool", "tool_call_id": f"c{n}", "content": result})
    return out


def reference_of(
    env: str, calls: list[ToolCall] | None, facts: list[Any] | None, gold: int
) -> dict[str, Any]:
    """A task on ``env``: the goal state its ``calls`` reach, its ``facts``, its gold steps."""
    reference: dict[str, Any] = {"env": env, "gold_steps": gold}
    if calls is not None:
        reference["goal"] = {"calls": [{"name": n, "arguments": a} for n, a in calls]}
    if facts is not None:
        reference["facts"] = facts
    return reference
