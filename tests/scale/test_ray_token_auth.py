"""``--backend ray --address`` against a real Ray 2.60 head with token auth on, and addresses
that cannot be reached: scores with the token, or a clear assay error in bounded time.

One head (``ray start --head --block`` with ``RAY_AUTH_MODE=token``) serves the module; each
client is an ``assay score`` process with its own ``HOME``, so the token it has (or not) is the
``~/.ray/auth_token`` a user would have, and ``RAY_AUTH_MODE`` is unset, as on a user's shell.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from assay.backends.ray_backend import _init_ray, gcs_target
from assay.errors import ConfigError

RAY = Path(sys.executable).parent / "ray"
HEAD_FLAGS = ["--include-dashboard=false", "--disable-usage-stats"]
RECORDS = [
    {"id": "a", "domain": "math", "response": "so \\boxed{12}", "reference": "12"},
    {"id": "b", "domain": "math", "response": "so \\boxed{13}", "reference": "12"},
]


_RAY_FIXED_PORTS = {8265, 52365, *range(10002, 20000)}  # Ray's defaults: dashboard, agent, workers


def _free_ports(count: int) -> list[int]:
    """Distinct free ports, none of them a port Ray gives one of its components by default.

    All probes stay bound until every port is chosen, so no two are the same (a GCS port that
    happened to be 52365 once failed the head: "used by other components").
    """
    probes: list[socket.socket] = []
    ports: list[int] = []
    try:
        while len(ports) < count:
            probe = socket.socket()
            probes.append(probe)
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
            if port not in _RAY_FIXED_PORTS:
                ports.append(port)
    finally:
        for probe in probes:
            probe.close()
    return ports


def _clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_AUTH", "RAY_ADDRESS"))}
    env["HOME"] = str(home)
    return env


@dataclass
class _Head:
    port: int
    token: str
    root: Path

    def client_home(self, name: str, token: str | None) -> Path:
        home = self.root / name
        (home / ".ray").mkdir(parents=True, exist_ok=True)
        if token is not None:
            (home / ".ray" / "auth_token").write_text(token)
        return home


@contextlib.contextmanager
def _started_head(root: Path, token: str | None) -> Iterator[_Head]:
    """A ``ray start --head --block`` head: with token auth on when ``token`` is given."""
    port, agent_port = _free_ports(2)
    env = _clean_env(root / "head-home")
    if token is not None:
        (root / "token").write_text(token)
        env.update({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(root / "token")})
    # Ray's socket paths live under its temp dir and must fit AF_UNIX's 107 bytes: a short
    # one of its own, not the test's (a deeper --basetemp, or pytest-xdist's, pushed them past)
    short = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
    temp = f"--temp-dir={short}"
    log = (root / "head.log").open("w")
    process = subprocess.Popen(
        [
            str(RAY),
            "start",
            "--head",
            f"--port={port}",
            "--num-cpus=2",
            # its own agent port: the default (52365) could clash with the GCS port chosen here
            f"--dashboard-agent-listen-port={agent_port}",
            "--block",
            *HEAD_FLAGS,
            temp,
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 240
        while True:  # the GCS port opens once the head is up
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"ray head did not start: {(root / 'head.log').read_text()}")
                time.sleep(0.5)
        yield _Head(port, token or "", root)
    finally:
        # ray start --block stops what it started on SIGTERM, slowly on a loaded machine; its
        # processes share its process group, which is killed after a short grace
        with contextlib.suppress(ProcessLookupError):  # a head that failed has gone already
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        log.close()
        shutil.rmtree(short, ignore_errors=True)


@pytest.fixture(scope="module")
def head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Head]:
    with _started_head(tmp_path_factory.mktemp("ray-auth"), secrets.token_hex(24)) as started:
        yield started


@pytest.fixture(scope="module")
def open_head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Head]:
    """A head without token auth (Ray's default before 2.5x, and clusters that keep it off)."""
    with _started_head(tmp_path_factory.mktemp("ray-open"), None) as started:
        yield started


def _score(head: _Head, home: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    records = home / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    command = [sys.executable, "-m", "assay.cli", "score", str(records), "--backend", "ray"]
    command += ["--address", f"127.0.0.1:{head.port}", "--workers", "1", "--actors", "1"]
    return subprocess.run(
        [*command, *extra],
        env=_clean_env(home),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_token_in_home_joins_the_cluster(head: _Head) -> None:
    # ~/.ray/auth_token and no RAY_AUTH_MODE: Ray itself would connect without the token for an
    # explicit address and be refused; assay turns token mode on
    done = _score(head, head.client_home("with-token", head.token))
    assert done.returncode == 0, done.stderr[-2000:]
    verdicts = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(v["id"], v["status"]) for v in verdicts] == [("a", "correct"), ("b", "incorrect")]


@pytest.mark.parametrize(
    ("name", "token", "says"),
    [("no-token", None, "sent no token"), ("wrong-token", "0" * 48, "sent the token from")],
)
def test_refused_token_is_a_clear_error(
    head: _Head, name: str, token: str | None, says: str
) -> None:
    done = _score(head, head.client_home(name, token), "--connect-timeout", "3")
    assert done.returncode == 2, done.stderr[-2000:]
    assert "assay: cannot join the Ray cluster at 127.0.0.1:" in done.stderr
    assert says in done.stderr
    assert "RAY_AUTH_TOKEN" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("token", [None, "0" * 48], ids=["no-token", "stray-token"])
def test_a_head_without_token_auth_is_joined_whatever_token_this_process_has(
    open_head: _Head, token: str | None
) -> None:
    # a ~/.ray/auth_token left from another cluster must not switch token mode on: against a
    # head without it, the join worked and every actor died (all 'error', exit 6)
    done = _score(open_head, open_head.client_home(f"open-{token is None}", token))
    assert done.returncode == 0, done.stderr[-2000:]
    verdicts = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(v["id"], v["status"]) for v in verdicts] == [("a", "correct"), ("b", "incorrect")]


def test_a_service_that_is_not_ray_is_named_as_such(tmp_path: Path) -> None:
    # an HTTP server where the GCS should be (the dashboard's port, a typo): not a token problem
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", "0", "--bind", "127.0.0.1"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().split("port ")[1].split(" ")[0])
        head = _Head(port, "", tmp_path)
        started = time.monotonic()
        done = _score(head, head.client_home("not-ray", "0" * 48), "--connect-timeout", "3")
        assert time.monotonic() - started < 60
    finally:
        server.kill()
        server.wait()
    assert done.returncode == 2, done.stderr[-2000:]
    assert "is not a Ray head's GCS" in done.stderr, done.stderr[-2000:]
    assert "token" not in done.stderr.split("assay: ", 1)[1].split(".", 1)[0]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1:{closed}",  # refused at once
        "ray://127.0.0.1:{closed}",
    ],
)
def test_unreachable_address_fails_in_bounded_time(address: str) -> None:
    (closed,) = _free_ports(1)
    with pytest.raises(ConfigError, match="cannot reach the Ray cluster at"):
        _init_ray(address.format(closed=closed), connect_timeout_s=2.0)


@pytest.mark.parametrize(
    ("address", "target"),
    [
        ("auto", None),
        ("10.0.0.5:6379", ("10.0.0.5", 6379)),
        ("ray://head.example:10001", ("head.example", 10001)),
        ("[::1]:6379", ("::1", 6379)),
    ],
)
def test_gcs_target(address: str, target: tuple[str, int] | None) -> None:
    assert gcs_target(address) == target


def test_bad_address_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="not HOST:PORT"):
        gcs_target("headnode")
