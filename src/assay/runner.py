"""From rows to results, in input order: validation, then the scheduler, then reordering."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from assay.cache import VerdictCache
from assay.errors import ConfigError, InputError
from assay.pool import CPU_AFFINITY
from assay.records import DEFAULT_MAX_RESPONSE_CHARS, FieldMap, RawRow, RecordBuilder
from assay.registry import Registry, default_registry
from assay.scheduling.policy import SchedulePolicy
from assay.scheduling.scheduler import Scheduler
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
        schedule: Priorities, per-domain limits, warm domains and the circuit breaker.
        wall_factor: An item's hard wall-clock limit, as a multiple of its limit (the limit is
            measured in the item's own time, which leaves out waiting for a CPU; see
            :mod:`assay.pool`).
        fields: Which fields hold the response, reference and id (``--response-field`` ...).
        cpu_affinity: ``auto`` (default), ``on`` or ``off``: pin each worker, and the sandbox
            processes it starts, to one CPU (``auto``: when the workers are at least as many
            as the CPUs this process may use; :func:`assay.pool.cpu_slots`).
    """

    workers: int = 2
    timeout_s: float | None = None
    memory_mb: int = 4096
    retries: int = 1
    default_domain: str | None = None
    strict: bool = False
    max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS
    cache_dir: str | None = None
    schedule: SchedulePolicy = field(default_factory=SchedulePolicy)
    wall_factor: float = 3.0
    fields: FieldMap = field(default_factory=FieldMap)
    cpu_affinity: str = "auto"

    def __post_init__(self) -> None:
        if self.cpu_affinity not in CPU_AFFINITY:
            raise ConfigError(
                f"cpu_affinity must be one of {', '.join(CPU_AFFINITY)}, got {self.cpu_affinity!r}"
            )


class Scorer:
    """Scores rows with a warm worker pool that lives as long as the scorer.

    The scheduler (and with it the worker pool and the circuit breaker) is kept between calls
    to :meth:`score_rows`.

    Example:
        >>> with Scorer(ScoreOptions(workers=1)) as scorer:  # doctest: +SKIP
        ...     results = list(scorer.score_rows(rows))
    """

    def __init__(self, options: ScoreOptions | None = None, registry: Registry | None = None):
        self.options = options or ScoreOptions()
        self.registry = registry or default_registry()
        self.scheduler = Scheduler(self.options, self.registry)

    def __enter__(self) -> Scorer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.scheduler.close()

    @property
    def cache(self) -> VerdictCache | None:
        return self.scheduler.cache

    def warm(self) -> None:
        """Start the worker pool now instead of at the first item."""
        self.scheduler.warm()

    def score_rows(
        self, rows: Iterable[RawRow], skip_ids: frozenset[str] | set[str] = frozenset()
    ) -> Iterator[Result]:
        """Yield one result per row not in ``skip_ids``, in input order."""
        builder = RecordBuilder(
            self.registry,
            self.options.default_domain,
            self.options.max_response_chars,
            self.options.fields,
        )
        items = (item for row in rows for item in builder.build_all(row))
        tickets: set[int] = set()
        try:
            yield from self._ordered(items, skip_ids, tickets)
        finally:
            if tickets:  # the caller stopped early: nothing of this call may leak into the next
                self.scheduler.cancel(tickets)
            self.scheduler.flush()

    # internals ------------------------------------------------------------------------------

    def _ordered(
        self,
        items: Iterable[Record | Result],
        skip_ids: frozenset[str] | set[str],
        tickets: set[int],
    ) -> Iterator[Result]:
        scheduler = self.scheduler
        capacity = max(64, 64 * self.options.workers)
        ready: dict[int, Result] = {}
        next_out = submitted = 0
        source = iter(items)
        exhausted = False
        while True:
            while not exhausted and len(tickets) < capacity and len(ready) < 4 * capacity:
                item = next(source, None)
                if item is None:
                    exhausted = True
                    break
                if item.id in skip_ids:
                    continue
                if isinstance(item, Result) and self.options.strict:
                    raise InputError(f"record {item.id!r}: {item.verdict.message}")
                tickets.add(submitted)
                scheduler.submit(submitted, item)
                submitted += 1
            for ticket, result in scheduler.poll():
                tickets.discard(ticket)
                ready[ticket] = result
            while next_out in ready:
                yield ready.pop(next_out)
                next_out += 1
            if exhausted and not tickets:
                break
