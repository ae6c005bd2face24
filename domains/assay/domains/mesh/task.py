"""The reference of a mesh task, validated (no heavy imports: the parent process reads it)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from assay.errors import MalformedTaskError
from assay.types import JSON

__all__ = ["DEFAULT_THRESHOLDS", "DEFAULT_WEIGHTS", "HoleSpec", "MeshTask", "parse_task"]

DEFAULT_THRESHOLDS: dict[str, float] = {
    "chamfer": 0.01,  # normalized CD above the sampling noise floor
    "fscore": 0.95,
    "fscore_tau": 0.01,  # F-score distance, as a fraction of the target diagonal
    "iou": 0.95,
    "render_iou": 0.95,  # silhouette IoU of the worst view
}
DEFAULT_WEIGHTS: dict[str, float] = {
    "dimensions": 2.0,
    "volume": 1.0,
    "bodies": 1.0,
    "genus": 1.0,
    "holes": 2.0,
    "wall_thickness": 1.0,
    "stability": 1.0,
    "chamfer": 2.0,
    "fscore": 1.0,
    "iou": 2.0,
    "render": 1.0,
    "description": 1.0,
}
_AXES = ("x", "y", "z")
_KEYS = {
    "target", "units", "dimensions", "volume", "bodies", "genus", "holes", "min_wall_thickness",
    "stable", "up", "allow_interpenetration", "thresholds", "samples", "render", "weights",
    "program", "max_faces", "on_ground", "assembly", "score_floor", "description",
}  # fmt: skip
SCORE_FLOOR = 0.01
"""Scores below this are 0 (``incorrect``): a hopeless answer (100x the size, coordinates of
1e12) is not a ``partial`` worth 1e-37."""


@dataclass(frozen=True, slots=True)
class HoleSpec:
    """A through or blind hole of a given diameter across an axis."""

    diameter: float
    tolerance: float
    axis: str


@dataclass(frozen=True, slots=True)
class MeshTask:
    """A validated mesh reference (see docs/mesh.md for the JSON form)."""

    target: Mapping[str, Any] | None = None
    units: str = ""
    extents: tuple[float, float, float] | None = None
    extents_tolerance: float = 0.0
    extents_rel_tolerance: float | None = None
    any_orientation: bool = False
    volume: float | None = None
    volume_rel_tolerance: float = 0.02
    bodies: int | None = None
    genus: int | None = None
    holes: tuple[HoleSpec, ...] = ()
    min_wall_thickness: float | None = None
    stable: bool = False
    up: str = "z"
    allow_interpenetration: bool = False
    thresholds: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_THRESHOLDS))
    samples: int = 2048
    render: bool = True
    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    program_timeout_s: float = 20.0
    program_memory_mb: int = 1024
    max_faces: int = 200_000
    on_ground: float | None = None
    assembly: bool = False
    score_floor: float = SCORE_FLOOR
    description: str | None = None
    description_threshold: float = 0.25


def parse_task(reference: JSON) -> MeshTask:
    """Validate a mesh reference.

    Raises:
        MalformedTaskError: not a dict, unknown keys, wrong types, or nothing to check.
    """
    if not isinstance(reference, Mapping):
        raise MalformedTaskError(f"mesh reference must be a dict, got {type(reference).__name__}")
    unknown = set(reference) - _KEYS
    if unknown:
        raise MalformedTaskError(f"unknown mesh reference keys: {sorted(unknown)}")
    target = _target(reference.get("target"))
    dims = reference.get("dimensions")
    extents, tolerance, rel_tolerance, any_orientation = (
        _dimensions(dims) if dims is not None else (None, 0.0, None, False)
    )
    volume = reference.get("volume")
    program = _mapping(reference.get("program", {}), "program")
    task = MeshTask(
        target=target,
        units=str(reference.get("units", "")),
        extents=extents,
        extents_tolerance=tolerance,
        extents_rel_tolerance=rel_tolerance,
        any_orientation=any_orientation,
        volume=None
        if volume is None
        else _positive(_mapping(volume, "volume").get("value"), "volume.value"),
        volume_rel_tolerance=_positive(
            _mapping(volume or {}, "volume").get("rel_tolerance", 0.02), "volume.rel_tolerance"
        ),
        bodies=_count(reference.get("bodies"), "bodies"),
        genus=_count(reference.get("genus"), "genus"),
        holes=tuple(_hole(h) for h in _list(reference.get("holes", []), "holes")),
        min_wall_thickness=_optional_positive(
            reference.get("min_wall_thickness"), "min_wall_thickness"
        ),
        stable=_flag(reference.get("stable", False), "stable"),
        up=_axis(reference.get("up", "z"), "up"),
        allow_interpenetration=_flag(
            reference.get("allow_interpenetration", False), "allow_interpenetration"
        ),
        thresholds=_numbers(reference.get("thresholds", {}), DEFAULT_THRESHOLDS, "thresholds"),
        samples=_whole(reference.get("samples", 2048), "samples"),
        render=_flag(reference.get("render", True), "render"),
        weights=_numbers(reference.get("weights", {}), DEFAULT_WEIGHTS, "weights"),
        program_timeout_s=_positive(program.get("timeout_s", 20.0), "program.timeout_s"),
        program_memory_mb=_whole(program.get("memory_mb", 1024), "program.memory_mb"),
        max_faces=_whole(reference.get("max_faces", 200_000), "max_faces"),
        on_ground=_on_ground(reference.get("on_ground", False)),
        assembly=_flag(reference.get("assembly", False), "assembly"),
        score_floor=_fraction(reference.get("score_floor", SCORE_FLOOR), "score_floor"),
        **_description(reference.get("description")),
    )
    has_constraint = any(
        (task.extents, task.volume, task.bodies is not None, task.genus is not None, task.holes,
         task.min_wall_thickness, task.stable, task.on_ground is not None, task.description)
    )  # fmt: skip
    if target is None and not has_constraint:
        raise MalformedTaskError("mesh reference has neither a target nor any constraint")
    return task


def _target(value: JSON) -> Mapping[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return {"path": value}
    target = _mapping(value, "target")
    if not any(k in target for k in ("path", "data", "base64", "sha256")):
        raise MalformedTaskError("target needs 'path', 'sha256', 'data' (text) or 'base64'")
    digest = target.get("sha256")
    if digest is not None and (
        not isinstance(digest, str)
        or len(digest) != 64
        or any(c not in "0123456789abcdef" for c in digest)
    ):
        raise MalformedTaskError(f"target.sha256 must be 64 lowercase hex digits, got {digest!r}")
    if ("data" in target or "base64" in target) and "format" not in target:
        raise MalformedTaskError("an inline target needs a 'format' (obj, stl, ply, off, glb)")
    return target


def _dimensions(value: JSON) -> tuple[tuple[float, float, float], float, float | None, bool]:
    dims = _mapping(value, "dimensions")
    extents = _list(dims.get("extents"), "dimensions.extents")
    if len(extents) != 3:
        raise MalformedTaskError("dimensions.extents must be three numbers (x, y, z)")
    x, y, z = (_positive(e, "dimensions.extents") for e in extents)
    if "tolerance" in dims and "rel_tolerance" in dims:
        raise MalformedTaskError("dimensions: give 'tolerance' (absolute) or 'rel_tolerance'")
    rel = dims.get("rel_tolerance")
    rel_tolerance = None if rel is None else _fraction(rel, "dimensions.rel_tolerance")
    tolerance = _positive(dims.get("tolerance", 0.01 * max(x, y, z)), "dimensions.tolerance")
    orientation = dims.get("orientation", "fixed")
    if orientation not in ("fixed", "any"):
        raise MalformedTaskError("dimensions.orientation must be 'fixed' or 'any'")
    return (x, y, z), tolerance, rel_tolerance, orientation == "any"


def _description(value: JSON) -> dict[str, Any]:
    """``"text"`` or ``{"text": ..., "threshold": 0.25}`` (cosine similarity to pass)."""
    if value is None:
        return {}
    spec = {"text": value} if isinstance(value, str) else _mapping(value, "description")
    unknown = set(spec) - {"text", "threshold"}
    if unknown:
        raise MalformedTaskError(f"unknown description keys: {sorted(unknown)}")
    text = spec.get("text")
    if not isinstance(text, str) or not text.strip():
        raise MalformedTaskError("description.text must be a non-empty string")
    threshold = _fraction(spec.get("threshold", 0.25), "description.threshold")
    return {"description": text, "description_threshold": threshold}


def _fraction(value: JSON, name: str) -> float:
    number = _positive(value, name)
    if number >= 1:
        raise MalformedTaskError(f"{name} must be a fraction in (0, 1), got {value!r}")
    return number


def _on_ground(value: JSON) -> float | None:
    """``true`` (tolerance 1e-4 of the diagonal), ``{"tolerance": d}`` (units) or ``false``."""
    if value is False:
        return None
    if value is True:
        return 0.0  # 0: relative default, resolved against the mesh's diagonal
    spec = _mapping(value, "on_ground")
    unknown = set(spec) - {"tolerance"}
    if unknown:
        raise MalformedTaskError(f"unknown on_ground keys: {sorted(unknown)}")
    return _positive(spec.get("tolerance"), "on_ground.tolerance")


def _hole(value: JSON) -> HoleSpec:
    hole = _mapping(value, "holes[]")
    diameter = _positive(hole.get("diameter"), "holes[].diameter")
    tolerance = _positive(hole.get("tolerance", 0.02 * diameter), "holes[].tolerance")
    return HoleSpec(diameter, tolerance, _axis(hole.get("axis", "z"), "holes[].axis"))


def _mapping(value: JSON, name: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise MalformedTaskError(f"{name} must be an object, got {value!r}")
    return value


def _list(value: JSON, name: str) -> list[Any]:
    if not isinstance(value, list):
        raise MalformedTaskError(f"{name} must be a list, got {value!r}")
    return value


def _positive(value: JSON, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MalformedTaskError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise MalformedTaskError(f"{name} must be finite and > 0, got {value!r}")
    return float(value)


def _whole(value: JSON, name: str) -> int:
    """A count: a positive whole number (``2048.0`` is one, ``0.5`` is not)."""
    number = _positive(value, name)
    if not number.is_integer():
        raise MalformedTaskError(f"{name} must be a whole number >= 1, got {value!r}")
    return int(number)


def _optional_positive(value: JSON, name: str) -> float | None:
    return None if value is None else _positive(value, name)


def _count(value: JSON, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MalformedTaskError(f"{name} must be an integer >= 0, got {value!r}")
    return value


def _flag(value: JSON, name: str) -> bool:
    if not isinstance(value, bool):
        raise MalformedTaskError(f"{name} must be true or false, got {value!r}")
    return value


def _axis(value: JSON, name: str) -> str:
    if value not in _AXES:
        raise MalformedTaskError(f"{name} must be one of {_AXES}, got {value!r}")
    return str(value)


def _numbers(value: JSON, defaults: Mapping[str, float], name: str) -> dict[str, float]:
    given = _mapping(value, name)
    unknown = set(given) - set(defaults)
    if unknown:
        raise MalformedTaskError(f"unknown {name}: {sorted(unknown)}; known: {sorted(defaults)}")
    merged = dict(defaults)
    for key, number in given.items():
        if (
            isinstance(number, bool)
            or not isinstance(number, int | float)
            or not math.isfinite(number)
            or number < 0
        ):
            raise MalformedTaskError(f"{name}.{key} must be a finite number >= 0, got {number!r}")
        merged[key] = float(number)
    return merged
