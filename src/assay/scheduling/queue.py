"""The pool's queue of jobs: per-domain FIFOs, priorities and per-domain concurrency limits."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from typing import Generic, Protocol, TypeVar


class QueuedJob(Protocol):
    """What the queue needs of a job (``assay.pool.Job`` has it)."""

    seq: int
    isolate: bool

    @property
    def domain(self) -> str: ...


J = TypeVar("J", bound=QueuedJob)


class JobQueue(Generic[J]):
    """Jobs waiting for a worker, one FIFO per domain.

    :meth:`take` picks the domain whose front job has the highest priority (then the oldest
    ``seq``, so output order is not starved) among the domains below their concurrency limit,
    and returns a chunk of that domain's jobs. A job marked ``isolate`` (a retry after a worker
    died) travels alone.
    """

    def __init__(
        self,
        priority: Callable[[str], int] = lambda _domain: 0,
        limit: Callable[[str], int | None] = lambda _domain: None,
    ) -> None:
        self._priority = priority
        self._limit = limit
        self._queues: dict[str, deque[J]] = {}
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def push(self, job: J) -> None:
        self._queues.setdefault(job.domain, deque()).append(job)
        self._size += 1

    def push_front(self, jobs: list[J]) -> None:
        """Put jobs back at the front of their domains' queues, keeping their order."""
        for job in reversed(jobs):
            self._queues.setdefault(job.domain, deque()).appendleft(job)
            self._size += 1

    def take(self, busy: Mapping[str, int], chunk_size: Callable[[str], int]) -> list[J]:
        """The next chunk for a free worker (empty when every queued domain is at its limit)."""
        best: tuple[int, int] | None = None
        chosen = ""
        for domain, queue in self._queues.items():
            if not queue:
                continue
            limit = self._limit(domain)
            if limit is not None and busy.get(domain, 0) >= limit:
                continue
            key = (-self._priority(domain), queue[0].seq)
            if best is None or key < best:
                best, chosen = key, domain
        if best is None:
            return []
        queue = self._queues[chosen]
        chunk = [queue.popleft()]
        if not chunk[0].isolate:
            size = chunk_size(chosen)
            while queue and len(chunk) < size and not queue[0].isolate:
                chunk.append(queue.popleft())
        self._size -= len(chunk)
        return chunk

    def remove(self, predicate: Callable[[J], bool]) -> list[J]:
        """Take every queued job for which ``predicate`` holds out of the queue."""
        removed: list[J] = []
        for domain, queue in self._queues.items():
            kept: deque[J] = deque()
            for job in queue:
                (removed if predicate(job) else kept).append(job)
            self._queues[domain] = kept
        self._size -= len(removed)
        return removed
