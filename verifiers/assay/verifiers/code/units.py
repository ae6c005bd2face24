"""The outcome of one test unit (a check statement, a test case, a pytest test)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assay.types import StepResult


@dataclass(frozen=True, slots=True)
class Unit:
    """One test unit's result, with the resources the candidate used for it."""

    name: str
    passed: bool
    message: str = ""
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_rss_bytes: int = 0
    evidence: dict[str, Any] = field(default_factory=dict)

    def step(self, index: int) -> StepResult:
        evidence = {
            "wall_s": round(self.wall_s, 6),
            "cpu_s": round(self.cpu_s, 6),
            "peak_rss_mb": round(self.peak_rss_bytes / 2**20, 2),
            **self.evidence,
        }
        return StepResult(
            index, self.name, self.passed, 1.0 if self.passed else 0.0, self.message[:500], evidence
        )
