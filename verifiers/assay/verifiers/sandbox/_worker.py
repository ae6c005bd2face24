"""The trusted side of one zygote: start it, exchange frames with deadlines, kill it."""

from __future__ import annotations

import contextlib
import marshal
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time

from ._errors import SandboxUnavailableError, _WorkerLostError
from ._inside import codec, framing
from ._launch import LaunchPlan
from ._seccomp import programs as seccomp_programs

__all__ = ["GRACE_S", "Message", "Worker", "request_bytes"]

Message = dict[str, codec.Data]
_STDERR_TAIL = 4000
GRACE_S = 10.0
"""Added to a run's timeout to wait for the zygote: its own kill-and-clean time, transfers."""
_CONFIG_FRAME_LIMIT = 1 << 20


REQUEST_MARSHAL_VERSION = 2
"""Requests go down to the zygote as ``marshal`` data (the zygote trusts only this process,
and decoding a request was a third of the zygote's Python); version 2 writes no back
references, so two equal values arrive as two objects, as the codec's did. Replies come up
in the codec (:mod:`._inside.codec`): the sandbox's bytes are decoded only by it."""


def request_bytes(message: Message) -> bytes:
    """A request as the zygote reads it (``marshal``).

    Raises:
        ValueError: a value ``marshal`` cannot write (callers check plain data before, with
            the codec, where the values come from tests).
    """
    return marshal.dumps(message, REQUEST_MARSHAL_VERSION)


class Worker:
    """A running zygote process and the pipes to it. Not thread-safe: one user at a time."""

    def __init__(self, plan: LaunchPlan, preload: tuple[str, ...], max_frame: int) -> None:
        self.plan = plan
        self.max_frame = max_frame
        self.runs = 0
        self.owed = 0
        self.broken = False
        self._killed = False
        self.info: Message | None = None
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in kill()
        try:
            self._process = self._launch(plan)
        except OSError as exc:
            self._stderr.close()
            self._remove_directories()
            raise SandboxUnavailableError(f"{plan.level} sandbox cannot start: {exc}") from None
        if self._process.stdin is None or self._process.stdout is None:  # pragma: no cover
            raise SandboxUnavailableError("no pipes to the zygote")
        self._in = self._process.stdin.fileno()
        self._out = self._process.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._frames = framing.FrameBuffer(max_frame)
        self._read_selector = selectors.DefaultSelector()
        self._read_selector.register(self._out, selectors.EVENT_READ)
        config: Message = {
            "python": plan.python,
            "path_env": plan.path_env,
            "scratch_root": plan.scratch_root,
            "scratch_tmpfs_bytes": plan.scratch_tmpfs_bytes,
            "extra_wipe": list(plan.extra_wipe),
            "isolated": plan.isolated,
            "readonly_host": plan.readonly_host,
            "preload": list(preload),
            "max_frame": max_frame,
        }
        compiled = seccomp_programs()
        if compiled is not None:
            config["seccomp_zygote"] = compiled.zygote
            config["seccomp_run"] = compiled.run
        self._pending_config: bytes | None = framing.pack_frame(codec.encode(config))

    def _launch(self, plan: LaunchPlan) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            plan.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            cwd="/",
            start_new_session=True,
            close_fds=True,
        )

    def stderr_tail(self) -> str:
        """The end of what the zygote (or bwrap) wrote to stderr, for error messages."""
        with contextlib.suppress(OSError, ValueError):
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - _STDERR_TAIL))
            return self._stderr.read().decode("utf-8", "replace").strip()
        return ""

    def wait_ready(self, timeout: float) -> Message:
        """Send the configuration and wait for the zygote's ready message.

        Raises:
            SandboxUnavailableError: it exited or did not answer in time.
        """
        if self.info is not None:
            return self.info
        deadline = time.monotonic() + timeout
        try:
            if self._pending_config is not None:
                self._write(self._pending_config, deadline)
                self._pending_config = None
            info = self._read(deadline)
        except _WorkerLostError as exc:
            self.kill()
            tail = self.stderr_tail()
            raise SandboxUnavailableError(
                f"{self.plan.level} sandbox did not start: {exc.reason}"
                + (f"; stderr: {tail}" if tail else "")
            ) from None
        if info.get("ready") is not True:
            self.kill()
            raise SandboxUnavailableError(f"{self.plan.level} sandbox sent {info!r}, not ready")
        self.info = info
        return info

    def send(self, message: Message | bytes, timeout: float) -> None:
        """Send one request (or one already encoded by :func:`request_bytes`) without waiting
        for its reply.

        Raises:
            _WorkerLostError: the zygote is gone or not reading; the worker is marked broken.
        """
        try:
            encoded = message if isinstance(message, bytes) else request_bytes(message)
        except ValueError as exc:
            raise _WorkerLostError(f"request not encodable: {exc}") from None
        if len(encoded) > self.max_frame:
            raise _WorkerLostError(f"request of {len(encoded)} bytes is over the frame limit")
        frame = framing.pack_frame(encoded)
        try:
            self._write(frame, time.monotonic() + timeout)
        except _WorkerLostError:
            self.broken = True
            raise

    def receive(self, timeout: float) -> Message:
        """Read the reply to the oldest request not yet answered.

        Raises:
            _WorkerLostError: the zygote died, hung past ``timeout``, or broke the protocol;
                the worker is marked broken and must be replaced.
        """
        try:
            return self._read(time.monotonic() + timeout)
        except _WorkerLostError:
            self.broken = True
            raise

    def request(self, message: Message | bytes, timeout: float) -> Message:
        """Send one request and return its reply (after any replies still owed)."""
        if self.owed and not self.settle(timeout):
            raise _WorkerLostError("the previous run did not end cleanly")
        self.send(message, timeout)
        return self.receive(timeout)

    def post(self, message: Message, timeout: float) -> None:
        """Send a request whose reply :meth:`settle` will read and check later."""
        self.send(message, timeout)
        self.owed += 1

    def settle(self, timeout: float) -> bool:
        """Read the replies owed to :meth:`post`; ``False`` if the worker must be replaced."""
        healthy = True
        while self.owed:
            self.owed -= 1
            try:
                reply = self.receive(timeout)
            except _WorkerLostError:
                return False
            if reply.get("clean") is False or "error" in reply or reply.get("unusual") is True:
                healthy = False
        if not healthy:
            self.broken = True
        return healthy

    def _wait(self, descriptor: int, event: int, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _WorkerLostError("the sandbox worker did not answer in time", timed_out=True)
        if descriptor == self._out and event == selectors.EVENT_READ:
            self._read_selector.select(remaining)
            return
        with selectors.DefaultSelector() as selector:
            selector.register(descriptor, event)
            selector.select(remaining)

    def _write(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._in, view) :]
            except BlockingIOError:
                self._wait(self._in, selectors.EVENT_WRITE, deadline)
            except OSError as exc:
                raise _WorkerLostError(f"the sandbox worker is gone ({exc.strerror})") from None

    def _read(self, deadline: float) -> Message:
        while not self._frames.ready():
            try:
                chunk = os.read(self._out, 1 << 20)
            except BlockingIOError:
                self._wait(self._out, selectors.EVENT_READ, deadline)
                continue
            if not chunk:
                raise _WorkerLostError(f"the sandbox worker exited ({self._exit_description()})")
            try:
                self._frames.feed(chunk)
            except framing.FrameError as exc:
                raise _WorkerLostError(f"protocol violation: {exc}") from None
        try:
            reply = codec.decode(self._frames.pop() or b"")
        except codec.DecodeError as exc:
            raise _WorkerLostError(f"protocol violation: {exc}") from None
        if not isinstance(reply, dict) or any(type(key) is not str for key in reply):
            raise _WorkerLostError("protocol violation: reply is not a message")
        return reply

    def _exit_description(self) -> str:
        try:
            code = self._process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "still running"
        return f"signal {-code}" if code < 0 else f"exit code {code}"

    def alive(self) -> bool:
        """Whether the zygote process is still running."""
        return self._process.poll() is None

    def kill(self) -> None:
        """Kill the zygote and its whole sandbox; release pipes and the scratch directory."""
        self.broken = True
        if self._killed:
            return
        self._killed = True
        if self._process.poll() is None:  # never signal a reaped (maybe reused) pid
            with contextlib.suppress(OSError):
                os.killpg(self._process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self._process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=5.0)
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._stderr.close()
        self._read_selector.close()
        self._remove_directories()

    def _remove_directories(self) -> None:
        for directory in (self.plan.host_scratch, *self.plan.cleanup_dirs):
            if directory is not None:
                shutil.rmtree(directory, ignore_errors=True)
