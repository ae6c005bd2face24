"""Named checks of a mesh verdict, each with its evidence and a score in [0, 1].

Gate checks (validity and interpenetration) decide whether the mesh is a solid at all; the
graded checks (constraints, similarity, render, stability) are weighted into the score.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import trimesh
from assay.domains.mesh.target import CANDIDATE_SEED, PreparedTarget
from assay.domains.mesh.task import MeshTask
from assay.verifiers.mesh import physics
from assay.verifiers.mesh.clip import ClipScorer
from assay.verifiers.mesh.intersect import unique_inverse
from assay.verifiers.mesh.render import VIEWS, Renderer, compare_views
from assay.verifiers.mesh.similarity import (
    chamfer,
    fscore,
    sample_points,
    surface_distances,
    to_manifold,
    volumetric_iou,
)
from assay.verifiers.mesh.validity import MAX_BODIES, ValidityReport
from numpy.typing import NDArray

from assay.blame import TOO_COSTLY, ResponseFault
from assay.errors import AssayError
from assay.types import Check

log = logging.getLogger(__name__)
T = TypeVar("T")

__all__ = [
    "constraint_checks",
    "interpenetration_check",
    "manifold_check",
    "render_check",
    "similarity_checks",
    "validity_checks",
]


GEOMETRY = "geometry"
"""Check name: a geometry library raised on the response's mesh (its fault, see docs/mesh.md)."""


def guarded(names: tuple[str, ...], measure: Callable[[], T]) -> T | list[Check]:
    """``measure()``, or one failed check (score 0) per name when a library raises on the mesh.

    The response chose the geometry: a mesh that makes trimesh, shapely, open3d or manifold3d
    raise fails the checks it broke instead of turning the verdict into a masked ``error``,
    and a failed check keeps its weight (dropping it would raise the score). Errors of the
    verifier itself (:class:`~assay.errors.AssayError`, such as no GL context) and a
    :class:`~assay.blame.ResponseFault` pass through.
    """
    try:
        return measure()
    except (AssayError, ResponseFault):
        raise
    except Exception as exc:  # libraries raise anything on hostile geometry
        message = f"the mesh made the check raise {type(exc).__name__}: {str(exc)[:200]}"
        log.warning("mesh: %s (%s)", message, ", ".join(names))
        return [
            Check(name, False, 0.0, message, {"exception": type(exc).__name__}) for name in names
        ]


def _decay(excess: float, span: float) -> float:
    """1 at no excess, falling linearly to 0 at ``span`` beyond the threshold."""
    return float(min(1.0, max(0.0, 1.0 - excess / span))) if span > 0 else 0.0


def validity_checks(report: ValidityReport) -> list[Check]:
    """The validity gate: finite, non-degenerate, watertight, winding, volume, intersections."""
    if not report.finite:
        return [Check("finite", False, 0.0, "non-finite (NaN or inf) vertex coordinates")]
    if report.degenerate_faces is None:  # not measured at all
        return [_too_costly(report)]
    checks = [
        Check(
            "finite",
            True,
            1.0,
            "all coordinates finite",
            {
                "vertices": report.vertices,
                "faces": report.faces,
                "merged_vertices": report.merged_vertices,
            },
        ),
        Check(
            "non_degenerate",
            report.degenerate_faces == 0,
            None,
            f"{report.degenerate_faces} degenerate faces",
            {"degenerate_faces": report.degenerate_faces},
        ),
        Check(
            "watertight",
            bool(report.watertight),
            None,
            f"{report.boundary_edges} boundary and {report.nonmanifold_edges} non-manifold edges",
            {
                "boundary_edges": report.boundary_edges,
                "nonmanifold_edges": report.nonmanifold_edges,
            },
        ),
        Check(
            "winding",
            bool(report.winding_consistent),
            None,
            "consistent" if report.winding_consistent else "faces are wound inconsistently",
        ),
    ]
    if report.body_volumes or not report.watertight:  # unmeasured when the bodies cost too much
        checks.append(
            Check(
                "positive_volume",
                bool(report.positive_volume),
                None,
                "every body encloses positive volume"
                if report.positive_volume
                else "a body is open or inside out (normals point inward)",
                {"body_volumes": list(report.body_volumes)},
            )
        )
    if report.intersections_decided:
        checks.append(
            Check(
                "self_intersection",
                report.self_intersections == 0,
                None,
                f"{report.self_intersections} crossing triangle pairs",
                {
                    "pairs": report.self_intersections,
                    "examples": [list(p) for p in report.intersecting_pairs],
                    **report.cost,
                },
            )
        )
    if report.too_costly is not None:
        checks.append(_too_costly(report))
    return checks


def _too_costly(report: ValidityReport) -> Check:
    """The response's mesh costs more to check than its budget: its fault (assay.blame)."""
    message = f"too costly to check: {report.too_costly}"
    evidence = {"vertices": report.vertices, "faces": report.faces, **report.cost}
    return Check(TOO_COSTLY, False, 0.0, message, evidence)


def assembly_parts(raw: trimesh.Trimesh) -> list[trimesh.Trimesh]:
    """The parts of an assembly as the file indexes them: faces joined by shared vertex
    *indices* (not positions), so parts that touch stay apart. Empty when that does not give
    closed parts (a triangle soup such as STL: then the mesh is checked as one solid)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    faces = np.asarray(raw.faces, dtype=np.int64)
    n = len(raw.vertices)
    rows = np.repeat(np.arange(len(faces)), 3)
    graph = coo_matrix((np.ones(len(rows), np.int8), (rows, faces.reshape(-1))), (len(faces), n))
    count, labels = connected_components(graph @ graph.T, directed=False)
    if count < 2 or count > MAX_BODIES:
        return []
    parts = []
    for part in range(count):
        own = faces[labels == part]
        if len(own) < 4:  # no closed part has fewer faces: a soup, not parts
            return []
        corners = own.reshape(-1)
        first, local = unique_inverse(corners)
        mesh = trimesh.Trimesh(raw.vertices[corners[first]], local.reshape(-1, 3), process=False)
        parts.append(mesh)
    return parts


def assemble(
    raw: trimesh.Trimesh,
) -> tuple[trimesh.Trimesh, object, list[trimesh.Trimesh], float, list[Check]] | list[Check] | None:
    """Each part of an assembly (:func:`assembly_parts`) must be a valid solid on its own; the
    whole is their union. ``None`` when the file does not index separate closed parts.

    Returns ``(mesh, solid, parts, volume, gate)`` (the concatenated merged parts, the union's
    manifold, the merged parts, their total volume, the gate checks), or the failed gate
    checks of the first part that is not a solid (each named ``part <i>: ...``).
    """
    import manifold3d
    from assay.verifiers.mesh.validity import validity

    parts = assembly_parts(raw)
    if not parts:
        return None
    merged_parts: list[trimesh.Trimesh] = []
    solids: list[Any] = []
    volume = 0.0
    for index, part in enumerate(parts):
        report, mesh, _ = validity(part)
        gate = validity_checks(report)
        solid = manifold_check(mesh) if mesh is not None and all(c.passed for c in gate) else None
        if mesh is None or solid is None or isinstance(solid, Check):
            failed = [c for c in gate if not c.passed] or (
                [solid] if isinstance(solid, Check) else []
            )
            return [
                Check(
                    c.name, False, 0.0, f"part {index}: {c.message}", {**c.evidence, "part": index}
                )
                for c in failed
            ]
        merged_parts.append(mesh)
        solids.append(solid)
        volume += sum(report.body_volumes)
    union = manifold3d.Manifold.batch_boolean(solids, manifold3d.OpType.Add)
    whole: trimesh.Trimesh = trimesh.Trimesh(
        np.concatenate([p.vertices for p in merged_parts]),
        np.concatenate(
            [
                p.faces + offset
                for p, offset in zip(merged_parts, _offsets(merged_parts), strict=True)
            ]
        ),
        process=False,
    )
    gate = [
        Check(
            "parts",
            True,
            None,
            f"an assembly of {len(parts)} parts, each a valid solid",
            {"parts": len(parts), "faces": [len(p.faces) for p in merged_parts]},
        )
    ]
    return whole, union, merged_parts, volume, gate


def _offsets(parts: list[trimesh.Trimesh]) -> list[int]:
    sizes = [len(p.vertices) for p in parts]
    return [sum(sizes[:i]) for i in range(len(sizes))]


def manifold_check(mesh: trimesh.Trimesh) -> object:
    """The mesh as a manifold3d solid, or a failed ``manifold`` check when manifold3d refuses it.

    Validity already holds when this runs; manifold3d's own check is the last word, since the
    volumetric checks need its exact booleans.
    """
    try:
        return to_manifold(mesh)
    except ValueError as exc:
        return Check("manifold", False, None, str(exc))


def interpenetration_check(bodies: list[trimesh.Trimesh]) -> Check:
    """Bodies must not share volume (an overlap would be counted twice)."""
    try:
        shared = physics.interpenetration(bodies)
    except ValueError as exc:
        return Check("interpenetration", False, None, f"a body is not a solid: {exc}")
    total = sum(volume for _, _, volume in shared)
    return Check(
        "interpenetration",
        not shared,
        None,
        f"{len(shared)} overlapping body pairs, shared volume {total:.6g}",
        {
            "bodies": len(bodies),
            "pairs": [[i, j, v] for i, j, v in shared[:10]],
            "shared_volume": total,
        },
    )


def constraint_checks(
    task: MeshTask, mesh: trimesh.Trimesh, bodies: list[trimesh.Trimesh], volume: float
) -> list[Check]:
    """Dimensions, volume, body count, genus, holes, wall thickness and stability."""
    checks: list[Check] = []
    if task.extents is not None:
        extents = task.extents
        checks += guarded(
            ("dimensions",),
            lambda: [_dimensions(task, extents, np.asarray(mesh.extents, dtype=np.float64))],
        )
    if task.volume is not None:
        target = task.volume
        checks += guarded(("volume",), lambda: [_volume(task, target, volume)])
    if task.bodies is not None:
        wanted = task.bodies
        checks.append(_count("bodies", len(bodies), wanted))
    if task.genus is not None:
        genus = task.genus
        checks += guarded(
            ("genus",),
            lambda: [_count("genus", sum(physics.genus(body) for body in bodies), genus)],
        )
    if task.holes:
        checks += guarded(("holes",), lambda: [_holes(task, mesh)])
    if task.min_wall_thickness is not None:
        need = task.min_wall_thickness
        checks += guarded(("wall_thickness",), lambda: [_wall(task, need, mesh)])
    if task.stable:
        checks += guarded(("stability",), lambda: [_stability(mesh, task.up)])
    if task.on_ground is not None:
        checks.append(on_ground_check(task, mesh))
    return checks


def on_ground_check(task: MeshTask, mesh: trimesh.Trimesh) -> Check:
    """The part rests on the ground plane: its lowest point along ``up`` is at 0 (within the
    tolerance: ``on_ground.tolerance``, else 1e-4 of the bounding-box diagonal)."""
    axis = "xyz".index(task.up)
    lowest = float(mesh.bounds[0, axis])
    diagonal = float(np.linalg.norm(mesh.extents))
    tolerance = task.on_ground if task.on_ground else 1e-4 * diagonal
    gap = abs(lowest)
    return Check(
        "on_ground",
        gap <= tolerance,
        _decay(gap - tolerance, 0.1 * diagonal) if gap > tolerance else 1.0,
        f"lowest point at {task.up} = {lowest:.6g} (tolerance {tolerance:.3g} {task.units})",
        {"lowest": lowest, "tolerance": tolerance, "up": task.up, "units": task.units},
    )


def _volume(task: MeshTask, target: float, volume: float) -> Check:
    error = abs(volume - target) / target
    return Check(
        "volume",
        error <= task.volume_rel_tolerance,
        _decay(error - task.volume_rel_tolerance, 0.25),
        f"volume {volume:.6g} vs {target:.6g} {task.units}^3 (error {error:.3g})",
        {
            "volume": volume,
            "target": target,
            "relative_error": error,
            "rel_tolerance": task.volume_rel_tolerance,
            "units": task.units,
        },
    )


def _count(name: str, found: int, wanted: int) -> Check:
    return Check(
        name,
        found == wanted,
        float(found == wanted),
        f"{name} {found}, expected {wanted}",
        {name: found, "target": wanted},
    )


def _wall(task: MeshTask, need: float, mesh: trimesh.Trimesh) -> Check:
    p2, smallest = physics.wall_thickness(mesh, 256, CANDIDATE_SEED)
    return Check(
        "wall_thickness",
        p2 >= need,
        min(1.0, p2 / need),
        f"wall {p2:.4g} (2nd percentile of 256 rays), required {need:.4g} {task.units}",
        {"p2": p2, "min": smallest, "required": need, "units": task.units},
    )


def _stability(mesh: trimesh.Trimesh, up: str) -> Check:
    result = physics.stability(mesh, up)
    where = "inside" if result.stable else "outside"
    return Check(
        "stability",
        result.stable,
        float(result.stable),
        f"centre of mass {where} the support polygon (margin {result.margin:.4g})",
        {
            "margin": result.margin,
            "center_of_mass": list(result.center_of_mass),
            "support_area": result.support_area,
            "contact_points": result.contact_points,
        },
    )


def _dimensions(
    task: MeshTask, target: tuple[float, float, float], extents: NDArray[np.float64]
) -> Check:
    wanted = np.asarray(target, dtype=np.float64)
    got = np.sort(extents) if task.any_orientation else extents
    wanted = np.sort(wanted) if task.any_orientation else wanted
    errors = np.abs(got - wanted)
    relative = task.extents_rel_tolerance
    allowed = np.full(3, task.extents_tolerance) if relative is None else relative * np.abs(wanted)
    excess = float((errors - allowed).max())
    return Check(
        "dimensions",
        excess <= 0,
        _decay(max(excess, 0.0), 0.1 * float(wanted.max())),
        f"extents {np.round(got, 6).tolist()} vs {wanted.tolist()} ± "
        + (f"{task.extents_tolerance} {task.units}" if relative is None else f"{relative:.2%}"),
        {
            "extents": got.tolist(),
            "target": wanted.tolist(),
            "errors": errors.tolist(),
            "tolerance": allowed.tolist(),
            "rel_tolerance": relative,
            "units": task.units,
            "orientation": "any" if task.any_orientation else "fixed",
        },
    )


def _holes(task: MeshTask, mesh: trimesh.Trimesh) -> Check:
    found_by_axis = {
        axis: physics.hole_diameters(mesh, axis) for axis in {h.axis for h in task.holes}
    }
    left = {axis: list(found) for axis, found in found_by_axis.items()}
    matched = []
    for hole in task.holes:  # one found hole answers one required hole
        fits = [d for d in left[hole.axis] if abs(d - hole.diameter) <= hole.tolerance]
        if fits:
            left[hole.axis].remove(min(fits, key=lambda d: abs(d - hole.diameter)))
        matched.append(bool(fits))
    return Check(
        "holes",
        all(matched),
        sum(matched) / len(matched),
        f"{sum(matched)} of {len(matched)} required holes found",
        {
            "found": found_by_axis,
            "required": [[h.diameter, h.tolerance, h.axis] for h in task.holes],
            "matched": matched,
            "units": task.units,
        },
    )


def similarity_checks(
    task: MeshTask, mesh: trimesh.Trimesh, solid: object, target: PreparedTarget
) -> list[Check]:
    """Chamfer distance, F-score and volumetric IoU (of ``solid``, the mesh's manifold)."""
    thresholds = task.thresholds
    points = sample_points(mesh, task.samples, CANDIDATE_SEED)
    cd = chamfer(points, target.samples, target.diagonal)
    above = max(0.0, cd.normalized - target.floor)
    limit = thresholds["chamfer"]
    tau = thresholds["fscore_tau"] * target.diagonal
    f, precision, recall = fscore(
        surface_distances(points, target.mesh), surface_distances(target.samples, mesh), tau
    )
    iou, intersection, union = volumetric_iou(solid, target.solid)
    return [
        Check(
            "chamfer",
            above <= limit,
            _decay(above - limit, 4 * limit),
            f"CD {cd.normalized:.4g} of the diagonal "
            f"(noise floor {target.floor:.4g}, limit {limit})",
            {
                "raw": cd.raw,
                "normalized": cd.normalized,
                "noise_floor": target.floor,
                "above_floor": above,
                "threshold": limit,
                "forward": cd.forward,
                "backward": cd.backward,
                "squared": cd.squared,
                "diagonal": target.diagonal,
                "samples": task.samples,
            },
        ),
        Check(
            "fscore",
            f >= thresholds["fscore"],
            f,
            f"F-score {f:.4f} at tau {tau:.4g} (limit {thresholds['fscore']})",
            {
                "fscore": f,
                "precision": precision,
                "recall": recall,
                "tau": tau,
                "tau_fraction": thresholds["fscore_tau"],
                "threshold": thresholds["fscore"],
                "distances": "point-to-surface",
            },
        ),
        Check(
            "iou",
            iou >= thresholds["iou"],
            iou,
            f"volumetric IoU {iou:.4f} (limit {thresholds['iou']})",
            {
                "iou": iou,
                "intersection": intersection,
                "union": union,
                "threshold": thresholds["iou"],
            },
        ),
    ]


def render_check(
    task: MeshTask, mesh: trimesh.Trimesh, target: PreparedTarget, renderer: Renderer
) -> Check:
    """Silhouette IoU and depth agreement of the candidate's and target's canonical views."""
    missing = [view for view in VIEWS if view not in target.depths]
    if missing:
        target.depths.update(renderer.depths(target.mesh, target.center, target.diagonal, missing))
    depths = renderer.depths(mesh, target.center, target.diagonal, VIEWS)
    views = [
        compare_views(depths[view], target.depths[view], target.diagonal, view) for view in VIEWS
    ]
    worst = min(v.silhouette_iou for v in views)
    mean = float(np.mean([v.silhouette_iou for v in views]))
    limit = task.thresholds["render_iou"]
    return Check(
        "render",
        worst >= limit,
        mean,
        f"worst view silhouette IoU {worst:.4f} (limit {limit})",
        {
            "views": {
                v.view: {"silhouette_iou": v.silhouette_iou, "depth_agreement": v.depth_agreement}
                for v in views
            },
            "size": renderer.size,
            "platform": renderer.platform,
        },
    )


def description_check(
    task: MeshTask, mesh: trimesh.Trimesh, renderer: Renderer, scorer: ClipScorer
) -> Check:
    """The four canonical views (depth-shaded) against ``task.description``, one batch."""
    from assay.verifiers.mesh.clip import depth_image

    center = np.asarray(mesh.bounds.mean(axis=0), dtype=np.float64)
    diagonal = float(np.linalg.norm(mesh.extents))
    depths = renderer.depths(mesh, center, diagonal, VIEWS)
    similarities = scorer.similarities(
        [depth_image(depths[v]) for v in VIEWS], task.description or ""
    )
    mean = float(np.mean(similarities))
    limit = task.description_threshold
    return Check(
        "description",
        mean >= limit,
        float(min(1.0, max(0.0, mean / limit))),
        f"mean image-text similarity {mean:.4f} over {len(VIEWS)} views (limit {limit})",
        {
            "views": dict(zip(VIEWS, similarities, strict=True)),
            "mean": mean,
            "threshold": limit,
            "text": task.description,
            "model": scorer.path,
            "device": scorer.device,
        },
    )
