"""Score every selected verifier over its labelled fixtures, through the worker pool.

The verdict cache is never used here: it is keyed by verifier@version, so it would replay the
old verdicts of an edited verifier whose version was not bumped, the very flips ``assay eval``
exists to catch. Items run in the same isolated workers with the same hard timeouts as
``assay score``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from assay.errors import ConfigError
from assay.evaluation.cases import LabelledCase, load_cases
from assay.evaluation.metrics import Metrics, Outcome, compute_metrics
from assay.records import RawRow
from assay.registry import Entry, Registry
from assay.runner import ScoreOptions, Scorer
from assay.scheduling.policy import SchedulePolicy
from assay.types import JSON, Result


@dataclass(frozen=True, slots=True)
class VerifierRun:
    """One verifier@version over its fixtures."""

    name: str
    version: str
    source: str
    fixtures: str
    outcomes: tuple[Outcome, ...]
    metrics: Metrics

    @property
    def id(self) -> str:
        return f"{self.name}@{self.version}"

    def outcome(self, case_id: str) -> Outcome | None:
        return next((o for o in self.outcomes if o.case.id == case_id), None)


@dataclass(frozen=True, slots=True)
class EvalRun:
    """All verifiers of one ``assay eval``.

    Attributes:
        runs: One per verifier with fixtures, sorted by name.
        skipped: ``(name, why)`` of selected verifiers that were not evaluated: no fixture file
            declared, or the declared file is not there (an installed wheel without the repo).
        wall_s: Wall-clock seconds spent scoring.
    """

    runs: tuple[VerifierRun, ...]
    skipped: tuple[tuple[str, str], ...]
    wall_s: float


def select_entries(registry: Registry, domains: Sequence[str] | None) -> list[Entry]:
    """The registry's entries, or those named (by name or alias) in ``domains``."""
    if not domains:
        return registry.entries()
    names = sorted({registry.resolve(name) for name in domains})
    return [registry.entry(name) for name in names]


def subset(entries: Iterable[Entry]) -> Registry:
    """A registry of just these entries: workers then import only the verifiers evaluated."""
    registry = Registry()
    for entry in entries:
        registry.register(entry.cls, entry.source)
    return registry


class Evaluator:
    """Scores labelled cases with one warm worker pool (use as a context manager).

    Args:
        registry: Where verifiers are looked up (the default registry: built-ins and plugins).
        workers: Worker processes (at least 1: hard timeouts need a pool).
        timeout_s: Hard per-item limit; ``None`` uses each verifier's own.
    """

    def __init__(self, registry: Registry, workers: int = 2, timeout_s: float | None = None):
        if workers < 1:
            raise ConfigError("assay eval needs at least one worker (--workers >= 1)")
        # no cache (see the module docstring) and no circuit breaker: every case is measured on
        # its own, a verifier that crashes on all of them shows each crash
        options = ScoreOptions(
            workers=workers,
            timeout_s=timeout_s,
            cache_dir=None,
            schedule=SchedulePolicy(breaker_threshold=0),
        )
        self._scorer = Scorer(options, registry)

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self._scorer.close()

    def evaluate(self, entries: Iterable[Entry]) -> EvalRun:
        start = time.monotonic()
        runs = []
        skipped = []
        for entry in entries:
            path = entry.cls.fixtures
            if path is None:
                skipped.append((entry.name, "declares no fixtures"))
            elif not Path(path).exists():
                skipped.append((entry.name, f"its fixtures {str(path)!r} are not there"))
            else:
                cases = load_cases(Path(path), entry.name)
                runs.append(self._run(entry, str(path), cases))
        return EvalRun(tuple(runs), tuple(skipped), time.monotonic() - start)

    def rescore(self, run: VerifierRun, case_ids: Iterable[str]) -> VerifierRun:
        """The run with the named cases scored again (to confirm a flip is reproducible)."""
        wanted = set(case_ids)
        again = self._outcomes([o.case for o in run.outcomes if o.case.id in wanted])
        fresh = {o.case.id: o for o in again}
        outcomes = tuple(fresh.get(o.case.id, o) for o in run.outcomes)
        return VerifierRun(
            run.name, run.version, run.source, run.fixtures, outcomes, compute_metrics(outcomes)
        )

    def _run(self, entry: Entry, fixtures: str, cases: list[LabelledCase]) -> VerifierRun:
        outcomes = self._outcomes(cases)
        return VerifierRun(
            entry.name,
            entry.version,
            entry.source,
            fixtures,
            outcomes,
            compute_metrics(outcomes),
        )

    def score_rows(self, rows: Sequence[Mapping[str, JSON]]) -> list[Result]:
        """One result per record, in order (ids must be unique within one call)."""
        raw = [RawRow(i, dict(row)) for i, row in enumerate(rows, start=1)]
        return list(self._scorer.score_rows(raw))

    def _outcomes(self, cases: list[LabelledCase]) -> tuple[Outcome, ...]:
        results = self.score_rows([case.row for case in cases])
        return tuple(Outcome(case, result) for case, result in zip(cases, results, strict=True))
