"""The HTTP reward server behind ``assay serve`` (standard library only).

Endpoints (protocol reference: docs/integrations.md):

- ``POST /`` and ``POST /get_reward``: OpenRLHF's remote reward protocol,
  ``{"query": [...], "prompts": [...], "labels": [...]}`` ->
  ``{"rewards": [...], "scores": [...], "status": [...], "extra_logs": {...}}``.
- ``POST /verify``: assay records, ``{"records": [...]}`` or one record ->
  ``{"results": [...]}`` (or ``{"result": ...}`` for one record).
- ``GET /health``: ``{"status": "ok"}``.

Requests are admitted up to ``queue`` at a time (503 with ``Retry-After`` beyond); admitted
requests are coalesced into batches for one warm worker pool by a single scoring thread.
SIGTERM / SIGINT stop accepting connections, finish the requests in flight, then stop the pool.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import queue
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from assay.rewards.adapters._batch import SharedScorer, reward_of

from assay.registry import Registry
from assay.runner import ScoreOptions
from assay.types import Result

log = logging.getLogger(__name__)

MAX_COALESCED_ROWS = 1024


@dataclass(frozen=True, slots=True)
class ServeConfig:
    """Settings of :class:`RewardServer` (the ``assay serve`` options).

    Attributes:
        host: Interface to bind; 127.0.0.1 unless told otherwise.
        port: TCP port; 0 picks a free one.
        token: When set, requests need ``Authorization: Bearer <token>``.
        workers: Worker processes of the warm pool.
        max_batch: Most items in one request (400 beyond).
        max_body_bytes: Largest request body (413 beyond).
        queue: Most requests admitted at once (503 beyond).
        domain: Domain of OpenRLHF items whose label names none.
        timeout_s: Hard per-item limit; ``None`` uses each verifier's default.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    token: str | None = None
    workers: int = 2
    max_batch: int = 256
    max_body_bytes: int = 8 * 1024 * 1024
    queue: int = 64
    domain: str = "math"
    timeout_s: float | None = None


class RequestError(Exception):
    """A request the server refuses, with its HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(slots=True)
class _Pending:
    rows: list[Any]
    done: threading.Event = field(default_factory=threading.Event)
    results: list[Result] = field(default_factory=list)
    failure: str | None = None


class _Batcher:
    """One thread that coalesces admitted requests into batches for the scorer."""

    def __init__(self, scorer: SharedScorer) -> None:
        self._scorer = scorer
        self._queue: queue.SimpleQueue[_Pending | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="assay-batcher", daemon=True)
        self._thread.start()

    def score(self, rows: list[Any]) -> list[Result]:
        pending = _Pending(rows)
        self._queue.put(pending)
        pending.done.wait()
        if pending.failure is not None:
            raise RequestError(500, pending.failure)
        return pending.results

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch, stop = [first], False
            size = len(first.rows)
            while size < MAX_COALESCED_ROWS:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stop = True
                    break
                batch.append(item)
                size += len(item.rows)
            self._score(batch)
            if stop:
                return

    def _score(self, batch: list[_Pending]) -> None:
        rows = [row for pending in batch for row in pending.rows]
        try:
            results = self._scorer.score(rows) if rows else []
        except Exception as exc:  # the boundary: a scorer failure answers 500, never hangs
            log.exception("scoring failed")
            for pending in batch:
                pending.failure = f"scoring failed: {type(exc).__name__}: {exc}"
                pending.done.set()
            return
        start = 0
        for pending in batch:
            pending.results = results[start : start + len(pending.rows)]
            start += len(pending.rows)
            pending.done.set()


class RewardServer:
    """The reward HTTP server; :meth:`start` serves from a thread, :meth:`serve` blocks.

    Example:
        >>> server = RewardServer(ServeConfig(port=0)).start()  # doctest: +SKIP
        >>> server.url  # doctest: +SKIP
        'http://127.0.0.1:40231'
        >>> server.shutdown()  # doctest: +SKIP
    """

    def __init__(self, config: ServeConfig, registry: Registry | None = None) -> None:
        self.config = config
        options = ScoreOptions(workers=config.workers, timeout_s=config.timeout_s)
        self._scorer = SharedScorer(options, registry)
        self._batcher = _Batcher(self._scorer)
        self._slots = threading.BoundedSemaphore(config.queue)
        self._count_lock = threading.Lock()
        self._in_flight = 0
        self._httpd = _HTTPServer((config.host, config.port), _Handler)
        self._httpd.app = self
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def in_flight(self) -> int:
        """Requests admitted and not yet scored."""
        with self._count_lock:
            return self._in_flight

    @property
    def url(self) -> str:
        return f"http://{self.config.host}:{self.port}"

    def start(self) -> RewardServer:
        """Serve from a background thread and return at once."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="assay-serve")
        self._thread.start()
        return self

    def serve(self) -> None:
        """Serve in this thread until SIGTERM / SIGINT, then shut down gracefully."""

        def stop(signum: int, frame: object) -> None:
            print(f"assay serve: signal {signum}, finishing requests in flight", file=sys.stderr)
            threading.Thread(target=self._httpd.shutdown, daemon=True).start()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        print(f"assay serve: listening on {self.url}", file=sys.stderr, flush=True)
        self._httpd.serve_forever()
        self._close()

    def shutdown(self) -> None:
        """Stop accepting, finish the requests in flight, stop the workers (idempotent)."""
        self._httpd.shutdown()
        if self._thread is not None:
            self._thread.join()
        self._close()

    def _close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        self._httpd.server_close()  # joins the request threads: in-flight requests finish
        self._batcher.stop()
        self._scorer.close()

    # request handling ------------------------------------------------------------------------

    def authorized(self, header: str | None) -> bool:
        if self.config.token is None:
            return True
        expected = f"Bearer {self.config.token}".encode()
        return hmac.compare_digest((header or "").encode(), expected)

    def handle(self, path: str, body: Any) -> dict[str, Any]:
        """The JSON answer to a POST to ``path``; raises :class:`RequestError` when refused."""
        if path in ("/", "/get_reward"):
            rows = self.openrlhf_rows(body)
            return openrlhf_response(self._score(rows))
        if path == "/verify":
            rows, single = verify_rows(body)
            self._check_size(len(rows))
            results = [_result_dict(r) for r in self._score(rows)]
            return {"result": results[0]} if single else {"results": results}
        raise RequestError(404, f"no endpoint {path!r}; use /get_reward, / or /verify")

    def openrlhf_rows(self, body: Any) -> list[dict[str, Any]]:
        if not isinstance(body, Mapping):
            raise RequestError(400, "expected a JSON object with 'query' and 'labels'")
        queries = _string_list(body, "query")
        self._check_size(len(queries))
        labels = body.get("labels")
        if not isinstance(labels, list) or len(labels) != len(queries):
            raise RequestError(400, "'labels' must be a list as long as 'query'")
        prompts = body.get("prompts")
        if prompts is not None:
            prompts = _string_list(body, "prompts")
            if len(prompts) != len(queries):
                raise RequestError(400, "'prompts' must be as long as 'query'")
        return [
            _openrlhf_row(i, query, None if prompts is None else prompts[i], label, self.config)
            for i, (query, label) in enumerate(zip(queries, labels, strict=True))
        ]

    def _check_size(self, size: int) -> None:
        if size > self.config.max_batch:
            raise RequestError(
                400, f"batch of {size} items is over --max-batch {self.config.max_batch}"
            )

    def _score(self, rows: list[Any]) -> list[Result]:
        if not self._slots.acquire(blocking=False):
            raise RequestError(503, f"server busy: {self.config.queue} requests queued")
        with self._count_lock:
            self._in_flight += 1
        try:
            return self._batcher.score(rows)
        finally:
            with self._count_lock:
                self._in_flight -= 1
            self._slots.release()


def openrlhf_response(results: Sequence[Result]) -> dict[str, Any]:
    """OpenRLHF's answer: float ``rewards`` / ``scores`` (0.0 when masked), numeric extra_logs."""
    rewards = [reward_of(r) for r in results]
    floats = [0.0 if r is None else r for r in rewards]
    return {
        "rewards": floats,
        "scores": floats,
        "status": [r.status.value for r in results],
        "extra_logs": {
            "masked": [float(r is None) for r in rewards],
            "correct": [float(r.status.value == "correct") for r in results],
        },
    }


def verify_rows(body: Any) -> tuple[list[Any], bool]:
    """The records of a ``/verify`` body and whether it was a single record."""
    if isinstance(body, Mapping) and "records" in body:
        records = body["records"]
        if not isinstance(records, list):
            raise RequestError(400, "'records' must be a list of records")
        return records, False
    if isinstance(body, Mapping):
        return [body], True
    raise RequestError(400, "expected {'records': [...]} or one record object")


def _openrlhf_row(
    index: int, query: str, prompt: str | None, label: Any, config: ServeConfig
) -> dict[str, Any]:
    response = query[len(prompt) :] if prompt is not None and query.startswith(prompt) else query
    domain, reference = config.domain, label
    if isinstance(label, str) and label.lstrip().startswith("{"):
        with contextlib.suppress(ValueError):
            label = json.loads(label)
    if isinstance(label, Mapping) and "domain" in label:
        domain = str(label["domain"])
        reference = label.get("reference", {k: v for k, v in label.items() if k != "domain"})
    row: dict[str, Any] = {
        "id": str(index),
        "domain": domain,
        "response": response,
        "reference": reference,
    }
    if prompt is not None:
        row["prompt"] = prompt
    return row


def _string_list(body: Mapping[str, Any], key: str) -> list[str]:
    values = body.get(key)
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise RequestError(400, f"'{key}' must be a list of strings")
    return values


def _result_dict(result: Result) -> dict[str, Any]:
    out = result.to_dict()
    out["reward"] = reward_of(result)
    out["masked"] = result.status.is_infrastructure
    return out


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = False  # server_close() waits for requests in flight
    block_on_close = True
    allow_reuse_address = True
    request_queue_size = 128  # the listen backlog: many trainer ranks connect at once
    app: RewardServer


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.0"
    server_version = "assay-serve"

    def do_GET(self) -> None:
        if self.path.split("?")[0] == "/health":
            self._send(200, {"status": "ok"})
        else:
            self._send(404, {"error": f"no endpoint {self.path!r}"})

    def do_POST(self) -> None:
        app = self.server.app
        try:
            if not app.authorized(self.headers.get("Authorization")):
                raise RequestError(401, "missing or wrong bearer token")
            body = self._body(app.config.max_body_bytes)
            answer = app.handle(self.path.split("?")[0], body)
        except RequestError as exc:
            self._send(exc.status, {"error": str(exc)})
            return
        self._send(200, answer)

    def _body(self, limit: int) -> Any:
        length_header = self.headers.get("Content-Length")
        if length_header is None:
            raise RequestError(411, "a Content-Length header is required")
        try:
            length = int(length_header)
        except ValueError:
            raise RequestError(400, "bad Content-Length header") from None
        if length < 0:
            raise RequestError(400, "bad Content-Length header")
        if length > limit:
            raise RequestError(413, f"body of {length} bytes is over the limit of {limit}")
        try:
            return json.loads(self.rfile.read(length))
        except ValueError as exc:
            raise RequestError(400, f"body is not valid JSON: {exc}") from None

    def _send(self, status: int, payload: Mapping[str, Any]) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status == 503:
            self.send_header("Retry-After", "1")
        if status == 401:
            self.send_header("WWW-Authenticate", "Bearer")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)


def run_server(config: ServeConfig) -> None:
    """Serve until SIGTERM / SIGINT (the ``assay serve`` command)."""
    RewardServer(config).serve()
