"""Bracket-aware scanning of short LaTeX strings: matching pairs and top-level splits.

Every opener in ``([{`` raises the depth and every closer in ``)]}`` lowers it, whatever its
type, so half-open intervals such as ``(1, 2]`` nest correctly. The scanners are iterative:
hostile nesting cannot exhaust the Python stack.
"""

from __future__ import annotations

import re

OPENERS = "([{"
CLOSERS = ")]}"


def depths(text: str) -> list[int]:
    """The bracket depth in force at each character (the depth before it is read)."""
    out: list[int] = []
    depth = 0
    for char in text:
        out.append(depth)
        if char in OPENERS:
            depth += 1
        elif char in CLOSERS:
            depth -= 1
    return out


def matching_close(text: str, start: int) -> int | None:
    """Index of the closer that balances the opener at ``start``, or None when unbalanced."""
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char in OPENERS:
            depth += 1
        elif char in CLOSERS:
            depth -= 1
            if depth == 0:
                return index
    return None


def wrapped_by(text: str, opener: str, closer: str) -> bool:
    """True when ``text`` is ``opener ... closer`` with the pair enclosing all of it.

    Example:
        >>> wrapped_by("(1, 2]", "(", "]"), wrapped_by("(1)+(2)", "(", ")")
        (True, False)
    """
    if len(text) < len(opener) + len(closer) or not text.startswith(opener):
        return False
    if not text.endswith(closer):
        return False
    close = matching_close(text, len(opener) - 1)
    return close == len(text) - 1


def split_top_level(text: str, separators: str) -> list[str]:
    """Split ``text`` at separator characters that sit outside every bracket pair.

    Example:
        >>> split_top_level("1, (2, 3), [4, 5]", ",")
        ['1', ' (2, 3)', ' [4, 5]']
    """
    parts: list[str] = []
    depth = 0
    begin = 0
    for index, char in enumerate(text):
        if char in OPENERS:
            depth += 1
        elif char in CLOSERS:
            depth -= 1
        elif depth == 0 and char in separators:
            parts.append(text[begin:index])
            begin = index + 1
    parts.append(text[begin:])
    return parts


def find_top_level(text: str, pattern: re.Pattern[str]) -> list[re.Match[str]]:
    """The matches of ``pattern`` whose first character sits outside every bracket pair."""
    level = depths(text)
    return [m for m in pattern.finditer(text) if level[m.start()] == 0]
