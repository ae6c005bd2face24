"""A pool of pre-started worker processes with hard per-item wall-clock limits.

The parent never relies on signals in its own process: it waits on the workers' pipes with a
deadline (``multiprocessing.connection.wait``), so the pool works from any thread of any host
framework (Ray actors, verl reward workers, asyncio executors). When an item overruns its limit
the worker is killed (SIGKILL) and replaced, and the items queued behind it go to another
worker. When a worker dies (segfault, OOM kill) the item it was running is retried on a fresh
worker, alone, up to ``retries`` times.

Who is blamed (:mod:`assay.blame`): the parent reads the worker's phase board after the kill or
the death. A worker that was in response-owned work (:class:`assay.blame.response_owned`) gives
the response's ``incorrect`` verdict with the declared check; otherwise the item is ``timeout``
(killed) or ``error`` (died).

The limit is measured in the item's *own* time: wall-clock time minus the time the kernel kept
the worker waiting for a CPU (:class:`assay.blame.ItemClock`), so a loaded machine does not reach
the time limit before the memory cap or the verifier's own budget on work that an idle machine
finishes. A wall-clock backstop, ``wall_factor`` times the limit, bounds the latency of an item
on a starved machine.

Items are sent in chunks sized from the measured item time of their domain (about 0.5 s of
work a chunk, and never more than an even share of what is queued; one item until the domain's
first is measured), so cheap items do not pay a pipe round trip each, a verifier can share work
across a chunk (``Verifier.prefetch``: the code domain lints a chunk with one ruff), and slow
items do not queue.
Where the workers are at least as many as the CPUs this process may use, each worker is pinned
to one CPU (``cpu_affinity``, :func:`cpu_slots`), round robin, and so is everything it starts
(its code sandbox's processes inherit the mask): a worker and the sandbox processes it hands
work to wake each other on the same CPU instead of across CPUs, which kept both CPUs of a
2-CPU machine ~15% idle (docs/architecture.md, "CPU affinity").
The queue (:class:`~assay.scheduling.queue.JobQueue`) applies the
:class:`~assay.scheduling.policy.SchedulePolicy`: priorities, per-domain concurrency limits, and
the domains each worker sets up as it starts (plus every domain the pool has seen, so a worker
that replaces a killed one is warm before it takes items).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing.connection as mpc
import os
import signal
import socket
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from assay.blame import PhaseBoard, read_run_delay, response_fault
from assay.errors import WorkerError
from assay.scheduling.policy import SchedulePolicy
from assay.scheduling.queue import JobQueue
from assay.types import Record, Result, Verdict

log = logging.getLogger(__name__)

CHUNK_SECONDS = 0.5
MAX_CHUNK = 64


@dataclass(slots=True)
class Job:
    """One item to verify, with its hard limit."""

    seq: int
    record: Record
    timeout_s: float
    verifier_id: str
    attempts: int = 0
    isolate: bool = False

    @property
    def domain(self) -> str:
        return self.record.domain


CPU_AFFINITY = ("auto", "on", "off")
"""``auto``: pin workers when they are at least as many as the usable CPUs; ``on``: always;
``off``: never (the kernel places every process)."""


def cpu_slots(size: int, mode: str = "auto") -> list[frozenset[int]] | None:
    """The CPU each of ``size`` workers is pinned to (round robin), or ``None`` (not pinned).

    Only the CPUs this process may already use are handed out (``os.sched_getaffinity``), so
    a scorer inside a container's or an actor's CPU set stays inside it. ``auto`` pins only
    when the workers are at least as many as those CPUs: each worker and the sandbox processes
    it starts then share one CPU (a worker's chain is sequential: it waits while its sandbox
    runs), and separate scorers that each cover every CPU stack evenly. With fewer workers
    than CPUs a chain is left free to overlap its sandbox's clean-up with its next item on
    another CPU, and two scorers in one CPU set cannot pile onto the same first CPUs.

    Raises:
        WorkerError: ``mode`` is not one of :data:`CPU_AFFINITY`.
    """
    if mode not in CPU_AFFINITY:
        raise WorkerError(f"cpu_affinity must be one of {', '.join(CPU_AFFINITY)}, got {mode!r}")
    getter = getattr(os, "sched_getaffinity", None)
    if mode == "off" or getter is None:
        return None
    cpus = sorted(getter(0))
    if len(cpus) < 2 or (mode == "auto" and size < len(cpus)):
        return None
    return [frozenset({cpus[index % len(cpus)]}) for index in range(size)]


@dataclass(slots=True)
class _Worker:
    process: subprocess.Popen[bytes]
    conn: mpc.Connection
    started_at: float
    board: PhaseBoard
    stat_fd: int | None = None
    ready: bool = False
    inflight: deque[Job] = field(default_factory=deque)
    deadline: float = float("inf")
    warming: str | None = None
    item_started: float = 0.0
    item_delay: float | None = None
    hard_deadline: float = float("inf")
    cpus: frozenset[int] | None = None


@dataclass(frozen=True, slots=True)
class PoolConfig:
    """Settings of a :class:`WorkerPool`.

    Attributes:
        size: Number of worker processes.
        memory_mb: Address-space cap of each worker (0: none).
        retries: Extra attempts for an item whose worker died (infrastructure failures only).
        max_items_per_worker: A worker is replaced after this many items.
        setup_timeout_s: Limit for starting a worker or setting up a verifier in it.
        policy: Priorities, per-domain limits and the domains to warm at start.
        wall_factor: An item's hard wall-clock limit is ``wall_factor`` times its limit (the
            limit itself is measured in the item's own time; see the module docstring).
        cpu_affinity: ``auto``, ``on`` or ``off``: whether each worker (and what it starts)
            is pinned to one CPU (:func:`cpu_slots`).
    """

    size: int = 2
    memory_mb: int = 4096
    retries: int = 1
    max_items_per_worker: int = 20_000
    setup_timeout_s: float = 120.0
    policy: SchedulePolicy = field(default_factory=SchedulePolicy)
    wall_factor: float = 3.0
    cpu_affinity: str = "auto"

    def __post_init__(self) -> None:
        if not self.wall_factor >= 1.0:
            raise WorkerError(f"wall_factor must be >= 1, got {self.wall_factor!r}")
        cpu_slots(self.size, self.cpu_affinity)  # the mode is checked here


class WorkerPool:
    """Verifies :class:`Job` items in worker processes; see the module docstring.

    Use :meth:`submit` to queue jobs and :meth:`poll` to collect ``(seq, Result)`` pairs in
    completion order. Not reentrant: one thread drives a pool at a time.
    """

    def __init__(self, specs: dict[str, str], config: PoolConfig | None = None) -> None:
        self.config = config or PoolConfig()
        if self.config.size < 1:
            raise WorkerError("a worker pool needs at least one worker")
        self._specs = dict(specs)
        policy = self.config.policy
        self._queue: JobQueue[Job] = JobQueue(policy.priority_for, policy.limit_for)
        self._warm: list[str] = [d for d in policy.warm if d in self._specs]
        self._workers: list[_Worker] = []
        self._done: list[tuple[int, Result]] = []
        self._outstanding = 0
        self._item_seconds: dict[str, float] = {}
        self._start_failures = 0
        self._closed = False
        self._cpu_slots = cpu_slots(self.config.size, self.config.cpu_affinity)
        for index in range(self.config.size):
            self._workers.append(self._spawn(self._slot(index)))

    @property
    def outstanding(self) -> int:
        """Jobs submitted whose results have not been returned by :meth:`poll` yet."""
        return self._outstanding

    @property
    def worker_pids(self) -> list[int]:
        """Process ids of the current workers."""
        return [worker.process.pid for worker in self._workers]

    def wait_ready(self) -> None:
        """Block until every worker has started (and set up the domains it warms)."""
        while not all(worker.ready for worker in self._workers):
            now = time.monotonic()
            deadline = min(w.deadline for w in self._workers if not w.ready)
            ready = mpc.wait(self._waitables(), timeout=max(0.0, deadline - now))
            for obj in ready:
                self._on_ready(obj)
            self._enforce_deadlines()

    def submit(self, job: Job) -> None:
        if self._closed:
            raise WorkerError("the pool is closed")
        self._queue.push(job)
        self._outstanding += 1

    def withdraw(self, predicate: Callable[[Job], bool]) -> list[Job]:
        """Take queued (not yet running) jobs out of the pool; the caller answers for them."""
        jobs = self._queue.remove(predicate)
        self._outstanding -= len(jobs)
        return jobs

    def poll(self, timeout: float | None = None, wake: Any = None) -> list[tuple[int, Result]]:
        """Dispatch queued jobs, wait up to ``timeout`` seconds, return finished results.

        ``wake``: a connection or socket whose readiness ends the wait early (the caller has
        new work); the pool does not read from it.
        """
        limit = None if timeout is None else time.monotonic() + timeout
        extra = [] if wake is None else [wake]
        while not self._done and self._outstanding:
            self._dispatch()
            now = time.monotonic()
            deadline = min([w.deadline for w in self._workers] + [limit or float("inf")])
            wait_s = max(0.0, deadline - now) if deadline != float("inf") else None
            ready = mpc.wait(self._waitables() + extra, timeout=wait_s)
            for obj in ready:
                if obj is not wake:
                    self._on_ready(obj)
            self._enforce_deadlines()
            if wake is not None and wake in ready:
                break
            if limit is not None and time.monotonic() >= limit:
                break
        finished, self._done = self._done, []
        self._outstanding -= len(finished)
        return finished

    def close(self) -> None:
        """Stop every worker; kill any that does not exit promptly."""
        self._closed = True
        for worker in self._workers:
            with contextlib.suppress(OSError, ValueError):
                worker.conn.send(("stop",))
        for worker in self._workers:
            try:
                worker.process.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                _kill(worker)
            worker.conn.close()
            _release(worker)
        self._workers = []

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # internals ------------------------------------------------------------------------------

    @property
    def worker_cpus(self) -> list[frozenset[int] | None]:
        """The CPU each current worker is pinned to (``None``: not pinned)."""
        return [worker.cpus for worker in self._workers]

    def _slot(self, index: int) -> frozenset[int] | None:
        return None if self._cpu_slots is None else self._cpu_slots[index]

    def _spawn(self, cpus: frozenset[int] | None = None) -> _Worker:
        """Start a fresh interpreter running :func:`assay.worker.main` on a socket pair.

        A plain subprocess (not multiprocessing's spawn) so the host's ``__main__`` module is
        never re-imported: assay works from scripts without a main guard and inside frameworks.
        With ``cpus`` it is pinned there before it gets its settings, so every process it
        starts afterwards (the code sandbox, ruff) inherits the mask.
        """
        parent_sock, child_sock = socket.socketpair()
        board = PhaseBoard.create()
        board_fd = board.fd
        if board_fd is None:  # create() always leaves the descriptor open for the child
            raise WorkerError("the phase board has no descriptor")
        process = subprocess.Popen(
            [sys.executable, "-c", "import assay.worker as w; w.main()", str(child_sock.fileno())],
            pass_fds=(child_sock.fileno(), board_fd),
            stdin=subprocess.DEVNULL,
            stdout=sys.stderr.fileno() if _has_fileno(sys.stderr) else subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,
        )
        child_sock.close()
        board.close_fd()
        if cpus is not None:
            try:
                os.sched_setaffinity(process.pid, cpus)
            except OSError as exc:  # a CPU taken away since: the kernel places it
                log.debug("could not pin worker %s to CPUs %s: %s", process.pid, set(cpus), exc)
                cpus = None
        conn = mpc.Connection(parent_sock.detach())
        settings = {
            "specs": self._specs,
            "memory_mb": self.config.memory_mb,
            "max_items": self.config.max_items_per_worker,
            "sys_path": list(sys.path),
            "warm": list(self._warm),
            "board_fd": board_fd,
        }
        conn.send(("init", settings))
        try:
            stat_fd: int | None = os.open(f"/proc/{process.pid}/schedstat", os.O_RDONLY)
        except OSError:  # not Linux: the item clock is plain wall-clock time
            stat_fd = None
        now = time.monotonic()
        return _Worker(
            process, conn, now, board, stat_fd, deadline=now + self.config.setup_timeout_s,
            cpus=cpus,
        )  # fmt: skip

    def _waitables(self) -> list[Any]:
        return [worker.conn for worker in self._workers]

    def _chunk_size(self, domain: str) -> int:
        seconds = self._item_seconds.get(domain)
        if seconds is None:  # cost unknown: one item, so a slow domain never queues in a chunk
            return 1
        share = -(-len(self._queue) // max(1, len(self._workers)))  # an even share, rounded up
        return max(1, min(MAX_CHUNK, share, int(CHUNK_SECONDS / max(seconds, 1e-6))))

    def _busy(self) -> dict[str, int]:
        busy: dict[str, int] = {}
        for worker in self._workers:
            if worker.inflight:
                domain = worker.inflight[0].domain
                busy[domain] = busy.get(domain, 0) + 1
        return busy

    def _dispatch(self) -> None:
        for worker in self._workers:
            if not worker.ready or worker.inflight or not self._queue:
                continue
            batch = self._queue.take(self._busy(), self._chunk_size)
            if not batch:
                return  # every queued domain is at its concurrency limit
            first = batch[0]
            if first.domain not in self._warm:
                self._warm.append(first.domain)  # replacement workers set it up as they start
            items = [(job.seq, job.record, job.timeout_s) for job in batch]
            try:
                worker.conn.send(("batch", items))
            except (OSError, ValueError):
                self._queue.push_front(batch)
                self._replace(worker, reason="its pipe broke")
                continue
            worker.inflight.extend(batch)
            self._start_item(worker, first, time.monotonic())

    def _start_item(self, worker: _Worker, job: Job, now: float, *, chunk: bool = True) -> None:
        """The worker begins ``job``: start its own-time clock and its deadlines.

        ``chunk=False``: the next item of the same chunk; the run-queue baseline of the chunk
        is kept (one ``schedstat`` read a chunk: the CPU wait of the items before it is then
        subtracted too, which can only give the item more time, up to the wall-clock backstop).
        """
        worker.item_started = now
        if chunk:
            stat = worker.stat_fd
            worker.item_delay = None if stat is None else read_run_delay(stat)
        worker.deadline = now + job.timeout_s
        worker.hard_deadline = now + job.timeout_s * self.config.wall_factor

    def _own_time(self, worker: _Worker, now: float) -> float:
        """Seconds the running item has used: wall-clock minus waiting for a CPU."""
        wall = now - worker.item_started
        if worker.item_delay is None or worker.stat_fd is None:
            return wall
        delay = read_run_delay(worker.stat_fd)
        if delay is None:
            return wall
        return max(0.0, wall - max(0.0, delay - worker.item_delay))

    def _on_ready(self, obj: Any) -> None:
        for worker in self._workers:
            if obj is worker.conn:
                self._drain(worker)
                return

    def _drain(self, worker: _Worker) -> None:
        while True:
            try:
                if not worker.conn.poll():
                    return
                message = worker.conn.recv()
            except (EOFError, OSError):
                self._on_death(worker)
                return
            self._handle(worker, message)

    def _handle(self, worker: _Worker, message: tuple[Any, ...]) -> None:
        kind = message[0]
        now = time.monotonic()
        if kind == "hello":
            worker.ready = True
            worker.warming = None
            worker.deadline = float("inf")
            self._start_failures = 0
        elif kind == "setup":
            worker.deadline = now + self.config.setup_timeout_s
            if not worker.ready:
                worker.warming = str(message[2])
        elif kind == "ready":
            if worker.inflight:
                self._start_item(worker, worker.inflight[0], now)
        elif kind == "result":
            seq, result = message[1], message[2]
            if worker.inflight and worker.inflight[0].seq == seq:
                worker.inflight.popleft()
            self._done.append((seq, result))
            elapsed = max(result.elapsed_ms / 1000.0, 1e-5)
            previous = self._item_seconds.get(result.domain, elapsed)
            self._item_seconds[result.domain] = 0.9 * previous + 0.1 * elapsed
            if worker.inflight:
                self._start_item(worker, worker.inflight[0], now, chunk=False)
            else:
                worker.deadline = float("inf")

    def _enforce_deadlines(self) -> None:
        now = time.monotonic()
        for worker in list(self._workers):
            if now < worker.deadline:
                continue
            if worker.warming is not None:  # a verifier's set-up hung: start the next cold
                log.warning("setting up %r hung in a starting worker", worker.warming)
                with contextlib.suppress(ValueError):
                    self._warm.remove(worker.warming)
                self._replace(worker, reason=f"warming {worker.warming!r} hung")
                continue
            if not worker.ready:
                self._start_failures += 1
                self._replace(worker, reason="it did not start in time")
                continue
            if not worker.inflight:
                worker.deadline = float("inf")
                continue
            job = worker.inflight[0]
            own = self._own_time(worker, now)
            if own < job.timeout_s and now < worker.hard_deadline:  # it waited for a CPU
                worker.deadline = min(now + job.timeout_s - own, worker.hard_deadline)
                continue
            worker.inflight.popleft()
            vm_mb = _address_space_mb(worker.process.pid)  # before the kill: /proc goes with it
            _kill(worker)  # first: the board is read once nothing can write it
            wall = now - worker.item_started
            verdict = self._limit_verdict(worker, job, own, wall, vm_mb)
            self._done.append((job.seq, _result(job, verdict, wall * 1000.0)))
            self._replace(worker, reason=f"item {job.record.id!r} ran past its limit")

    def _limit_verdict(
        self, worker: _Worker, job: Job, own: float, wall: float, vm_mb: int | None
    ) -> Verdict:
        """``incorrect`` when the worker was killed in response-owned work, else ``timeout``.

        A worker whose address space was at its memory cap when the time ran out was blowing up
        its memory, not looping: the verdict says so (``error`` naming the memory cap, as when
        the cap is hit first), so it does not depend on which limit a slow machine hits first.
        """
        limit = job.timeout_s
        evidence = {"limit_s": limit, "own_s": round(own, 3), "wall_s": round(wall, 3)}
        phase = worker.board.read()
        if phase is not None and phase.seq == job.seq:
            message = f"{phase.what}: ran past the item's {limit:g} s time limit"
            return response_fault(phase.check, message, {**evidence, "work": phase.what})
        cap = self.config.memory_mb
        if cap and vm_mb is not None and vm_mb >= MEMORY_NEAR_CAP * cap:
            return Verdict.error(
                f"the verifier ran out of memory (worker memory cap {cap} MB: {vm_mb} MB in use "
                f"when its {limit:g} s time limit ran out)"
            )
        return Verdict.timeout(
            f"exceeded the {limit:g} s time limit ({own:.3g} s own time, {wall:.3g} s wall-clock)"
        )

    def _on_death(self, worker: _Worker) -> None:
        if worker not in self._workers:
            return
        try:
            code: int | None = worker.process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            code = None
        if worker.warming is not None:  # a verifier's set-up killed a starting worker
            log.warning("setting up %r killed a starting worker", worker.warming)
            with contextlib.suppress(ValueError):
                self._warm.remove(worker.warming)
        elif not worker.ready:
            self._start_failures += 1
        if worker.inflight:
            job = worker.inflight.popleft()
            cause = _exit_cause(code)
            phase = worker.board.read()
            if job.attempts < self.config.retries:
                job.attempts += 1
                job.isolate = True
                self._queue.push_front([job])
                log.warning(
                    "worker %s (%s) on item %r; retrying", worker.process.pid, cause, job.record.id
                )
            elif phase is not None and phase.seq == job.seq:  # it died in response-owned work
                message = (
                    f"{phase.what}: the worker process {cause} "
                    f"({job.attempts + 1} attempts; memory cap {self.config.memory_mb} MB)"
                )
                evidence = {"cause": cause, "attempts": job.attempts + 1, "work": phase.what}
                fault = response_fault(phase.check, message, evidence)
                self._done.append((job.seq, _result(job, fault, 0.0)))
            else:
                message = (
                    f"the worker process {cause} while verifying this item "
                    f"({job.attempts + 1} attempts; memory cap {self.config.memory_mb} MB)"
                )
                self._done.append((job.seq, _result(job, Verdict.error(message), 0.0)))
        self._replace(worker, reason=_exit_cause(code))

    def _replace(self, worker: _Worker, reason: str) -> None:
        if self._start_failures >= 3:
            raise WorkerError(f"worker processes fail to start ({reason}); see the log above")
        self._queue.push_front(list(worker.inflight))
        worker.inflight.clear()
        _kill(worker)
        _release(worker)
        index = self._workers.index(worker)
        self._workers[index] = self._spawn(self._slot(index))
        log.debug("replaced worker: %s", reason)


MEMORY_NEAR_CAP = 0.9
"""Share of the memory cap in use at a time-limit kill that makes it a memory blow-up."""


def _address_space_mb(pid: int) -> int | None:
    """The address space (``VmSize``) of a process in MB, or None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _kill(worker: _Worker) -> None:
    """SIGKILL the worker's whole session (a verifier may have started helpers), then reap."""
    if worker.process.poll() is None:
        try:
            os.killpg(worker.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            worker.process.kill()
    try:
        worker.process.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        log.error("worker %s did not die after SIGKILL", worker.process.pid)
    worker.conn.close()


def _release(worker: _Worker) -> None:
    """Unmap the worker's phase board and close its schedstat descriptor."""
    worker.board.close()
    if worker.stat_fd is not None:
        with contextlib.suppress(OSError):
            os.close(worker.stat_fd)
        worker.stat_fd = None


def _has_fileno(stream: Any) -> bool:
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return True


def _exit_cause(code: int | None) -> str:
    if code is None:
        return "stopped answering"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def _result(job: Job, verdict: Verdict, elapsed_ms: float) -> Result:
    record = job.record
    return Result(
        record.id, record.domain, verdict, job.verifier_id, elapsed_ms, record.group, record.meta
    )
