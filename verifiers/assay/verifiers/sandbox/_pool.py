"""The caller's API: a pool of warm sandbox workers (zygotes) and the runs they carry out."""

from __future__ import annotations

import contextlib
import logging
import marshal
import os
import queue
import threading
import time
import warnings
import weakref
from collections.abc import Iterator, Mapping, Sequence
from types import TracebackType

from assay.errors import ConfigError

from ._errors import SandboxUnavailableError, _WorkerLostError
from ._inside.compiled import code_tag
from ._launch import make_plan
from ._limits import Limits
from ._outcomes import (
    CommandOutcome,
    Isolation,
    IsolationReport,
    PoolStats,
    ProgramOutcome,
)
from ._replies import (
    encoded_files,
    optional_str,
    outputs,
    program_status,
    usage,
)
from ._session import CallSession
from ._worker import GRACE_S, Message, Worker

__all__ = ["DEFAULT_PRELOAD", "SandboxPool"]

logger = logging.getLogger("assay.verifiers.sandbox")

PRECOMPILE_MAX_CHARS = 8192
"""Longer modules go down as source alone (see :meth:`SandboxPool._compiled`)."""
PRECOMPILE_MAX_S = 0.02
"""A module that took longer to compile here goes down as source alone: an honest HumanEval
answer takes ~0.06 ms."""
_COMPILING = threading.Lock()
"""``warnings.catch_warnings`` changes process-wide state: one compile at a time records."""

DEFAULT_PRELOAD = (
    "bisect", "collections", "dataclasses", "decimal", "fractions", "functools", "heapq",
    "itertools", "math", "random", "re", "string", "typing",
)  # fmt: skip
"""Modules the zygote imports once, so that runs importing them pay nothing."""

_REDUCED = {
    Isolation.UNSHARE: "untrusted code can read the whole host filesystem (mounted read-only) "
    "with this user's permissions; network, processes and IPC are still separate.",
    Isolation.NONE: "untrusted code runs with rlimits only: it can read and write this "
    "user's files, use the network, and signal this user's processes.",
}
_AS_ROOT = " This process runs as root, so that means every file on the machine."
_MAX_FRAME_SLACK = 4 * 1024 * 1024


class SandboxPool:
    """A pool of pre-started sandbox workers that run untrusted Python.

    Each worker is a zygote: a Python process started inside bubblewrap (or a weaker
    fallback, announced by a logged warning and by :attr:`isolation`), which has imported its
    runtime once and forks a confined child per run. A worker is replaced after
    ``max_runs_per_worker`` runs or after anything unusual.

    Args:
        size: Number of workers (runs in parallel, from several threads).
        limits: Default limits of each run.
        isolation: ``"auto"`` (best available) or a level to insist on.
        min_isolation: Raise :class:`SandboxUnavailableError` rather than run below this.
        max_runs_per_worker: Runs after which a worker is replaced.
        tmpfs_mb: Size of each worker's private /tmp (scratch files count against it).
        preload: Modules the zygote imports once.
        startup_timeout_s: How long a worker may take to start.

    Example:
        >>> with SandboxPool() as pool:  # doctest: +SKIP
        ...     with pool.call_session({}, "def add(a, b): return a + b") as session:
        ...         session.call("add", (1, 2)).value
        3
    """

    def __init__(
        self,
        size: int = 1,
        limits: Limits | None = None,
        *,
        isolation: Isolation | str = "auto",
        min_isolation: Isolation | str = Isolation.NONE,
        max_runs_per_worker: int = 500,
        tmpfs_mb: int = 256,
        preload: Sequence[str] = DEFAULT_PRELOAD,
        startup_timeout_s: float = 30.0,
    ) -> None:
        if size < 1 or max_runs_per_worker < 1 or tmpfs_mb < 1 or startup_timeout_s <= 0:
            raise ConfigError("size, max_runs_per_worker, tmpfs_mb, startup_timeout_s must be > 0")
        try:
            wanted = None if isolation == "auto" else Isolation(isolation)
            floor = Isolation(min_isolation)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        self.limits = limits or Limits()
        self._preload = tuple(preload)
        self._scratch_bytes = tmpfs_mb * 1024 * 1024
        self._max_runs = max_runs_per_worker
        self._startup_timeout = startup_timeout_s
        self._lock = threading.Lock()
        self._idle: queue.Queue[Worker] = queue.Queue()
        self._all: set[Worker] = set()
        self._closed = False
        self._started = self._recycled = self._runs = 0
        self._last_compiled: tuple[tuple[str, str] | None, bytes | None] = (None, None)
        self._finalizer = weakref.finalize(self, _kill_workers, self._all)
        first = self._start_first(wanted, floor)
        self._level = first.plan.level
        info = first.info or {}
        self._report = IsolationReport(
            level=self._level,
            readonly_mounts=info.get("can_mount") is True,
            nested_userns_disabled=info.get("userns_disabled") is True,
            namespace_init=info.get("pid") == 1,
            seccomp=info.get("seccomp") is True,
        )
        self._idle.put(first)
        for _ in range(size - 1):
            self._idle.put(self._spawn())

    # -- workers ----------------------------------------------------------------------------

    def _start_first(self, wanted: Isolation | None, floor: Isolation) -> Worker:
        if wanted is not None:
            candidates = [wanted]
        else:  # as root, "none" would let candidate code rewrite any root-owned file
            candidates = [Isolation.BWRAP, Isolation.UNSHARE]
            if os.geteuid() != 0:
                candidates.append(Isolation.NONE)
        failures: list[str] = []
        for level in candidates:
            if level.rank < floor.rank:
                break
            try:
                worker = self._spawn(level)
                worker.wait_ready(self._startup_timeout)
            except SandboxUnavailableError as exc:
                failures.append(str(exc))
                continue
            if level is not Isolation.BWRAP:
                logger.warning(
                    "SANDBOX ISOLATION REDUCED to %r (%s): %s",
                    str(level),
                    "; ".join(failures) or "requested by the caller",
                    _REDUCED[level] + (_AS_ROOT if os.geteuid() == 0 else ""),
                )
            return worker
        raise SandboxUnavailableError(
            f"no sandbox at isolation >= {floor}: " + ("; ".join(failures) or "none tried")
        )

    def _spawn(self, level: Isolation | None = None) -> Worker:
        plan = make_plan(level or self._level, self._scratch_bytes)
        worker = Worker(plan, self._preload, self._max_frame(self.limits))
        with self._lock:
            self._all.add(worker)
            self._started += 1
        return worker

    @staticmethod
    def _max_frame(limits: Limits) -> int:
        return 2 * limits.max_value_bytes + 2 * limits.max_output_bytes + _MAX_FRAME_SLACK

    def _acquire(self) -> Worker:
        if self._closed:
            raise SandboxUnavailableError("the sandbox pool is closed")
        worker = self._idle.get()
        if worker.owed and not worker.settle(GRACE_S + self.limits.timeout_s):
            worker = self._replace(worker)
        for _ in range(2):
            if not worker.broken and worker.alive():
                try:
                    worker.wait_ready(self._startup_timeout)
                    return worker
                except SandboxUnavailableError:
                    logger.warning("a sandbox worker failed to start; starting another")
            worker = self._replace(worker)
        worker.wait_ready(self._startup_timeout)
        return worker

    def _replace(self, worker: Worker) -> Worker:
        worker.kill()
        with self._lock:
            self._all.discard(worker)
            self._recycled += 1
        return self._spawn()

    def _release(self, worker: Worker, recycle: bool) -> None:
        worker.runs += 1
        with self._lock:
            self._runs += 1
        if self._closed:
            worker.kill()
            return
        if recycle or worker.broken or worker.runs >= self._max_runs:
            worker = self._replace(worker)
        self._idle.put(worker)

    def _run(self, request: Message, limits: Limits) -> Message | _WorkerLostError:
        worker = self._acquire()
        recycle = True
        try:
            reply = worker.request(request, limits.timeout_s + GRACE_S)
            recycle = reply.get("clean") is False or reply.get("unusual") is True
            if "error" in reply:
                return _WorkerLostError(f"sandbox worker error: {optional_str(reply, 'error')}")
            return reply
        except _WorkerLostError as exc:
            return exc
        finally:
            self._release(worker, recycle)

    # -- public API -------------------------------------------------------------------------

    @property
    def isolation(self) -> Isolation:
        """The isolation level of this pool's workers."""
        return self._level

    @property
    def report(self) -> IsolationReport:
        """Details of the isolation, as found when the first worker started."""
        return self._report

    @property
    def stats(self) -> PoolStats:
        """Workers started and recycled, and runs completed, so far."""
        with self._lock:
            return PoolStats(started=self._started, recycled=self._recycled, runs=self._runs)

    @contextlib.contextmanager
    def call_session(
        self,
        files: Mapping[str, str | bytes] | None,
        module_source: str,
        limits: Limits | None = None,
    ) -> Iterator[CallSession]:
        """Load ``module_source`` as ``solution`` (file ``solution.py``) next to ``files``.

        The session holds one worker until the ``with`` block ends. Loading is limited like a
        call; its outcome is ``session.load``.

        Raises:
            ConfigError: a file name is not a plain relative path.
            SandboxUnavailableError: no worker can be started.
        """
        limits = limits or self.limits
        request: Message = {
            "op": "open",
            "files": encoded_files(files, "files"),
            "source": module_source,
            "limits": limits.to_wire(),
        }
        worker = self._acquire()
        path = os.path.join(worker.plan.scratch_root, "work", "solution.py")
        code = self._compiled(module_source, path)
        if code is not None:  # the child loads it instead of compiling (_inside/compiled.py)
            request["code"], request["code_tag"] = code, code_tag(path)
        try:
            worker.send(request, limits.timeout_s + GRACE_S)
        except _WorkerLostError:
            self._release(worker, recycle=True)
            raise SandboxUnavailableError("the sandbox worker was lost before the run") from None
        session = CallSession(worker, limits, self._release)
        try:
            yield session
        finally:
            session.close()

    def _compiled(self, source: str, path: str) -> bytes | None:
        """``source`` compiled as the run child would, as ``marshal`` data; ``None`` when it
        does not compile or warns (the child then compiles it and reports why, or writes the
        warning to its stderr, as before), and for a source whose compiling could be costly:
        longer than :data:`PRECOMPILE_MAX_CHARS`, or that took more than
        :data:`PRECOMPILE_MAX_S` here. The child then compiles it under its own time and CPU
        limits, as before: a module slow to compile still fails its load on the per-call
        limit, and what the worker spends on it stays bounded (compile time grows faster than
        the source for some shapes: 1,024 nested ``lambda:`` in 8 KB take ~0.1 s). The last
        module is kept: a session re-opened for the same answer (after a timeout, for a batch)
        reuses it.
        """
        with self._lock:
            if self._last_compiled[0] == (source, path):
                return self._last_compiled[1]
        code: bytes | None = None
        if len(source) <= PRECOMPILE_MAX_CHARS:
            try:
                with _COMPILING, warnings.catch_warnings(record=True) as warned:
                    warnings.simplefilter("always")
                    started = time.thread_time()
                    compiled = compile(source, path, "exec", dont_inherit=True)
                    took = time.thread_time() - started
                # a warning: the child writes it; slow to compile: the child's limits bound it
                if not warned and took <= PRECOMPILE_MAX_S:
                    code = marshal.dumps(compiled)
            except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError, OverflowError):
                code = None
        with self._lock:
            self._last_compiled = ((source, path), code)
        return code

    def run_program(
        self, source: str, stdin: str | bytes = "", limits: Limits | None = None
    ) -> ProgramOutcome:
        """Run ``source`` as a script (``__main__``) reading ``stdin`` (competitive programming).

        The script runs in a forked child of the warm zygote, not a fresh interpreter.
        """
        limits = limits or self.limits
        data = stdin.encode("utf-8", "surrogatepass") if isinstance(stdin, str) else bytes(stdin)
        request: Message = {
            "op": "program", "source": source, "stdin": data, "limits": limits.to_wire(),
        }  # fmt: skip
        reply = self._run(request, limits)
        if isinstance(reply, _WorkerLostError):
            return ProgramOutcome.lost(reply.reason, reply.timed_out)
        status, timed_out, exit_code, signal_number = program_status(reply)
        return ProgramOutcome(
            status=status,
            exit_code=exit_code,
            signal=signal_number,
            timed_out=timed_out,
            usage=usage(reply),
            **outputs(reply),  # type: ignore[arg-type]
        )

    def run_command(
        self,
        argv: Sequence[str],
        files: Mapping[str, str | bytes] | None = None,
        readonly_files: Mapping[str, str | bytes] | None = None,
        *,
        limits: Limits | None = None,
        collect: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        stdin: str | bytes = b"",
    ) -> CommandOutcome:
        """Run ``argv`` in a fresh scratch dir holding ``files``, then ``readonly_files``.

        ``readonly_files`` (tests) are written after ``files`` and win on a name clash; they
        are mode 0444 and, where the sandbox allows it (see :attr:`report`), read-only bind
        mounts that uid 0 inside cannot change, delete or rename. ``stdin`` is the command's
        standard input (a file outside the work dir, unlinked once opened). ``argv[0]`` of
        ``python`` or ``python3`` means the sandbox's interpreter. After the run the files named in
        ``collect`` are read back (regular files only, no symlinks followed).

        Example:
            ``pool.run_command(["python", "-I", "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "--junitxml=report.xml"], files={"solution.py": src},
            readonly_files={"test_solution.py": tests}, collect=["report.xml"])``
        """
        limits = limits or self.limits
        if not argv or any(not isinstance(arg, str) for arg in argv):
            raise ConfigError("argv must be a non-empty list of str")
        for name in collect:
            encoded_files({name: b""}, "collect")
        request: Message = {
            "op": "command",
            "argv": list(argv),
            "files": encoded_files(files, "files"),
            "readonly": encoded_files(readonly_files, "readonly_files"),
            "collect": list(collect),
            "env": dict(env or {}),
            "stdin": stdin.encode("utf-8", "surrogatepass") if isinstance(stdin, str) else stdin,
            "limits": limits.to_wire(),
        }
        reply = self._run(request, limits)
        if isinstance(reply, _WorkerLostError):
            return CommandOutcome.lost(reply.reason, reply.timed_out)
        status, timed_out, exit_code, signal_number = program_status(reply)
        raw = reply.get("collected")
        collected = (
            {k: v for k, v in raw.items() if type(k) is str and type(v) is bytes}
            if isinstance(raw, dict)
            else {}
        )
        cut = reply.get("collected_truncated")
        truncated = (
            frozenset(n for n in cut if type(n) is str) if isinstance(cut, list) else frozenset()
        )
        return CommandOutcome(
            status=status,
            exit_code=exit_code,
            signal=signal_number,
            timed_out=timed_out,
            usage=usage(reply),
            collected=collected,
            collected_truncated=truncated,
            **outputs(reply),  # type: ignore[arg-type]
        )

    def close(self) -> None:
        """Kill every worker (idle ones now, busy ones when their run ends).

        Also happens when the pool is garbage-collected; a context manager makes it prompt.
        """
        self._closed = True
        with self._lock:
            workers = list(self._all)
        while True:
            try:
                self._idle.get_nowait().kill()
            except queue.Empty:
                break
        for worker in workers:
            if worker.info is None:
                worker.kill()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _kill_workers(workers: set[Worker]) -> None:
    for worker in list(workers):
        worker.kill()
