"""Finding and decoding the mesh in a response."""

from __future__ import annotations

import base64

import pytest
import trimesh
from assay.verifiers.mesh.load import MeshLoadError, decode_mesh, parse_response, sniff_bytes

BOX = trimesh.creation.box((2, 2, 2))
OBJ = str(BOX.export(file_type="obj"))
STL_BINARY = BOX.export(file_type="stl")
GLB = BOX.export(file_type="glb")

PARSE_CASES = [
    # (response, kind, file_type, why)
    (OBJ, "mesh", "obj", "bare OBJ text is sniffed from its v/f lines"),
    (
        trimesh.exchange.stl.export_stl_ascii(BOX),
        "mesh",
        "stl",
        "ASCII STL starts with 'solid' and has facets",
    ),
    (BOX.export(file_type="ply", encoding="ascii").decode(), "mesh", "ply", "PLY header"),
    (str(BOX.export(file_type="off")), "mesh", "off", "OFF header"),
    (base64.b64encode(STL_BINARY).decode(), "mesh", "stl", "binary STL: 84 + 50n bytes"),
    (base64.b64encode(GLB).decode(), "mesh", "glb", "GLB magic 'glTF'"),
    (f"Sure:\n```obj\n{OBJ}```\nthanks", "mesh", "obj", "the fence's language names the format"),
    ("```python\nimport trimesh\n```", "program", "", "a python fence is a program"),
    ("import manifold3d\nm = 1\n", "program", "", "an unfenced program that imports manifold3d"),
    ("mesh/meshes/block.stl", "path", "stl", "a single path-like line"),
    (f"``` OBJ {{.mesh}}\n{OBJ}```", "mesh", "obj", "the info string's first word is the format"),
    ("\n\n    import numpy as np\n", "program", "", "an indented import after blank lines"),
]


@pytest.mark.parametrize(
    ("response", "kind", "file_type", "why"), PARSE_CASES, ids=[c[3] for c in PARSE_CASES]
)
def test_parse_response(response: str, kind: str, file_type: str, why: str) -> None:
    source = parse_response(response)
    assert source is not None, why
    assert (source.kind, source.file_type) == (kind, file_type)


@pytest.mark.parametrize(
    "response",
    [
        "",
        "A cube of side 2.",
        "```\n\n```",
        base64.b64encode(b"hello world, not a mesh").decode(),
        # hostile shapes that made the old patterns rescan the text from every start (quadratic:
        # minutes for these); each is read once now
        "```" * 300_000,
        "```" + "a" * 300_000,
        "x" + "\n" * 300_000 + "x",
    ],
    ids=["empty", "prose", "empty-fence", "base64-of-text", "fences", "long-info", "newlines"],
)
def test_nothing_to_parse(response: str) -> None:
    assert parse_response(response) is None


def test_decoded_meshes_are_unprocessed() -> None:
    # an STL is a triangle soup: 12 triangles, 36 vertices until the validity step merges them
    mesh = decode_mesh(STL_BINARY, "stl")
    assert (len(mesh.vertices), len(mesh.faces)) == (36, 12)
    glb = decode_mesh(GLB, sniff_bytes(GLB) or "")
    assert len(glb.faces) == 12


@pytest.mark.parametrize(
    ("data", "file_type"),
    [
        (b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", "obj"),
        (b"solid x\nendsolid x\n", "stl"),
        (b"OFF\n3 1 0\n", "off"),
        (b"", "ply"),
        (OBJ.encode(), "step"),
    ],
    ids=[
        "face-index-out-of-range",
        "stl-without-facets",
        "truncated-off",
        "empty-ply",
        "unknown-format",
    ],
)
def test_decode_errors(data: bytes, file_type: str) -> None:
    with pytest.raises(MeshLoadError):
        decode_mesh(data, file_type)


def test_public_names_are_exported() -> None:
    import inspect

    from assay.verifiers import mesh

    public = {
        name
        for name, value in vars(mesh).items()
        if not name.startswith("_") and not inspect.ismodule(value) and name != "annotations"
    }
    assert sorted(mesh.__all__) == sorted(public)
