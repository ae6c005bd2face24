"""A :class:`~assay.scheduling.scheduler.Scheduler` driven by its own thread, for any caller.

Several callers (asyncio tasks, the threads of a Ray actor, HTTP handlers) submit items at the
same time; one thread feeds them to one warm worker pool, so items of different calls share the
workers instead of queueing call behind call. Each item's result is handed to a callback on the
service thread as soon as it is ready. A socket pair wakes the service thread when new work or
a cancellation arrives while it waits on the workers.
"""

from __future__ import annotations

import contextlib
import logging
import select
import socket
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from assay.errors import WorkerError
from assay.registry import Registry
from assay.scheduling.scheduler import Scheduler
from assay.types import Record, Result

if TYPE_CHECKING:
    from assay.runner import ScoreOptions

log = logging.getLogger(__name__)

Callback = Callable[[int, Result | BaseException], None]
"""Called on the service thread with a ticket and its result (or the failure that ended it)."""


@dataclass(slots=True)
class _Inbox:
    submissions: list[tuple[int, Record | Result, Callback]] = field(default_factory=list)
    cancelled: set[int] = field(default_factory=set)
    warmers: list[threading.Event] = field(default_factory=list)
    stop: bool = False


class ScoringService:
    """Thread-safe scoring over one warm scheduler; see the module docstring.

    Args:
        options: A :class:`~assay.runner.ScoreOptions`.
        registry: Verifiers to use; the default registry when ``None``.

    Example:
        >>> service = ScoringService(ScoreOptions(workers=2))  # doctest: +SKIP
        >>> service.score(records)  # doctest: +SKIP
        [Result(...), ...]
    """

    def __init__(self, options: ScoreOptions, registry: Registry | None = None) -> None:
        self.options = options
        self._scheduler = Scheduler(options, registry)
        self._lock = threading.Lock()
        self._inbox = _Inbox()
        self._next_ticket = 0
        self._callbacks: dict[int, Callback] = {}
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._closed = False
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="assay-scoring", daemon=True)
        self._thread.start()

    @property
    def scheduler(self) -> Scheduler:
        """The scheduler (read its breaker or pool; drive it only from the service thread)."""
        return self._scheduler

    def submit(self, items: Sequence[Record | Result], callback: Callback) -> list[int]:
        """Queue items; returns their tickets. ``callback(ticket, outcome)`` runs once each."""
        with self._lock:
            if self._closed:
                raise WorkerError("the scoring service is closed")
            tickets = list(range(self._next_ticket, self._next_ticket + len(items)))
            self._next_ticket += len(items)
            self._inbox.submissions.extend(
                (ticket, item, callback) for ticket, item in zip(tickets, items, strict=True)
            )
        self._wake()
        return tickets

    def cancel(self, tickets: Iterable[int]) -> None:
        """Drop these tickets: queued items never run, running ones finish unreported."""
        with self._lock:
            self._inbox.cancelled.update(tickets)
        self._wake()

    def score(self, items: Sequence[Record | Result]) -> list[Result]:
        """Score items from any thread and wait for them; results in input order."""
        results: dict[int, Result | BaseException] = {}
        finished = threading.Event()

        def collect(ticket: int, outcome: Result | BaseException) -> None:
            results[ticket] = outcome
            if len(results) == len(items):
                finished.set()

        if not items:
            return []
        tickets = self.submit(items, collect)
        finished.wait()
        ordered = [results[t] for t in tickets]
        for outcome in ordered:
            if isinstance(outcome, BaseException):
                raise outcome
        return [o for o in ordered if isinstance(o, Result)]

    def warm(self) -> None:
        """Start the worker pool now (on the service thread) and wait until it is started."""
        done = threading.Event()
        with self._lock:
            if self._closed:
                raise WorkerError("the scoring service is closed")
            self._inbox.warmers.append(done)
        self._wake()
        done.wait()
        if self._failure is not None:
            raise WorkerError(f"the worker pool could not start: {self._failure}")

    def close(self) -> None:
        """Stop the thread and the workers; pending callbacks get a :class:`WorkerError`."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._inbox.stop = True
        self._wake()
        self._thread.join()
        self._wake_r.close()
        self._wake_w.close()

    # the service thread ---------------------------------------------------------------------

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")

    def _drain_wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            while self._wake_r.recv(4096):
                pass

    def _run(self) -> None:
        scheduler = self._scheduler
        try:
            while True:
                with self._lock:
                    inbox, self._inbox = self._inbox, _Inbox()
                if inbox.stop:
                    break
                self._take(inbox)
                if scheduler.busy:
                    self._deliver(scheduler.poll(wake=self._wake_r))
                else:
                    scheduler.flush()
                    select.select([self._wake_r], [], [])
                self._drain_wake()
        except Exception as exc:  # the pool cannot run: every waiting caller learns why
            log.exception("the scoring service stopped")
            self._fail_all(exc)
        else:
            self._fail_all(WorkerError("the scoring service was closed"))
        finally:
            scheduler.close()

    def _take(self, inbox: _Inbox) -> None:
        if inbox.cancelled:
            self._scheduler.cancel(inbox.cancelled)
            for ticket in inbox.cancelled:
                self._callbacks.pop(ticket, None)
        accepted = [s for s in inbox.submissions if s[0] not in inbox.cancelled]
        for ticket, _item, callback in accepted:  # first, so a failure below reaches them all
            self._callbacks[ticket] = callback
        try:
            if inbox.warmers:
                self._scheduler.warm()
            for ticket, item, _callback in accepted:
                self._scheduler.submit(ticket, item)
        except Exception as exc:
            self._failure = exc  # before the waiters wake, so warm() sees it
            raise
        finally:
            for event in inbox.warmers:
                event.set()

    def _deliver(self, finished: list[tuple[int, Result]]) -> None:
        for ticket, result in finished:
            callback = self._callbacks.pop(ticket, None)
            if callback is not None:
                _safely(callback, ticket, result)

    def _fail_all(self, exc: BaseException) -> None:
        with self._lock:  # closed and emptied at once: no later submission can be stranded
            self._closed = True
            pending = [(t, c) for t, _i, c in self._inbox.submissions]
            self._inbox = _Inbox(stop=True)
        pending += list(self._callbacks.items())
        self._callbacks.clear()
        for ticket, callback in pending:
            _safely(callback, ticket, exc)


def _safely(callback: Callback, ticket: int, outcome: Result | BaseException) -> None:
    try:
        callback(ticket, outcome)
    except Exception:  # a caller's callback must not stop the service for everyone
        log.exception("a scoring callback failed")
