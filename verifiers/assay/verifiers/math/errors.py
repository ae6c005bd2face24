"""Why an answer is not read: it is not math (:class:`AnswerParseError`), or it would cost too
much to check (:class:`TooCostly`, the response's fault: see :mod:`assay.blame`)."""

from __future__ import annotations

from typing import Any


class AnswerParseError(ValueError):
    """An answer cannot be read as math; the message says why."""


class TooCostly(AnswerParseError):  # noqa: N818 - an outcome, named like AnswerParseError
    """Checking an answer would cost more than its budget; the message says what and why.

    A subclass of :class:`AnswerParseError` so that code which only asks "can this be read?"
    keeps working; the grader catches it first and blames the response
    (``incorrect``, failed check ``too_costly``), and a reference that raises it is malformed.

    Attributes:
        evidence: JSON-able details (the size measured, the limit).
    """

    def __init__(self, message: str, evidence: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.evidence = dict(evidence or {})
