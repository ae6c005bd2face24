"""Who a failure belongs to: the response, or the verifier (docs/architecture.md, "Blame").

A limit that the *response* exceeds (its code loops or runs out of memory, its expression or
mesh is too costly to check, its answer is too large to compare) is the response's fault: an
``incorrect`` verdict, score 0, with a failed check naming the cause. Only what cannot be pinned
on the response (a worker that died for another reason, a library bug on ordinary input, an
unusable reference) is ``error`` / ``timeout``, which trainers mask. Masking a response's own
failure would let "hang when unsure" escape its negative reward.

Three tools, one rule:

- :class:`ResponseFault` / :func:`response_fault`: a verifier that *sees* the response exceed a
  limit raises the fault from any depth (or returns the verdict);
  :func:`assay.boundary.run_verifier` turns the exception into the verdict.
- :class:`response_owned`: a verifier *declares* the work it does on the response. While the
  declaration is open, the worker publishes it on its :class:`PhaseBoard` (a few bytes of memory
  shared with the parent, one write per entry and exit). When the parent's hard limit kills the
  worker, or the worker dies, during response-owned work, the parent reports the response's
  ``incorrect`` verdict instead of ``timeout`` / ``error``; inside the declaration a
  :class:`MemoryError`, :class:`RecursionError`, :class:`OverflowError` or an integer too long
  to convert to text becomes the same fault. So however the cost shows (time limit, memory cap,
  recursion limit), the verdict is the same.
- :class:`Budget`: work made of many steps (a trajectory's calls) checks one budget per item,
  below the item's hard limit, and raises the fault when the response spends it.

Time is the item's *own* time (:class:`ItemClock`): wall-clock seconds minus the seconds the
kernel kept the worker waiting for a CPU (``run_delay`` of ``/proc/<pid>/schedstat``), so a
loaded machine does not use up an item's limit faster than an idle one. The pool measures the
hard limit on the same clock, with a wall-clock backstop (``PoolConfig.wall_factor``).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import struct
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType

from assay.types import JSON, Check, Verdict

RESOURCES = "resources"
"""Check name: the response's program exceeded a time, memory, output or process limit."""

TOO_COSTLY = "too_costly"
"""Check name: checking the response would cost more than its budget (size, depth, time)."""


class ResponseFault(Exception):  # noqa: N818 - it is a verdict in flight, not an error
    """The response exceeded a limit; raised anywhere in a verifier, caught at the boundary.

    Attributes:
        check: Name of the failed check (:data:`RESOURCES`, :data:`TOO_COSTLY`, ...).
        message: One line naming the cause.
        evidence: JSON-able details (the limit, what was measured).
    """

    def __init__(
        self, check: str, message: str, evidence: Mapping[str, JSON] | None = None
    ) -> None:
        super().__init__(message)
        self.check = check
        self.message = message
        self.evidence = dict(evidence or {})

    def verdict(self) -> Verdict:
        return response_fault(self.check, self.message, self.evidence)


def response_fault(
    check: str,
    message: str,
    evidence: Mapping[str, JSON] | None = None,
    checks: tuple[Check, ...] = (),
) -> Verdict:
    """An ``incorrect`` verdict, score 0, with one failed check ``check`` naming the cause.

    ``checks``: the checks already done (they come first; e.g. a passed ``extraction``).
    """
    failed = Check(check, False, 0.0, message, dict(evidence or {}))
    return Verdict.incorrect((*checks, failed), message=message)


# --- the item's own clock ------------------------------------------------------------------

_SELF_SCHEDSTAT = "/proc/thread-self/schedstat"


def read_run_delay(fd: int | None = None) -> float | None:
    """Seconds a task has waited on a run queue (``schedstat`` field 2); None where unknown.

    ``fd``: an open descriptor of a ``schedstat`` file, read with ``pread`` (about 3 µs);
    by default this thread's own (opened once per process).
    """
    if fd is None:
        fd = _own_schedstat()
        if fd is None:
            return None
    try:
        raw = os.pread(fd, 128, 0)
        return int(raw.split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


_own_fd: tuple[int, int] | None = None  # (pid, fd): reopened after a fork


def _own_schedstat() -> int | None:
    global _own_fd
    pid = os.getpid()
    if _own_fd is None or _own_fd[0] != pid:
        try:
            _own_fd = (pid, os.open(_SELF_SCHEDSTAT, os.O_RDONLY | os.O_CLOEXEC))
        except OSError:
            _own_fd = (pid, -1)
    return None if _own_fd[1] < 0 else _own_fd[1]


class ItemClock:
    """Own time of one item: wall-clock seconds minus the time spent waiting for a CPU.

    Where ``schedstat`` is not available (not Linux) the clock is plain wall-clock time.

    Args:
        limit_s: The item's hard limit, or None (no limit: in-process scoring without one).
        run_delay: Reads the run-queue wait of the measured task (see :func:`read_run_delay`).
        lazy: Read the run-queue baseline at the first :meth:`used` instead of now (the
            worker's clock of every item: most items never ask). Waiting for a CPU before that
            first reading counts as own time, so a lazy clock errs towards spending a budget
            early, never late.
    """

    _UNREAD: float = -1.0

    def __init__(
        self,
        limit_s: float | None,
        run_delay: Callable[[], float | None] = read_run_delay,
        *,
        lazy: bool = False,
    ) -> None:
        self.limit_s = limit_s
        self._run_delay = run_delay
        self.started = time.monotonic()
        self._delay0: float | None = self._UNREAD if lazy else run_delay()

    def wall(self, now: float | None = None) -> float:
        """Wall-clock seconds since the item started."""
        return (time.monotonic() if now is None else now) - self.started

    def used(self, now: float | None = None) -> float:
        """Own seconds since the item started (never more than :meth:`wall`)."""
        wall = self.wall(now)
        if self._delay0 == self._UNREAD:
            self._delay0 = self._run_delay()
            return wall
        if self._delay0 is None:
            return wall
        delay = self._run_delay()
        if delay is None:
            return wall
        return max(0.0, wall - max(0.0, delay - self._delay0))


# --- the phase board: what the worker is doing, readable by its parent ---------------------

BOARD_SIZE = 256
_BOARD = struct.Struct("<qi32s200s")  # item seq, depth of open declarations, check, what


@dataclass(frozen=True, slots=True)
class Phase:
    """A response-owned declaration open in a worker: the item, the check, what it does."""

    seq: int
    check: str
    what: str


class PhaseBoard:
    """A page of memory shared by a worker and its parent (``memfd``, or an unlinked file).

    The parent creates it (:meth:`create`) and passes the descriptor to the worker, which
    attaches it (:meth:`attach`); the worker writes on every entry and exit of
    :class:`response_owned`, the parent reads it after killing (or burying) the worker, when no
    write can race the read.
    """

    def __init__(self, memory: mmap.mmap, fd: int | None = None) -> None:
        self._memory = memory
        self.fd = fd

    @classmethod
    def create(cls) -> PhaseBoard:
        """A fresh board; :attr:`fd` is the descriptor to hand to the worker, then close."""
        if hasattr(os, "memfd_create"):
            fd = os.memfd_create("assay-phase-board", 0)
        else:  # pragma: no cover - not Linux
            with tempfile.TemporaryFile() as handle:
                fd = os.dup(handle.fileno())
        os.ftruncate(fd, BOARD_SIZE)
        board = cls(mmap.mmap(fd, BOARD_SIZE), fd)
        board.write(-1, 0, "", "")
        return board

    @classmethod
    def attach(cls, fd: int) -> PhaseBoard:
        """The board whose descriptor the parent passed (the worker side)."""
        memory = mmap.mmap(fd, BOARD_SIZE)
        os.close(fd)
        return cls(memory)

    def close_fd(self) -> None:
        """Close the descriptor once the worker holds its own (the mapping stays)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def write(self, seq: int, depth: int, check: str, what: str) -> None:
        _BOARD.pack_into(
            self._memory,
            0,
            seq,
            depth,
            check.encode("utf-8", "replace")[:32],
            what.encode("utf-8", "replace")[:200],
        )

    def read(self) -> Phase | None:
        """The open declaration, or None when the worker was doing verifier-owned work."""
        seq, depth, check, what = _BOARD.unpack_from(self._memory, 0)
        if depth <= 0:
            return None
        return Phase(
            seq,
            check.rstrip(b"\0").decode("utf-8", "replace"),
            what.rstrip(b"\0").decode("utf-8", "replace"),
        )

    def close(self) -> None:
        self.close_fd()
        with contextlib.suppress(BufferError, ValueError):
            self._memory.close()


class _State:
    """This process's item and open declarations (one verifier call at a time)."""

    def __init__(self) -> None:
        self.board: PhaseBoard | None = None
        self.seq = -1
        self.clock: ItemClock | None = None
        self.stack: list[tuple[str, str]] = []
        self.published = 0  # depth on the board

    def publish(self) -> None:
        if self.board is None or (not self.stack and not self.published):
            return  # the board already says "no declaration": nothing to write
        if self.stack:
            check, what = self.stack[-1]
            self.board.write(self.seq, len(self.stack), check, what)
        else:
            self.board.write(self.seq, 0, "", "")
        self.published = len(self.stack)


_state = _State()


def install_board(board: PhaseBoard | None) -> None:
    """Publish this process's declarations on ``board`` (called once by a pool worker)."""
    _state.board = board
    _state.published = 1  # force one write: the board starts in a known state
    _state.publish()


ItemState = tuple[int, "ItemClock | None", list[tuple[str, str]]]
"""What :func:`begin_item` saves and :func:`end_item` restores."""


def begin_item(seq: int, limit_s: float | None) -> ItemState:
    """Start the clock and the declarations of one item (:func:`assay.boundary.run_verifier`).

    Returns what was running before, for :func:`end_item`. A nested call (a verifier that
    runs another one through ``run_verifier``) keeps the outer item's seq, clock and open
    declarations: the inner verifier's work is done for the outer item.
    """
    saved: ItemState = (_state.seq, _state.clock, list(_state.stack))
    if _state.clock is None:
        _state.seq = seq
        _state.clock = ItemClock(limit_s, lazy=True)
        _state.stack.clear()
        _state.publish()
    return saved


def end_item(saved: ItemState | None = None) -> None:
    """End the item begun by :func:`begin_item`, restoring ``saved`` (what it returned)."""
    seq, clock, stack = saved if saved is not None else (-1, None, [])
    _state.seq, _state.clock, _state.stack[:] = seq, clock, stack
    _state.publish()


def current_phase() -> Phase | None:
    """The innermost open declaration of this process, or None."""
    if not _state.stack:
        return None
    check, what = _state.stack[-1]
    return Phase(_state.seq, check, what)


def time_used() -> float | None:
    """Own seconds the current item has used, or None outside an item."""
    return None if _state.clock is None else _state.clock.used()


def item_limit() -> float | None:
    """The current item's hard limit in seconds, or None (no item, or no limit)."""
    return None if _state.clock is None else _state.clock.limit_s


def time_left(share: float | None = None) -> float | None:
    """Own seconds left of the current item's budget (``share`` of its limit, default
    :data:`BUDGET_SHARE`), or None without a limit.

    A tool or step that runs something with a time limit of its own (a command, a solver)
    passes at most this, so many steps never multiply a per-step limit past the item's.
    """
    clock = _state.clock
    if clock is None or clock.limit_s is None:
        return None
    fraction = BUDGET_SHARE if share is None else share
    return max(0.0, fraction * clock.limit_s - clock.used())


_INT_TEXT_LIMIT = "integer string conversion"
"""What CPython's ValueError says when an int is too long to convert to or from text."""


def exhaustion(exc: BaseException) -> str | None:
    """Why ``exc`` means a value or a computation grew past a limit, or None when it does not.

    Example:
        >>> exhaustion(RecursionError()), exhaustion(ZeroDivisionError())
        ('the recursion limit was reached', None)
    """
    if isinstance(exc, MemoryError):
        return "ran out of memory (the worker's memory cap)"
    if isinstance(exc, RecursionError):
        return "the recursion limit was reached"
    if isinstance(exc, OverflowError):
        return f"a value too large to represent ({exc})"
    if isinstance(exc, ValueError) and _INT_TEXT_LIMIT in str(exc):
        return "an integer too long to convert to text"
    return None


class response_owned:  # noqa: N801 - used as a context manager, like contextlib's
    """Declare the enclosed work as work on the response (see the module docstring).

    Inside the block:

    - a kill by the pool's hard limit, or a death of the worker (after its retries), gives the
      response's verdict: ``incorrect``, failed check ``check``, naming ``what``;
    - :func:`exhaustion` errors (memory, recursion, overflow, too long an integer) become a
      :class:`ResponseFault` with ``check``;
    - every other exception passes through unchanged: a bug stays a masked ``error``.

    Declarations nest; the innermost names the work. Open them from the thread that runs
    ``verify``. Cost: two writes of a shared page per block.

    Example:
        >>> with response_owned("comparing the answer"):
        ...     _ = 10 ** 20
        >>> try:
        ...     with response_owned("comparing the answer"):
        ...         float(10 ** 400)
        ... except ResponseFault as fault:
        ...     fault.check
        'too_costly'
    """

    def __init__(self, what: str, check: str = TOO_COSTLY) -> None:
        self.what = what
        self.check = check

    def __enter__(self) -> response_owned:
        _state.stack.append((self.check, self.what))
        _state.publish()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if _state.stack:
            _state.stack.pop()
        _state.publish()
        if exc is None or isinstance(exc, ResponseFault):
            return
        reason = exhaustion(exc)
        if reason is not None:
            exc.__traceback__ = None  # free the frames that hold what filled the memory
            raise ResponseFault(
                self.check,
                f"{self.what}: {reason}",
                {"limit": type(exc).__name__, "work": self.what},
            ) from None


BUDGET_SHARE = 0.8
"""Share of the item's hard limit a :class:`Budget` lets the response's work use."""


class Budget:
    """One checked budget for response-owned work made of many steps.

    :meth:`step` counts a step and raises :class:`ResponseFault` (``check``) once the work has
    taken more than ``max_steps`` steps, or the item has used more than ``share`` of its hard
    limit (own time, :class:`ItemClock`), so a trajectory of many steps spends one budget
    instead of a per-step limit multiplied past the item's limit. Without an item limit (in
    process, no limit), only the step count is checked.

    Example:
        >>> budget = Budget("replaying the calls", max_steps=2)
        >>> budget.step(); budget.step()
        >>> try:
        ...     budget.step()
        ... except ResponseFault as fault:
        ...     fault.evidence["max_steps"]
        2
    """

    def __init__(
        self,
        what: str,
        *,
        max_steps: int | None = None,
        share: float = BUDGET_SHARE,
        check: str = TOO_COSTLY,
    ) -> None:
        self.what = what
        self.max_steps = max_steps
        self.share = share
        self.check = check
        self.steps = 0

    def step(self, count: int = 1) -> None:
        self.steps += count
        if self.max_steps is not None and self.steps > self.max_steps:
            raise ResponseFault(
                self.check,
                f"{self.what}: more than {self.max_steps} steps",
                {"steps": self.steps, "max_steps": self.max_steps},
            )
        self.check_time()

    def check_time(self) -> None:
        """Raise when the item has used more than ``share`` of its limit."""
        clock = _state.clock
        if clock is None or clock.limit_s is None:
            return
        used = clock.used()
        allowed = self.share * clock.limit_s
        if used > allowed:
            raise ResponseFault(
                self.check,
                f"{self.what}: used {used:.3g} s of the item's {clock.limit_s:g} s limit "
                f"(budget {allowed:.3g} s)",
                {"seconds": round(used, 3), "budget_s": round(allowed, 3), "steps": self.steps},
            )
