"""The finance task format: a document, and either fields to extract or a question.

See docs/finance.md for the full format with examples. Every fault in a reference raises
:class:`~assay.errors.MalformedTaskError` (an ``error`` verdict), including a document path that
escapes the allowed roots.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path

from assay.domains.finance.rows import RowAnswer, finqa_answer, is_finqa, is_tatqa, tatqa_answer
from assay.domains.finance.statement import Identity, read_identity
from assay.verifiers.finance import Figure, Rule, read_figure, read_rules, scale_name
from assay.verifiers.finance.answers import (
    SignReading,
    asks_for_year,
    named_scale,
    sign_reading,
)
from assay.verifiers.reading import is_plausible_year

from assay.errors import MalformedTaskError
from assay.types import JSON

ROOTS_ENV = "ASSAY_FINANCE_ROOTS"
"""Environment variable: extra allowed data roots, separated by ``os.pathsep``."""

GROUNDING_MODES = ("score", "report")
PDF_KEYS = frozenset(
    [
        "document",
        "scale",
        "unit",
        "fields",
        "rules",
        "grounding",
        "question",
        "answer",
        "answer_type",
        "aliases",
        "answerable",
        "consistency",
    ]
)
"""The keys of a PDF reference; any other key is an error that names it."""


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One field to extract; ``figure`` is ``None`` for a field checked only by the rules."""

    name: str
    figure: Figure | None
    scale: str
    unit: str


@dataclass(frozen=True, slots=True)
class Task:
    """A parsed finance reference.

    Attributes:
        document: Resolved path of the PDF (inside an allowed root); ``None`` for a FinQA or
            TAT-QA row, whose table and text come with the record.
        fields: Fields to extract (empty for a question).
        answer: The numeric answer of a question, if numeric.
        text_answers: Accepted text answers of a question (normalized later), if textual.
        spans: The texts a multi-span answer must list, all and only them, in any order.
        answerable: ``False`` when the document does not hold the answer (a refusal is right).
        rules: Consistency rules over the fields (for a question: over figures the response's
            JSON gives beside its answer).
        scale: The task's reporting scale, for bare figures.
        grounding: ``score`` (an ungrounded citation loses its credit) or ``report``.
        question: The question, when the reference gives one.
        sign: How sign words in the answer are read (from the question; see
            :func:`~assay.verifiers.finance.answers.sign_reading`).
        named: The scale the question names for bare figures ("in U.S. dollars": ``unit``).
        year_answer: The answer is a year (a fallback year is then the answer).
        identity: A consistency task: the identity to compute from the document.
    """

    document: Path | None
    fields: tuple[FieldSpec, ...] = ()
    answer: Figure | None = None
    text_answers: tuple[str, ...] = ()
    spans: tuple[str, ...] = ()
    answerable: bool = True
    rules: tuple[Rule, ...] = ()
    grounding: str = "score"
    scale: str = "unit"
    question: str = ""
    sign: SignReading | None = None
    named: str | None = None
    year_answer: bool = False
    identity: Identity | None = None

    @property
    def is_extraction(self) -> bool:
        return bool(self.fields)


def allowed_roots(fixtures_root: Path) -> tuple[Path, ...]:
    """The fixtures root, then each root named in ``ASSAY_FINANCE_ROOTS``."""
    extra = [Path(p) for p in os.environ.get(ROOTS_ENV, "").split(os.pathsep) if p.strip()]
    return tuple(root.resolve() for root in (fixtures_root, *extra))


def resolve_document(name: JSON, roots: Sequence[Path]) -> Path:
    """The path of a reference's document, refusing one that escapes every allowed root."""
    if not isinstance(name, str) or not name.strip():
        raise MalformedTaskError("finance reference needs 'document': a path to a PDF")
    given = Path(name)
    candidates = [given] if given.is_absolute() else [root / given for root in roots]
    inside = [
        resolved
        for resolved in (candidate.resolve() for candidate in candidates)
        if any(resolved.is_relative_to(root) for root in roots)
    ]
    if not inside:
        raise MalformedTaskError(
            f"document {name!r} is outside the allowed data roots "
            f"({', '.join(str(r) for r in roots)}; add roots with {ROOTS_ENV})"
        )
    return next((path for path in inside if path.exists()), inside[0])


def parse_task(reference: JSON, roots: Sequence[Path]) -> Task:
    """Read and check a finance reference."""
    if not isinstance(reference, Mapping):
        raise MalformedTaskError(
            f"finance reference must be an object, got {type(reference).__name__}"
        )
    try:
        if is_finqa(reference):
            return _from_row(finqa_answer(reference))
        if is_tatqa(reference):
            return _from_row(tatqa_answer(reference))
    except ValueError as exc:
        raise MalformedTaskError(str(exc)) from exc
    unknown = sorted(set(reference) - PDF_KEYS)
    if unknown:
        raise MalformedTaskError(
            f"unknown finance reference key {unknown[0]!r}"
            f"{f' (and {len(unknown) - 1} more)' if len(unknown) > 1 else ''}; "
            f"known keys: {', '.join(sorted(PDF_KEYS))}; FinQA rows need 'qa', TAT-QA rows "
            "'questions'"
        )
    document = resolve_document(reference.get("document"), roots)
    try:
        question = reference.get("question", "")
        if not isinstance(question, str):
            raise ValueError(f"question must be a string, got {question!r}")
        scale = scale_name(str(reference.get("scale", "unit")))
        unit = str(reference.get("unit", ""))
        rules = read_rules(reference.get("rules"))
        grounding = str(reference.get("grounding", "score"))
        if grounding not in GROUNDING_MODES:
            raise ValueError(f"grounding must be one of {GROUNDING_MODES}, got {grounding!r}")
        if "fields" in reference:
            fields = _fields(reference["fields"], scale, unit)
            _check_rule_fields(rules, fields)
            return Task(document, fields=fields, rules=rules, grounding=grounding, scale=scale)
        if "consistency" in reference:
            identity = read_identity(reference["consistency"])
            return Task(
                document, grounding=grounding, scale=scale, question=question, identity=identity
            )
        task = _question(
            reference, document=document, scale=scale, unit=unit, rules=rules, grounding=grounding
        )
        return _with_question(replace(task, question=question))
    except ValueError as exc:
        raise MalformedTaskError(str(exc)) from exc


def _from_row(row: RowAnswer) -> Task:
    task = Task(
        None,
        answer=row.answer,
        text_answers=row.text_answers,
        spans=row.spans,
        scale=row.scale,
        question=row.question,
    )
    return _with_question(task)


def _with_question(task: Task) -> Task:
    """The question's own rules: how sign words read, the unit it names, a year answer."""
    question = task.question
    year = asks_for_year(question) or any(_is_year_text(t) for t in task.text_answers)
    return replace(task, sign=sign_reading(question), named=named_scale(question), year_answer=year)


def _is_year_text(text: str) -> bool:
    stripped = text.strip()
    return stripped.isdigit() and is_plausible_year(Decimal(stripped), stripped)


def _fields(spec: JSON, scale: str, unit: str) -> tuple[FieldSpec, ...]:
    if not isinstance(spec, Mapping) or not spec:
        raise ValueError("'fields' must be a non-empty object of field name -> figure")
    out = []
    for name, item in spec.items():
        if isinstance(item, Mapping) and "value" not in item:
            field_scale = scale_name(str(item.get("scale", scale)))
            out.append(FieldSpec(name, None, field_scale, str(item.get("unit", unit))))
            continue
        figure = read_figure(item, scale, unit)
        out.append(FieldSpec(name, figure, figure.scale, figure.unit))
    return tuple(out)


def _check_rule_fields(rules: Sequence[Rule], fields: Sequence[FieldSpec]) -> None:
    names = {f.name for f in fields}
    for rule in rules:
        unknown = [n for n in rule.fields if n not in names]
        if unknown:
            raise ValueError(f"rule {rule.name!r} names unknown fields: {', '.join(unknown)}")
    for spec in fields:
        if spec.figure is None and not any(spec.name in rule.fields for rule in rules):
            raise ValueError(f"field {spec.name!r} has no value and no rule that checks it")


def _question(
    reference: Mapping[str, JSON],
    *,
    document: Path,
    scale: str,
    unit: str,
    rules: tuple[Rule, ...],
    grounding: str,
) -> Task:
    answerable = reference.get("answerable", True)
    if not isinstance(answerable, bool):
        raise ValueError(f"answerable must be true or false, got {answerable!r}")
    if not answerable:
        return Task(document, answerable=False, grounding=grounding)
    if "answer" not in reference:
        raise ValueError("finance reference needs 'fields' or a question's 'answer'")
    answer = reference["answer"]
    if isinstance(answer, list):
        if not answer or not all(isinstance(a, str) and a.strip() for a in answer):
            raise ValueError("a multi-span answer must be a non-empty list of non-empty strings")
        return Task(document, spans=tuple(answer), rules=rules, grounding=grounding, scale=scale)
    question = reference.get("question", "")
    is_text = _is_text(answer, str(question), numeric_context=bool(unit))
    kind = reference.get("answer_type", "text" if is_text else "number")
    if kind == "text":
        aliases = reference.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise ValueError("aliases must be a list of strings")
        texts = tuple(str(a) for a in (answer, *aliases) if str(a).strip())
        if not texts:
            raise ValueError("a text answer must not be empty")
        return Task(document, text_answers=texts, rules=rules, grounding=grounding, scale=scale)
    if kind not in ("number", "percent"):
        raise ValueError(f"answer_type must be number, percent or text, got {kind!r}")
    figure = read_figure(answer, scale, "percent" if kind == "percent" else unit)
    return Task(document, answer=figure, rules=rules, grounding=grounding, scale=scale)


def _is_text(answer: JSON, question: str, *, numeric_context: bool) -> bool:
    """Whether a string answer is text: not a number, or a plausible year in a year context.

    A bare four-digit answer is a year (text) only when it is a plausible year and the task is
    not numeric in context: the question asks for a year, or there is no question and no unit.
    ``"1500"`` thousand dollars, asked "What was stock-based compensation in 2024?", is a number.
    """
    if isinstance(answer, Mapping) or (
        isinstance(answer, int | float) and not isinstance(answer, bool)
    ):
        return False
    if not isinstance(answer, str):
        raise ValueError(f"answer must be a number, a string or an object, got {answer!r}")
    try:
        read_figure(answer)
    except ValueError:
        return True
    stripped = answer.strip()
    if not (stripped.isdigit() and is_plausible_year(Decimal(stripped), stripped)):
        return False
    if question.strip():
        return asks_for_year(question)
    return not numeric_context
