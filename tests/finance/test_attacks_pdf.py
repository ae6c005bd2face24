"""Hostile PDFs, written byte by byte as an attacker would: tiny files that would hold a worker.

Before the bounds (assay.verifiers.finance.bounds, the page-tree walk and the time budget in
document.py), an indirect object that resolves to itself hung pdfminer's ``resolve1`` forever
(the catalog, the page tree, a page's /Contents, /MediaBox or /Resources), a 290 KB
FlateDecode stream of blanks inflated to 300 MB and took 15 s, and a /Parent loop on a page
without a /MediaBox escaped as a bare TypeError. Each must now be refused quickly with a typed
``DocumentError``.

Attribution: the document is the *task's* (the reference names it; a response never supplies
one), so a hostile document is an unusable reference: an ``error`` verdict with a
``document`` check (problem named), masked by trainers, the same as any corrupt document
(docs/finance.md). It must still never hold a worker for the item's whole limit, which is what
these tests bound (``timeout`` marks: a hang fails the test instead of stalling it).
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from assay.domains.finance.verifier import FinanceVerifier
from assay.verifiers.finance import DocumentCache, DocumentError, Problem, bounds

from assay.types import Record, Status


def pdf(objects: dict[int, bytes], trailer: bytes = b"") -> bytes:
    """A PDF with a correct cross-reference table (object 1 is the catalog)."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n" % number + objects[number] + b"\nendobj\n"
    start = len(out)
    size = max(objects) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    for number in range(1, size):
        out += (
            b"%010d 00000 n \n" % offsets[number] if number in offsets else b"0000000000 65535 f \n"
        )
    out += b"trailer\n<< /Size %d /Root 1 0 R " % size + trailer + b">>\n"
    out += b"startxref\n%d\n%%%%EOF\n" % start
    return bytes(out)


def stream(data: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d " % len(data) + extra + b">>\nstream\n" + data + b"\nendstream"


CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"
PAGES = b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
PAGE = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>"
TEXT = stream(b"BT /F1 12 Tf 72 720 Td (Total assets 1,000) Tj ET")
HONEST = {1: CATALOG, 2: PAGES, 3: PAGE, 4: TEXT}


def honest_with(**changes: bytes) -> dict[int, bytes]:
    objects = dict(HONEST)
    objects.update({int(k.lstrip("o")): v for k, v in changes.items()})
    return objects


def prev_loop() -> bytes:
    """A cross-reference section whose /Prev points at itself."""
    data = pdf(HONEST)
    start = int(data.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    return data.replace(b"/Root 1 0 R ", b"/Root 1 0 R /Prev %d " % start)


def bomb(size: int, filters: bytes, encoded: bytes) -> bytes:
    return pdf(honest_with(o4=stream(encoded, b"/Filter " + filters + b" ")))


def run_length_bomb() -> bytes:
    run = bytes([129, 32])  # 128 blanks from 2 bytes
    return bomb(0, b"/RunLengthDecode", run * 400_000 + bytes([128]))


# (attack, file bytes, the problems that may be reported)
ATTACKS: list[tuple[str, bytes, set[Problem]]] = [
    ("the page tree is a reference to itself", pdf({1: CATALOG, 2: b"2 0 R"}), {Problem.CORRUPT}),
    ("two objects that name each other", pdf({1: CATALOG, 2: b"5 0 R", 5: b"2 0 R"}), {Problem.CORRUPT}),
    ("the catalog is a reference to itself", pdf({1: b"1 0 R", 2: PAGES, 3: PAGE, 4: TEXT}), {Problem.CORRUPT}),
    ("/Kids holds the node itself", pdf({1: CATALOG, 2: b"<< /Type /Pages /Kids [2 0 R] /Count 1 >>"}), {Problem.EMPTY, Problem.CORRUPT}),
    ("circular /Kids", pdf({1: CATALOG, 2: b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>", 5: b"<< /Type /Pages /Kids [2 0 R] /Parent 2 0 R /Count 1 >>"}), {Problem.EMPTY, Problem.CORRUPT}),
    ("/Parent loop, no /MediaBox to inherit", pdf(honest_with(o2=b"<< /Type /Pages /Kids [3 0 R] /Count 1 /Parent 2 0 R >>", o3=b"<< /Type /Page /Parent 3 0 R /Contents 4 0 R >>")), {Problem.CORRUPT}),
    ("/Count resolves to itself", pdf(honest_with(o2=b"<< /Type /Pages /Kids [3 0 R] /Count 6 0 R >>", o6=b"6 0 R")), {Problem.CORRUPT}),
    ("/Contents resolves to itself", pdf(honest_with(o4=b"4 0 R")), {Problem.CORRUPT}),
    ("/MediaBox resolves to itself", pdf(honest_with(o3=b"<< /Type /Page /Parent 2 0 R /MediaBox 7 0 R /Contents 4 0 R >>", o7=b"7 0 R")), {Problem.CORRUPT}),
    ("/Resources resolves to itself", pdf(honest_with(o3=b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 8 0 R /Contents 4 0 R >>", o8=b"8 0 R")), {Problem.CORRUPT}),
    ("/Prev of the xref points at itself", prev_loop(), {Problem.CORRUPT}),
    ("a FlateDecode bomb: 290 KB to 300 MB", bomb(0, b"/FlateDecode", zlib.compress(b" " * 300_000_000, 9)), {Problem.TOO_LARGE}),
    ("a bomb behind a second filter", bomb(0, b"[/ASCIIHexDecode /FlateDecode]", zlib.compress(b" " * 100_000_000, 9).hex().encode() + b">"), {Problem.TOO_LARGE}),
    ("a RunLength bomb: 800 KB to 51 MB", run_length_bomb(), {Problem.TOO_LARGE}),
    ("/Kids naming one page 20,000 times", pdf(honest_with(o2=b"<< /Type /Pages /Kids [" + b"3 0 R " * 20_000 + b"] /Count 1 >>")), {Problem.TOO_MANY_PAGES}),
]  # fmt: skip


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("name", "data", "problems"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_a_hostile_pdf_is_refused_with_a_typed_problem(
    tmp_path: Path, name: str, data: bytes, problems: set[Problem]
) -> None:
    path = tmp_path / "filing.pdf"
    path.write_bytes(data)
    with pytest.raises(DocumentError) as caught:
        document = DocumentCache().open(path)
        for number in range(1, document.page_count + 1):
            document.page(number)
    assert caught.value.problem in problems, (name, caught.value)


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("name", "data", "problems"),
    ATTACKS[:3] + ATTACKS[11:12],
    ids=["self", "pair", "catalog", "flate"],
)
def test_the_verdict_is_an_error_of_the_task_naming_the_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, data: bytes, problems: set[Problem]
) -> None:
    (tmp_path / "filing.pdf").write_bytes(data)
    monkeypatch.setenv("ASSAY_FINANCE_ROOTS", str(tmp_path))
    reference = {
        "document": "filing.pdf",
        "question": "Total assets?",
        "answer": "1000",
        "unit": "",
    }
    response = '{"answer": "1000", "page": 1, "evidence": "Total assets 1,000"}'  # reads page 1
    verdict = FinanceVerifier(DocumentCache()).verify(Record("x", "finance", response, reference))
    assert verdict.status is Status.ERROR, verdict
    (check,) = [c for c in verdict.checks if c.name == "document"]
    assert check.evidence["problem"] in {p.value for p in problems}


def test_the_honest_twin_still_reads() -> None:
    """The same hand-written file without the attack: the bounds refuse nothing honest."""
    cache = DocumentCache()
    path = Path(__file__).parent / "_honest.pdf"
    try:
        path.write_bytes(pdf(HONEST))
        page = cache.open(path).page(1)
        assert page is not None and "Total assets 1,000" in page.text
    finally:
        cache.clear()
        path.unlink(missing_ok=True)


@pytest.mark.parametrize(
    ("name", "decode", "data"),
    [
        ("flate", bounds._BoundedZlib.decompress, zlib.compress(b"\0" * (bounds.MAX_DECODED_BYTES + 1))),
        ("run length", bounds.bounded_rldecode, bytes([129, 0]) * (bounds.MAX_DECODED_BYTES // 128 + 1)),
    ],
)  # fmt: skip
def test_each_decoder_stops_at_the_cap(name: str, decode: object, data: bytes) -> None:
    with pytest.raises(bounds.StreamTooLarge):
        decode(data)  # type: ignore[operator]


def test_lzw_stops_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    from pdfminer.lzw import lzwdecode

    encoded = lzw_codes(10_000)
    decoded = lzwdecode(encoded)
    assert len(decoded) > 5_000
    assert bounds.bounded_lzwdecode(encoded) == decoded
    monkeypatch.setattr(bounds, "MAX_DECODED_BYTES", 1_000)  # our own cap, lowered
    with pytest.raises(bounds.StreamTooLarge):
        bounds.bounded_lzwdecode(encoded)


def test_decoders_agree_with_pdfminer_below_the_cap() -> None:
    from pdfminer.lzw import lzwdecode
    from pdfminer.runlength import rldecode

    text = b"Total assets 1,000 " * 500
    assert bounds._BoundedZlib.decompress(zlib.compress(text)) == text
    encoded = lzw_codes(2_000)
    assert bounds.bounded_lzwdecode(encoded) == lzwdecode(encoded)
    runs = bytes([2, 65, 66, 67, 253, 32, 0, 90, 128])
    assert bounds.bounded_rldecode(runs) == rldecode(runs)
    with pytest.raises(zlib.error):  # truncated: pdfminer falls back to its lenient decoder
        bounds._BoundedZlib.decompress(zlib.compress(text)[:-10])


def lzw_codes(count: int) -> bytes:
    """``count`` 9-bit literal codes (byte ``A``), a clear code every 250 so the width stays 9."""
    codes = [256]
    for i in range(count):
        if i and i % 250 == 0:
            codes.append(256)
        codes.append(65)
    codes.append(257)
    buffer, bits, out = 0, 0, bytearray()
    for code in codes:
        buffer = (buffer << 9) | code
        bits += 9
        while bits >= 8:
            bits -= 8
            out.append((buffer >> bits) & 0xFF)
    if bits:
        out.append((buffer << (8 - bits)) & 0xFF)
    return bytes(out)


def test_pages_past_the_time_budget_are_refused() -> None:
    """The budget is checked between pages: with none left after the first page, the next
    page is refused (``too_costly``) and stays refused; the page already read stays readable."""
    from assay.verifiers.finance import Limits

    harbor = Path(__file__).resolve().parents[2] / "fixtures/finance/statements/harbor-2024.pdf"
    document = DocumentCache(limits=Limits(max_seconds=0.0)).open(harbor)
    assert document.page(1) is not None
    for _ in range(2):
        with pytest.raises(DocumentError) as caught:
            document.page(2)
        assert caught.value.problem is Problem.TOO_COSTLY
    assert document.page(1) is not None
