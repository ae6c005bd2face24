"""Physical and manufacturing checks: stability, interpenetration, holes, wall thickness, genus.

- **Stability**: the body rests on the ground plane (its lowest points along ``up``); it is
  stable when the centre of mass (uniform density, trimesh's ``center_mass``) projects inside
  the support polygon (the 2-D convex hull of the vertices within ``contact_tol`` of the
  ground, shapely). The margin is the signed distance to the polygon's edge (negative: it tips).
- **Interpenetration**: exact pairwise intersection volumes of the bodies (manifold3d).
- **Holes**: cross-sections perpendicular to an axis at 25/50/75 % of its extent (trimesh); each
  inner ring of a section is a hole, its diameter the diameter of the circle of equal area.
- **Wall thickness**: rays cast inward from surface samples along the inverted face normal
  (trimesh ``proximity.thickness``, method ``ray``); the 2nd percentile is the wall thickness
  (one grazing ray near an edge must not decide).
- **Genus** from the Euler characteristic of each closed body: ``g = (2 - V + E - F) / 2``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import trimesh
from numpy.typing import NDArray

from .similarity import to_manifold

__all__ = [
    "Stability",
    "genus",
    "hole_diameters",
    "interpenetration",
    "stability",
    "wall_thickness",
]

AXES = {"x": 0, "y": 1, "z": 2}


@dataclass(frozen=True, slots=True)
class Stability:
    """Where the centre of mass falls relative to the support polygon.

    Attributes:
        stable: The centre of mass projects inside the support polygon.
        margin: Signed distance from the projected centre of mass to the polygon's boundary
            (task units; negative outside).
        center_of_mass: The centre of mass.
        support_area: Area of the support polygon (0 for a point or an edge contact).
        contact_points: Vertices touching the ground.
    """

    stable: bool
    margin: float
    center_of_mass: tuple[float, float, float]
    support_area: float
    contact_points: int


def stability(mesh: trimesh.Trimesh, up: str = "z", contact_tol: float = 1e-6) -> Stability:
    """Does the solid stand on the ground plane (the plane through its lowest point)?"""
    from shapely.geometry import MultiPoint, Point

    axis = AXES[up]
    plane = [i for i in range(3) if i != axis]
    scale = float(np.linalg.norm(mesh.extents))
    heights = mesh.vertices[:, axis]
    touching = mesh.vertices[heights <= heights.min() + contact_tol * scale][:, plane]
    com = np.asarray(mesh.center_mass, dtype=np.float64)
    hull = MultiPoint([tuple(p) for p in touching]).convex_hull
    point = Point(*com[plane])
    distance = float(hull.exterior.distance(point)) if hull.geom_type == "Polygon" else 0.0
    inside = hull.geom_type == "Polygon" and hull.contains(point)
    margin = distance if inside else -float(hull.distance(point))
    return Stability(
        stable=inside and margin > contact_tol * scale,
        margin=margin,
        center_of_mass=(float(com[0]), float(com[1]), float(com[2])),
        support_area=float(hull.area),
        contact_points=len(touching),
    )


MAX_BOOLEANS = 256
"""Pairwise intersections computed at most; past that one union of all bodies decides."""


def interpenetration(bodies: list[trimesh.Trimesh]) -> list[tuple[int, int, float]]:
    """``(i, j, shared volume)`` for pairs of bodies that share volume.

    Only pairs whose bounding boxes overlap can share volume. Up to :data:`MAX_BOOLEANS` such
    pairs are intersected exactly (manifold3d); with more (thousands of bodies piled at one
    point), one union of every body decides: the volume counted twice is the sum of the
    bodies' volumes less the union's. Its pairs are then those found among the first
    :data:`MAX_BOOLEANS`, or ``(-1, -1, excess)`` when none of them is.

    Raises:
        ValueError: a body is not a solid manifold3d accepts.
    """
    import manifold3d

    solids: list[Any] = [to_manifold(body) for body in bodies]
    boxes = np.array([body.bounds for body in bodies], dtype=np.float64).reshape(-1, 2, 3)
    meets = np.all(
        (boxes[:, None, 0] <= boxes[None, :, 1]) & (boxes[None, :, 0] <= boxes[:, None, 1]), axis=2
    )
    first, second = np.nonzero(np.triu(meets, 1))
    shared = []
    for i, j in zip(first[:MAX_BOOLEANS].tolist(), second[:MAX_BOOLEANS].tolist(), strict=True):
        volume = float((solids[i] ^ solids[j]).volume())
        smaller = min(float(solids[i].volume()), float(solids[j].volume()))
        if volume > 1e-9 * smaller:  # parts that only touch share no volume (rounding aside)
            shared.append((i, j, volume))
    if shared or len(first) <= MAX_BOOLEANS:
        return shared
    total = sum(float(s.volume()) for s in solids)
    union = float(manifold3d.Manifold.batch_boolean(solids, manifold3d.OpType.Add).volume())
    excess = total - union
    return [(-1, -1, excess)] if excess > 1e-9 * abs(total) else []


def hole_diameters(mesh: trimesh.Trimesh, axis: str = "z") -> list[float]:
    """The diameters of the through-holes across ``axis``, one per hole, sorted.

    Holes are the inner rings of sections perpendicular to ``axis`` at 25/50/75 % of the
    extent. A ring counts only when a line along ``axis`` through it misses the mesh on both
    sides (a sealed void or a blind hole is no hole), and a hole seen in several sections is
    one hole. A ring whose corners are all about as far from its centre (within 3 %) is a
    polygon drawn for a circle, as CAD kernels draw cylinders (inscribed): its diameter is
    that of the circle through its corners; any other ring has the diameter of the circle of
    its area (mesh@1.1.3: before, every ring had the equal-area diameter, 5 % small for an
    octagon, and one hole was found however many were required).
    """
    index = AXES[axis]
    normal = np.zeros(3)
    normal[index] = 1.0
    lo, hi = mesh.bounds[:, index]
    holes: list[tuple[float, NDArray[np.float64]]] = []
    for fraction in (0.25, 0.5, 0.75):
        origin = mesh.bounds.mean(axis=0)
        origin[index] = lo + fraction * (hi - lo)
        section = mesh.section(plane_origin=origin, plane_normal=normal)
        if section is None:
            continue
        planar, to_3d = section.to_2D()
        for polygon in planar.polygons_full:
            for ring in _rings(polygon):
                inside = np.asarray(ring.representative_point().coords[0], dtype=np.float64)
                point = (to_3d @ np.array([inside[0], inside[1], 0.0, 1.0]))[:3]
                if not _open_along(mesh, point, normal):
                    continue
                centre = (to_3d @ np.array([*ring.centroid.coords[0], 0.0, 1.0]))[:3]
                diameter = _ring_diameter(ring)
                if not any(
                    abs(d - diameter) <= 0.02 * max(d, diameter)
                    and float(np.linalg.norm(np.delete(c - centre, index))) <= diameter / 2
                    for d, c in holes
                ):
                    holes.append((diameter, centre))
    return sorted(round(d, 9) for d, _ in holes)


def _open_along(
    mesh: trimesh.Trimesh, point: NDArray[np.float64], normal: NDArray[np.float64]
) -> bool:
    """Whether rays from ``point`` along ``normal`` and against it both leave the mesh without
    touching it (the point is in a through-hole, not in a void or a blind hole)."""
    origins = np.array([point, point])
    directions = np.array([normal, -normal])
    caster: Any = mesh.ray  # untyped in trimesh
    return not bool(np.any(caster.intersects_any(origins, directions)))


def _rings(polygon: Any) -> list[Any]:
    from shapely.geometry import Polygon

    return [Polygon(ring) for ring in polygon.interiors]


def _ring_diameter(ring: Any) -> float:
    size = float(np.sqrt(abs(ring.area))) or 1.0
    simple = ring.simplify(1e-6 * size)  # the corners: points along a side dropped
    corners = np.asarray(simple.exterior.coords, dtype=np.float64)[:-1]
    centre = np.asarray(ring.centroid.coords[0], dtype=np.float64)
    radii = np.linalg.norm(corners - centre, axis=1) if len(corners) else np.zeros(0)
    if len(radii) >= 6 and radii.max() <= 1.03 * radii.min():
        return 2.0 * float(radii.mean())  # the circle through the corners
    return 2.0 * float(np.sqrt(abs(ring.area) / np.pi))


def wall_thickness(mesh: trimesh.Trimesh, samples: int, seed: int) -> tuple[float, float]:
    """``(2nd percentile, minimum)`` of the inward ray thickness at sampled surface points."""
    points, faces = trimesh.sample.sample_surface(mesh, samples, seed=seed)
    normals = mesh.face_normals[faces]
    measure: Any = trimesh.proximity.thickness  # untyped in trimesh
    values = measure(mesh, points, exterior=False, normals=normals, method="ray")
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return 0.0, 0.0
    return float(np.percentile(values, 2)), float(values.min())


def genus(body: trimesh.Trimesh) -> int:
    """Genus of one closed, connected surface from its Euler characteristic."""
    euler = len(body.vertices) - len(body.edges_unique) + len(body.faces)
    return (2 - euler) // 2
