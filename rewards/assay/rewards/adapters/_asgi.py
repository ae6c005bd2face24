"""The HTTP side of ``assay serve``: Starlette routes on uvicorn's h11 protocol.

uvicorn and Starlette do the HTTP work (parsing, framing, keep-alive, limits on a request head's
size, connection bookkeeping); this module adds what a reward server under a trainer needs and
uvicorn leaves open:

- a **read timeout**: a connection must deliver a complete request head within
  ``read_timeout_s`` of opening (or of its previous answer), and then its body within as long,
  else it gets 408 and is closed (uvicorn arms no timer before the first request, and a byte
  of a partial head cancels its keep-alive timer);
- a **write timeout**: a client that stops reading its answer for ``read_timeout_s`` is cut off;
- a **graceful shutdown that answers the accept queue**: before the listening socket closes,
  every connection the kernel already accepted is taken and answered (503 + ``Retry-After``,
  the server is going away) instead of being reset; requests already admitted are scored and
  answered; connections still sending a request get a short bounded grace, then a 503.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

import uvicorn
from assay.rewards.adapters.serve import RequestError, ServeCore
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from uvicorn.protocols.http.h11_impl import H11Protocol

from assay import safejson

SHUTDOWN_GRACE_S = 5.0
"""Longest wait, at shutdown, for connections that are still sending a request head."""


def _raw_answer(status: bytes, message: str, extra: bytes = b"") -> bytes:
    """A whole HTTP answer as bytes, for a connection that is closed right after it."""
    body = safejson.dumps({"error": message}).encode()
    return (
        b"HTTP/1.1 "
        + status
        + b"\r\ncontent-type: application/json\r\nconnection: close\r\n"
        + extra
        + b"content-length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )


_TIMEOUT_ANSWER = _raw_answer(b"408 Request Timeout", "request not received in time")
_SHUTDOWN_ANSWER = _raw_answer(
    b"503 Service Unavailable", "server shutting down", b"retry-after: 1\r\n"
)


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a read timeout on request heads and a write timeout.

    Subclassed per server with its own ``read_timeout_s`` (see :class:`Stack`).
    """

    read_timeout_s: float = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._write_timer: asyncio.TimerHandle | None = None
        self._awaiting: object = None  # the cycle before the awaited request head

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel(self._head_timer)
        self._cancel(self._write_timer)
        self._head_timer = self._write_timer = None
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self._head_timer is not None and self.cycle is not self._awaiting:
            self._cancel(self._head_timer)  # a request head arrived in time
            self._head_timer = None

    def on_response_complete(self) -> None:
        if not self.transport.is_closing():
            self._arm_head_timer()  # before a pipelined request starts its cycle
        super().on_response_complete()

    def pause_writing(self) -> None:
        super().pause_writing()
        self._cancel(self._write_timer)
        self._write_timer = self.loop.call_later(self.read_timeout_s, self.transport.abort)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._cancel(self._write_timer)
        self._write_timer = None

    @property
    def receiving(self) -> bool:
        """Whether part of a request has arrived and the rest is awaited."""
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            return cycle.more_body and not cycle.response_started
        return bool(self.conn.trailing_data[0])

    def _arm_head_timer(self) -> None:
        self._cancel(self._head_timer)
        self._awaiting = self.cycle
        self._head_timer = self.loop.call_later(self.read_timeout_s, self._head_timeout)

    def _head_timeout(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.cycle is not self._awaiting:
            return
        if self.conn.trailing_data[0]:  # part of a head came, the rest did not
            self.transport.write(_TIMEOUT_ANSWER)
        self.transport.close()

    @staticmethod
    def _cancel(timer: asyncio.TimerHandle | None) -> None:
        if timer is not None:
            timer.cancel()


class _Server(uvicorn.Server):
    """uvicorn's server with the shutdown described in the module docstring."""

    def __init__(self, config: uvicorn.Config, stack: Stack) -> None:
        super().__init__(config)
        self.stack = stack
        self.loop: asyncio.AbstractEventLoop | None = None
        self._taking: list[asyncio.Task[Any]] = []
        self._begun = False

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # signals are the caller's (Stack.signals_stop_it): uvicorn would re-raise them at exit
        yield

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        self.loop = asyncio.get_running_loop()
        await super().startup(sockets=sockets)
        self.stack.started.set()

    def begin_shutdown(self) -> None:
        """On the loop: answer 503 from now on, stop listening, take the accept queue.

        Runs as one callback, so no connection the kernel accepted before it can be reset by
        the listening socket's close: each is taken here and answered.
        """
        if self._begun:
            return
        self._begun = True
        self.stack.core.draining = True
        self.should_exit = True  # uvicorn's main loop then runs shutdown()
        self._take_accept_queue()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.begin_shutdown()
        if self._taking:
            await asyncio.gather(*self._taking, return_exceptions=True)
        await self._settle()
        await super().shutdown(sockets=sockets)

    def _take_accept_queue(self) -> None:
        if self.loop is None:  # never started: nothing was accepted
            return
        held = self.stack.listener.dup()  # keeps the socket listening once asyncio closes it
        held.setblocking(False)
        for server in self.servers:
            server.close()  # asyncio accepts no more
        factory = functools.partial(
            self.config.http_protocol_class,  # type: ignore[call-arg]  # uvicorn's own call
            config=self.config,
            server_state=self.server_state,
            app_state=self.lifespan.state,
            _loop=self.loop,
        )
        try:
            while True:
                try:
                    connection, _ = held.accept()
                except (BlockingIOError, InterruptedError):
                    break
                connection.setblocking(False)
                self._taking.append(self.loop.create_task(self._serve_taken(factory, connection)))
        finally:
            held.close()  # not listening any more: later clients are refused, not reset

    async def _serve_taken(self, factory: Any, connection: socket.socket) -> None:
        if self.loop is None:
            return
        try:
            await self.loop.connect_accepted_socket(factory, connection)
        except OSError:  # the client gave up in the meantime
            connection.close()

    async def _settle(self) -> None:
        """Give connections that are sending a request a bounded time to finish it; then 503."""
        loop = asyncio.get_running_loop()
        grace = min(self.stack.core.config.read_timeout_s, SHUTDOWN_GRACE_S)
        deadline = loop.time() + grace
        await asyncio.sleep(0.05)  # bytes already in the kernel reach the connections just taken
        while loop.time() < deadline and self._receiving():
            await asyncio.sleep(0.02)
        for connection in self._receiving():
            connection.transport.write(_SHUTDOWN_ANSWER)
            connection.transport.close()

    def _receiving(self) -> list[TimedH11Protocol]:
        return [
            c
            for c in self.server_state.connections
            if isinstance(c, TimedH11Protocol) and c.receiving and not c.transport.is_closing()
        ]


class Stack:
    """The listening socket, the Starlette app and the uvicorn server of one :class:`ServeCore`."""

    def __init__(self, core: ServeCore) -> None:
        config = core.config
        self.core = core
        self.started = threading.Event()
        self.listener = _listen(config.host, config.port, config.backlog)
        protocol = type(
            "AssayH11Protocol", (TimedH11Protocol,), {"read_timeout_s": config.read_timeout_s}
        )
        uv_config = uvicorn.Config(
            build_app(core),
            http=protocol,
            ws="none",
            lifespan="off",
            loop="asyncio",
            log_config=None,
            access_log=False,
            proxy_headers=False,
            server_header=False,
            headers=[("server", "assay-serve")],
            backlog=config.backlog,
        )
        self.server = _Server(uv_config, self)

    @property
    def port(self) -> int:
        return int(self.listener.getsockname()[1])

    def run(self) -> None:
        """Serve until :meth:`stop` (or a signal, under :meth:`signals_stop_it`)."""
        try:
            self.server.run(sockets=[self.listener])
        finally:
            self.started.set()  # a server that failed to start does not leave a waiter hanging

    def wait_started(self) -> None:
        self.started.wait()

    def stop(self) -> None:
        """Begin the graceful shutdown (from any thread, or a signal handler); returns at once."""
        loop = self.server.loop
        if loop is None or loop.is_closed():
            self.server.should_exit = True
            return
        try:
            loop.call_soon_threadsafe(self.server.begin_shutdown)
        except RuntimeError:  # the loop closed in the meantime
            self.server.should_exit = True

    @contextlib.contextmanager
    def signals_stop_it(self) -> Iterator[None]:
        """SIGTERM / SIGINT shut the server down gracefully; a second one stops waiting."""

        def stop(signum: int, frame: FrameType | None) -> None:
            if self.server.should_exit:
                self.server.force_exit = True
                return
            print(f"assay serve: signal {signum}, finishing requests in flight", file=sys.stderr)
            self.stop()

        previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def close(self) -> None:
        self.listener.close()


def _listen(host: str, port: int, backlog: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=backlog)


def build_app(core: ServeCore) -> Starlette:
    """The Starlette app: ``GET /health``, ``POST /``, ``/get_reward`` and ``/verify``.

    The POST endpoints are also served under ``/t/<token>/`` (the ``--token`` as a path segment).
    """

    async def health(request: Request) -> Response:
        if core.draining:
            return _json(503, {"error": "server shutting down"}, close=True)
        return _json(200, {"status": "ok"})

    async def post(request: Request) -> Response:
        try:
            if core.draining:
                return await _refuse_while_draining(request, core)
            path_token = request.path_params.get("token")
            if not core.authorized(request.headers.get("authorization"), path_token):
                raise RequestError(401, "missing or wrong token (bearer header or /t/<token>/)")
            body = await _read_json(request, core)
            path = request.url.path
            if path_token is not None:  # /t/<token>/get_reward -> /get_reward
                path = "/" + request.path_params.get("endpoint", "")
            return _json(200, await core.answer(path, body))
        except RequestError as exc:
            return _json(exc.status, {"error": str(exc)}, close=exc.status in (408, 413))
        except ClientDisconnect:  # nobody is left to answer; nothing to log
            return Response(status_code=400)

    async def not_found(request: Request, exc: Exception) -> Response:
        path = request.url.path
        return _json(404, {"error": f"no endpoint {path!r}; use /get_reward, / or /verify"})

    async def not_allowed(request: Request, exc: Exception) -> Response:
        headers = exc.headers if isinstance(exc, HTTPException) else None
        allow = (headers or {}).get("Allow", "POST")
        message = f"{request.method} is not allowed on {request.url.path!r}; use {allow}"
        return _json(405, {"error": message}, headers={"Allow": allow})

    routes = [
        Route("/health", health, methods=["GET"]),
        Route("/", post, methods=["POST"]),
        Route("/get_reward", post, methods=["POST"]),
        Route("/verify", post, methods=["POST"]),
        # the token as a secret path segment, for clients that cannot send a header
        Route("/t/{token}/", post, methods=["POST"]),
        Route("/t/{token}/{endpoint:path}", post, methods=["POST"]),
    ]
    return Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed})


async def _read_json(request: Request, core: ServeCore) -> Any:
    body = await _read_body(request, core)
    try:
        return safejson.loads_rows(body)
    except ValueError as exc:  # malformed or not UTF-8 (a value nested too deeply is cut)
        raise RequestError(400, f"body is not valid JSON: {exc}") from None


async def _read_body(request: Request, core: ServeCore) -> bytes:
    limit = core.config.max_body_bytes
    length_header = request.headers.get("content-length")
    if length_header is None:
        raise RequestError(411, "a Content-Length header is required")
    try:
        length = int(length_header)
    except ValueError:
        raise RequestError(400, "bad Content-Length header") from None
    if length < 0:
        raise RequestError(400, "bad Content-Length header")
    timeout = core.config.read_timeout_s
    if length > limit:
        # read what was sent before answering: a client that writes its whole body first
        # (urllib, requests) would else see the connection reset instead of this answer
        if length <= max(DRAIN_FACTOR * limit, DRAIN_BYTES):
            with contextlib.suppress(TimeoutError, ClientDisconnect):
                await asyncio.wait_for(_discard(request), timeout)
        raise RequestError(413, f"body of {length} bytes is over the limit of {limit}")
    try:
        return await asyncio.wait_for(request.body(), timeout)
    except TimeoutError:
        raise RequestError(408, f"request body not received within {timeout:g} s") from None


DRAIN_FACTOR = 8
DRAIN_BYTES = 64 * 1024 * 1024
"""A body over the limit is read (and dropped) before the 413 up to 8 times the limit or
64 MiB, whichever is more; a bigger one is answered at once and its connection closed."""


async def _discard(request: Request) -> None:
    async for _chunk in request.stream():
        pass


async def _refuse_while_draining(request: Request, core: ServeCore) -> Response:
    # read the body first: closing a socket with unread bytes resets it, and the client would
    # lose the answer
    with contextlib.suppress(RequestError):
        await _read_body(request, core)
    return _json(503, {"error": "server shutting down"}, close=True)


def _json(
    status: int,
    payload: Any,
    *,
    close: bool = False,
    headers: dict[str, str] | None = None,
) -> Response:
    extra = dict(headers or {})
    if status == 503:
        extra["Retry-After"] = "1"
    if status == 401:
        extra["WWW-Authenticate"] = "Bearer"
    if close:
        extra["Connection"] = "close"
    data = safejson.dumps(payload).encode("utf-8")
    return Response(data, status_code=status, media_type="application/json", headers=extra)
