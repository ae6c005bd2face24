"""The mesh verifier on its fixtures: statuses, the checks that decide them, their evidence.

Program cases run in the sandbox through the conformance test (tests/test_conformance.py);
here every other fixture runs in-process so that the evidence can be inspected.
"""

from __future__ import annotations

from typing import Any

import pytest
from assay.domains.mesh.task import parse_task
from assay.domains.mesh.verifier import MeshVerifier
from conftest import CASES, ROOT

from assay.boundary import run_verifier
from assay.errors import MalformedTaskError
from assay.registry import default_registry
from assay.types import Check, Record, Verdict

IN_PROCESS = [c for c in CASES.values() if "program" not in c["id"]]


def verdict_of(verifier: MeshVerifier, case_id: str) -> Verdict:
    case = CASES[case_id]
    return run_verifier(
        verifier, Record(case["id"], "mesh", case["response"], case["reference"])
    ).verdict


def checks_of(verdict: Verdict) -> dict[str, Any]:
    return {check.name: check for check in verdict.checks}


def test_fixture_set_is_large_enough() -> None:
    assert len(CASES) >= 40
    statuses = {c["meta"]["expected_status"] for c in CASES.values()}
    assert statuses == {"correct", "partial", "incorrect", "unparsable", "error"}


@pytest.mark.parametrize("case", IN_PROCESS, ids=[c["id"] for c in IN_PROCESS])
def test_fixture_status(mesh_verifier: MeshVerifier, case: dict[str, Any]) -> None:
    verdict = verdict_of(mesh_verifier, case["id"])
    assert verdict.status.value == case["meta"]["expected_status"], case["meta"]["note"]
    if verdict.status.value == "correct":
        assert verdict.score == 1.0 and all(c.passed for c in verdict.checks)
    if verdict.status.value == "partial":
        assert 0 < verdict.score < 1 and not all(c.passed for c in verdict.checks)


# (case, the checks that must fail, why)
FAILING_CHECKS = [
    ("mesh-block-hole-in-surface", {"watertight"}, "an open surface"),
    ("mesh-block-flipped-faces", {"winding"}, "inconsistent winding"),
    ("mesh-block-inverted", {"positive_volume"}, "inverted normals"),
    ("mesh-block-nan", {"finite"}, "NaN vertex"),
    ("mesh-block-overlapping-bodies", {"self_intersection"}, "crossing bodies"),
    ("mesh-block-folded", {"self_intersection"}, "one body folded through itself"),
    ("mesh-pair-nested", {"interpenetration"}, "a body inside another"),
    ("mesh-block-degenerate", {"non_degenerate"}, "a degenerate face"),
    ("mesh-plate-missing-hole", {"holes", "genus"}, "missing hole"),
    ("mesh-plate-small-hole", {"holes"}, "hole too small"),
    ("mesh-tee-overhang", {"stability"}, "tips over"),
    ("mesh-cup-thin-walls", {"wall_thickness"}, "walls too thin"),
    (
        "mesh-block-100x",
        {"dimensions", "volume", "chamfer", "fscore", "iou", "render"},
        "100x scale",
    ),
]


@pytest.mark.parametrize(
    ("case_id", "failing", "why"), FAILING_CHECKS, ids=[c[0] for c in FAILING_CHECKS]
)
def test_the_right_checks_fail(
    mesh_verifier: MeshVerifier, case_id: str, failing: set[str], why: str
) -> None:
    checks = checks_of(verdict_of(mesh_verifier, case_id))
    assert {name for name, check in checks.items() if not check.passed} >= failing, why


def test_half_shifted_block_has_iou_one_third(mesh_verifier: MeshVerifier) -> None:
    # the 20 mm block shifted by 10 mm (half its width) along x against itself
    checks = checks_of(verdict_of(mesh_verifier, "mesh-block-shifted"))
    assert checks["iou"].evidence["iou"] == 1 / 3
    assert checks["dimensions"].passed


def test_identical_shapes_pass_every_similarity_check(mesh_verifier: MeshVerifier) -> None:
    checks = checks_of(verdict_of(mesh_verifier, "mesh-block-stl-ascii"))
    chamfer = checks["chamfer"].evidence
    assert chamfer["above_floor"] == 0.0
    assert chamfer["normalized"] == chamfer["noise_floor"]
    assert checks["fscore"].evidence["fscore"] == 1.0
    assert checks["iou"].evidence["iou"] == 1.0
    assert all(v["silhouette_iou"] == 1.0 for v in checks["render"].evidence["views"].values())
    assert checks["load"].evidence["format"] == "stl"
    assert checks["finite"].evidence["merged_vertices"] == 28


def test_scale_is_not_normalized_away(mesh_verifier: MeshVerifier) -> None:
    checks = checks_of(verdict_of(mesh_verifier, "mesh-block-100x"))
    assert checks["dimensions"].evidence["extents"] == [2000.0, 1000.0, 500.0]
    assert checks["chamfer"].evidence["normalized"] > 10
    assert checks["iou"].evidence["iou"] == pytest.approx(1e-6)
    assert checks["stability"].passed and checks["bodies"].passed


def test_near_miss_scores(mesh_verifier: MeshVerifier) -> None:
    checks = checks_of(verdict_of(mesh_verifier, "mesh-block-taller"))
    assert checks["dimensions"].evidence["errors"] == pytest.approx([0, 0, 0.5])
    assert checks["volume"].evidence["relative_error"] == pytest.approx(0.1)
    assert checks["iou"].evidence["iou"] == pytest.approx(1 / 1.1)
    assert checks["stability"].evidence["margin"] == pytest.approx(5.0)


def test_tee_overhang_evidence(mesh_verifier: MeshVerifier) -> None:
    evidence = checks_of(verdict_of(mesh_verifier, "mesh-tee-overhang"))["stability"].evidence
    assert evidence["center_of_mass"][0] == pytest.approx(6.0)
    assert evidence["margin"] == pytest.approx(-4.0)
    assert evidence["support_area"] == pytest.approx(16.0)


def test_score_is_the_documented_weighted_mean(mesh_verifier: MeshVerifier) -> None:
    verdict = verdict_of(mesh_verifier, "mesh-plate-small-hole")
    task = parse_task(CASES["mesh-plate-small-hole"]["reference"])
    gate = {
        "load",
        "finite",
        "non_degenerate",
        "watertight",
        "winding",
        "positive_volume",
        "self_intersection",
        "manifold",
        "solid",  # summaries: the gate, and the graded mean itself
        "fit",
    }
    graded = [c for c in verdict.checks if c.name not in gate]
    expected = sum(
        task.weights[c.name] * (c.score if c.score is not None else c.passed) for c in graded
    )
    assert verdict.score == pytest.approx(expected / sum(task.weights[c.name] for c in graded))
    fit = next(c for c in verdict.checks if c.name == "fit")
    assert fit.score == pytest.approx(verdict.score)


BAD_REFERENCES = [
    ("not-a-dict", "a box"),
    ("unknown-key", {"genus": 0, "colour": "red"}),
    ("nothing-to-check", {"units": "mm"}),
    ("negative-extent", {"dimensions": {"extents": [1, -1, 1]}}),
    ("two-extents", {"dimensions": {"extents": [1, 1]}}),
    ("bad-axis", {"holes": [{"diameter": 2, "axis": "w"}]}),
    ("unknown-threshold", {"genus": 0, "thresholds": {"hausdorff": 1}}),
    ("inline-target-without-format", {"target": {"data": "v 0 0 0"}}),
    ("target-outside-roots", {"target": "/etc/hostname"}),
    # counts truncated by int() once: 0 samples crashed, 0 max_faces failed every answer
    ("fractional-samples", {"genus": 0, "samples": 0.5}),
    ("fractional-max-faces", {"genus": 0, "max_faces": 0.5}),
    ("fractional-memory", {"genus": 0, "program": {"memory_mb": 1.5}}),
    (
        "target-not-a-solid",
        {"target": {"format": "obj", "data": "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"}},
    ),
]


@pytest.mark.parametrize(("name", "reference"), BAD_REFERENCES, ids=[b[0] for b in BAD_REFERENCES])
def test_malformed_references_raise(mesh_verifier: MeshVerifier, name: str, reference: Any) -> None:
    with pytest.raises(MalformedTaskError):
        mesh_verifier.verify(Record("bad", "mesh", CASES["mesh-block-obj"]["response"], reference))


def test_registered_with_aliases() -> None:
    for name in ("mesh", "3d", "CAD"):
        assert default_registry().entry(name).cls is MeshVerifier


def test_programs_get_a_longer_limit() -> None:
    case = CASES["mesh-block-program-hang"]
    record = Record(case["id"], "mesh", case["response"], case["reference"])
    assert MeshVerifier.timeout_for(record) == MeshVerifier.default_timeout_s + 2 + 30
    plain = Record("x", "mesh", "v 0 0 0", {"genus": 0})
    assert MeshVerifier.timeout_for(plain) == MeshVerifier.default_timeout_s


def test_a_response_naming_the_target_file_is_refused(
    mesh_verifier: MeshVerifier, monkeypatch: pytest.MonkeyPatch
) -> None:
    # even when a data root (here the targets' own folder) makes the path readable
    meshes = ROOT / "fixtures" / "mesh" / "meshes"
    monkeypatch.setenv("ASSAY_DATA_ROOTS", str(meshes))
    case = CASES["mesh-block-obj"]
    verdict = mesh_verifier.verify(
        Record("t", "mesh", str(meshes / "block.stl"), case["reference"])
    )
    assert verdict.status.value == "incorrect"
    assert verdict.message == "the response names the task's own target file"
    other = mesh_verifier.verify(Record("t", "mesh", "cylinder.stl", case["reference"]))
    assert other.status.value == "partial"  # a readable file that is not the target is scored


@pytest.mark.parametrize(
    "response",
    ["a" * 300 + ".stl", "meshes/\x00block.stl"],
    ids=["name-over-255-bytes", "nul-byte"],
)
def test_a_path_the_os_cannot_look_up_is_unparsable(
    mesh_verifier: MeshVerifier, response: str
) -> None:
    # the OS refuses these lookups (ENAMETOOLONG, embedded NUL): model output, not a crash
    result = run_verifier(mesh_verifier, Record("p", "mesh", response, {"genus": 0}))
    assert result.verdict.status.value == "unparsable"


NO_GL = """
import json, sys
from assay.boundary import run_verifier
from assay.domains.mesh.verifier import MeshVerifier
from assay.types import Record
cases = {c["id"]: c for c in map(json.loads, open(sys.argv[1]))}
verifier = MeshVerifier()
verifier.setup()  # must not raise without GL
for cid in ("mesh-tee-balanced", "mesh-block-obj"):
    c = cases[cid]
    result = run_verifier(verifier, Record(cid, "mesh", c["response"], c["reference"]))
    print(result.status.value, result.verdict.message)
"""


def test_without_gl_only_render_tasks_fail_and_they_fail_as_errors() -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYOPENGL_PLATFORM": "no-such-platform"}
    fixtures = str(ROOT / "fixtures" / "mesh" / "cases.jsonl")
    out = subprocess.run(
        [sys.executable, "-c", NO_GL, fixtures],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    constraints_only, with_target = out.stdout.strip().splitlines()
    assert constraints_only == "correct None"
    assert with_target.startswith("error ")
    assert "no offscreen GL context" in with_target


def test_the_documented_task_is_valid() -> None:
    import json
    import re

    doc = (ROOT / "docs" / "mesh.md").read_text(encoding="utf-8")
    example = json.loads(re.findall(r"```json\n(.*?)```", doc, re.S)[0])
    task = parse_task(example)
    assert task.holes[0].diameter == 8 and task.weights["iou"] == 3


def test_an_oversized_named_file_is_not_read(
    mesh_verifier: MeshVerifier, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay.domains.mesh import verifier as module

    monkeypatch.setattr(module, "MAX_FILE_BYTES", 100)
    case = CASES["mesh-block-path"]
    verdict = mesh_verifier.verify(Record("big", "mesh", case["response"], case["reference"]))
    assert verdict.status.value == "incorrect"
    assert "byte limit" in (verdict.message or "")


def test_manifold3d_has_the_last_word() -> None:
    import numpy as np
    import trimesh
    from assay.domains.mesh.checks import manifold_check

    cube = trimesh.creation.box((1, 1, 1))
    assert not isinstance(manifold_check(cube), Check)
    refused = manifold_check(trimesh.Trimesh(cube.vertices, cube.faces[1:], process=False))
    assert isinstance(refused, Check) and not refused.passed
    assert "manifold3d rejects the mesh" in refused.message
    assert np.isclose(manifold_check(cube).volume(), 1.0)  # type: ignore[attr-defined]
