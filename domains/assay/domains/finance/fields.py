"""Scoring a field-extraction response: per-field correctness, grounding, identities, F1."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal

from assay.domains.finance.task import FieldSpec, Task
from assay.verifiers.finance import (
    SCALES,
    ClaimedField,
    Document,
    RuleOutcome,
    check_rules,
    compare,
    extract_object,
    ground_quote,
    ground_value,
    read_fields,
)

from assay.types import JSON, Check, StepResult, Verdict


@dataclass(frozen=True, slots=True)
class FieldResult:
    """How one expected field fared."""

    name: str
    claimed: bool
    matched: bool
    grounded: bool | None
    message: str
    reading: Decimal | None
    evidence: dict[str, JSON] = field(default_factory=dict)


def score_fields(task: Task, response: str, document: Document) -> Verdict:
    """Per-field verdict with precision, recall and F1 over fields as the score."""
    data = extract_object(response)
    if data is None:
        return Verdict.unparsable("no JSON object of field values in the response")
    claimed = {n: c for n, c in read_fields(data).items() if c.amount is not None}
    if not claimed:
        return Verdict.unparsable("the response's JSON object holds no numeric field values")
    results = {
        spec.name: _judge(spec, claimed.get(spec.name), task, document) for spec in task.fields
    }
    readings = {n: r.reading for n, r in results.items() if r.reading is not None}
    outcomes = check_rules(task.rules, readings, _units(task, claimed))
    results = _apply_rules(task, results, outcomes)
    expected = {spec.name for spec in task.fields}
    extras = sorted(set(claimed) - expected)
    true_pos = sum(1 for r in results.values() if r.matched)
    precision = true_pos / len(claimed)
    recall = true_pos / len(task.fields)
    f1 = 0.0 if true_pos == 0 else 2 * precision * recall / (precision + recall)
    checks = [
        Check(
            "fields",
            true_pos == len(task.fields) and not extras,
            round(f1, 4),
            f"{true_pos}/{len(task.fields)} fields right, {len(extras)} extra",
            {
                "precision": round(precision, 4),
                "recall": round(recall, 4),
                "f1": round(f1, 4),
                "missing": sorted(n for n, r in results.items() if not r.claimed),
                "extra": extras,
            },
        ),
        _grounding_check(results),
    ]
    if outcomes:
        checks.append(consistency_check(outcomes))
    steps = tuple(
        StepResult(i, r.name, r.matched, 1.0 if r.matched else 0.0, r.message, r.evidence)
        for i, r in enumerate(results.values())
    )
    return Verdict.graded(
        round(f1, 4), tuple(checks), steps, None if f1 >= 1.0 else checks[0].message
    )


def _judge(
    spec: FieldSpec, claim: ClaimedField | None, task: Task, document: Document
) -> FieldResult:
    if claim is None or claim.amount is None:
        return FieldResult(spec.name, False, False, None, "missing", None)
    amount = claim.amount
    if spec.figure is None:
        factor = SCALES[amount.scale or claim.scale or spec.scale]
        reading: Decimal | None = amount.value * factor
        matched, message = True, "no labelled value: checked by the rules"
    else:
        outcome = compare(amount, spec.figure, claim.scale)
        reading, matched, message = outcome.reading, outcome.matched, outcome.reason
    grounded = _grounded(claim, reading, document)
    if grounded is False:
        message = f"{message}; cited page {claim.page} does not show it"
        if task.grounding == "score":
            matched = False
    evidence: dict[str, JSON] = {
        "given": amount.text,
        "expected": spec.figure.describe() if spec.figure else None,
        "page": claim.page,
        "grounded": grounded,
    }
    return FieldResult(spec.name, True, matched, grounded, message, reading, evidence)


def _grounded(claim: ClaimedField, reading: Decimal | None, document: Document) -> bool | None:
    if claim.page is None or claim.amount is None:
        return None
    value = ground_value(document, claim.page, claim.amount, reading)
    if not value.grounded:
        return False
    if claim.quote is not None:
        return ground_quote(document, claim.page, claim.quote).grounded
    return True


def _units(task: Task, claimed: dict[str, ClaimedField]) -> dict[str, Decimal]:
    units = {}
    for spec in task.fields:
        if spec.figure is not None:
            units[spec.name] = Decimal(1).scaleb(-spec.figure.decimals) * spec.figure.multiplier
        elif spec.name in claimed:
            amount = claimed[spec.name].amount
            decimals = amount.decimals if amount is not None else 0
            units[spec.name] = Decimal(1).scaleb(-decimals) * SCALES[spec.scale]
    return units


def _apply_rules(
    task: Task, results: dict[str, FieldResult], outcomes: list[RuleOutcome]
) -> dict[str, FieldResult]:
    """Fields without a labelled value count only when every rule naming them holds."""
    unlabelled = {spec.name for spec in task.fields if spec.figure is None}
    out = dict(results)
    for name in unlabelled:
        result = out[name]
        if not result.claimed:
            continue
        mine = [o for o in outcomes if name in o.rule.fields]
        if all(o.passed is True for o in mine):
            continue
        failed = "; ".join(o.message for o in mine if o.passed is not True)
        out[name] = replace(result, matched=False, message=failed)
    return out


def _grounding_check(results: dict[str, FieldResult]) -> Check:
    cited = [r for r in results.values() if r.grounded is not None]
    ungrounded = [r.name for r in cited if r.grounded is False]
    evidence: dict[str, JSON] = {"cited": len(cited), "ungrounded": ungrounded}
    if not cited:
        return Check("grounding", True, None, "no page cited", evidence)
    if ungrounded:
        return Check(
            "grounding", False, None, f"not on the cited page: {', '.join(ungrounded)}", evidence
        )
    return Check("grounding", True, None, f"all {len(cited)} cited values on their pages", evidence)


def consistency_check(outcomes: list[RuleOutcome]) -> Check:
    """One check over the rules' outcomes; it fails when any identity fails."""
    failed = [o for o in outcomes if o.passed is False]
    evidence: dict[str, JSON] = {
        "rules": [
            {"rule": o.rule.name, "passed": o.passed, "message": o.message, **o.evidence}
            for o in outcomes
        ]
    }
    if failed:
        return Check("consistency", False, None, "; ".join(o.message for o in failed), evidence)
    checked = sum(1 for o in outcomes if o.passed)
    return Check("consistency", True, None, f"{checked}/{len(outcomes)} identities hold", evidence)
