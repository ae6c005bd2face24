"""FinQA and TAT-QA rows as they come, and consistency identities computed from the statements.

Rows are shaped like the public datasets' (czyssrs/FinQA ``train.json``, NExTplusplus/TAT-QA
``tatqa_dataset_train.json``); identities are checked against the fixture PDFs, whose printed
lines are in ``fixtures/finance/build_statements.py``.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from assay.domains.finance import FinanceVerifier
from assay.domains.finance.rows import finqa_answer, tatqa_answer
from assay.domains.finance.statement import (
    Identity,
    LineNotFoundError,
    compute_gap,
    read_identity,
)
from assay.verifiers.finance import default_cache

from assay.errors import MalformedTaskError
from assay.types import JSON, Record, Status

STATEMENTS = Path(__file__).resolve().parents[2] / "fixtures" / "finance" / "statements"


def finqa(question: str, exe_ans: JSON, answer: str = "", **extra: JSON) -> dict[str, JSON]:
    return {
        "id": "ALDN/2019/page_41.pdf-3",
        "pre_text": ["the following table summarizes results ( in millions ) :"],
        "post_text": ["the operating loss in 2019 reflects restructuring charges ."],
        "table": [["", "2019", "2018"], ["net revenue", "$ 1,234", "$ 1,100"]],
        "qa": {"question": question, "program": "", "exe_ans": exe_ans, "answer": answer},
        **extra,
    }


# (row, value, decimals, unit, scale) of the labelled figure
FINQA_FIGURES: list[tuple[dict[str, JSON], str, int, str, str]] = [
    (finqa("what was the change ( in millions ) ?", 134.0, "134"), "134", 0, "", "million"),
    # the written "33.2%" agrees with the program's fraction: it is the label, a percentage
    (
        finqa("what percentage came from services?", 0.33225, "33.2%"),
        "33.2",
        1,
        "percent",
        "million",
    ),
    # a written answer that disagrees with exe_ans is ignored: the program's result counts
    (finqa("what was the change ( in millions ) ?", 134.0, "135"), "134", 0, "", "million"),
    # no scale in the question: the one the text declares ("( in millions )")
    (finqa("what was the change?", -41.6), "-41.6", 1, "", "million"),
]


@pytest.mark.parametrize(("row", "value", "decimals", "unit", "scale"), FINQA_FIGURES)
def test_finqa_figure(
    row: dict[str, JSON], value: str, decimals: int, unit: str, scale: str
) -> None:
    read = finqa_answer(row)
    assert read.answer is not None
    figure = read.answer
    assert (figure.value, figure.decimals, figure.unit, read.scale) == (
        Decimal(value),
        decimals,
        unit,
        scale,
    )


def test_finqa_yes_no_is_a_text_answer() -> None:
    read = finqa_answer(finqa("was revenue higher in 2019?", "yes"))
    assert (read.answer, read.text_answers) == (None, ("yes",))


def tatqa(answer: JSON, kind: str, scale: str, **extra: Any) -> dict[str, JSON]:
    question = {
        "uid": "q-1",
        "order": 1,
        "question": "What was it?",
        "answer": answer,
        "answer_type": kind,
        "answer_from": "table",
        "scale": scale,
        "derivation": "",
    }
    question.update(extra)
    return {
        "table": {"uid": "t", "table": [["", "2019"], ["Net loss", "(871)"]]},
        "paragraphs": [{"uid": "p", "order": 1, "text": "Amounts in thousands."}],
        "questions": [question],
    }


# (row, figure value or None, texts, spans, scale)
TATQA_READS: list[tuple[dict[str, JSON], str | None, tuple[str, ...], tuple[str, ...], str]] = [
    (tatqa(["871"], "span", "thousand"), "871", (), (), "thousand"),  # a number span
    (tatqa(["Cloud"], "span", ""), None, ("Cloud",), (), "unit"),  # a text span
    (tatqa(["Cloud", "Devices"], "multi-span", ""), None, (), ("Cloud", "Devices"), "unit"),
    (tatqa(2, "count", ""), "2", (), (), "unit"),  # a count
    (tatqa(-333, "arithmetic", "thousand"), "-333", (), (), "thousand"),
    (tatqa(["11.85"], "arithmetic", "percent"), "11.85", (), (), "unit"),  # points
]


@pytest.mark.parametrize(("row", "value", "texts", "spans", "scale"), TATQA_READS)
def test_tatqa_reads(
    row: dict[str, JSON],
    value: str | None,
    texts: tuple[str, ...],
    spans: tuple[str, ...],
    scale: str,
) -> None:
    read = tatqa_answer(row)
    assert (read.answer.value if read.answer else None) == (Decimal(value) if value else None)
    assert (read.text_answers, read.spans, read.scale) == (texts, spans, scale)


# (reference, words the error message must hold)
BAD_ROWS: list[tuple[dict[str, JSON], str]] = [
    (finqa("q?", 1.0, extra_key=1), "unknown FinQA key 'extra_key'"),
    ({**finqa("q?", 1.0), "qa": {"question": "q?"}}, "qa.exe_ans"),
    ({**tatqa(["1"], "span", ""), "note": "x"}, "unknown TAT-QA key 'note'"),
    (tatqa(["1"], "table-span", ""), "answer_type"),
    ({**tatqa(["1"], "span", ""), "questions": []}, "one question"),
    (tatqa(["a", "b"], "span", ""), "one string"),
]


@pytest.mark.parametrize(("reference", "words"), BAD_ROWS, ids=[w for _, w in BAD_ROWS])
def test_a_bad_row_is_an_error_that_names_its_fault(reference: dict[str, JSON], words: str) -> None:
    with pytest.raises(MalformedTaskError, match=words.replace("(", r"\(")):
        FinanceVerifier().verify(Record("t", "finance", "Answer: 1", reference))


def test_an_unknown_pdf_reference_key_is_named() -> None:
    reference = {
        "document": "statements/harbor-2024.pdf",
        "question": "q",
        "answer": "1",
        "anwser_type": "number",
    }
    with pytest.raises(MalformedTaskError, match="unknown finance reference key 'anwser_type'"):
        FinanceVerifier().verify(Record("t", "finance", "Answer: 1", reference))


CASH = {
    "kind": "change",
    "total": "Net change in cash and cash equivalents",
    "line": "Cash and cash equivalents",
}
# (document, identity spec, gap, holds): gaps from the printed lines (build_statements.py)
GAPS: list[tuple[str, dict[str, JSON], str, bool]] = [
    (
        "harbor-2024",
        {
            "kind": "sum",
            "total": "Total assets",
            "parts": ["Total liabilities", "Total shareholders' equity"],
            "column": "2024",
        },
        "0",
        True,
    ),
    (
        "quarry-2024",
        {
            "kind": "sum",
            "total": "Gross profit",
            "parts": ["Revenue", "-Cost of revenue"],
            "column": "2024",
        },
        "0",
        True,
    ),
    ("summit-2023", {**CASH, "column": "2023", "prior": "2022"}, "6325", False),  # 23,230 - 16,905
    ("harbor-2024", {**CASH, "column": "2024", "prior": "2023"}, "-7904", False),  # -5,127 - 2,777
    ("lumen-2023", {**CASH, "column": "2023", "prior": "2022"}, "15.0", False),  # 46.7 - 31.7
    (
        "summit-2023",
        {
            "kind": "sum",
            "total": "Total current assets",
            "parts": [
                "Cash and cash equivalents",
                "Accounts receivable, net",
                "Inventories",
                "Prepaid expenses and other",
            ],
            "column": "2023",
        },
        "0",
        True,
    ),
]


@pytest.mark.parametrize(
    ("document", "spec", "gap", "holds"),
    GAPS,
    ids=[g[0] + "-" + str(g[1]["kind"]) + g[2] for g in GAPS],
)
def test_gap_from_the_document(document: str, spec: dict[str, JSON], gap: str, holds: bool) -> None:
    computed = compute_gap(
        read_identity(spec), default_cache().open(STATEMENTS / f"{document}.pdf")
    )
    assert (computed.gap, computed.holds) == (Decimal(gap), holds)


def test_a_line_the_document_lacks_is_named() -> None:
    identity = Identity("sum", ("Total widgets", "2024"), ((1, "Total assets", "2024"),))
    with pytest.raises(LineNotFoundError, match="Total widgets"):
        compute_gap(identity, default_cache().open(STATEMENTS / "harbor-2024.pdf"))


# (spec, words of the error)
BAD_IDENTITIES: list[tuple[JSON, str]] = [
    ({"kind": "ratio", "total": "a", "column": "2024"}, "kind"),
    ({"kind": "sum", "total": "a", "parts": [], "column": "2024"}, "parts"),
    ({"kind": "sum", "total": "a", "parts": ["b"], "column": "2024", "prior": "2023"}, "prior"),
    ({"kind": "change", "total": "a", "line": "b", "column": "2024"}, "prior"),
    ("Total assets", "object"),
]


@pytest.mark.parametrize(("spec", "words"), BAD_IDENTITIES, ids=[w for _, w in BAD_IDENTITIES])
def test_a_bad_identity_is_refused(spec: JSON, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        read_identity(spec)


SUMMIT_CASH = {
    "document": "statements/summit-2023.pdf",
    "scale": "thousand",
    "unit": "USD",
    "question": "Does the 2023 net change in cash match? If not, by how much?",
    "consistency": {**CASH, "column": "2023", "prior": "2022"},
}
# (response, status): the claim and the stated gap (6,325 thousand)
CLAIMS: list[tuple[str, Status]] = [
    ("No, they miss by $6,325 thousand.", Status.CORRECT),
    ("No; a gap of -6,325.", Status.CORRECT),  # sign ignored
    ("The reconciliation is off by $6.325 million.", Status.CORRECT),  # rescaled, no leading no
    ('{"consistent": false, "gap": "6,325"}', Status.CORRECT),  # JSON claim
    ("Inconsistent by 6,325.", Status.CORRECT),
    ("No, they miss by $6,300 thousand.", Status.INCORRECT),  # the wrong gap
    ("No.", Status.INCORRECT),  # a "no" must state the gap
    ("Yes, they match.", Status.INCORRECT),  # the wrong claim
    ("The statements were prepared in 2023.", Status.UNPARSABLE),  # no claim at all
]


@pytest.mark.parametrize(("response", "status"), CLAIMS, ids=[c[0][:40] for c in CLAIMS])
def test_consistency_claims(response: str, status: Status) -> None:
    verdict = FinanceVerifier().verify(Record("t", "finance", response, SUMMIT_CASH))
    assert verdict.status is status, verdict.message
