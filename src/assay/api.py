"""The Python API: score a batch, or verify one item, with isolation and hard timeouts."""

from __future__ import annotations

import atexit
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.io import read_rows
from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer
from assay.scheduling.policy import SchedulePolicy
from assay.types import JSON, Result

if TYPE_CHECKING:
    from assay.backends import Backend

_shared: Scorer | None = None
_shared_lock = threading.Lock()
_backends: dict[tuple[str, ScoreOptions, str | None, int | None], Backend] = {}


def score(
    records: Iterable[Mapping[str, Any]] | str | Path | Any,
    *,
    workers: int = 2,
    timeout_s: float | None = None,
    memory_mb: int = 4096,
    domain: str | None = None,
    cache_dir: str | None = None,
    backend: str = "local",
    address: str | None = None,
    actors: int | None = None,
    schedule: SchedulePolicy | None = None,
) -> list[Result]:
    """Score a batch and return one :class:`~assay.types.Result` per record, in order.

    Args:
        records: Dicts in the record format (docs/formats.md), a path to JSONL / Parquet / a saved
            dataset, or a Hugging Face ``Dataset``.
        workers: Worker processes (each item runs under a hard wall-clock limit).
        timeout_s: Per-item limit; ``None`` uses each verifier's default.
        memory_mb: Address-space cap per worker.
        domain: Domain for records that name none.
        cache_dir: Verdict cache directory.
        backend: ``"local"`` (worker processes on this machine) or ``"ray"`` (actors of a Ray
            cluster, kept warm between calls with the same settings; docs/scale.md).
        address: Ray cluster address (``None``: the running Ray, or a new local one).
        actors: Ray scoring actors (``None``: the cluster's CPUs divided by ``workers``).
        schedule: Priorities, per-domain limits, warm domains and circuit breaker settings.

    Example:
        >>> [r.status.value for r in score([{"id": "1", "domain": "math",
        ...     "response": "\\\\boxed{2}", "reference": {"answer": "2"}}], workers=1)]
        ['correct']
    """
    options = ScoreOptions(
        workers=workers,
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        default_domain=domain,
        cache_dir=cache_dir,
        schedule=schedule or SchedulePolicy(),
    )
    rows = _rows(records)
    if backend == "local" and address is None and actors is None:
        with Scorer(options) as scorer:
            return list(scorer.score_rows(rows))
    return list(_shared_backend(backend, options, address, actors).score_rows(rows))


def verify(
    domain: str,
    response: str,
    reference: JSON,
    *,
    id: str = "item",
    timeout_s: float | None = None,
    **fields: JSON,
) -> Result:
    """Verify one item in a shared warm worker (started on first use, thread-safe).

    Example:
        >>> verify("math", "The answer is $\\\\frac{1}{2}$.", {"answer": "0.5"}).status.value
        'correct'
    """
    global _shared
    row = {"id": id, "domain": domain, "response": response, "reference": reference, **fields}
    with _shared_lock:
        if _shared is None:
            _shared = Scorer(ScoreOptions(workers=1))
            atexit.register(_shared.close)
        scorer = _shared
        if timeout_s is not None:
            scorer = Scorer(ScoreOptions(workers=1, timeout_s=timeout_s))
        try:
            return next(iter(scorer.score_rows([RawRow(1, data=row)])))
        finally:
            if scorer is not _shared:
                scorer.close()


def _shared_backend(
    name: str, options: ScoreOptions, address: str | None, actors: int | None
) -> Backend:
    """A backend kept for the process (its actors stay warm between calls), closed at exit."""
    from assay.backends import open_backend

    key = (name, options, address, actors)
    with _shared_lock:
        backend = _backends.get(key)
        if backend is None:
            backend = _backends[key] = open_backend(name, options, address=address, actors=actors)
            atexit.register(backend.close)
        return backend


def _rows(records: Iterable[Mapping[str, Any]] | str | Path | Any) -> Iterable[RawRow]:
    if (
        isinstance(records, str | Path)
        or hasattr(records, "column_names")
        or (hasattr(records, "keys") and not isinstance(records, Mapping))
    ):
        return read_rows(records)
    return (RawRow(i, data=r) for i, r in enumerate(records, start=1))
