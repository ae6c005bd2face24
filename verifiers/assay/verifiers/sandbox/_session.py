"""A call session: candidate source loaded once in a fresh child, called into several times."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence

from assay.errors import ConfigError

from ._errors import _WorkerLostError
from ._inside import codec
from ._inside.codec import Data
from ._limits import Limits
from ._outcomes import CallOutcome, CallStatus
from ._replies import call_outcome, lost_call
from ._worker import GRACE_S, Message, Worker, request_bytes

__all__ = ["CallSession"]


class CallSession:
    """Candidate source loaded as module ``solution`` in one forked child; call into it.

    Get one from :meth:`SandboxPool.call_session`. Arguments and return values cross the
    boundary as plain data (see :mod:`.codec`); expected answers never enter the sandbox.
    """

    def __init__(
        self, worker: Worker, limits: Limits, release: Callable[[Worker, bool], None]
    ) -> None:
        self._release = release
        self._worker: Worker | None = worker
        self._limits = limits
        self._load: CallOutcome | None = None
        self._call_in_flight = False

    @property
    def load(self) -> CallOutcome:
        """How loading the module went: ``ok``, or why it failed (calls then report that)."""
        if self._load is None:
            self._load = self._receive()
            if not self._load.ok:
                worker = self._worker
                if self._call_in_flight and worker is not None and not worker.broken:
                    with contextlib.suppress(_WorkerLostError):  # answers "no open session"
                        worker.receive(GRACE_S)
                self._give_back(closed_by_zygote=True)
            self._call_in_flight = False
        return self._load

    def _receive(self, handles: bool = False, wait: float | None = None) -> CallOutcome:
        worker = self._worker
        if worker is None:
            return CallOutcome(status=CallStatus.CRASHED, detail="the session is closed")
        try:
            reply = worker.receive(self._limits.timeout_s + GRACE_S if wait is None else wait)
        except _WorkerLostError as exc:
            return lost_call(exc)
        return call_outcome(worker, reply, handles)

    def call(
        self,
        name: str,
        args: Sequence[Data] = (),
        kwargs: Mapping[str, Data] | None = None,
        *,
        total_s: float | None = None,
        pause_s: float | None = None,
    ) -> CallOutcome:
        """Call ``solution.<name>(*args, **kwargs)`` and report the outcome.

        For a batch (``\x00batch``, a list of ``(name, args, kwargs)``), each call has the
        session's time limit from its own start and the batch at most ``total_s`` seconds;
        a batch killed on one call's limit names it in ``stuck_call``. After ``pause_s``
        seconds no further call of the batch starts: its value lists the calls answered so
        far, and the session stays open for the rest to be called live.

        Never raises because of candidate behaviour. After a timeout or crash every later call
        returns ``crashed`` at once. Names starting with NUL are the stand-ins' protocol
        (``\x00get``, ``\x00call``, ``\x00op``): only their values may hold
        :class:`._inside.codec.Handle` values; a plain call's value is data.

        Raises:
            ConfigError: ``args`` or ``kwargs`` are not plain data.
        """
        request: Message = {
            "op": "call",
            "name": name,
            "args": tuple(args),
            "kwargs": dict(kwargs or {}),
        }
        wait = self._limits.timeout_s + GRACE_S
        if total_s is not None and name == "\x00batch":
            request["total_s"] = float(total_s)
            if pause_s is not None:
                request["pause_s"] = float(pause_s)
            wait = max(self._limits.timeout_s, total_s) + GRACE_S
        try:  # the codec checks plain data (exact types, size); marshal carries it down
            codec.encode(request, max_bytes=self._limits.max_value_bytes)
        except codec.UnencodableError as exc:
            raise ConfigError(f"call arguments must be plain data: {exc}") from None
        encoded = request_bytes(request)
        handles = name.startswith("\x00") and name != "\x00batch"
        worker = self._worker
        if worker is not None and self._load is None:
            # pipelined: the call goes out before the load's reply is read
            try:
                worker.send(encoded, wait)
            except _WorkerLostError as exc:
                self._load = lost_call(exc)
                self._give_back(closed_by_zygote=True)
                return self._load
            self._call_in_flight = True
            if not self.load.ok:
                return self._failed_load()
            return self._receive(handles, wait)
        if not self.load.ok:
            return self._failed_load()
        if self._worker is None:
            return CallOutcome(status=CallStatus.CRASHED, detail="the session is closed")
        try:
            reply = self._worker.request(encoded, wait)
        except _WorkerLostError as exc:
            return lost_call(exc)
        return call_outcome(self._worker, reply, handles)

    def _failed_load(self) -> CallOutcome:
        load = self.load
        return CallOutcome(
            status=load.status,
            exception_type=load.exception_type,
            exception_message=load.exception_message,
            detail="the module failed to load",
        )

    def _give_back(self, closed_by_zygote: bool) -> None:
        worker, self._worker = self._worker, None
        if worker is None:
            return
        if not closed_by_zygote and not worker.broken:
            with contextlib.suppress(_WorkerLostError):
                worker.post({"op": "close"}, GRACE_S)
        self._release(worker, worker.broken)

    def close(self) -> None:
        """End the session and hand the worker back (idempotent).

        The zygote's cleanup runs while the caller goes on; the worker's next user waits for
        it and gets a fresh worker instead if it was not clean.
        """
        if self._worker is not None and self._load is None:
            _ = self.load  # the open's reply must be read before anything else
        self._give_back(closed_by_zygote=False)
