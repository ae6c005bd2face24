"""Who a failure belongs to: the response, or the verifier (docs/architecture.md, "Blame").

A limit that the *response* exceeds (its code loops or runs out of memory, its expression or
mesh is too costly to check, its answer is too large to compare) is the response's fault: an
``incorrect`` verdict, score 0, with a failed check naming the cause. Only what cannot be pinned
on the response (a worker that died for another reason, a library bug on ordinary input, an
unusable reference) is ``error`` / ``timeout``, which trainers mask. Masking a response's own
failure would let "hang when unsure" escape its negative reward.

Verifiers either return :func:`response_fault` directly or raise :class:`ResponseFault` from any
depth; :func:`assay.boundary.run_verifier` turns the exception into the same verdict.
"""

from __future__ import annotations

from collections.abc import Mapping

from assay.types import JSON, Check, Verdict

RESOURCES = "resources"
"""Check name: the response's program exceeded a time, memory, output or process limit."""

TOO_COSTLY = "too_costly"
"""Check name: checking the response would cost more than its budget (size, depth, time)."""


class ResponseFault(Exception):  # noqa: N818 - it is a verdict in flight, not an error
    """The response exceeded a limit; raised anywhere in a verifier, caught at the boundary.

    Attributes:
        check: Name of the failed check (:data:`RESOURCES`, :data:`TOO_COSTLY`, ...).
        message: One line naming the cause.
        evidence: JSON-able details (the limit, what was measured).
    """

    def __init__(
        self, check: str, message: str, evidence: Mapping[str, JSON] | None = None
    ) -> None:
        super().__init__(message)
        self.check = check
        self.message = message
        self.evidence = dict(evidence or {})

    def verdict(self) -> Verdict:
        return response_fault(self.check, self.message, self.evidence)


def response_fault(
    check: str, message: str, evidence: Mapping[str, JSON] | None = None
) -> Verdict:
    """An ``incorrect`` verdict, score 0, with one failed check ``check`` naming the cause."""
    return Verdict.incorrect(
        (Check(check, False, 0.0, message, dict(evidence or {})),), message=message
    )
