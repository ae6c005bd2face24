"""Consistency tasks: does a statement satisfy an accounting identity, and by how much does it miss?

Reference key ``consistency`` (beside ``document``, ``scale``, ``unit``, ``question``):

- ``{"kind": "sum", "total": LINE, "parts": [LINE, ...], "column": YEAR}``: the total line
  equals the sum of the parts in that year's column; a part written ``"-Cost of revenue"`` is
  subtracted.
- ``{"kind": "change", "total": LINE, "line": LINE, "column": YEAR, "prior": YEAR}``: the
  total line (a "net change") equals ``line`` in ``column`` minus ``line`` in ``prior``.

Lines are named as printed ("Total shareholders' equity"; case and spacing ignored, a note
marker such as ``(1)`` after the label skipped); a column is found by the header row of years
above the line. The verifier computes the gap (total minus the identity's other side) from
the document itself; the identity holds when the gap is within rounding (half a reported unit
per line beside the total).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from assay.verifiers.finance import Document, find_amounts

from assay.types import JSON

IDENTITY_KINDS = ("sum", "change")
_IDENTITY_KEYS = {
    "sum": frozenset(["kind", "total", "parts", "column"]),
    "change": frozenset(["kind", "total", "line", "column", "prior"]),
}
_YEAR_HEADER = re.compile(r"^\s*((?:(?:19|20)\d\d\s*)+)$")
_NOTE = re.compile(r"^\s*\(\d{1,2}\)")
_FIGURES_ONLY = re.compile(r"^[\s\d,.()\-−–$]+$")


@dataclass(frozen=True, slots=True)
class Identity:
    """An identity to check in a document: ``total`` = sum of ``sign * (line, column)``."""

    kind: str
    total: tuple[str, str]
    terms: tuple[tuple[int, str, str], ...]

    def describe(self) -> str:
        right = " ".join(
            f"{'+' if sign > 0 else '-'} {line} ({column})" for sign, line, column in self.terms
        ).lstrip("+ ")
        return f"{self.total[0]} ({self.total[1]}) = {right}"


def read_identity(spec: JSON) -> Identity:
    """An :class:`Identity` from a reference's ``consistency`` object.

    Raises:
        ValueError: an unknown kind or key, or a missing or non-string line or column.
    """
    if not isinstance(spec, Mapping):
        raise ValueError("consistency must be an object with kind, total and parts or line")
    kind = spec.get("kind")
    if kind not in IDENTITY_KINDS:
        raise ValueError(f"consistency kind must be one of {IDENTITY_KINDS}, got {kind!r}")
    unknown = sorted(set(spec) - _IDENTITY_KEYS[str(kind)])
    if unknown:
        raise ValueError(f"unknown consistency key {unknown[0]!r} for kind {kind!r}")
    total = _name(spec, "total")
    column = _name(spec, "column")
    if kind == "change":
        line = _name(spec, "line")
        prior = _name(spec, "prior")
        return Identity("change", (total, column), ((1, line, column), (-1, line, prior)))
    parts = spec.get("parts")
    if not isinstance(parts, list) or not parts:
        raise ValueError("a sum identity needs 'parts': a non-empty list of line names")
    terms = []
    for part in parts:
        if not isinstance(part, str) or not part.strip().lstrip("-").strip():
            raise ValueError(f"a part must be a line name, got {part!r}")
        negative = part.strip().startswith("-")
        terms.append((-1 if negative else 1, part.strip().lstrip("-").strip(), column))
    return Identity("sum", (total, column), tuple(terms))


def _name(spec: Mapping[str, JSON], key: str) -> str:
    value = spec.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"consistency needs {key!r}: a line name or a year, as printed")
    return value.strip()


@dataclass(frozen=True, slots=True)
class Gap:
    """An identity computed from the document: its gap, whether it holds, and the values."""

    gap: Decimal
    holds: bool
    decimals: int
    values: dict[str, str]


class LineNotFoundError(ValueError):
    """A line or column the identity names is not printed in the document."""


def compute_gap(identity: Identity, document: Document) -> Gap:
    """The identity's gap (total minus the other side), in the statement's reported units.

    Raises:
        LineNotFoundError: a line or a column is not in the document.
    """
    lines = _statement_lines(document)
    total_value, decimals = _value(lines, *identity.total)
    values = {f"{identity.total[0]} ({identity.total[1]})": str(total_value)}
    other = Decimal(0)
    for sign, line, column in identity.terms:
        value, places = _value(lines, line, column)
        decimals = max(decimals, places)
        values[f"{line} ({column})"] = str(value)
        other += sign * value
    gap = total_value - other
    unit = Decimal(1).scaleb(-decimals)
    holds = abs(gap) <= unit * Decimal(len(identity.terms)) / 2
    return Gap(gap, holds, decimals, values)


def _statement_lines(document: Document) -> list[tuple[tuple[str, ...], str]]:
    """Every text line of the document with the year header in force above it."""
    out: list[tuple[tuple[str, ...], str]] = []
    for number in range(1, document.page_count + 1):
        page = document.page(number)
        if page is None:
            break
        header: tuple[str, ...] = ()
        for line in page.text.splitlines():
            match = _YEAR_HEADER.match(line)
            if match:
                header = tuple(match.group(1).split())
                continue
            if header:
                out.append((header, line))
    return out


def _fold(text: str) -> str:
    return " ".join(text.replace("’", "'").casefold().split())


def _value(
    lines: list[tuple[tuple[str, ...], str]], label: str, column: str
) -> tuple[Decimal, int]:
    wanted = _fold(label)
    for header, line in lines:
        folded = _fold(line)
        if not folded.startswith(wanted):
            continue
        rest = line.strip()[len(label) :] if _fold(line.strip()[: len(label)]) == wanted else ""
        rest = _NOTE.sub("", rest)
        if not rest.strip() or not _FIGURES_ONLY.match(rest):
            continue
        figures = find_amounts(rest)
        if len(figures) != len(header) or column not in header:
            continue
        figure = figures[header.index(column)]
        return figure.value, figure.decimals
    raise LineNotFoundError(f"line {label!r} in column {column!r} is not in the document")
