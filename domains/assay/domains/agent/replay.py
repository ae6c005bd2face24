"""Replay a trajectory's calls on a fresh environment and judge each call.

Each call is, in order: decoded (bad JSON arguments are an invalid call, ``bad_json``), looked
up among the task's tools (``unknown_tool``), checked against its schema (``schema``), then run.
With an environment the call runs on the fresh instance and a refusal is a ``tool_error``; the
results recorded in the trajectory are not trusted. Without one, a recorded result that is a
JSON object with a true ``"error"`` key, or text starting with ``error``, is a ``tool_error``.
Invalid calls are not run (a harness would have answered them with an error).

The whole replay spends one budget (:class:`assay.blame.Budget`): at most :data:`MAX_CALLS`
calls, :data:`MAX_CALL_CHARS` characters of arguments per call, and a share of the item's hard
limit in own time, checked after every call. A trajectory that overruns it is the response's
fault (``incorrect``, failed check ``too_costly``), however many steps it took to get there.

Then per call: ``repeat`` (identical name and arguments to an earlier failing call: a loop),
``duplicate`` (identical to an earlier successful call that changed nothing), ``recovered`` (a
success of a tool after failures of that tool, or after a call to an unknown tool).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assay.domains.agent.task import AgentTask
from assay.verifiers.agent.environment import ToolError
from assay.verifiers.agent.schema import check_arguments
from assay.verifiers.agent.trajectory import ToolCall, Trajectory

from assay.blame import TOO_COSTLY, Budget, ResponseFault
from assay.types import JSON

MAX_CALLS = 1000
"""Most calls a trajectory may make; more is too costly to replay (the response's fault)."""
MAX_CALL_CHARS = 200_000
"""Longest JSON text of one call's arguments."""
MAX_RESULT_CHARS = 20_000
"""Most characters of one tool result kept as evidence for grounded claims."""


@dataclass(slots=True)
class CallOutcome:
    """What happened to one call."""

    call: ToolCall
    key: str
    error_kind: str | None = None
    error: str | None = None
    mutated: bool = False
    repeat: bool = False
    duplicate: bool = False
    recovered: bool = False
    matched: bool = False
    wrong: bool = False
    result_text: str | None = None
    fixed: bool = False
    """A failed call that a later success of the same tool made good."""
    """What the call returned (replayed with an environment, else recorded), or its refusal."""

    @property
    def failed(self) -> bool:
        return self.error_kind is not None

    @property
    def useful(self) -> bool:
        """Succeeded and did something: matched, changed state, or read something new."""
        if self.failed or self.wrong:
            return False
        return self.matched or self.mutated or not self.duplicate

    @property
    def score(self) -> float:
        if self.failed or self.wrong:
            return 0.0
        return 1.0 if self.useful else 0.5

    def to_evidence(self) -> dict[str, JSON]:
        """The call's step evidence; its id, name and error cut to :data:`EVIDENCE_CHARS`
        (a trajectory of many calls with long names must not make an output line that long)."""
        return {
            "id": _cut(self.call.id), "name": _cut(self.call.name), "valid": not self.failed,
            "useful": self.useful, "error_kind": self.error_kind, "error": _cut(self.error),
            "recovered": self.recovered, "repeat": self.repeat,
        }  # fmt: skip


EVIDENCE_CHARS = 300
"""Longest call id, tool name or error message kept in a call's step evidence."""


def _cut(text: str | None) -> str | None:
    if text is None or len(text) <= EVIDENCE_CHARS:
        return text
    return f"{text[:EVIDENCE_CHARS]}... ({len(text)} characters)"


@dataclass(frozen=True, slots=True)
class Replay:
    """Outcomes of every call in order, and the final state's digest (with an environment)."""

    outcomes: tuple[CallOutcome, ...]
    final_digest: str | None
    failures: int = 0
    recovered_failures: int = 0


def _key(call: ToolCall) -> str:
    if call.arguments is None:
        return f"{call.name}\x00<undecodable>"
    try:
        return call.name + "\x00" + json.dumps(call.arguments, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        return f"{call.name}\x00{call.arguments!r}"


def recorded_error(text: str | None) -> str | None:
    """The error a recorded tool result reports, if it reports one."""
    if text is None:
        return None
    stripped = text.strip()
    if stripped[:1] == "{":
        try:
            value = json.loads(stripped)
        except ValueError:
            value = None
        if isinstance(value, Mapping) and value.get("error"):
            return str(value["error"])[:300]
    if stripped[:5].lower() == "error":
        return stripped[:300]
    return None


def replay(task: AgentTask, trajectory: Trajectory) -> Replay:
    """Run and judge every call of ``trajectory`` (rules in the module docstring)."""
    env = task.new_env()
    outcomes: list[CallOutcome] = []
    failed_keys: set[str] = set()
    success_keys: set[str] = set()
    open_failures: dict[str, list[CallOutcome]] = {}
    failures = recovered_failures = 0
    budget = Budget("replaying the trajectory's calls", max_steps=MAX_CALLS)
    for call in trajectory.calls:
        budget.step()
        outcome = CallOutcome(call, _key(call))
        if len(outcome.key) > MAX_CALL_CHARS:
            raise ResponseFault(
                TOO_COSTLY,
                f"call {call.id!r} ({call.name}) has {len(outcome.key)} characters of arguments",
                {"characters": len(outcome.key), "limit": MAX_CALL_CHARS},
            )
        _run(task, env, call, trajectory.results.get(call.id), outcome)
        if outcome.failed:
            outcome.repeat = outcome.key in failed_keys
            failed_keys.add(outcome.key)
            slot = call.name if outcome.error_kind != "unknown_tool" else "\x00any"
            open_failures.setdefault(slot, []).append(outcome)
            failures += 1
        else:
            pending = open_failures.pop(call.name, []) + open_failures.pop("\x00any", [])
            for failed in pending:
                failed.fixed = True
            outcome.recovered = bool(pending)
            recovered_failures += len(pending)
            outcome.duplicate = not outcome.mutated and outcome.key in success_keys
            success_keys.add(outcome.key)
        outcomes.append(outcome)
    digest = None if env is None else env.digest()
    return Replay(tuple(outcomes), digest, failures, recovered_failures)


def _run(
    task: AgentTask, env: Any, call: ToolCall, recorded: str | None, outcome: CallOutcome
) -> None:
    if call.arguments is None:
        outcome.error_kind, outcome.error = "bad_json", call.problem
        return
    spec = task.tools.get(call.name)
    if spec is None:
        outcome.error_kind, outcome.error = "unknown_tool", f"no tool named {call.name!r}"
        return
    problems = check_arguments(spec, call.arguments)
    if problems:
        outcome.error_kind, outcome.error = "schema", "; ".join(problems)[:300]
        return
    if env is None:
        outcome.result_text = None if recorded is None else recorded[:MAX_RESULT_CHARS]
        error = recorded_error(recorded)
        if error is not None:
            outcome.error_kind, outcome.error = "tool_error", error
        return
    definition = env.tools.get(call.name)
    own_spec = definition is not None and definition.spec is spec  # checked above
    try:
        returned = env.call(call.name, call.arguments, checked=own_spec)
    except ToolError as exc:
        outcome.error_kind, outcome.error = "tool_error", str(exc)[:300]
        outcome.result_text = outcome.error
        return
    outcome.mutated = definition is not None and definition.mutates
    outcome.result_text = result_text(returned)


def result_text(value: Any) -> str:
    """A replayed tool result as JSON text (copy-on-write mappings and sets as plain data)."""
    try:
        text = json.dumps(_plain(value, 0), sort_keys=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text[:MAX_RESULT_CHARS]


def _plain(value: Any, depth: int) -> Any:
    if depth > 50:
        return repr(value)[:100]
    if isinstance(value, Mapping):
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return [_plain(v, depth + 1) for v in items]
    return value
