"""``assay serve`` over real HTTP on 127.0.0.1 (ephemeral ports): protocol, limits, shutdown."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from assay.rewards.adapters.serve import RewardServer, ServeConfig

from assay.registry import Registry

TESTS = Path(__file__).resolve().parents[1]


def _post(
    port: int, path: str, body: Any, headers: dict[str, str] | None = None, raw: bytes | None = None
) -> tuple[int, dict[str, Any], http.client.HTTPMessage]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    data = raw if raw is not None else json.dumps(body).encode()
    connection.request("POST", path, data, {"Content-Type": "application/json", **(headers or {})})
    response = connection.getresponse()
    payload = json.loads(response.read())
    connection.close()
    # header names are case-insensitive (HTTP/1.1 servers may send them in lower case)
    return response.status, payload, response.headers


def _wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in 30 s")
        time.sleep(0.01)


@pytest.fixture(scope="module")
def server() -> Iterator[RewardServer]:
    running = RewardServer(ServeConfig(port=0, workers=2, max_batch=8, max_body_bytes=4096))
    running.start()
    yield running
    running.shutdown()


@pytest.fixture
def probe_server(probe_registry: Registry) -> Iterator[RewardServer]:
    config = ServeConfig(port=0, workers=1, queue=1, domain="probe", timeout_s=20)
    running = RewardServer(config, probe_registry).start()
    yield running
    running.shutdown()


def test_openrlhf_protocol(server: RewardServer) -> None:
    body = {
        "query": ["Q: 2+2? A: \\boxed{4}", "Q: 2+2? A: \\boxed{5}", "\\boxed{1}"],
        "prompts": ["Q: 2+2? A: ", "Q: 2+2? A: ", "other prompt"],
        # a per-label object routes the item; an unknown domain is masked
        "labels": ["4", "4", {"domain": "nope", "reference": "1"}],
    }
    status, payload, _ = _post(server.port, "/get_reward", body)
    assert status == 200
    assert payload["rewards"] == [1.0, 0.0, 0.0]
    assert payload["scores"] == payload["rewards"]
    assert payload["status"] == ["correct", "incorrect", "error"]
    assert payload["extra_logs"]["masked"] == [0.0, 0.0, 1.0]
    # the root path serves the same protocol, prompts are optional, JSON-text labels work
    body = {"query": ["\\boxed{3}"], "labels": ['{"domain": "math", "answer": "3"}']}
    assert _post(server.port, "/", body)[1]["rewards"] == [1.0]


def test_verify_endpoint(server: RewardServer) -> None:
    records = [
        {"id": "a", "domain": "math", "response": "\\boxed{1/2}", "reference": {"answer": "0.5"}},
        {"id": "a", "domain": "math", "response": "\\boxed{2}", "reference": "3"},
        {"id": "c", "response": "x"},  # no domain: masked, reward null
    ]
    status, payload, _ = _post(server.port, "/verify", {"records": records})
    assert status == 200
    results = payload["results"]
    assert [r["id"] for r in results] == ["a", "a", "c"]
    assert [r["status"] for r in results] == ["correct", "incorrect", "error"]
    assert [r["reward"] for r in results] == [1.0, 0.0, None]
    assert [r["masked"] for r in results] == [False, False, True]
    status, payload, _ = _post(server.port, "/verify", records[0])
    assert (status, payload["result"]["status"]) == (200, "correct")


def test_verify_endpoint_reads_chat_messages(server: RewardServer) -> None:
    # a trajectory posted as chat messages (an OpenAI-style conversation) is read as
    # assay score reads it: its calls are replayed, its last assistant message is the answer
    ask = {"role": "user", "content": "Please cancel W1001, I no longer need it."}
    call = {
        "id": "c1",
        "type": "function",
        "function": {
            "name": "cancel_order",
            "arguments": '{"order_id": "W1001", "reason": "no longer needed"}',
        },
    }
    goal = {"env": "retail", "goal": {"calls": [{"name": "cancel_order", "arguments": {
        "order_id": "W1001", "reason": "no longer needed"}}]}}  # fmt: skip
    done = [ask, {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"refund": 50.0}'},
            {"role": "assistant", "content": "Cancelled; $50.00 refunded."}]  # fmt: skip
    said = [ask, {"role": "assistant", "content": "Cancelled; $50.00 refunded."}]
    records = [
        {"id": "done", "domain": "agent", "response": done, "reference": goal},
        {"id": "said", "domain": "agent", "response": said, "reference": goal},
    ]
    status, payload, _ = _post(server.port, "/verify", {"records": records})
    assert status == 200, payload
    assert [r["status"] for r in payload["results"]] == ["correct", "incorrect"]


def test_many_concurrent_clients(server: RewardServer) -> None:
    failures: list[str] = []

    def client(n: int) -> None:
        for k in range(4):
            answer = n * 10 + k
            body = {"query": [f"\\boxed{{{answer}}}", "\\boxed{x}"], "labels": [str(answer)] * 2}
            status, payload, _ = _post(server.port, "/get_reward", body)
            if status != 200 or payload["rewards"] != [1.0, 0.0]:
                failures.append(f"client {n} request {k}: {status} {payload}")

    threads = [threading.Thread(target=client, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


@pytest.mark.parametrize(
    ("path", "raw", "status", "message"),
    [
        # not JSON at all
        ("/get_reward", b"{not json", 400, "not valid JSON"),
        # JSON, but not an object
        ("/get_reward", b"[1, 2]", 400, "JSON object"),
        # query must be a list of strings
        ("/get_reward", b'{"query": "one", "labels": ["1"]}', 400, "'query'"),
        # every query needs its label
        ("/get_reward", b'{"query": ["a", "b"], "labels": ["1"]}', 400, "'labels'"),
        ("/get_reward", b'{"query": ["a"], "prompts": [], "labels": ["1"]}', 400, "'prompts'"),
        # more items than --max-batch (8)
        (
            "/get_reward",
            json.dumps({"query": ["a"] * 9, "labels": ["1"] * 9}).encode(),
            400,
            "max-batch",
        ),
        ("/verify", json.dumps({"records": [{}] * 9}).encode(), 400, "max-batch"),
        ("/verify", b'{"records": {}}', 400, "'records'"),
        ("/verify", b"3", 400, "record"),
        # a body over --max-body-mb (4096 bytes here)
        ("/verify", b" " * 5000, 413, "over the limit"),
        ("/nowhere", b"{}", 404, "no endpoint"),
    ],
    ids=[
        "bad-json",
        "not-object",
        "query-not-list",
        "labels-short",
        "prompts-short",
        "too-many-openrlhf",
        "too-many-verify",
        "records-not-list",
        "verify-scalar",
        "too-large",
        "unknown-path",
    ],
)
def test_bad_requests(
    server: RewardServer, path: str, raw: bytes, status: int, message: str
) -> None:
    got, payload, _ = _post(server.port, path, None, raw=raw)
    assert got == status
    assert message in payload["error"]


def test_health(server: RewardServer) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", "/health")
    response = connection.getresponse()
    assert (response.status, json.loads(response.read())) == (200, {"status": "ok"})


def test_bearer_token() -> None:
    running = RewardServer(ServeConfig(port=0, workers=1, token="s3cret")).start()
    try:
        body = {"query": ["\\boxed{1}"], "labels": ["1"]}
        status, _payload, headers = _post(running.port, "/get_reward", body)
        assert status == 401
        assert headers["WWW-Authenticate"] == "Bearer"
        wrong = {"Authorization": "Bearer nope"}
        assert _post(running.port, "/get_reward", body, wrong)[0] == 401
        right = {"Authorization": "Bearer s3cret"}
        assert _post(running.port, "/get_reward", body, right)[1]["rewards"] == [1.0]
    finally:
        running.shutdown()


def _slow_request(port: int, out: list[Any], seconds: float = 1.0) -> threading.Thread:
    body = {"query": [f"sleep:{seconds}"], "labels": [""]}
    thread = threading.Thread(target=lambda: out.append(_post(port, "/get_reward", body)))
    thread.start()
    return thread


def test_full_queue_answers_503(probe_server: RewardServer) -> None:
    out: list[Any] = []
    thread = _slow_request(probe_server.port, out)
    _wait_until(lambda: probe_server.in_flight == 1)
    status, _payload, headers = _post(
        probe_server.port, "/get_reward", {"query": ["ok"], "labels": [""]}
    )
    assert status == 503
    assert headers["Retry-After"] == "1"
    thread.join()
    assert out[0][1]["rewards"] == [1.0]


def test_shutdown_finishes_request_in_flight(probe_server: RewardServer) -> None:
    out: list[Any] = []
    thread = _slow_request(probe_server.port, out)
    _wait_until(lambda: probe_server.in_flight == 1)
    probe_server.shutdown()
    thread.join()
    assert out[0][0] == 200
    assert out[0][1]["rewards"] == [1.0]
    with pytest.raises(OSError):
        _post(probe_server.port, "/get_reward", {"query": ["ok"], "labels": [""]})


def test_sigterm_finishes_request_in_flight(probe_registry: Registry) -> None:
    # the real signal path: serve() in the main thread, SIGTERM while a request is in flight
    config = ServeConfig(port=0, workers=1, domain="probe", timeout_s=20)
    running = RewardServer(config, probe_registry)
    out: list[Any] = []

    def client() -> None:
        thread = _slow_request(running.port, out)
        _wait_until(lambda: running.in_flight == 1)
        os.kill(os.getpid(), signal.SIGTERM)
        thread.join()

    previous = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    driver = threading.Thread(target=client)
    driver.start()
    try:
        running.serve()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    driver.join()
    assert out[0][0] == 200
    assert out[0][1]["rewards"] == [1.0]


def test_cli_serve_subprocess() -> None:
    # `assay serve` as a trainer launches it: a port, a request, SIGTERM, exit 0
    process = subprocess.Popen(
        [sys.executable, "-m", "assay.cli", "serve", "--port", "0", "--workers", "1"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert "listening on http://127.0.0.1:" in line, line
        port = int(line.rsplit(":", 1)[1])
        body = {"query": ["\\boxed{9}"], "labels": ["9"]}
        assert _post(port, "/get_reward", body)[1]["rewards"] == [1.0]
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _serve_with(tmp_path: Path, extra: list[str], env: dict[str, str]) -> tuple[int, int, int]:
    """``assay serve`` with ``extra`` and ``env``: (status without a token, with, exit code)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "assay.cli", "serve", "--port", "0", "--workers", "1", *extra],
        stderr=subprocess.PIPE,
        text=True,
        env={k: v for k, v in {**os.environ, **env}.items() if v},
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        if "listening on" not in line:
            return 0, 0, process.wait(timeout=60)
        port = int(line.rsplit(":", 1)[1])
        body = {"query": ["\\boxed{9}"], "labels": ["9"]}
        without = _post(port, "/get_reward", body)[0]
        with_token = _post(port, "/t/s3cret-tok/get_reward", body)[0]
        process.send_signal(signal.SIGTERM)
        return without, with_token, process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize(
    ("extra", "env", "file_text", "expected"),
    [
        # the token from the environment or a file, never from the process list
        ([], {"ASSAY_TOKEN": "s3cret-tok"}, None, (401, 200, 0)),
        (["--token-file", "{file}"], {"ASSAY_TOKEN": ""}, "s3cret-tok\n", (401, 200, 0)),
        # --token-file wins over the environment
        (["--token-file", "{file}"], {"ASSAY_TOKEN": "other"}, "s3cret-tok\n", (401, 200, 0)),
        (["--token", "s3cret-tok"], {"ASSAY_TOKEN": ""}, None, (401, 200, 0)),
        ([], {"ASSAY_TOKEN": ""}, None, (200, 200, 0)),  # no token anywhere: open
        (["--token-file", "{file}"], {}, "\n", (0, 0, 2)),  # an empty file is refused
        (["--token-file", "{file}.missing"], {}, None, (0, 0, 2)),
        (["--token", ""], {}, None, (0, 0, 2)),
    ],
)
def test_serve_token_sources(
    tmp_path: Path,
    extra: list[str],
    env: dict[str, str],
    file_text: str | None,
    expected: tuple[int, int, int],
) -> None:
    file = tmp_path / "token"
    if file_text is not None:
        file.write_text(file_text)
    args = [a.replace("{file}", str(file)) for a in extra]
    assert _serve_with(tmp_path, args, env) == expected


def test_a_body_over_the_limit_is_answered_413_to_a_client_that_writes_it_all_first(
    server: RewardServer,
) -> None:
    # urllib sends the whole body before it reads: a server that answered and closed with the
    # body unread reset the connection, and the client saw ConnectionResetError, not the 413
    import urllib.error
    import urllib.request

    body = b" " * (4 * 1024 * 1024)  # more than the socket buffers hold
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}/verify", data=body, method="POST",
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 413
    assert "over the limit" in json.loads(refused.value.read())["error"]
