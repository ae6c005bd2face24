"""PDF pages, typed document failures, the per-document cache, grounding and identities."""

from __future__ import annotations

import multiprocessing
import os
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from assay.verifiers.finance import (
    DocumentCache,
    DocumentError,
    Limits,
    Problem,
    check_rules,
    default_cache,
    ground_quote,
    ground_value,
    parse_amount,
    read_rules,
)
from reportlab.pdfgen import canvas

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "finance"
HARBOR = FIXTURES / "statements" / "harbor-2024.pdf"  # ruled tables, in thousands of USD
MERIDIAN = FIXTURES / "statements" / "meridian-2024.pdf"  # unruled tables, en-dash negatives
ALDER = FIXTURES / "statements" / "alder-2023.pdf"  # in millions, balance sheet on two pages

BROKEN = [
    ("corrupt.pdf", Problem.CORRUPT),  # truncated after a third of its bytes
    ("empty.pdf", Problem.EMPTY),  # zero bytes
    ("encrypted.pdf", Problem.ENCRYPTED),  # reportlab StandardEncryption, user password
    ("huge.pdf", Problem.TOO_MANY_PAGES),  # page tree declares 250,000 pages
    ("not-a-pdf.pdf", Problem.CORRUPT),  # CSV text with a .pdf name
    ("missing.pdf", Problem.MISSING),
]


@pytest.mark.parametrize(("name", "problem"), BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_documents_are_typed(name: str, problem: Problem) -> None:
    cache = DocumentCache()
    with pytest.raises(DocumentError) as caught:
        cache.open(FIXTURES / "broken" / name)
    assert caught.value.problem is problem
    if problem is not Problem.MISSING:  # a failure is remembered like a document
        with pytest.raises(DocumentError):
            cache.open(FIXTURES / "broken" / name)
        assert cache.stats.hits == 1


def test_size_and_page_caps() -> None:
    with pytest.raises(DocumentError) as caught:
        DocumentCache(limits=Limits(max_bytes=1000)).open(HARBOR)
    assert caught.value.problem is Problem.TOO_LARGE
    with pytest.raises(DocumentError) as caught:
        DocumentCache(limits=Limits(max_pages=4)).open(HARBOR)  # it has 5 real pages
    assert caught.value.problem is Problem.TOO_MANY_PAGES


def test_pages_text_tables_and_scales() -> None:
    document = DocumentCache().open(MERIDIAN)
    assert document.page_count == 5
    balance = document.page(3)
    assert balance is not None
    assert "Total assets 315,285 270,324" in balance.text
    assert balance.scales == ("unit", "thousand")
    assert any("315,285" in row for row in balance.rows)  # unruled: text-aligned table rows
    values = {a.value for a in balance.amounts}
    assert Decimal(-1636) in values  # "–1,636": en-dash negative
    notes = document.page(5)
    assert notes is not None and "million" in notes.scales  # segment note in millions
    assert document.page(0) is None and document.page(6) is None


def test_cache_reads_a_document_once_and_notices_changes(tmp_path: Path) -> None:
    copy = tmp_path / "filing.pdf"
    shutil.copy(HARBOR, copy)
    cache = DocumentCache()
    for _ in range(1000):
        document = cache.open(copy)
        document.page(3)
    assert (cache.stats.opened, cache.stats.hits, cache.stats.pages_read) == (1, 999, 1)
    shutil.copy(MERIDIAN, copy)  # new content, size and mtime: read again
    os.utime(copy, ns=(0, 1))
    assert cache.open(copy).page(3) is not None
    assert cache.stats.opened == 2


def test_cache_evicts_least_recently_used() -> None:
    cache = DocumentCache(capacity=1)
    cache.open(HARBOR)
    cache.open(MERIDIAN)
    cache.open(HARBOR)
    assert cache.stats.opened == 3


def _child_cache_state(queue: multiprocessing.Queue[tuple[int, int]]) -> None:
    cache = default_cache()
    queue.put((id(cache), cache.stats.opened))


def test_forked_worker_gets_its_own_cache() -> None:
    parent = default_cache()
    parent.open(HARBOR)
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[tuple[int, int]] = context.Queue()
    process = context.Process(target=_child_cache_state, args=(queue,))
    process.start()
    _, opened = queue.get(timeout=60)
    process.join(60)
    assert opened == 0  # nothing inherited: the child opens its own handles


GROUNDING = [
    # (document, page, answer, base value, grounded)
    (HARBOR, 3, "656,901", None, True),  # printed digits
    (HARBOR, 3, "$656.901 million", Decimal(656_901_000), True),  # same amount, page in thousands
    (HARBOR, 2, "656,901", Decimal(656_901_000), False),  # income statement page
    (HARBOR, 4, "(39,314)", None, True),  # capex outflow on the cash-flow page
    (HARBOR, 9, "656,901", None, False),  # no such page
    (ALDER, 4, "316.9", None, True),  # liabilities continue on page 4
    (ALDER, 3, "316.9", Decimal(316_900_000), False),  # not on the assets page
    (MERIDIAN, 3, "-1,636", None, True),  # en dash on the page, hyphen in the answer
]


@pytest.mark.parametrize(
    ("path", "page", "answer", "base", "grounded"),
    GROUNDING,
    ids=[f"{g[0].stem}-p{g[1]}-{g[2]}" for g in GROUNDING],
)
def test_ground_value(
    path: Path, page: int, answer: str, base: Decimal | None, grounded: bool
) -> None:
    amount = parse_amount(answer)
    assert amount is not None
    document = DocumentCache().open(path)
    assert ground_value(document, page, amount, base).grounded is grounded


def test_ground_quote() -> None:
    document = DocumentCache().open(HARBOR)
    assert ground_quote(document, 3, "total   ASSETS 656,901").grounded
    assert not ground_quote(document, 3, "Total assets 656,902").grounded
    assert not ground_quote(document, 2, "Total assets 656,901").grounded


def test_unruled_page_without_text_layer_is_not_grounded(tmp_path: Path) -> None:
    path = tmp_path / "blank.pdf"
    pdf = canvas.Canvas(str(path))
    pdf.rect(72, 600, 200, 100)  # a drawing, no text: like a scanned page
    pdf.showPage()
    pdf.save()
    document = DocumentCache().open(path)
    amount = parse_amount("100")
    assert amount is not None
    assert not ground_value(document, 1, amount, Decimal(100)).grounded


RULES = [
    # (rule, values, units, passed)
    ({"kind": "balance", "assets": "a", "liabilities": "l", "equity": "e"}, (100, 60, 40), 1, True),
    # two summed lines: up to two reporting units of rounding, not three
    (
        {"kind": "balance", "assets": "a", "liabilities": "l", "equity": "e"},
        (100, 60, 37),
        1,
        False,
    ),
    (
        {"kind": "balance", "assets": "a", "liabilities": "l", "equity": "e"},
        (100, 60, 38),
        1000,
        True,
    ),
    ({"kind": "change", "change": "a", "current": "l", "prior": "e"}, (-5, 95, 100), 1, True),
    ({"kind": "change", "change": "a", "current": "l", "prior": "e"}, (5, 95, 100), 1, False),
    ({"kind": "sum", "total": "a", "parts": ["l", "-e"]}, (20, 60, 40), 1, True),
]


@pytest.mark.parametrize(
    ("rule", "values", "unit", "passed"),
    RULES,
    ids=["balance", "off-by-3-units", "off-by-2-units", "change", "change-sign", "subtract"],
)
def test_rules(rule: dict[str, object], values: tuple[int, ...], unit: int, passed: bool) -> None:
    rules = read_rules([rule])
    named = dict(zip(("a", "l", "e"), (Decimal(v) * unit for v in values), strict=True))
    units = dict.fromkeys(named, Decimal(unit))
    (outcome,) = check_rules(rules, named, units)
    assert outcome.passed is passed


def test_rule_with_missing_field_is_not_checked() -> None:
    rules = read_rules([{"kind": "sum", "total": "a", "parts": ["b", "c"]}])
    (outcome,) = check_rules(rules, {"a": Decimal(1), "b": Decimal(1)}, {})
    assert outcome.passed is None


@pytest.mark.parametrize(
    "spec",
    [{"kind": "product"}, {"kind": "sum", "total": "a", "parts": []}, "sum", {"kind": "balance"}],
    ids=["unknown-kind", "no-parts", "not-an-object", "missing-names"],
)
def test_bad_rules(spec: object) -> None:
    with pytest.raises(ValueError):
        read_rules([spec])
