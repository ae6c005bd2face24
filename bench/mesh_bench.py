"""Mesh: time per verdict for a 20k-face pair, by check; warm GL context vs a fresh one per render.

Same run, same meshes:

- A 20,000-face torus target and a candidate torus 1 % larger (20,000 faces), scored by
  ``MeshVerifier.verify`` with a warm worker (target prepared, GL context open); then each
  check's share of that verdict, timed one by one with the same library calls.
- Self-intersection: assay's KD-tree broad phase + vectorised Möller test against open3d's
  ``is_self_intersecting`` (all pairs), on the same candidate.
- Renders: depth renders (128x128) of the 20k-face candidate from the four canonical views with
  one reused context, against a fresh ``OffscreenRenderer`` per render.

Run: ``python bench/mesh_bench.py [--renders 40] [--verdicts 5]``. Prints times and ratios.
"""

from __future__ import annotations

import argparse
import base64
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import trimesh


def pair() -> tuple[trimesh.Trimesh, trimesh.Trimesh]:
    target = trimesh.creation.torus(20, 6, major_sections=100, minor_sections=100)
    candidate = target.copy()
    candidate.apply_scale(1.01)
    return target, candidate


def timed(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # warm caches and lazy imports
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def verdict_breakdown(repeat: int) -> None:
    from assay.domains.mesh import checks as build
    from assay.domains.mesh.task import parse_task
    from assay.domains.mesh.verifier import MeshVerifier
    from assay.verifiers.mesh.load import decode_mesh
    from assay.verifiers.mesh.similarity import (
        chamfer,
        fscore,
        sample_points,
        surface_distances,
        to_manifold,
        volumetric_iou,
    )
    from assay.verifiers.mesh.validity import validity

    from assay.types import Record

    target, candidate = pair()
    encoded = base64.b64encode(target.export(file_type="stl")).decode()
    reference = {
        "target": {"format": "stl", "base64": encoded},
        "dimensions": {"extents": [52, 52, 12], "tolerance": 1.0},
        "genus": 1,
        "stable": True,
    }  # fmt: skip
    response = base64.b64encode(candidate.export(file_type="stl")).decode()
    verifier = MeshVerifier()
    verifier.setup()
    record = Record("bench", "mesh", response, reference)
    prepare = time.perf_counter()
    verdict = verifier.verify(record)  # first call prepares the target (samples, floor, renders)
    first = time.perf_counter() - prepare
    total = timed(lambda: verifier.verify(record), repeat)
    print(f"20k-face pair ({len(candidate.faces)} faces each), verdict {verdict.status.value} "
          f"score {verdict.score:.3f}")  # fmt: skip
    print(f"  first verdict (prepares the target)  {first * 1000:8.1f} ms")
    print(f"  warm verdict, mean of {repeat}            {total * 1000:8.1f} ms")

    task = parse_task(reference)
    data = base64.b64decode(response)
    raw = decode_mesh(data, "stl")
    _, mesh, _ = validity(raw)
    assert mesh is not None
    prepared = verifier._targets.get(dict(task.target or {}), task.samples)  # type: ignore[union-attr]
    points = sample_points(mesh, task.samples, 2)
    parts: dict[str, Callable[[], Any]] = {
        "load (base64 STL decode)": lambda: decode_mesh(data, "stl"),
        "validity (merge, watertight, winding, bodies, self-intersection)": lambda: validity(raw),
        "constraints (dimensions, genus, stability)": lambda: build.constraint_checks(
            task, mesh, [mesh], float(mesh.volume)
        ),
        "chamfer (sample 2048 + KD-tree both ways)": lambda: chamfer(
            sample_points(mesh, task.samples, 2), prepared.samples, prepared.diagonal
        ),
        "fscore (point-to-surface both ways)": lambda: fscore(
            surface_distances(points, prepared.mesh), surface_distances(prepared.samples, mesh), 0.5
        ),
        "manifold + iou (candidate solid, exact booleans)": lambda: volumetric_iou(
            to_manifold(mesh), prepared.solid
        ),
        "render (4 views, 128x128, warm context)": lambda: build.render_check(
            task, mesh, prepared, verifier.renderer
        ),
    }
    times = {name: timed(fn, repeat) for name, fn in parts.items()}
    times["rest (parsing the response, volumes, check evidence)"] = max(
        0.0, total - sum(times.values())
    )
    for name, seconds in times.items():
        print(f"    {name:<66}{seconds * 1000:8.1f} ms  {seconds / total:6.1%} of a verdict")


def self_intersection_ratio() -> None:
    import open3d as o3d
    from assay.verifiers.mesh.intersect import self_intersections

    _, candidate = pair()
    vertices, faces = np.asarray(candidate.vertices), np.asarray(candidate.faces, dtype=np.int64)
    ours = timed(lambda: self_intersections(vertices, faces, 1e-9), 3)
    o3 = o3d.geometry.TriangleMesh(
        o3d.utility.Vector3dVector(vertices), o3d.utility.Vector3iVector(faces)
    )
    theirs = timed(o3.is_self_intersecting, 1)
    print(f"self-intersection, 20k faces: KD-tree + Möller {ours * 1000:.1f} ms, open3d all-pairs "
          f"{theirs * 1000:.1f} ms: {theirs / ours:.1f}x")  # fmt: skip


def render_ratio(renders: int) -> None:
    from assay.verifiers.mesh.render import VIEWS, Renderer

    _, candidate = pair()
    center = np.asarray(candidate.bounds.mean(axis=0))
    extent = float(np.linalg.norm(candidate.extents))
    views = [list(VIEWS)[i % len(VIEWS)] for i in range(renders)]
    # fresh contexts first: pyrender's delete() terminates the EGL display that every context
    # of the process shares, so a live warm context must not see another one deleted
    start = time.perf_counter()
    for view in views:
        fresh = Renderer(128)
        fresh.depth(candidate, center, extent, view)
        fresh.close()
    fresh_s = time.perf_counter() - start
    warm = Renderer(128)
    warm.depth(candidate, center, extent, "+z")
    start = time.perf_counter()
    for view in views:
        warm.depth(candidate, center, extent, view)
    warm_s = time.perf_counter() - start
    warm.close()
    print(f"renders of the 20k-face mesh, 128x128, platform {warm.platform}, {renders} each:")
    print(f"  one warm context          {renders / warm_s:8.1f} renders/s")
    print(f"  fresh context per render  {renders / fresh_s:8.1f} renders/s")
    print(f"  warm vs fresh             {fresh_s / warm_s:8.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renders", type=int, default=40, help="renders per method")
    parser.add_argument("--verdicts", type=int, default=5, help="warm verdicts to average")
    args = parser.parse_args()
    render_ratio(args.renders)  # first: no other context is alive yet
    verdict_breakdown(args.verdicts)
    self_intersection_ratio()


if __name__ == "__main__":
    main()
