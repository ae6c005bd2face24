"""Mesh: time per verdict for a 20k-face pair, by check; warm GL context vs a fresh one per render.

Same run, same meshes:

- A 20,000-face torus target and a candidate torus 1 % larger (20,000 faces), scored by
  ``MeshVerifier.verify`` with a warm worker (target prepared, GL context open); then each
  check's share of that verdict, timed one by one with the same library calls.
- Self-intersection: assay's KD-tree broad phase + vectorised Möller test against open3d's
  ``is_self_intersecting`` (all pairs), on the same candidate.
- Renders: depth renders (128x128) of the 20k-face candidate from the four canonical views with
  one reused context, against a fresh ``OffscreenRenderer`` per render.

- Adversarial cost: the self-intersection search on shapes that break naive broad phases
  (a manifold3d drilled sphere with long slivers, fans, a plate with 81 holes, 2000 boxes
  piled on one point, 900 parallel slivers whose boxes all overlap, 200k even faces): time,
  node pairs visited and peak traced memory, against the KD-tree broad phase of mesh@1.0.6
  (kept below as ``kdtree_candidate_pairs``) run in a child process capped at 4 GB and 120 s,
  same run. Then the whole check (validity, manifold, IoU, four renders) of meshes at the
  200k-face limit and of every adversarial shape, each in a fresh process with BLAS/OpenMP at
  one thread: CPU time, ratio to trimesh's own checks of the same mesh, peak RSS and "budget
  met" against the budget in docs/mesh.md (under 3 s and 1 GB on one core).

Run: ``python bench/mesh_bench.py [--renders 40] [--verdicts 5] [--only cost]``. Prints times
and ratios.
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
    kdtree = timed(lambda: kdtree_candidate_pairs(vertices, faces), 3)
    o3 = o3d.geometry.TriangleMesh(
        o3d.utility.Vector3dVector(vertices), o3d.utility.Vector3iVector(faces)
    )
    theirs = timed(o3.is_self_intersecting, 1)
    print(f"self-intersection, 20k faces: BVH search + Möller {ours * 1000:.1f} ms, open3d "
          f"all-pairs {theirs * 1000:.1f} ms: {theirs / ours:.1f}x; the old KD-tree broad phase "
          f"alone {kdtree * 1000:.1f} ms")  # fmt: skip


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


def kdtree_candidate_pairs(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """The broad phase of mesh@1.0.6, unchanged (the baseline): a KD-tree over centroids
    queried within twice the 99th-percentile radius, big triangles against every box."""
    from scipy.spatial import cKDTree

    triangles = vertices[faces]
    lo, hi = triangles.min(axis=1), triangles.max(axis=1)
    centroids = triangles.mean(axis=1)
    radius = np.linalg.norm(triangles - centroids[:, None, :], axis=2).max(axis=1)
    limit = max(
        float(np.percentile(radius, 99)), min(float(radius.max()), 4 * float(np.median(radius)))
    )
    is_big = radius > limit
    small = np.flatnonzero(~is_big)
    found = [small[cKDTree(centroids[small]).query_pairs(2 * limit + 1e-12, output_type="ndarray")]]
    big = np.flatnonzero(is_big)
    for start in range(0, len(big), 64):
        chunk = big[start : start + 64]
        meets = np.all((lo[None] <= hi[chunk, None]) & (hi[None] >= lo[chunk, None]), axis=2)
        rows, others = np.nonzero(meets)
        once = ~is_big[others] | (others > chunk[rows])
        found.append(np.stack([chunk[rows][once], others[once]], axis=1))
    pairs = np.sort(np.concatenate([p.reshape(-1, 2) for p in found]).astype(np.int64), axis=1)
    close = np.linalg.norm(centroids[pairs[:, 0]] - centroids[pairs[:, 1]], axis=1) <= (
        radius[pairs[:, 0]] + radius[pairs[:, 1]]
    )
    pairs = pairs[close]
    boxes = np.all((lo[pairs[:, 0]] <= hi[pairs[:, 1]]) & (hi[pairs[:, 0]] >= lo[pairs[:, 1]]), 1)
    return pairs[boxes]


def _from_manifold(solid: Any) -> trimesh.Trimesh:
    out = solid.to_mesh()
    return trimesh.Trimesh(out.vert_properties[:, :3], out.tri_verts, process=False)


def adversarial_shapes() -> dict[str, Callable[[], trimesh.Trimesh]]:
    import manifold3d as m

    def drilled() -> trimesh.Trimesh:
        hole = m.Manifold.cylinder(40, 3, 3, 24).translate((0, 0, -20))
        return _from_manifold(m.Manifold.sphere(10, 200) - hole)

    def plate() -> trimesh.Trimesh:
        holes = [m.Manifold.cylinder(10, 1, 1, 64).translate((5 + 10 * i, 5 + 10 * j, -1))
                 for i in range(9) for j in range(9)]  # fmt: skip
        union = m.Manifold.batch_boolean(holes, m.OpType.Add)
        return _from_manifold(m.Manifold.cube((100, 100, 2)) - union)

    def pile() -> trimesh.Trimesh:
        rng = np.random.default_rng(7)
        boxes = []
        for _ in range(2000):
            box = trimesh.creation.box((1, 1, 1))
            box.apply_transform(trimesh.transformations.random_rotation_matrix(rng.random(3)))
            boxes.append(box)
        return trimesh.util.concatenate(boxes)

    def slabs() -> trimesh.Trimesh:
        parts = []
        for i in range(900):
            z = 1e-3 * i
            v = np.array([[0, 0, z], [100, 0, z + 50], [0, 100, z + 50], [0, 0, z + 5e-4]])
            slab = trimesh.Trimesh(v, [[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]], process=False)
            parts.append(slab)
        return trimesh.util.concatenate(parts)

    return {
        "drilled sphere (manifold3d, slivers)": drilled,
        "plate with 81 holes (manifold3d)": plate,
        "cylinder, 8192 sections (fans)": lambda: trimesh.creation.cylinder(5, 10, sections=8192),
        "2000 rotated boxes on one point": pile,
        "900 parallel slivers, boxes overlap": slabs,
        "torus, 200k even faces": lambda: trimesh.creation.torus(
            20, 6, major_sections=450, minor_sections=222
        ),
    }


def _old_broad_phase(name: str, queue: Any) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    from assay.verifiers.mesh.validity import merged

    mesh = merged(adversarial_shapes()[name]())
    vertices, faces = np.asarray(mesh.vertices), np.asarray(mesh.faces, dtype=np.int64)
    start = time.perf_counter()
    try:
        pairs = kdtree_candidate_pairs(vertices, faces)
        queue.put((time.perf_counter() - start, f"{len(pairs)} pairs"))
    except MemoryError:
        queue.put((time.perf_counter() - start, "MemoryError at 4 GB"))


def _peak(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    import tracemalloc

    tracemalloc.start()
    start = time.process_time()  # CPU time: the shared machine's load shows less
    result = fn()
    seconds = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return result, seconds, peak


def adversarial_cost() -> None:
    import multiprocessing

    from assay.verifiers.mesh.intersect import self_intersections
    from assay.verifiers.mesh.validity import merged

    print("self-intersection search on adversarial shapes (new: sliced pieces, Morton BVH, "
          "budget; old: KD-tree of mesh@1.0.6, 4 GB / 120 s):")  # fmt: skip
    context = multiprocessing.get_context("fork")
    for name, build in adversarial_shapes().items():
        mesh = merged(build())
        vertices, faces = np.asarray(mesh.vertices), np.asarray(mesh.faces, dtype=np.int64)
        scale = float(np.linalg.norm(mesh.extents))
        search, seconds, peak = _peak(
            lambda v=vertices, f=faces, e=scale: self_intersections(v, f, 1e-9 * e, enough=1000)
        )
        queue = context.Queue()
        child = context.Process(target=_old_broad_phase, args=(name, queue))
        child.start()
        child.join(120)
        if child.is_alive():
            child.kill()
            child.join()
            old = "did not finish in 120 s"
        elif queue.empty():
            old = f"died (exit {child.exitcode})"
        else:
            old_s, what = queue.get()
            ratio = f", {old_s / seconds:.1f}x" if seconds > 0 else ""
            old = f"{old_s * 1000:.0f} ms ({what}){ratio}"
        verdict = ("crossing" if len(search.pairs) else "no crossing") if search.decided else (
            "undecided: too_costly")  # fmt: skip
        print(f"  {name:<40} {len(faces):>7} faces  new {seconds * 1000:7.0f} ms, peak "
              f"{peak:6.0f} MB, {search.candidates / len(faces):6.1f} visits/face, {verdict}; "
              f"old {old}")  # fmt: skip


def _needles(count: int = 50_000) -> trimesh.Trimesh:
    """``count`` parallel needles (thin tetrahedra 100 long, 0.01 wide), 4 faces each."""
    side = int(np.ceil(np.sqrt(count)))
    index = np.arange(count)
    offset = np.stack([(index % side) * 0.02, (index // side) * 0.02, np.zeros(count)], axis=1)
    base = np.array([[0, 0, 0], [0.01, 0, 0], [0, 0.01, 0], [0.003, 0.003, 100.0]])
    tetra = np.array([[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]])
    vertices = (base[None] + offset[:, None]).reshape(-1, 3)
    faces = (tetra[None] + 4 * index[:, None, None]).reshape(-1, 3)
    return trimesh.Trimesh(vertices, faces, process=False)


def large_shapes() -> dict[str, Callable[[], trimesh.Trimesh]]:
    """Shapes at the documented face limit (200k faces) for the whole check, and the worst
    case: a mesh past the pieces' cap that spends the whole search budget (too_costly)."""
    return {
        "torus, 200k even faces": lambda: trimesh.creation.torus(
            20, 6, major_sections=450, minor_sections=222
        ),
        "cylinder, 50k sections (200k faces: fans and slivers)": lambda: trimesh.creation.cylinder(
            5, 10, sections=50_000
        ),
        "cylinder, 30k sections (120k faces): spends the whole search budget": lambda: (
            trimesh.creation.cylinder(5, 10, sections=30_000)
        ),
        "50k needles (200k faces, 50k bodies)": _needles,
        "500 coincident spheres (160k faces)": lambda: trimesh.util.concatenate(
            [trimesh.creation.icosphere(2, radius=5.0)] * 500
        ),
    }


BUDGET_SECONDS = 3.0
"""The whole check of a mesh up to the face limit takes under this much CPU (docs/mesh.md)."""
BUDGET_MB = 1024.0
"""... and under this peak resident memory."""


def whole_check_shapes() -> dict[str, Callable[[], trimesh.Trimesh]]:
    """The shapes of the whole check: those at the face limit and the adversarial ones."""
    return {**large_shapes(), **adversarial_shapes()}


def _warm_worker() -> None:
    """What a worker has done before its first verdict: the lazy imports of validity
    (scipy.sparse), manifold3d and the renderer, on a small box (not timed)."""
    from assay.verifiers.mesh.similarity import to_manifold, volumetric_iou
    from assay.verifiers.mesh.validity import validity

    box = trimesh.creation.box((1, 1, 1))
    _, solid, _ = validity(box)
    volumetric_iou(to_manifold(solid), to_manifold(solid))


def _whole_check(name: str, queue: Any) -> None:
    """In a fresh process: one shape's whole check, by part, and trimesh's own checks of the
    same mesh as the baseline (same process, same run)."""
    import resource

    from assay.domains.mesh import checks as build
    from assay.verifiers.mesh.render import VIEWS, Renderer
    from assay.verifiers.mesh.similarity import to_manifold, volumetric_iou
    from assay.verifiers.mesh.validity import validity

    _warm_worker()
    shape = whole_check_shapes()[name]()
    candidate = shape.copy()
    candidate.apply_scale(1.01)
    renderer = Renderer(128)
    center, extent = shape.bounds.mean(axis=0), float(np.linalg.norm(shape.extents))
    renderer.depths(shape, center, extent, list(VIEWS))  # the target's views, as in a worker
    target_solid = None
    parts: dict[str, float] = {}

    def part(label: str, fn: Callable[[], Any]) -> Any:
        start = time.process_time()
        result = fn()
        parts[label] = time.process_time() - start
        return result

    report, mesh, bodies = part("validity", lambda: validity(candidate))
    verdict = "valid"
    if mesh is None or report.too_costly or not report.watertight:
        verdict = f"invalid: {report.too_costly or 'not watertight'}"
    elif report.self_intersections:
        verdict = "invalid: self-intersecting"
    else:
        if len(bodies) > 1:
            part("interpenetration", lambda: build.interpenetration_check(bodies))
        target_solid = to_manifold(validity(shape)[1])
        solid = part("manifold", lambda: to_manifold(mesh))
        part("iou", lambda: volumetric_iou(solid, target_solid))
        part("renders (4 views)", lambda: renderer.depths(mesh, center, extent, list(VIEWS)))
    fresh = shape.copy()
    start = time.process_time()
    checked = trimesh.Trimesh(fresh.vertices, fresh.faces, process=True)
    _ = checked.is_watertight, checked.is_winding_consistent, checked.volume
    baseline = time.process_time() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put((len(candidate.faces), verdict, parts, baseline, peak, report.cost))


_ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def full_check_200k() -> None:
    """The whole check of meshes at the face limit and of the adversarial shapes, each in a
    fresh process (peak RSS) with BLAS/OpenMP at one thread, against the budget."""
    import multiprocessing
    import os

    for variable in _ONE_THREAD:  # inherited by the spawned children
        os.environ[variable] = "1"
    context = multiprocessing.get_context("spawn")
    print("whole check at the face limit and of the adversarial shapes (CPU seconds of one "
          "process, all its threads, imports warm as in a worker; baseline: trimesh's own "
          "process + is_watertight + is_winding_consistent + volume of the same mesh, same "
          f"process; peak RSS includes ~300 MB of libraries and the target; budget "
          f"{BUDGET_SECONDS:.0f} s and {BUDGET_MB / 1024:.0f} GB):")  # fmt: skip
    met_all = True
    for name in whole_check_shapes():
        queue = context.Queue()
        child = context.Process(target=_whole_check, args=(name, queue))
        child.start()
        faces, verdict, parts, baseline, peak, cost = queue.get(timeout=600)
        child.join()
        total = sum(parts.values())
        met = total < BUDGET_SECONDS and peak < BUDGET_MB
        met_all &= met
        shares = ", ".join(f"{k} {v:.2f}" for k, v in parts.items())
        print(f"  {name:<55} {faces:>7} faces  {total:5.2f} s ({total / baseline:4.1f}x "
              f"baseline {baseline:.2f} s), peak RSS {peak:5.0f} MB, budget met: "
              f"{'yes' if met else 'NO'}; {verdict}; {shares}; "
              f"{cost.get('search_visits', 0) / faces:.1f} visits/face")  # fmt: skip
    print(f"  budget met on every shape: {'yes' if met_all else 'NO'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renders", type=int, default=40, help="renders per method")
    parser.add_argument("--verdicts", type=int, default=5, help="warm verdicts to average")
    parser.add_argument("--only", choices=["cost"], help="run only the adversarial-cost part")
    args = parser.parse_args()
    if args.only == "cost":
        adversarial_cost()
        full_check_200k()
        return
    render_ratio(args.renders)  # first: no other context is alive yet
    verdict_breakdown(args.verdicts)
    self_intersection_ratio()
    adversarial_cost()
    full_check_200k()


if __name__ == "__main__":
    main()
