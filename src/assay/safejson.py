"""JSON that every output path can write, whatever a response or a verifier put in it.

Responses, record ids, exception messages, meta and a check's evidence can hold text that no
UTF-8 file can store (a lone surrogate such as ``"\\ud800"``, which ``json.loads`` produces from
an escaped one), floats that JSON has no token for (NaN, infinities), integers too long for
``str()``, structures nested deeper than an encoder's recursion limit, and objects that are not
JSON at all. :func:`json_safe` turns any value into plain JSON data by one fixed set of rules
(docs/formats.md, "Unencodable values"), so a single bad value never crashes a writer and every
output line is valid UTF-8 JSON:

- text: a surrogate pair becomes the character it encodes; a lone surrogate becomes U+FFFD;
  control characters stay (JSON escapes them);
- floats: NaN, Infinity and -Infinity become the strings ``"NaN"``, ``"Infinity"``,
  ``"-Infinity"``;
- integers of more than :data:`MAX_INT_DIGITS` digits become ``"<int of about N digits>"``;
- tuples and other sequences become lists; sets become lists sorted by their JSON text;
  bytes become text (undecodable bytes as ``\\xNN``); numpy values their ``tolist()``;
- mapping keys become strings (``true`` / ``false`` / ``null`` for those constants, as
  ``json`` writes them);
- containers nested deeper than :data:`MAX_DEPTH` are cut there: ``"<nested deeper than 100
  levels>"``;
- anything else becomes its ``repr`` (at most :data:`MAX_REPR_CHARS` characters), or
  ``"<TypeName>"`` when even that fails.

:func:`loads` is the matching reader: a document nested too deeply for the parser is a
``ValueError`` like any other malformed JSON, never a ``RecursionError``. :func:`loads_rows`
reads records (an input line, a request body): there a value nested too deeply for the parser
is cut to the depth marker at :data:`CUT_DEPTH` levels, so the record is read and its own depth
rule says which field was too deep (a trajectory is the response's fault, a reference the
task's), instead of the whole line or request being malformed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

JSON = Any
"""A value that round-trips through ``json`` (the same alias as :data:`assay.types.JSON`)."""

MAX_DEPTH = 100
"""Containers nested deeper than this are replaced by a marker string."""
DEPTH_MARKER = f"<nested deeper than {MAX_DEPTH} levels>"
"""What stands for a container cut at :data:`MAX_DEPTH` (and by :func:`loads_rows`)."""
MAX_INT_DIGITS = 4300
"""Integers with more digits than this (Python's ``str()`` limit) are replaced by a marker."""
MAX_REPR_CHARS = 1000
"""Longest ``repr`` kept for an object that is not JSON."""
MAX_VALUES = 1_000_000
"""Most values converted in one call; the rest are cut (a structure that shares subtrees)."""

CUT_DEPTH = 2 * MAX_DEPTH
"""Where :func:`loads_rows` cuts a document too deep for the parser: deeper than any record
accepts (:data:`MAX_DEPTH`), well within what the parser reads."""

_MAX_INT_BITS = int(MAX_INT_DIGITS / math.log10(2))
_FLOAT_NAMES = {math.inf: "Infinity", -math.inf: "-Infinity"}


def clean_text(text: str) -> str:
    """``text`` with surrogate pairs joined and lone surrogates replaced by U+FFFD."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def json_safe(value: Any) -> JSON:
    """Plain JSON data for ``value`` (see the module docstring for the rules); never raises."""
    return _Walk().safe(value, 0)


def dumps(value: Any, *, indent: int | None = None) -> str:
    """JSON text of :func:`json_safe` (``value``): valid JSON, encodable as UTF-8, one line
    unless ``indent`` is given."""
    return json.dumps(json_safe(value), ensure_ascii=False, allow_nan=False, indent=indent)


def nested_deeper_than(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether dicts, lists and tuples in ``value`` nest more than ``limit`` levels deep.

    Iterative, so a structure too deep for recursive code is measured without recursing.
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    seen: set[int] = set()
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, dict | list | tuple) or id(item) in seen:
            continue
        if depth >= limit:
            return True
        seen.add(id(item))
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children)
    return False


def loads(data: str | bytes | bytearray) -> Any:
    """``json.loads``, with a document nested too deeply to parse raised as ``ValueError``."""
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("JSON nested too deeply to parse") from None


def loads_rows(data: str | bytes | bytearray) -> Any:
    """``json.loads`` for records: containers nested past the parser's limit are cut.

    A document the parser reads is returned as it is. One too deep for it is read again with
    every container that opens deeper than :data:`CUT_DEPTH` levels replaced by the marker
    ``"<nested deeper than 100 levels>"``; what is above it keeps more than
    :data:`MAX_DEPTH` levels, so :func:`nested_deeper_than` still finds the field too deep.
    Raises ``ValueError`` for malformed JSON (and for bytes that are not UTF-8).
    """
    try:
        return json.loads(data)
    except RecursionError:
        pass
    text = data if isinstance(data, str) else bytes(data).decode("utf-8")
    try:
        return json.loads(_cut_deep(text, CUT_DEPTH))
    except RecursionError:
        raise ValueError("JSON nested too deeply to parse") from None


_BRACKET_OR_QUOTE = re.compile(r'["\[\]{}]')
_STRING_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_MARKER = json.dumps(DEPTH_MARKER)


def _cut_deep(text: str, limit: int) -> str:
    """``text`` with each container that opens at depth ``limit + 1`` replaced by the marker.

    A scan of brackets outside strings (no recursion); a closing bracket that closes nothing
    open, or another kind than the one open, is malformed (``ValueError``), inside the cut
    too; other malformed text is left for the parser, which never sees the cut part: a
    value past 200 levels is only checked for its brackets and strings.
    """
    parts: list[str] = []
    opened: list[str] = []
    copied, position = 0, 0
    cut_from = -1
    while (found := _BRACKET_OR_QUOTE.search(text, position)) is not None:
        at, char = found.start(), found.group()
        if char == '"':
            rest = _STRING_REST.match(text, at + 1)
            if rest is None:
                break  # an unterminated string: malformed
            position = rest.end()
            continue
        position = at + 1
        if char in "[{":
            opened.append(char)
            if len(opened) == limit + 1:
                cut_from = at
            continue
        if not opened or _CLOSER[opened.pop()] != char:
            raise ValueError(f"malformed JSON: {char!r} at offset {at} closes nothing open")
        if len(opened) == limit and cut_from >= 0:
            parts.append(text[copied:cut_from])
            parts.append(_MARKER)
            copied, cut_from = at + 1, -1
    parts.append(text[copied:])
    return "".join(parts)


_CLOSER = {"[": "]", "{": "}"}


class _Walk:
    """One conversion: the containers on the current path (cycles) and a budget of values."""

    def __init__(self) -> None:
        self.path: set[int] = set()
        self.budget = MAX_VALUES

    def safe(self, value: Any, depth: int) -> JSON:
        self.budget -= 1
        if self.budget < 0:
            return f"<cut: more than {MAX_VALUES} values>"
        kind = type(value)
        if kind is str:
            return clean_text(value)
        if kind is bool or value is None:
            return value
        if kind is int:
            return _int(value)
        if kind is float:
            return _float(value)
        if kind is dict or kind is list or kind is tuple:
            return self.container(value, depth)
        return self.other(value, depth)

    def container(self, value: Any, depth: int) -> JSON:
        if depth >= MAX_DEPTH:
            return DEPTH_MARKER
        if id(value) in self.path:
            return "<circular reference>"
        self.path.add(id(value))
        try:
            if isinstance(value, Mapping):
                return {
                    self.key(key, depth): self.safe(item, depth + 1) for key, item in value.items()
                }
            return [self.safe(item, depth + 1) for item in value]
        finally:
            self.path.discard(id(value))

    def key(self, key: Any, depth: int) -> str:
        if type(key) is str:
            return clean_text(key)
        if key is True or key is False or key is None:
            return json.dumps(key)
        safe = self.safe(key, depth + 1)  # a tuple key becomes its JSON text
        return safe if isinstance(safe, str) else json.dumps(safe, ensure_ascii=False)

    def other(self, value: Any, depth: int) -> JSON:
        """Subclasses of the plain types, other containers, bytes, numpy values, any object."""
        try:
            if isinstance(value, bool):
                return bool(value)
            if isinstance(value, str):
                return clean_text(str.__str__(value))
            if isinstance(value, int):
                return _int(int.__index__(value))
            if isinstance(value, float):
                return _float(float.__float__(value))
            if isinstance(value, Mapping | list | tuple):
                return self.container(value, depth)
            if isinstance(value, bytes | bytearray | memoryview):
                return bytes(value).decode("utf-8", "backslashreplace")
            if isinstance(value, set | frozenset):
                items = [self.safe(item, depth + 1) for item in value]
                return sorted(items, key=lambda item: json.dumps(item, ensure_ascii=False))
            tolist = getattr(type(value), "tolist", None)
            if callable(tolist) and depth < MAX_DEPTH:
                return self.safe(tolist(value), depth + 1)
        except Exception:  # a hostile or broken object is described instead
            return _describe(value)
        return _describe(value)


def _int(value: int) -> JSON:
    if value.bit_length() > _MAX_INT_BITS:
        digits = int(value.bit_length() * math.log10(2)) + 1
        return f"<int of about {digits} digits>"
    return value


def _float(value: float) -> JSON:
    if math.isfinite(value):
        return value
    return _FLOAT_NAMES.get(value, "NaN")


def _describe(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # an object whose repr raises is still named
        return f"<{type(value).__name__}>"
    if not isinstance(text, str):
        return f"<{type(value).__name__}>"
    return clean_text(str.__str__(text)[:MAX_REPR_CHARS])
