"""The finance domain: field extraction and numeric QA over financial statement PDFs."""

from __future__ import annotations

from assay.domains.finance.verifier import FinanceVerifier

__all__ = ["FinanceVerifier"]
