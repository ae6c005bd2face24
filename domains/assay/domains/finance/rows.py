"""FinQA and TAT-QA rows, read as they come as the reference of a finance record (no PDF).

- FinQA (``pre_text``, ``post_text``, ``table``, ``qa``): the question is ``qa.question``;
  the answer is ``qa.exe_ans``, the executed program's result, unless ``qa.answer`` (the
  rounded answer the annotators wrote, ``"33.2%"``) reads as a number that agrees with it at
  its own precision, in which case that is the labelled figure (FinQA's "33.2%" for an
  ``exe_ans`` of 0.33225 is a percentage given to one decimal). ``exe_ans`` ``"yes"``/``"no"``
  is a text answer. The scale is the one the question names ("( in millions )"), else the
  one the text declares, else units.
- TAT-QA (``table``, ``paragraphs``, ``questions``): one question per record. ``answer_type``
  ``span`` (a one-item list: a number is a figure, else a text), ``multi-span`` (all and
  only the spans), ``arithmetic`` and ``count`` (a number); ``scale`` ``""``, ``thousand``,
  ``million``, ``billion`` or ``percent``.

The comparison rules are those of PDF questions (docs/finance.md). A key of neither format
is an error that names it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from assay.verifiers.finance import Figure, read_figure, scale_name
from assay.verifiers.finance.compare import PERCENT
from assay.verifiers.finance.numbers import declared_scale

from assay.types import JSON

FINQA_KEYS = frozenset(
    [
        "id",
        "pre_text",
        "post_text",
        "table",
        "table_ori",
        "filename",
        "qa",
        "annotation",
        "table_retrieved",
        "text_retrieved",
        "table_retrieved_all",
        "text_retrieved_all",
    ]
)
"""Top-level keys of a FinQA row (and ConvFinQA's ``annotation``)."""
TATQA_KEYS = frozenset(["table", "paragraphs", "questions"])
"""Top-level keys of a TAT-QA row."""
TATQA_TYPES = ("span", "multi-span", "arithmetic", "count")


@dataclass(frozen=True, slots=True)
class RowAnswer:
    """What a row labels: its question and a figure, texts or spans."""

    question: str
    answer: Figure | None = None
    text_answers: tuple[str, ...] = ()
    spans: tuple[str, ...] = ()
    scale: str = "unit"


def is_finqa(reference: Mapping[str, JSON]) -> bool:
    return "qa" in reference and "document" not in reference


def is_tatqa(reference: Mapping[str, JSON]) -> bool:
    return "questions" in reference and "document" not in reference


def _check_keys(reference: Mapping[str, JSON], known: frozenset[str], kind: str) -> None:
    unknown = sorted(set(reference) - known)
    if unknown:
        raise ValueError(
            f"unknown {kind} key {unknown[0]!r}"
            f"{f' (and {len(unknown) - 1} more)' if len(unknown) > 1 else ''}; "
            f"a {kind} row has {', '.join(sorted(known))}"
        )


def _text(value: JSON) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return " ".join(v for v in value if isinstance(v, str))
    return ""


def finqa_answer(reference: Mapping[str, JSON]) -> RowAnswer:
    """The labelled answer of a FinQA row."""
    _check_keys(reference, FINQA_KEYS, "FinQA")
    qa = reference["qa"]
    if not isinstance(qa, Mapping):
        raise ValueError("a FinQA row's 'qa' must be an object")
    question = qa.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError("a FinQA row needs 'qa.question'")
    if "exe_ans" not in qa:
        raise ValueError("a FinQA row needs 'qa.exe_ans'")
    exe = qa["exe_ans"]
    scale = (
        declared_scale(question)
        or declared_scale(
            _text(reference.get("pre_text")) + " " + _text(reference.get("post_text"))
        )
        or "unit"
    )
    if isinstance(exe, str) and exe.strip().lower() in ("yes", "no"):
        return RowAnswer(question, text_answers=(exe.strip().lower(),), scale=scale)
    executed = read_figure(exe, scale)
    written = qa.get("answer")
    if isinstance(written, str) and written.strip():
        try:
            stated = read_figure(written, scale)
        except ValueError:
            stated = None
        if stated is not None and _agrees(executed, stated):
            return RowAnswer(question, answer=stated, scale=scale)
    return RowAnswer(question, answer=executed, scale=scale)


def _agrees(executed: Figure, stated: Figure) -> bool:
    """Whether the program's result rounds to the written answer (a percentage: a fraction
    or points)."""
    band = Decimal(5).scaleb(-(stated.decimals + 1))  # half a unit of its last digit
    if stated.unit == PERCENT:  # the program gives a fraction (0.33225) or points (33.225)
        return (
            abs(executed.value * 100 - stated.value) <= band
            or abs(executed.value - stated.value) <= band
        )
    return abs(executed.value - stated.value) <= band


def tatqa_answer(reference: Mapping[str, JSON]) -> RowAnswer:
    """The labelled answer of a TAT-QA row's one question."""
    _check_keys(reference, TATQA_KEYS, "TAT-QA")
    questions = reference["questions"]
    if not isinstance(questions, list) or len(questions) != 1:
        count = len(questions) if isinstance(questions, list) else "no list of"
        raise ValueError(
            f"a TAT-QA record holds one question, got {count} (split the row per question)"
        )
    item = questions[0]
    if not isinstance(item, Mapping):
        raise ValueError("a TAT-QA question must be an object")
    question = item.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError("a TAT-QA question needs 'question'")
    kind = item.get("answer_type")
    if kind not in TATQA_TYPES:
        raise ValueError(f"TAT-QA answer_type must be one of {TATQA_TYPES}, got {kind!r}")
    raw_scale = item.get("scale", "")
    if not isinstance(raw_scale, str):
        raise ValueError(f"TAT-QA scale must be a string, got {raw_scale!r}")
    percent = raw_scale.strip().lower() == "percent"
    scale = "unit" if percent else scale_name(raw_scale)
    unit = PERCENT if percent else ""
    answer = item.get("answer")
    if kind == "multi-span":
        spans = _strings(answer)
        return RowAnswer(question, spans=spans, scale=scale)
    if kind == "span":
        spans = _strings(answer)
        if len(spans) != 1:
            raise ValueError(f"a TAT-QA span answer is one string, got {len(spans)}")
        try:
            figure = read_figure(spans[0], scale, unit)
        except ValueError:
            return RowAnswer(question, text_answers=spans, scale=scale)
        return RowAnswer(question, answer=figure, scale=scale)
    if isinstance(answer, list) and len(answer) == 1:
        answer = answer[0]
    return RowAnswer(question, answer=read_figure(answer, scale, unit), scale=scale)


def _strings(answer: JSON) -> tuple[str, ...]:
    items: Sequence[JSON] = answer if isinstance(answer, list) else [answer]
    if not items or not all(isinstance(a, str) and a.strip() for a in items):
        raise ValueError("a TAT-QA span answer must be a non-empty list of non-empty strings")
    return tuple(str(a) for a in items)
