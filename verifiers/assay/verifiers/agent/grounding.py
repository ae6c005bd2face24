"""Grounded claims: the figures and ids a final answer states must come from what the agent saw.

The *evidence* is what the tools returned (the replayed results with an environment, else the
recorded ones, refusals included), the prompt (system, developer and user
messages, a BFCL ``question``) and the task's own facts. Numbers are read by the shared reader
(:mod:`assay.verifiers.reading`, through :func:`.facts.numbers_in`), so ``$412.50``, ``412.5``
and "four hundred twelve dollars and fifty cents" are one figure.

A figure of the answer is *supported* when it equals (relative tolerance 1e-6) a number of the
evidence, the sum or difference of two of them, or the sum of the numbers of one tool result
(a total the agent added up). Products are not tried: ``10 x 45`` would excuse a ``$450`` for a
``$45`` refund. An *id* is a token of three or more letters and digits
with at least one of each (``W1001``, ``1Z999AA10123456784``; not ``3rd``, ``10am``, ``5kg``); it
is supported when it occurs, case-insensitively, in the evidence.

Modes (the task's ``grounding`` key):

- ``consistent`` (default; applies once the trajectory has a tool result): every figure other
  than a small count (an integer from 0 to 10) and every id must be supported: a made-up total,
  refund or tracking number contradicts what the tools said;
- ``strict``: every figure and id, small counts included, and also without tool results;
- ``off``: no check.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from assay.verifiers.agent.facts import numbers_in

_ID = re.compile(r"(?<![\w-])[A-Za-z0-9][A-Za-z0-9-]{2,}(?![\w-])")
_UNIT = re.compile(
    r"^\d+(?:st|nd|rd|th|am|pm|h|hr|hrs|s|m|min|mins|k|kg|g|km|cm|mm|ml|l|gb|mb|kb|x|d)$", re.I
)
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
    numbers: list[float] = list(extra)
    totals: list[float] = []
    for text in evidence:
        found = numbers_in(text)
        numbers.extend(found)
        if len(found) > 1:
            totals.append(math.fsum(found))
    unique = sorted(set(numbers))
    derived = list(unique) + totals
    if len(unique) <= MAX_PAIRWISE:
        for i, a in enumerate(unique):
            for b in unique[i:]:
                derived.extend((a + b, abs(a - b)))
    return derived


def check_grounding(
    answer: str,
    evidence: Sequence[str],
    *,
    fact_numbers: Iterable[float] = (),
    strict: bool = False,
) -> Grounding:
    """The figures and ids of ``answer`` that ``evidence`` does not support (rules above)."""
    stated = numbers_in(answer)
    if not strict:
        stated = [n for n in stated if not (n.is_integer() and 0 <= n <= 10)]
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
