"""``assay serve`` on uvicorn + Starlette, attacked the way a hostile or broken client would.

Each test runs the real server process (``assay serve --port 0``) on 127.0.0.1 and talks to
it with raw sockets: clients that never finish a request head, that send headers and no body,
that never read their answer, that disconnect or reset mid-request; connections queued in the
kernel when SIGTERM arrives; bodies nested too deeply for the JSON parser; verdicts full of lone
surrogates and NaN. Waits are hang guards (a generous socket or process timeout), never timing
assertions.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import math
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from assay.rewards.adapters.serve import MISSING_EXTRA, RewardServer, ServeConfig
from hostile_verifier import HostileOutputVerifier

from assay.registry import Registry

ASSAY = [sys.executable, "-m", "assay.cli"]
GUARD_S = 60.0  # a hang guard: far above any timeout the server is given here


@dataclass
class Served:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def stop(self) -> int:
        """SIGTERM, then the exit code (a hang guard, not a timing assertion)."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=GUARD_S)

    def stderr(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@contextlib.contextmanager
def serve(tmp_path: Path, *args: str) -> Iterator[Served]:
    log = tmp_path / f"serve-{time.monotonic_ns()}.log"
    with log.open("wb") as handle:
        command = [*ASSAY, "serve", "--port", "0", "--workers", "1", *args]
        process = subprocess.Popen(command, stderr=handle)
    try:
        deadline = time.monotonic() + GUARD_S
        while "listening on" not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"server did not start: {log.read_text(errors='replace')}")
            time.sleep(0.02)
        line = next(x for x in log.read_text().splitlines() if "listening on" in x)
        yield Served(process, int(line.rsplit(":", 1)[1]), log)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=GUARD_S)


def request_bytes(
    path: str, body: bytes, *, length: int | None = None, close: bool = True
) -> bytes:
    head = [
        f"POST {path} HTTP/1.1",
        "Host: 127.0.0.1",
        "Content-Type: application/json",
        f"Content-Length: {len(body) if length is None else length}",
    ]
    if close:
        head.append("Connection: close")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def read_to_end(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (raises if it does not within the guard)."""
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def status_of(answer: bytes) -> int:
    line = answer.split(b"\r\n", 1)[0]
    return int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else 0


def json_of(answer: bytes) -> Any:
    return json.loads(answer.split(b"\r\n\r\n", 1)[1].decode("utf-8"))


def reset(sock: socket.socket) -> None:
    """Close with RST instead of FIN (SO_LINGER 0), as a crashed client does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


MATH = json.dumps({"query": ["\\boxed{4}"], "labels": ["4"]}).encode()
PARTIAL_HEAD = b"POST /get_reward HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le"


@pytest.mark.parametrize(
    ("sent", "status"),
    [
        # a request head that never ends (slowloris)
        (PARTIAL_HEAD, 408),
        # a complete head promising a body that never comes
        (request_bytes("/get_reward", b"", length=len(MATH)), 408),
        # half of the body, then nothing
        (request_bytes("/get_reward", MATH[:5], length=len(MATH)), 408),
        # a connection that never sends a byte is closed without an answer
        (b"", 0),
    ],
    ids=["partial-head", "headers-no-body", "half-body", "silent"],
)
def test_slow_client_hits_the_read_timeout(tmp_path: Path, sent: bytes, status: int) -> None:
    with serve(tmp_path, "--read-timeout", "2") as served:
        sock = connect(served.port)
        sock.sendall(sent)
        answer = read_to_end(sock)  # returns only because the server closes the connection
        assert status_of(answer) == status, answer
        if status:
            assert "not received" in json_of(answer)["error"]
        # the server is still serving
        good = connect(served.port)
        good.sendall(request_bytes("/get_reward", MATH))
        assert json_of(read_to_end(good))["rewards"] == [1.0]
        assert served.stop() == 0


def test_slow_clients_cannot_hold_shutdown(tmp_path: Path) -> None:
    # a read timeout far beyond the guard: only the bounded shutdown can close these
    with serve(tmp_path, "--read-timeout", "3600") as served:
        silent = connect(served.port)
        partial = connect(served.port)
        partial.sendall(PARTIAL_HEAD)
        no_body = connect(served.port)
        no_body.sendall(request_bytes("/get_reward", b"", length=len(MATH)))
        time.sleep(0.3)  # let the server take the three connections (not a timing assertion)
        assert served.stop() == 0
        assert read_to_end(silent) == b""
        # those that sent part of a request are told the server is going away
        for sock in (partial, no_body):
            answer = read_to_end(sock)
            assert status_of(answer) == 503, answer
        assert "Traceback" not in served.stderr()


def test_client_that_never_reads_is_cut_off(tmp_path: Path) -> None:
    # an answer of megabytes (each record's meta is echoed) to a client that reads nothing
    records = [
        {
            "id": str(i),
            "domain": "math",
            "response": "\\boxed{1}",
            "reference": "1",
            "meta": {"pad": "x" * 20_000},
        }
        for i in range(200)
    ]
    body = json.dumps({"records": records}).encode()
    with serve(tmp_path, "--read-timeout", "2") as served:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(GUARD_S)
        sock.connect(("127.0.0.1", served.port))
        sock.sendall(request_bytes("/verify", body))
        # the server stays responsive, and shuts down although the answer is never read
        good = connect(served.port)
        good.sendall(request_bytes("/get_reward", MATH))
        assert json_of(read_to_end(good))["rewards"] == [1.0]
        assert served.stop() == 0
        sock.close()


def test_sigterm_answers_connections_queued_in_the_kernel(tmp_path: Path) -> None:
    with serve(tmp_path) as served:
        # warm the worker, then freeze the server: the kernel still completes handshakes and
        # buffers the requests, but nobody accepts them
        warm = connect(served.port)
        warm.sendall(request_bytes("/get_reward", MATH))
        assert status_of(read_to_end(warm)) == 200
        os.kill(served.process.pid, signal.SIGSTOP)
        try:
            queued = [connect(served.port) for _ in range(24)]
            for sock in queued:
                sock.sendall(request_bytes("/get_reward", MATH))
            os.kill(served.process.pid, signal.SIGTERM)
        finally:
            os.kill(served.process.pid, signal.SIGCONT)
        answers = [read_to_end(sock) for sock in queued]
        # each queued request is either scored or told to retry: none is reset or dropped
        statuses = [status_of(answer) for answer in answers]
        assert all(status in (200, 503) for status in statuses), statuses
        for answer in answers:
            if status_of(answer) == 503:
                assert b"retry-after: 1" in answer.lower()
        assert served.process.wait(timeout=GUARD_S) == 0


def test_shutdown_takes_the_accept_queue_before_closing(probe_registry: Registry) -> None:
    # Deterministic form of the race above: the event loop is held while 24 clients connect
    # and send, so the kernel holds all of them unaccepted when the shutdown callback runs (it
    # is queued before the loop sees the listening socket readable). Closing the listening
    # socket then would reset every one of them; each must be answered 503 instead.
    server = RewardServer(ServeConfig(port=0, workers=1, domain="probe"), probe_registry).start()
    loop = server._stack.server.loop
    assert loop is not None
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        held.set()
        release.wait(GUARD_S)

    try:
        loop.call_soon_threadsafe(hold)
        assert held.wait(GUARD_S)
        queued = [connect(server.port) for _ in range(24)]
        for sock in queued:
            sock.sendall(
                request_bytes("/get_reward", json.dumps({"query": ["ok"], "labels": [""]}).encode())
            )
        server.begin_shutdown()  # queued behind `hold`, ahead of the accept callback
    finally:
        release.set()
    answers = [read_to_end(sock) for sock in queued]
    server.shutdown()
    assert [status_of(answer) for answer in answers] == [503] * len(queued)
    assert all(json_of(answer) == {"error": "server shutting down"} for answer in answers)
    with pytest.raises(OSError):  # and nothing listens any more
        connect(server.port)


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        # deeper than the C parser recurses (a RecursionError once dropped the connection):
        # read cut at 200 levels, then judged by its shape, the whole body or the one item
        (b"[" * 100_000 + b"]" * 100_000, 400, "expected {'records': [...]}"),
        (b'{"records": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", 200, "expected an object"),
        # parsable, but too deep to hand to a worker: a verdict for that item, not a crash
        (
            json.dumps(
                {
                    "records": [
                        {
                            "id": "d",
                            "domain": "math",
                            "response": "1",
                            "reference": json.loads("[" * 900 + "]" * 900),
                        }
                    ]
                }
            ).encode(),
            200,
            "nests deeper than 100 levels",
        ),
    ],
    ids=["array", "inside-object", "deep-reference"],
)
def test_deep_body(tmp_path: Path, body: bytes, status: int, needle: str) -> None:
    with serve(tmp_path, "--max-body-mb", "1") as served:
        sock = connect(served.port)
        sock.sendall(request_bytes("/verify", body))
        answer = read_to_end(sock)
        assert status_of(answer) == status, answer[:300]
        assert needle in answer.decode("utf-8")
        assert served.stop() == 0
        assert "Traceback" not in served.stderr()


def _abandon_after(sent: bytes, how: str) -> Any:
    def attack(port: int) -> None:
        sock = connect(port)
        sock.sendall(sent)
        time.sleep(0.05)
        if how == "reset":
            reset(sock)
        else:
            sock.close()

    return attack


DISCONNECTS = {
    "partial-head-close": _abandon_after(PARTIAL_HEAD, "close"),
    "partial-head-reset": _abandon_after(PARTIAL_HEAD, "reset"),
    "half-body-close": _abandon_after(
        request_bytes("/get_reward", MATH[:7], length=len(MATH)), "close"
    ),
    "half-body-reset": _abandon_after(
        request_bytes("/get_reward", MATH[:7], length=len(MATH)), "reset"
    ),
    # the whole request, gone before the answer: the answer is written to a closed socket
    "before-answer-close": _abandon_after(request_bytes("/get_reward", MATH), "close"),
    "before-answer-reset": _abandon_after(request_bytes("/get_reward", MATH), "reset"),
    "keep-alive-reset": _abandon_after(request_bytes("/get_reward", MATH, close=False), "reset"),
}


def test_disconnects_leave_no_traceback(tmp_path: Path) -> None:
    with serve(tmp_path) as served:
        for attack in DISCONNECTS.values():
            attack(served.port)
        # still serving after all of them
        good = connect(served.port)
        good.sendall(request_bytes("/get_reward", MATH))
        assert json_of(read_to_end(good))["rewards"] == [1.0]
        time.sleep(0.5)  # answers to the gone clients are written (not a timing assertion)
        assert served.stop() == 0
        log = served.stderr()
    assert "Traceback" not in log, log
    assert "Exception" not in log, log
    assert "ERROR" not in log, log


def test_hostile_verdicts_are_strict_json_over_http(probe_registry: Registry) -> None:
    registry = Registry()
    registry.register(HostileOutputVerifier)
    server = RewardServer(ServeConfig(port=0, workers=1, domain="hostile-output"), registry)
    server.start()
    try:
        texts = ["plain", "lone \ud800", "\udfff pair \ud83d\ude00", "raise:\ud800 boom"]
        bodies = {
            "/verify": {
                "records": [
                    {
                        "id": t,
                        "domain": "hostile-output",
                        "response": t,
                        "reference": t,
                        "meta": {t: [math.nan, math.inf]},
                    }
                    for t in texts
                ]
            },
            "/get_reward": {"query": texts, "labels": texts},
        }
        for path, body in bodies.items():
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=GUARD_S)
            data = json.dumps(body, ensure_ascii=True, allow_nan=True).encode()
            connection.request("POST", path, data, {"Content-Type": "application/json"})
            response = connection.getresponse()
            raw = response.read()
            connection.close()
            assert response.status == 200, raw[:300]
            payload = json.loads(raw.decode("utf-8"), parse_constant=_reject)
            if path == "/verify":
                results = payload["results"]
                assert [r["status"] for r in results] == ["incorrect"] * 3 + ["error"]
                assert results[1]["id"] == "lone \ufffd"
                assert results[0]["checks"][0]["evidence"]["nan"] == "NaN"
            else:
                assert payload["status"] == ["incorrect"] * 3 + ["error"]
                assert payload["extra_logs"]["masked"] == [0.0, 0.0, 0.0, 1.0]
    finally:
        server.shutdown()


def _reject(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def test_missing_extra_names_it() -> None:
    # uvicorn made unimportable, as on an install without the 'serve' extra
    code = (
        "import sys; sys.modules['uvicorn'] = None; from assay.cli import main; "
        "sys.exit(main(['serve', '--port', '0']))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=GUARD_S, check=False
    )
    assert proc.returncode == 1, proc.stderr
    assert MISSING_EXTRA in proc.stderr
    assert "pip install 'assay[serve]'" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("head", "status", "needle"),
    [
        # no Content-Length: the body's size must be known before it is read
        (
            b"POST /get_reward HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            411,
            b"Content-Length",
        ),
        # chunked instead: refused the same way
        (
            b"POST /get_reward HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
            b"Connection: close\r\n\r\n3\r\n{}\n\r\n0\r\n\r\n",
            411,
            b"Content-Length",
        ),
        # a head the HTTP parser rejects is answered by uvicorn itself
        (
            b"POST /get_reward HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
            400,
            b"Invalid HTTP",
        ),
        (b"NOT HTTP AT ALL\r\n\r\n", 400, b"Invalid HTTP"),
        # a head still incomplete past h11's 16 KB limit is refused at once, not buffered on
        (b"POST / HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 20_000, 400, b"Invalid HTTP"),
    ],
    ids=["no-length", "chunked", "bad-length", "not-http", "huge-head"],
)
def test_malformed_heads(tmp_path: Path, head: bytes, status: int, needle: bytes) -> None:
    with serve(tmp_path) as served:
        sock = connect(served.port)
        sock.sendall(head)
        answer = read_to_end(sock)
        assert status_of(answer) == status, answer[:300]
        assert needle in answer
        assert served.stop() == 0
        assert "Traceback" not in served.stderr()


def test_get_on_a_post_endpoint_is_405_in_json(tmp_path: Path) -> None:
    with serve(tmp_path) as served:
        connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=GUARD_S)
        connection.request("GET", "/verify")
        response = connection.getresponse()
        payload = json.loads(response.read())
        connection.close()
        assert response.status == 405
        assert response.headers["Allow"] == "POST"
        assert "not allowed" in payload["error"]
        assert served.stop() == 0
