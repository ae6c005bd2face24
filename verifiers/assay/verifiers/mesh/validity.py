"""Is a mesh a valid solid? Each property is measured, with its evidence.

Order matters and is fixed: finite coordinates first (nothing else is meaningful with a NaN),
then duplicate vertices are merged (an STL is a triangle soup: every triangle has its own three
vertices, and it is valid once they are merged), then the rest is measured on the merged mesh.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import trimesh
from numpy.typing import NDArray

from .intersect import Intersections, self_intersections, unique_inverse

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
GLANCE_BUDGET = 100_000
"""Node pairs the search gets on a mesh already too costly (too many bodies): enough to find
a crossing in a pile, a fraction of a second on any mesh."""
MERGE_DIGITS_BELOW_SCALE = 8
"""Vertices closer than ``diagonal * 10**-8`` are the same vertex."""

_NOT_SEARCHED = Intersections(np.zeros((0, 2), np.int64), True, 0, 0)
"""Stands for the search when it is not run (the mesh is open or already too costly)."""


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
            (then ``self_intersections`` is a lower bound); false when it did not run (an open
            mesh: not a solid anyway). A mesh already too costly gets a short search only
            (:data:`GLANCE_BUDGET` node pairs), to name a crossing if one shows.
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
    vertices = np.asarray(solid.vertices, dtype=np.float64)
    scale = float(np.linalg.norm(vertices.max(axis=0) - vertices.min(axis=0)))
    faces = np.asarray(solid.faces, dtype=np.int64)
    repeated = (
        (faces[:, 0] == faces[:, 1]) | (faces[:, 1] == faces[:, 2]) | (faces[:, 0] == faces[:, 2])
    )
    corners = vertices[faces]
    crosses = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    tiny = 0.5 * np.linalg.norm(crosses, axis=1) <= (1e-12 * scale * scale)
    edges = _edges(faces, len(vertices))
    watertight = edges.boundary == 0 and edges.nonmanifold == 0
    volumes: tuple[float, ...] = ()
    cavities = 0
    bodies: list[trimesh.Trimesh] = []
    too_costly: str | None = None
    count = 0
    if watertight:
        labels = edges.components()
        count = int(labels.max()) + 1 if len(labels) else 0
        if count > MAX_BODIES:
            too_costly = f"{count} bodies, over the limit of {MAX_BODIES}"
        else:
            signed = np.einsum("nd,nd->n", corners[:, 0], crosses) / 6.0  # tetra from origin
            volumes = tuple(float(v) for v in np.bincount(labels, signed, minlength=count))
            bodies = [solid] if count == 1 else _split(vertices, faces, labels, count)
            found = _cavities(bodies, volumes)
            if found is None:
                too_costly = (
                    f"finding cavities needs over {MAX_CONTAINMENT_TESTS} containment tests"
                )
            else:
                cavities = found
    search = _NOT_SEARCHED
    if watertight:  # an open mesh is not a solid whatever else it does: no search
        search = self_intersections(
            vertices,
            faces,
            eps=1e-9 * scale,
            budget=GLANCE_BUDGET if too_costly else None,  # a cheap look for a crossing
            enough=SELF_INTERSECTIONS_ENOUGH,
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
        boundary_edges=edges.boundary,
        nonmanifold_edges=edges.nonmanifold,
        watertight=watertight,
        winding_consistent=edges.winding_consistent,
        body_volumes=volumes,
        self_intersections=len(pairs) if search is not _NOT_SEARCHED else None,
        intersecting_pairs=tuple((int(a), int(b)) for a, b in pairs[:5]),
        cavities=cavities,
        intersections_decided=search.decided and search is not _NOT_SEARCHED,
        too_costly=too_costly,
        cost={
            "search_visits": search.candidates,
            "search_budget": search.budget,
            "search_complete": int(search.complete),
            "bodies": count,
        },
    )
    return report, solid, bodies


@dataclass(frozen=True, slots=True)
class _Edges:
    """The edges of a mesh, each counted once: what watertightness, winding and bodies need.

    Attributes:
        faces: Faces of the mesh.
        order: The ``3 n`` face edges (edge ``k`` of face ``f`` is row ``3 f + k``) sorted by
            their undirected key.
        uses: Faces using each distinct edge, in key order.
        boundary: Edges used by one face.
        nonmanifold: Edges used by more than two faces.
        winding_consistent: Every edge shared by exactly two faces is traversed in opposite
            directions (trimesh's definition, without building its caches).
    """

    faces: NDArray[np.int64]
    order: NDArray[np.int64]
    uses: NDArray[np.int64]
    boundary: int
    nonmanifold: int
    winding_consistent: bool

    def components(self) -> NDArray[np.int64]:
        """A body label per face: faces that share an edge are one body (watertight mesh)."""
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        n = len(self.faces)
        pairs = (self.order // 3).reshape(-1, 2)  # watertight: every edge used twice
        graph = coo_matrix((np.ones(len(pairs), np.int8), (pairs[:, 0], pairs[:, 1])), (n, n))
        labels: NDArray[np.int64] = connected_components(graph, directed=False)[1].astype(np.int64)
        return labels


def _edges(faces: NDArray[np.int64], vertex_count: int) -> _Edges:
    start = faces.reshape(-1)
    end = np.roll(faces, -1, axis=1).reshape(-1)
    width = max(vertex_count, 1)
    undirected = np.minimum(start, end) * width + np.maximum(start, end)
    order = np.argsort(undirected, kind="stable")
    ordered = undirected[order]
    first = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(ordered) else order
    uses = np.diff(np.r_[first, len(ordered)]).astype(np.int64)
    # an edge used by two faces: the two directed copies must differ (opposite directions)
    pair_starts = first[uses == 2]
    a, b = order[pair_starts], order[pair_starts + 1]
    consistent = bool((start[a] != start[b]).all())
    return _Edges(
        faces,
        order.astype(np.int64),
        uses,
        int((uses == 1).sum()),
        int((uses > 2).sum()),
        consistent,
    )


def _split(
    vertices: NDArray[np.float64], faces: NDArray[np.int64], labels: NDArray[np.int64], count: int
) -> list[trimesh.Trimesh]:
    """The bodies of a mesh by face label, each with only its own vertices (one sort)."""
    order = np.argsort(labels, kind="stable")
    bounds = np.searchsorted(labels[order], np.arange(count + 1))
    bodies = []
    for body in range(count):
        own = faces[order[bounds[body] : bounds[body + 1]]]
        corners = own.reshape(-1)
        first, local = unique_inverse(corners)
        body_faces = local.reshape(-1, 3)
        bodies.append(
            trimesh.Trimesh(vertices[corners[first]], body_faces, process=False, validate=False)
        )
    return bodies


def _cavities(bodies: list[trimesh.Trimesh], volumes: tuple[float, ...]) -> int | None:
    """Inside-out bodies that are voids in material; ``None`` when that takes more than
    :data:`MAX_CONTAINMENT_TESTS` ray tests.

    A void is in material when its first vertex lies inside one more outward-facing body than
    other inside-out ones: a cavity of a solid (1 - 0), not a shell inside a cavity (1 - 1, a
    negative winding that only subtracts signed volume) nor a lone inside-out body (0 - 0).
    Only bodies whose bounding box holds the inside-out body's box are tested.
    """
    boxes = [b.bounds for b in bodies]
    count = 0
    tests = 0
    for index, (body, volume) in enumerate(zip(bodies, volumes, strict=True)):
        if volume >= 0:
            continue
        low, high = boxes[index]
        around = [
            k for k, box in enumerate(boxes)
            if k != index and volumes[k] != 0 and (box[0] <= low).all() and (box[1] >= high).all()
        ]  # fmt: skip
        tests += len(around)
        if tests > MAX_CONTAINMENT_TESTS:
            return None
        point = body.vertices[:1]
        depth = sum((1 if volumes[k] > 0 else -1) for k in around if bodies[k].contains(point)[0])
        if depth == 1:
            count += 1
    return count
