"""Dates and years, which are not answers (but a year may be one).

A calendar date's numbers ("December 31, 2024", "31 December 2023", "Dec. 31, 2023",
"2024-12-31", "12/31/2024", "31.12.2023", "March 2024") are never figures of an answer: the
number reader marks them with the role ``date``. A bare year ("in 2024", "fiscal 2023",
"FY2023", "from 2018 to 2019") is a *year mention*: the reader marks a plain four-digit integer
between :data:`FIRST_YEAR` and :data:`LAST_YEAR` with the role ``year``, so a domain whose answer
is a year can still take it while others skip it.
"""

from __future__ import annotations

import re
from decimal import Decimal

FIRST_YEAR = 1900
LAST_YEAR = 2100

_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?"
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?:1[89]\d\d|2[01]\d\d)"
_DATE = re.compile(
    rf"""
    (?<![\w.])(?:
        {_MONTH}\s+{_DAY}(?:\s*,\s*|\s+){_YEAR}          # December 31, 2024
      | {_DAY}\s+(?:of\s+)?{_MONTH}(?:\s*,\s*|\s+){_YEAR} # 31 December 2023
      | {_MONTH}\s*,?\s+{_YEAR}                          # March 2024
      | {_MONTH}\s+{_DAY}(?![\d,.]*\d)                   # December 31
      | {_DAY}\s+(?:of\s+)?{_MONTH}                      # 31 December
      | {_YEAR}[-/.](?:0?[1-9]|1[0-2])[-/.](?:[12]\d|3[01]|0?[1-9])  # 2024-12-31
      | (?:[12]\d|3[01]|0?[1-9])[-/.](?:[12]\d|3[01]|0?[1-9])[-/.]{_YEAR}  # 12/31/2024
    )(?![\w])
    """,
    re.VERBOSE,
)


_HINT = re.compile(r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)|\d[-/.]\d")


def date_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of every calendar date in ``text``, in order.

    Example:
        >>> text = "Assets at December 31, 2024 and 2023-12-31."
        >>> [text[a:b] for a, b in date_spans(text)]
        ['December 31, 2024', '2023-12-31']
    """
    if _HINT.search(text) is None:
        return []
    return [(match.start(), match.end()) for match in _DATE.finditer(text)]


def is_plausible_year(value: Decimal, written: str) -> bool:
    """A plain four-digit integer in ``[FIRST_YEAR, LAST_YEAR]`` (``2,024`` is no year)."""
    return len(written) == 4 and written.isdigit() and FIRST_YEAR <= value <= LAST_YEAR
