"""The Ray backend survives a node dying mid-batch: nothing lost, the same verdicts as local.

A real multi-node cluster on this machine (``ray.cluster_utils.Cluster``: separate raylet
processes): a head with no CPU for the driver, a node hosting the one scoring actor, and a spare
node added afterwards for Ray to restart the actor on. Its own module, so it gets its own cluster;
Ray is shut down at module end. The GCS health check is tightened so the dead node is noticed in
about a second rather than Ray's default of many seconds.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray
import ray.exceptions
from ray._private.ray_constants import PROCESS_TYPE_RAYLET
from ray.cluster_utils import Cluster
from scale_verifiers import math_and_probe_registry

from assay.backends.ray_backend import RayBackend, RayOptions
from assay.records import RawRow
from assay.registry import Registry
from assay.runner import ScoreOptions, Scorer

ROOT = Path(__file__).resolve().parents[2]
MATH_CASES = ROOT / "fixtures" / "math" / "cases.jsonl"
FAST_NODE_DEATH = {
    "health_check_initial_delay_ms": 0,
    "health_check_period_ms": 200,
    "health_check_timeout_ms": 500,
    "health_check_failure_threshold": 3,
}


@pytest.fixture(scope="module")
def registry() -> Registry:
    return math_and_probe_registry()


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    cluster = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 0,
            "include_dashboard": False,
            "_system_config": FAST_NODE_DEATH,
        },
    )
    try:
        ray.init(address=cluster.address, log_to_driver=False)
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()  # type: ignore[no-untyped-call]


def test_node_killed_mid_batch_loses_nothing(
    cluster: Cluster, registry: Registry, tmp_path: Path
) -> None:
    doomed = cluster.add_node(num_cpus=1)
    options = ScoreOptions(workers=1)
    with RayBackend(options, RayOptions(actors=1, chunk_size=8), registry) as backend:
        actor = backend.actors[0]
        assert node_of(actor, cluster) is doomed  # the only node with a CPU hosts the actor
        spare = cluster.add_node(num_cpus=1)  # where Ray can restart the actor
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        removed: list[int] = []

        def kill_the_node() -> None:
            with open(fifo, encoding="utf-8") as handle:  # an item of the batch is running
                removed.append(int(handle.read()))
            cluster.remove_node(doomed, allow_graceful=False)  # SIGKILL its raylet and workers

        killer = threading.Thread(target=kill_the_node, daemon=True)
        killer.start()
        rows = math_rows(24) + command_rows(["ok"] * 8 + [f"fifo-parent:{fifo}"] + ["ok"] * 8)
        remote = list(backend.score_rows(rows))
        killer.join()
        assert removed  # the node died while the batch was being scored
        # the serving actor now lives on the surviving node: restarted there by Ray, or (on a
        # loaded machine, where its restart kept a chunk failing past max_restarts) replaced there
        # by the backend; either way it is the backend's current handle that must be asked
        assert node_of(backend.actors[0], cluster) is spare
    with Scorer(options, registry) as scorer:
        local = list(scorer.score_rows(rows))
    assert [r.id for r in remote] == [r.id for r in local] == [row_id(row) for row in rows]
    assert [(r.id, r.status, r.verdict.message) for r in remote] == [
        (r.id, r.status, r.verdict.message) for r in local
    ]
    math_ids = {row_id(row) for row in rows[:24]}
    assert [r.verdict for r in remote if r.id in math_ids] == [
        r.verdict for r in local if r.id in math_ids
    ]
    assert {r.status.value for r in remote} >= {"correct", "incorrect"}


def node_of(actor: Any, cluster: Cluster) -> Any:
    """The cluster node whose raylet started the actor's process (waits while Ray restarts it)."""
    for _ in range(600):
        try:
            pid = int(ray.get(actor.pid.remote(), timeout=60))
            break
        except ray.exceptions.ActorUnavailableError:
            time.sleep(0.1)
    else:
        raise AssertionError("the actor did not come back")
    stat = Path(f"/proc/{pid}/stat").read_text()
    parent = int(stat.rpartition(")")[2].split()[1])
    for node in cluster.worker_nodes:
        if node.all_processes[PROCESS_TYPE_RAYLET][0].process.pid == parent:
            return node
    raise AssertionError(f"actor pid {pid} has no raylet of this cluster as parent")


def math_rows(limit: int) -> list[RawRow]:
    lines = MATH_CASES.read_text(encoding="utf-8").splitlines()[:limit]
    return [RawRow(i, json.loads(line)) for i, line in enumerate(lines, start=1)]


def command_rows(commands: list[str]) -> list[RawRow]:
    return [
        RawRow(100 + i, {"id": f"c{i}", "domain": "scaleprobe", "response": c, "reference": "x"})
        for i, c in enumerate(commands, start=1)
    ]


def row_id(row: RawRow) -> str:
    return str(row.data["id"])
