"""The Ray backend: scoring spread over the actors of a Ray cluster, same verdicts as local.

Each :class:`ScoringActor` owns a warm :class:`~assay.scheduling.service.ScoringService` (the
local scheduler and its worker processes) that lives as long as the actor, so worker pools stay
warm between batches. The driver validates rows and consults the verdict cache locally, sends
chunks of records to the least busy actor (a few chunks in flight per actor, fed into the same
warm pool), and writes results in input order. A chunk whose actor or node died (or whose
actor failed) is sent again, to another actor where there is one, up to ``retries`` times;
then its items are ``error`` verdicts that say so, never lost. Actors are restarted by Ray
(``max_restarts``) and replaced when they keep failing.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import ray
import ray.exceptions

from assay.cache import VerdictCache, cache_key
from assay.errors import ConfigError, InputError
from assay.records import RawRow, RecordBuilder
from assay.registry import Registry, default_registry, load_spec
from assay.runner import ScoreOptions
from assay.scheduling.service import ScoringService
from assay.types import Record, Result, Verdict

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RayOptions:
    """Where and how to run on Ray.

    Attributes:
        address: Cluster address (``"auto"``, ``"ray://host:10001"``, ``"host:6379"``);
            ``None`` joins the Ray runtime of this process, or starts a local one.
        actors: Scoring actors; ``None``: the cluster's CPUs divided by ``workers`` per actor.
        chunk_size: Records per call to an actor.
        chunks_per_actor: Calls in flight per actor (they feed the same warm pool).
        retries: Extra dispatches of a chunk whose actor or node died.
        max_restarts: Restarts Ray grants each actor before the backend replaces it.
        connect_timeout_s: How long joining the cluster at ``address`` may take before it fails
            with a :class:`~assay.errors.ConfigError` (an unreachable address, a token Ray
            refuses), instead of Ray's own minutes of retries.
        restart_wait_s: How long a chunk waits, resent with backoff, for an actor that Ray
            reports as restarting (``ActorUnavailableError``) before that counts as a failure.
            A restart on a loaded machine takes seconds; counting each immediate resend as a
            failure would spend ``retries`` and ``max_restarts`` in a second.
    """

    address: str | None = None
    actors: int | None = None
    chunk_size: int = 64
    chunks_per_actor: int = 2
    retries: int = 2
    max_restarts: int = 4
    connect_timeout_s: float = 30.0
    restart_wait_s: float = 120.0


class ScoringActor:
    """A Ray actor body: a warm scoring service over this node's worker processes."""

    def __init__(self, options: ScoreOptions, specs: dict[str, str], sys_path: list[str]):
        for entry in reversed(sys_path):  # plugins and test verifiers the driver could import
            if entry not in sys.path and os.path.isdir(entry):
                sys.path.insert(0, entry)
        registry = Registry()
        for spec in specs.values():
            registry.register(load_spec(spec))
        self._service = ScoringService(options, registry)
        self._service.warm()

    def score(self, records: list[Record]) -> list[Result]:
        return self._service.score(records)

    def pid(self) -> int:
        return os.getpid()


@dataclass(slots=True)
class _Chunk:
    items: list[tuple[int, Record]]
    actor: int = -1
    handle: Any = None
    attempts: int = 0
    failures: list[str] = field(default_factory=list)
    unavailable_since: float | None = None
    waits: int = 0


@dataclass(slots=True)
class _Slot:
    handle: Any
    busy: int = 0
    failures: int = 0
    probe: Any = None  # after a failure, a pid() call: the actor is suspect until it answers

    def healthy(self) -> bool:
        """False while the actor has not answered since it failed (restarting, or lost)."""
        if self.probe is None:
            return True
        ready, _ = ray.wait([self.probe], timeout=0)
        if not ready:
            return False
        try:
            ray.get(self.probe)
        except ray.exceptions.RayError:
            self.probe = self.handle.pid.remote()
            return False
        self.probe = None
        return True


class RayBackend:
    """Scores rows on Ray actors; the same interface as :class:`~assay.runner.Scorer`.

    Args:
        options: How each actor scores (``workers`` is worker processes per actor).
        ray_options: Cluster address, actor count, chunking and retries.
        registry: Verifiers to use; each actor loads the same verifier classes.

    Example:
        >>> with RayBackend(ScoreOptions(workers=2), RayOptions(address="auto")) as backend:
        ...     results = list(backend.score_rows(rows))  # doctest: +SKIP
    """

    def __init__(
        self,
        options: ScoreOptions | None = None,
        ray_options: RayOptions | None = None,
        registry: Registry | None = None,
    ) -> None:
        self.options = options or ScoreOptions()
        self.ray_options = ray_options or RayOptions()
        if self.options.workers < 1:
            raise ConfigError("the Ray backend needs at least 1 worker per actor")
        if self.ray_options.chunk_size < 1 or self.ray_options.chunks_per_actor < 1:
            raise ConfigError("chunk_size and chunks_per_actor must be at least 1")
        if self.ray_options.actors is not None and self.ray_options.actors < 1:
            raise ConfigError("the Ray backend needs at least 1 actor (--actors)")
        if not self.ray_options.connect_timeout_s > 0:
            raise ConfigError("the Ray connect timeout must be more than 0 seconds")
        self.registry = registry or default_registry()
        self._cache = VerdictCache(self.options.cache_dir) if self.options.cache_dir else None
        self._owns_ray = not ray.is_initialized()
        if self._owns_ray:
            _init_ray(self.ray_options.address, self.ray_options.connect_timeout_s)
        self._specs = self.registry.specs()
        count = self.ray_options.actors or self._default_actors()  # None: from the cluster
        self._slots = [_Slot(self._new_actor()) for _ in range(count)]

    def __enter__(self) -> RayBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def cache(self) -> VerdictCache | None:
        return self._cache

    @property
    def actors(self) -> list[Any]:
        """The current actor handles (one per slot)."""
        return [slot.handle for slot in self._slots]

    def close(self) -> None:
        """Kill the actors (their worker processes exit with them); stop Ray if we started it."""
        if ray.is_initialized():
            for slot in self._slots:
                ray.kill(slot.handle, no_restart=True)
        self._slots = []
        if self._cache is not None:
            self._cache.close()
        if self._owns_ray and ray.is_initialized():
            ray.shutdown()

    def score_rows(
        self, rows: Iterable[RawRow], skip_ids: frozenset[str] | set[str] = frozenset()
    ) -> Iterator[Result]:
        """Yield one result per row not in ``skip_ids``, in input order."""
        builder = RecordBuilder(
            self.registry,
            self.options.default_domain,
            self.options.max_response_chars,
            self.options.fields,
        )
        items = (item for row in rows for item in builder.build_all(row))
        run = _Run(self, items, skip_ids)
        yield from run.results()
        if self._cache is not None:
            self._cache.flush()

    # internals used by _Run -------------------------------------------------------------------

    def _default_actors(self) -> int:
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        cpus = int(resources.get("CPU", 1))
        return max(1, cpus // self.options.workers)

    def _new_actor(self) -> Any:
        remote = _remote_actor_class().options(
            num_cpus=self.options.workers,
            max_restarts=self.ray_options.max_restarts,
            max_task_retries=0,
            max_concurrency=self.ray_options.chunks_per_actor + 1,
        )
        actor_options = dataclasses.replace(self.options, cache_dir=None)
        return remote.remote(actor_options, self._specs, list(sys.path))

    def _dispatch(self, chunk: _Chunk) -> Any:
        """Send a chunk to the least busy healthy actor (not the one that failed it, if any).

        An actor that failed is skipped until it answers a ping (Ray restarts it, maybe on
        another node), unless no actor is healthy.
        """
        health = [slot.healthy() for slot in self._slots]
        order = sorted(
            range(len(self._slots)), key=lambda i: (not health[i], self._slots[i].busy, i)
        )
        if chunk.attempts and len(order) > 1:
            order = [i for i in order if i != chunk.actor] or order
        chunk.actor = order[0]
        slot = self._slots[chunk.actor]
        slot.busy += 1
        chunk.handle = slot.handle
        return slot.handle.score.remote([record for _, record in chunk.items])

    def _returned(self, chunk: _Chunk, failed: bool | None) -> None:
        """Book a chunk's return: ``failed`` None is neither (the actor was restarting)."""
        slot = self._slots[chunk.actor]
        if slot.handle is not chunk.handle:
            return  # the actor that held the chunk was replaced meanwhile
        slot.busy -= 1
        if failed is None:
            return
        if not failed:
            slot.failures = 0
            return
        slot.failures += 1
        slot.probe = slot.handle.pid.remote()
        if slot.failures > self.ray_options.max_restarts:
            log.warning("replacing Ray actor %d after %d failures", chunk.actor, slot.failures)
            ray.kill(slot.handle, no_restart=True)
            self._slots[chunk.actor] = _Slot(self._new_actor())

    def _cached(self, record: Record) -> Result | None:
        if self._cache is None:
            return None
        entry = self.registry.entry(record.domain)
        verdict = self._cache.get(cache_key(entry.id, record))
        if verdict is None:
            return None
        return Result(record.id, record.domain, verdict, entry.id, 0.0, record.group, record.meta)

    def _store(self, record: Record, result: Result) -> None:
        if self._cache is not None:
            self._cache.put(cache_key(result.verifier, record), result.verdict)


class _Run:
    """One call of :meth:`RayBackend.score_rows`: chunking, dispatch, retries, reordering."""

    def __init__(
        self,
        backend: RayBackend,
        items: Iterable[Record | Result],
        skip_ids: frozenset[str] | set[str],
    ) -> None:
        self.backend = backend
        self.source = iter(items)
        self.skip_ids = skip_ids
        self.ready: dict[int, Result] = {}
        self.inflight: dict[Any, _Chunk] = {}
        self.chunk: list[tuple[int, Record]] = []
        self.seq = 0
        self.exhausted = False
        options = backend.ray_options
        self.capacity = max(1, len(backend.actors)) * options.chunks_per_actor

    def results(self) -> Iterator[Result]:
        next_out = 0
        limit = 4 * self.capacity * self.backend.ray_options.chunk_size
        while True:
            self._fill(limit)
            while next_out in self.ready:
                yield self.ready.pop(next_out)
                next_out += 1
            if not self.inflight:
                if self.exhausted and not self.chunk:
                    return
                continue
            done, _ = ray.wait(list(self.inflight), num_returns=1)
            for ref in done:
                self._collect(ref)

    def _fill(self, limit: int) -> None:
        size = self.backend.ray_options.chunk_size
        while not self.exhausted and len(self.inflight) < self.capacity and len(self.ready) < limit:
            item = next(self.source, None)
            if item is None:
                self.exhausted = True
                break
            if item.id in self.skip_ids:
                continue
            self._add(item)
            if len(self.chunk) >= size:
                self._send(_Chunk(self.chunk))
                self.chunk = []
        if self.chunk and len(self.inflight) < self.capacity:
            self._send(_Chunk(self.chunk))
            self.chunk = []

    def _add(self, item: Record | Result) -> None:
        seq, self.seq = self.seq, self.seq + 1
        if isinstance(item, Result):
            if self.backend.options.strict:
                raise InputError(f"record {item.id!r}: {item.verdict.message}")
            self.ready[seq] = item
            return
        cached = self.backend._cached(item)
        if cached is not None:
            self.ready[seq] = cached
        else:
            self.chunk.append((seq, item))

    def _send(self, chunk: _Chunk) -> None:
        self.inflight[self.backend._dispatch(chunk)] = chunk

    def _collect(self, ref: Any) -> None:
        chunk = self.inflight.pop(ref)
        try:
            results: list[Result] = ray.get(ref)
        except ray.exceptions.RayError as exc:
            if isinstance(exc, ray.exceptions.ActorUnavailableError) and self._wait(chunk):
                return
            self.backend._returned(chunk, failed=True)
            self._retry(chunk, exc)
            return
        self.backend._returned(chunk, failed=False)
        chunk.unavailable_since = None
        for (seq, record), result in zip(chunk.items, results, strict=True):
            self.backend._store(record, result)
            self.ready[seq] = result

    def _wait(self, chunk: _Chunk) -> bool:
        """Resend a chunk whose actor Ray is restarting, with backoff, within restart_wait_s."""
        now = time.monotonic()
        if chunk.unavailable_since is None:
            chunk.unavailable_since = now
        if now - chunk.unavailable_since > self.backend.ray_options.restart_wait_s:
            return False
        self.backend._returned(chunk, failed=None)
        time.sleep(min(1.0, 0.05 * 2**chunk.waits))
        chunk.waits += 1
        self._send(chunk)
        return True

    def _retry(self, chunk: _Chunk, exc: BaseException) -> None:
        reason = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc) else ''}"
        chunk.failures.append(reason)
        if chunk.attempts < self.backend.ray_options.retries:
            chunk.attempts += 1
            log.warning("Ray chunk of %d items failed (%s); retrying", len(chunk.items), reason)
            self._send(chunk)
            return
        message = (
            f"the Ray actor scoring this item failed {len(chunk.failures)} times (last: {reason})"
        )
        for seq, record in chunk.items:
            entry_id = self.backend.registry.entry(record.domain).id
            self.ready[seq] = Result(
                record.id,
                record.domain,
                Verdict.error(message),
                entry_id,
                0.0,
                record.group,
                record.meta,
            )


_REMOTE: Any = None


def _remote_actor_class() -> Any:
    global _REMOTE
    if _REMOTE is None:
        _REMOTE = ray.remote(ScoringActor)
    return _REMOTE


AUTH_MODE = "RAY_AUTH_MODE"
TOKEN_SOURCES = ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
GCS_WAIT = "RAY_gcs_server_port_wait_time_s"  # Ray's connect attempts (about 1 s each)


def _init_ray(address: str | None, connect_timeout_s: float = 30.0) -> None:
    if address is None:
        ray.init(include_dashboard=False, logging_level=logging.WARNING)
        return
    target = gcs_target(address)
    if target is not None:
        check_reachable(address, *target, timeout_s=connect_timeout_s)
    token = token_source()
    if AUTH_MODE not in os.environ:
        # Ray turns token auth on by itself only for a local cluster it finds ("auto"); with an
        # explicit address it would connect without the token and be refused. Token mode
        # against a cluster without it is worse: the join works and every actor dies (the
        # head cannot call back a driver that wants tokens). So the head is asked first.
        needs = _needs_token(address, connect_timeout_s)
        if needs and token is None:
            raise ConfigError(connect_failure(address, TokenRequiredError(), None))
        if needs:
            _refresh_ray_auth()
    previous = os.environ.get(GCS_WAIT)
    if previous is None:
        os.environ[GCS_WAIT] = str(max(1, int(connect_timeout_s)))
    try:
        ray.init(address=address, logging_level=logging.WARNING)
    except (ConnectionError, ray.exceptions.AuthenticationError) as exc:
        raise ConfigError(connect_failure(address, exc, token)) from None
    finally:
        if previous is None:
            os.environ.pop(GCS_WAIT, None)


class TokenRequiredError(Exception):
    """The head refused a request without a token (what :func:`_needs_token` found)."""

    def __str__(self) -> str:
        return "the head requires token auth (RAY_AUTH_MODE=token on the cluster)"


PROBE = """
import sys
from ray._raylet import InnerGcsClient
from ray.exceptions import AuthenticationError
try:
    InnerGcsClient.standalone(sys.argv[1], None, int(sys.argv[2]))
except AuthenticationError:
    print("token")
except Exception as exc:
    print("other", type(exc).__name__, str(exc)[:300])
else:
    print("open")
"""
"""Asks the GCS at an address for its cluster id without a token, in a process of its own
(Ray reads its settings once per process; this one's stay as they were)."""


def _needs_token(address: str, timeout_s: float) -> bool:
    """Whether the Ray head at ``address`` refuses requests without a token.

    ``ray://`` (the Ray Client server) and ``auto`` / ``local`` are not asked: for those, a
    token this process has means token mode, as before. Raises :class:`ConfigError` when what
    answers at the address is not a Ray head (its GCS port).
    """
    if address in ("auto", "local") or address.startswith("ray://"):
        return token_source() is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
    env["RAY_gcs_rpc_server_connect_timeout_s"] = str(max(1, int(timeout_s / 3)))
    command = [sys.executable, "-c", PROBE, address, str(int(timeout_s * 1000))]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True,
                              timeout=timeout_s + 15, check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        answer = ["other", f"no answer within {timeout_s:g} s"]
    else:
        answer = (done.stdout.strip().splitlines() or [f"other probe exit {done.returncode}"])[
            -1
        ].split(" ", 2)
    if answer[0] in ("token", "open"):
        return answer[0] == "token"
    raise ConfigError(
        f"cannot join the Ray cluster at {address}: what answers there is not a Ray head's GCS "
        f"({' '.join(answer[1:])}). Give the head's GCS address (HOST:6379 by default, as "
        "`ray start --head` prints it), or ray://HOST:10001 for the Ray Client server"
    )


def gcs_target(address: str) -> tuple[str, int] | None:
    """Host and port to probe for ``address``; ``None`` for ``auto`` / ``local`` (Ray finds it)."""
    if address in ("auto", "local"):
        return None
    rest = address.split("://", 1)[1] if "://" in address else address
    host, sep, port = rest.rpartition(":")
    if not sep or not port.isdigit():
        raise ConfigError(f"Ray address {address!r} is not HOST:PORT or ray://HOST:PORT")
    return host.strip("[]") or "127.0.0.1", int(port)


def check_reachable(address: str, host: str, port: int, *, timeout_s: float) -> None:
    """Raise :class:`ConfigError` unless a TCP connection to ``host:port`` opens in time."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return
    except TimeoutError:
        reason = f"no answer within {timeout_s:g} s"
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
    raise ConfigError(
        f"cannot reach the Ray cluster at {address} ({reason}); check the address and that "
        "its head node is running (ray status on the head)"
    )


def token_source() -> str | None:
    """Where this process would take a Ray auth token from, or ``None`` when it has none."""
    for name in TOKEN_SOURCES:
        if os.environ.get(name):
            return f"${name}"
    default = os.path.join(os.path.expanduser("~"), ".ray", "auth_token")
    return default if os.path.isfile(default) else None


def connect_failure(address: str, exc: BaseException, token: str | None) -> str:
    """The message for a failed ``ray.init(address=...)``: what failed and what to check."""
    mode = os.environ.get(AUTH_MODE, "unset")
    where = f"the token from {token}" if token else "no token"
    return (
        f"cannot join the Ray cluster at {address}: {exc}. This process sent {where} "
        f"({AUTH_MODE}={mode}). A cluster with token auth on refuses a missing or wrong token: "
        "give this process the head's token (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or "
        "~/.ray/auth_token, as the head's `ray get-auth-token` prints it)"
    )


def _refresh_ray_auth() -> None:
    # Ray caches its config at import; this is Ray's own switch to token mode (what it runs for
    # an "auto" address when a token exists)
    setup = importlib.import_module("ray._private.authentication.authentication_token_setup")
    setup._enable_token_auth()
