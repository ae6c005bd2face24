"""The zygote: a warm Python inside the sandbox that runs each run in a fresh confined child.

The zygote (the manager, PID 1 of the sandbox under bubblewrap) imports the runtime once and
forks a :mod:`.template` process, which forks every run child; a spare child is forked ahead
of time, between runs, and confines itself while the zygote waits for the next request.

It reads length-prefixed frames from the trusted side on one descriptor (originally its
stdin): the configuration in the :mod:`.codec`, then requests as ``marshal`` data (only the
trusted side can write there, and the codec's decoding was a third of the zygote's Python),
and answers each with one :mod:`.codec` frame on the other (its stdout). Ops:

``open``     fork a child that loads candidate source as module ``solution``
``call``     forward a call to that child and relay its (still encoded) result
``close``    end the session: kill the child and everything else, wipe the scratch area
``program``  run source as ``__main__`` with given stdin, stdout/stderr capped
``command``  exec an argv in a scratch dir with candidate and read-only files, read files back
``ping``     health check

After every run it kills every other process it can see but the template (see
:func:`.monitor.kill_all_others`), reaps them, unmounts and wipes the scratch area, and says in
the reply whether that worked (``clean``); the trusted side recycles a zygote that is not
clean. Each run has its own IPC namespace (see :mod:`.template`), gone with its processes.

Once its mounts are set up the zygote installs the ``zygote`` seccomp filter on itself, and
the template stacks the stricter ``run`` filter on itself, so that every run child is born
with both (both compiled on the trusted side, see
``assay.verifiers.sandbox._seccomp``). The memory cap of a run counts its processes'
proportional set size, the memfds they hold, what they added to the sandbox's tmpfs mounts
(scratch, ``/dev/shm``) and the SysV shared memory and message bytes of their IPC namespace.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import importlib
import marshal
import math
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Mapping

from . import child, codec, compiled, framing, fsutil, monitor, privileges, template
from .scratch import Scratch

__all__ = ["main"]

Message = dict[str, codec.Data]
_KILL_GRACE_S = 2.0
_TOO_MUCH_MEMORY = "the run's processes together used more memory than the limit"


def _text(value: codec.Data, default: str = "") -> str:
    return value if type(value) is str else default


def _files(value: codec.Data) -> dict[str, bytes]:
    if not isinstance(value, dict):
        raise TypeError("files must be a dict")
    result: dict[str, bytes] = {}
    for name, content in value.items():
        if type(name) is not str or type(content) is not bytes:
            raise TypeError("files must map str to bytes")
        result[name] = content
    return result


def _describe_exit(status: int) -> tuple[int | None, int | None]:
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status), None
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status)
    return None, None


_MEMORY_POLL_S = 0.1
"""How often a batch of fast calls still polls the run's memory (as ``RunChild.pump`` does)."""


class Zygote:
    """State of the zygote between requests: configuration, scratch area, open session."""

    def __init__(self, config: Message) -> None:
        self.python = _text(config["python"], sys.executable)
        self.path_env = _text(config["path_env"], "/usr/bin:/bin")
        self.namespace_init = os.getpid() == 1
        self.max_frame = int(config["max_frame"])  # type: ignore[arg-type]
        can_mount = bool(config["isolated"]) and privileges.has_capability(privileges.CAP_SYS_ADMIN)
        root = _text(config["scratch_root"])
        self.userns_disabled = bool(config["isolated"]) and _disable_nested_user_namespaces()
        if can_mount:
            _harden_mounts(config, root)
        self.privileges_limited = privileges.limit_future_privileges()
        privileges.set_no_new_privs()
        self.run_filter = _program(config.get("seccomp_run"))
        zygote_filter = _program(config.get("seccomp_zygote"))
        if zygote_filter is not None:
            zygote_filter.install()
        self.seccomp = zygote_filter is not None and self.run_filter is not None
        self.own_ipc = os.open("/proc/self/ns/ipc", os.O_RDONLY | os.O_CLOEXEC)
        self.tmpfs = (
            [root, *(p for p in _list_of_text(config["extra_wipe"]) if os.path.ismount(p))]
            if bool(config["isolated"])
            else []
        )
        self.tmpfs_baseline = 0
        extra = config["extra_wipe"]
        extra_wipe = (
            [item for item in extra if type(item) is str] if isinstance(extra, list) else []
        )
        self.scratch = Scratch(root, can_mount, extra_wipe)
        self.session: monitor.RunChild | None = None
        self.pending_spare: tuple[int, int, socket.socket] | None = None
        self.template: template.Template
        self.current_limits: codec.Data = None
        self.session_limits: child.ChildLimits | None = None
        self.session_dead = ""
        self.seq = 0

    # -- spawning ---------------------------------------------------------------------------

    def _env(self, extra: Mapping[str, str] | None = None) -> dict[str, codec.Data]:
        env: dict[str, codec.Data] = {
            "PATH": self.path_env,
            "HOME": self.scratch.work,
            "TMPDIR": self.scratch.root,
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "USER": "sandbox",
            "LOGNAME": "sandbox",
            "PYTHONDONTWRITEBYTECODE": "1",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
        }
        env.update(extra or {})
        return env

    def _begin_spare(self, wait: bool) -> monitor.RunChild | None:
        """Have the template fork a child that confines itself and waits for its run.

        With ``wait=False`` the template forks while the zygote goes on (see :meth:`_spare`).
        """
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        ours, theirs = socket.socketpair()
        devnull = os.open(os.devnull, os.O_RDONLY)
        stdio = (devnull, out_write, err_write)
        try:
            if wait:
                return self._spare_child(
                    self.template.fork(stdio, theirs.fileno()), out_read, err_read, ours
                )
            if self.template.begin_fork(stdio, theirs.fileno()):
                self.pending_spare = (out_read, err_read, ours)
            else:
                _close_ends(out_read, err_read, ours)
            return None
        finally:
            for descriptor in stdio:
                os.close(descriptor)
            theirs.close()

    def _spare(self) -> monitor.RunChild:
        """The spare child: the one begun between runs, or a new one."""
        if self.pending_spare is not None:
            out_read, err_read, ours = self.pending_spare
            self.pending_spare = None
            pid = self.template.end_fork()
            if pid is not None:
                return self._spare_child(pid, out_read, err_read, ours)
            _close_ends(out_read, err_read, ours)
        spare = self._begin_spare(wait=True)
        if spare is None:  # pragma: no cover - wait=True always returns a child
            raise OSError("no spare child")
        return spare

    def _spare_child(
        self, pid: int, out_read: int, err_read: int, ours: socket.socket
    ) -> monitor.RunChild:
        return monitor.RunChild(
            pid, stdout_fd=out_read, stderr_fd=err_read, control=ours, output_limit=0,
            max_frame=self.max_frame,
            reaper=self.template.reap,
        )  # fmt: skip

    def prepare_spare(self) -> None:
        """Between runs (never while candidate code runs), have a spare child on the way."""
        if self.session is None and self.pending_spare is None:
            self._begin_spare(wait=False)

    def _start(self, limits: child.ChildLimits, go: Message) -> monitor.RunChild:
        """Hand a run to the spare child (forking one if needed) and return it."""
        go["limits"] = self.current_limits
        go.setdefault("env", None)  # the template's own: self._env(), set once (template.py)
        go["work_dir"] = self.scratch.work
        for _ in range(2):
            run = self._spare()
            run.set_output_limit(limits.max_output_bytes)
            self.tmpfs_baseline = monitor.tmpfs_used(self.tmpfs)
            go["baseline"] = _task_count(os.getuid(), self.namespace_init)
            if run.send(marshal.dumps(go)):
                return run
            run.kill()
            run.wait_exit(_KILL_GRACE_S)
            run.close()
        raise OSError("could not start a run child")

    def _finish_run(self, run: monitor.RunChild) -> bool:
        """Kill the run's child and every other process, wipe the scratch area: clean?"""
        run.kill()
        reaped = run.wait_exit(_KILL_GRACE_S)
        run.close()
        clean, template_killed = monitor.kill_all_others(
            self.namespace_init, self.template.pid, _KILL_GRACE_S
        )
        if template_killed:
            self.template.pid = 0  # reaped already; start a fresh one
            self.template.start()
        clean = clean and reaped
        try:
            self.scratch.clean()
        except OSError:
            clean = False
        return clean

    # -- sessions ---------------------------------------------------------------------------

    def _end_session(self) -> bool:
        session, self.session = self.session, None
        self.session_limits = None
        return self._finish_run(session) if session is not None else True

    def open_session(self, request: Message) -> Message:
        clean = self._end_session()
        limits = child.ChildLimits(request["limits"])  # type: ignore[arg-type]
        source = _text(request["source"])
        files = _files(request["files"])
        files["solution.py"] = source.encode("utf-8", "surrogatepass")
        self.scratch.prepare(files, {})
        path = os.path.join(self.scratch.work, "solution.py")
        self.current_limits = request["limits"]
        go: Message = {"kind": "session", "source": source, "path": path}
        code = request.get("code")
        if type(code) is bytes and request.get("code_tag") == compiled.code_tag(path):
            go["code"] = code  # compiled on the trusted side for this interpreter and path
        self.session = self._start(limits, go)
        self.session_limits = limits
        self.session_dead = ""
        reply = self._await_reply(None)
        if reply["status"] != "ok":
            reply["clean"] = self._end_session() and clean
        return reply

    def call(self, request: Message) -> Message:
        if self.session is None or self.session_limits is None:
            return {"status": "crashed", "detail": self.session_dead or "no open session"}
        batch = _batch_calls(request)
        if batch is not None:
            total_s, pause_s = _seconds(request.get("total_s")), _seconds(request.get("pause_s"))
            return self._feed_batch(batch, total_s, pause_s)
        self.seq += 1
        payload = marshal.dumps(
            {
                "seq": self.seq,
                "name": request["name"],
                "args": request["args"],
                "kwargs": request["kwargs"],
            }
        )
        if not self.session.send(payload):
            return self._session_broke("crashed", "the session's process stopped reading calls")
        return self._await_reply(self.seq)

    def _feed_batch(
        self, calls: list[tuple[str, codec.Data, codec.Data]], total_s: float, pause_s: float
    ) -> Message:
        """A batch's reply: its calls handed to the child one at a time, each on its own limit.

        The child gets a call only when it has answered the one before, so the arguments of
        the calls to come are never in its process (a candidate cannot read later inputs out
        of its memory to answer an earlier call), and each call has the session's per-call
        limit from when the zygote sent it, by the zygote's own clock. The batch as a whole
        has at most ``total_s`` (the trusted side's share of the item budget). Once ``pause_s``
        has passed no further call is handed over: the reply holds the answers so far and the
        session stays open, so the calls left run live on the same process (the call in
        progress then ends on its own limit, as a live call would). Killed on a
        call's own limit, the reply names that call (``stuck``). Each answer is the child's
        encoded batch item (its value encoded when the call ended); the reply's value is the
        list of them, which the trusted side decodes like any value the sandbox sends.
        """
        run, limits = self.session, self.session_limits
        if run is None or limits is None:
            return {"status": "crashed", "detail": "no open session"}
        started, cpu_before = time.monotonic(), monitor.proc_cpu_seconds(run.pid)
        cap = started + max(limits.timeout_s, total_s)
        pause = started + pause_s if pause_s > 0 else math.inf
        over = self._over(limits, run)
        next_check = started + _MEMORY_POLL_S
        items: list[bytes] = []
        state, stuck = "frame", None
        for index, (name, args, kwargs) in enumerate(calls):
            if index and time.monotonic() >= pause:
                break  # the rest of the batch runs live, on this process
            self.seq += 1
            payload = marshal.dumps(
                {"seq": self.seq, "name": "\x00item", "args": (name, args, kwargs), "kwargs": {}}
            )
            if not run.send(payload):
                reply = self._session_broke("crashed", "the session's process stopped reading")
                return self._with_usage(reply, run, started, cpu_before)
            deadline = min(time.monotonic() + limits.timeout_s, cap)
            try:
                state = run.pump(deadline, want_frame=True, over_memory=over)
            except framing.FrameError as exc:
                reply = self._session_broke("crashed", f"protocol violation: {exc}")
                reply["unusual"] = True
                return self._with_usage(reply, run, started, cpu_before)
            if state != "frame":
                stuck = index if state == "timeout" and deadline < cap else None
                break
            answer = _item_answer(run.next_frame(), self.seq)
            if answer is None:
                reply = self._session_broke("crashed", "protocol violation: malformed reply")
                reply["unusual"] = True
                return self._with_usage(reply, run, started, cpu_before)
            items.append(answer[0])
            if answer[1]:
                break
            if time.monotonic() >= next_check:  # fast calls must not starve the memory poll
                if over():
                    state = "memory"
                    break
                next_check = time.monotonic() + _MEMORY_POLL_S
        if state == "frame":
            try:
                value = codec.encode_list_of(items, max_bytes=limits.max_value_bytes)
            except codec.UnencodableError as exc:
                reply = {"status": "unencodable", "emsg": str(exc)}
            else:
                reply = {"status": "ok", "value": value}
        elif state == "timeout":
            reply = self._session_broke("timeout", f"no result within {limits.timeout_s} s")
            if stuck is not None:  # the call used all of its own limit
                reply["stuck"] = stuck
        elif state == "memory":
            reply = self._session_broke("memory", _TOO_MUCH_MEMORY)
        else:
            reply = self._session_broke(*_death_reason(run))
        return self._with_usage(reply, run, started, cpu_before)

    def _session_broke(self, status: str, detail: str) -> Message:
        self.session_dead = f"the session ended earlier: {detail}"
        clean = self._end_session()
        return {"status": status, "detail": detail, "clean": clean}

    def _await_reply(self, seq: int | None) -> Message:
        run, limits = self.session, self.session_limits
        if run is None or limits is None:
            return {"status": "crashed", "detail": "no open session"}
        started, cpu_before = time.monotonic(), monitor.proc_cpu_seconds(run.pid)
        try:
            state = run.pump(
                started + limits.timeout_s, want_frame=True, over_memory=self._over(limits, run)
            )
        except framing.FrameError as exc:
            reply = self._session_broke("crashed", f"protocol violation: {exc}")
            reply["unusual"] = True
            return self._with_usage(reply, run, started, cpu_before)
        if state == "frame":
            checked = self._checked_reply(run.next_frame(), seq)
            if checked is None:
                reply = self._session_broke("crashed", "protocol violation: malformed reply")
                reply["unusual"] = True
            else:
                reply = checked
        elif state == "timeout":
            reply = self._session_broke("timeout", f"no result within {limits.timeout_s} s")
        elif state == "memory":
            reply = self._session_broke("memory", _TOO_MUCH_MEMORY)
        else:
            reply = self._session_broke(*_death_reason(run))
        return self._with_usage(reply, run, started, cpu_before)

    def _checked_reply(self, frame: bytes | None, seq: int | None) -> Message | None:
        try:
            message = codec.decode(frame or b"")
        except codec.DecodeError:
            return None
        if not isinstance(message, dict) or message.get("seq") != seq:
            return None
        status = message.get("status")
        if status not in ("ok", "exception", "unencodable", "memory"):
            return None
        reply: Message = {"status": status}
        if status == "ok":
            value = message.get("value", b"N")
            if type(value) is not bytes:
                return None
            reply["value"] = value
        for key in ("etype", "emsg", "tb"):
            if key in message:
                reply[key] = _text(message[key])
        bases = message.get("ebases")
        if isinstance(bases, list):
            reply["ebases"] = [_text(b)[:100] for b in bases[:8]]
        return reply

    def _with_usage(
        self, reply: Message, run: monitor.RunChild, started: float, cpu_before: float
    ) -> Message:
        reply["wall"] = time.monotonic() - started
        if run.cpu_s is not None:
            reply["cpu"] = max(0.0, run.cpu_s - cpu_before)
            reply["rss"] = run.max_rss_bytes
        else:
            reply["cpu"] = max(0.0, monitor.proc_cpu_seconds(run.pid) - cpu_before)
            reply["rss"] = monitor.proc_peak_rss(run.pid)
        for name, descriptor in (("stdout", run.stdout_fd), ("stderr", run.stderr_fd)):
            data, total = run.captures[descriptor].take()
            reply[name] = data
            reply[f"{name}_total"] = total
        return reply

    def close_session(self) -> Message:
        return {"clean": self._end_session()}

    # -- programs and commands --------------------------------------------------------------

    def _over(self, limits: child.ChildLimits, run: monitor.RunChild) -> Callable[[], bool]:
        """The check that the run's processes together stay under the memory limit.

        Counted: their proportional set sizes and memfds, what they added to the tmpfs
        mounts, and the SysV shared memory and message bytes of the run's IPC namespace.
        """

        def over() -> bool:
            used = monitor.run_memory(self.namespace_init, self.template.pid)
            used += max(0, monitor.tmpfs_used(self.tmpfs) - self.tmpfs_baseline)
            if run.ipc_fd is None:  # the spare moves to its own namespace as it starts
                run.ipc_fd = _run_ipc_namespace(run.pid, self.own_ipc)
            if used <= limits.memory_bytes and run.ipc_fd is not None:
                used += monitor.ipc_bytes(run.ipc_fd, self.own_ipc)
            return used > limits.memory_bytes

        return over

    def _run_to_exit(self, run: monitor.RunChild, limits: child.ChildLimits) -> Message:
        started = time.monotonic()
        try:
            state = run.pump(
                started + limits.timeout_s, want_frame=False, over_memory=self._over(limits, run)
            )
        except framing.FrameError:
            state = "exit"
        timed_out = state == "timeout"
        if timed_out or state == "memory":
            run.kill()
            run.wait_exit(_KILL_GRACE_S)
        else:
            run.wait_exit(_KILL_GRACE_S)
        wall = time.monotonic() - started
        exit_code, signal_number = _describe_exit(run.wait_status or 0)
        if not run.exited:
            exit_code, signal_number = None, None
        memory = state == "memory"
        while (frame := run.next_frame()) is not None:
            with contextlib.suppress(codec.DecodeError):
                message = codec.decode(frame)
                memory = memory or (isinstance(message, dict) and message.get("memory") is True)
        reply: Message = {
            "exit_code": exit_code,
            "signal": signal_number,
            "timed_out": timed_out or signal_number == signal.SIGXCPU,
            "memory": memory,
            "wall": wall,
            "cpu": run.cpu_s or 0.0,
            "rss": run.max_rss_bytes,
        }
        for name, descriptor in (("stdout", run.stdout_fd), ("stderr", run.stderr_fd)):
            data, total = run.captures[descriptor].take()
            reply[name] = data
            reply[f"{name}_total"] = total
        return reply

    def program(self, request: Message) -> Message:
        clean = self._end_session()
        limits = child.ChildLimits(request["limits"])  # type: ignore[arg-type]
        source = _text(request["source"])
        stdin = request["stdin"]
        self.scratch.prepare({"solution.py": source.encode("utf-8", "surrogatepass")}, {})
        stdin_path = os.path.join(self.scratch.root, "stdin")
        fsutil.write_files(
            self.scratch.root, {"stdin": stdin if type(stdin) is bytes else b""}, 0o400
        )
        path = os.path.join(self.scratch.work, "solution.py")
        self.current_limits = request["limits"]
        run = self._start(
            limits, {"kind": "program", "source": source, "path": path, "stdin_path": stdin_path}
        )
        reply = self._run_to_exit(run, limits)
        reply["clean"] = self._finish_run(run) and clean
        return reply

    def command(self, request: Message) -> Message:
        clean = self._end_session()
        limits = child.ChildLimits(request["limits"])  # type: ignore[arg-type]
        argv = request["argv"]
        if not isinstance(argv, list) or not argv or any(type(arg) is not str for arg in argv):
            raise TypeError("argv must be a non-empty list of str")
        argv = [self.python if argv[0] in ("python", "python3") else argv[0], *argv[1:]]
        collect = [name for name in request["collect"] if type(name) is str]  # type: ignore[union-attr]
        env = {k: v for k, v in _files_env(request["env"]).items()}
        self.scratch.prepare(_files(request["files"]), _files(request["readonly"]))
        for name in collect:
            with contextlib.suppress(OSError, fsutil.PathError):
                os.unlink(os.path.join(self.scratch.work, *fsutil.split_relative_path(name)))
        go: Message = {"kind": "command", "argv": argv, "env": self._env(env)}
        stdin = request.get("stdin")
        if type(stdin) is bytes and stdin:
            go["stdin_path"] = os.path.join(self.scratch.root, "stdin")
            fsutil.write_files(self.scratch.root, {"stdin": stdin}, 0o400)
        self.current_limits = request["limits"]
        run = self._start(limits, go)
        reply = self._run_to_exit(run, limits)
        collected: dict[str, codec.Data] = {}
        truncated: list[codec.Data] = []
        for name in collect:
            found = fsutil.read_beneath(self.scratch.work, name, limits.max_value_bytes)
            if found is not None:
                collected[name] = found[0]
                if found[1]:
                    truncated.append(name)
        reply["collected"] = collected
        reply["collected_truncated"] = truncated
        reply["clean"] = self._finish_run(run) and clean
        return reply

    def handle(self, request: Message) -> Message:
        op = request.get("op")
        if op == "open":
            return self.open_session(request)
        if op == "call":
            return self.call(request)
        if op == "close":
            return self.close_session()
        if op == "program":
            return self.program(request)
        if op == "command":
            return self.command(request)
        if op == "ping":
            return {"pong": True, "pid": os.getpid()}
        raise ValueError(f"unknown op {op!r}")


def _item_answer(frame: bytes | None, seq: int) -> tuple[bytes, bool] | None:
    """The child's answer to call ``seq`` of a batch: its encoded item, and whether the batch
    ends there (``None`` for any other frame: a protocol violation)."""
    head = len(child.ITEM_TAG) + child.ITEM_HEAD.size
    if frame is None or len(frame) <= head or not frame.startswith(child.ITEM_TAG):
        return None
    answered, stop = child.ITEM_HEAD.unpack_from(frame, len(child.ITEM_TAG))
    if answered != seq or stop not in (0, 1):
        return None
    return frame[head:], stop == 1


def _batch_calls(request: Message) -> list[tuple[str, codec.Data, codec.Data]] | None:
    """The calls of a ``\x00batch`` request, each ``(name, args, kwargs)`` (else ``None``)."""
    args = request.get("args")
    if request.get("name") != "\x00batch" or not isinstance(args, tuple) or not args:
        return None
    planned = args[0]
    if not isinstance(planned, list):
        return None
    calls: list[tuple[str, codec.Data, codec.Data]] = []
    for entry in planned:
        if not isinstance(entry, tuple | list) or len(entry) != 3:
            return None
        name, call_args, call_kwargs = entry[0], entry[1], entry[2]
        if type(name) is not str or not isinstance(call_args, tuple | list):
            return None
        if not isinstance(call_kwargs, dict):
            return None
        calls.append((name, tuple(call_args), call_kwargs))
    return calls


def _seconds(value: codec.Data) -> float:
    if (type(value) is int or type(value) is float) and value > 0:
        return float(value)
    return 0.0


def _program(value: codec.Data) -> privileges.SeccompProgram | None:
    return privileges.SeccompProgram(value) if type(value) is bytes and value else None


def _list_of_text(value: codec.Data) -> list[str]:
    return [item for item in value if type(item) is str] if isinstance(value, list) else []


def _run_ipc_namespace(pid: int, own: int) -> int | None:
    """An open handle on the run child's IPC namespace, if it has one of its own."""
    try:
        descriptor = os.open(f"/proc/{pid}/ns/ipc", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    if os.fstat(descriptor).st_ino == os.fstat(own).st_ino:
        os.close(descriptor)
        return None
    return descriptor


def _close_ends(out_read: int, err_read: int, ours: socket.socket) -> None:
    os.close(out_read)
    os.close(err_read)
    ours.close()


def _files_env(value: codec.Data) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if type(k) is str and type(v) is str}


def _death_reason(run: monitor.RunChild) -> tuple[str, str]:
    exit_code, signal_number = _describe_exit(run.wait_status or 0)
    if signal_number == signal.SIGXCPU:
        return "timeout", "CPU time limit exceeded"
    if signal_number is not None:
        return "crashed", f"killed by signal {signal.Signals(signal_number).name}"
    return "crashed", f"the process exited with code {exit_code} during the call"


def _task_count(uid: int, namespace_init: bool) -> int:
    """Tasks (threads count, as for RLIMIT_NPROC) of processes owned by ``uid`` in /proc.

    As init of its PID namespace, all the zygote sees are its own single-threaded processes.
    """
    if namespace_init:
        return sum(1 for name in os.listdir("/proc") if name.isdigit())
    count = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{name}/task"))
            except OSError:
                continue
    return count


_PROC_COVER = ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs")


def _harden_mounts(config: Message, scratch_root: str) -> None:
    """Read-only host view (``unshare`` level), read-only kernel knobs, a private scratch tmpfs.

    Only ever called inside the zygote's own mount namespace (never at the ``none`` level).
    """
    privileges.make_private_mounts()
    if config.get("readonly_host") is True:
        privileges.remount_all_readonly()
    for path in _PROC_COVER:
        if os.path.exists(path):
            with contextlib.suppress(OSError):
                privileges.mount_bind(path, readonly=True)
    size = config.get("scratch_tmpfs_bytes")
    if type(size) is int and size > 0:
        privileges.mount_tmpfs(scratch_root, size)


def _disable_nested_user_namespaces() -> bool:
    try:
        with open("/proc/sys/user/max_user_namespaces", "w", encoding="ascii") as limit:
            limit.write("0")
    except OSError:
        return False
    return True


def _take_protocol_fds() -> tuple[int, int]:
    """Move the protocol pipes off 0 and 1 so that stray prints cannot corrupt them."""
    request_fd = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 10)
    reply_fd = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 10)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    return request_fd, reply_fd


def main() -> None:
    """Serve requests until the trusted side closes the pipe."""
    request_fd, reply_fd = _take_protocol_fds()
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(number, signal.SIG_DFL)
    privileges.set_dumpable(False)
    if os.getpid() != 1:
        privileges.set_child_subreaper()
    first = framing.read_frame(request_fd, 1 << 20)
    config = codec.decode(first or b"")
    if not isinstance(config, dict):
        raise SystemExit("bad configuration frame")
    preload = config.get("preload")
    failed = []
    for name in preload if isinstance(preload, list) else []:
        try:
            importlib.import_module(str(name))
        except Exception:
            failed.append(str(name))
    zygote = Zygote(config)
    gc.collect()
    gc.freeze()
    run_env = {k: str(v) for k, v in zygote._env().items()}
    setup = template.SpareSetup(fresh_ipc=True, run_filter=zygote.run_filter, run_env=run_env)
    zygote.template = template.Template(zygote.namespace_init, zygote.max_frame, setup)
    zygote.prepare_spare()
    ready: Message = {
        "ready": True,
        "pid": os.getpid(),
        "uid": os.getuid(),
        "can_mount": zygote.scratch.can_mount,
        "userns_disabled": zygote.userns_disabled,
        "seccomp": zygote.seccomp,
        "preload_failed": failed,  # type: ignore[dict-item]
    }
    framing.write_all(reply_fd, framing.pack_frame(codec.encode(ready)))
    while True:
        frame = framing.read_frame(request_fd, zygote.max_frame)
        if frame is None:
            return
        try:
            request = marshal.loads(frame)  # from the trusted side only (its pipe)
            if not isinstance(request, dict):
                raise TypeError("request is not a dict")
            reply = zygote.handle(request)
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"[:2000], "unusual": True}
        framing.write_all(reply_fd, framing.pack_frame(codec.encode(reply)))
        with contextlib.suppress(OSError):  # no spare now: the next run forks one itself
            zygote.prepare_spare()
