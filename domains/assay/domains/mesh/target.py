"""The target of a mesh task, loaded once per worker and kept with everything derived from it."""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import trimesh
from assay.verifiers.mesh.load import MeshLoadError, decode_mesh, resolve_under
from assay.verifiers.mesh.similarity import noise_floor, sample_points, to_manifold
from assay.verifiers.mesh.validity import validity
from numpy.typing import NDArray

from assay.errors import MalformedTaskError

__all__ = [
    "CANDIDATE_SEED",
    "PROJECT_ROOT",
    "PreparedTarget",
    "TargetCache",
    "data_roots",
    "response_roots",
    "shared_target",
    "target_path",
    "target_roots",
]

PROJECT_ROOT = Path(__file__).resolve().parents[4]
ROOTS_ENV = "ASSAY_DATA_ROOTS"
TARGET_SEED = 1
CANDIDATE_SEED = 2
"""The noise floor samples the target with both seeds, so an identical mesh sits exactly on it."""


def data_roots() -> list[Path]:
    """Directories listed in ``ASSAY_DATA_ROOTS`` (``:``-separated)."""
    return [Path(p) for p in os.environ.get(ROOTS_ENV, "").split(":") if p]


def target_roots() -> list[Path]:
    """Where target meshes may be read: the project (its fixtures) and ``ASSAY_DATA_ROOTS``."""
    return [PROJECT_ROOT, *data_roots()]


def response_roots() -> list[Path]:
    """Where a response's mesh path may point: ``fixtures/mesh/responses`` and
    ``ASSAY_DATA_ROOTS``; never the project's targets, so a model cannot answer with the
    target's own file."""
    return [PROJECT_ROOT / "fixtures" / "mesh" / "responses", *data_roots()]


@dataclass(slots=True)
class PreparedTarget:
    """A valid target mesh and what comparisons need from it (computed once).

    Attributes:
        mesh: The merged target mesh.
        solid: Its manifold3d solid.
        diagonal: Bounding-box diagonal (normalizes distances).
        center: Bounding-box centre (aims the cameras).
        samples: Surface points (seed :data:`TARGET_SEED`).
        floor: Normalized Chamfer noise floor at this sample count.
        depths: Depth renders by view (filled on first use).
        digest: sha256 of the target file's content (a response that names a copy of it is
            answering with the answer key).
    """

    mesh: trimesh.Trimesh
    solid: Any
    diagonal: float
    center: NDArray[np.float64]
    samples: NDArray[np.float64]
    floor: float
    depths: dict[str, NDArray[np.float32]] = field(default_factory=dict)
    digest: str = ""


class TargetCache:
    """Prepared targets by content hash and sample count (least recently used dropped)."""

    def __init__(self, size: int = 32) -> None:
        self._size = size
        self._items: OrderedDict[str, PreparedTarget] = OrderedDict()
        self.prepared = 0
        """Targets prepared (decoded, validated, sampled) by this cache: once per target."""

    def get(self, spec: dict[str, Any], samples: int) -> PreparedTarget:
        """The prepared target of a reference's ``target`` entry.

        Raises:
            MalformedTaskError: the target cannot be read or is not a valid solid.
        """
        shortcut = _shortcut(spec, samples)  # shared targets: no read, no hash, once known
        if shortcut is not None and shortcut in self._items:
            self._items.move_to_end(shortcut)
            return self._items[shortcut]
        data, file_type = _target_bytes(spec)
        digest = hashlib.sha256(data).hexdigest()
        if "sha256" in spec and digest != spec["sha256"]:
            raise MalformedTaskError(
                f"target file for sha256 {spec['sha256']} has content hash {digest}"
            )
        key = f"{digest}|{file_type}|{samples}"
        if key in self._items:
            self._items.move_to_end(key)
            prepared = self._items[key]
        else:
            prepared = _prepare(data, file_type, samples)
            prepared.digest = digest
            self._items[key] = prepared
            self.prepared += 1
        if shortcut is not None:
            self._items[shortcut] = prepared
        while len(self._items) > self._size:
            self._items.popitem(last=False)
        return prepared


def target_path(spec: dict[str, Any]) -> Path | None:
    """The resolved file of a target given by path (``None`` for inline targets)."""
    return resolve_under(str(spec["path"]), target_roots()) if "path" in spec else None


def _shortcut(spec: dict[str, Any], samples: int) -> str | None:
    """A cache key known without reading the target: its content hash as given, or its
    resolved path with size and modification time (a file changed in place is read again)."""
    file_type = str(spec.get("format", "")).lower()
    if "sha256" in spec:
        return f"sha256:{spec['sha256']}|{file_type}|{samples}"
    if "path" in spec:
        path = target_path(spec)
        if path is not None:
            stat = path.stat()
            return f"path:{path}|{stat.st_size}|{stat.st_mtime_ns}|{file_type}|{samples}"
    return None


def shared_target(digest: str) -> Path | None:
    """The file of a shared target given by content hash: ``<sha256>.<ext>`` in
    ``fixtures/mesh/targets`` or a ``targets`` folder of an ``ASSAY_DATA_ROOTS`` root."""
    for root in [PROJECT_ROOT / "fixtures" / "mesh", *data_roots()]:
        folder = root / "targets"
        if folder.is_dir():
            for candidate in sorted(folder.glob(f"{digest}.*")):
                if candidate.is_file():
                    return candidate
    return None


def _target_bytes(spec: dict[str, Any]) -> tuple[bytes, str]:
    file_type = str(spec.get("format", "")).lower()
    if "sha256" in spec and "path" not in spec:
        found = shared_target(str(spec["sha256"]))
        if found is None:
            raise MalformedTaskError(
                f"no shared target {spec['sha256']}.* under fixtures/mesh/targets or "
                f"{ROOTS_ENV}/*/targets"
            )
        return found.read_bytes(), file_type or found.suffix.lower().lstrip(".")
    if "path" in spec:
        path = target_path(spec)
        if path is None:
            raise MalformedTaskError(
                f"target {spec['path']!r} is not a file under the project or {ROOTS_ENV}"
            )
        return path.read_bytes(), file_type or path.suffix.lower().lstrip(".")
    if "base64" in spec:
        try:
            return base64.b64decode(str(spec["base64"]), validate=True), file_type
        except (binascii.Error, ValueError) as exc:
            raise MalformedTaskError(f"target base64 does not decode: {exc}") from None
    return str(spec["data"]).encode("utf-8"), file_type


def _prepare(data: bytes, file_type: str, samples: int) -> PreparedTarget:
    try:
        raw = decode_mesh(data, file_type)
    except MeshLoadError as exc:
        raise MalformedTaskError(f"target mesh: {exc}") from None
    report, mesh, _ = validity(raw)
    if mesh is None or not report.watertight or not report.positive_volume:
        raise MalformedTaskError(f"target mesh is not a valid closed solid: {report}")
    try:
        solid = to_manifold(mesh)
    except ValueError as exc:
        raise MalformedTaskError(f"target mesh: {exc}") from None
    diagonal = float(np.linalg.norm(mesh.extents))
    return PreparedTarget(
        mesh=mesh,
        solid=solid,
        diagonal=diagonal,
        center=np.asarray(mesh.bounds.mean(axis=0), dtype=np.float64),
        samples=sample_points(mesh, samples, TARGET_SEED),
        floor=noise_floor(mesh, samples, diagonal, (CANDIDATE_SEED, TARGET_SEED)),
    )
