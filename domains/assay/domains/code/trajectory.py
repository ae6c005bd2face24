"""Per-command results of a multi-step coding trajectory, for process rewards.

When a record carries ``steps`` (OpenAI-format chat messages) in which the assistant ran code
(a tool call whose arguments hold ``code``/``source``/``script``, or a fenced Python block in an
assistant message without tool calls), each such command is run against the task's tests in the
sandbox, like the final answer. Its step result says how far that command got (the fraction of
test units passed), so the reward layer can reward progress on the turn's tokens.

Commands draw on the item's one budget (after the final answer): a command that exceeds a
limit, or finds the budget spent, scores 0 with a ``resources`` message, and the commands
after it run only on what is left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from assay.verifiers.code.extract import extract_code
from assay.verifiers.code.static import syntax_error
from assay.verifiers.code.units import Unit

from assay import safejson
from assay.blame import response_owned
from assay.types import StepResult

MAX_COMMANDS = 16
MAX_CALLS_READ = 1024
"""Most tool calls whose arguments are read in one trajectory: a trajectory of many calls
that run no code is not read to its end (the commands after that are not scored)."""


class _Fault(Protocol):
    @property
    def cause(self) -> str: ...
    @property
    def message(self) -> str: ...


_CODE_KEYS = ("code", "source", "script", "program", "content")


def commands(steps: Sequence[Mapping[str, Any]]) -> list[tuple[int, str]]:
    """``(message index, code)`` for every command the assistant ran, in order (at most 16)."""
    found: list[tuple[int, str]] = []
    for index, code in _sources(steps):
        found.append((index, code if isinstance(code, str) else extract_code(code.text)))
        if len(found) == MAX_COMMANDS:
            break
    return found


def command_count(steps: Sequence[Mapping[str, Any]]) -> int:
    """How many commands :func:`commands` finds (at most 16), without extracting any code.

    The item's budget counts them in the parent, before any limit applies, so this reads no
    more of the trajectory than it must: fenced messages are counted, not parsed.
    """
    count = 0
    for _ in _sources(steps):
        count += 1
        if count == MAX_COMMANDS:
            break
    return count


class _Fenced:
    """An assistant message's text with a fence in it (its code is extracted when needed)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _sources(steps: Sequence[Mapping[str, Any]]) -> Iterator[tuple[int, str | _Fenced]]:
    """Each command's message index and its code (a tool call's) or fenced text, in order."""
    calls_read = 0
    for index, message in enumerate(steps):
        if not isinstance(message, Mapping) or message.get("role") != "assistant":
            continue
        calls = message.get("tool_calls") or []
        if isinstance(calls, list) and calls:
            for call in calls:
                calls_read += 1
                if calls_read > MAX_CALLS_READ:
                    return
                code = _code_argument(call)
                if code is not None:
                    yield index, code
        elif isinstance(message.get("content"), str) and "```" in message["content"]:
            yield index, _Fenced(message["content"])


def call_arguments(function: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A tool call's ``arguments`` as an object (OpenAI sends them as a JSON string), or None."""
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = safejson.loads(arguments)
        except ValueError:  # not JSON, or nested past the decoder's limit
            return None
    return arguments if isinstance(arguments, Mapping) else None


def _code_argument(call: Any) -> str | None:
    function = call.get("function") if isinstance(call, Mapping) else None
    arguments = call_arguments(function) if isinstance(function, Mapping) else None
    if arguments is None:
        return None
    for key in _CODE_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def command_steps(
    steps: Sequence[Mapping[str, Any]], run: Callable[[str], tuple[list[Unit], _Fault | None]]
) -> list[StepResult]:
    """One step result per command: its test units' pass fraction.

    0 when it does not parse, and 0 with a ``resources`` message when it exceeded a limit.
    """
    results = []
    with response_owned("reading the trajectory's commands"):
        found = commands(steps)
    for position, (index, code) in enumerate(found):
        problem = syntax_error(code)
        units, fault = ([], None) if problem is not None else run(code)
        passed = sum(u.passed for u in units)
        total = len(units)
        score = passed / total if total and fault is None else 0.0
        message = problem or f"{passed}/{total} tests passed"
        evidence: dict[str, Any] = {
            "kind": "command", "message_index": index, "passed": passed, "total": total,
        }  # fmt: skip
        if fault is not None:
            message = f"resources: {fault.cause}: {fault.message}"
            evidence["fault"] = fault.cause
            passed = 0
        ok = bool(total) and passed == total and fault is None
        results.append(
            StepResult(position, f"command[{index}]", ok, score, message[:300], evidence)
        )
    return results
