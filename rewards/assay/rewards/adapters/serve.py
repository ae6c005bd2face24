"""The HTTP reward server behind ``assay serve``: a Starlette app on uvicorn (the ``serve`` extra).

Endpoints (protocol reference: docs/integrations.md):

- ``POST /`` and ``POST /get_reward``: OpenRLHF's remote reward protocol,
  ``{"query": [...], "prompts": [...], "labels": [...]}`` ->
  ``{"rewards": [...], "scores": [...], "status": [...], "extra_logs": {...}}``.
- ``POST /verify``: assay records, ``{"records": [...]}`` or one record ->
  ``{"results": [...]}`` (or ``{"result": ...}`` for one record).
- ``GET /health``: ``{"status": "ok"}``.

This module holds the protocol (what a body means, what is answered) and the scoring core;
:mod:`assay.rewards.adapters._asgi` holds the HTTP side (the Starlette routes, the uvicorn
protocol with its read and write timeouts, the graceful shutdown). Requests are admitted up to
``queue`` at a time (503 with ``Retry-After`` beyond); admitted requests are coalesced into
batches for one warm worker pool by a single scoring thread. On SIGTERM / SIGINT the server
stops listening, answers every connection the kernel had already accepted (503 for requests not
yet admitted), finishes the requests in flight, then stops the pool.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hmac
import json
import logging
import queue
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.rewards.adapters._batch import SharedScorer, reward_of

from assay.errors import AssayError
from assay.registry import Registry, default_registry
from assay.runner import ScoreOptions
from assay.types import Result

if TYPE_CHECKING:
    from assay.rewards.adapters._asgi import Stack

log = logging.getLogger(__name__)

MAX_COALESCED_ROWS = 1024
MISSING_EXTRA = (
    "assay serve needs uvicorn and starlette, the 'serve' extra: pip install 'assay[serve]'"
)


@dataclass(frozen=True, slots=True)
class ServeConfig:
    """Settings of :class:`RewardServer` (the ``assay serve`` options).

    Attributes:
        host: Interface to bind; 127.0.0.1 unless told otherwise.
        port: TCP port; 0 picks a free one.
        token: When set, requests need ``Authorization: Bearer <token>``, or the token as the
            path segment of ``/t/<token>/get_reward`` (and ``/t/<token>/``, ``/t/<token>/verify``).
        workers: Worker processes of the warm pool.
        max_batch: Most items in one request (400 beyond).
        max_body_bytes: Largest request body (413 beyond).
        queue: Most requests admitted at once (503 beyond). OpenRLHF posts one request per
            finished sample and gives up on it after 5 tries a second apart, so this must
            exceed the samples a rollout has in flight (rollout batch x samples per prompt).
        domain: Domain of OpenRLHF items whose label names none.
        timeout_s: Hard per-item limit; ``None`` uses each verifier's default.
        read_timeout_s: A request's head, and then its body, must arrive within this many
            seconds (408 and the connection closed otherwise); a client that does not read its
            answer for as long is cut off.
        backlog: Connections the kernel may hold before the server accepts them.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    token: str | None = None
    workers: int = 2
    max_batch: int = 256
    max_body_bytes: int = 8 * 1024 * 1024
    queue: int = 4096
    domain: str = "math"
    timeout_s: float | None = None
    read_timeout_s: float = 30.0
    backlog: int = 2048


class RequestError(Exception):
    """A request the server refuses, with its HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(slots=True)
class _Pending:
    rows: list[Any]
    future: concurrent.futures.Future[list[Result]] = field(
        default_factory=concurrent.futures.Future
    )


class _Batcher:
    """One thread that coalesces admitted requests into batches for the scorer."""

    def __init__(self, scorer: SharedScorer) -> None:
        self._scorer = scorer
        self._queue: queue.SimpleQueue[_Pending | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="assay-batcher", daemon=True)
        self._thread.start()

    def submit(self, rows: list[Any]) -> concurrent.futures.Future[list[Result]]:
        """A future of one result per row (:class:`RequestError` 500 if the scorer fails)."""
        pending = _Pending(rows)
        self._queue.put(pending)
        return pending.future

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
        # a request whose waiter was cancelled (forced shutdown) is dropped from the batch
        batch = [pending for pending in batch if pending.future.set_running_or_notify_cancel()]
        rows = [row for pending in batch for row in pending.rows]
        try:
            results = self._scorer.score(rows) if rows else []
        except Exception as exc:  # the boundary: a scorer failure answers 500, never hangs
            log.exception("scoring failed")
            for pending in batch:
                failure = f"scoring failed: {type(exc).__name__}: {exc}"
                pending.future.set_exception(RequestError(500, failure))
            return
        start = 0
        for pending in batch:
            pending.future.set_result(results[start : start + len(pending.rows)])
            start += len(pending.rows)


class ServeCore:
    """What the server answers, independent of HTTP: auth, body shapes, admission, scoring.

    Runs on the server's event loop; scoring happens on the batcher's thread.
    """

    def __init__(self, config: ServeConfig, registry: Registry | None = None) -> None:
        # a typo in --domain would make every item whose label names none a masked error
        (registry or default_registry()).resolve(config.domain)
        self.config = config
        options = ScoreOptions(workers=config.workers, timeout_s=config.timeout_s)
        self._scorer = SharedScorer(options, registry)
        self._batcher = _Batcher(self._scorer)
        self.admitted = 0
        self.draining = False

    def authorized(self, header: str | None, path_token: str | None = None) -> bool:
        """Whether a request may be answered: no ``--token``, or the token given either way.

        ``header`` is the ``Authorization`` header (``Bearer <token>``); ``path_token`` is the
        secret path segment of ``/t/<token>/...`` (for clients that cannot send a header, such
        as OpenRLHF's). Both are compared in constant time.
        """
        if self.config.token is None:
            return True
        token = self.config.token.encode()
        if path_token is not None:
            return hmac.compare_digest(path_token.encode("utf-8", "replace"), token)
        expected = b"Bearer " + token
        return hmac.compare_digest((header or "").encode("utf-8", "replace"), expected)

    async def answer(self, path: str, body: Any) -> dict[str, Any]:
        """The JSON answer to a POST to ``path``; raises :class:`RequestError` when refused."""
        if path in ("/", "/get_reward"):
            rows = self.openrlhf_rows(body)
            return openrlhf_response(await self.score(rows))
        if path == "/verify":
            records, single = verify_rows(body)
            self.check_size(len(records))
            results = [_result_dict(r) for r in await self.score(records)]
            return {"result": results[0]} if single else {"results": results}
        raise RequestError(404, f"no endpoint {path!r}; use /get_reward, / or /verify")

    def openrlhf_rows(self, body: Any) -> list[dict[str, Any]]:
        if not isinstance(body, Mapping):
            raise RequestError(400, "expected a JSON object with 'query' and 'labels'")
        queries = _string_list(body, "query")
        self.check_size(len(queries))
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

    def check_size(self, size: int) -> None:
        if size > self.config.max_batch:
            raise RequestError(
                400, f"batch of {size} items is over --max-batch {self.config.max_batch}"
            )

    async def score(self, rows: list[Any]) -> list[Result]:
        """Admit the request (503 when ``queue`` are admitted) and wait for its results."""
        if self.admitted >= self.config.queue:
            raise RequestError(503, f"server busy: {self.config.queue} requests queued")
        self.admitted += 1
        try:
            return await asyncio.wrap_future(self._batcher.submit(rows))
        finally:
            self.admitted -= 1

    def close(self) -> None:
        self._batcher.stop()
        self._scorer.close()


class RewardServer:
    """The reward HTTP server; :meth:`start` serves from a thread, :meth:`serve` blocks.

    The listening socket is bound when the server is made, so :attr:`port` is known at once.

    Example:
        >>> server = RewardServer(ServeConfig(port=0)).start()  # doctest: +SKIP
        >>> server.url  # doctest: +SKIP
        'http://127.0.0.1:40231'
        >>> server.shutdown()  # doctest: +SKIP

    Raises:
        AssayError: uvicorn or starlette is not installed (the ``serve`` extra).
        UnknownDomainError: ``config.domain`` (``--domain``) names no domain (a did-you-mean
            in the message), before the server listens.
    """

    def __init__(self, config: ServeConfig, registry: Registry | None = None) -> None:
        try:
            from assay.rewards.adapters._asgi import Stack
        except ImportError as exc:
            raise AssayError(f"{MISSING_EXTRA} ({exc})") from None
        self.config = config
        self._core = ServeCore(config, registry)
        try:
            self._stack: Stack = Stack(self._core)
        except BaseException:
            self._core.close()
            raise
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()

    @property
    def port(self) -> int:
        return self._stack.port

    @property
    def in_flight(self) -> int:
        """Requests admitted and not yet scored."""
        return self._core.admitted

    @property
    def url(self) -> str:
        return f"http://{self.config.host}:{self.port}"

    def start(self) -> RewardServer:
        """Serve from a background thread and return once the server accepts connections."""
        self._thread = threading.Thread(target=self._stack.run, name="assay-serve")
        self._thread.start()
        self._stack.wait_started()
        return self

    def serve(self) -> None:
        """Serve in this thread until SIGTERM / SIGINT, then shut down gracefully."""
        print(f"assay serve: listening on {self.url}", file=sys.stderr, flush=True)
        try:
            with self._stack.signals_stop_it():
                self._stack.run()
        finally:
            self._close()

    def begin_shutdown(self) -> None:
        """Stop accepting and answer what is queued (503); returns at once (idempotent)."""
        self._stack.stop()

    def shutdown(self) -> None:
        """Stop accepting, answer what is queued, finish the requests in flight (idempotent)."""
        self._stack.stop()
        if self._thread is not None:
            self._thread.join()
        self._close()

    def _close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        self._stack.close()
        self._core.close()


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
    response = query if prompt is None else response_of(query, prompt)
    domain, reference = config.domain, label
    if isinstance(label, str) and label.lstrip().startswith("{"):
        with contextlib.suppress(ValueError, RecursionError):
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


ANCHOR_CHARS = 8
"""How much of the prompt's end is looked for in a query that does not start with all of it
(each place found is then checked against the whole prompt)."""
ANCHOR_TRIES = 64


def response_of(query: str, prompt: str) -> str:
    """The response in OpenRLHF's ``query``: what follows ``prompt`` in it.

    ``query`` is the decode of prompt and response token ids. It starts with ``prompt``
    unless OpenRLHF cut a long prompt from the left to leave room for the generation (it
    keeps the prompt's last tokens and still sends the whole ``prompts[i]``), or the decode
    did not give back the prompt's first characters exactly (a byte-level token cut in two).
    Then the prompt's end is found in the query's first ``len(prompt)`` characters, as the last
    place where the query so far is the end of the prompt (up to 3 characters of a cut token
    at the start): scoring the whole query would read the prompt's worked examples as the
    answer. A query in which the prompt's end is nowhere is scored whole.

    Example:
        >>> response_of("Q: 2+2? A: 4", "Q: 2+2? A:")
        ' 4'
        >>> response_of("s 2. Q: 2+2? A: 4", "Example: 1+1 is 2. Q: 2+2? A:")  # cut from the left
        ' 4'
    """
    if query.startswith(prompt):
        return query[len(prompt) :]
    anchor = prompt[-ANCHOR_CHARS:]
    if not anchor:
        return query
    window = query[: len(prompt) + 3]
    end = window.rfind(anchor)
    for _ in range(ANCHOR_TRIES):
        if end < 0:
            break
        stop = end + len(anchor)
        for skip in range(4):
            if stop - skip > 0 and prompt.endswith(query[skip:stop]):
                return query[stop:]
        end = window.rfind(anchor, 0, stop - 1)
    return query


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


def run_server(config: ServeConfig) -> None:
    """Serve until SIGTERM / SIGINT (the ``assay serve`` command)."""
    RewardServer(config).serve()
