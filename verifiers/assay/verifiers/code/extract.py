"""Code and patches out of model text."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]*```[ \t]*([^\n`]*)\n(.*?)^[ \t]*```[ \t]*$", re.S | re.M)
_OPEN_FENCE = re.compile(r"^[ \t]*```[ \t]*([^\n`]*)\n", re.M)
_PYTHON_TAGS = {"", "python", "py", "python3", "py3"}
_PATCH_TAGS = {"diff", "patch", "udiff"}
_DIFF_START = re.compile(r"^(diff --git |--- |Index: )", re.M)


def _language(info: str) -> str:
    return info.strip().split()[0].lower() if info.strip() else ""


def _blocks(text: str) -> list[tuple[str, str]]:
    blocks = [(_language(m.group(1)), m.group(2)) for m in _FENCE.finditer(text)]
    closed_end = max((m.end() for m in _FENCE.finditer(text)), default=0)
    tail = _OPEN_FENCE.search(text, closed_end)
    if tail is not None:  # a fence the model never closed (cut off): take what is there
        blocks.append((_language(tail.group(1)), text[tail.end() :]))
    return blocks


def extract_code(text: str) -> str:
    """The last fenced Python block of ``text``, or the whole text when it has none.

    Example:
        >>> extract_code("Here:\\n```python\\ndef f():\\n    return 1\\n```\\nDone.")
        'def f():\\n    return 1\\n'
    """
    python = [body for lang, body in _blocks(text) if lang in _PYTHON_TAGS]
    if python:
        return python[-1]
    return text


def extract_patch(text: str) -> str | None:
    """A unified diff: the last ``diff``/``patch`` fenced block, or a bare diff in the text."""
    for lang, body in reversed(_blocks(text)):
        if lang in _PATCH_TAGS or (lang == "" and _DIFF_START.search(body)):
            return body if body.endswith("\n") else body + "\n"
    match = _DIFF_START.search(text)
    if match is None:
        return None
    body = text[match.start() :]
    return body if body.endswith("\n") else body + "\n"
