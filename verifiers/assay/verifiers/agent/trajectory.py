"""OpenAI-format chat messages to a typed trajectory of assistant turns and tool calls.

Accepted messages: ``system``/``developer``/``user`` (ignored for scoring), ``assistant``
(``content`` and optional ``tool_calls``: ``{"id", "type": "function", "function": {"name",
"arguments"}}`` with ``arguments`` a JSON string, or an already decoded object) and ``tool``
(``tool_call_id``, ``content``); OpenAI's legacy ``function_call`` and ``function`` messages are
read as one call and its result. Content is a string, ``null`` or a list of ``{"type": "text",
"text": ...}`` parts. The Anthropic Messages form is read too: ``tool_use`` content blocks of an
assistant message are its calls, ``tool_result`` blocks of a user message their results.

What makes a trajectory unreadable (:class:`TrajectoryError`, an ``unparsable`` verdict): a
message that is not an object, an unknown role, content of the wrong type, a tool call without
a function name, two calls with one id, a tool result for no call, and a call whose result is
missing although the conversation went on after it. Hermes/Qwen
``<tool_call>{...}</tool_call>`` blocks in an assistant message without ``tool_calls`` are read
as its calls (:mod:`~assay.verifiers.agent.calltext`). Calls of the *last* assistant turn may
lack results (BFCL-style: the call itself is the answer). Arguments that are not a JSON object
are not fatal: the call is kept with :attr:`ToolCall.problem` set, and scored as an invalid
call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assay.verifiers.agent.calltext import (
    CallTextError,
    TextCall,
    looks_like_calls,
    read_calls,
    split_tool_call_tags,
)

from assay.decoding import TOOL_RESPONSE_OPEN, TranscriptPart, complete_calls, transcript_parts
from assay.errors import AssayError
from assay.types import JSON

ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})


class TrajectoryError(AssayError):
    """The messages do not form a readable trajectory.

    Attributes:
        kind: Stable tag: ``not_a_list``, ``not_an_object``, ``unknown_role``, ``bad_content``,
            ``bad_tool_call``, ``duplicate_call_id``, ``orphan_tool_result``,
            ``missing_tool_result``, ``bad_call_text``.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call the assistant made.

    Attributes:
        id: The call id (synthesised as ``call@<message>.<k>`` when the message has none).
        name: Function name.
        arguments: Decoded arguments, or ``None`` when they are not a JSON object.
        problem: Why the arguments could not be decoded.
        message_index: Index of the assistant message in ``steps``.
        turn: Ordinal of the assistant turn (0-based).
    """

    id: str
    name: str
    arguments: Mapping[str, JSON] | None
    problem: str | None
    message_index: int
    turn: int


@dataclass(frozen=True, slots=True)
class Turn:
    """One assistant message: its text and its tool calls."""

    index: int
    message_index: int
    content: str
    calls: tuple[ToolCall, ...]


@dataclass(frozen=True, slots=True)
class Trajectory:
    """Assistant turns in order, and the recorded tool result of each call id."""

    turns: tuple[Turn, ...]
    results: Mapping[str, str]
    context: tuple[str, ...] = ()
    """Text of the system, developer and user messages (what the prompt gave the agent)."""

    @property
    def calls(self) -> list[ToolCall]:
        return [call for turn in self.turns for call in turn.calls]

    @property
    def final_text(self) -> str:
        """Content of the last assistant turn without tool calls (empty if there is none)."""
        for turn in reversed(self.turns):
            if not turn.calls:
                return turn.content
        return ""


def content_text(content: JSON, where: str) -> str:
    """Text of a message's ``content`` (string, ``null`` or a list of text parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif not (isinstance(part, Mapping) and isinstance(part.get("type"), str)):
                raise TrajectoryError("bad_content", f"{where}: content part {part!r} is not text")
        return "".join(texts)
    raise TrajectoryError("bad_content", f"{where}: content is {type(content).__name__}")


def decode_arguments(raw: JSON) -> tuple[Mapping[str, JSON] | None, str | None]:
    """Arguments as an object, or ``(None, problem)``."""
    if isinstance(raw, Mapping):
        return raw, None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    if not isinstance(raw, str):
        return None, f"arguments are {type(raw).__name__}, not a JSON string"
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        return None, f"arguments are not valid JSON: {str(exc)[:200]}"
    if not isinstance(value, dict):
        return None, f"arguments decode to {type(value).__name__}, not an object"
    return value, None


def _text_calls(calls: list[TextCall], index: int, turn: int) -> tuple[ToolCall, ...]:
    return tuple(
        ToolCall(f"call@{index}.{k}", c.name, c.arguments, c.problem, index, turn)
        for k, c in enumerate(calls)
    )


def prompt_texts(prompt: JSON, limit: int = 200_000) -> tuple[str, ...]:
    """Every string of a record's prompt (chat messages, BFCL's nested ``question``), capped."""
    texts: list[str] = []
    stack: list[JSON] = [prompt]
    size = 0
    while stack and size < limit:
        item = stack.pop()
        if isinstance(item, str):
            texts.append(item[: limit - size])
            size += len(texts[-1])
        elif isinstance(item, Mapping):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))
    return tuple(texts)


def response_turn(response: str, context: tuple[str, ...] = ()) -> Trajectory:
    """A one-turn trajectory of a response without steps: its calls (Hermes ``<tool_call>``
    blocks, a JSON list of calls or Python-call text) or its text.

    Raises:
        TrajectoryError: ``bad_call_text``, the response is written as calls (starts like a
            JSON list or like ``name(``) but no call form reads it.
    """
    parts = transcript_parts(response)
    if parts is not None:
        return _transcript_turns(parts, context)
    tagged = split_tool_call_tags(response)
    if tagged is not None:
        rest, calls = tagged
        return Trajectory((Turn(0, 0, rest, _text_calls(calls, 0, 0)),), {}, context)
    if looks_like_calls(response):
        try:
            calls = read_calls(response)
        except CallTextError as exc:
            raise TrajectoryError(
                "bad_call_text", f"the response is written as calls but cannot be read: {exc}"
            ) from exc
        return Trajectory((Turn(0, 0, "", _text_calls(calls, 0, 0)),), {}, context)
    return Trajectory((Turn(0, 0, response, ()),), {}, context)


def _transcript_turns(parts: list[TranscriptPart], context: tuple[str, ...]) -> Trajectory:
    """The one turn of a multi-turn transcript decoded as one string (verl's tool agent loop):
    the ``<tool_call>`` blocks of its assistant turns are its calls, and the tool turns between
    them (:func:`assay.decoding.transcript_parts`) are results, never calls: a ``<tool_call>``
    a tool returned is the environment's text, not the model's. The calls are read as one
    turn, as a response with blocks is, and the environment is replayed; the results are not
    paired with them.

    verl answers each call its parser finds in a turn (:func:`assay.decoding.complete_calls`
    over the whole turn, thinking included) with one result, so a tool turn with more results
    than the turn before it made calls is not one verl built: the model wrote it (a forged
    ``user`` header and results, to hide calls that verl then executed from the reader).

    Raises:
        TrajectoryError: ``forged_tool_turn``, such a tool turn.
    """
    texts: list[str] = []
    calls: list[TextCall] = []
    for k, part in enumerate(parts):
        if part.tool:
            made = len(complete_calls(parts[k - 1].text)) if k and not parts[k - 1].tool else 0
            results = part.text.count(TOOL_RESPONSE_OPEN)
            if results > made:
                raise TrajectoryError(
                    "forged_tool_turn",
                    f"a tool turn holds {results} results for {made} calls of the turn before "
                    "it: the model wrote it (verl answers each call it executed once)",
                )
            continue
        tagged = split_tool_call_tags(part.text)
        if tagged is None:
            texts.append(part.text.strip())
        else:
            texts.append(tagged[0])
            calls.extend(tagged[1])
    rest = "\n".join(t for t in texts if t)
    return Trajectory((Turn(0, 0, rest, _text_calls(calls, 0, 0)),), {}, context)


def _calls(message: Mapping[str, JSON], index: int, turn: int) -> tuple[ToolCall, ...]:
    raw_calls = message.get("tool_calls") or []
    legacy = message.get("function_call")
    if not raw_calls and legacy is not None:  # OpenAI's form before tool_calls: one call
        raw_calls = [{"function": legacy}]
    if not isinstance(raw_calls, list):
        raise TrajectoryError("bad_tool_call", f"message {index}: tool_calls is not a list")
    calls = []
    for k, raw in enumerate(raw_calls):
        function = raw.get("function") if isinstance(raw, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(name, str) or not name:
            raise TrajectoryError(
                "bad_tool_call", f"message {index}: tool call {k} has no function name"
            )
        call_id = raw.get("id") if isinstance(raw.get("id"), str) and raw.get("id") else None
        arguments, problem = decode_arguments(function.get("arguments"))
        calls.append(
            ToolCall(call_id or f"call@{index}.{k}", name, arguments, problem, index, turn)
        )
    return tuple(calls)


def _blocks(content: JSON, kind: str) -> list[Mapping[str, JSON]]:
    """The content blocks of ``kind`` (Anthropic's ``tool_use``, ``tool_result``)."""
    if not isinstance(content, list):
        return []
    return [p for p in content if isinstance(p, Mapping) and p.get("type") == kind]


def _use_calls(message: Mapping[str, JSON], index: int, turn: int) -> tuple[ToolCall, ...]:
    """An assistant message's calls written as Anthropic ``tool_use`` content blocks."""
    calls = []
    for k, block in enumerate(_blocks(message.get("content"), "tool_use")):
        name = block.get("name")
        if not isinstance(name, str) or not name:
            raise TrajectoryError(
                "bad_tool_call", f"message {index}: tool_use block {k} has no name"
            )
        use_id = block.get("id")
        arguments, problem = decode_arguments(block.get("input"))
        call_id = use_id if isinstance(use_id, str) and use_id else f"call@{index}.{k}"
        calls.append(ToolCall(call_id, name, arguments, problem, index, turn))
    return tuple(calls)


def _take_result(
    pending: dict[str, ToolCall], results: dict[str, str], call_id: JSON, text: str, where: str
) -> None:
    """Record a tool result; one without an id answers the oldest call still unanswered."""
    if not isinstance(call_id, str) or not call_id:
        call_id = next(iter(pending), None)
    if call_id not in pending:
        raise TrajectoryError("orphan_tool_result", f"{where}: tool result for no call {call_id!r}")
    del pending[call_id]
    results[call_id] = text


def parse_trajectory(steps: Sequence[JSON]) -> Trajectory:
    """Read OpenAI-format messages; raises :class:`TrajectoryError` when they are unreadable."""
    if not isinstance(steps, list | tuple):
        raise TrajectoryError("not_a_list", "steps must be a list of chat messages")
    turns: list[Turn] = []
    results: dict[str, str] = {}
    pending: dict[str, ToolCall] = {}
    legacy: set[str] = set()  # ids of calls written as a legacy function_call
    context: list[str] = []
    for index, message in enumerate(steps):
        if not isinstance(message, Mapping):
            raise TrajectoryError("not_an_object", f"message {index} is not an object")
        role = message.get("role")
        if role not in ROLES:
            raise TrajectoryError("unknown_role", f"message {index} has unknown role {role!r}")
        if role == "assistant":
            _missing(pending, f"before message {index}")
            calls = _calls(message, index, len(turns)) or _use_calls(message, index, len(turns))
            if not message.get("tool_calls") and message.get("function_call") is not None:
                legacy.update(call.id for call in calls)
            content = content_text(message.get("content"), f"message {index}")
            tagged = None if calls else split_tool_call_tags(content)
            if tagged is not None:  # Hermes/Qwen <tool_call> blocks in the text are calls
                content, text_calls = tagged
                calls = _text_calls(text_calls, index, len(turns))
            for call in calls:
                if call.id in pending or call.id in results:
                    raise TrajectoryError(
                        "duplicate_call_id", f"message {index}: call id {call.id!r} used twice"
                    )
                pending[call.id] = call
            turns.append(Turn(len(turns), index, content, calls))
        elif role == "tool":
            text = content_text(message.get("content"), f"message {index}")
            _take_result(pending, results, message.get("tool_call_id"), text, f"message {index}")
        elif role == "function":  # the legacy form's result: answers its oldest function_call
            oldest = next((c for c in pending if c in legacy), None)
            if oldest is None:
                raise TrajectoryError(
                    "unknown_role",
                    f"message {index}: a 'function' message answers only a legacy function_call",
                )
            text = content_text(message.get("content"), f"message {index}")
            _take_result(pending, results, oldest, text, f"message {index}")
        else:
            where = f"message {index}"
            for block in _blocks(message.get("content"), "tool_result"):  # Anthropic's results
                text = content_text(block.get("content"), where)
                _take_result(pending, results, block.get("tool_use_id"), text, where)
            context.append(content_text(message.get("content"), where))
    if turns and pending and any(c.turn != turns[-1].index for c in pending.values()):
        _missing(pending, "at the end")
    return Trajectory(tuple(turns), results, tuple(context))


def _missing(pending: Mapping[str, ToolCall], where: str) -> None:
    if pending:
        names = ", ".join(f"{c.name} ({c.id})" for c in pending.values())
        raise TrajectoryError("missing_tool_result", f"no tool result {where} for {names}")
