"""Mesh answers from a red-team run (2026-12-03, fourth session), in
``data/red_team_2026_12_03.json``, committed before the fixes they test.

- ``false_credit``: paid without the shape: a self-intersecting fan or a cavity nested in a
  cavity that passed the solid checks and inflated IoU past 1 (one 770-face mesh scored 0.99
  against every target), one hole for four required, a sealed void read as a hole, scene
  parts that are sheets or self-intersect. Each must not be ``correct``, must stay under its
  ``max_score`` where it has one, and no check may score outside [0, 1].
- ``masked``: a scene part that is not a solid made the ``no_interpenetration`` relation
  raise (``error``); it must be judged.
- ``false_negative``: a right answer marked wrong; it must be ``correct``.

Three masked cases are left out of this file because each costs a minute of the item limit to
show (a GLB of 4,000 chained nodes, an OBJ of 26,000 materials, a program writing the GLB);
their decoding is now the response's work (see ``test_decoding_is_the_responses_work``). Cases
left as found are in :data:`KNOWN`, as strict expected failures.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from assay.domains.mesh.verifier import MeshVerifier

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer
from assay.types import Record, Result

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "red_team_2026_12_03.json").read_text()
)
KNOWN: dict[str, str] = {
    "pentagram-bipyramid-valid": "triangles that share a vertex are never tested against each "
    "other (a fan's triangles only touch there, the search assumes), so a fan that crosses "
    "itself passes the self-intersection check; its IoU is bounded now, so it earns no more "
    "than its real overlap",
}
FIXTURES = Path(__file__).parents[2] / "fixtures" / "mesh"


@pytest.fixture(scope="module")
def scored() -> Iterator[dict[str, Result]]:
    rows = [
        RawRow(n, {"id": c["id"], "domain": "mesh", "reference": c["reference"],
                   "response": c["response"]})
        for n, c in enumerate(CASES)
    ]  # fmt: skip
    with Scorer(ScoreOptions(workers=1)) as scorer:
        yield {r.id: r for r in scorer.score_rows(rows)}


def _marks(case: dict[str, Any]) -> list[pytest.MarkDecorator]:
    reason = KNOWN.get(case["id"])
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"], marks=_marks(c)) for c in CASES])
def test_the_attack_does_not_pay(scored: dict[str, Result], case: dict[str, Any]) -> None:
    result = scored[case["id"]]
    status, message = result.status.value, result.verdict.message or ""
    assert status not in ("error", "timeout"), f"masked: {message}"
    for check in result.verdict.checks:
        assert check.score is None or 0.0 <= check.score <= 1.0, (check.name, check.score)
    if case["kind"] == "false_negative":
        assert status == "correct", f"{case['expected']}: {status} {message}"
        return
    if case["kind"] == "false_credit":
        assert status != "correct", case["expected"]
        assert result.verdict.score <= case.get("max_score", 1.0), (
            f"{case['expected']}: {result.verdict.score}"
        )


def test_a_program_in_a_capitalised_fence_gets_the_programs_limit() -> None:
    """``timeout_for`` sniffs programs as the loader does (a ```Python fence is a program)."""
    reference = {"dimensions": {"extents": [1, 1, 1]}, "program": {"timeout_s": 70}}
    lower = Record("a", "mesh", "```python\nwhile True:\n    pass\n```", reference)
    upper = Record("b", "mesh", "```Python\nwhile True:\n    pass\n```", reference)
    spaced = Record("c", "mesh", "import  trimesh\nwhile True:\n    pass\n", reference)
    limits = {MeshVerifier.timeout_for(r) for r in (lower, upper, spaced)}
    assert len(limits) == 1 and limits.pop() > 70


@pytest.mark.parametrize("by", ["path", "sha256"])
def test_a_copy_of_the_target_is_the_answer_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, by: str
) -> None:
    """A response that names another copy of the target's content (the shared file of its
    hash, a duplicate under a data root) is refused like the target's own path."""
    block = FIXTURES / "meshes" / "block.stl"
    digest = hashlib.sha256(block.read_bytes()).hexdigest()
    (tmp_path / "meshes").mkdir()
    (tmp_path / "targets").mkdir()
    shutil.copy(block, tmp_path / "meshes" / "block.stl")
    shutil.copy(block, tmp_path / "targets" / f"{digest}.stl")
    monkeypatch.setenv("ASSAY_DATA_ROOTS", str(tmp_path))
    base = {"units": "mm", "dimensions": {"extents": [20, 10, 5], "tolerance": 0.1},
            "volume": {"value": 1000, "rel_tolerance": 0.02}, "bodies": 1, "stable": True}  # fmt: skip
    if by == "path":
        reference, response = (
            {**base, "target": {"path": "meshes/block.stl"}},
            (f"targets/{digest}.stl"),
        )
    else:
        reference, response = {**base, "target": {"sha256": digest}}, "meshes/block.stl"
    with Scorer(ScoreOptions(workers=1)) as scorer:
        row = {"id": by, "domain": "mesh", "reference": reference, "response": response}
        [result] = list(scorer.score_rows([RawRow(1, row)]))
    assert result.status.value == "incorrect", result.verdict.message


def _chained_glb(depth: int) -> bytes:
    """A GLB of one cube under ``depth`` nodes, each the only child of the one before: trimesh
    walks the chain once per node, so decoding it costs the square of its depth."""
    vertices = struct.pack(
        "<24f", 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1
    )
    faces = [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2,
             7, 6, 3, 0, 4, 3, 4, 7]  # fmt: skip
    blob = vertices + struct.pack(f"<{len(faces)}I", *faces)
    nodes = [{"mesh": 0, **({"children": [i + 1]} if i + 1 < depth else {})} for i in range(depth)]
    gltf = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"byteLength": len(blob)}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 96},
                        {"buffer": 0, "byteOffset": 96, "byteLength": len(blob) - 96}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3",
                       "min": [0, 0, 0], "max": [1, 1, 1]},
                      {"bufferView": 1, "componentType": 5125, "count": len(faces),
                       "type": "SCALAR"}],
    }  # fmt: skip
    text = json.dumps(gltf, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    body = struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(blob), b"BIN\0")
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body) + len(blob)) + body + blob


def test_decoding_is_the_responses_work() -> None:
    """A mesh file that takes longer to decode than the item may take is the response's fault:
    ``incorrect`` with a failed ``too_costly`` check, not a masked ``timeout`` (the red team's
    4,000-node chain took over a minute; 1,500 nodes take several seconds)."""
    response = "```glb\n" + base64.b64encode(_chained_glb(1500)).decode() + "\n```"
    row = {"id": "chain", "domain": "mesh", "reference": {"dimensions": {"extents": [1, 1, 1]}},
           "response": response}  # fmt: skip
    with Scorer(ScoreOptions(workers=1, timeout_s=2.0)) as scorer:
        [result] = list(scorer.score_rows([RawRow(1, row)]))
    assert result.status.value == "incorrect", result.verdict.message
    assert any(c.name == "too_costly" and not c.passed for c in result.verdict.checks)
