"""A thread-safe, lazily started warm scorer shared by the adapters of one process.

Trainers call reward functions from several threads (async reward loops, HTTP handlers,
reward workers); a :class:`~assay.runner.Scorer` is not thread-safe, so every call goes through
one lock. Ids are replaced by positions while scoring, because trainers repeat a prompt's id
across its group of samples and the runner rejects duplicate ids within one call.
"""

from __future__ import annotations

import atexit
import dataclasses
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from assay.records import RawRow
from assay.registry import Registry, default_registry
from assay.runner import ScoreOptions, Scorer
from assay.types import Result

_shared: dict[ScoreOptions, SharedScorer] = {}
_shared_lock = threading.Lock()


class SharedScorer:
    """Scores batches of rows from any thread with one warm worker pool.

    Args:
        options: How to score (workers, per-item timeout, default domain...).
        registry: Verifiers to use; the default registry when ``None``.
    """

    def __init__(self, options: ScoreOptions | None = None, registry: Registry | None = None):
        self.options = options or ScoreOptions()
        self._registry = registry
        self._lock = threading.Lock()
        self._scorer: Scorer | None = None

    @property
    def registry(self) -> Registry:
        """The verifiers this scorer uses."""
        return self._registry if self._registry is not None else default_registry()

    def score(self, rows: Sequence[Any]) -> list[Result]:
        """One result per row, in order; each result keeps its row's own ``id``.

        A row that is not a mapping gets an ``error`` verdict that says so.
        """
        internal = [
            RawRow(i, data={**row, "id": str(i)} if isinstance(row, Mapping) else row)
            for i, row in enumerate(rows)
        ]
        with self._lock:
            if self._scorer is None:
                self._scorer = Scorer(self.options, self._registry)
            results = list(self._scorer.score_rows(internal))
        return [
            dataclasses.replace(result, id=_original_id(row, i))
            for i, (row, result) in enumerate(zip(rows, results, strict=True))
        ]

    def close(self) -> None:
        """Stop the worker processes; a later :meth:`score` starts new ones."""
        with self._lock:
            if self._scorer is not None:
                self._scorer.close()
                self._scorer = None


def shared_scorer(options: ScoreOptions) -> SharedScorer:
    """The process-wide scorer for ``options`` (started on first use, closed at exit)."""
    with _shared_lock:
        scorer = _shared.get(options)
        if scorer is None:
            scorer = _shared[options] = SharedScorer(options)
            atexit.register(scorer.close)
        return scorer


def reward_of(result: Result) -> float | None:
    """The reward of a result: its score, or ``None`` for ``error`` and ``timeout`` (masked)."""
    return None if result.status.is_infrastructure else result.score


def _original_id(row: Any, position: int) -> str:
    value = row.get("id") if isinstance(row, Mapping) else None
    if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
        return str(value)
    return str(position)
