"""The local scheduler: records in, results out as they finish, each under its ticket.

One :class:`Scheduler` owns the verdict cache, a :class:`~assay.scheduling.breaker.CircuitBreaker`
and the warm :class:`~assay.pool.WorkerPool`; callers (the ordered :class:`~assay.runner.Scorer`,
the thread-safe :class:`~assay.scheduling.service.ScoringService`, Ray actors) give each item a
ticket and collect ``(ticket, Result)`` pairs in completion order. It is driven by one thread at
a time; the breaker and the warm pool outlive batches.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.boundary import run_verifier
from assay.cache import VerdictCache, cache_key
from assay.decoding import decoded
from assay.errors import RegistryError
from assay.pool import Job, PoolConfig, WorkerPool
from assay.registry import Registry, default_registry
from assay.scheduling.breaker import CircuitBreaker
from assay.types import Record, Result, Verdict

if TYPE_CHECKING:
    from assay.runner import ScoreOptions
    from assay.verifier import Verifier

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Pending:
    ticket: int
    record: Record
    verifier_id: str


class Scheduler:
    """Schedules items onto a warm worker pool; see the module docstring.

    Args:
        options: A :class:`~assay.runner.ScoreOptions` (workers, limits, policy, cache).
        registry: Verifiers to use; the default registry when ``None``.
    """

    def __init__(self, options: ScoreOptions, registry: Registry | None = None) -> None:
        self.options = options
        self.registry = registry or default_registry()
        policy = options.schedule
        self.breaker = CircuitBreaker(policy.breaker_threshold, policy.breaker_cooldown_s)
        self.cache = VerdictCache(options.cache_dir) if options.cache_dir else None
        self._pool: WorkerPool | None = None
        self._pending: dict[int, _Pending] = {}
        self._done: list[tuple[int, Result]] = []
        self._next_key = 0

    @property
    def outstanding(self) -> int:
        """Items submitted whose results :meth:`poll` has not returned yet."""
        return len(self._pending) + len(self._done)

    @property
    def busy(self) -> bool:
        """Whether :meth:`poll` has work to wait for (cancelled items still running count)."""
        return bool(self._done) or (self._pool is not None and self._pool.outstanding > 0)

    @property
    def pool(self) -> WorkerPool | None:
        return self._pool

    def warm(self) -> None:
        """Start the worker pool now and wait until its workers (and ``warm`` domains) are up."""
        if self.options.workers > 0:
            self._pool_instance().wait_ready()

    def submit(self, ticket: int, item: Record | Result) -> None:
        """Queue one item; a :class:`Result` (a row that could not be built) passes through."""
        if isinstance(item, Result):
            self._done.append((ticket, item))
            return
        try:
            entry = self.registry.entry(item.domain)
        except RegistryError as exc:  # e.g. a plugin the driver has and this node lacks
            message = f"no verifier for domain {item.domain!r} in this process: {exc}"
            self._done.append((ticket, _result(item, Verdict.error(message), "")))
            return
        # the end tokens and thinking a decoder left are off before any verifier reads it
        item = decoded(item, calls=entry.cls.reads_transcript_calls)
        if self.cache is not None:
            cached = self.cache.get(cache_key(entry.id, item))
            if cached is not None:
                self._done.append((ticket, _result(item, cached, entry.id)))
                return
        refusal = self.breaker.admit(item.domain)
        if refusal is not None:
            self._done.append((ticket, _result(item, refusal, entry.id)))
            return
        timeout = self.options.timeout_s or _hard_limit(entry.cls, item)
        if self.options.workers <= 0:  # no hard limit; budgets still see the item's limit
            result = run_verifier(self.registry.get(item.domain), item, limit_s=timeout)
            self._finish(ticket, item, result)
            return
        key = self._next_key
        self._next_key += 1
        self._pending[key] = _Pending(ticket, item, entry.id)
        self._pool_instance().submit(Job(key, item, timeout, entry.id))

    def poll(self, timeout: float | None = None, wake: object = None) -> list[tuple[int, Result]]:
        """Finished ``(ticket, Result)`` pairs; waits (up to ``timeout``) only when none are.

        ``wake``: a socket or connection whose readiness ends the wait (new work to submit).
        """
        if not self._done and self._pool is not None and self._pool.outstanding:
            for key, result in self._pool.poll(timeout, wake):
                pending = self._pending.pop(key, None)
                if pending is not None:  # None: its ticket was cancelled while it ran
                    self._finish(pending.ticket, pending.record, result)
        done, self._done = self._done, []
        return done

    def flush(self) -> None:
        """Write the verdicts cached so far to disk."""
        if self.cache is not None:
            self.cache.flush()

    def cancel(self, tickets: set[int]) -> None:
        """Forget these tickets: queued items are withdrawn, running ones finish unreported."""
        keys = {key for key, p in self._pending.items() if p.ticket in tickets}
        if self._pool is not None:
            self._pool.withdraw(lambda job: job.seq in keys)
        for key in keys:
            del self._pending[key]
        self._done = [(t, r) for t, r in self._done if t not in tickets]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self.cache is not None:
            self.cache.close()

    # internals ------------------------------------------------------------------------------

    def _pool_instance(self) -> WorkerPool:
        if self._pool is None:
            specs = self.registry.specs()
            config = PoolConfig(
                size=self.options.workers,
                memory_mb=self.options.memory_mb,
                retries=self.options.retries,
                policy=self.options.schedule,
                wall_factor=self.options.wall_factor,
                cpu_affinity=self.options.cpu_affinity,
            )
            self._pool = WorkerPool(specs, config)
        return self._pool

    def _finish(self, ticket: int, record: Record, result: Result) -> None:
        self._done.append((ticket, result))
        if self.cache is not None:
            self.cache.put(cache_key(result.verifier, record), result.verdict)
        if self.breaker.record(result):
            self._trip(record.domain)

    def _trip(self, domain: str) -> None:
        """The breaker opened: answer the domain's queued items now instead of running them."""
        refusal = self.breaker.refusal(domain)
        log.warning("%s", refusal.message)
        if self._pool is None:
            return
        for job in self._pool.withdraw(lambda job: job.domain == domain):
            pending = self._pending.pop(job.seq)
            self._done.append(
                (pending.ticket, _result(pending.record, refusal, pending.verifier_id))
            )


def _result(record: Record, verdict: Verdict, verifier_id: str) -> Result:
    return Result(record.id, record.domain, verdict, verifier_id, 0.0, record.group, record.meta)


def _hard_limit(cls: type[Verifier], item: Record) -> float:
    """The verifier's hard limit for ``item``, or its default when working it out fails.

    ``timeout_for`` runs here, in the scheduler, outside any worker: an item it cannot read
    (a response too deep or too large for it) must not stop the batch; the worker's
    ``verify`` then meets the same item under its limit and gives its verdict.
    """
    try:
        return float(cls.timeout_for(item))
    except Exception as exc:  # any failure on one item is that item's
        log.warning("timeout_for failed on item %r (%s: %s); using the default limit",
                    item.id, type(exc).__name__, str(exc)[:200])  # fmt: skip
        return float(cls.default_timeout_s)
