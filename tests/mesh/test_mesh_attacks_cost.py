"""Attacks on the cost of checking a mesh, written as a policy under RL would write them.

A verdict the verifier cannot reach in time (``timeout``) or memory (a dead worker: ``error``)
is masked out of the loss, so a policy that learns to send meshes that are expensive to check
escapes its negative reward. Each attack here must end in an ``incorrect`` verdict with score 0
and a named check (``self_intersection``, ``interpenetration``, ``too_costly``, ...), and its
cost must stay under the documented budget (counted, not timed: machines are noisy; times and
peak memory are in bench/mesh_bench.py). Honest meshes that are expensive for a naive broad
phase (manifold3d booleans with long slivers, fans, plates triangulated between holes) must
stay valid, at a cost of a few dozen node pairs per face.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

import manifold3d
import numpy as np
import pytest
import trimesh
from assay.domains.mesh import checks as build
from assay.domains.mesh.verifier import MeshVerifier
from assay.verifiers.mesh import intersect, physics
from assay.verifiers.mesh.validity import MAX_BODIES, validity

from assay.blame import TOO_COSTLY
from assay.boundary import run_verifier
from assay.types import Record, Status, Verdict


def from_manifold(solid: manifold3d.Manifold) -> trimesh.Trimesh:
    out = solid.to_mesh()
    return trimesh.Trimesh(
        np.asarray(out.vert_properties[:, :3], dtype=np.float64),
        np.asarray(out.tri_verts, dtype=np.int64),
        process=False,
    )


def drilled_sphere() -> trimesh.Trimesh:
    """The issue's case: a ~20k-face sphere with a hole drilled through by a manifold3d boolean
    (the cut leaves 19-unit-long slivers; the KD-tree broad phase needed over 3 GB)."""
    hole = manifold3d.Manifold.cylinder(40, 3, 3, 24).translate((0, 0, -20))
    return from_manifold(manifold3d.Manifold.sphere(10, 200) - hole)


def drilled_block() -> trimesh.Trimesh:
    hole = manifold3d.Manifold.cylinder(40, 4, 4, 256).translate((0, 0, -20))
    return from_manifold(manifold3d.Manifold.cube((30, 30, 30), True) - hole)


def perforated_plate() -> trimesh.Trimesh:
    """81 holes: manifold3d triangulates the plate's faces with long slivers between them."""
    holes = [
        manifold3d.Manifold.cylinder(10, 1, 1, 64).translate((5 + 10 * i, 5 + 10 * j, -1))
        for i in range(9)
        for j in range(9)
    ]
    union = manifold3d.Manifold.batch_boolean(holes, manifold3d.OpType.Add)
    return from_manifold(manifold3d.Manifold.cube((100, 100, 2)) - union)


HONEST: list[tuple[str, Callable[[], trimesh.Trimesh], int]] = [
    ("drilled sphere (manifold3d slivers)", drilled_sphere, 1),
    ("drilled block, 256-segment hole", drilled_block, 1),
    ("plate with 81 holes", perforated_plate, 81),
    ("cylinder with 8192 sections (two fans)", lambda: trimesh.creation.cylinder(5, 10, sections=8192), 0),
    ("cone with 2048 sections (fans at the tip and the base)", lambda: trimesh.creation.cone(5, 10, sections=2048), 0),
    ("icosphere, 20k even faces", lambda: trimesh.creation.icosphere(5), 0),
]  # fmt: skip


@pytest.mark.parametrize(("name", "build_mesh", "genus"), HONEST, ids=[h[0] for h in HONEST])
def test_honest_meshes_stay_valid_at_a_bounded_cost(
    name: str, build_mesh: Callable[[], trimesh.Trimesh], genus: int
) -> None:
    mesh = build_mesh()
    report, merged, bodies = validity(mesh)
    assert merged is not None and report.too_costly is None, name
    assert report.watertight and report.positive_volume and report.degenerate_faces == 0
    assert report.intersections_decided and report.self_intersections == 0
    assert sum(physics.genus(body) for body in bodies) == genus
    # measured: 5 to 250 node pairs per face (the budget: 1M + 128 per face)
    assert report.cost["search_visits"] <= 256 * report.faces, report.cost


def test_a_cone_of_8192_slivers_is_past_the_budget() -> None:
    """The documented limit (docs/mesh.md): two fans of 8192 slivers meeting along a rim
    cost about n**2 / 20 box tests (every piece near the rim overlaps 4 % of the others);
    the search stops at its budget and the mesh is too costly, never a blown memory cap."""
    report, _, _ = validity(trimesh.creation.cone(5, 10, sections=8192))
    assert not report.intersections_decided
    assert report.too_costly is not None and "budget" in report.too_costly


def test_the_drilled_sphere_is_a_correct_answer(mesh_verifier: MeshVerifier) -> None:
    mesh = drilled_sphere()
    height = 2 * np.sqrt(10**2 - 3**2)  # the hole takes the poles off
    reference = {
        "bodies": 1,
        "genus": 1,
        "dimensions": {"extents": [20, 20, height], "tolerance": 0.05},
    }
    verdict = score(mesh_verifier, encode(mesh), reference)
    assert verdict.status is Status.CORRECT, verdict.message


def encode(mesh: trimesh.Trimesh) -> str:
    return base64.b64encode(mesh.export(file_type="stl")).decode()


def score(verifier: MeshVerifier, response: str, reference: dict[str, object]) -> Verdict:
    return run_verifier(verifier, Record("attack", "mesh", response, reference)).verdict


def box_at(rotation: np.ndarray, size: float = 1.0, shift: float = 0.0) -> trimesh.Trimesh:
    box = trimesh.creation.box((size, size, size))
    transform = np.eye(4)
    transform[:3, :3] = rotation
    transform[:3, 3] = shift
    return box.apply_transform(transform)


def pile_of_rotated_boxes() -> trimesh.Trimesh:
    """2000 unit boxes, each turned at random, all centred on one point: 24k faces whose
    bounding boxes all overlap (every pair a candidate for a naive broad phase)."""
    rng = np.random.default_rng(7)
    rotations = [trimesh.transformations.random_rotation_matrix(rng.random(3)) for _ in range(2000)]
    return trimesh.util.concatenate([box_at(r[:3, :3]) for r in rotations])


def pile_of_identical_boxes() -> trimesh.Trimesh:
    """2000 copies of one box at one place (coplanar faces: no crossing to find)."""
    return trimesh.util.concatenate([trimesh.creation.box((1, 1, 1)) for _ in range(2000)])


def urchin_of_needles() -> trimesh.Trimesh:
    """1000 needles (long thin closed tetrahedra) through one point, in random directions."""
    rng = np.random.default_rng(3)
    needles = []
    for _ in range(1000):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        side = np.cross(axis, rng.normal(size=3))
        side /= np.linalg.norm(side)
        other = np.cross(axis, side)
        tip, tail = 10 * axis, -10 * axis
        base = [tail + 0.01 * side, tail + 0.01 * other, tail - 0.01 * (side + other)]
        vertices = np.array([tip, *base])
        faces = np.array([[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]])
        needle = trimesh.Trimesh(vertices, faces, process=False)
        if needle.volume < 0:
            needle.invert()
        needles.append(needle)
    return trimesh.util.concatenate(needles)


def stacked_slabs(count: int = 900) -> trimesh.Trimesh:
    """Thin tilted slivers of volume (closed tetrahedra), stacked in parallel with gaps: no two
    cross, yet every face's bounding box overlaps every other's."""
    slabs = []
    for i in range(count):
        z = 1e-3 * i
        vertices = np.array(
            [[0, 0, z], [100, 0, z + 50], [0, 100, z + 50], [0, 0, z + 5e-4]], dtype=np.float64
        )
        slab = trimesh.Trimesh(
            vertices, [[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]], process=False
        )
        if slab.volume < 0:
            slab.invert()
        slabs.append(slab)
    return trimesh.util.concatenate(slabs)


def scattered_tetrahedra(count: int = MAX_BODIES + 200) -> trimesh.Trimesh:
    rng = np.random.default_rng(1)
    pieces = []
    for centre in rng.random((count, 3)) * 1000:
        tet = trimesh.creation.box((1, 1, 1)).apply_translation(centre)
        pieces.append(tet)
    return trimesh.util.concatenate(pieces)


def nested_boxes(count: int = 300) -> trimesh.Trimesh:
    """Concentric boxes: no face crosses another, but every body lies inside the next (the
    volume is counted ``count`` times); 44,850 box-overlapping body pairs."""
    return trimesh.util.concatenate(
        [trimesh.creation.box([1 + 0.01 * i] * 3) for i in range(count)]
    )


# (attack, builder, the checks of which at least one must fail)
ATTACKS: list[tuple[str, Callable[[], trimesh.Trimesh], set[str]]] = [
    ("2000 rotated boxes piled on one point", pile_of_rotated_boxes, {"self_intersection"}),
    ("2000 identical boxes at one place", pile_of_identical_boxes, {"watertight"}),
    ("1000 needles through one point", urchin_of_needles, {"self_intersection"}),
    ("900 parallel slivers of volume, every box overlapping", stacked_slabs, {TOO_COSTLY}),
    (f"{MAX_BODIES + 200} scattered bodies", scattered_tetrahedra, {TOO_COSTLY}),
    ("300 nested boxes", nested_boxes, {"interpenetration"}),
]


@pytest.mark.parametrize(("name", "build_mesh", "failing"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_a_costly_mesh_is_the_responses_fault(
    mesh_verifier: MeshVerifier,
    name: str,
    build_mesh: Callable[[], trimesh.Trimesh],
    failing: set[str],
) -> None:
    mesh = build_mesh()
    verdict = score(mesh_verifier, encode(mesh), {"bodies": 1, "max_faces": 500_000})
    assert verdict.status is Status.INCORRECT and verdict.score == 0.0, (name, verdict.message)
    failed = {c.name for c in verdict.checks if not c.passed}
    assert failed & failing, (name, failed)
    if TOO_COSTLY in failing:
        assert verdict.message.startswith("too costly to check"), verdict.message
    costs = [c.evidence for c in verdict.checks if c.name in (TOO_COSTLY, "self_intersection")]
    if not costs:  # an open mesh is not searched at all (validity.py): nothing to bound
        assert "watertight" in failed, (name, failed)
        return
    cost = costs[0]
    if "search_visits" in cost:  # the search stops at its budget (a chunk may finish past it)
        assert cost["search_visits"] <= cost["search_budget"] + 4 * intersect.CHUNK, cost


def test_an_undecided_search_is_reported_not_guessed() -> None:
    mesh = validity(stacked_slabs(200))[1]
    assert mesh is not None
    vertices, faces = np.asarray(mesh.vertices), np.asarray(mesh.faces, dtype=np.int64)
    search = intersect.self_intersections(vertices, faces, 1e-9, budget=50_000)
    assert not search.complete and not search.decided and len(search.pairs) == 0
    with pytest.raises(ValueError, match="over the budget"):
        intersect.candidate_pairs(vertices, faces, 1e-9, budget=50_000)
    # with the default budget the same search completes: no slab crosses another
    full = intersect.self_intersections(vertices, faces, 1e-9)
    assert full.complete and len(full.pairs) == 0


def test_a_search_stops_once_it_has_enough_crossings() -> None:
    mesh = validity(pile_of_rotated_boxes())[1]
    assert mesh is not None
    vertices, faces = np.asarray(mesh.vertices), np.asarray(mesh.faces, dtype=np.int64)
    search = intersect.self_intersections(vertices, faces, 1e-9, enough=10)
    assert search.decided and not search.complete and len(search.pairs) >= 10
    assert search.candidates < search.budget // 4  # it stopped long before the budget


@pytest.mark.parametrize(
    ("name", "vertices", "reference"),
    [
        ("coordinates of 1e30", trimesh.creation.box((1, 1, 1)).vertices * 1e30, {"bodies": 1}),
        ("more faces than the task allows", None, {"bodies": 1, "max_faces": 100}),
    ],
)
def test_a_mesh_too_costly_to_check_at_all(
    mesh_verifier: MeshVerifier,
    name: str,
    vertices: np.ndarray | None,
    reference: dict[str, object],
) -> None:
    mesh = trimesh.creation.icosphere(3) if vertices is None else trimesh.creation.box((1, 1, 1))
    if vertices is not None:
        mesh = trimesh.Trimesh(vertices, mesh.faces, process=False)
    verdict = score(mesh_verifier, encode(mesh), reference)
    assert verdict.status is Status.INCORRECT and verdict.score == 0.0, name
    assert TOO_COSTLY in {c.name for c in verdict.checks if not c.passed}, verdict.checks
    assert verdict.message.startswith("too costly to check"), verdict.message


def test_a_library_raising_on_the_mesh_fails_the_check_it_broke() -> None:
    """An empty mesh makes trimesh's sections raise (it has no bounds): the check fails with
    score 0 and keeps its name, so its weight still counts; it is never a masked error."""
    checks = build.guarded(("holes",), lambda: [physics.hole_diameters(trimesh.Trimesh(), "z")])
    assert isinstance(checks, list) and len(checks) == 1
    (check,) = checks
    assert (check.name, check.passed, check.score) == ("holes", False, 0.0)
    assert "raise" in check.message


@pytest.mark.parametrize("seed", range(6))
def test_the_broad_phase_misses_no_crossing(seed: int) -> None:
    """Against every pair tested: random soups of big, tiny, needle and shared-vertex
    triangles (the pieces, groups and tree must only ever drop pairs that cannot cross)."""
    rng = np.random.default_rng(seed)
    count = 250
    kind = seed % 3
    centres = rng.random((count, 3)) * (10.0 if kind else 0.01)
    size = rng.random((count, 1, 1)) ** 3 * 3.0
    triangles = centres[:, None, :] + size * rng.normal(size=(count, 3, 3))
    if kind == 1:  # needles
        triangles[:, 1] = triangles[:, 0] + rng.normal(size=(count, 3)) * 1e-3
    vertices = triangles.reshape(-1, 3)
    faces = np.arange(3 * count).reshape(count, 3)
    if kind == 2:  # triangles that share vertices, fans included
        faces = rng.integers(0, 60, size=(count, 3))
        faces = faces[
            (faces[:, 0] != faces[:, 1])
            & (faces[:, 1] != faces[:, 2])
            & (faces[:, 0] != faces[:, 2])
        ]
    found = intersect.self_intersections(vertices, faces, 1e-9)
    first, second = np.triu_indices(len(faces), 1)
    apart = ~(faces[first][:, :, None] == faces[second][:, None, :]).any(axis=(1, 2))
    first, second = first[apart], second[apart]
    crossing = intersect._crossing(vertices[faces[first]], vertices[faces[second]], 1e-9)
    expected = {(int(a), int(b)) for a, b in zip(first[crossing], second[crossing], strict=True)}
    assert found.complete
    assert {(int(a), int(b)) for a, b in found.pairs} == expected
    assert expected or kind != 0  # the big soups do cross


def tetrahedron(points: list[list[float]]) -> trimesh.Trimesh:
    tet = trimesh.Trimesh(
        np.asarray(points, dtype=np.float64),
        [[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]],
        process=False,
    )
    if tet.volume < 0:
        tet.invert()
    return tet


def torus_pierced() -> tuple[trimesh.Trimesh, int]:
    """A 100k-face torus and a thin tetrahedron through its tube wall, at one spot."""
    torus = trimesh.creation.torus(20, 6, major_sections=300, minor_sections=167)
    spike = tetrahedron([[23, 0.1, 0.1], [29, 0.1, 0.1], [29, 0.3, 0.1], [29, 0.1, 0.3]])
    return trimesh.util.concatenate([torus, spike]), len(torus.faces)


def cylinder_pierced() -> tuple[trimesh.Trimesh, int]:
    """A cylinder of 50k sections (200k faces: two fans of slivers and a side of slivers, cut
    into at most PIECES_MAX pieces) and a thin tetrahedron through its side near the rim."""
    cylinder = trimesh.creation.cylinder(5, 10, sections=50_000)
    spike = tetrahedron([[4, 0.01, 4.9], [6, 0.01, 4.9], [6, 0.03, 4.9], [6, 0.01, 4.95]])
    return trimesh.util.concatenate([cylinder, spike]), len(cylinder.faces)


@pytest.mark.parametrize("build_mesh", [torus_pierced, cylinder_pierced], ids=["torus", "cylinder"])
def test_a_crossing_hidden_among_many_faces_is_found_exactly(
    build_mesh: Callable[[], tuple[trimesh.Trimesh, int]],
) -> None:
    """Every crossing of the intruder's four faces with the large mesh, as an all-pairs test
    finds them, and nothing else: at scale (pieces capped at PIECES_MAX, long slivers cut,
    vertex and plane groups, the budget) the broad phase drops no pair that crosses."""
    mesh, first_intruder = build_mesh()
    vertices, faces = np.asarray(mesh.vertices), np.asarray(mesh.faces, dtype=np.int64)
    eps = 1e-9 * float(np.linalg.norm(mesh.extents))
    found = intersect.self_intersections(vertices, faces, eps)
    assert found.complete, (found.candidates, found.budget)
    intruder = np.arange(first_intruder, len(faces))
    others = np.arange(first_intruder)
    a, b = np.repeat(others, len(intruder)), np.tile(intruder, len(others))
    crossing = intersect._crossing(vertices[faces[a]], vertices[faces[b]], eps)
    expected = {(int(i), int(j)) for i, j in zip(a[crossing], b[crossing], strict=True)}
    assert len(expected) >= 2  # the spike goes through the wall
    assert {(int(i), int(j)) for i, j in found.pairs} == expected


def spiked_sphere() -> trimesh.Trimesh:
    """One closed body whose surface crosses itself: a vertex of a 20k-face sphere pulled
    through the sphere and out of the far side (its fan of faces pierces the wall)."""
    sphere = trimesh.creation.icosphere(5)
    vertices = np.array(sphere.vertices)
    vertices[0] *= -1.5
    return trimesh.Trimesh(vertices, sphere.faces, process=False)


@pytest.mark.parametrize(
    ("budget", "failing"),
    [(None, "self_intersection"), (2_000, TOO_COSTLY)],
    ids=["default budget: found", "budget spent first: too costly"],
)
def test_a_crossing_padded_past_the_budget_is_never_valid(
    mesh_verifier: MeshVerifier,
    monkeypatch: pytest.MonkeyPatch,
    budget: int | None,
    failing: str,
) -> None:
    """The attack: pad a self-intersecting body with enough faces that the search spends its
    budget before it reaches the crossing. The search then has no answer, and no answer is
    never "no crossing": the verdict is ``too_costly`` (the response's fault), score 0."""
    if budget is not None:
        monkeypatch.setattr(intersect, "PAIR_BUDGET_MAX", budget)
    mesh = spiked_sphere()
    report, _, _ = validity(mesh)
    assert report.watertight and report.cost["bodies"] == 1
    verdict = score(mesh_verifier, encode(mesh), {"bodies": 1})
    assert verdict.status is Status.INCORRECT and verdict.score == 0.0, verdict.message
    failed = {c.name for c in verdict.checks if not c.passed}
    assert failing in failed, failed
    if budget is not None:
        assert not report.intersections_decided and report.cost["search_visits"] > budget
