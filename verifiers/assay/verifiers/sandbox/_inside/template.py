"""The template: a pristine copy of the zygote that only forks run children.

The zygote (the manager) forks the template once, right after importing the runtime. From then
on the template forks every spare child, so:

* the manager never forks again, and stops paying copy-on-write faults on its own memory
  (its pages stop being shared after the first write), which makes each run cheaper;
* a run child is a copy of the template, which never held any request: no leftovers of
  earlier runs (sources, inputs, files) are in a child's memory.

The template is the parent of the run children, so it reaps them and reports the exit status
and resource use to the manager.

The template installs the run seccomp filter on itself as it starts, so every spare child has
it from birth (once per template instead of once per child). Each spare child, before anything
else, moves into a fresh IPC namespace (SysV shared memory, semaphores and message queues,
POSIX message queues: whatever a run creates there dies with the run's last process, so the
next run on this worker sees none of it; the filter lets exactly that ``unshare`` through),
then confines itself (:func:`.child.prepare_spare`: among the rest, it drops every
capability, after which the kernel refuses even that ``unshare``).

Messages on its SOCK_SEQPACKET socket:

``F`` + 4 descriptors (stdin, stdout, stderr, control) -> ``>q`` pid of the new spare child
``W`` + ``>q`` pid -> ``>qqdq`` found (0/1), wait status, CPU seconds, peak RSS in KiB
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import struct
from typing import NoReturn

from . import child, privileges

__all__ = ["SpareSetup", "Template"]

_PID = struct.Struct(">q")
_REAPED = struct.Struct(">qqdq")
_TIMEOUT_S = 5.0


class SpareSetup:
    """How each spare child is confined beyond :func:`.child.prepare_spare`.

    Attributes:
        fresh_ipc: Put each run in a new IPC namespace (required where the zygote is
            namespace init; elsewhere, at the ``none`` level, tried and skipped if refused).
        run_filter: The run seccomp filter, which the template installs on itself.
        run_env: The environment of every run that asks for no other (``env`` ``None`` in
            its go message): the template sets it on itself once, so each spare inherits
            it and sets nothing (rewriting ``os.environ`` cost each child ~90 page faults).
    """

    def __init__(
        self,
        fresh_ipc: bool,
        run_filter: privileges.SeccompProgram | None,
        run_env: dict[str, str] | None = None,
    ) -> None:
        self.fresh_ipc = fresh_ipc
        self.run_filter = run_filter
        self.run_env = run_env


def _serve(
    sock: socket.socket, namespace_init: bool, max_frame: int, setup: SpareSetup
) -> NoReturn:
    try:
        if setup.run_env is not None:
            os.environ.clear()
            os.environ.update(setup.run_env)
        if setup.run_filter is not None:  # inherited by every spare child it forks
            setup.run_filter.install()
        while True:
            message, descriptors, _, _ = socket.recv_fds(sock, 64, 4)
            if not message:
                break
            if message[:1] == b"F" and len(descriptors) == 4:
                pid = os.fork()
                if pid == 0:
                    _become_spare(descriptors, namespace_init, max_frame, setup)
                sock.send(_PID.pack(pid))
            elif message[:1] == b"W" and len(message) == 1 + _PID.size:
                sock.send(_reap(_PID.unpack_from(message, 1)[0]))
            for descriptor in descriptors:
                os.close(descriptor)
    except BaseException:  # the manager sees the socket close and starts another
        pass
    finally:
        os._exit(0)


def _become_spare(
    descriptors: list[int], namespace_init: bool, max_frame: int, setup: SpareSetup
) -> NoReturn:
    try:
        stdin, stdout, stderr, control = descriptors
        if setup.fresh_ipc:
            try:
                privileges.unshare(privileges.CLONE_NEWIPC)
            except OSError:
                if namespace_init:  # isolated levels must have it: refuse to run without
                    raise
        child.prepare_spare((stdin, stdout, stderr), control, namespace_init)
        child.spare_main(max_frame)
    except BaseException as exc:
        with contextlib.suppress(BaseException):
            os.write(2, f"sandbox setup failed: {exc!r}\n".encode())
    finally:
        os._exit(126)


def _reap(pid: int) -> bytes:
    try:
        _, status, usage = os.wait4(pid, 0)
    except ChildProcessError:
        return _REAPED.pack(0, 0, 0.0, 0)
    return _REAPED.pack(1, status, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


class Template:
    """The manager's handle on its template process."""

    def __init__(
        self, namespace_init: bool, max_frame: int, setup: SpareSetup | None = None
    ) -> None:
        self._namespace_init = namespace_init
        self._max_frame = max_frame
        self._setup = setup or SpareSetup(fresh_ipc=False, run_filter=None)
        self.pid = 0
        self._sock: socket.socket | None = None
        self._fork_pending = False
        self._forked: int | None = None
        self.start()

    def start(self) -> None:
        """(Re)start the template process."""
        self.stop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            ours.close()
            _serve(theirs, self._namespace_init, self._max_frame, self._setup)
        theirs.close()
        ours.settimeout(_TIMEOUT_S)
        self.pid, self._sock = pid, ours
        self._fork_pending, self._forked = False, None

    def stop(self) -> None:
        """Kill and reap the template, if any."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self.pid:
            with contextlib.suppress(OSError):
                os.kill(self.pid, 9)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0

    def _collect_fork(self) -> None:
        """Read the reply to a fork begun with :meth:`begin_fork`, if one is outstanding."""
        if self._fork_pending and self._sock is not None:
            self._fork_pending = False
            reply = self._sock.recv(64)
            if len(reply) != _PID.size:
                raise OSError("template closed its socket")
            self._forked = int(_PID.unpack(reply)[0])

    def begin_fork(self, stdio: tuple[int, int, int], control: int) -> bool:
        """Ask for a spare child without waiting (see :meth:`end_fork`); ``False`` if refused."""
        try:
            self._collect_fork()
            if self._sock is None:
                return False
            os.kill(self.pid, signal.SIGCONT)
            socket.send_fds(self._sock, [b"F"], [*stdio, control])
        except OSError:
            self.start()
            return False
        self._fork_pending = True
        return True

    def end_fork(self) -> int | None:
        """The pid of the child asked for by :meth:`begin_fork` (``None`` if it failed)."""
        try:
            self._collect_fork()
        except OSError:
            self.start()
            return None
        pid, self._forked = self._forked, None
        return pid

    def _ask(self, message: bytes, descriptors: list[int], reply_size: int) -> bytes:
        for attempt in range(2):
            sock = self._sock
            try:
                self._collect_fork()
                if sock is None:
                    raise OSError("no template")
                os.kill(self.pid, signal.SIGCONT)  # candidate code may have stopped it
                socket.send_fds(sock, [message], descriptors)
                reply = sock.recv(64)
                if len(reply) == reply_size:
                    return reply
                raise OSError("template closed its socket")
            except OSError:  # gone, stopped or killed by candidate code: start another
                if attempt:
                    raise
                self.start()
        raise OSError("unreachable")

    def fork(self, stdio: tuple[int, int, int], control: int) -> int:
        """Fork a spare child with these descriptors; return its pid."""
        return int(_PID.unpack(self._ask(b"F", [*stdio, control], _PID.size))[0])

    def reap(self, pid: int) -> tuple[int, float, int] | None:
        """Wait for the template's child ``pid``: (wait status, CPU seconds, peak RSS KiB)."""
        try:
            found, status, cpu, max_rss = _REAPED.unpack(
                self._ask(b"W" + _PID.pack(pid), [], _REAPED.size)
            )
        except OSError:
            return None
        return (int(status), float(cpu), int(max_rss)) if found else None
