"""FinanceVerifier end to end: task format, verdicts, registry names, data roots, fixtures."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from assay.domains.finance import FinanceVerifier
from assay.domains.finance.task import ROOTS_ENV
from reportlab.lib.pagesizes import letter
from reportlab.platypus import Paragraph, SimpleDocTemplate, Table

from assay.errors import MalformedTaskError
from assay.registry import default_registry
from assay.types import Record, Status

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "finance"
HARBOR = {"document": "statements/harbor-2024.pdf", "scale": "thousand", "unit": "USD"}
BALANCE = {
    **HARBOR,
    "fields": {
        "total_assets_2024": {"value": "656901"},
        "total_liabilities_2024": {"value": "243630"},
        "total_equity_2024": {"value": "413271"},
    },
    "rules": [
        {
            "kind": "balance",
            "assets": "total_assets_2024",
            "liabilities": "total_liabilities_2024",
            "equity": "total_equity_2024",
        }
    ],
}


def _fields(**values: Any) -> str:
    return "```json\n" + json.dumps(values) + "\n```"


CASES = [
    # (reference, response, status, score)
    (
        BALANCE,  # printed figures with their page
        _fields(
            total_assets_2024={"value": "656,901", "page": 3},
            total_liabilities_2024={"value": "243,630", "page": 3},
            total_equity_2024={"value": "413,271", "page": 3},
        ),
        Status.CORRECT,
        1.0,
    ),
    (
        BALANCE,  # one field cited on the income-statement page: it earns nothing
        _fields(
            total_assets_2024={"value": "656,901", "page": 2},
            total_liabilities_2024="243,630",
            total_equity_2024="413,271",
        ),
        Status.PARTIAL,
        2 / 3,
    ),
    (
        {**BALANCE, "grounding": "report"},  # same, but grounding only reported
        _fields(
            total_assets_2024={"value": "656,901", "page": 2},
            total_liabilities_2024="243,630",
            total_equity_2024="413,271",
        ),
        Status.CORRECT,
        1.0,
    ),
    (
        BALANCE,  # equity 1000x off and the balance identity broken
        _fields(
            total_assets_2024=656901, total_liabilities_2024=243630, total_equity_2024="413,271m"
        ),
        Status.PARTIAL,
        2 / 3,
    ),
    (
        BALANCE,  # a response-wide scale for bare values
        _fields(
            scale="in millions",
            total_assets_2024=656.901,
            total_liabilities_2024=243.63,
            total_equity_2024="413.271",
        ),
        Status.CORRECT,
        1.0,
    ),
    (
        BALANCE,  # a per-field scale overrides it; an unreadable scale makes the value unread
        _fields(
            units="thousands",
            total_assets_2024={"value": 656.901, "scale": "USD millions"},
            total_liabilities_2024=243630,
            total_equity_2024={"value": 413.271, "scale": "crore"},
        ),
        Status.PARTIAL,
        0.8,
    ),
    (BALANCE, "Total assets: 656,901", Status.UNPARSABLE, 0.0),  # no JSON object
    (BALANCE, _fields(total_assets_2024="n/a"), Status.UNPARSABLE, 0.0),  # no numeric value
    (
        {**HARBOR, "answer": "-24175"},  # revenue change 514,354 - 538,529
        "Revenue fell from 538,529 to 514,354.\nAnswer: −$24,175 thousand",
        Status.CORRECT,
        1.0,
    ),
    ({**HARBOR, "answer": "-24175"}, "Answer: $24.2 million decrease", Status.INCORRECT, 0.0),
    (
        {**HARBOR, "answer": "-4.49%"},  # percentage question: a fraction is fine
        "Final answer: -0.0449",
        Status.CORRECT,
        1.0,
    ),
    (
        {**HARBOR, "answer": "2.41056", "unit": "ratio"},  # not a percentage: no x100
        "Answer: 241.056",
        Status.INCORRECT,
        0.0,
    ),
    (
        {**HARBOR, "answer": ["Products", "Services"]},  # multi-span, any order and case
        "Final answer: services; PRODUCTS",
        Status.CORRECT,
        1.0,
    ),
    (
        {**HARBOR, "answer": ["Products", "Services"]},  # every span, and only those
        "Answer: Products, Services and Licensing",
        Status.INCORRECT,
        0.0,
    ),
    (
        {"document": "statements/harbor-2024.pdf", "answerable": False},
        "The filing does not provide segment margins, so this cannot be determined.",
        Status.CORRECT,
        1.0,
    ),
    (
        {**HARBOR, "answer": "656901"},
        '{"answer": "656,901", "page": 3, "evidence": "Total assets 656,901 538,000"}',
        Status.INCORRECT,  # the quote's prior-year figure is invented
        0.0,
    ),
]


@pytest.mark.parametrize(
    ("reference", "response", "status", "score"),
    CASES,
    ids=[
        "fields-grounded",
        "field-wrong-page",
        "wrong-page-report-only",
        "wrong-scale-identity-broken",
        "response-scale",
        "field-scale",
        "no-json",
        "no-numbers",
        "qa-unicode-minus",
        "qa-coarse",
        "qa-percent-fraction",
        "qa-ratio-x100",
        "multi-span",
        "multi-span-extra",
        "unanswerable-refusal",
        "fabricated-quote",
    ],
)
def test_verdicts(reference: dict[str, Any], response: str, status: Status, score: float) -> None:
    verdict = FinanceVerifier().verify(Record("t", "finance", response, reference))
    assert verdict.status is status, verdict
    assert verdict.score == round(score, 4)  # partial scores are rounded to 4 digits


CHANGE_RULE = [
    {"kind": "change", "change": "change", "current": "revenue_2024", "prior": "revenue_2023"}
]


@pytest.mark.parametrize(
    ("prior", "status"),
    [("538,529", Status.CORRECT), ("538,600", Status.INCORRECT), (None, Status.CORRECT)],
    ids=["consistent", "prior-year-off", "not-given"],
)
def test_question_rules_check_the_figures_beside_the_answer(
    prior: str | None, status: Status
) -> None:
    reference = {**HARBOR, "answer": "-24175", "rules": CHANGE_RULE}
    shown: dict[str, Any] = {"answer": "-24,175", "revenue_2024": "514,354", "change": -24175}
    if prior is not None:
        shown["revenue_2023"] = prior
    verdict = FinanceVerifier().verify(Record("t", "finance", json.dumps(shown), reference))
    assert verdict.status is status, verdict


def test_field_steps_and_checks() -> None:
    response = _fields(
        total_assets_2024=656901, total_liabilities_2024=243630, total_equity_2024="413,271m"
    )
    verdict = FinanceVerifier().verify(Record("t", "finance", response, BALANCE))
    assert [(s.name, s.passed) for s in verdict.steps] == [
        ("total_assets_2024", True),
        ("total_liabilities_2024", True),
        ("total_equity_2024", False),
    ]
    checks = {c.name: c for c in verdict.checks}
    assert not checks["consistency"].passed
    assert checks["fields"].evidence["recall"] == 0.6667


MALFORMED = [
    ({"fields": {"a": 1}}, "needs 'document'"),
    ({"document": "../../../etc/passwd", "answer": 1}, "outside the allowed data roots"),
    ({"document": "statements/harbor-2024.pdf"}, "needs 'fields'"),
    ({"document": "statements/harbor-2024.pdf", "fields": {}}, "non-empty"),
    ({"document": "statements/harbor-2024.pdf", "answer": 1, "grounding": "x"}, "grounding"),
    ({"document": "statements/harbor-2024.pdf", "answer": "1", "answer_type": "date"}, "type"),
    (["not", "an", "object"], "must be an object"),
    ({"document": "statements/harbor-2024.pdf", "answer": ["a", 3]}, "multi-span"),
]


@pytest.mark.parametrize(
    ("reference", "message"), MALFORMED, ids=[m[1].split()[0] for m in MALFORMED]
)
def test_malformed_references(reference: Any, message: str) -> None:
    with pytest.raises(MalformedTaskError, match=message):
        FinanceVerifier().verify(Record("t", "finance", "{}", reference))


def test_document_failure_is_an_error_verdict_with_its_problem() -> None:
    reference = {"document": "broken/encrypted.pdf", "answer": "1"}
    verdict = FinanceVerifier().verify(Record("t", "finance", "Answer: 1", reference))
    assert verdict.status is Status.ERROR
    assert verdict.checks[0].evidence["problem"] == "encrypted"


def test_extra_data_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "note.pdf"
    table = Table([["", "2024"], ["Revenue", "1,250"], ["Net income", "(75)"]])
    SimpleDocTemplate(str(path), pagesize=letter).build(
        [Paragraph("Figures in millions of euros"), table]
    )
    reference = {"document": str(path), "scale": "million", "unit": "EUR", "answer": "-75"}
    response = '{"answer": "-€75 million", "page": 1}'
    with pytest.raises(MalformedTaskError):  # outside every root until it is allowed
        FinanceVerifier().verify(Record("t", "finance", response, reference))
    monkeypatch.setenv(ROOTS_ENV, str(tmp_path))
    verdict = FinanceVerifier().verify(Record("t", "finance", response, reference))
    assert verdict.status is Status.CORRECT, verdict
    reference["document"] = "note.pdf"  # relative to the extra root
    assert FinanceVerifier().verify(Record("t", "finance", response, reference)).status is (
        Status.CORRECT
    )


@pytest.mark.parametrize("name", ["finance", "finqa", "TAT-QA", "tatqa", "czyssrs/FinQA"])
def test_registry_names(name: str) -> None:
    assert default_registry().resolve(name) == "finance"


def test_fixture_set_meets_the_issue() -> None:
    cases = [json.loads(line) for line in (FIXTURES / "cases.jsonl").open(encoding="utf-8")]
    assert len(cases) >= 200
    assert all(c["meta"]["expected_status"] and c["meta"]["note"] for c in cases)
    statuses = {c["meta"]["expected_status"] for c in cases}
    assert statuses == {"correct", "partial", "incorrect", "unparsable", "error"}
    categories = {c["meta"]["category"] for c in cases}
    for trap in (
        "qa/fraction-truncated",
        "qa/ratio-x100",
        "qa/negative-unicode",
        "qa/negative-dropped",
        "qa/years-in-text",
        "qa/refusal-answerable",
        "qa/unanswerable-refusal",
        "extract/ungrounded-page",
        "extract/wrong-scale",
        "consistency/rounded-lines",
        "document/encrypted",
        "document/escape",
    ):
        assert trap in categories, trap


def test_statements_regenerate_byte_for_byte(tmp_path: Path) -> None:
    sys.path.insert(0, str(FIXTURES))
    try:
        import build_statements
    finally:
        sys.path.remove(str(FIXTURES))
    statements = 0
    for company in build_statements.COMPANIES:
        build_statements.populate(company)
        out = tmp_path / f"{company.slug}.pdf"
        build_statements.build_filing(company, out)
        assert out.read_bytes() == (FIXTURES / "statements" / out.name).read_bytes(), out.name
        statements += 3  # income statement, balance sheet, cash flow
    assert statements >= 20
    shutil.rmtree(tmp_path)


def test_cases_regenerate_exactly() -> None:
    sys.path.insert(0, str(FIXTURES))
    try:
        import build_cases
    finally:
        sys.path.remove(str(FIXTURES))
    assert build_cases.build() == (FIXTURES / "cases.jsonl").read_text(encoding="utf-8")
