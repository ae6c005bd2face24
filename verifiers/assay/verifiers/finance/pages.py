"""What one PDF page says: its text, its table rows, the figures on it and its reporting scales.

Figures are gathered from pdfplumber's text *and* from its tables, found both by ruling lines
and by text alignment (statements often have no rules at all), so a figure whose column the
plain text run merged with a neighbour is still found in its table cell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.verifiers.finance.numbers import Amount, find_amounts

if TYPE_CHECKING:
    from pdfplumber.page import Page

_TEXT_TABLES = {"vertical_strategy": "text", "horizontal_strategy": "text"}
_SCALE_HEADER = re.compile(
    r"""
    in\s+(?:[A-Z]{3}\s+|[$€£¥]\s*)?(?P<word>thousands|millions|billions)
    | \((?:[$€£¥]\s*|[A-Z]{3}\s+)?(?P<short>000s?|'000|’000|000,000)\)
    """,
    re.VERBOSE | re.IGNORECASE,
)
_DASHES = {ord(c): "-" for c in "\u2212\u2013\u2012"}
_SHORT_SCALES = {"000": "thousand", "000s": "thousand", "'000": "thousand", "’000": "thousand"}


@dataclass(frozen=True, slots=True)
class PageContent:
    """The extracted content of one page.

    Attributes:
        number: 1-based page number.
        text: pdfplumber's text of the page.
        rows: Table rows (cells joined by single spaces), from ruled and unruled tables.
        amounts: Every figure in the text and in table cells.
        scales: Reporting scales the page declares ("in thousands" ...); ``unit`` always.
        searchable: Text and rows, whitespace collapsed and case folded, for quotes.
    """

    number: int
    text: str
    rows: tuple[str, ...]
    amounts: tuple[Amount, ...]
    scales: tuple[str, ...]
    searchable: str

    def contains_quote(self, quote: str) -> bool:
        """Whether ``quote`` appears on the page (case, spacing and dash style ignored)."""
        wanted = squash(quote)
        return bool(wanted) and wanted in self.searchable


def squash(text: str) -> str:
    """Whitespace collapsed, dashes unified, case folded."""
    return " ".join(text.translate(_DASHES).casefold().split())


def page_scales(text: str) -> tuple[str, ...]:
    """The reporting scales a page's text declares, ``unit`` first."""
    found = ["unit"]
    for match in _SCALE_HEADER.finditer(text):
        word = match.group("word")
        if word:
            scale = word.lower().rstrip("s")
        else:
            short = match.group("short")
            scale = "million" if short == "000,000" else _SHORT_SCALES.get(short, "thousand")
        if scale not in found:
            found.append(scale)
    return tuple(found)


def read_page(page: Page, number: int) -> PageContent:
    """Extract the text, table rows, figures and scales of a pdfplumber page."""
    text = page.extract_text() or ""
    rows: list[str] = []
    for settings in (None, _TEXT_TABLES):
        tables = page.extract_tables() if settings is None else page.extract_tables(settings)
        for table in tables:
            for row in table:
                cells = [" ".join((cell or "").split()) for cell in row]
                joined = " ".join(cell for cell in cells if cell)
                if joined:
                    rows.append(joined)
    amounts: dict[tuple[str, bool], Amount] = {}
    for source in (text, *rows):
        for amount in find_amounts(source):
            amounts.setdefault((str(amount.value), amount.percent), amount)
    page.close()
    return PageContent(
        number=number,
        text=text,
        rows=tuple(rows),
        amounts=tuple(amounts.values()),
        scales=page_scales(text),
        searchable=squash("\n".join((text, *rows))),
    )
