"""From rows to results, in input order: validation, cache, worker pool, reordering."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from assay.boundary import run_verifier
from assay.cache import VerdictCache, cache_key
from assay.errors import InputError
from assay.pool import Job, PoolConfig, WorkerPool
from assay.records import DEFAULT_MAX_RESPONSE_CHARS, RawRow, RecordBuilder
from assay.registry import Registry, default_registry
from assay.types import Record, Result

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ScoreOptions:
    """How to score a batch.

    Attributes:
        workers: Worker processes; 0 verifies in this process (no hard timeout: debugging only).
        timeout_s: Hard per-item limit; ``None`` uses each verifier's default.
        memory_mb: Address-space cap per worker (0: none).
        retries: Extra attempts for items whose worker died.
        default_domain: Domain for rows that name none.
        strict: Raise :class:`~assay.errors.InputError` at the first bad row instead of
            writing it as a verdict.
        max_response_chars: Longer responses are ``unparsable``.
        cache_dir: Where to keep the verdict cache (``None``: no cache).
    """

    workers: int = 2
    timeout_s: float | None = None
    memory_mb: int = 4096
    retries: int = 1
    default_domain: str | None = None
    strict: bool = False
    max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS
    cache_dir: str | None = None


class Scorer:
    """Scores rows with a warm worker pool that lives as long as the scorer.

    Example:
        >>> with Scorer(ScoreOptions(workers=1)) as scorer:  # doctest: +SKIP
        ...     results = list(scorer.score_rows(rows))
    """

    def __init__(self, options: ScoreOptions | None = None, registry: Registry | None = None):
        self.options = options or ScoreOptions()
        self.registry = registry or default_registry()
        self._pool: WorkerPool | None = None
        self._cache = VerdictCache(self.options.cache_dir) if self.options.cache_dir else None

    def __enter__(self) -> Scorer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._cache is not None:
            self._cache.close()

    @property
    def cache(self) -> VerdictCache | None:
        return self._cache

    def score_rows(
        self, rows: Iterable[RawRow], skip_ids: frozenset[str] | set[str] = frozenset()
    ) -> Iterator[Result]:
        """Yield one result per row not in ``skip_ids``, in input order."""
        builder = RecordBuilder(
            self.registry, self.options.default_domain, self.options.max_response_chars
        )
        items = (builder.build(row) for row in rows)
        if self.options.workers <= 0:
            yield from self._inline(items, skip_ids)
        else:
            yield from self._pooled(items, skip_ids)
        if self._cache is not None:
            self._cache.flush()

    # internals ------------------------------------------------------------------------------

    def _immediate(self, item: Record | Result) -> Result | Job | None:
        if isinstance(item, Result):
            if self.options.strict:
                raise InputError(f"record {item.id!r}: {item.verdict.message}")
            return item
        entry = self.registry.entry(item.domain)
        timeout = self.options.timeout_s or entry.cls.timeout_for(item)
        if self._cache is not None:
            cached = self._cache.get(cache_key(entry.id, item))
            if cached is not None:
                return Result(item.id, item.domain, cached, entry.id, 0.0, item.group, item.meta)
        return Job(seq=-1, record=item, timeout_s=timeout, verifier_id=entry.id)

    def _store(self, result: Result, record: Record) -> None:
        if self._cache is not None:
            self._cache.put(cache_key(result.verifier, record), result.verdict)

    def _inline(
        self, items: Iterable[Record | Result], skip_ids: frozenset[str] | set[str]
    ) -> Iterator[Result]:
        for item in items:
            if item.id in skip_ids:
                continue
            outcome = self._immediate(item)
            if isinstance(outcome, Result) or outcome is None:
                if outcome is not None:
                    yield outcome
                continue
            result = run_verifier(self.registry.get(outcome.record.domain), outcome.record)
            self._store(result, outcome.record)
            yield result

    def _pool_instance(self) -> WorkerPool:
        if self._pool is None:
            specs = {
                e.name: f"{e.cls.__module__}:{e.cls.__qualname__}" for e in self.registry.entries()
            }
            config = PoolConfig(
                size=self.options.workers,
                memory_mb=self.options.memory_mb,
                retries=self.options.retries,
            )
            self._pool = WorkerPool(specs, config)
        return self._pool

    def _pooled(
        self, items: Iterable[Record | Result], skip_ids: frozenset[str] | set[str]
    ) -> Iterator[Result]:
        pool: WorkerPool | None = None
        capacity = max(64, 64 * self.options.workers)
        ready: dict[int, Result] = {}
        records: dict[int, Record] = {}
        next_out = 0
        seq = 0
        source = iter(items)
        exhausted = False
        while True:
            while (
                not exhausted
                and (pool is None or pool.outstanding < capacity)
                and len(ready) < 4 * capacity
            ):
                item = next(source, None)
                if item is None:
                    exhausted = True
                    break
                if item.id in skip_ids:
                    continue
                outcome = self._immediate(item)
                if isinstance(outcome, Job):
                    pool = pool or self._pool_instance()
                    outcome.seq = seq
                    records[seq] = outcome.record
                    pool.submit(outcome)
                elif outcome is not None:
                    ready[seq] = outcome
                seq += 1
            while next_out in ready:
                yield ready.pop(next_out)
                next_out += 1
            if pool is None or pool.outstanding == 0:
                if exhausted:
                    break
                continue
            for done_seq, result in pool.poll():
                self._store(result, records.pop(done_seq))
                ready[done_seq] = result
        while next_out in ready:
            yield ready.pop(next_out)
            next_out += 1
