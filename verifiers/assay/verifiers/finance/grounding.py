"""Is a cited value, or a quoted line, really on the page the response cites?

A value is on a page when a figure there has the same digits (``1,250`` for ``1250``, signs
and parentheses aside), or states the same amount in one of the page's declared reporting
scales (``$1.25 million`` against ``1,250`` under "in thousands"), at the precision the page
prints. A quote is on a page when its words appear there in order (case, spacing and dash
style ignored). Pages are 1-based PDF page indices.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from assay.verifiers.finance.document import Document
from assay.verifiers.finance.numbers import SCALES, Amount
from assay.verifiers.finance.pages import PageContent

from assay.types import JSON

_HUNDRED = Decimal(100)


@dataclass(frozen=True, slots=True)
class Grounding:
    """Whether one citation holds, and why."""

    grounded: bool
    message: str
    evidence: dict[str, JSON] = field(default_factory=dict)


def ground_value(
    document: Document, page_number: int, amount: Amount, base: Decimal | None
) -> Grounding:
    """Whether ``amount`` (read as ``base`` in base units) is printed on the cited page."""
    page = document.page(page_number)
    if page is None:
        return _no_page(document, page_number)
    hit = _matching_figure(page, amount, base)
    if hit is None:
        return Grounding(
            False,
            f"{amount.text!r} is not on page {page_number}",
            {"page": page_number, "value": amount.text},
        )
    return Grounding(
        True,
        f"{amount.text!r} is on page {page_number} as {hit.text!r}",
        {"page": page_number, "value": amount.text, "found": hit.text},
    )


def ground_quote(document: Document, page_number: int, quote: str) -> Grounding:
    """Whether the quoted evidence appears on the cited page."""
    page = document.page(page_number)
    if page is None:
        return _no_page(document, page_number)
    if page.contains_quote(quote):
        return Grounding(True, f"the quote is on page {page_number}", {"page": page_number})
    return Grounding(
        False,
        f"the quote {quote[:80]!r} is not on page {page_number}",
        {"page": page_number, "quote": quote[:200]},
    )


def _no_page(document: Document, page_number: int) -> Grounding:
    return Grounding(
        False,
        f"page {page_number} does not exist (the document has {document.page_count})",
        {"page": page_number, "pages": document.page_count},
    )


def _matching_figure(page: PageContent, amount: Amount, base: Decimal | None) -> Amount | None:
    digits = abs(amount.value)
    for figure in page.amounts:
        if abs(figure.value) == digits:
            return figure
    if base is None:
        return None
    target = abs(base)
    for figure in page.amounts:
        half_unit = Decimal(5).scaleb(-(figure.decimals + 1))
        if figure.percent:
            if abs(abs(figure.value) / _HUNDRED - target) <= half_unit / _HUNDRED:
                return figure
            continue
        for scale in page.scales:
            factor = SCALES[scale]
            if abs(abs(figure.value) * factor - target) <= half_unit * factor:
                return figure
    return None
