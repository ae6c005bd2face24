"""Scoring a consistency task: the response's yes/no claim and the gap it states.

The identity and its gap come from the document (:mod:`assay.domains.finance.statement`). A
response is correct when its claim is right ("yes" when the identity holds within rounding,
"no" when it does not) and the gap it states is the computed one, at the statement's reported
precision, sign ignored ("misses by 7,904" and "a gap of -7,904" both state 7,904). A "yes"
may leave the gap out or state 0; a "no" must state the gap. The claim is read from a JSON
object (``consistent``: true/false or "yes"/"no", ``gap``) or from the prose: a leading "Yes"
or "No", else words such as "does not match", "inconsistent", "misses by" (no) or "holds",
"balances", "is consistent" (yes).
"""

from __future__ import annotations

import re
from dataclasses import replace

from assay.domains.finance.statement import LineNotFoundError, compute_gap
from assay.domains.finance.task import Task
from assay.verifiers.finance import Document, Figure, compare, extract_object
from assay.verifiers.finance.answers import read_value
from assay.verifiers.finance.compare import plain
from assay.verifiers.finance.numbers import Amount, find_amounts, scale_of_label
from assay.verifiers.reading import prepare

from assay.errors import MalformedTaskError
from assay.types import JSON, Check, Verdict

_LEADING = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
_VERBS = r"(?:match|hold|balance|agree|tie|reconcile|equal|add\s+up|satisfy|foot|sum)"
_NO = re.compile(
    rf"\b(?:(?:does|do|did)\s+not\s+{_VERBS}|(?:doesn't|don't|didn't)\s+{_VERBS}"
    r"|not\s+consistent|inconsistent|miss(?:es|ed)?\s+by|fails?\s+to|is\s+off\s+by"
    r"|(?:is|are)\s+not\s+(?:equal|balanced|consistent))\b",
    re.IGNORECASE,
)
"""Words that say the identity fails (a "does not" counts only before a verb of agreeing:
"so they do not differ" and "I did not find any discrepancy" say that it holds)."""
_YES = re.compile(
    r"\b(?:is\s+consistent|are\s+consistent|holds?|matches|satisfies"
    r"|(?:sheet|it|they|this|that|which|identity|equation|everything|totals?|figures?|assets"
    r"|sides|books|numbers)\s+(?:still\s+|also\s+|do\s+|does\s+)?balances?(?!\s+sheet)"
    r"|balances?\s+(?:out|correctly|exactly|perfectly)|(?:is|are)\s+balanced"
    r"|(?:do|does|did)\s+not\s+differ|(?:don't|doesn't|didn't)\s+differ"
    r"|(?:no|not\s+any|find\s+no|found\s+no)\s+(?:discrepancy|difference|gap|mismatch)"
    r"|did\s+not\s+find\s+any\s+(?:discrepancy|difference|gap|mismatch))\b",
    re.IGNORECASE,
)
_GAP_WORD = re.compile(
    r"\b(?:gap|miss(?:es|ed)?\s+by|(?:off|out|short|inconsistent|disagree|disagrees)\s+by"
    r"|differ(?:s|ence)?"
    r"|discrepancy|mismatch)\b",
    re.IGNORECASE,
)
_GAP_WINDOW = 80


def score_identity(task: Task, response: str, document: Document) -> Verdict:
    """Correct when the claim is right and the stated gap is the document's."""
    identity = task.identity
    if identity is None:
        raise MalformedTaskError("a consistency task needs its 'consistency' identity")
    try:
        computed = compute_gap(identity, document)
    except LineNotFoundError as exc:
        raise MalformedTaskError(f"consistency: {exc}") from exc
    gap = Figure(value=abs(computed.gap), scale=task.scale, decimals=computed.decimals)
    evidence: dict[str, JSON] = {
        "identity": identity.describe(),
        "gap": plain(computed.gap),
        "holds": computed.holds,
        "values": dict(computed.values),
    }
    text = prepare(response)
    try:
        claim, stated = _read_claim(text)
    except _BothClaimsError:
        check = Check("claim", False, message="claims both that the identity holds and that it "
                      "fails", evidence=evidence)  # fmt: skip
        return Verdict.incorrect((check,), message=check.message)
    if claim is None:
        return Verdict.unparsable("no yes/no claim about the identity in the response")
    claim_ok = claim == computed.holds
    checks = [
        Check(
            "claim",
            claim_ok,
            message=f"claims the identity {'holds' if claim else 'fails'}; it "
            f"{'holds' if computed.holds else f'misses by {plain(abs(computed.gap))}'}",
            evidence=evidence,
        )
    ]
    if stated is None:
        gap_ok = claim and computed.holds
        message = "no gap stated" + ("" if gap_ok else f"; the gap is {gap.describe()}")
        checks.append(Check("gap", gap_ok, message=message))
    else:
        outcome = compare(_magnitude(stated), gap)
        checks.append(Check("gap", outcome.matched, message=outcome.reason))
    if all(c.passed for c in checks):
        return Verdict.correct(tuple(checks))
    failed = next(c for c in checks if not c.passed)
    return Verdict.incorrect(tuple(checks), message=failed.message)


def _magnitude(amount: Amount) -> Amount:
    return Amount(
        value=abs(amount.value),
        decimals=amount.decimals,
        scale=amount.scale,
        currency=amount.currency,
        percent=amount.percent,
        text=amount.text,
    )


class _BothClaimsError(Exception):
    """The response says both that the identity holds and that it fails ("It matches. Actually
    it does not match: it is off by 7,904"): a hedge between the two claims, not a claim."""


def _read_claim(text: str) -> tuple[bool | None, Amount | None]:
    data = extract_object(text)
    if data is not None and any(k in data for k in ("consistent", "answer")):
        raw = data.get("consistent", data.get("answer"))
        if "gap" in data:
            stated = _gap_value(data["gap"])
        else:
            stated = _stated_gap(raw) if isinstance(raw, str) else None  # "No, the gap is 7,904"
        return _yes_no(raw), stated
    leading = _LEADING.match(text)
    no, yes = _NO.search(text) is not None, _YES.search(text) is not None
    if leading:  # a leading answer, then its reasons ("Yes: it does not differ")
        claim: bool | None = leading.group(1).lower() == "yes"
    elif no and yes:
        raise _BothClaimsError
    elif no:
        claim = False
    elif yes:
        claim = True
    else:
        claim = None
    return claim, _stated_gap(text)


def _gap_value(value: JSON) -> Amount | None:
    """A gap given in JSON: a number, a string, or ``{"value": ..., "scale": ...}``."""
    if isinstance(value, dict):
        amount = read_value(value.get("value"))
        label = value.get("scale", value.get("units"))
        scale = scale_of_label(label) if isinstance(label, str) else None
        if amount is not None and scale is not None and amount.scale is None:
            amount = replace(amount, scale=scale)
        return amount
    return read_value(value)


def _yes_no(value: JSON) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        match = _LEADING.match(value)
        if match:
            return match.group(1).lower() == "yes"
    return None


def _stated_gap(text: str) -> Amount | None:
    """The first figure after the last gap word ("misses by $7,904 thousand", "gap of 0")."""
    found: Amount | None = None
    for match in _GAP_WORD.finditer(text):
        window = text[match.end() : match.end() + _GAP_WINDOW]
        figures = [a for a in find_amounts(window) if not a.is_year_like]
        if figures:
            found = figures[0]
    return found
