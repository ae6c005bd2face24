"""Shared helpers of the mesh tests: the fixture cases and one warm verifier per session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from assay.domains.mesh.verifier import MeshVerifier

ROOT = Path(__file__).resolve().parents[2]
CASES: dict[str, dict[str, Any]] = {
    case["id"]: case
    for case in map(json.loads, (ROOT / "fixtures" / "mesh" / "cases.jsonl").open(encoding="utf-8"))
}


@pytest.fixture(scope="session")
def mesh_verifier() -> MeshVerifier:
    verifier = MeshVerifier()
    verifier.setup()
    return verifier
