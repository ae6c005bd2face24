"""Accuracy of one verifier@version over its labelled cases."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from assay.evaluation.cases import LabelledCase
from assay.types import JSON, Result, Status

STATUSES = tuple(s.value for s in Status)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A labelled case and the result the verifier gave it."""

    case: LabelledCase
    result: Result

    @property
    def agrees(self) -> bool:
        return self.case.agrees(self.result)

    @property
    def false_positive(self) -> bool:
        return self.case.false_positive(self.result)

    @property
    def false_negative(self) -> bool:
        return self.case.false_negative(self.result)


@dataclass(frozen=True, slots=True)
class Metrics:
    """What ``assay eval`` reports per verifier@version.

    Attributes:
        cases: Labelled cases scored.
        agreement: Share of cases whose verdict has the labelled status (and pinned score).
        false_positive_rate: Share of cases labelled not ``correct`` that got more credit than
            the label allows (any reward for a zero-credit label, full credit for ``partial``).
        false_negative_rate: Share of cases labelled ``correct`` or ``partial`` that got less
            (not full credit for ``correct``, none for ``partial``).
        false_positives: Count behind ``false_positive_rate``.
        false_negatives: Count behind ``false_negative_rate``.
        hostile_cases: Cases labelled as adversarial attempts.
        hostile_false_positives: Adversarial attempts that got credit they should not have.
        status_counts: Verdicts per status (every status listed, zeros included).
        confusion: ``confusion[expected][got]`` counts.
        latency_p50_ms: Median time in the verifier per case.
        latency_p95_ms: 95th percentile of that time.
    """

    cases: int
    agreement: float
    false_positive_rate: float
    false_negative_rate: float
    false_positives: int
    false_negatives: int
    hostile_cases: int
    hostile_false_positives: int
    status_counts: dict[str, int] = field(default_factory=dict)
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)
    latency_p50_ms: float = 0.0
    latency_p95_ms: float = 0.0

    def to_dict(self) -> dict[str, JSON]:
        return {
            "cases": self.cases,
            "agreement": round(self.agreement, 6),
            "false_positive_rate": round(self.false_positive_rate, 6),
            "false_negative_rate": round(self.false_negative_rate, 6),
            "false_positives": self.false_positives,
            "false_negatives": self.false_negatives,
            "hostile_cases": self.hostile_cases,
            "hostile_false_positives": self.hostile_false_positives,
            "status_counts": dict(self.status_counts),
            "confusion": {k: dict(v) for k, v in self.confusion.items()},
            "latency_p50_ms": round(self.latency_p50_ms, 3),
            "latency_p95_ms": round(self.latency_p95_ms, 3),
        }


def compute_metrics(outcomes: Sequence[Outcome]) -> Metrics:
    """Metrics of one verifier's outcomes."""
    negatives = [o for o in outcomes if o.case.expected is not Status.CORRECT]
    positives = [o for o in outcomes if o.case.deserves_credit]
    hostile = [o for o in outcomes if o.case.hostile]
    false_positives = sum(o.false_positive for o in negatives)
    false_negatives = sum(o.false_negative for o in positives)
    got = Counter(o.result.status.value for o in outcomes)
    confusion: dict[str, dict[str, int]] = {}
    for outcome in outcomes:
        row = confusion.setdefault(outcome.case.expected.value, dict.fromkeys(STATUSES, 0))
        row[outcome.result.status.value] += 1
    latencies = sorted(o.result.elapsed_ms for o in outcomes)
    return Metrics(
        cases=len(outcomes),
        agreement=_share(sum(o.agrees for o in outcomes), len(outcomes)),
        false_positive_rate=_share(false_positives, len(negatives)),
        false_negative_rate=_share(false_negatives, len(positives)),
        false_positives=false_positives,
        false_negatives=false_negatives,
        hostile_cases=len(hostile),
        hostile_false_positives=sum(o.false_positive for o in hostile),
        status_counts={s: got.get(s, 0) for s in STATUSES},
        confusion={s: confusion[s] for s in STATUSES if s in confusion},
        latency_p50_ms=percentile(latencies, 50),
        latency_p95_ms=percentile(latencies, 95),
    )


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of sorted values, linearly interpolated; 0 for none.

    Example:
        >>> percentile([1.0, 2.0, 3.0, 4.0], 50)
        2.5
    """
    if not sorted_values:
        return 0.0
    position = (len(sorted_values) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    fraction = position - low
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * fraction


def _share(count: int, total: int) -> float:
    return count / total if total else 0.0
