"""Grounded claims: the figures and ids a final answer states must come from what the agent saw.

The *evidence* is what the tools returned (the replayed results with an environment, else the
recorded ones, refusals included), the prompt (system, developer and user
messages, a BFCL ``question``) and the task's own facts. Numbers are read by the shared reader
(:mod:`assay.verifiers.reading`, through :func:`.facts.numbers_in`), so ``$412.50``, ``412.5``
and "four hundred twelve dollars and fifty cents" are one figure.

A figure of the answer is *supported* when it equals (relative tolerance 1e-6) a number of the
evidence, the sum or difference of two of them, or the sum of the numbers of one tool result
(a total the agent added up). Products are not tried: ``10 x 45`` would excuse a ``$450`` for a
``$45`` refund. Only amounts are added: in a tool result that is JSON, its numeric values and
the figures of its strings that carry a currency, a percent sign, a decimal point or
thousands separators; a bare integer inside a string (the 9 of "9 Oak Rd", a zip code, an id's
digits) is evidence for itself only, so it cannot excuse a total it was added to. A comma
between a word and digits is a cell separator (``feb,12`` of a CSV file is 12). An *id* is a
token of three or more letters and digits
with at least one of each (``W1001``, ``1Z999AA10123456784``; not ``3rd``, ``10am``, ``5kg``); it
is supported when it occurs, case-insensitively, in the evidence.

Modes (the task's ``grounding`` key):

- ``consistent`` (default; applies once the trajectory has a tool result): every figure other
  than a small count (an integer from 0 to 10 written without a currency or percent: "2 items",
  not "a $10 credit") and every id must be supported: a made-up total, refund or tracking
  number contradicts what the tools said;
- ``strict``: every figure and id, small counts included, and also without tool results;
- ``off``: no check.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from assay.verifiers.agent.facts import figure_values, numbers_in
from assay.verifiers.reading import scan_numbers
from assay.verifiers.reading.numbers import Figure

_ID = re.compile(r"(?<![\w-])[A-Za-z0-9][A-Za-z0-9-]{2,}(?![\w-])")
_UNIT = re.compile(
    r"^\d+(?:st|nd|rd|th|am|pm|h|hr|hrs|s|m|min|mins|k|kg|g|km|cm|mm|ml|l|gb|mb|kb|x|d)$", re.I
)
_CELL_COMMA = re.compile(r"(?<=[^\W\d_]),(?=\d)")
"""A comma glued between a letter and a digit: a CSV cell boundary (``feb,12``), never the
thousands separator of a number (which follows a digit)."""
MAX_PAIRWISE = 300
"""Evidence numbers beyond which sums and products of pairs are not tried (quadratic)."""


@dataclass(frozen=True, slots=True)
class Grounding:
    """Unsupported figures and ids of an answer (both empty: grounded)."""

    figures: tuple[float, ...]
    ids: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.figures and not self.ids


def answer_ids(text: str) -> list[str]:
    """Id-like tokens: letters and digits mixed, three characters or more, not a unit."""
    found = []
    for match in _ID.finditer(text):
        token = match.group(0).strip("-")
        has_digit = any(c.isdigit() for c in token)
        has_alpha = any(c.isalpha() for c in token)
        if has_digit and has_alpha and len(token) >= 3 and not _UNIT.match(token):
            found.append(token)
    return found


def _supported_numbers(evidence: Sequence[str], extra: Iterable[float]) -> list[float]:
    amounts: list[float] = list(extra)
    alone: list[float] = []
    totals: list[float] = []
    for text in evidence:
        summable, single = _evidence_numbers(text)
        amounts.extend(summable)
        alone.extend(single)
        if len(summable) > 1:
            totals.append(math.fsum(summable))
    unique = sorted(set(amounts))
    derived = list(unique) + alone + totals
    if len(unique) <= MAX_PAIRWISE:
        for i, a in enumerate(unique):
            for b in unique[i:]:
                derived.extend((a + b, abs(a - b)))
    return derived


def _evidence_numbers(text: str) -> tuple[list[float], list[float]]:
    """A tool result's numbers: those that may be added up, and those that stand alone.

    Text that is not JSON gives every number as an amount (as before); a JSON result gives its
    numeric values and the amount-like figures of its strings (:func:`_is_amount`), and the
    other figures of its strings alone.
    """
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        return numbers_in(_CELL_COMMA.sub(", ", text)), []
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return numbers_in(text), []
    summable: list[float] = []
    single: list[float] = []
    for value in _leaves(data):
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            if math.isfinite(value):
                summable.append(float(value))
        elif isinstance(value, str):
            for figure in scan_numbers(_CELL_COMMA.sub(", ", value)).figures:
                numbers = figure_values(figure)
                (summable if _is_amount(figure) else single).extend(numbers)
    return summable, single


def _leaves(data: object) -> Iterator[object]:
    """The scalar values of decoded JSON (keys included: a key may hold a figure), iteratively."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        else:
            yield item


def _is_amount(figure: Figure) -> bool:
    return (
        figure.currency is not None
        or figure.percent
        or figure.decimals > 0
        or figure.grouped
        or figure.scale is not None
    )


def _stated(answer: str, strict: bool) -> list[float]:
    """The answer's figures to support: all (``strict``), else all but small bare counts."""
    found: list[float] = []
    for figure in scan_numbers(answer).figures:
        values = figure_values(figure)
        count = (
            values[0].is_integer() and 0 <= values[0] <= 10
            and figure.currency is None and not figure.percent and figure.scale is None
        )  # fmt: skip
        if strict or not count:
            found.extend(values)
    return found


def check_grounding(
    answer: str,
    evidence: Sequence[str],
    *,
    fact_numbers: Iterable[float] = (),
    strict: bool = False,
) -> Grounding:
    """The figures and ids of ``answer`` that ``evidence`` does not support (rules above)."""
    stated = _stated(answer, strict)
    unsupported_figures: list[float] = []
    if stated:
        supported = sorted(_supported_numbers(evidence, fact_numbers))
        for figure in dict.fromkeys(stated):
            slack = max(abs(figure) * 1e-6, 1e-9)
            at = bisect.bisect_left(supported, figure - slack)
            if at < len(supported) and supported[at] <= figure + slack:
                continue
            unsupported_figures.append(figure)
    haystack = "\n".join(evidence).casefold()
    ids = [token for token in dict.fromkeys(answer_ids(answer)) if token.casefold() not in haystack]
    return Grounding(tuple(unsupported_figures), tuple(ids))
