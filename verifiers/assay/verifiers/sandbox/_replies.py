"""Reading the zygote's replies (untrusted data) into typed outcomes.

Every field is checked for its exact type; anything missing or malformed reads as absent, and
a reply that could not be understood marks the worker broken so that it is replaced.
"""

from __future__ import annotations

from collections.abc import Mapping

from assay.errors import ConfigError

from ._errors import _WorkerLostError
from ._inside import codec, fsutil
from ._inside.codec import Data
from ._outcomes import CallOutcome, CallStatus, ProgramStatus, ResourceUsage
from ._worker import Message, Worker

__all__ = [
    "call_outcome",
    "encoded_files",
    "lost_call",
    "optional_int",
    "optional_str",
    "outputs",
    "program_status",
    "usage",
]


def _bases(reply: Message) -> tuple[str, ...]:
    """Builtin exception classes the candidate's exception derives from (untrusted list)."""
    raw = reply.get("ebases")
    if not isinstance(raw, list):
        return ()
    return tuple(name for name in raw[:8] if type(name) is str and len(name) < 100)


def _text(data: Data) -> str:
    return data.decode("utf-8", "replace") if type(data) is bytes else ""


def _number(reply: Message, key: str) -> float:
    value = reply.get(key)
    return float(value) if type(value) is int or type(value) is float else 0.0


def optional_int(reply: Message, key: str) -> int | None:
    value = reply.get(key)
    return value if type(value) is int else None


def optional_str(reply: Message, key: str) -> str | None:
    value = reply.get(key)
    return value if type(value) is str else None


def usage(reply: Message) -> ResourceUsage:
    return ResourceUsage(
        wall_s=_number(reply, "wall"),
        cpu_s=_number(reply, "cpu"),
        peak_rss_bytes=int(_number(reply, "rss")),
    )


def outputs(reply: Message) -> dict[str, str | bool]:
    result: dict[str, str | bool] = {}
    for name in ("stdout", "stderr"):
        data = reply.get(name)
        result[name] = _text(data)
        kept = len(data) if type(data) is bytes else 0
        result[f"{name}_truncated"] = _number(reply, f"{name}_total") > kept
    return result


def encoded_files(files: Mapping[str, str | bytes] | None, what: str) -> dict[str, Data]:
    result: dict[str, Data] = {}
    for name, content in (files or {}).items():
        try:
            fsutil.split_relative_path(name)
        except fsutil.PathError as exc:
            raise ConfigError(f"{what}: {exc}") from None
        if isinstance(content, str):
            result[name] = content.encode("utf-8", "surrogatepass")
        elif isinstance(content, bytes):
            result[name] = bytes(content)
        else:
            raise ConfigError(f"{what}[{name!r}] must be str or bytes")
    return result


def lost_call(exc: _WorkerLostError) -> CallOutcome:
    status = CallStatus.TIMEOUT if exc.timed_out else CallStatus.CRASHED
    return CallOutcome(status=status, detail=exc.reason)


def call_outcome(worker: Worker, reply: Message, handles: bool = False) -> CallOutcome:
    """Turn a zygote reply into a call outcome; mark the worker broken if anything was off.

    ``handles``: the request may return candidate objects (:class:`codec.Handle`); for any
    other request a handle in the value is a protocol violation, not a value.
    """
    if "error" in reply or reply.get("unusual") is True:
        worker.broken = True
    try:
        status = CallStatus(optional_str(reply, "status") or "crashed")
    except ValueError:
        worker.broken = True
        status = CallStatus.CRASHED
    value: Data = None
    detail = optional_str(reply, "detail") or optional_str(reply, "error") or ""
    if status is CallStatus.OK:
        raw = reply.get("value")
        try:
            value = codec.decode(raw if type(raw) is bytes else b"", handles=handles)
        except codec.DecodeError as exc:
            worker.broken = True
            status, detail = CallStatus.CRASHED, f"undecodable result: {exc}"
    if reply.get("clean") is False:
        worker.broken = True
    return CallOutcome(
        status=status,
        value=value,
        exception_type=optional_str(reply, "etype"),
        exception_bases=_bases(reply),
        exception_message=optional_str(reply, "emsg"),
        traceback=optional_str(reply, "tb") or "",
        usage=usage(reply),
        detail=detail,
        stuck_call=optional_int(reply, "stuck") if status is CallStatus.TIMEOUT else None,
        **outputs(reply),  # type: ignore[arg-type]
    )


def program_status(reply: Message) -> tuple[ProgramStatus, bool, int | None, int | None]:
    exit_code = optional_int(reply, "exit_code")
    signal_number = optional_int(reply, "signal")
    timed_out = reply.get("timed_out") is True
    if timed_out:
        status = ProgramStatus.TIMEOUT
    elif reply.get("memory") is True:
        status = ProgramStatus.MEMORY
    elif signal_number is not None:
        status = ProgramStatus.KILLED
    elif exit_code == 0:
        status = ProgramStatus.OK
    elif exit_code is None:
        status = ProgramStatus.CRASHED
    else:
        status = ProgramStatus.ERROR
    return status, timed_out, exit_code, signal_number
