"""The zygote's view of one run child: its pipes, output caps, exit status and resource use."""

from __future__ import annotations

import contextlib
import errno
import os
import selectors
import signal
import socket
import time
from collections.abc import Callable

from . import framing, privileges

__all__ = [
    "Capture",
    "RunChild",
    "ipc_bytes",
    "kill_all_others",
    "proc_cpu_seconds",
    "proc_peak_rss",
    "run_memory",
    "tmpfs_used",
]

_CHUNK = 1 << 16
_MEMORY_POLL_S = 0.1
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class Capture:
    """Keep the first (or, with ``tail``, the last) ``limit`` bytes of a stream; count the rest.

    Memory stays bounded by about twice ``limit`` whatever the writer floods.
    """

    def __init__(self, limit: int, tail: bool = False) -> None:
        self.limit = limit
        self.tail = tail
        self.data = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        """Account for ``chunk``, keeping what the cap allows."""
        self.total += len(chunk)
        if self.tail:
            self.data += chunk[-self.limit :] if self.limit else b""
            if len(self.data) > 2 * self.limit:
                del self.data[: len(self.data) - self.limit]
            return
        room = self.limit - len(self.data)
        if room > 0:
            self.data += chunk[:room]

    def take(self) -> tuple[bytes, int]:
        """Return what was kept and the total seen, and start over."""
        kept = self.data[-self.limit :] if self.limit else b""
        result = bytes(kept), self.total
        self.data = bytearray()
        self.total = 0
        return result


class RunChild:
    """A forked child with stdout, stderr and an optional control socket to supervise."""

    def __init__(
        self,
        pid: int,
        *,
        stdout_fd: int,
        stderr_fd: int,
        control: socket.socket | None,
        output_limit: int,
        max_frame: int,
        reaper: Callable[[int], tuple[int, float, int] | None] | None = None,
    ) -> None:
        self.pid = pid
        self.pidfd = os.pidfd_open(pid)
        self.control = control
        self.captures = {
            stdout_fd: Capture(output_limit),
            stderr_fd: Capture(output_limit, tail=True),
        }
        self.stdout_fd = stdout_fd
        self.stderr_fd = stderr_fd
        self.frames = framing.FrameBuffer(max_frame)
        self.control_open = control is not None
        self.wait_status: int | None = None
        self.cpu_s: float | None = None
        self.max_rss_bytes = 0
        self._reaper = reaper
        self.ipc_fd: int | None = None  # the run's own IPC namespace, for the memory cap
        self._selector = selectors.DefaultSelector()
        for descriptor in (stdout_fd, stderr_fd):
            os.set_blocking(descriptor, False)
            self._selector.register(descriptor, selectors.EVENT_READ)
        self._selector.register(self.pidfd, selectors.EVENT_READ)
        if control is not None:
            control.setblocking(False)
            self._selector.register(control.fileno(), selectors.EVENT_READ)

    def set_output_limit(self, limit: int) -> None:
        """Set how many bytes of stdout and of stderr to keep (before the run starts)."""
        for capture in self.captures.values():
            capture.limit = limit

    @property
    def exited(self) -> bool:
        """Whether the child has been reaped."""
        return self.wait_status is not None

    def _read_output(self, descriptor: int) -> None:
        try:
            chunk = os.read(descriptor, _CHUNK)
        except BlockingIOError:
            return
        if chunk:
            self.captures[descriptor].add(chunk)
        else:
            self._selector.unregister(descriptor)

    def _read_control(self) -> None:
        if self.control is None:
            return
        try:
            chunk = self.control.recv(_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if chunk:
            self.frames.feed(chunk)
        else:
            self.control_open = False
            self._selector.unregister(self.control.fileno())

    def _reap(self) -> None:
        """Collect the exit status and resource use, from the parent (us or the template)."""
        if self.wait_status is not None:
            return
        try:
            pid, status, usage = os.wait4(self.pid, os.WNOHANG)
        except ChildProcessError:  # a child of the template
            reaped = self._reaper(self.pid) if self._reaper is not None else None
            if reaped is None:  # the template died: the zombie is ours now, or it is lost
                with contextlib.suppress(ChildProcessError):
                    pid, status, usage = os.wait4(self.pid, os.WNOHANG)
                    if pid == self.pid:
                        reaped = (status, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
            # unknown status: report it as killed, never as a clean exit
            pid, status = self.pid, reaped[0] if reaped else signal.SIGKILL
            if reaped is not None:
                self.cpu_s, self.max_rss_bytes = reaped[1], reaped[2] * 1024
        else:
            if pid == self.pid:
                self.cpu_s = usage.ru_utime + usage.ru_stime
                self.max_rss_bytes = usage.ru_maxrss * 1024
        if pid == self.pid:
            self.wait_status = status
            self._selector.unregister(self.pidfd)

    def _drain(self) -> None:
        """Read whatever is ready right now on every stream, without waiting."""
        for key, _ in self._selector.select(0):
            self._handle(key.fd)

    def _handle(self, descriptor: int) -> None:
        if descriptor == self.pidfd:
            self._reap()
        elif self.control is not None and descriptor == self.control.fileno():
            self._read_control()
        else:
            self._read_output(descriptor)

    def pump(
        self, deadline: float, want_frame: bool, over_memory: Callable[[], bool] | None = None
    ) -> str:
        """Move output along until a control frame arrives, the child exits, or time is up.

        Returns ``"frame"`` (take it with :meth:`next_frame`), ``"exit"``, ``"timeout"``, or
        ``"memory"`` when ``over_memory`` (polled every 0.1 s of a run) says so.
        Raises :class:`framing.FrameError` if the child sends an oversized frame.
        """
        next_check = time.monotonic() + _MEMORY_POLL_S
        while True:
            if over_memory is not None and time.monotonic() >= next_check:
                if over_memory():
                    return "memory"
                next_check = time.monotonic() + _MEMORY_POLL_S
            if want_frame and self.frames.ready():
                self._drain()
                return "frame"
            if self.exited:
                for _ in range(64):  # what was written before exit is already in the pipes
                    self._drain()
                if want_frame and self.frames.ready():
                    return "frame"
                return "exit"
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            for key, _ in self._selector.select(min(remaining, _MEMORY_POLL_S)):
                self._handle(key.fd)

    def next_frame(self) -> bytes | None:
        """The next complete control frame, if any."""
        return self.frames.pop()

    def send(self, payload: bytes) -> bool:
        """Send a control frame; ``False`` if the child is gone or not reading."""
        if self.control is None or not self.control_open:
            return False
        data = memoryview(framing.pack_frame(payload))
        deadline = time.monotonic() + 5.0
        while data:
            try:
                data = data[self.control.send(data) :]
            except BlockingIOError:
                if time.monotonic() > deadline or self.exited:
                    return False
                time.sleep(0.001)
            except OSError:
                return False
        return True

    def kill(self) -> None:
        """SIGKILL the child (through its pidfd, so never a recycled pid) and its process group."""
        if not self.exited:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError as exc:
            if exc.errno not in (errno.ESRCH, errno.EPERM):
                raise

    def wait_exit(self, timeout: float) -> bool:
        """Wait until the child is reaped; ``False`` if it is still there after ``timeout``."""
        deadline = time.monotonic() + timeout
        while not self.exited:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            for key, _ in self._selector.select(min(remaining, 0.5)):
                self._handle(key.fd)
        return True

    def close(self) -> None:
        """Release the zygote's ends of the child's pipes."""
        self._selector.close()
        for descriptor in (self.stdout_fd, self.stderr_fd, self.pidfd, self.ipc_fd):
            if descriptor is not None:
                with contextlib.suppress(OSError):
                    os.close(descriptor)
        self.ipc_fd = None
        if self.control is not None:
            self.control.close()


def _read_proc(path: str) -> bytes:
    descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(descriptor, 1 << 16)
    finally:
        os.close(descriptor)


def proc_cpu_seconds(pid: int) -> float:
    """User plus system CPU of ``pid`` and its reaped children, from /proc (0.0 if gone)."""
    try:
        fields = _read_proc(f"/proc/{pid}/stat").rsplit(b")", 1)[1].split()
        return sum(int(field) for field in fields[11:15]) / _CLOCK_TICKS
    except (OSError, IndexError, ValueError):
        return 0.0


def proc_peak_rss(pid: int) -> int:
    """Peak resident set size of ``pid`` in bytes, from /proc (0 if gone)."""
    try:
        status = _read_proc(f"/proc/{pid}/status")
        start = status.index(b"VmHWM:")
        return int(status[start + 6 : status.index(b"kB", start)]) * 1024
    except (OSError, ValueError):
        return 0


def _memory_of(pid: int) -> int:
    """Proportional set size (shared pages split among sharers), else resident set size."""
    try:
        rollup = _read_proc(f"/proc/{pid}/smaps_rollup")
        start = rollup.index(b"\nPss:") + 5
        return int(rollup[start : rollup.index(b"kB", start)]) * 1024
    except (OSError, ValueError):
        pass
    try:
        return int(_read_proc(f"/proc/{pid}/statm").split()[1]) * _PAGE_SIZE
    except (OSError, ValueError, IndexError):
        return 0


def _memfd_bytes(pids: list[int]) -> int:
    """Bytes held in the memfds (and other deleted in-memory files) the processes hold open.

    A memfd written with ``write`` is in no process's address space, so neither RLIMIT_AS nor
    the proportional set size sees it; each distinct file counts once.
    """
    seen: set[tuple[int, int]] = set()
    total = 0
    for pid in pids:
        directory = f"/proc/{pid}/fd"
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            path = f"{directory}/{name}"
            try:
                if not os.readlink(path).startswith("/memfd:"):
                    continue
                info = os.stat(path)
            except OSError:
                continue
            if (info.st_dev, info.st_ino) not in seen:
                seen.add((info.st_dev, info.st_ino))
                total += info.st_blocks * 512
    return total


def run_memory(namespace_init: bool, keep: int) -> int:
    """Memory used together by every process of the current run (all but zygote and ``keep``).

    Their proportional set sizes plus the memfds they hold. RLIMIT_AS bounds each process;
    this bounds a run that spreads over many processes or keeps memory outside its mappings.
    """
    pids = _others(namespace_init, keep)
    return sum(_memory_of(pid) for pid in pids) + _memfd_bytes(pids)


INODE_BYTES = 1024
"""Kernel memory an inode on tmpfs holds (inode and directory entry, ~1 KB measured): an empty
file has no blocks, so 150,000 of them passed a 64 MB cap uncounted."""


def tmpfs_used(paths: list[str]) -> int:
    """Bytes in use on these (tmpfs) mounts: files there, open or deleted, are memory, their
    blocks and their inodes (:data:`INODE_BYTES` each)."""
    total = 0
    for path in paths:
        try:
            info = os.statvfs(path)
        except OSError:
            continue
        total += (info.f_blocks - info.f_bfree) * info.f_frsize
        total += max(0, info.f_files - info.f_ffree) * INODE_BYTES
    return total


def _sysvipc_column(path: str, names: tuple[str, ...]) -> int:
    """The sum of the first of ``names`` that is a column of a /proc/sysvipc table."""
    try:
        with open(path, "rb") as table:
            lines = table.read(64 << 20).splitlines()
    except OSError:
        return 0
    if not lines:
        return 0
    header = lines[0].split()
    column = next((header.index(n.encode()) for n in names if n.encode() in header), None)
    if column is None:
        return 0
    total = 0
    for line in lines[1:]:
        fields = line.split()
        if len(fields) == len(header):
            with contextlib.suppress(ValueError):
                total += int(fields[column])
    return total


def ipc_bytes(run_ns: int, own_ns: int) -> int:
    """SysV shared memory (resident) and queued message bytes of the run's IPC namespace.

    Segments and queues outlive the process that filled them, outside every process's
    memory; /proc/sysvipc shows the namespace of the reader, so the zygote visits the run's
    namespace for the read and comes straight back.
    """
    try:
        privileges.setns(run_ns, privileges.CLONE_NEWIPC)
    except OSError:
        return 0
    try:
        shm = _sysvipc_column("/proc/sysvipc/shm", ("rss", "size"))
        shm += _sysvipc_column("/proc/sysvipc/shm", ("swap",))
        messages = _sysvipc_column("/proc/sysvipc/msg", ("cbytes",))
    finally:
        privileges.setns(own_ns, privileges.CLONE_NEWIPC)
    return shm + messages


def _all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat_file:
            return int(stat_file.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid in _all_pids():
        parent = _parent_of(pid)
        if parent is not None:
            children.setdefault(parent, []).append(pid)
    found: list[int] = []
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def _reap_all() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _others(namespace_init: bool, keep: int) -> list[int]:
    me = os.getpid()
    found = _all_pids() if namespace_init else _descendants(me)
    return [pid for pid in found if pid not in (me, keep)]


def kill_all_others(namespace_init: bool, keep: int, timeout: float) -> tuple[bool, bool]:
    """SIGKILL every process but this one and ``keep`` (the template); reap them.

    As init of its own PID namespace the zygote sees exactly the sandbox's processes in
    /proc; outside one it kills its own descendants (orphans reparent to it, a subreaper).
    It scans, kills and reaps until a scan finds nothing. If processes keep appearing (a fork
    bomb racing the scans), init uses ``kill(-1, SIGKILL)``, which the kernel applies to every
    other process of the namespace under one lock, ``keep`` included.

    Returns whether no process is left, and whether ``keep`` was killed too.
    """
    deadline = time.monotonic() + timeout
    rounds = 0
    kept = True
    while True:
        _reap_all()
        victims = _others(namespace_init, keep if kept else -1)
        if not victims:
            return True, not kept
        if time.monotonic() > deadline:
            return False, not kept
        rounds += 1
        if namespace_init and rounds > 3:
            os.kill(-1, signal.SIGKILL)
            kept = False
        else:
            for pid in victims:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        if rounds > 1:
            time.sleep(0.001)
