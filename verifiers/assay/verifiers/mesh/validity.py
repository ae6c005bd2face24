"""Is a mesh a valid solid? Each property is measured, with its evidence.

Order matters and is fixed: finite coordinates first (nothing else is meaningful with a NaN),
then duplicate vertices are merged (an STL is a triangle soup: every triangle has its own three
vertices, and it is valid once they are merged), then the rest is measured on the merged mesh.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import trimesh

from .intersect import self_intersections

__all__ = ["MAX_BODIES", "MAX_COORDINATE", "ValidityReport", "merged", "validity"]

MAX_COORDINATE = 1e15
"""Coordinates beyond this magnitude are too costly to check: squared lengths, areas and
volumes computed from them overflow or lose every digit of precision."""
MAX_BODIES = 1000
"""Connected bodies measured at most; a mesh with more is too costly to check (each body is
split, measured and tested for cavities and overlaps)."""
SELF_INTERSECTIONS_ENOUGH = 1000
"""The search for crossing pairs stops once it has found this many (a lower bound then)."""
MAX_CONTAINMENT_TESTS = 4000
"""Ray containment tests spent looking for cavities (inside-out bodies inside another)."""
MERGE_DIGITS_BELOW_SCALE = 8
"""Vertices closer than ``diagonal * 10**-8`` are the same vertex."""


@dataclass(frozen=True, slots=True)
class ValidityReport:
    """What :func:`validity` measured. Properties are ``None`` when not measurable.

    Attributes:
        finite: Every coordinate is a finite number (no NaN, no inf).
        vertices, faces: Counts after merging.
        merged_vertices: How many duplicate vertices were merged away.
        degenerate_faces: Faces with a repeated vertex or (near) zero area.
        boundary_edges: Edges used by one face only (holes in the surface).
        nonmanifold_edges: Edges used by more than two faces.
        watertight: No boundary and no non-manifold edge.
        winding_consistent: Every shared edge is traversed in opposite directions by its faces.
        body_volumes: Signed volume of each connected body (negative: inside out).
        self_intersections: Pairs of non-adjacent triangles that cross.
        intersecting_pairs: Up to five of those pairs, as face indices.
        cavities: Inside-out bodies that lie inside another body (internal voids, allowed).
        intersections_decided: The self-intersection search finished, or found a crossing
            (then ``self_intersections`` is a lower bound).
        too_costly: Why a property could not be measured within its budget (``None``: all
            were); the mesh verifier blames the response for it (check ``too_costly``).
        cost: What the budgets saw: search visits and budget, bodies.
    """

    finite: bool
    vertices: int = 0
    faces: int = 0
    merged_vertices: int = 0
    degenerate_faces: int | None = None
    boundary_edges: int | None = None
    nonmanifold_edges: int | None = None
    watertight: bool | None = None
    winding_consistent: bool | None = None
    body_volumes: tuple[float, ...] = ()
    self_intersections: int | None = None
    intersecting_pairs: tuple[tuple[int, int], ...] = field(default=())

    cavities: int = 0
    intersections_decided: bool = True
    too_costly: str | None = None
    cost: dict[str, int] = field(default_factory=dict)  # search visits, budget, bodies

    @property
    def positive_volume(self) -> bool | None:
        """Every body encloses positive volume, except cavities inside another body."""
        if not self.body_volumes:
            return None
        inside_out = sum(v <= 0 for v in self.body_volumes) - self.cavities
        return inside_out == 0 and sum(self.body_volumes) > 0


def merged(mesh: trimesh.Trimesh) -> trimesh.Trimesh:
    """A copy with duplicate vertices merged (tolerance relative to the size of the mesh)."""
    copy = trimesh.Trimesh(mesh.vertices.copy(), mesh.faces.copy(), process=False)
    scale = float(np.linalg.norm(copy.extents)) if len(copy.vertices) else 1.0
    digits = max(0, MERGE_DIGITS_BELOW_SCALE - int(np.floor(np.log10(max(scale, 1e-300)))))
    copy.merge_vertices(merge_tex=True, merge_norm=True, digits_vertex=digits)
    return copy


def validity(
    mesh: trimesh.Trimesh,
) -> tuple[ValidityReport, trimesh.Trimesh | None, list[trimesh.Trimesh]]:
    """Measure a raw mesh.

    Returns:
        The report, the merged mesh (``None`` if not finite) and its connected bodies (split
        only when the mesh is watertight, else empty), for the checks that follow to reuse.
    """
    if not np.isfinite(mesh.vertices).all():
        return (
            ValidityReport(finite=False, vertices=len(mesh.vertices), faces=len(mesh.faces)),
            None,
            [],
        )
    largest = float(np.abs(mesh.vertices).max())
    if largest > MAX_COORDINATE:
        return (
            ValidityReport(
                finite=True,
                vertices=len(mesh.vertices),
                faces=len(mesh.faces),
                too_costly=f"a coordinate of magnitude {largest:.3g}, beyond {MAX_COORDINATE:.0e}",
            ),
            None,
            [],
        )
    solid = merged(mesh)
    scale = float(np.linalg.norm(solid.extents))
    faces = np.asarray(solid.faces, dtype=np.int64)
    repeated = (
        (faces[:, 0] == faces[:, 1]) | (faces[:, 1] == faces[:, 2]) | (faces[:, 0] == faces[:, 2])
    )
    tiny = solid.area_faces <= (1e-12 * scale * scale)
    edges = np.asarray(solid.edges_sorted, dtype=np.int64)
    keys = edges[:, 0] * max(len(solid.vertices), 1) + edges[:, 1]  # one int per edge: fast
    edge_use = np.unique(keys, return_counts=True)[1]
    boundary = int((edge_use == 1).sum())
    nonmanifold = int((edge_use > 2).sum())
    watertight = boundary == 0 and nonmanifold == 0
    volumes: tuple[float, ...] = ()
    cavities = 0
    bodies: list[trimesh.Trimesh] = []
    too_costly: str | None = None
    count = 0
    if watertight:
        components: Any = trimesh.graph.connected_component_labels  # untyped in trimesh
        labels = components(solid.face_adjacency, len(faces))
        count = int(labels.max()) + 1 if len(labels) else 0
        if count > MAX_BODIES:
            too_costly = f"{count} bodies, over the limit of {MAX_BODIES}"
        else:
            bodies = list(solid.split(only_watertight=False))
            volumes = tuple(float(body.volume) for body in bodies)
            found = _cavities(bodies, volumes)
            if found is None:
                too_costly = (
                    f"finding cavities needs over {MAX_CONTAINMENT_TESTS} containment tests"
                )
            else:
                cavities = found
    search = self_intersections(
        np.asarray(solid.vertices), faces, eps=1e-9 * scale, enough=SELF_INTERSECTIONS_ENOUGH
    )
    if not search.decided and too_costly is None:
        too_costly = (
            f"the self-intersection search passed its budget of {search.budget} node pairs "
            "without an answer"
        )
    pairs = search.pairs
    report = ValidityReport(
        finite=True,
        vertices=len(solid.vertices),
        faces=len(faces),
        merged_vertices=len(mesh.vertices) - len(solid.vertices),
        degenerate_faces=int((repeated | tiny).sum()),
        boundary_edges=boundary,
        nonmanifold_edges=nonmanifold,
        watertight=watertight,
        winding_consistent=bool(solid.is_winding_consistent),
        body_volumes=volumes,
        self_intersections=len(pairs),
        intersecting_pairs=tuple((int(a), int(b)) for a, b in pairs[:5]),
        cavities=cavities,
        intersections_decided=search.decided,
        too_costly=too_costly,
        cost={
            "search_visits": search.candidates,
            "search_budget": search.budget,
            "search_complete": int(search.complete),
            "bodies": count,
        },
    )
    return report, solid, bodies


def _cavities(bodies: list[trimesh.Trimesh], volumes: tuple[float, ...]) -> int | None:
    """Inside-out bodies whose first vertex lies inside an outward-facing body; ``None`` when
    that takes more than :data:`MAX_CONTAINMENT_TESTS` ray tests.

    Only outward bodies whose bounding box holds the inside-out body's box are tested.
    """
    outward = [(b, b.bounds) for b, v in zip(bodies, volumes, strict=True) if v > 0]
    count = 0
    tests = 0
    for body, volume in zip(bodies, volumes, strict=True):
        if volume >= 0:
            continue
        low, high = body.bounds
        around = [o for o, box in outward if (box[0] <= low).all() and (box[1] >= high).all()]
        tests += len(around)
        if tests > MAX_CONTAINMENT_TESTS:
            return None
        if any(o.contains(body.vertices[:1])[0] for o in around):
            count += 1
    return count
