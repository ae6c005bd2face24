"""Validity, self-intersection, similarity and physics measurements, with exact values."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh
from assay.verifiers.mesh import physics
from assay.verifiers.mesh.intersect import self_intersections
from assay.verifiers.mesh.similarity import (
    chamfer,
    fscore,
    noise_floor,
    sample_points,
    surface_distances,
    to_manifold,
    volumetric_iou,
)
from assay.verifiers.mesh.validity import validity


def box(
    extents: tuple[float, float, float], at: tuple[float, float, float] = (0, 0, 0)
) -> trimesh.Trimesh:
    mesh = trimesh.creation.box(extents)
    mesh.apply_translation(at)
    return mesh


def raw(vertices: np.ndarray, faces: np.ndarray) -> trimesh.Trimesh:
    return trimesh.Trimesh(vertices, faces, process=False)


CUBE = box((1, 1, 1))
SOUP = raw(CUBE.triangles.reshape(-1, 3), np.arange(36).reshape(-1, 3))
FLIPPED = raw(CUBE.vertices, np.concatenate([CUBE.faces[:1, ::-1], CUBE.faces[1:]]))
NAN = raw(np.vstack([CUBE.vertices[:-1], [[np.nan, 0.5, 0.5]]]), CUBE.faces)
OVERLAP = trimesh.util.concatenate([CUBE, box((1, 1, 1), (0.5, 0.3, 0.2))])
FOLDED = raw(np.vstack([CUBE.vertices[:-1], [[-0.9, -0.2, 0.1]]]), CUBE.faces)
CAVITY = trimesh.util.concatenate(
    [box((10, 10, 10)), raw(box((4, 4, 4)).vertices, box((4, 4, 4)).faces[:, ::-1])]
)

VALIDITY_CASES = [
    # (mesh, expected fields, why)
    (
        CUBE,
        {
            "watertight": True,
            "winding_consistent": True,
            "body_volumes": (1.0,),
            "self_intersections": 0,
        },
        "a clean cube",
    ),
    (
        SOUP,
        {"merged_vertices": 28, "vertices": 8, "watertight": True, "body_volumes": (1.0,)},
        "STL soup is valid once its 36 vertices merge to 8",
    ),
    (
        raw(CUBE.vertices, CUBE.faces[1:]),
        {"boundary_edges": 3, "watertight": False, "body_volumes": ()},
        "one face missing leaves a 3-edge hole",
    ),
    (FLIPPED, {"watertight": True, "winding_consistent": False}, "one face wound backwards"),
    (
        raw(CUBE.vertices, CUBE.faces[:, ::-1]),
        {"winding_consistent": True, "body_volumes": (-1.0,)},
        "inside out: consistent but negative",
    ),
    (NAN, {"finite": False, "degenerate_faces": None}, "a NaN stops the other measurements"),
    (
        raw(CUBE.vertices * 1e300, CUBE.faces),
        {
            "finite": True,
            "degenerate_faces": None,
            "too_costly": "a coordinate of magnitude 5e+299, beyond 1e+15",
        },
        "finite, but areas and volumes would overflow: too costly to check",
    ),
    (
        raw(CUBE.vertices, np.vstack([CUBE.faces, [[0, 0, 1]]])),
        {"degenerate_faces": 1},
        "a face with a repeated vertex",
    ),
    (
        CAVITY,
        {"body_volumes": (1000.0, -64.0), "cavities": 1},
        "an internal void is an inward shell inside the body",
    ),
]


@pytest.mark.parametrize(
    ("mesh", "expected", "why"), VALIDITY_CASES, ids=[c[2] for c in VALIDITY_CASES]
)
def test_validity_report(mesh: trimesh.Trimesh, expected: dict[str, object], why: str) -> None:
    report, _, _ = validity(mesh)
    for name, value in expected.items():
        got = getattr(report, name)
        if isinstance(value, tuple) and value:
            assert got == pytest.approx(value), name
        else:
            assert got == value, name


@pytest.mark.parametrize(
    ("mesh", "positive"),
    [(CUBE, True), (raw(CUBE.vertices, CUBE.faces[:, ::-1]), False), (CAVITY, True)],
    ids=["cube", "inside-out", "cavity-allowed"],
)
def test_positive_volume(mesh: trimesh.Trimesh, positive: bool) -> None:
    assert validity(mesh)[0].positive_volume is positive


INTERSECTION_CASES = [
    # (mesh, crossing pairs, why)
    (OVERLAP, None, "two cubes concatenated with an offset in x, y and z: their faces cross"),
    (
        trimesh.util.concatenate([CUBE, box((1, 1, 1), (0.5, 0, 0))]),
        0,
        "offset along x only: faces meet in planes, they never cross",
    ),
    (
        trimesh.util.concatenate([box((10, 10, 10)), box((4, 4, 4))]),
        0,
        "nested: no crossing at all (shared volume is found elsewhere)",
    ),
    (SOUP, 0, "neighbouring triangles of a soup only touch"),
    (FOLDED, 2, "one body with a corner pulled through the opposite faces: two face pairs cross"),
    (trimesh.creation.torus(10, 3, major_sections=40, minor_sections=20), 0, "a clean torus"),
]


@pytest.mark.parametrize(
    ("mesh", "pairs", "why"), INTERSECTION_CASES, ids=[c[2] for c in INTERSECTION_CASES]
)
def test_self_intersections(mesh: trimesh.Trimesh, pairs: int | None, why: str) -> None:
    merged = validity(mesh)[1]
    assert merged is not None
    search = self_intersections(
        np.asarray(merged.vertices), np.asarray(merged.faces, dtype=np.int64), 1e-9
    )
    assert search.complete
    found = search.pairs
    if pairs is None:  # the count depends on the triangulation; that they cross does not
        assert len(found) > 0
    else:
        assert len(found) == pairs


def test_iou_of_a_cube_shifted_by_half_its_width_is_one_third() -> None:
    iou, intersection, union = volumetric_iou(
        to_manifold(CUBE), to_manifold(box((1, 1, 1), (0.5, 0, 0)))
    )
    assert (iou, intersection, union) == (1 / 3, 0.5, 1.5)


@pytest.mark.parametrize(
    ("other", "iou"),
    [
        (CUBE, 1.0),
        (box((1, 1, 1), (2, 0, 0)), 0.0),
        (box((2, 2, 2)), 1 / 8),
        (box((100, 100, 100)), 1e-6),
    ],
    ids=["itself", "disjoint", "inside-a-double", "100x-larger"],
)
def test_iou_exact_values(other: trimesh.Trimesh, iou: float) -> None:
    assert volumetric_iou(to_manifold(CUBE), to_manifold(other))[0] == pytest.approx(
        iou, rel=1e-12, abs=1e-15
    )


def test_to_manifold_rejects_an_open_mesh() -> None:
    with pytest.raises(ValueError, match="manifold3d rejects"):
        to_manifold(raw(CUBE.vertices, CUBE.faces[1:]))


def test_identical_shapes_sit_on_the_noise_floor() -> None:
    # same seeds as the verifier: the candidate's CD to the target equals the floor exactly
    diagonal = math.sqrt(3)
    floor = noise_floor(CUBE, 2048, diagonal, (2, 1))
    result = chamfer(sample_points(SOUP, 2048, 2), sample_points(CUBE, 2048, 1), diagonal)
    assert result.normalized == floor
    assert 0 < floor < 0.03  # about 1.5 % of the diagonal at 2048 samples (halves per 4x samples)
    assert noise_floor(CUBE, 8192, diagonal, (2, 1)) < 0.6 * floor


def test_chamfer_keeps_scale() -> None:
    big = box((100, 100, 100))
    result = chamfer(sample_points(big, 1024, 2), sample_points(CUBE, 1024, 1), math.sqrt(3))
    assert result.forward > 25  # points on the big cube are at least 49.5 from the unit cube
    assert result.normalized == pytest.approx(result.raw / math.sqrt(3))
    assert result.squared > result.forward**2 / 2  # mean of squares >= square of the mean


def test_fscore_point_to_surface() -> None:
    points = sample_points(CUBE, 1024, 2)
    assert fscore(surface_distances(points, CUBE), surface_distances(points, CUBE), 1e-4) == (
        1.0,
        1.0,
        1.0,
    )
    shifted = box((1, 1, 1), (0.5, 0, 0))
    shifted_points = sample_points(shifted, 4096, 2)
    f, precision, recall = fscore(
        surface_distances(shifted_points, CUBE),
        surface_distances(sample_points(CUBE, 4096, 1), shifted),
        0.01,
    )
    # within tau of the other surface: half of each of the 4 side faces (they coincide), i.e.
    # 2 of 6 faces' area, plus a tau-wide strip along edges: just above 1/3
    assert 1 / 3 < f < 0.36
    assert precision == pytest.approx(recall, abs=0.05)


def tee(offset: float) -> trimesh.Trimesh:
    return box((4, 4, 10), (0, 0, 5)).union(box((24, 4, 2), (offset, 0, 11)))


@pytest.mark.parametrize(
    ("mesh", "stable", "margin", "com_x"),
    [(tee(0), True, 2.0, 0.0), (tee(11), False, -4.0, 6.0), (box((2, 2, 2)), True, 1.0, 0.0)],
    ids=["balanced-tee", "overhang-com-4mm-outside", "cube"],
)
def test_stability(mesh: trimesh.Trimesh, stable: bool, margin: float, com_x: float) -> None:
    # overhang: post 160 mm^3 at x=0, beam 192 mm^3 at x=11 -> COM x = 6, support edge at x=2
    result = physics.stability(mesh)
    assert result.stable is stable
    assert result.margin == pytest.approx(margin, abs=1e-9)
    assert result.center_of_mass[0] == pytest.approx(com_x, abs=1e-9)


def test_interpenetration_volumes() -> None:
    assert physics.interpenetration([box((10, 10, 10)), box((4, 4, 4))]) == [
        (0, 1, pytest.approx(64.0))
    ]
    assert physics.interpenetration([CUBE, box((1, 1, 1), (0.5, 0, 0))]) == [
        (0, 1, pytest.approx(0.5))
    ]
    assert physics.interpenetration([CUBE, box((1, 1, 1), (3, 0, 0))]) == []


def plate(diameter: float) -> trimesh.Trimesh:
    hole = trimesh.creation.cylinder(radius=diameter / 2, height=6, sections=48)
    return box((30, 30, 4)).difference(hole)


def test_hole_diameters() -> None:
    # a 48-gon inscribed in radius 4 is the circle of diameter 8 a CAD kernel drew (its area
    # is that of a circle of diameter 7.9943, the measure before mesh@1.1.3)
    assert physics.hole_diameters(plate(8), "z") == [pytest.approx(8.0)]
    assert physics.hole_diameters(box((30, 30, 4)), "z") == []
    assert physics.hole_diameters(plate(8), "x") == []


@pytest.mark.parametrize(
    ("mesh", "genus"),
    [
        (CUBE, 0),
        (plate(8), 1),
        (trimesh.creation.torus(6, 2, major_sections=32, minor_sections=16), 1),
    ],
    ids=["cube", "plate-with-hole", "torus"],
)
def test_genus(mesh: trimesh.Trimesh, genus: int) -> None:
    assert physics.genus(mesh) == genus


def cup(wall: float) -> trimesh.Trimesh:
    return box((20, 20, 15), (0, 0, 7.5)).difference(
        box((20 - 2 * wall, 20 - 2 * wall, 15), (0, 0, 9.5))
    )


@pytest.mark.parametrize(
    ("wall", "thinnest"), [(1.0, 1.0), (2.0, 2.0), (3.0, 2.0)], ids=["1", "2", "3-bottom-2"]
)
def test_wall_thickness(wall: float, thinnest: float) -> None:
    # the cup's bottom is always 2 thick: a 3 mm side wall still has a 2 mm wall below
    p2, smallest = physics.wall_thickness(cup(wall), 256, 2)
    assert p2 == pytest.approx(thinnest, rel=1e-6)
    assert smallest == pytest.approx(thinnest, rel=1e-6)
