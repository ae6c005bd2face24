"""Responses written as chat messages: the answer's text and the trajectory they hold.

Trainers and datasets keep a response as chat messages as often as text: TRL's conversational
completions (``[{"role": "assistant", "content": ...}]``; with ``tools=`` the whole exchange
its tool loop ran: assistant turns with ``tool_calls``, ``tool`` results, the final answer),
OpenAI-style ``messages`` columns (the prompt's messages first), ShareGPT ``conversations``
(``from``/``value`` turns, LLaMA-Factory's ``function_call``/``observation`` included, read as
OpenAI messages), and lists of such conversations, n samples of one prompt. :func:`read_chat`
turns one into what a verifier reads: the final answer as ``response`` and, when there was
more than one plain assistant turn, the messages as the record's ``steps`` (the trajectory the
agent verifier replays and the code verifier runs the commands of). One reader serves ``assay
score``, the HTTP service and the TRL adapter, so a conversation scores the same whichever way
it arrives.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ChatResponse", "is_chat", "read_chat"]

_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function", "ipython"})
_OPENERS = frozenset({"system", "developer", "user"})
_SHAREGPT_ROLES = {
    "system": "system", "human": "user", "user": "user", "gpt": "assistant",
    "assistant": "assistant", "function_call": "assistant", "tool": "tool",
    "observation": "tool", "ipython": "tool",
}  # fmt: skip
"""ShareGPT speakers (``from``) and the role each is (LLaMA-Factory's names included)."""


@dataclass(frozen=True, slots=True)
class ChatResponse:
    """A chat-message response as a verifier reads it.

    Attributes:
        text: The final answer: the content of the last assistant message (``""`` when that
            message makes calls, or there is no assistant message).
        steps: The trajectory, the prompt's system/user messages first; empty when the
            response is a single assistant message that calls nothing (then ``text`` is all
            there is).
    """

    text: str
    steps: tuple[dict[str, Any], ...]


def _is_message(value: Any) -> bool:
    return (isinstance(value, Mapping) and value.get("role") in _ROLES) or _is_sharegpt(value)


def _is_sharegpt(value: Any) -> bool:
    """A ShareGPT turn: ``{"from": "human" | "gpt" | ..., "value": text}``."""
    return (
        isinstance(value, Mapping)
        and value.get("from") in _SHAREGPT_ROLES
        and isinstance(value.get("value"), str)
    )


def _sharegpt_calls(value: str) -> list[dict[str, Any]] | None:
    """The calls of a LLaMA-Factory ``function_call`` turn (a JSON call or list of calls)."""
    try:
        decoded = json.loads(value)
    except (ValueError, RecursionError):
        return None
    items = decoded if isinstance(decoded, list) else [decoded]
    calls = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return None
        function = {"name": item["name"], "arguments": item.get("arguments", {})}
        calls.append({"type": "function", "function": function})
    return calls or None


def _message(value: Mapping[str, Any]) -> dict[str, Any]:
    """A message in OpenAI's form (a ShareGPT turn converted, anything else copied)."""
    if not _is_sharegpt(value):
        return dict(value)
    speaker, text = value["from"], value["value"]
    calls = _sharegpt_calls(text) if speaker == "function_call" else None
    if calls is not None:
        return {"role": "assistant", "content": "", "tool_calls": calls}
    return {"role": _SHAREGPT_ROLES[speaker], "content": text}


def _messages(value: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One message or a list of them, each in OpenAI's form (see :func:`_message`)."""
    return [_message(value)] if isinstance(value, Mapping) else [_message(m) for m in value]


def is_chat(value: Any) -> bool:
    """Whether ``value`` is chat messages: one message, or a non-empty list of them."""
    if _is_message(value):
        return True
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str | bytes)
        and len(value) > 0
        and all(_is_message(m) for m in value)
    )


def _content_text(content: Any) -> str:
    """A message's content as text: a string, or the ``text`` of its content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence) and not isinstance(content, bytes):
        return "".join(
            part["text"] if isinstance(part.get("text"), str) else ""
            for part in content
            if isinstance(part, Mapping)
        )
    return ""


def _calls(message: Mapping[str, Any]) -> bool:
    """Whether a message makes calls: OpenAI ``tool_calls`` (or the legacy ``function_call``)
    or Anthropic ``tool_use`` blocks."""
    content = message.get("content")
    blocks = content if isinstance(content, list) else ()
    if message.get("tool_calls") or message.get("function_call"):
        return True
    return any(isinstance(b, Mapping) and b.get("type") == "tool_use" for b in blocks)


def read_chat(value: Any, prompt: Any = None) -> ChatResponse:
    """The answer and trajectory of a chat-message response (see :func:`is_chat`).

    Args:
        value: One message or a list of them (the model's turns, or a whole conversation).
        prompt: The row's prompt; when it is messages and ``value`` does not start with its
            own system/user message, the prompt's system, developer and user messages open
            the trajectory. Its assistant and tool messages (a few-shot example, earlier
            turns) are left out: the model is credited for the calls it made, not for calls
            its prompt already holds.
    """
    messages = _messages(value)
    last = next((m for m in reversed(messages) if m.get("role") == "assistant"), None)
    answers = last is not None and not _calls(last)  # the last assistant turn is an answer
    text = _content_text(last.get("content")) if last is not None and answers else ""
    if len(messages) == 1 and answers:
        return ChatResponse(text, ())
    head: list[dict[str, Any]] = []
    if messages[0].get("role") not in _OPENERS and is_chat(prompt):
        # never the prompt's own assistant and tool messages: the model made no such calls
        head = [m for m in _messages(prompt) if m.get("role") in _OPENERS]
    return ChatResponse(text, (*head, *messages))
