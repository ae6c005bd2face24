"""'balance' in a consistency answer: the verb says the identity holds, the noun says nothing.

Round 3 of the out-of-sample finance cases: "does not match the change in the cash balance
(31.7); the discrepancy is £15.0 million" was read as claiming both that the identity holds
("balance") and that it fails, so a right "no" with the right gap was wrong. The verb forms
still say "yes"; the noun ("cash balance", "balances of", "balance sheet") does not.
"""

from __future__ import annotations

from typing import Any

import pytest
from finance_cases import LUMEN, QUARRY, C, Case, X, labelled
from finance_cases import verdicts as verdicts_of


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
CASES: list[Case] = [
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


@pytest.fixture(scope="module")
def verdicts() -> dict[str, tuple[str, str]]:
    return verdicts_of(CASES)


@labelled(CASES)
def test_the_claim(verdicts: dict[str, tuple[str, str]], cid: str, label: str) -> None:
    status, message = verdicts[cid]
    assert status == label, message
