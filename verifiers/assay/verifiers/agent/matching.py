"""BFCL-style call matching: expected calls with the allowed values of each argument.

An expected call is written either the BFCL ``possible_answer`` way,
``{"get_weather": {"city": ["Paris", "Paris, France"], "unit": ["celsius", ""]}}`` (each
argument maps to its allowed values; ``""`` among them means the argument may be left out), or
explicitly, ``{"name": "get_weather", "arguments": {"city": "Paris"}}`` (one allowed value each,
all required). An actual call matches when the name is equal, every required expected argument
is present, no argument outside the expected ones is given, and each value matches one of its
allowed values:

- strings after :func:`normalise_string` (BFCL's rule: case, spaces and ``,./-_*^`` do not
  count, ``'`` equals ``"``), but an allowed value with an ``@`` (an address) only up to case
  and surrounding spaces (``b.o@example.com`` is not ``bo@example.com``);
- numbers numerically (an int matches an allowed ``5.0``), never a bool for a number;
- lists element by element in order; objects key by key, either literally or, as BFCL writes
  nested objects, with each key mapping to a list of allowed values (``""`` among them: the
  key may be left out).

Several expected calls (parallel calls) are matched as a set, in any order, by a maximum
bipartite matching, so one actual call never satisfies two expected ones.

``expected_calls`` may hold several *alternative* call sets: a list of lists of calls (each
inner list in either notation above). A flat list of calls (BFCL's ``ground_truth``) is one
set; ``[]`` is the empty set (no call fits).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assay.errors import MalformedTaskError
from assay.types import JSON

OMITTED = ""
"""BFCL's marker, among an argument's allowed values, for "may be left out"."""

_STRIP = re.compile(r"[ ,./\-_*^]+")


@dataclass(frozen=True, slots=True)
class ExpectedCall:
    """One call that must appear, with the allowed values of each argument."""

    name: str
    allowed: Mapping[str, tuple[JSON, ...]]

    def required(self) -> list[str]:
        return [arg for arg, values in self.allowed.items() if OMITTED not in values]


def normalise_string(text: str) -> str:
    """BFCL's string leniency: spaces and ``,./-_*^`` removed, lower case, ``'`` read as ``"``."""
    return _STRIP.sub("", text).lower().replace("'", '"')


def parse_alternatives(calls: JSON) -> list[tuple[ExpectedCall, ...]]:
    """Alternative expected call sets: a list of lists of calls, or one flat list (one set).

    Raises:
        MalformedTaskError: not a list, lists mixed with calls, or a bad entry.
    """
    if not isinstance(calls, list):
        raise MalformedTaskError(f"expected_calls must be a list, got {type(calls).__name__}")
    nested = [isinstance(entry, list) for entry in calls]
    if calls and all(nested):  # an empty alternative: "no call" is one acceptable answer
        return [
            tuple(_parse_one(entry, position, f"expected_calls[{k}]")
                  for position, entry in enumerate(alternative))
            for k, alternative in enumerate(calls) if isinstance(alternative, list)
        ]  # fmt: skip
    if any(nested):
        raise MalformedTaskError(
            "expected_calls mixes call sets (lists) and calls: use a list of alternative call "
            "sets, or one list of calls"
        )
    return [tuple(parse_expected(calls))]


def parse_expected(calls: JSON) -> list[ExpectedCall]:
    """Expected calls from a reference list (both notations above).

    Raises:
        MalformedTaskError: not a list, or an entry in neither notation.
    """
    if not isinstance(calls, list):
        raise MalformedTaskError(f"expected_calls must be a list, got {type(calls).__name__}")
    return [_parse_one(entry, position) for position, entry in enumerate(calls)]


def _parse_one(entry: JSON, position: int, prefix: str = "expected_calls") -> ExpectedCall:
    where = f"{prefix}[{position}]"
    if not isinstance(entry, Mapping):
        raise MalformedTaskError(f"{where} is not an object")
    if isinstance(entry.get("name"), str) and "arguments" in entry:
        arguments = entry["arguments"]
        if not isinstance(arguments, Mapping):
            raise MalformedTaskError(f"{where}.arguments is not an object")
        return ExpectedCall(entry["name"], {str(k): (v,) for k, v in arguments.items()})
    if len(entry) != 1:
        raise MalformedTaskError(
            f"{where} must be {{name: {{arg: [allowed values]}}}} or {{name, arguments}}"
        )
    ((name, args),) = entry.items()
    if not isinstance(args, Mapping):
        raise MalformedTaskError(f"{where}.{name} must map arguments to allowed values")
    allowed = {}
    for arg, values in args.items():
        if not isinstance(values, list) or not values:
            raise MalformedTaskError(f"{where}.{name}.{arg} must be a non-empty list of values")
        allowed[str(arg)] = tuple(values)
    return ExpectedCall(str(name), allowed)


def values_match(actual: JSON, allowed: JSON, strict: bool = False) -> bool:
    """Whether one argument value matches one allowed value (rules in the module docstring).

    With ``strict`` strings must be equal as written (see :func:`mismatch`).
    """
    if isinstance(actual, bool) or isinstance(allowed, bool):
        return type(actual) is type(allowed) and actual == allowed
    if isinstance(actual, int | float) and isinstance(allowed, int | float):
        return bool(actual == allowed)  # exact: no float() overflow on a huge int
    if isinstance(actual, str) and isinstance(allowed, str):
        if strict:
            return actual == allowed
        if "@" in allowed:  # an address: its dots and dashes name another person
            return actual.strip().lower() == allowed.strip().lower()
        return normalise_string(actual) == normalise_string(allowed)
    if isinstance(actual, list) and isinstance(allowed, list | tuple):
        return len(actual) == len(allowed) and all(
            values_match(a, b, strict) for a, b in zip(actual, allowed, strict=True)
        )
    if isinstance(actual, Mapping) and isinstance(allowed, Mapping):
        literal = set(actual) == set(allowed) and all(
            values_match(actual[k], allowed[k], strict) for k in actual
        )
        return literal or _bfcl_object_match(actual, allowed, strict)
    return actual is None and allowed is None


def _bfcl_object_match(
    actual: Mapping[str, JSON], allowed: Mapping[str, JSON], strict: bool = False
) -> bool:
    """BFCL's nested objects: each key maps to its allowed values, ``""`` = may be left out."""
    if not all(isinstance(v, list) and v for v in allowed.values()):
        return False
    for key, options in allowed.items():
        if key not in actual:
            if not (isinstance(options, list) and OMITTED in options):
                return False
            continue
        choices = options if isinstance(options, list) else []
        value = actual[key]
        if not any(
            values_match(value, o, strict)
            for o in choices
            if o != OMITTED or isinstance(value, str)
        ):
            return False
    return all(key in allowed for key in actual)


def mismatch(
    expected: ExpectedCall, name: str, arguments: Mapping[str, JSON], strict: bool = False
) -> str | None:
    """Why an actual call does not match an expected one (``None`` when it does).

    With ``strict`` a string must be one of the allowed values exactly as written: BFCL's
    leniency is for a call's wording, and a call the environment refused is the expected
    call only when it is that call (``w1001`` for ``W1001`` is refused as another order).
    """
    if name != expected.name:
        return f"function {name!r} is not {expected.name!r}"
    for arg in expected.required():
        if arg not in arguments:
            return f"argument {arg!r} is missing"
    for arg, value in arguments.items():
        if arg not in expected.allowed:
            return f"argument {arg!r} is not expected"
        options = [v for v in expected.allowed[arg] if v != OMITTED or isinstance(value, str)]
        if not any(values_match(value, option, strict) for option in options):
            return f"argument {arg!r}: {value!r} is not among {list(expected.allowed[arg])!r}"
    return None


@dataclass(frozen=True, slots=True)
class Matching:
    """Pairs ``(expected index, actual index)`` and what stayed unmatched on either side."""

    pairs: tuple[tuple[int, int], ...]
    unmatched_expected: tuple[int, ...]
    unmatched_actual: tuple[int, ...]


def match_calls(
    expected: Sequence[ExpectedCall], actual: Sequence[tuple[str, Mapping[str, JSON]]]
) -> Matching:
    """A maximum matching of expected calls to actual ``(name, arguments)`` calls, any order."""
    fits = [
        [j for j, (name, args) in enumerate(actual) if mismatch(e, name, args) is None]
        for e in expected
    ]
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in fits[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    for i in range(len(expected)):
        augment(i, set())
    pairs = tuple(sorted((i, j) for j, i in owner.items()))
    matched_e = {i for i, _ in pairs}
    return Matching(
        pairs,
        tuple(i for i in range(len(expected)) if i not in matched_e),
        tuple(j for j in range(len(actual)) if j not in owner),
    )
