"""Self-intersection: pairs of triangles of one mesh that pierce each other, at a bounded cost.

Broad phase (:func:`candidate_pairs`), in the unit box of the mesh (diagonal 1):

1. **Pieces.** A triangle whose bounding box is wider than the piece size ``c`` is cut by
   lines parallel to its shortest edge into slices no longer than ``c`` (each slice a
   trapezoid of two triangles), and again if a slice is still too wide: a long sliver becomes
   a row of short pieces of its own width instead of one box spanning the mesh, a large
   triangle becomes strips, then squares. ``c`` starts at the 90th percentile of the longest
   edges and doubles until the pieces fit :data:`PIECES_PER_FACE` per face (plus 20,000)
   and :data:`PIECES_MAX` in all.
2. **Groups.** Triangles that cannot cross are grouped: those of one plane (every vertex
   within ``eps`` of it) and those around one vertex (neighbours are never tested), whichever
   group is larger. Fans (a cylinder's cap, a cone's tip) and faces that manifold3d
   triangulates between holes are one group, so their thousands of touching triangles cost
   nothing.
3. **Tree.** The pieces, sorted by the Morton code of their boxes' centres, are the leaves of
   an implicit binary tree (node ``i`` of level ``k`` holds leaves ``[i 2^k, (i + 1) 2^k)``);
   each node keeps its box and the group its leaves share, if one.
4. **Traversal.** Pairs of nodes of one level are expanded into the pairs of their children
   whose boxes overlap and that are not both of one group, from ``(root, root)`` down to the
   leaves, in chunks of :data:`CHUNK` pairs (memory is bounded by the chunk, not the mesh).

The work is bounded by a *visit budget* (:func:`pair_budget`: :data:`PAIR_BUDGET_BASE` plus
:data:`PAIRS_PER_FACE` per face, at most :data:`PAIR_BUDGET_MAX` node pairs kept): past it
the search stops. If crossing pairs were found by then, the answer is known (the mesh
self-intersects; the count is a lower bound); if none were, :attr:`Intersections.decided` is
false and the caller decides (the mesh verifier blames the response: ``too_costly``).
Ordinary meshes, manifold3d booleans with their slivers, fans and drilled holes included,
take 5 to 250 visits per face (bench/mesh_bench.py, tests/mesh/test_attacks_cost.py).

Narrow phase: Möller's triangle-triangle test, vectorised with numpy. A pair counts when the
triangles *cross* along a segment longer than ``eps``, so triangles that only touch (faces
that meet at a seam, a vertex resting on a face) do not count. Coplanar triangles never count
(nor are they paired); overlapping *bodies* are caught by the volume check
(:func:`assay.verifiers.mesh.physics.interpenetration`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "CHUNK",
    "PAIRS_PER_FACE",
    "PAIR_BUDGET_BASE",
    "PAIR_BUDGET_MAX",
    "PIECES_MAX",
    "PIECES_PER_FACE",
    "Intersections",
    "candidate_pairs",
    "pair_budget",
    "self_intersections",
    "unique_inverse",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

PIECES_PER_FACE = 8
"""Pieces allowed per face (plus :data:`_PIECES_BASE`) when long triangles are cut."""
_PIECES_BASE = 20_000
PIECES_MAX = 600_000
"""Pieces never made past (unless the faces alone are more): cutting and the tree cost about
1 s per million pieces on one loaded core (bench/mesh_bench.py)."""
PAIRS_PER_FACE = 128
"""Node pairs the traversal may keep per face before it stops."""
PAIR_BUDGET_BASE = 1_000_000
"""Node pairs always allowed (small meshes)."""
CHUNK = 1 << 18
"""Most node pairs handled at once (a few tens of MB of temporaries)."""
_NARROW = 1 << 15
"""Candidate pairs given to the narrow phase at once."""
_LEAD = 1024
"""Node pairs taken on first at each level: the search reaches leaves (and crossings) after a
few thousand visits however dense the top of the tree is."""
_SMALLEST_PIECE = 1.0 / (1 << 20)
"""The piece size never starts below this (unit box)."""
_PAD = 1e-9
"""Bounding boxes grow by this (unit-box) margin: cutting rounds the pieces' corners."""


PAIR_BUDGET_MAX = 4_000_000
"""Node pairs never allowed past: about 1.2 s of traversal on one loaded core, 2 s with the
pieces at :data:`PIECES_MAX` (bench/mesh_bench.py); above 23k faces a mesh gets fewer than
:data:`PAIRS_PER_FACE` per face (20 at 200k faces; the 200k-face torus needs 12.8)."""


def pair_budget(faces: int) -> int:
    """The node pairs the search over a mesh of ``faces`` faces may keep."""
    return min(PAIR_BUDGET_BASE + PAIRS_PER_FACE * faces, PAIR_BUDGET_MAX)


@dataclass(frozen=True, slots=True)
class Intersections:
    """What the search found.

    Attributes:
        pairs: Crossing triangle pairs ``(i, j)``, ``i < j`` (a lower bound when incomplete).
        complete: Every candidate pair was tested.
        candidates: Node pairs the traversal kept (its cost).
        budget: The pair budget the search ran under.
    """

    pairs: IntArray
    complete: bool
    candidates: int
    budget: int

    @property
    def decided(self) -> bool:
        """The answer is known: the search was complete, or it found a crossing."""
        return self.complete or len(self.pairs) > 0


def self_intersections(
    vertices: FloatArray,
    faces: IntArray,
    eps: float,
    budget: int | None = None,
    enough: int | None = None,
) -> Intersections:
    """Pairs of non-adjacent triangles that cross each other by more than ``eps``.

    Args:
        vertices: ``(v, 3)`` coordinates.
        faces: ``(n, 3)`` vertex indices.
        eps: Crossing tolerance in the mesh's units.
        budget: Node pairs to keep at most (default :func:`pair_budget`). A budget under
            :data:`PAIR_BUDGET_BASE` is a glance: long triangles are barely cut (one piece
            per face and :data:`_PIECES_BASE` more), so its set-up is cheap too.
        enough: Stop once this many crossing pairs are found (the answer is known; the count
            is then a lower bound). ``None``: find them all (within the budget).
    """
    limit = pair_budget(len(faces)) if budget is None else budget
    found: list[IntArray] = []
    counted = 0
    complete = True
    cut = PIECES_PER_FACE if budget is None or budget >= PAIR_BUDGET_BASE else 1
    for chunk, total in _candidate_chunks(vertices, faces, eps, limit, cut):
        counted = total
        if chunk is None:  # over budget
            complete = False
            if found:
                break
            continue
        for begin in range(0, len(chunk), _NARROW):  # slices: stop soon after ``enough``
            part = chunk[begin : begin + _NARROW]
            crossing = _crossing(vertices[faces[part[:, 0]]], vertices[faces[part[:, 1]]], eps)
            found.append(part[crossing])
            if enough is not None and sum(len(f) for f in found) >= enough:
                complete = False
                break
        if not complete:
            break
    pairs = _unique_pairs(np.concatenate(found) if found else np.zeros((0, 2), np.int64))
    return Intersections(pairs, complete, counted, limit)


def candidate_pairs(
    vertices: FloatArray, faces: IntArray, eps: float, budget: int | None = None
) -> IntArray:
    """Index pairs ``(i, j)``, ``i < j``, of triangles that share no vertex, do not lie in one
    plane (within ``eps``) and whose pieces' bounding boxes overlap (see the module docstring).

    Raises:
        ValueError: the traversal would keep more than ``budget`` node pairs.
    """
    limit = pair_budget(len(faces)) if budget is None else budget
    parts: list[IntArray] = []
    for chunk, total in _candidate_chunks(vertices, faces, eps, limit):
        if chunk is None:
            raise ValueError(f"{total} candidate pairs, over the budget of {limit}")
        parts.append(chunk)
    return _unique_pairs(np.concatenate(parts) if parts else np.zeros((0, 2), np.int64))


def unique_inverse(keys: IntArray) -> tuple[IntArray, IntArray]:
    """``(first, inverse)`` of ``np.unique(keys, return_index=True, return_inverse=True)``, by
    one stable sort (numpy 2.4's ``np.unique`` is many times slower on millions of keys)."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    starts = np.r_[True, ordered[1:] != ordered[:-1]] if len(keys) else np.zeros(0, np.bool_)
    rank = np.cumsum(starts) - 1
    inverse = np.empty(len(keys), np.int64)
    inverse[order] = rank
    first: IntArray = order[starts].astype(np.int64)
    return first, inverse


def _unique_pairs(pairs: IntArray) -> IntArray:
    """Sorted distinct rows of ``(i, j)`` pairs of face indices (below 2**31)."""
    if len(pairs) == 0:
        return pairs.reshape(0, 2)
    keys = np.sort((pairs[:, 0] << 31) | pairs[:, 1])
    keys = keys[np.r_[True, keys[1:] != keys[:-1]]]  # np.unique hashes: 50x slower on numpy 2.4
    unique: IntArray = np.stack([keys >> 31, keys & ((1 << 31) - 1)], axis=1)
    return unique


@dataclass(frozen=True, slots=True)
class _Pieces:
    lo: FloatArray  # (m, 3) padded bounding boxes in the unit box
    hi: FloatArray
    owner: IntArray  # (m,) triangle of each piece
    group: IntArray  # (m,) pieces of one group never cross (see _groups)


def _candidate_chunks(
    vertices: FloatArray, faces: IntArray, eps: float, budget: int, cut: int = PIECES_PER_FACE
) -> Iterator[tuple[IntArray | None, int]]:
    """Chunks of triangle pairs (neighbours dropped) with the running count of node visits;
    ``(None, count)`` once the count passes ``budget``."""
    if len(faces) < 2:
        return
    tree = _Tree.build(_pieces(vertices, faces, eps, cut))
    visits = 0
    found: list[IntArray] = []
    pending = 0
    root = np.zeros(1, np.int64)
    stack: list[tuple[int, IntArray, IntArray]] = [(tree.depth, root, root)]
    corners = faces.T.copy()  # rows: contiguous gathers
    while stack:
        level, first, second = stack.pop()
        if level == 0:
            keys = tree.owner_keys(first, second, corners)
            found.append(keys)
            pending += len(keys)
            if pending >= CHUNK:
                yield _pairs_of(np.concatenate(found)), visits
                found, pending = [], 0
            continue
        first, second = tree.children(level, first, second)
        visits += len(first)
        if visits > budget:
            if found:
                yield _pairs_of(np.concatenate(found)), visits
            yield None, visits
            return
        for begin in range(_LEAD, len(first), CHUNK):
            stack.append((level - 1, first[begin : begin + CHUNK], second[begin : begin + CHUNK]))
        stack.append((level - 1, first[:_LEAD], second[:_LEAD]))  # popped next: depth first
    if found:
        yield _pairs_of(np.concatenate(found)), visits


@dataclass(frozen=True, slots=True)
class _Tree:
    """A bounding-volume hierarchy over the pieces: leaves in Morton order (of their boxes'
    centres), padded to a power of two; node ``i`` of level ``k`` holds leaves
    ``[i * 2**k, (i + 1) * 2**k)``. A node also keeps the group its leaves share (-1: mixed)."""

    lo: list[NDArray[np.float32]]  # per level, (3, nodes), rounded outwards
    hi: list[NDArray[np.float32]]
    group: list[IntArray]
    owner: IntArray  # per leaf (sorted order)
    leaves: int
    depth: int

    @classmethod
    def build(cls, pieces: _Pieces) -> _Tree:
        centre = (pieces.lo + pieces.hi) / 2.0
        order = np.argsort(_morton(centre), kind="stable")
        count = len(order)
        depth = max(0, (count - 1).bit_length())
        size = 1 << depth
        # one row per axis: gathers read contiguous memory; float32 halves what they read,
        # each box rounded outwards (a box only grows: no overlap is lost)
        lo = np.full((3, size), np.inf, dtype=np.float32)
        hi = np.full((3, size), -np.inf, dtype=np.float32)
        group = np.full(size, _PADDING, dtype=np.int64)
        lo[:, :count], hi[:, :count] = _outwards(pieces.lo[order].T, pieces.hi[order].T)
        group[:count] = pieces.group[order]
        los, his, groups = [lo], [hi], [group]
        for _ in range(depth):
            lo = np.minimum(lo[:, 0::2], lo[:, 1::2])
            hi = np.maximum(hi[:, 0::2], hi[:, 1::2])
            left, right = group[0::2], group[1::2]
            group = np.where(
                left == right,
                left,
                np.where(left == _PADDING, right, np.where(right == _PADDING, left, _MIXED)),
            )
            los.append(lo)
            his.append(hi)
            groups.append(group)
        return cls(los, his, groups, pieces.owner[order], count, depth)

    def children(self, level: int, first: IntArray, second: IntArray) -> tuple[IntArray, IntArray]:
        """The pairs of children (one level down) of node pairs ``first <= second`` worth going
        into: boxes overlap, and not both hold only leaves of one group. A node paired with
        itself gives its three child pairs (left-left, left-right, right-right); two nodes give
        four."""
        same = first == second
        a, b, c = first[same], first[~same], second[~same]
        a2, b2, c2 = a + a, b + b, c + c
        a3, b3, c3 = a2 + 1, b2 + 1, c2 + 1
        left = np.concatenate([a2, a2, a3, b2, b2, b3, b3])
        right = np.concatenate([a2, a3, a3, c2, c3, c2, c3])
        lo, hi, group = self.lo[level - 1], self.hi[level - 1], self.group[level - 1]
        low, high = lo[0], hi[0]  # the first axis drops a third of the pairs: compress once
        keep = (low[left] <= high[right]) & (low[right] <= high[left])
        left, right = left[keep], right[keep]
        low, high = lo[1], hi[1]
        keep = (low[left] <= high[right]) & (low[right] <= high[left])
        low, high = lo[2], hi[2]
        keep &= low[left] <= high[right]
        keep &= low[right] <= high[left]
        g = group[left]
        keep &= (g != group[right]) | (g == _MIXED)
        return left[keep], right[keep]

    def owner_keys(self, query: IntArray, leaf: IntArray, corners: IntArray) -> IntArray:
        """Keys ``(i << 31) | j``, ``i < j``, of the triangle pairs of overlapping leaves that
        share no vertex (``corners``: the faces' vertex indices, one row per corner); a pair
        may repeat (a cut triangle meets another twice)."""
        first, second = self.owner[query], self.owner[leaf]
        a, b = corners[:, first], corners[:, second]
        apart = np.ones(len(first), np.bool_)
        for i in range(3):
            for j in range(3):
                apart &= a[i] != b[j]  # also drops pieces of one triangle
        first, second = first[apart], second[apart]
        keys: IntArray = (np.minimum(first, second) << 31) | np.maximum(first, second)
        return keys


def _outwards(lo: FloatArray, hi: FloatArray) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Boxes in float32, each corner rounded away from the box's inside."""
    low, high = lo.astype(np.float32), hi.astype(np.float32)
    low = np.where(low > lo, np.nextafter(low, np.float32(-np.inf)), low)
    high = np.where(high < hi, np.nextafter(high, np.float32(np.inf)), high)
    return low, high


_PADDING = -2
_MIXED = -1


def _morton(points: FloatArray) -> NDArray[np.uint64]:
    """Morton codes (21 bits per axis) of points in the unit box."""
    scaled = np.clip(points, 0.0, 1.0) * ((1 << 21) - 1)
    code = np.zeros(len(points), dtype=np.uint64)
    for axis in range(3):
        x = scaled[:, axis].astype(np.uint64)
        x = (x | (x << np.uint64(32))) & np.uint64(0x1F00000000FFFF)
        x = (x | (x << np.uint64(16))) & np.uint64(0x1F0000FF0000FF)
        x = (x | (x << np.uint64(8))) & np.uint64(0x100F00F00F00F00F)
        x = (x | (x << np.uint64(4))) & np.uint64(0x10C30C30C30C30C3)
        x = (x | (x << np.uint64(2))) & np.uint64(0x1249249249249249)
        code |= x << np.uint64(axis)
    return code


def _pairs_of(keys: IntArray) -> IntArray:
    """Sorted distinct ``(i, j)`` pairs of keys ``(i << 31) | j``."""
    keys = np.sort(keys)
    keys = keys[np.r_[True, keys[1:] != keys[:-1]]] if len(keys) else keys
    pairs: IntArray = np.stack([keys >> 31, keys & ((1 << 31) - 1)], axis=1)
    return pairs


def _groups(unit: FloatArray, faces: IntArray, eps: float, edges: FloatArray) -> IntArray:
    """A group per triangle such that two triangles of one group cannot cross.

    Either the triangle's plane (every vertex within ``eps`` of the plane of the first
    triangle found in it: coplanar triangles never cross), or one of its vertices (triangles
    that share a vertex are neighbours, never tested): whichever group is larger. Fans
    (a cylinder's cap, a cone's tip, a manifold3d face triangulated between holes) are one
    group, so their thousands of touching triangles cost no pairs. Among corners of equal
    valence the one with the largest hash of its index wins: on an even grid the groups are
    then mostly whole fans of six faces (12 % fewer visits on the 200k torus than pairs).
    ``edges``: the cross products of the triangles' edges (the caller has them).
    """
    length = np.sqrt(_dot(edges, edges))
    normal = edges / np.maximum(length, 1e-300)[:, None]
    flip = np.where(
        normal[:, 0] != 0,
        normal[:, 0] < 0,
        np.where(normal[:, 1] != 0, normal[:, 1] < 0, normal[:, 2] < 0),
    )
    normal[flip] *= -1.0
    offset = _dot(normal, unit[:, 0])
    quantum = 1e-7
    key = np.zeros(len(faces), np.int64)
    for column, factor in zip(
        (normal[:, 0], normal[:, 1], normal[:, 2], offset),
        (1, 1_000_003, 998_244_353, 1_000_000_007),
        strict=True,
    ):
        key += np.round(column / quantum).astype(np.int64) * factor
    first, plane = unique_inverse(key)  # a collision of keys only costs pairs: the
    # distance test below splits it
    rep_normal, rep_offset = normal[first][plane], offset[first][plane]
    distance = np.abs(np.einsum("nvd,nd->nv", unit, rep_normal) - rep_offset[:, None])
    distance = _largest(distance)
    on_plane = (distance <= eps) & (length > 0)
    planes = len(first)
    plane = np.where(on_plane, plane, planes + np.arange(len(faces)))  # a plane of its own
    plane_size = np.bincount(plane)[plane]
    valence = np.bincount(faces.ravel())
    scrambled = (np.arange(len(valence), dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> (
        np.uint64(32)
    )
    rank = (valence.astype(np.int64) << 32) | scrambled.astype(np.int64)
    # the corner of largest valence, ties broken by a hash of the vertex (not by position in
    # the face): on an even grid whole fans of six share one vertex, not pairs of faces
    ranks = rank[faces]
    best = np.where(ranks[:, 1] > ranks[:, 0], 1, 0)
    best = np.where(ranks[:, 2] > ranks[np.arange(len(faces)), best], 2, best)
    corner = faces[np.arange(len(faces)), best]
    by_vertex = valence[corner] > plane_size
    group: IntArray = np.where(by_vertex, planes + len(faces) + corner, plane)
    return group


def _pieces(vertices: FloatArray, faces: IntArray, eps: float, per_face: int) -> _Pieces:
    """Cut wide triangles into pieces (about ``per_face`` per face at most); each piece gets
    its padded box and its group."""
    triangles = vertices[faces]
    used = np.zeros(len(vertices), np.bool_)
    used[faces.reshape(-1)] = True
    corners = vertices[used]  # the vertices the faces use
    low = corners.min(axis=0)
    diagonal = float(np.linalg.norm(corners.max(axis=0) - low))
    unit = (triangles - low) / (diagonal if diagonal > 0 else 1.0)
    lengths = _edge_lengths(unit)
    longest = _largest(lengths)
    cap = max(min(per_face * len(faces) + _PIECES_BASE, PIECES_MAX), len(faces))
    cross = np.cross(unit[:, 1] - unit[:, 0], unit[:, 2] - unit[:, 0])
    area = float(np.sqrt(_dot(cross, cross)).sum())
    fat = 2.0 * np.sqrt(area / len(faces))  # the side of a triangle of the mean area, twice
    tenth = len(longest) - 1 - (len(longest) - 1) // 10  # the 90th percentile, near enough
    top = max(min(float(np.partition(longest, tenth)[tenth]), fat), _SMALLEST_PIECE)
    box_lo, box_hi = _corners(unit)
    extent = _largest(box_hi - box_lo)
    while _first_cut(longest, extent, top) > cap:  # cheap lower bound: skip hopeless cuts
        top *= 2.0
    while True:
        cut = _slice(unit, np.arange(len(faces)), top, cap, (box_lo, box_hi, extent, lengths))
        if cut is not None:
            break
        top *= 2.0
    lo, hi, owner = cut
    owner = owner.astype(np.int64)
    group = _groups(unit, faces, eps / (diagonal if diagonal > 0 else 1.0), cross)[owner]
    return _Pieces(lo - _PAD, hi + _PAD, owner, group)


def _first_cut(longest: FloatArray, extent: FloatArray, top: float) -> int:
    """Pieces the first pass of :func:`_slice` makes at piece size ``top`` (a lower bound of
    the total: a slice may be cut again)."""
    large = extent > top
    return int((~large).sum() + 2 * (np.ceil(longest[large] / top) + 1).sum())


def _dot(a: FloatArray, b: FloatArray) -> FloatArray:
    """Row-wise dot products of ``(n, 3)`` arrays (numpy reduces a short last axis slowly)."""
    out: FloatArray = a[:, 0] * b[:, 0] + a[:, 1] * b[:, 1] + a[:, 2] * b[:, 2]
    return out


def _largest(rows: FloatArray) -> FloatArray:
    """The largest of the three columns of an ``(n, 3)`` array."""
    out: FloatArray = np.maximum(np.maximum(rows[:, 0], rows[:, 1]), rows[:, 2])
    return out


def _corners(triangles: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(low, high)`` corners ``(n, 3)`` of the bounding boxes of triangles ``(n, 3, 3)``."""
    return _box_of(triangles[:, 0], triangles[:, 1], triangles[:, 2])


def _box_of(a: FloatArray, b: FloatArray, c: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(low, high)`` corners of the boxes of triangles given by their vertices ``(n, 3)``."""
    return np.minimum(np.minimum(a, b), c), np.maximum(np.maximum(a, b), c)


def _edge_lengths(triangles: FloatArray) -> FloatArray:
    """``(n, 3)``: edge ``k`` joins vertex ``k`` and vertex ``k + 1``."""
    return _lengths_of(triangles[:, 0], triangles[:, 1], triangles[:, 2])


def _lengths_of(a: FloatArray, b: FloatArray, c: FloatArray) -> FloatArray:
    """:func:`_edge_lengths` of triangles given by their vertices ``(n, 3)``."""
    lengths = np.empty((len(a), 3))
    for k, (start, end) in enumerate(((a, b), (b, c), (c, a))):
        edge = end - start
        lengths[:, k] = np.sqrt(_dot(edge, edge))
    return lengths


def _slice(
    triangles: FloatArray,
    owner: IntArray,
    top: float,
    cap: int,
    measured: tuple[FloatArray, FloatArray, FloatArray, FloatArray],
) -> tuple[FloatArray, FloatArray, IntArray] | None:
    """Cut triangles until every piece's box fits a cell of size ``top``; ``None`` past ``cap``.

    A triangle whose box is larger is cut by lines parallel to its shortest edge into ``m``
    slices (``m`` = its longest edge / ``top``, rounded up), each slice a trapezoid of two
    triangles (the apex slice one): a sliver becomes ``m`` short pieces of its own width, not a
    stack of long thin ones; a large fat triangle becomes strips, then squares on the next
    pass. The pieces cover the triangle exactly. ``measured``: the triangles' box corners,
    largest box side and edge lengths (the caller has them). Returns the pieces' box corners
    and owners.
    """
    done_lo: list[FloatArray] = []
    done_hi: list[FloatArray] = []
    done_o: list[IntArray] = []
    total = 0
    low, high, extent, lengths = measured
    corners = (triangles[:, 0], triangles[:, 1], triangles[:, 2])
    while True:
        large = extent > top
        small = ~large
        done_lo.append(low[small])
        done_hi.append(high[small])
        done_o.append(owner[small])
        total += int(small.sum())
        if not large.any():
            break
        owner, lengths = owner[large], lengths[large]
        stacked = np.stack([c[large] for c in corners])  # (3, n, 3): vertex k of triangle i
        shortest = lengths.argmin(axis=1)
        rows = np.arange(len(owner))
        a = stacked[shortest, rows]
        b = stacked[(shortest + 1) % 3, rows]
        apex = stacked[(shortest + 2) % 3, rows]
        slices = np.ceil(_largest(lengths) / top).astype(np.int64) + 1
        if total + int(2 * slices.sum()) > cap:
            return None
        which = np.repeat(rows, slices)
        k = np.arange(len(which)) - np.repeat(np.cumsum(slices) - slices, slices)
        m = slices[which][:, None].astype(np.float64)
        near, far = k[:, None] / m, (k[:, None] + 1) / m
        o, da, db = apex[which], (a - apex)[which], (b - apex)[which]
        p0, q0, p1, q1 = o + near * da, o + near * db, o + far * da, o + far * db
        body = k > 0  # slices past the apex are trapezoids: a second triangle (p0, q1, q0)
        corners = (
            np.concatenate([p0, p0[body]]),
            np.concatenate([p1, q1[body]]),
            np.concatenate([q1, q0[body]]),
        )
        owner = np.concatenate([owner[which], owner[which][body]])
        low, high = _box_of(*corners)
        extent = _largest(high - low)
        again = extent > top  # only a slice still too wide is measured for the next pass
        lengths = np.zeros((len(owner), 3))
        if again.any():
            lengths[again] = _lengths_of(*(c[again] for c in corners))
    return np.concatenate(done_lo), np.concatenate(done_hi), np.concatenate(done_o)


def _crossing(first: FloatArray, second: FloatArray, eps: float) -> NDArray[np.bool_]:
    """Per pair of triangles ``(n, 3, 3)``: do they cross along a segment longer than ``eps``?

    Möller's test: each triangle must have vertices strictly (by ``eps``) on both sides of
    the other's plane, and the two intervals the triangles cut from the planes' common line
    must overlap by more than ``eps``. Touching (a shared seam, a vertex on a face, an edge
    lying in the other's plane) is not crossing. Each stage runs only on the pairs the one
    before kept (most candidates of a valid mesh fail the first plane test).
    """
    crossing = np.zeros(len(first), np.bool_)
    normal_a = _unit_normals(first)
    dist_b = np.einsum("nvd,nd->nv", second - first[:, :1], normal_a)
    rows = np.flatnonzero(_straddles(dist_b, eps))
    first, second, normal_a, dist_b = first[rows], second[rows], normal_a[rows], dist_b[rows]
    normal_b = _unit_normals(second)
    dist_a = np.einsum("nvd,nd->nv", first - second[:, :1], normal_b)
    keep = _straddles(dist_a, eps)
    rows, first, second, dist_a, dist_b = (
        rows[keep],
        first[keep],
        second[keep],
        dist_a[keep],
        dist_b[keep],
    )
    direction = np.cross(normal_a[keep], normal_b[keep])
    direction /= np.maximum(np.linalg.norm(direction, axis=1, keepdims=True), 1e-300)
    lo_a, hi_a = _interval(np.einsum("nvd,nd->nv", first, direction), dist_a, eps)
    lo_b, hi_b = _interval(np.einsum("nvd,nd->nv", second, direction), dist_b, eps)
    overlap = np.minimum(hi_a, hi_b) - np.maximum(lo_a, lo_b)
    crossing[rows[overlap > eps]] = True
    return crossing


def _unit_normals(triangles: FloatArray) -> FloatArray:
    normal: FloatArray = np.cross(
        triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0]
    )
    normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-300)
    return normal


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
