"""The finance verifier: figures from financial statement PDFs, strict on money, fair on format."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import ClassVar

from assay.domains.finance.fields import score_fields
from assay.domains.finance.identity import score_identity
from assay.domains.finance.question import score_question
from assay.domains.finance.task import allowed_roots, parse_task
from assay.verifiers.finance import DocumentCache, DocumentError, default_cache

from assay.blame import response_owned
from assay.types import Check, Record, Verdict
from assay.verifier import Verifier

FIXTURES_ROOT = Path(__file__).resolve().parents[4] / "fixtures" / "finance"


class FinanceVerifier(Verifier):
    """Checks extracted fields or a question's answer against a financial statement PDF.

    The reference names a PDF (relative to fixtures/finance or a root in
    ``ASSAY_FINANCE_ROOTS``) and either ``fields`` to extract or a question's ``answer``; see
    docs/finance.md. Figures compare at the precision the document reports (half a unit of the
    last reported digit). Field extraction scores F1 over fields (``partial`` between 0 and 1)
    with one step per field; a value cited with a ``page`` must be printed on that page; the
    ``rules`` check accounting identities. An unreadable document (missing, empty, encrypted,
    corrupt, over the size or page cap) is an ``error`` verdict with a ``document`` check.

    Example:
        >>> verifier = FinanceVerifier()
        >>> reference = {"document": "statements/harbor-2024.pdf", "scale": "thousand",
        ...              "unit": "USD", "fields": {"total_assets_2024": {"value": 656901}}}
        >>> exact = Record("1", "finance", '{"total_assets_2024": "$656.901 million"}', reference)
        >>> verifier.verify(exact).status
        <Status.CORRECT: 'correct'>
        >>> rounded = Record("2", "finance", '{"total_assets_2024": "$656.9 million"}', reference)
        >>> verifier.verify(rounded).status
        <Status.INCORRECT: 'incorrect'>
    """

    name: ClassVar[str] = "finance"
    version: ClassVar[str] = "1.4.2"
    aliases: ClassVar[tuple[str, ...]] = ("finqa", "tatqa", "tat-qa", "financial_docs")
    data_sources: ClassVar[tuple[str, ...]] = (
        "finqa*",
        "FinQA*",
        "czyssrs/FinQA",
        "ibm/finqa",
        "dreamerdeo/finqa",
        "tatqa*",
        "tat-qa*",
        "tat_qa*",
        "NExTplusplus/TAT-QA",
        "next-tat/TAT-QA",
        "convfinqa*",
        "financebench*",
    )
    default_timeout_s: ClassVar[float] = 60.0
    fixtures: ClassVar[Path | None] = FIXTURES_ROOT / "cases.jsonl"

    def __init__(self, cache: DocumentCache | None = None) -> None:
        self._cache = cache

    @property
    def cache(self) -> DocumentCache:
        """The document cache in use (this process's shared one unless one was given)."""
        return self._cache if self._cache is not None else default_cache()

    def setup(self) -> None:
        """Import the PDF stack now (pdfplumber, pdfminer), not during the first item."""
        importlib.import_module("pdfplumber")
        importlib.import_module("pdfminer.pdfdocument")

    def verify(self, record: Record) -> Verdict:
        """Score one response; an unusable reference raises ``MalformedTaskError``."""
        task = parse_task(record.reference, allowed_roots(FIXTURES_ROOT))
        if task.document is None:  # a FinQA or TAT-QA row: the table and text come with it
            with response_owned("reading the finance answer"):  # the response's work
                return score_question(task, record.response, None)
        try:
            document = self.cache.open(task.document)
            # reading the answer is the response's work (assay.blame): an answer too long to
            # read within the item's limit is its fault; a document too costly to extract
            # raises DocumentError within its own time limit, the task's fault
            with response_owned("reading the finance answer"):
                if task.identity is not None:
                    return score_identity(task, record.response, document)
                if task.is_extraction:
                    return score_fields(task, record.response, document)
                return score_question(task, record.response, document)
        except DocumentError as exc:
            check = Check(
                "document",
                False,
                message=str(exc),
                evidence={"problem": exc.problem.value, "document": exc.path.name},
            )
            return Verdict.error(str(exc), (check,))
