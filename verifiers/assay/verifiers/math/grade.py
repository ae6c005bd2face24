"""From a response and a gold answer to a :class:`~assay.types.Verdict` with its checks.

Checks, in order:

``extraction``
    ``method`` (``boxed``, ``final_answer_phrase``, ``answer_colon``, ``hash``, ``whole``,
    ``last_line``) and the extracted ``text``.
``hedging``
    Only when several different boxed answers are offered together: the ``candidates``,
    the ``gold_size``, and whether they were ``credited`` (read as the gold's list, or all
    equivalent to the gold).
``parse``
    The parsed ``answer`` and ``gold`` (as ``str``) and their ``*_kind``; for the
    exact-string fast path, the normalized strings.
``equivalence``
    ``method`` (``string``, ``numeric``, ``symbolic``, ``structural``), ``detail`` and the
    ``tolerance`` in force.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from assay.verifiers.math.compare import equivalent
from assay.verifiers.math.errors import TooCostly
from assay.verifiers.math.extract import Extraction, extract_answer
from assay.verifiers.math.normalize import normalize_answer, string_key
from assay.verifiers.math.outcome import CompareOptions, Equivalence
from assay.verifiers.math.parse import parse_answer
from assay.verifiers.math.scalar import AnswerParseError
from assay.verifiers.math.values import Collection, Value, kind_of
from assay.verifiers.reading import find_boxes

from assay.blame import TOO_COSTLY, response_fault
from assay.errors import MalformedTaskError
from assay.types import Check, Verdict

MAX_ANSWER_LENGTH = 1000
"""Longest extracted answer that is read; a longer one is ``incorrect`` with a failed
``too_costly`` check (refused before any parsing: cheap)."""


@dataclass(frozen=True, slots=True)
class GoldAnswer:
    """A reference answer, normalized and parsed once (see :func:`prepare_gold`).

    Attributes:
        raw: The reference text as given.
        normalized: Its normalized form.
        value: The parsed form, or None when it cannot be read as math (then only the
            normalized string is compared).
        error: Why it could not be parsed.
    """

    raw: str
    normalized: str
    value: Value | None
    error: str | None = None

    @property
    def size(self) -> int:
        """How many answers the gold holds (elements of a set, list or tuple; else 1)."""
        value = self.value
        if isinstance(value, Collection) and value.collection != "union":
            return len(value.items)
        return 1


@lru_cache(maxsize=8192)
def prepare_gold(reference: str) -> GoldAnswer:
    """Normalize and parse a reference answer (cached on the reference string).

    A reference holding ``\\boxed{...}`` (a full solution) is reduced to its last box,
    one holding ``####`` (GSM8K) to what follows it.

    Raises:
        MalformedTaskError: the reference is too costly to check (:mod:`.cost`).
    """
    normalized = gold_text(reference)
    try:
        return GoldAnswer(reference, normalized, parse_answer(normalized))
    except TooCostly as exc:
        raise MalformedTaskError(f"the reference answer is too costly to check: {exc}") from exc
    except AnswerParseError as exc:
        return GoldAnswer(reference, normalized, None, str(exc))


@lru_cache(maxsize=8192)
def gold_text(reference: str) -> str:
    """The normalized answer of a reference: its last box, or what follows ``####``."""
    text = reference
    boxes = find_boxes(text)
    if boxes:
        text = boxes[-1].content
    elif "####" in text:
        text = text.rsplit("####", 1)[1]
    return normalize_answer(text)


def grade_identical(response: str, reference: str, options: CompareOptions) -> Verdict | None:
    """``correct`` when the answer is written as the reference is (normalized text); else None.

    Decided before the reference is parsed or anything is evaluated, so the same tower of
    powers on both sides is correct at once (issue 15). A hedge, an over-long answer or any
    difference in the text leaves the decision to :func:`grade`.
    """
    extraction = extract_answer(response)
    if extraction is None or len(extraction.text) > MAX_ANSWER_LENGTH:
        return None
    if len(dict.fromkeys(normalize_answer(c) for c in extraction.candidates)) > 1:
        return None
    answer = normalize_answer(extraction.text)
    gold = gold_text(reference)
    if not answer or len(answer) > MAX_ANSWER_LENGTH or string_key(answer) != string_key(gold):
        return None
    parsed = _parse_check(answer, gold, "normalized string", "normalized string")
    outcome = Equivalence(True, "string", "normalized strings are identical")
    return Verdict.correct(
        (_extraction_check(extraction), parsed, _equivalence_check(outcome, options))
    )


def grade(response: str, gold: GoldAnswer, options: CompareOptions) -> Verdict:
    """Score one response against a prepared gold answer. Never raises on bad model output.

    Example:
        >>> gold = prepare_gold("0.5")
        >>> grade("... so $\\\\boxed{\\\\frac{1}{2}}$", gold, CompareOptions()).status
        <Status.CORRECT: 'correct'>
    """
    extraction = extract_answer(response)
    if extraction is None:
        check = Check("extraction", False, message="no answer found", evidence={"method": None})
        return Verdict.unparsable("no answer found in the response", (check,))
    extraction_check = _extraction_check(extraction)
    if len(extraction.text) > MAX_ANSWER_LENGTH:
        return _too_long(len(extraction.text), (extraction_check,))
    candidates = tuple(dict.fromkeys(normalize_answer(c) for c in extraction.candidates))
    if len(candidates) > 1:
        return _grade_hedged(
            candidates, gold, options, extraction_check, extraction.alternatives,
            kind="boxed " if extraction.method == "boxed" else "",
        )  # fmt: skip
    return _grade_text(normalize_answer(extraction.text), gold, options, (extraction_check,))


def _extraction_check(extraction: Extraction) -> Check:
    evidence: dict[str, object] = {"method": extraction.method, "text": extraction.text}
    if len(extraction.candidates) > 1:
        evidence["candidates"] = list(extraction.candidates)
    return Check(
        "extraction", True, message=f"answer found by {extraction.method}", evidence=evidence
    )


def _grade_hedged(
    candidates: tuple[str, ...],
    gold: GoldAnswer,
    options: CompareOptions,
    extraction: Check,
    alternatives: bool = False,
    *,
    kind: str = "boxed ",
) -> Verdict:
    """Several different boxed answers, or the two of "X or Y": a list when the gold is one
    that long, else a hedge.

    Answers joined by "or" are alternatives: the roots of an equation (``x = 3`` or ``x = 4``)
    when the gold is a list or set, but a hedge against an ordered tuple (a point is not
    "3 or 4").
    """
    evidence = {"candidates": list(candidates), "gold_size": gold.size}
    ordered = isinstance(gold.value, Collection) and gold.value.collection == "tuple"
    if gold.size == len(candidates) and not (alternatives and ordered):
        check = Check(
            "hedging",
            True,
            message=f"{kind}answers read as one list",
            evidence={**evidence, "credited": True},
        )
        return _grade_text(", ".join(candidates), gold, options, (extraction, check))
    if all(_grade_text(c, gold, options, ()).score == 1.0 for c in candidates):
        message = f"all {kind}answers are equivalent to the gold"
        check = Check("hedging", True, message=message, evidence={**evidence, "credited": True})
        return _grade_text(candidates[-1], gold, options, (extraction, check))
    message = f"{len(candidates)} different {kind}answers offered together"
    check = Check("hedging", False, message=message, evidence={**evidence, "credited": False})
    return Verdict.incorrect((extraction, check), message=f"hedged: {message}")


def _grade_text(
    answer: str, gold: GoldAnswer, options: CompareOptions, checks: tuple[Check, ...]
) -> Verdict:
    if not answer:
        return Verdict.unparsable("the extracted answer is empty once normalized", checks)
    if len(answer) > MAX_ANSWER_LENGTH:
        return _too_long(len(answer), checks)
    if string_key(answer) == string_key(gold.normalized):
        parsed = _parse_check(answer, gold.normalized, "normalized string", "normalized string")
        outcome = Equivalence(True, "string", "normalized strings are identical")
        return Verdict.correct((*checks, parsed, _equivalence_check(outcome, options)))
    try:
        value = parse_answer(answer)
    except TooCostly as exc:
        message = f"the answer is too costly to check: {exc}"
        evidence = {**exc.evidence, "answer": answer[:200]}
        return response_fault(TOO_COSTLY, message, evidence, checks)
    except AnswerParseError as exc:
        failed = Check("parse", False, message=str(exc), evidence={"answer": answer})
        return Verdict.unparsable(
            f"cannot read {answer!r} as math or text: {exc}", (*checks, failed)
        )
    if gold.value is None:
        parsed = _parse_check(str(value), gold.normalized, kind_of(value), "unparsed")
        outcome = Equivalence(False, "string", f"gold not parsable ({gold.error}); strings differ")
    else:
        parsed = _parse_check(str(value), str(gold.value), kind_of(value), kind_of(gold.value))
        outcome = equivalent(gold.value, value, options)
    all_checks = (*checks, parsed, _equivalence_check(outcome, options))
    if outcome.equal:
        return Verdict.correct(all_checks)
    return Verdict.incorrect(all_checks, message=f"{value} is not {gold.value or gold.normalized}")


def _too_long(length: int, checks: tuple[Check, ...]) -> Verdict:
    message = f"the extracted answer is too long to check ({length} characters)"
    evidence = {"characters": length, "limit": MAX_ANSWER_LENGTH}
    return response_fault(TOO_COSTLY, message, evidence, checks)


def _parse_check(answer: str, gold: str, answer_kind: str, gold_kind: str) -> Check:
    evidence = {"answer": answer, "answer_kind": answer_kind, "gold": gold, "gold_kind": gold_kind}
    return Check("parse", True, message=f"{answer_kind} vs {gold_kind}", evidence=evidence)


def _equivalence_check(outcome: Equivalence, options: CompareOptions) -> Check:
    evidence = {
        "method": outcome.method,
        "detail": outcome.detail,
        "tolerance": float(options.tolerance),
    }
    return Check(
        "equivalence",
        outcome.equal,
        score=1.0 if outcome.equal else 0.0,
        message=outcome.detail,
        evidence=evidence,
    )
