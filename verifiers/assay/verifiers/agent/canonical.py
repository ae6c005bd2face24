"""Canonical form and hash of an environment state, so equal states hash equal.

Rules (documented in docs/agent.md):

- Mappings: keys are strings; key order never matters.
- Numbers: ``bool`` is never a number (``True`` differs from ``1``). An integral float equals
  the int (``10.0`` hashes as ``10``); other floats are compared to 12 significant digits, so
  ``0.1 + 0.2`` equals ``0.3``. NaN and infinities keep their own tags.
- Lists are ordered, except at the paths an environment declares unordered (multisets, e.g.
  ``events.*.attendees``) and for Python ``set``/``frozenset`` values, which are sorted by
  their canonical encoding. ``*`` in a path matches any key or list position.
- Tuples are lists.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping

from assay.types import JSON


def _number(value: float) -> JSON:
    if math.isnan(value):
        return {"$float": "nan"}
    if math.isinf(value):
        return {"$float": "inf" if value > 0 else "-inf"}
    if value.is_integer():
        return int(value)
    return float(f"{value:.12g}")


def _matches(path: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    if len(path) != len(pattern):
        return False
    return all(p in ("*", k) for k, p in zip(path, pattern, strict=True))


class Canonicalizer:
    """Turns a state into a canonical JSON value and hash.

    Args:
        unordered: Dotted paths whose lists are compared as multisets (``*`` is a wildcard).

    Example:
        >>> c = Canonicalizer(["tags"])
        >>> c.digest({"tags": ["b", "a"], "n": 1.0}) == c.digest({"n": 1, "tags": ["a", "b"]})
        True
    """

    def __init__(self, unordered: Iterable[str] = ()) -> None:
        self.patterns = tuple(tuple(p.split(".")) for p in unordered)

    def canonical(self, value: JSON, path: tuple[str, ...] = ()) -> JSON:
        """The canonical JSON value of ``value`` at ``path``."""
        if value is None or isinstance(value, bool | str):
            return value
        if isinstance(value, int):
            return value
        if isinstance(value, float):
            return _number(value)
        if isinstance(value, Mapping):
            return {str(k): self.canonical(v, (*path, str(k))) for k, v in value.items()}
        if isinstance(value, set | frozenset):
            return self._sorted(value, path)
        if isinstance(value, list | tuple):
            if any(_matches(path, p) for p in self.patterns):
                return self._sorted(value, path)
            return [self.canonical(v, (*path, str(i))) for i, v in enumerate(value)]
        raise TypeError(f"state value at {'.'.join(path) or '<root>'} is not JSON: {value!r}")

    def _sorted(self, values: Iterable[JSON], path: tuple[str, ...]) -> list[JSON]:
        items = [self.canonical(v, (*path, "*")) for v in values]
        return sorted(items, key=dump_json)

    def encode(self, value: JSON) -> str:
        """The canonical JSON text of ``value``."""
        return dump_json(self.canonical(value))

    def digest(self, value: JSON) -> str:
        """sha256 hex digest of the canonical JSON text."""
        return hashlib.sha256(self.encode(value).encode("utf-8", "surrogatepass")).hexdigest()


def dump_json(value: JSON) -> str:
    """Compact, key-sorted JSON text: the encoding every state digest hashes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def state_hash(state: JSON, unordered: Iterable[str] = ()) -> str:
    """sha256 of the canonical form of ``state`` (see the module docstring for the rules)."""
    return Canonicalizer(unordered).digest(state)
