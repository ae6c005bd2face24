"""Self-intersection: pairs of triangles of one mesh that pierce each other.

Broad phase: a KD-tree over triangle centroids (scipy) gives the pairs close enough to touch,
bounding boxes filter them, and pairs that share a vertex (neighbours) are dropped. Narrow
phase: Möller's triangle-triangle test, vectorised with numpy. A pair counts when the
triangles *cross* along a segment longer than ``eps``, so triangles that only touch (faces
that meet at a seam, a vertex resting on a face) do not count. Coplanar overlapping triangles
are not reported here; overlapping *bodies* are caught by the volume check
(:func:`assay.verifiers.mesh.physics.interpenetration`).

open3d's ``TriangleMesh.is_self_intersecting`` answers the same question by testing every
pair; see ``bench/mesh_bench.py`` for both on 20k faces.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["candidate_pairs", "self_intersections"]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def candidate_pairs(vertices: FloatArray, faces: IntArray) -> IntArray:
    """Index pairs ``(i, j)``, ``i < j``, of triangles whose bounding boxes overlap and that
    share no vertex.

    Two triangles can only touch when their centroids are closer than the sum of their radii
    (largest centroid-to-vertex distance). Triangles up to a radius ``r`` (the largest one when
    none exceeds 4x the median, else the 99th percentile) are paired by a KD-tree query within
    ``2 r`` (scipy); the few larger ones are tested against every triangle's bounding box.
    Bounding boxes then filter the candidates.
    """
    from scipy.spatial import cKDTree

    triangles = vertices[faces]
    lo, hi = triangles.min(axis=1), triangles.max(axis=1)
    centroids = triangles.mean(axis=1)
    radius = np.linalg.norm(triangles - centroids[:, None, :], axis=2).max(axis=1)
    limit = 0.0
    if len(radius):  # the 99th percentile, or every radius when none is far above the median
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
        once = ~is_big[others] | (others > chunk[rows])  # a big-big pair is found from both ends
        found.append(np.stack([chunk[rows][once], others[once]], axis=1))
    stacked = np.concatenate([p.reshape(-1, 2) for p in found]).astype(np.int64)
    pairs: IntArray = np.sort(stacked, axis=1)
    first, second = pairs[:, 0], pairs[:, 1]
    close = np.linalg.norm(centroids[first] - centroids[second], axis=1) <= (
        radius[first] + radius[second]
    )
    pairs = pairs[close]
    if len(pairs) == 0:
        return pairs
    first, second = pairs[:, 0], pairs[:, 1]
    boxes_meet = np.all((lo[first] <= hi[second]) & (hi[first] >= lo[second]), axis=1)
    pairs = pairs[boxes_meet]
    a, b = faces[pairs[:, 0]], faces[pairs[:, 1]]
    shared = (a[:, :, None] == b[:, None, :]).any(axis=(1, 2))
    kept: IntArray = pairs[~shared]
    return kept


def self_intersections(vertices: FloatArray, faces: IntArray, eps: float) -> IntArray:
    """Pairs of non-adjacent triangles that cross each other by more than ``eps``."""
    pairs = candidate_pairs(vertices, faces)
    if len(pairs) == 0:
        return pairs
    crossing = np.zeros(len(pairs), dtype=bool)
    for start in range(0, len(pairs), 50_000):
        chunk = pairs[start : start + 50_000]
        crossing[start : start + len(chunk)] = _crossing(
            vertices[faces[chunk[:, 0]]], vertices[faces[chunk[:, 1]]], eps
        )
    return pairs[crossing]


def _crossing(first: FloatArray, second: FloatArray, eps: float) -> NDArray[np.bool_]:
    """Per pair of triangles ``(n, 3, 3)``: do they cross along a segment longer than ``eps``?

    Möller's test: each triangle must have vertices strictly (by ``eps``) on both sides of
    the other's plane, and the two intervals the triangles cut from the planes' common line
    must overlap by more than ``eps``. Touching (a shared seam, a vertex on a face, an edge
    lying in the other's plane) is not crossing.
    """
    normal_a = np.cross(first[:, 1] - first[:, 0], first[:, 2] - first[:, 0])
    normal_b = np.cross(second[:, 1] - second[:, 0], second[:, 2] - second[:, 0])
    normal_a /= np.maximum(np.linalg.norm(normal_a, axis=1, keepdims=True), 1e-300)
    normal_b /= np.maximum(np.linalg.norm(normal_b, axis=1, keepdims=True), 1e-300)
    dist_b = np.einsum("nvd,nd->nv", second - first[:, :1], normal_a)
    dist_a = np.einsum("nvd,nd->nv", first - second[:, :1], normal_b)
    straddle = _straddles(dist_a, eps) & _straddles(dist_b, eps)
    direction = np.cross(normal_a, normal_b)
    direction /= np.maximum(np.linalg.norm(direction, axis=1, keepdims=True), 1e-300)
    lo_a, hi_a = _interval(np.einsum("nvd,nd->nv", first, direction), dist_a, eps)
    lo_b, hi_b = _interval(np.einsum("nvd,nd->nv", second, direction), dist_b, eps)
    overlap = np.minimum(hi_a, hi_b) - np.maximum(lo_a, lo_b)
    crossing: NDArray[np.bool_] = straddle & (overlap > eps)
    return crossing


def _straddles(dist: FloatArray, eps: float) -> NDArray[np.bool_]:
    above: NDArray[np.bool_] = dist.max(axis=1) > eps
    below: NDArray[np.bool_] = dist.min(axis=1) < -eps
    return above & below


def _interval(proj: FloatArray, dist: FloatArray, eps: float) -> tuple[FloatArray, FloatArray]:
    """Where a triangle meets the other's plane, as an interval on the planes' common line."""
    on_plane = np.abs(dist) <= eps
    values = [np.where(on_plane, proj, np.nan)]
    for i, j in ((0, 1), (1, 2), (2, 0)):
        d_i, d_j = dist[:, i], dist[:, j]
        sign_change = (d_i * d_j < 0) & ~on_plane[:, i] & ~on_plane[:, j]
        t = d_i / np.where(sign_change, d_i - d_j, 1.0)
        point = proj[:, i] + (proj[:, j] - proj[:, i]) * t
        values.append(np.where(sign_change, point, np.nan)[:, None])
    stacked = np.concatenate(values, axis=1)
    empty = np.isnan(stacked).all(axis=1)
    filled = np.where(np.isnan(stacked), 0.0, stacked)
    lo = np.where(np.isnan(stacked), np.inf, filled).min(axis=1)
    hi = np.where(np.isnan(stacked), -np.inf, filled).max(axis=1)
    return np.where(empty, np.inf, lo), np.where(empty, -np.inf, hi)
