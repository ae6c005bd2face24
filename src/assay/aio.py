"""The async API: ``await assay.ascore(records)`` for trainers with async reward hooks.

Items go to one warm worker pool driven by a service thread
(:class:`~assay.scheduling.service.ScoringService`), so the event loop never blocks on a
verifier. Concurrency is bounded: at most ``max_in_flight`` items of one scorer are queued or
running at once, and the records are read from the caller's (async) iterable only as fast as
slots free up, which is the backpressure an async generator of rollouts sees. Cancelling the
awaiting task withdraws the items that have not started; those already running in a worker
finish within their time limit and their results are dropped. Results come in input order.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import threading
import weakref
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Mapping
from typing import Any

from assay.records import RawRow, RecordBuilder
from assay.registry import Registry
from assay.runner import ScoreOptions
from assay.scheduling.policy import SchedulePolicy
from assay.scheduling.service import ScoringService
from assay.types import Result

Records = Iterable[Mapping[str, Any]] | AsyncIterable[Mapping[str, Any]]

_shared: dict[tuple[ScoreOptions, int], AsyncScorer] = {}
_shared_lock = threading.Lock()


class AsyncScorer:
    """Scores batches from coroutines with one warm worker pool (usable from any event loop).

    Args:
        options: How to score (workers, time limits, schedule policy...).
        registry: Verifiers to use; the default registry when ``None``.
        max_in_flight: Most items queued or running at once, over all concurrent calls made
            from one event loop.

    Example:
        >>> scorer = AsyncScorer(ScoreOptions(workers=2))  # doctest: +SKIP
        >>> results = await scorer.score(records)  # doctest: +SKIP
        >>> scorer.close()  # doctest: +SKIP
    """

    def __init__(
        self,
        options: ScoreOptions | None = None,
        registry: Registry | None = None,
        max_in_flight: int = 256,
    ) -> None:
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        self.options = options or ScoreOptions()
        self.max_in_flight = max_in_flight
        self._service = ScoringService(self.options, registry)
        self._registry = self._service.scheduler.registry
        self._slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    @property
    def service(self) -> ScoringService:
        return self._service

    async def score(self, records: Records) -> list[Result]:
        """One result per record, in input order; see the module docstring."""
        loop = asyncio.get_running_loop()
        slots = self._slots.setdefault(loop, asyncio.Semaphore(self.max_in_flight))
        builder = RecordBuilder(
            self._registry, self.options.default_domain, self.options.max_response_chars
        )
        futures: list[asyncio.Future[Result]] = []
        tickets: list[int] = []
        try:
            position = 0
            async for row in _rows(records):
                position += 1
                await slots.acquire()
                future: asyncio.Future[Result] = loop.create_future()
                future.add_done_callback(lambda _f: slots.release())
                futures.append(future)
                item = builder.build(RawRow(position, data=row))
                tickets += self._service.submit([item], _settler(loop, future))
            return list(await asyncio.gather(*futures))
        except BaseException:
            self._service.cancel(tickets)
            for future in futures:
                future.cancel()
            raise

    def close(self) -> None:
        """Stop the worker processes."""
        self._service.close()


async def ascore(
    records: Records,
    *,
    workers: int = 2,
    timeout_s: float | None = None,
    memory_mb: int = 4096,
    domain: str | None = None,
    max_in_flight: int = 256,
    schedule: SchedulePolicy | None = None,
) -> list[Result]:
    """Score records without blocking the event loop; one result per record, in order.

    A process-wide warm scorer per settings is started on first use and kept (closed at exit),
    so a trainer that awaits ``ascore`` every step pays for worker start-up once.

    Args:
        records: Dicts in the record format (docs/formats.md), from a list or an async iterable.
        workers: Worker processes.
        timeout_s: Per-item limit; ``None`` uses each verifier's default.
        memory_mb: Address-space cap per worker.
        domain: Domain for records that name none.
        max_in_flight: Most items queued or running at once (backpressure on ``records``).
        schedule: Priorities, per-domain limits, warm domains and circuit breaker settings.

    Example:
        >>> import asyncio
        >>> rows = [{"id": "1", "domain": "math", "response": "\\\\boxed{2}",
        ...          "reference": {"answer": "2"}}]
        >>> [r.status.value for r in asyncio.run(ascore(rows, workers=1))]
        ['correct']
    """
    options = ScoreOptions(
        workers=workers,
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        default_domain=domain,
        schedule=schedule or SchedulePolicy(),
    )
    key = (options, max_in_flight)
    with _shared_lock:
        scorer = _shared.get(key)
        if scorer is None:
            scorer = _shared[key] = AsyncScorer(options, max_in_flight=max_in_flight)
            atexit.register(scorer.close)
    return await scorer.score(records)


def _settler(
    loop: asyncio.AbstractEventLoop, future: asyncio.Future[Result]
) -> Callable[[int, Result | BaseException], None]:
    def settle(outcome: Result | BaseException) -> None:
        if future.done():
            return
        if isinstance(outcome, BaseException):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)

    def callback(_ticket: int, outcome: Result | BaseException) -> None:
        with contextlib.suppress(RuntimeError):  # the loop was closed: nobody is waiting
            loop.call_soon_threadsafe(settle, outcome)

    return callback


async def _rows(records: Records) -> AsyncIterator[Mapping[str, Any]]:
    if isinstance(records, AsyncIterable):
        async for row in records:
            yield row
    else:
        for row in records:
            yield row
