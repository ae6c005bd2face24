"""The reference of an agent task (docs/agent.md), read into an :class:`AgentTask`.

Keys: ``tools`` (OpenAI tool list, or BFCL's ``function`` list; optional when ``env`` names an
environment, whose tools are then used), ``env`` (a name, or ``{"name", "state"}`` with a
starting state), and at least one outcome: ``expected_calls`` (BFCL style, one call set or a
list of alternative sets; ``[]`` means no tool fits the request; BFCL's ``ground_truth`` is read
too), ``goal`` (``{"calls": [...]}`` replayed on a fresh environment, or ``{"state": {...}}``),
``facts``. A BFCL row without a ground truth is read from its id (``bfcl_id``, set by the record
reader): ``..irrelevance_N`` expects no call, ``..relevance_N`` any valid call. Optional:
``gold_steps`` (default: the number of goal calls), ``call_budget`` (default ``max(2 * gold,
gold + 2)``), ``extra_calls`` (``"allow"`` / ``"forbid"``; default ``"allow"`` with an
environment), ``partial_credit`` (``true``: a call set matched in part earns its share; default:
exact), ``refusal_ok`` (a tool's refusal, reported truthfully, is an acceptable outcome),
``grounding`` (``"consistent"``, the default, ``"strict"`` or ``"off"``), ``weights``.

An expected call that can never match (a function that is not among the tools, an argument its
schema does not declare) makes the task malformed, with a message that says so."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from assay.domains.agent.envs import env_registry
from assay.domains.agent.task_cache import TaskCache
from assay.verifiers.agent.environment import Environment, ToolError, UnknownEnvironmentError
from assay.verifiers.agent.facts import Fact, parse_facts
from assay.verifiers.agent.matching import OMITTED, ExpectedCall, parse_alternatives
from assay.verifiers.agent.schema import ToolSpec, check_arguments, check_value, parse_tools
from assay.verifiers.agent.state import StateBase
from assay.verifiers.agent.trajectory import decode_arguments

from assay.errors import MalformedTaskError
from assay.types import JSON

DEFAULT_WEIGHTS: dict[str, float] = {"calls": 0.3, "state": 0.3, "facts": 0.2}
GROUNDING = ("consistent", "strict", "off")
_IRRELEVANCE_ID = re.compile(r"(?<![a-z])irrelevance_\d")
_RELEVANCE_ID = re.compile(r"(?<![a-z])relevance_\d")
_CACHE_SIZE = 2048


@dataclass(frozen=True, slots=True)
class AgentTask:
    """Everything a trajectory is judged against (see the module docstring)."""

    tools: Mapping[str, ToolSpec]
    env: type[Environment] | None = None
    env_base: StateBase | None = None
    expected: tuple[tuple[ExpectedCall, ...], ...] | None = None
    """Alternative expected call sets (``((),)``: no call fits)."""
    any_call: bool = False
    """BFCL relevance: any valid call is the outcome."""
    forbid_extra: bool = True
    partial_credit: bool = False
    refusal_ok: bool = False
    call_budget: int | None = None
    grounding: str = "consistent"
    goal_digest: str | None = None
    facts: tuple[Fact, ...] | None = None
    gold_steps: int | None = None
    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))

    def new_env(self) -> Environment | None:
        """A fresh environment instance, or ``None`` when the task has none."""
        return None if self.env is None else self.env(self.env_base)


_cache: TaskCache[AgentTask] = TaskCache(_CACHE_SIZE)


def parse_task(reference: JSON) -> AgentTask:
    """The task of a reference, cached by its canonical JSON (a GRPO group replays the gold
    calls once)."""
    if not isinstance(reference, Mapping):
        raise MalformedTaskError(
            f"agent reference must be an object, got {type(reference).__name__}"
        )
    return _cache.get(reference, _build)


def _build(reference: Mapping[str, JSON]) -> AgentTask:
    env_cls, env_state = _env(reference.get("env"))
    env_base = None if env_cls is None else env_cls.base(env_state)
    tool_key = next((k for k in ("tools", "function", "functions") if k in reference), None)
    if tool_key is not None:
        tools = parse_tools(reference[tool_key])
    elif env_cls is not None:
        tools = dict(env_cls.tool_specs())
    else:
        raise MalformedTaskError("agent reference needs 'tools' or an 'env'")
    raw_expected = reference.get("expected_calls", reference.get("ground_truth"))
    any_call = False
    bfcl_id = reference.get("bfcl_id")
    if raw_expected is None and isinstance(bfcl_id, str):
        if _IRRELEVANCE_ID.search(bfcl_id):
            raw_expected = []
        elif _RELEVANCE_ID.search(bfcl_id):
            any_call = True
    expected = None if raw_expected is None else _expected(raw_expected, tools)
    goal_digest, goal_calls = _goal(reference.get("goal"), env_cls, env_base, tools)
    facts = None if reference.get("facts") is None else tuple(parse_facts(reference["facts"]))
    if expected is None and goal_digest is None and not facts and not any_call:
        raise MalformedTaskError(
            "agent reference needs an outcome: 'expected_calls', 'goal' or 'facts'"
        )
    gold = _count(reference.get("gold_steps", goal_calls), "gold_steps")
    budget = _count(reference.get("call_budget"), "call_budget")
    # without a gold count, the expected calls set the budget (not a count to meet)
    counted = gold if gold is not None else max((len(a) for a in expected or ()), default=0)
    if budget is None and (gold is not None or expected):
        budget = max(2 * counted, counted + 2)
    grounding = reference.get("grounding", "consistent")
    if grounding not in GROUNDING:
        raise MalformedTaskError(f"grounding must be one of {GROUNDING}, got {grounding!r}")
    return AgentTask(
        any_call=any_call,
        partial_credit=_flag(reference, "partial_credit"),
        refusal_ok=_flag(reference, "refusal_ok"),
        call_budget=budget,
        grounding=str(grounding),
        tools=tools,
        env=env_cls,
        env_base=env_base,
        expected=expected,
        forbid_extra=_forbid_extra(reference.get("extra_calls"), env_cls),
        goal_digest=goal_digest,
        facts=facts,
        gold_steps=gold,
        weights=_weights(reference.get("weights")),
    )


def _count(raw: JSON, key: str) -> int | None:
    if raw is not None and (isinstance(raw, bool) or not isinstance(raw, int) or raw < 0):
        raise MalformedTaskError(f"{key} must be an integer >= 0, got {raw!r}")
    return raw


def _flag(reference: Mapping[str, JSON], key: str) -> bool:
    value = reference.get(key, False)
    if not isinstance(value, bool):
        raise MalformedTaskError(f"{key} must be true or false, got {value!r}")
    return value


def _expected(raw: JSON, tools: dict[str, ToolSpec]) -> tuple[tuple[ExpectedCall, ...], ...]:
    """Alternative call sets, each call checked to be able to match at all.

    A value the expected calls allow is never refused by the schema check: where BFCL's data
    allows a value its own schema refuses (a variable name for an array, ``null`` for an
    optional string, a value outside the enum), that argument's schema is widened in
    ``tools`` to admit exactly those values, as BFCL's checker admits them.
    """
    alternatives = parse_alternatives(raw)
    admitted: dict[tuple[str, str], list[JSON]] = {}
    for alternative in alternatives:
        for call in alternative:
            spec = tools.get(call.name)
            if spec is None:
                raise MalformedTaskError(
                    f"expected call {call.name!r} can never match: it is not among the tools "
                    f"({', '.join(sorted(tools)) or 'none'})"
                )
            required = set(call.required())
            undeclared = sorted(required - set(spec.properties))
            if undeclared and spec.properties:
                raise MalformedTaskError(
                    f"expected call {call.name!r} can never match: required argument(s) "
                    f"{', '.join(undeclared)} are not in its schema"
                )
            for arg, values in call.allowed.items():
                schema = spec.properties.get(arg)
                if not isinstance(schema, Mapping):
                    continue
                for value in values:
                    if value != OMITTED and check_value(value, schema, arg):
                        admitted.setdefault((call.name, arg), []).append(value)
    for (name, arg), extra in admitted.items():
        spec = tools[name]
        properties = dict(spec.properties)
        properties[arg] = {"anyOf": [properties[arg], {"enum": extra}]}
        parameters = {**spec.parameters, "properties": properties}
        tools[name] = ToolSpec(spec.name, parameters, spec.description)
    return tuple(alternatives)


def _env(raw: JSON) -> tuple[type[Environment] | None, Mapping[str, JSON] | None]:
    if raw is None:
        return None, None
    name, state = (raw, None) if isinstance(raw, str) else (None, None)
    if isinstance(raw, Mapping):
        name, state = raw.get("name"), raw.get("state")
    if not isinstance(name, str) or not (state is None or isinstance(state, Mapping)):
        raise MalformedTaskError("env must be a name or {'name': str, 'state': {...}}")
    try:
        return env_registry().get(name), state
    except UnknownEnvironmentError as exc:
        raise MalformedTaskError(str(exc)) from exc


def _goal(
    raw: JSON,
    env_cls: type[Environment] | None,
    env_base: StateBase | None,
    tools: Mapping[str, ToolSpec],
) -> tuple[str | None, int | None]:
    """The goal state's digest and the number of gold calls (when the goal is calls)."""
    if raw is None:
        return None, None
    if env_cls is None:
        raise MalformedTaskError("a goal needs an 'env' to replay in")
    if isinstance(raw, Mapping) and isinstance(raw.get("state"), Mapping):
        return env_cls.digest_of(raw["state"]), None
    calls = raw.get("calls") if isinstance(raw, Mapping) else None
    if not isinstance(calls, list):
        raise MalformedTaskError("goal must be {'calls': [...]} or {'state': {...}}")
    env = env_cls(env_base)
    for position, call in enumerate(calls):
        name, arguments = _gold_call(call, position)
        spec = tools.get(name)
        problems = ["not among the tools"] if spec is None else check_arguments(spec, arguments)
        if problems:
            raise MalformedTaskError(f"goal call {position} ({name}): {'; '.join(problems)}")
        try:
            env.call(name, arguments)
        except ToolError as exc:
            raise MalformedTaskError(f"goal call {position} ({name}) fails: {exc}") from exc
    return env.digest(), len(calls)


def _gold_call(call: JSON, position: int) -> tuple[str, Mapping[str, JSON]]:
    if isinstance(call, Mapping) and isinstance(call.get("function"), Mapping):
        call = call["function"]
    if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
        raise MalformedTaskError(f"goal call {position} must be {{'name', 'arguments'}}")
    arguments, problem = decode_arguments(call.get("arguments"))
    if arguments is None:
        raise MalformedTaskError(f"goal call {position}: {problem}")
    return call["name"], arguments


def _forbid_extra(raw: JSON, env_cls: type[Environment] | None) -> bool:
    if raw is None:
        return env_cls is None
    if raw not in ("allow", "forbid"):
        raise MalformedTaskError(f"extra_calls must be 'allow' or 'forbid', got {raw!r}")
    return bool(raw == "forbid")


def _weights(raw: JSON) -> dict[str, float]:
    weights = dict(DEFAULT_WEIGHTS)
    if raw is None:
        return weights
    if not isinstance(raw, Mapping):
        raise MalformedTaskError("weights must be an object")
    for key, value in raw.items():
        if key not in weights:
            raise MalformedTaskError(
                f"unknown weight {key!r}; known: {', '.join(weights)} (efficiency and recovery "
                "only lower a success and carry no weight)"
            )
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise MalformedTaskError(f"weight {key!r} must be a number >= 0")
        if not math.isfinite(value) or value < 0:
            raise MalformedTaskError(f"weight {key!r} must be a number >= 0")
        weights[key] = float(value)
    return weights
