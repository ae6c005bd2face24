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
    ("no lamp", layout(lamp=None), Status.PARTIAL,
     {"part:lamp", "on_top_of:lamp,table", "aligned:lamp,table"}),
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
