"""The golden file: each verifier@version's verdict per case, and its comparison with a run.

The file is JSON written one case per line, keys sorted, so a deliberate change
(``assay eval --update-baseline``) reviews as a line diff::

    {
      "format": "assay-eval-baseline/1",
      "verifiers": {
        "math@1.0.1": {
          "metrics": {"agreement": 1.0, "cases": 438, ...},
          "cases": {
            "math-bigint-001": {"score": 1.0, "status": "correct"},
            ...
          }
        }
      }
    }

A regression is a verdict that changed while its verifier kept its version, or a
false-positive rate higher than the baseline's (whatever the version).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.errors import InputError
from assay.evaluation.metrics import Outcome
from assay.evaluation.run import VerifierRun
from assay.types import JSON, Check

FORMAT = "assay-eval-baseline/1"
WHY_CHARS = 240


@dataclass(frozen=True, slots=True)
class CaseVerdict:
    """What the baseline keeps of one verdict: status and score (rounded to 6 digits)."""

    status: str
    score: float

    def __str__(self) -> str:
        return f"{self.status}({self.score:g})"

    def to_dict(self) -> dict[str, JSON]:
        return {"score": self.score, "status": self.status}


@dataclass(frozen=True, slots=True)
class BaselineEntry:
    """One verifier@version in the golden file."""

    verifier: str
    metrics: Mapping[str, JSON]
    cases: Mapping[str, CaseVerdict]

    @property
    def name(self) -> str:
        return self.verifier.rpartition("@")[0]

    @property
    def version(self) -> str:
        return self.verifier.rpartition("@")[2]


@dataclass(frozen=True, slots=True)
class Baseline:
    """Golden verdicts, one entry per verifier name."""

    entries: Mapping[str, BaselineEntry] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> Baseline:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read baseline {str(path)!r}: {exc}") from exc
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InputError(f"{path}: not an assay eval baseline (format {FORMAT!r})")
        try:
            return cls(_entries(data.get("verifiers", {})))
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{path}: malformed baseline ({type(exc).__name__}: {exc})") from exc

    def updated(self, runs: Iterable[VerifierRun]) -> Baseline:
        """This baseline with the entries of ``runs`` replaced (other verifiers kept)."""
        entries = dict(self.entries)
        for run in runs:
            cases = {o.case.id: verdict_of(o) for o in run.outcomes}
            metrics = run.metrics.to_dict()
            kept = {k: metrics[k] for k in BASELINE_METRICS}
            entries[run.name] = BaselineEntry(run.id, kept, cases)
        return Baseline(entries)

    def dumps(self) -> str:
        """JSON, sorted, one case per line (``json.loads`` reads it back)."""
        lines = ["{", f'  "format": {json.dumps(FORMAT)},', '  "verifiers": {']
        names = sorted(self.entries)
        for n, name in enumerate(names):
            entry = self.entries[name]
            lines.append(f"    {json.dumps(entry.verifier)}: {{")
            lines.append(f'      "metrics": {json.dumps(entry.metrics, sort_keys=True)},')
            lines.append('      "cases": {')
            ids = sorted(entry.cases)
            for i, case_id in enumerate(ids):
                body = json.dumps(entry.cases[case_id].to_dict(), sort_keys=True)
                comma = "," if i < len(ids) - 1 else ""
                lines.append(f"        {json.dumps(case_id)}: {body}{comma}")
            lines.append("      }")
            lines.append("    }," if n < len(names) - 1 else "    }")
        lines += ["  }", "}"]
        return "\n".join(lines) + "\n"

    def write(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(self.dumps(), encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write baseline {str(path)!r}: {exc.strerror}") from exc


def _entries(verifiers: Any) -> dict[str, BaselineEntry]:
    """The entries of the file's ``verifiers`` object (raises on a wrong shape: the caller
    turns that into an :class:`InputError`)."""
    entries = {}
    for verifier, body in verifiers.items():
        cases = {
            case_id: CaseVerdict(str(v["status"]), float(v["score"]))
            for case_id, v in body.get("cases", {}).items()
        }
        entry = BaselineEntry(verifier, dict(body.get("metrics", {})), cases)
        entries[entry.name] = entry
    return entries


BASELINE_METRICS = (
    "cases",
    "agreement",
    "false_positive_rate",
    "false_negative_rate",
    "status_counts",
)
"""The metrics a baseline keeps (latency is left out: it is not a property of the verdicts)."""


def verdict_of(outcome: Outcome) -> CaseVerdict:
    return CaseVerdict(outcome.result.status.value, round(outcome.result.score, 6))


def why(outcome: Outcome) -> str:
    """The reason a verdict gives: its message, else its failed checks, else its checks (each
    with its message, or its evidence when it has no message)."""
    verdict = outcome.result.verdict
    if verdict.message:
        text = verdict.message
    else:
        failed = [c for c in verdict.checks if not c.passed]
        text = "; ".join(_check_text(c) for c in failed or verdict.checks)
    text = " ".join((text or "no message, no checks").split())
    return text if len(text) <= WHY_CHARS else text[: WHY_CHARS - 1] + "…"


def _check_text(check: Check) -> str:
    state = "passed" if check.passed else "failed"
    if check.message:
        return f"{check.name} {state}: {check.message}"
    if check.evidence:
        return f"{check.name} {state} {json.dumps(dict(check.evidence), default=str)}"
    return f"{check.name} {state}"


@dataclass(frozen=True, slots=True)
class Flip:
    """A case whose verdict differs from the baseline.

    Attributes:
        verifier: ``name@version`` of this run.
        case_id: The case.
        expected: Its label.
        before: The baseline's verdict.
        after: This run's verdict.
        why: The reason this run's verdict gives (message or checks).
        baseline_version: The version the baseline was recorded with.
    """

    verifier: str
    case_id: str
    expected: str
    before: CaseVerdict
    after: CaseVerdict
    why: str
    baseline_version: str

    @property
    def version_bumped(self) -> bool:
        return self.verifier.rpartition("@")[2] != self.baseline_version

    @property
    def direction(self) -> str:
        """``fixed``, ``broken`` or ``changed``, judged against the label."""
        before_ok = self.before.status == self.expected
        after_ok = self.after.status == self.expected
        if after_ok and not before_ok:
            return "fixed"
        if before_ok and not after_ok:
            return "broken"
        return "changed"

    def to_dict(self) -> dict[str, JSON]:
        return {
            "verifier": self.verifier,
            "id": self.case_id,
            "expected": self.expected,
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
            "why": self.why,
            "baseline_version": self.baseline_version,
            "version_bumped": self.version_bumped,
            "direction": self.direction,
        }


@dataclass(frozen=True, slots=True)
class RateRegression:
    """A false-positive rate worse than the baseline's."""

    name: str
    before: float
    after: float
    before_verifier: str
    after_verifier: str


@dataclass(frozen=True, slots=True)
class Comparison:
    """A run against the baseline.

    Attributes:
        flips: Every changed verdict (with or without a version bump).
        rate_regressions: Verifiers whose false-positive rate went up.
        notes: Things to know that are not regressions (new cases, verifiers not in the file).
    """

    flips: tuple[Flip, ...] = ()
    rate_regressions: tuple[RateRegression, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def unversioned_flips(self) -> tuple[Flip, ...]:
        return tuple(f for f in self.flips if not f.version_bumped)

    @property
    def regressed(self) -> bool:
        return bool(self.unversioned_flips or self.rate_regressions)


def compare(baseline: Baseline, runs: Iterable[VerifierRun]) -> Comparison:
    """Flips, rate regressions and notes of ``runs`` against ``baseline``."""
    flips: list[Flip] = []
    rates: list[RateRegression] = []
    notes: list[str] = []
    for run in runs:
        entry = baseline.entries.get(run.name)
        if entry is None:
            notes.append(f"{run.id}: not in the baseline (record it with --update-baseline)")
            continue
        if entry.version != run.version:
            notes.append(
                f"{run.name}: version {entry.version} in the baseline, {run.version} now; "
                "its changed verdicts are listed, not failed (review, then --update-baseline)"
            )
        flips += _flips(entry, run)
        notes += _case_notes(entry, run)
        before = entry.metrics.get("false_positive_rate")
        after = round(run.metrics.false_positive_rate, 6)
        if isinstance(before, int | float) and after > float(before) + 1e-9:
            rates.append(RateRegression(run.name, float(before), after, entry.verifier, run.id))
    return Comparison(tuple(flips), tuple(rates), tuple(notes))


def _flips(entry: BaselineEntry, run: VerifierRun) -> list[Flip]:
    flips = []
    for outcome in run.outcomes:
        before = entry.cases.get(outcome.case.id)
        after = verdict_of(outcome)
        if before is not None and before != after:
            flips.append(
                Flip(
                    run.id,
                    outcome.case.id,
                    outcome.case.expected.value,
                    before,
                    after,
                    why(outcome),
                    entry.version,
                )
            )
    return flips


def _case_notes(entry: BaselineEntry, run: VerifierRun) -> list[str]:
    ids = {o.case.id for o in run.outcomes}
    new = sorted(ids - set(entry.cases))
    gone = sorted(set(entry.cases) - ids)
    notes = []
    if new:
        notes.append(f"{run.id}: {len(new)} case(s) not in the baseline: {_few(new)}")
    if gone:
        notes.append(
            f"{run.id}: {len(gone)} baseline case(s) no longer in the fixtures: {_few(gone)}"
        )
    return notes


def _few(ids: list[str], shown: int = 5) -> str:
    more = f" (+{len(ids) - shown} more)" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more
