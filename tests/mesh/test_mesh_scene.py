"""Scene tasks: named parts placed in a small game scene, relations and per-part constraints,
a step per part and per relation (docs/mesh.md, "Scenes")."""

from __future__ import annotations

import json
from typing import Any

import pytest
import trimesh
from assay.domains.mesh.verifier import MeshVerifier

from assay.boundary import run_verifier
from assay.types import Record, Status, Verdict


def obj(mesh: trimesh.Trimesh) -> str:
    lines = [f"v {x!r} {y!r} {z!r}" for x, y, z in mesh.vertices.tolist()]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in mesh.faces]
    return "\n".join(lines)


def unit_box(x: float, y: float, z: float) -> str:
    """A box of these extents with its base centred on the origin (placed by ``translate``)."""
    mesh = trimesh.creation.box((x, y, z))
    mesh.apply_translation((0, 0, z / 2))
    return obj(mesh)


SCENE = {
    "parts": {
        "floor": {"dimensions": {"extents": [10, 10, 0.2], "rel_tolerance": 0.01}},
        "table": {"dimensions": {"extents": [2, 1, 1], "rel_tolerance": 0.02}},
        "lamp": {},
        "chest": {},
        "coin": {},
    },
    "relations": [
        {"type": "on_top_of", "a": "table", "b": "floor"},
        {"type": "on_top_of", "a": "lamp", "b": "table"},
        {"type": "aligned", "a": "lamp", "b": "table", "axis": "x"},
        {"type": "clearance", "a": "chest", "b": "table", "distance": 1.0},
        {"type": "inside", "a": "coin", "b": "chest"},
        {"type": "no_interpenetration", "parts": ["floor", "table", "lamp", "chest"]},
    ],
    "bounds": [[-5, -5, 0], [5, 5, 4]],
}


def layout(**changes: dict[str, Any]) -> dict[str, Any]:
    parts = {
        "floor": {"mesh": unit_box(10, 10, 0.2), "translate": [0, 0, 0]},
        "table": {"mesh": unit_box(2, 1, 1), "translate": [0, 0, 0.2]},
        "lamp": {"mesh": unit_box(0.3, 0.3, 0.6), "translate": [0, 0, 1.2]},
        "chest": {"mesh": unit_box(1, 1, 0.8), "translate": [3, 3, 0.2]},
        "coin": {"mesh": unit_box(0.2, 0.2, 0.05), "translate": [3, 3, 0.4]},
    }
    for name, change in changes.items():
        if change is None:
            del parts[name]
        else:
            parts[name] = {**parts[name], **change}
    return {"parts": parts}


def score(verifier: MeshVerifier, response: str) -> Verdict:
    return run_verifier(verifier, Record("s", "mesh", response, {"scene": SCENE})).verdict


# (case, response, status, steps that must fail)
CASES = [
    ("the layout as asked", layout(), Status.CORRECT, set()),
    ("the lamp floats above the table", layout(lamp={"translate": [0, 0, 1.5]}), Status.PARTIAL,
     {"on_top_of:lamp,table"}),
    ("the lamp sunk into the table", layout(lamp={"translate": [0, 0, 1.0]}), Status.PARTIAL,
     {"on_top_of:lamp,table", "no_interpenetration:*"}),
    ("the chest against the table", layout(chest={"translate": [1.6, 0, 0.2]}), Status.PARTIAL,
     {"clearance:chest,table", "inside:coin,chest"}),  # the coin was left behind
    ("a table twice as long", layout(table={"mesh": unit_box(4, 1, 1)}), Status.PARTIAL,
     {"part:table"}),
    ("the chest out of the room", layout(chest={"translate": [3, 3, 5]}), Status.PARTIAL,
     {"within:*", "inside:coin,chest"}),
    # a missing part interpenetrates nothing, but "no part interpenetrates" is not shown for it
    # (mesh@1.2.0: a scene of sheets passed that relation with no solid at all)
    ("no lamp", layout(lamp=None), Status.PARTIAL,
     {"part:lamp", "on_top_of:lamp,table", "aligned:lamp,table", "no_interpenetration:*"}),
    ("the lamp rotated and scaled in place", layout(lamp={"rotate_z": 45, "scale": 1.0}),
     Status.CORRECT, set()),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "response", "status", "failing"), CASES, ids=[c[0] for c in CASES]
)
def test_a_scene_is_a_step_per_part_and_per_relation(
    mesh_verifier: MeshVerifier,
    case: str,
    response: dict[str, Any],
    status: Status,
    failing: set[str],
) -> None:
    verdict = score(mesh_verifier, f"```json\n{json.dumps(response)}\n```")
    assert verdict.status is status, (case, verdict.message)
    assert len(verdict.steps) == len(SCENE["parts"]) + len(SCENE["relations"]) + 1  # + bounds
    failed = {s.name for s in verdict.steps if not s.passed}
    assert failed == failing, (case, failed)
    assert verdict.score == pytest.approx(
        min(0.99, sum(s.score for s in verdict.steps) / len(verdict.steps)) if failing else 1.0
    )


def test_a_scene_that_is_not_json_is_unparsable(mesh_verifier: MeshVerifier) -> None:
    assert score(mesh_verifier, "the table goes left of the lamp").status is Status.UNPARSABLE


def test_a_scene_naming_an_unknown_part_is_malformed(mesh_verifier: MeshVerifier) -> None:
    reference = {
        "scene": {"parts": {"a": {}}, "relations": [{"type": "inside", "a": "a", "b": "ghost"}]}
    }
    verdict = run_verifier(mesh_verifier, Record("s", "mesh", "{}", reference)).verdict
    assert verdict.status is Status.ERROR


# Program parts: Python source run in the code sandbox, the mesh read back as a file and parsed
# by the trusted loader. Plain-Python programs (no trimesh import) keep each run well under 1 s.
def obj_program(mesh_text: str, name: str = "output.obj") -> str:
    return f"open({name!r}, 'w').write({mesh_text!r})\n"


TRIMESH_TABLE = """import trimesh
mesh = trimesh.creation.box((2, 1, 1))
mesh.apply_translation((0, 0, 0.5))
mesh.export("output.stl")
"""
TETRA = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
MANY_TETRAS = "\n".join(
    "\n".join(f"v {x + 3 * i} {y} {z}" for x, y, z in ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)))
    + "\n"
    + "\n".join(f"f {a + 4 * i} {b + 4 * i} {c + 4 * i}" for a, b, c in
                ((1, 3, 2), (1, 2, 4), (1, 4, 3), (2, 3, 4)))
    for i in range(5)
)  # fmt: skip
LOOP = "while True:\n    pass\n"
HOG = "block = bytearray(1 << 34)\n"  # 16 GiB, far past the scene's memory limit
SLOW_LAMP = "import time\ntime.sleep(1.6)\n" + obj_program(unit_box(0.3, 0.3, 0.6))


# (case, scene changes, program parts, status, failing steps, the failed check of a fault)
PROGRAM_CASES = [
    ("a trimesh program builds the table", {}, {"table": TRIMESH_TABLE}, Status.CORRECT, set(),
     None),
    ("plain Python writes the lamp's OBJ", {}, {"lamp": obj_program(unit_box(0.3, 0.3, 0.6))},
     Status.CORRECT, set(), None),
    ("the table program builds a table twice as long", {},
     {"table": obj_program(unit_box(4, 1, 1))}, Status.PARTIAL, {"part:table"}, None),
    ("the coin program crashes", {}, {"coin": "raise RuntimeError('no coin')\n"},
     Status.PARTIAL, {"part:coin", "inside:coin,chest"}, None),
    ("the coin program writes no mesh", {}, {"coin": "print('forgot to save')\n"},
     Status.PARTIAL, {"part:coin", "inside:coin,chest"}, None),
    ("the lamp program loops", {"program": {"timeout_s": 1}}, {"lamp": LOOP},
     Status.INCORRECT, {"part:lamp"}, "resources"),
    ("the lamp program blows its memory", {"program": {"memory_mb": 256}}, {"lamp": HOG},
     Status.INCORRECT, {"part:lamp"}, "resources"),
    ("the lamp program outputs more faces than the part allows",
     {"parts": {**SCENE["parts"], "lamp": {"max_faces": 10, "bodies": 5}}},
     {"lamp": obj_program(MANY_TETRAS)}, Status.INCORRECT, {"part:lamp"}, "too_costly"),
    ("the programs use up the scene's budget", {"program": {"timeout_s": 2}},
     {"lamp": SLOW_LAMP, "coin": obj_program(TETRA)}, Status.INCORRECT, None, "resources"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "changes", "programs", "status", "failing", "fault"),
    PROGRAM_CASES,
    ids=[c[0] for c in PROGRAM_CASES],
)
def test_a_scene_part_may_be_a_program(  # noqa: PLR0917 - one row of the table
    mesh_verifier: MeshVerifier,
    case: str,
    changes: dict[str, Any],
    programs: dict[str, str],
    status: Status,
    failing: set[str] | None,
    fault: str | None,
) -> None:
    response = layout(**{name: {"program": code} for name, code in programs.items()})
    for name in programs:
        del response["parts"][name]["mesh"]
    reference = {"scene": {**SCENE, **changes}}
    record = Record("s", "mesh", f"```json\n{json.dumps(response)}\n```", reference)
    verdict = run_verifier(mesh_verifier, record).verdict
    assert verdict.status is status, (case, verdict.message)
    failed = {s.name for s in verdict.steps if not s.passed}
    if failing is not None:
        assert failed == failing, (case, failed)
    for step in verdict.steps:
        if step.name.removeprefix("part:") in programs:
            assert step.evidence["program"] is True, case
    if fault is None:
        assert not any(c.name in ("resources", "too_costly") for c in verdict.checks), case
        return
    # the response's fault: score 0, a named failed check, the part's step says so
    assert verdict.score == 0.0
    assert [c.name for c in verdict.checks if not c.passed] == [fault], case
    last = verdict.steps[-1]
    assert not last.passed and last.evidence["check"] == fault, case
    assert last.message == verdict.message and last.name.removeprefix("part:") in programs


def test_a_part_with_both_a_mesh_and_a_program_is_unparsable(mesh_verifier: MeshVerifier) -> None:
    response = layout(table={"program": TRIMESH_TABLE})  # keeps its mesh too
    assert score(mesh_verifier, json.dumps(response)).status is Status.UNPARSABLE


# (case, response): every scene's limit holds its program budget, however the response is spelt
LIMIT_CASES = [
    ("a program part", json.dumps(layout(lamp={"program": LOOP}))),
    ("meshes only", json.dumps(layout())),
    ("the program key spelt with a JSON escape",
     json.dumps(layout(lamp={"program": LOOP})).replace('"program"', '"\\u0070rogram"')),
]  # fmt: skip


@pytest.mark.parametrize(("case", "response"), LIMIT_CASES, ids=[c[0] for c in LIMIT_CASES])
def test_a_scene_gets_its_program_budget_on_top(case: str, response: str) -> None:
    reference = {"scene": {**SCENE, "program": {"timeout_s": 7}}}
    limit = MeshVerifier.timeout_for(Record("s", "mesh", response, reference))
    assert limit == MeshVerifier.default_timeout_s + 7 + 30, case
    assert json.loads(response)["parts"].keys() == layout()["parts"].keys()


@pytest.mark.parametrize(
    "program", [{"timeout_s": 0}, {"memory_mb": 0.5}, {"cpus": 2}, "fast"], ids=str
)
def test_a_bad_scene_program_limit_is_malformed(
    mesh_verifier: MeshVerifier, program: object
) -> None:
    reference = {"scene": {**SCENE, "program": program}}
    record = Record("s", "mesh", json.dumps(layout()), reference)
    assert run_verifier(mesh_verifier, record).verdict.status is Status.ERROR
