"""Task-format elements of mesh@1.1: ``solid``/``fit``, relative tolerance, ``on_ground``,
assemblies, shared targets by content hash, the score floor (docs/mesh.md)."""

from __future__ import annotations

import base64
import hashlib
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import trimesh
from assay.domains.mesh.target import TargetCache
from assay.domains.mesh.verifier import MeshVerifier
from assay.rewards.spec import RewardSpec
from conftest import ROOT

from assay.boundary import run_verifier
from assay.errors import MalformedTaskError
from assay.types import Record, Status, Verdict


def obj(*meshes: trimesh.Trimesh) -> str:
    """An OBJ whose parts index their own vertices (as exporters write assemblies)."""
    lines, offset = [], 0
    for mesh in meshes:
        lines += [f"v {x!r} {y!r} {z!r}" for x, y, z in mesh.vertices.tolist()]
        lines += [f"f {a + offset + 1} {b + offset + 1} {c + offset + 1}" for a, b, c in mesh.faces]
        offset += len(mesh.vertices)
    return "\n".join(lines)


def box(extents: tuple[float, float, float], low: tuple[float, float, float]) -> trimesh.Trimesh:
    mesh = trimesh.creation.box(extents)
    mesh.apply_translation(np.asarray(low) + np.asarray(extents) / 2)
    return mesh


def stl64(mesh: trimesh.Trimesh) -> str:
    return base64.b64encode(mesh.export(file_type="stl")).decode()


def score(verifier: MeshVerifier, response: str, reference: dict[str, Any]) -> Verdict:
    return run_verifier(verifier, Record("t", "mesh", response, reference)).verdict


def named(verdict: Verdict) -> dict[str, Any]:
    return {c.name: c for c in verdict.checks}


OPEN_BOX = trimesh.Trimesh(box((1, 1, 1), (0, 0, 0)).vertices, box((1, 1, 1), (0, 0, 0)).faces[2:])

# (case, response, reference, status, solid passed, fit passed)
SOLID_CASES = [
    ("a correct box", obj(box((1, 2, 3), (0, 0, 0))), {"dimensions": {"extents": [1, 2, 3]}},
     Status.CORRECT, True, True),
    ("valid but wrong: 7% too tall", obj(box((1, 2, 3.2), (0, 0, 0))),
     {"dimensions": {"extents": [1, 2, 3]}, "volume": {"value": 6}}, Status.PARTIAL, True, False),
    ("not a solid: an open box", obj(OPEN_BOX), {"dimensions": {"extents": [1, 1, 1]}},
     Status.INCORRECT, False, False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "response", "reference", "status", "solid", "fit"),
    SOLID_CASES,
    ids=[c[0] for c in SOLID_CASES],
)
def test_solid_tells_not_a_solid_from_valid_but_wrong(  # noqa: PLR0917 - one table row
    mesh_verifier: MeshVerifier,
    case: str,
    response: str,
    reference: dict[str, Any],
    status: Status,
    solid: bool,
    fit: bool,
) -> None:
    verdict = score(mesh_verifier, response, reference)
    checks = named(verdict)
    assert verdict.status is status, (case, verdict.message)
    assert checks["solid"].passed is solid and checks["solid"].evidence["valid_solid"] is solid
    assert checks["fit"].passed is fit
    if not solid:
        assert checks["fit"].score == 0.0 and checks["solid"].evidence["failed"]


def test_a_reward_spec_can_reward_validity_first(mesh_verifier: MeshVerifier) -> None:
    spec = RewardSpec.from_dict({"weights": {"solid": 0.4, "fit": 0.6}})
    rewards = [spec.reward(score(mesh_verifier, c[1], c[2])).reward for c in SOLID_CASES]
    correct, wrong, invalid = rewards
    assert correct == pytest.approx(1.0)
    assert invalid == 0.0
    assert 0.4 <= wrong < 1.0  # validity alone earns its weight


TOLERANCE_CASES = [
    ("2% off, 5% relative", {"extents": [10, 20, 30], "rel_tolerance": 0.05}, True),
    ("2% off, 1% relative", {"extents": [10, 20, 30], "rel_tolerance": 0.01}, False),
    ("2% off, 0.1 absolute", {"extents": [10, 20, 30], "tolerance": 0.1}, False),
    ("2% off, 0.7 absolute", {"extents": [10, 20, 30], "tolerance": 0.7}, True),
]


@pytest.mark.parametrize(
    ("case", "dims", "passes"), TOLERANCE_CASES, ids=[c[0] for c in TOLERANCE_CASES]
)
def test_dimension_tolerance_is_relative_or_absolute(
    mesh_verifier: MeshVerifier, case: str, dims: dict[str, Any], passes: bool
) -> None:
    response = obj(box((10.2, 20.4, 30.6), (0, 0, 0)))
    check = named(score(mesh_verifier, response, {"dimensions": dims}))["dimensions"]
    assert check.passed is passes, (case, check.message)


def test_both_tolerances_at_once_are_malformed(mesh_verifier: MeshVerifier) -> None:
    reference = {"dimensions": {"extents": [1, 1, 1], "tolerance": 0.1, "rel_tolerance": 0.1}}
    assert score(mesh_verifier, obj(box((1, 1, 1), (0, 0, 0))), reference).status is Status.ERROR


GROUND_CASES = [
    ("resting on z = 0", (0, 0, 0), True),
    ("floating 1 above", (0, 0, 1), False),
    ("sunk 1 below the ground", (0, 0, -1), False),  # lowest point below: not resting on it
    ("within 1e-4 of the diagonal", (0, 0, 1e-5), True),
]


@pytest.mark.parametrize(("case", "low", "passes"), GROUND_CASES, ids=[c[0] for c in GROUND_CASES])
def test_on_ground_means_the_lowest_point_is_at_zero(
    mesh_verifier: MeshVerifier, case: str, low: tuple[float, float, float], passes: bool
) -> None:
    verdict = score(mesh_verifier, obj(box((1, 1, 1), low)), {"on_ground": True})
    assert named(verdict)["on_ground"].passed is passes, case
    assert (verdict.status is Status.CORRECT) is passes


ASSEMBLY_CASES = [
    ("two boxes touching face to face", [(0, 0, 0), (1, 0, 0)], True, Status.CORRECT, None),
    ("two boxes 10% interpenetrating", [(0, 0, 0), (0.9, 0, 0)], True, Status.INCORRECT,
     "interpenetration"),
    ("touching, not declared an assembly", [(0, 0, 0), (1, 0, 0)], False, Status.INCORRECT,
     "watertight"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "lows", "assembly", "status", "failed"),
    ASSEMBLY_CASES,
    ids=[c[0] for c in ASSEMBLY_CASES],
)
def test_an_assembly_may_touch_but_not_interpenetrate(  # noqa: PLR0917 - one table row
    mesh_verifier: MeshVerifier,
    case: str,
    lows: list[tuple[float, float, float]],
    assembly: bool,
    status: Status,
    failed: str | None,
) -> None:
    response = obj(*(box((1, 1, 1), low) for low in lows))
    reference = {"bodies": 2, "assembly": assembly, "on_ground": True}
    verdict = score(mesh_verifier, response, reference)
    assert verdict.status is status, (case, verdict.message)
    if failed:
        assert failed in {c.name for c in verdict.checks if not c.passed}, verdict.message


def test_an_assembly_with_a_broken_part_is_not_a_solid(mesh_verifier: MeshVerifier) -> None:
    verdict = score(
        mesh_verifier, obj(box((1, 1, 1), (0, 0, 0)), OPEN_BOX), {"assembly": True, "bodies": 2}
    )
    checks = named(verdict)
    assert verdict.status is Status.INCORRECT and not checks["solid"].passed
    broken = [c for c in verdict.checks if not c.passed and c.name not in ("solid", "fit")]
    assert broken and all(c.evidence["part"] == 1 for c in broken), broken


@pytest.fixture()
def shared_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    source = ROOT / "fixtures" / "mesh" / "meshes" / "sphere.stl"  # not in fixtures/mesh/targets
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    (tmp_path / "targets").mkdir()
    shutil.copy(source, tmp_path / "targets" / f"{digest}.stl")
    monkeypatch.setenv("ASSAY_DATA_ROOTS", str(tmp_path))
    return tmp_path, digest


def test_a_shared_target_is_prepared_once_per_worker(shared_root: tuple[Path, str]) -> None:
    _, digest = shared_root
    cache = TargetCache()
    first = cache.get({"sha256": digest}, 256)
    for _ in range(3):
        assert cache.get({"sha256": digest}, 256) is first
    by_path = cache.get({"path": str(ROOT / "fixtures" / "mesh" / "meshes" / "sphere.stl")}, 256)
    assert by_path is first and cache.prepared == 1


def test_a_shared_target_whose_file_does_not_hash_right_is_malformed(
    shared_root: tuple[Path, str],
) -> None:
    root, digest = shared_root
    wrong = "0" * 64
    (root / "targets" / f"{digest}.stl").rename(root / "targets" / f"{wrong}.stl")
    with pytest.raises(MalformedTaskError, match="content hash"):
        TargetCache().get({"sha256": wrong}, 256)
    with pytest.raises(MalformedTaskError, match="no shared target"):
        TargetCache().get({"sha256": digest}, 256)


def test_a_response_cannot_name_the_shared_target_file(
    mesh_verifier: MeshVerifier, shared_root: tuple[Path, str]
) -> None:
    root, digest = shared_root
    response = str(root / "targets" / f"{digest}.stl")
    verdict = score(mesh_verifier, response, {"target": {"sha256": digest}, "render": False})
    assert verdict.status is Status.INCORRECT and "own target" in (verdict.message or "")


HOPELESS = [
    ("100x the size", 100.0),
    ("coordinates of 1e12", 1e12),
]


@pytest.mark.parametrize(("case", "factor"), HOPELESS, ids=[c[0] for c in HOPELESS])
def test_a_hopeless_answer_is_incorrect_not_a_tiny_partial(
    mesh_verifier: MeshVerifier, case: str, factor: float
) -> None:
    target = box((20, 10, 5), (0, 0, 0))
    candidate = target.copy()
    candidate.apply_scale(factor)
    reference = {
        "target": {"format": "stl", "base64": stl64(target)},
        "dimensions": {"extents": [20, 10, 5]},
        "render": False,
    }
    verdict = score(mesh_verifier, obj(candidate), reference)
    assert verdict.status is Status.INCORRECT and verdict.score == 0.0, (case, verdict.message)
    assert named(verdict)["solid"].passed  # a valid solid, hopelessly wrong


def test_the_floor_keeps_a_real_partial(mesh_verifier: MeshVerifier) -> None:
    reference = {"dimensions": {"extents": [1, 2, 3]}, "volume": {"value": 6}}
    verdict = score(mesh_verifier, obj(box((1, 2, 3.2), (0, 0, 0))), reference)
    assert verdict.status is Status.PARTIAL and verdict.score > 0.01
    assert not named(verdict)["fit"].evidence["floored"]
