"""Scoring a question's final answer: a figure at the labelled precision, a text, or a refusal."""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal

from assay.domains.finance.fields import consistency_check
from assay.domains.finance.task import Task
from assay.verifiers.finance import (
    SCALES,
    Amount,
    Document,
    FinalAnswer,
    answer_amount,
    check_rules,
    compare,
    extract_object,
    final_answer,
    ground_quote,
    ground_value,
    is_refusal,
    normalize_text,
    read_fields,
)
from assay.verifiers.finance.answers import apply_sign, opposite_item
from assay.verifiers.finance.compare import PERCENT
from assay.verifiers.reading import is_plausible_year, scan_numbers
from assay.verifiers.reading.sentence import drop_asides, last_sentence

from assay.types import Check, Verdict

_SPAN_SEPARATOR = re.compile(r"\s*(?:[,;]|\band\b|&)\s*", re.IGNORECASE)


def score_question(task: Task, response: str, document: Document | None) -> Verdict:
    """Correct or incorrect; ``unparsable`` when the response commits to no answer.

    ``document`` is ``None`` for a FinQA or TAT-QA row (no PDF: nothing to ground on).
    """
    yes_no = bool(task.text_answers) and {t.strip().lower() for t in task.text_answers} <= {
        "yes",
        "no",
    }
    found = final_answer(
        response,
        year_answer=task.year_answer,
        text_answer=bool(task.spans or task.text_answers),
        yes_no=yes_no,
        change=task.sign == "signed" and task.answer is not None,
    )
    refused = _refuses(found, response, year_answer=task.year_answer)
    if not task.answerable:
        return _unanswerable(found, refused)
    if refused:
        check = Check("refusal", False, message="declined to answer an answerable question")
        return Verdict.incorrect((check,), message=check.message)
    if found is None or not found.text.strip():
        return Verdict.unparsable("no final answer in the response")
    extraction = Check(
        "extraction", True, message=found.text[:200], evidence={"method": found.method}
    )
    if task.spans:
        answer_check = _spans_check(task, found)
    elif task.text_answers:
        answer_check = _text_check(task, found)
    else:
        figure_check = _figure_check(task, found)
        if figure_check is None:
            return Verdict.unparsable("the final answer holds no figure", (extraction,))
        answer_check = _named_item_check(task, found, response, figure_check)
    checks = [extraction, answer_check]
    grounding = _grounding(found, document, task) if document is not None else None
    if grounding is not None:
        checks.append(grounding)
    consistency = _reasoning_check(task, response)
    if consistency is not None:
        checks.append(consistency)
    ok = (
        answer_check.passed
        and (grounding is None or grounding.passed or task.grounding == "report")
        and (consistency is None or consistency.passed)
    )
    if ok:
        return Verdict.correct(tuple(checks))
    failed = next(c for c in checks if not c.passed)
    return Verdict.incorrect(tuple(checks), message=failed.message)


def _refuses(found: FinalAnswer | None, response: str, *, year_answer: bool = False) -> bool:
    """Whether the response declines: no answer and refusal words, a marked answer that is
    words of refusal, or (unless the answer is a year) a last figure that is only the year a
    refusing last sentence names ("the 2023 headcount is not disclosed")."""
    if found is None:
        return is_refusal(response)
    if found.method == "last_figure":
        if year_answer:
            return False
        amount = answer_amount(found.text)[0]
        year = amount is not None and is_plausible_year(amount.value, amount.text)
        return year and _refusing_clause(response, found.text)
    return is_refusal(found.text) and answer_amount(found.text)[0] is None


_CLAUSE_BREAK = re.compile(r"[;:\n]|,\s|\s(?:but|though|although|however|while)\s", re.I)


def _refusing_clause(response: str, year: str) -> bool:
    """Whether the clause of the response's last sentence that holds ``year`` (its last
    occurrence) refuses and states no other figure: "the 2023 headcount is not disclosed",
    not "1,870 people in 2023, though this is not disclosed"."""
    sentence = last_sentence(drop_asides(response.strip()))
    at = sentence.rfind(year)
    if at < 0:
        return False
    breaks = [m.span() for m in _CLAUSE_BREAK.finditer(sentence)]
    start = max((end for _, end in breaks if end <= at), default=0)
    end = min((begin for begin, _ in breaks if begin >= at + len(year)), default=len(sentence))
    clause = sentence[start:end]
    others = [f for f in scan_numbers(clause).figures if f.text != year]
    return is_refusal(clause) and not others


def _unanswerable(found: FinalAnswer | None, refused: bool) -> Verdict:
    if refused:
        return Verdict.correct(
            (Check("refusal", True, message="declined: the document does not say"),)
        )
    if found is None:
        return Verdict.unparsable("no final answer in the response")
    check = Check(
        "refusal", False, message=f"answered {found.text[:80]!r}; the document does not say"
    )
    return Verdict.incorrect((check,), message=check.message)


def _text_check(task: Task, found: FinalAnswer) -> Check:
    given = normalize_text(found.text)
    accepted = [normalize_text(t) for t in task.text_answers]
    ok = given in accepted
    return Check(
        "answer",
        ok,
        message=f"{found.text[:80]!r} {'is' if ok else 'is not'} {task.text_answers[0]!r}",
        evidence={"given": given, "accepted": accepted},
    )


def _spans_check(task: Task, found: FinalAnswer) -> Check:
    given = {normalize_text(part) for part in _SPAN_SEPARATOR.split(found.text)} - {""}
    expected = {normalize_text(span) for span in task.spans}
    ok = given == expected
    return Check(
        "answer",
        ok,
        message=f"{len(given & expected)}/{len(expected)} spans, {len(given - expected)} extra",
        evidence={"given": sorted(given), "expected": sorted(expected)},
    )


def _named_item_check(task: Task, found: FinalAnswer, response: str, check: Check) -> Check:
    """On a magnitude question, a figure given as the opposite item ("an income tax benefit
    of $11,361 thousand" for the provision) is wrong, however its magnitude compares."""
    if task.sign != "magnitude" or not check.passed:
        return check
    at = response.rfind(found.text)
    start = response.rfind("\n", 0, max(at, 0)) + 1
    end = response.find("\n", at + len(found.text)) if at >= 0 else -1
    line = response[start : len(response) if end < 0 else end]
    opposite = opposite_item(task.question, line)
    if opposite is None:
        return check
    message = f"names the {opposite} where the question asks for its opposite: {line[:80]!r}"
    return Check("answer", False, message=message, evidence={**check.evidence, "named": opposite})


def _figure_check(task: Task, found: FinalAnswer) -> Check | None:
    figure = task.answer
    if figure is None:
        return None
    amount, hedged = answer_amount(found.text, percent=figure.unit == PERCENT)
    if amount is None:
        return None
    if hedged:
        return Check("answer", False, message=f"hedges between figures: {found.text[:80]!r}")
    same = found.amount is not None and found.amount.text == amount.text  # "27" of "27 cents"
    if (
        found.amount is not None
        and (found.amount.value == amount.value or same)
        and (amount.cue is None)
    ):
        amount = replace(amount, cue=found.amount.cue)  # the sign word before it in its line
    if amount.cue is not None and amount.cue.hedged and task.sign:
        return Check("answer", False, message=f"hedges between directions: {found.text[:80]!r}")
    if _BASIS_POINTS.match(found.text, _figure_end(found.text, amount)):
        if figure.unit != PERCENT:
            return Check("answer", False, message=f"in basis points, not {figure.describe()}")
        amount = replace(
            amount, value=amount.value / 100, percent=True, decimals=amount.decimals + 2
        )
    signed = apply_sign(amount, task.sign)
    outcome = compare(signed, figure, named=task.named)
    up = amount.cue is not None and amount.cue.direction == "up"
    if not outcome.matched and task.sign == "magnitude" and not up and signed.value:
        # the question asks for the negative item itself ("interest expense", "net cash used
        # in"): its sign says nothing, written as the statement prints it or as a magnitude
        flipped = compare(replace(signed, value=-signed.value), figure, named=task.named)
        if flipped.matched and (signed.value < 0) != (figure.base < 0):
            outcome = flipped
    evidence = {
        "given": amount.text,
        "sign_word": amount.cue.word if amount.cue is not None and task.sign else None,
        "expected": figure.describe(),
        "tolerance": f"{figure.tolerance.normalize():f}",
    }
    return Check("answer", outcome.matched, message=outcome.reason, evidence=evidence)


_BASIS_POINTS = re.compile(r"\s*(?:bps|bp|basis\s+points?)\b", re.IGNORECASE)


def _figure_end(text: str, amount: Amount) -> int:
    """Where ``amount``'s text ends in ``text`` (its last occurrence), else the end."""
    at = text.rfind(amount.text) if amount.text else -1
    return len(text) if at < 0 else at + len(amount.text)


def _reasoning_check(task: Task, response: str) -> Check | None:
    """The rules over the figures a JSON answer gives beside ``answer`` (bare: task scale)."""
    if not task.rules:
        return None
    data = extract_object(response)
    readings: dict[str, Decimal] = {}
    units: dict[str, Decimal] = {}
    for name, claim in (read_fields(data) if data is not None else {}).items():
        if claim.amount is None:
            continue
        factor = SCALES[claim.amount.scale or claim.scale or task.scale]
        readings[name] = claim.amount.value * factor
        units[name] = Decimal(1).scaleb(-claim.amount.decimals) * factor
    return consistency_check(check_rules(task.rules, readings, units))


def _grounding(found: FinalAnswer, document: Document, task: Task) -> Check | None:
    if found.page is None:
        return None
    if found.quote is not None:
        result = ground_quote(document, found.page, found.quote)
    else:
        amount, _ = answer_amount(found.text)
        if amount is None:
            return None
        reading = compare(amount, task.answer).reading if task.answer is not None else None
        result = ground_value(document, found.page, amount, reading)
    return Check("grounding", result.grounded, message=result.message, evidence=result.evidence)
