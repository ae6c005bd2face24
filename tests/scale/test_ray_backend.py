"""The Ray backend on a real local Ray cluster: same verdicts as local, actor death loses nothing.

One cluster for the module (4 logical CPUs on this machine's cores: two 1-worker actors for the
module's backend, one for the CLI run). Kept to a few tests: starting Ray costs seconds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray
import ray.exceptions
from scale_verifiers import math_and_probe_registry

import assay
from assay.backends import open_backend
from assay.backends.ray_backend import RayBackend, RayOptions
from assay.cli import main as cli_main
from assay.errors import ConfigError
from assay.records import RawRow
from assay.registry import Registry
from assay.runner import ScoreOptions, Scorer

ROOT = Path(__file__).resolve().parents[2]
MATH_CASES = ROOT / "fixtures" / "math" / "cases.jsonl"


@pytest.fixture(scope="module")
def registry() -> Registry:
    return math_and_probe_registry()


@pytest.fixture(scope="module")
def backend(registry: Registry) -> Iterator[RayBackend]:
    ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False)
    try:
        options = ScoreOptions(workers=1)
        with RayBackend(options, RayOptions(actors=2, chunk_size=8), registry) as backend:
            yield backend
    finally:
        ray.shutdown()


def actor_pid(actor: Any) -> int:
    """The actor's pid, waiting while Ray restarts it."""
    for _ in range(600):
        try:
            return int(ray.get(actor.pid.remote()))
        except ray.exceptions.ActorUnavailableError:
            time.sleep(0.1)
    raise AssertionError("the actor did not come back")


def math_rows(limit: int) -> list[RawRow]:
    lines = MATH_CASES.read_text(encoding="utf-8").splitlines()[:limit]
    return [RawRow(i, json.loads(line)) for i, line in enumerate(lines, start=1)]


def command_rows(*commands: str) -> list[RawRow]:
    return [
        RawRow(i, {"id": f"c{i}", "domain": "scaleprobe", "response": c, "reference": "x"})
        for i, c in enumerate(commands, start=1)
    ]


def test_same_verdicts_as_local(backend: RayBackend, registry: Registry) -> None:
    rows = math_rows(60) + command_rows("wrong", "fail", "nonsense")
    rows.append(RawRow(99, {"id": "bad", "domain": "math"}))  # a bad row stays a verdict
    remote = list(backend.score_rows(rows))
    with Scorer(ScoreOptions(workers=1), registry) as scorer:
        local = list(scorer.score_rows(rows))
    assert [r.id for r in remote] == [r.id for r in local]
    assert [r.verdict for r in remote] == [r.verdict for r in local]
    assert {r.status.value for r in remote} >= {"correct", "incorrect", "error", "unparsable"}


def test_python_api_scores_on_ray(backend: RayBackend) -> None:
    rows = [json.loads(line) for line in MATH_CASES.read_text().splitlines()[:6]]
    first = assay.score(rows, workers=1, backend="ray", actors=1)
    again = assay.score(rows, workers=1, backend="ray", actors=1)  # the same warm actor
    local = assay.score(rows, workers=1)
    assert [r.verdict for r in first] == [r.verdict for r in again] == [r.verdict for r in local]


def test_workers_stay_warm_between_batches(backend: RayBackend) -> None:
    def worker_pids() -> set[int]:
        results = backend.score_rows(command_rows(*["ok"] * 16))
        return {int(r.verdict.checks[0].evidence["pid"]) for r in results}

    first = worker_pids()
    assert worker_pids() <= first  # the second batch ran on the same worker processes


def test_actor_killed_mid_batch_loses_nothing(backend: RayBackend, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    before = sorted(ray.get([actor.pid.remote() for actor in backend.actors]))
    killed: list[int] = []

    def kill_the_actor() -> None:
        with open(fifo, encoding="utf-8") as handle:  # an item of the batch names its actor
            pid = int(handle.read())
        killed.append(pid)
        os.kill(pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_the_actor)
    killer.start()
    commands = ["ok"] * 20 + [f"fifo-parent:{fifo}"] + ["ok"] * 20
    results = list(backend.score_rows(command_rows(*commands)))
    killer.join()
    assert killed and killed[0] in before  # one of the two actors died mid-batch
    assert [r.id for r in results] == [f"c{i}" for i in range(1, 42)]
    assert [r.status.value for r in results] == ["correct"] * 41  # its chunk was retried
    after = sorted(actor_pid(actor) for actor in backend.actors)
    assert killed[0] not in after  # Ray restarted the actor; the backend kept using it


def test_cli_scores_on_the_running_cluster(backend: RayBackend, tmp_path: Path) -> None:
    rows = MATH_CASES.read_text(encoding="utf-8").splitlines()[:12]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(rows) + "\n")
    out = tmp_path / "out.jsonl"
    address = ray.get_runtime_context().gcs_address
    command = [sys.executable, "-m", "assay.cli", "score", str(source), "-o", str(out)]
    command += ["--backend", "ray", "--address", address, "--actors", "1", "--workers", "1"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    written = [json.loads(line) for line in out.read_text().splitlines()]
    expected = [json.loads(row)["meta"]["expected_status"] for row in rows]
    assert [w["status"] for w in written] == expected


def exit_code(argv: list[str]) -> int:
    try:
        return cli_main(argv)
    except SystemExit as exc:  # argparse refuses a bad choice
        return int(exc.code or 0)


@pytest.mark.parametrize(
    "argv",
    [
        ["--address", "127.0.0.1:1"],  # a cluster address without --backend ray
        ["--actors", "2"],  # actors are a Ray setting too
        ["--actors", "0"],  # a falsy value is still a Ray setting given
        ["--backend", "spark"],  # only local and ray exist
    ],
    ids=["address-needs-ray", "actors-needs-ray", "zero-actors-needs-ray", "unknown-backend"],
)
def test_cli_refuses_ray_options_without_ray(argv: list[str], tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("")
    assert exit_code(["score", str(source), *argv]) == 2


@pytest.mark.parametrize(
    "ray_options",
    [
        RayOptions(actors=0),  # no actor could score anything
        RayOptions(actors=-1),  # once an empty actor list, then an IndexError mid-batch
        RayOptions(chunk_size=0),
    ],
    ids=["zero-actors", "negative-actors", "zero-chunk"],
)
def test_ray_backend_refuses_bad_settings(ray_options: RayOptions) -> None:
    with pytest.raises(ConfigError, match="at least 1"):
        RayBackend(ScoreOptions(workers=1), ray_options)


def test_open_backend_refuses_unknown_names() -> None:
    with pytest.raises(ConfigError, match="local, ray"):
        open_backend("spark", ScoreOptions())
