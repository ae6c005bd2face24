"""The task-format examples in docs/finance.md score as the page says."""

from __future__ import annotations

import json
import re
from pathlib import Path

from assay.domains.finance import FinanceVerifier

from assay.types import Record, Status

DOC = Path(__file__).resolve().parents[2] / "docs" / "finance.md"


def test_documented_examples() -> None:
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    fields_reference, fields_response, question_reference = blocks[:3]
    verifier = FinanceVerifier()
    reference = json.loads(fields_reference)
    verdict = verifier.verify(Record("doc-1", "finance", fields_response, reference))
    assert (verdict.status, round(verdict.score, 3)) == (Status.PARTIAL, 0.667)  # as the page says
    question = json.loads(question_reference)
    answered = verifier.verify(Record("doc-2", "finance", "Answer: −$24,175 thousand", question))
    assert answered.status is Status.CORRECT
