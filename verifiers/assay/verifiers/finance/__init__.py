"""Finance checkers: number reading, PDF pages with a per-document cache, grounding, identities.

- :mod:`~assay.verifiers.finance.numbers`: amounts as written (signs, scales, currencies).
- :mod:`~assay.verifiers.finance.compare`: a labelled figure, compared at its reported precision.
- :mod:`~assay.verifiers.finance.document` / :mod:`~assay.verifiers.finance.pages`: pdfplumber
  text and tables per page, size and page caps, typed failures, one cache per process.
- :mod:`~assay.verifiers.finance.grounding`: is a cited value or quote on the cited page?
- :mod:`~assay.verifiers.finance.consistency`: accounting identities within rounding.
- :mod:`~assay.verifiers.finance.answers`: JSON fields, final answers and refusals in responses.
"""

from __future__ import annotations

from assay.verifiers.finance.answers import (
    ClaimedField,
    FinalAnswer,
    answer_amount,
    extract_object,
    final_answer,
    is_refusal,
    read_fields,
)
from assay.verifiers.finance.compare import Comparison, Figure, compare, normalize_text, read_figure
from assay.verifiers.finance.consistency import Rule, RuleOutcome, check_rules, read_rules
from assay.verifiers.finance.document import (
    CacheStats,
    Document,
    DocumentCache,
    DocumentError,
    Limits,
    Problem,
    default_cache,
)
from assay.verifiers.finance.grounding import Grounding, ground_quote, ground_value
from assay.verifiers.finance.numbers import SCALES, Amount, find_amounts, parse_amount, scale_name
from assay.verifiers.finance.pages import PageContent

__all__ = [
    "SCALES",
    "Amount",
    "CacheStats",
    "ClaimedField",
    "Comparison",
    "Document",
    "DocumentCache",
    "DocumentError",
    "Figure",
    "FinalAnswer",
    "Grounding",
    "Limits",
    "PageContent",
    "Problem",
    "Rule",
    "RuleOutcome",
    "answer_amount",
    "check_rules",
    "compare",
    "default_cache",
    "extract_object",
    "final_answer",
    "find_amounts",
    "ground_quote",
    "ground_value",
    "is_refusal",
    "normalize_text",
    "parse_amount",
    "read_fields",
    "read_figure",
    "read_rules",
    "scale_name",
]
