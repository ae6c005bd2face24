"""The math domain: final answers of competition and grade-school math problems."""

from __future__ import annotations

from assay.domains.math.verifier import MathVerifier

__all__ = ["MathVerifier"]
