"""'balance' in a consistency answer: the verb says the identity holds, the noun says nothing.

Round 3 of the out-of-sample finance cases: "does not match the change in the cash balance
(31.7); the discrepancy is £15.0 million" was read as claiming both that the identity holds
("balance") and that it fails, so a right "no" with the right gap was wrong. The verb forms
still say "yes"; the noun ("cash balance", "balances of", "balance sheet") does not.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer

LUMEN = {"document": "statements/lumen-2023.pdf", "scale": "million", "unit": "GBP"}
QUARRY = {"document": "statements/quarry-2024.pdf", "scale": "thousand", "unit": "USD"}


def cash(doc: dict[str, str], column: str, prior: str) -> dict[str, Any]:
    return {
        **doc,
        "question": f"Does the {column} net change in cash match the balance sheet? "
        "If not, by how much does it miss?",
        "consistency": {"kind": "change", "total": "Net change in cash and cash equivalents",
                        "line": "Cash and cash equivalents", "column": column, "prior": prior},
    }  # fmt: skip


def balance(doc: dict[str, str], column: str) -> dict[str, Any]:
    return {
        **doc,
        "question": f"Does the {column} balance sheet satisfy total assets = total liabilities "
        "+ total shareholders' equity? If not, by how much does it miss?",
        "consistency": {"kind": "sum", "total": "Total assets",
                        "parts": ["Total liabilities", "Total shareholders' equity"],
                        "column": column},
    }  # fmt: skip


CASH_L, SUM_Q = cash(LUMEN, "2023", "2022"), balance(QUARRY, "2024")
C, X = "correct", "incorrect"
CASES: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "noun-cash-balance",
        CASH_L,
        "The reported net change (46.7) does not match the change "
        "in the cash balance (31.7); the discrepancy is £15.0 million.",
        C,
    ),
    (
        "noun-balances-of",
        CASH_L,
        "The cash balances of 2022 and 2023 differ by 31.7, but the "
        "statement reports 46.7, so it does not match: the gap is 15.0.",
        C,
    ),
    (
        "noun-closing-balance-wrong-gap",
        CASH_L,
        "It does not match the closing balance; the discrepancy is 31.7.",
        X,
    ),
    ("noun-only-yes-wrong", CASH_L, "Yes, the change in the cash balance matches.", X),
    ("verb-sheet-balances", SUM_Q, "The balance sheet balances: 161,998 + 85,038 = 247,036.", C),
    ("verb-it-balances", SUM_Q, "It balances exactly.", C),
    ("verb-balances-out", SUM_Q, "Everything balances out, the difference is 0.", C),
    ("verb-is-balanced", SUM_Q, "The statement is balanced.", C),
    ("verb-sides-balance", SUM_Q, "Both sides balance.", C),
    ("verb-does-not-balance-wrong", SUM_Q, "It does not balance; it is off by 1,000.", X),
]
IDS = [case[0] for case in CASES]


@pytest.fixture(scope="module")
def verdicts() -> Iterator[dict[str, tuple[str, str]]]:
    rows = [
        RawRow(n, {"id": cid, "domain": "finance", "reference": ref, "response": response})
        for n, (cid, ref, response, _) in enumerate(CASES, 1)
    ]
    with Scorer(ScoreOptions(workers=2)) as scorer:
        yield {r.id: (r.status.value, r.verdict.message or "") for r in scorer.score_rows(rows)}


@pytest.mark.parametrize(("cid", "label"), [(c[0], c[3]) for c in CASES], ids=IDS)
def test_the_claim(verdicts: dict[str, tuple[str, str]], cid: str, label: str) -> None:
    status, message = verdicts[cid]
    assert status == label, message
