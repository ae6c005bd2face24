"""Code and patches out of model text."""

from __future__ import annotations

import re

_OPENER = re.compile(r"[ \t]*```[ \t]*([^\n`]*)\n")
_CLOSER = re.compile(r"[ \t]*```[ \t]*\n?")
_PYTHON_TAGS = {"", "python", "py", "python3", "py3"}
_PATCH_TAGS = {"diff", "patch", "udiff"}
_DIFF_START = re.compile(r"^(diff --git |--- |Index: )", re.M)


def _language(info: str) -> str:
    return info.strip().split()[0].lower() if info.strip() else ""


def _blocks(text: str) -> list[tuple[str, str]]:
    """Fenced blocks ``(language, body)`` in order, one pass over the lines.

    A line of three backticks and an info string opens a block; the next line of three backticks
    alone closes it. A block the model never closed (cut off) runs to the end of the text. The
    scan is linear, so a hostile response of many unclosed fences costs no more than its length.
    """
    blocks: list[tuple[str, str]] = []
    language: str | None = None
    body_start = 0
    position = 0
    for line in _lines(text):
        if language is None:
            opener = _OPENER.fullmatch(line)
            if opener is not None:
                language, body_start = _language(opener.group(1)), position + len(line)
        elif _CLOSER.fullmatch(line):
            blocks.append((language, text[body_start:position]))
            language = None
        position += len(line)
    if language is not None:
        blocks.append((language, text[body_start:]))
    return blocks


def _lines(text: str) -> list[str]:
    """``text`` cut after each ``\\n`` only (not at the other breaks ``splitlines`` knows)."""
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    return [*lines, pieces[-1]] if pieces[-1] else lines


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


def extract_fenced(text: str, tags: frozenset[str] | set[str]) -> str:
    """The last fenced block whose info string is one of ``tags`` (an untagged block counts
    when ``""`` is among them), or the whole text when there is none.

    Example:
        >>> extract_fenced("```cpp\\nint main(){}\\n```", {"cpp", "c++"})
        'int main(){}\\n'
    """
    found = [body for lang, body in _blocks(text) if lang in tags]
    return found[-1] if found else text
