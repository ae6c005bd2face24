"""What a response claims: a JSON object of fields, or a final answer, and whether it refuses.

Final answers are looked for, in order: a JSON object with an ``answer`` key, ``\\boxed{...}``,
the last line that starts with ``Final answer:``, ``Answer:`` or ``####``; failing those, the
last figure in the text. Four-digit years (``in 2024``) are skipped when any other figure is
there, so "In 2024 revenue grew by 12.5%" answers 12.5%.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from assay.verifiers.finance.numbers import (
    Amount,
    amount_from_number,
    declared_scale,
    find_amounts,
    parse_amount,
    scale_of_label,
)

from assay.types import JSON

_MAX_OBJECT_STARTS = 400
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")
_MARKER = re.compile(
    r"^[ \t>*_#-]*(?:final\s+answer|answer)\s*(?:is)?\s*[:=]\s*(?P<rest>.+)$"
    r"|^\s*####\s*(?P<hash>.+)$",
    re.IGNORECASE | re.MULTILINE,
)
_REFUSAL = re.compile(
    r"""
    \b(?:cannot|can't|can\s+not|unable\s+to|not\s+able\s+to)\s+(?:be\s+)?
        (?:determine|determined|answer|answered|calculate|calculated|find|found|compute|computed)
    | \b(?:not|never)\s+(?:disclosed|reported|provided|stated|available|given|presented)\b
    | \b(?:insufficient|not\s+enough|no)\s+(?:information|data)\b
    | \bi\s+(?:do\s+not|don't)\s+know\b
    | ^\s*n/?a\s*\.?\s*$
    """,
    re.IGNORECASE | re.VERBOSE | re.MULTILINE,
)
_HEDGE = re.compile(r"\s(?:or|and/or)\s", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class FinalAnswer:
    """The final answer of a response.

    Attributes:
        text: The span the answer was read from.
        method: How it was found (``json``, ``boxed``, ``marker``, ``last_figure``).
        page: A page the response cites for it, if any.
        quote: Evidence the response quotes for it, if any.
    """

    text: str
    method: str
    page: int | None = None
    quote: str | None = None


@dataclass(frozen=True, slots=True)
class ClaimedField:
    """One field value a response gives (``amount`` is ``None`` when it gave no number)."""

    name: str
    amount: Amount | None
    scale: str | None = None
    page: int | None = None
    quote: str | None = None


def extract_object(text: str) -> dict[str, JSON] | None:
    """The last JSON object in ``text`` (fenced or bare), or ``None``."""
    decoder = json.JSONDecoder()
    starts = [m.start() for m in re.finditer(r"\{", text)][-_MAX_OBJECT_STARTS:]
    best: tuple[int, dict[str, JSON]] | None = None
    for start in starts:
        if best is not None and start < best[0]:
            continue  # inside an object already decoded
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, dict):
            best = (end, value)
    return best[1] if best is not None else None


def read_value(value: JSON) -> Amount | None:
    """The amount a JSON value states: a number, or a string read like a final answer."""
    if isinstance(value, str):
        amount = parse_amount(value)
        if amount is None:
            amount, hedged = answer_amount(value)
            amount = None if hedged else amount
        return amount
    return amount_from_number(value)


def read_fields(data: Mapping[str, JSON]) -> dict[str, ClaimedField]:
    """The fields of a response object (top level, or under ``fields``).

    A ``scale`` (or ``units``) string beside the fields, or on one field, says the scale of
    bare values ("thousand", "in millions"); a scale nobody can read makes the value unreadable.
    """
    inner = data.get("fields")
    source = inner if isinstance(inner, Mapping) else data
    shared = _scale_key(data)
    claimed = {}
    for name, raw in source.items():
        if name in ("scale", "units"):
            continue
        item = raw if isinstance(raw, Mapping) else {"value": raw}
        scale = _scale_key(item) if any(k in item for k in ("scale", "units")) else shared
        amount = read_value(item.get("value"))
        claimed[name] = ClaimedField(
            name=name,
            amount=None if scale == "" else amount,
            scale=scale or None,
            page=_page(item.get("page")),
            quote=_quote(item),
        )
    return claimed


def _scale_key(data: Mapping[str, JSON]) -> str | None:
    """The scale named under ``scale``/``units``: ``None`` if absent, ``""`` if unreadable."""
    label = data.get("scale", data.get("units"))
    if label is None:
        return None
    return (scale_of_label(label) or "") if isinstance(label, str) else ""


def final_answer(text: str) -> FinalAnswer | None:
    """The final answer span of a response, or ``None`` when it has none."""
    data = extract_object(text)
    if data is not None and "answer" in data:
        answer = data["answer"]
        return FinalAnswer(
            text="" if answer is None else str(answer),
            method="json",
            page=_page(data.get("page")),
            quote=_quote(data),
        )
    boxed = _BOXED.findall(text)
    if boxed:
        return FinalAnswer(boxed[-1].strip(), "boxed")
    markers = list(_MARKER.finditer(text))
    if markers:
        last = markers[-1]
        span = (last.group("rest") or last.group("hash") or "").strip()
        return FinalAnswer(span, "marker")
    figures = [a for a in find_amounts(text) if not a.is_year_like]
    if figures:
        return FinalAnswer(figures[-1].text, "last_figure")
    return None


def answer_amount(span: str) -> tuple[Amount | None, bool]:
    """The figure a final-answer span states, and whether it hedges between several."""
    figures = find_amounts(span)
    values = [a for a in figures if not a.is_year_like] or figures
    if not values:
        return None, False
    distinct = {(a.value, a.percent) for a in values}
    hedged = len(distinct) > 1 and _HEDGE.search(span) is not None
    first = values[0]
    header = declared_scale(span)
    if first.scale is None and not first.percent and header is not None:
        first = replace(first, scale=header)  # "24.175 (in millions)"
    return first, hedged


def is_refusal(text: str) -> bool:
    """Whether the text declines to answer ("cannot be determined", "not disclosed", "N/A")."""
    return _REFUSAL.search(text) is not None


def _page(value: JSON) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _quote(data: Mapping[str, JSON]) -> str | None:
    for key in ("evidence", "quote"):
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None
