"""Scene tasks: named parts with placements, checked against relations (docs/mesh.md, "Scenes").

The reference is ``{"scene": {"parts": {name: constraints}, "relations": [...],
"bounds": [[x, y, z], [x, y, z]]?, "tolerance": d?}}``; the response is a JSON object
``{"parts": {name: {"mesh": <mesh text or base64> | "program": <Python source>,
"translate": [x, y, z]?, "rotate_z": degrees?, "scale": s?}}}`` (in a fenced ``json`` block or
bare). Each part is graded by the mesh checks with its own constraints (a step per part), each
relation is a step; the score is the mean of the steps, ``correct`` only when every step passes.
A program part runs in the code sandbox like a single-part program; one that exceeds a limit
(time, memory, output size, the scene's program budget) or yields a mesh too costly to check
makes the whole scene ``incorrect`` with a failed ``resources`` / ``too_costly`` check.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from assay.domains.mesh.task import MeshTask, parse_task

from assay.blame import RESOURCES, TOO_COSTLY
from assay.errors import MalformedTaskError
from assay.types import JSON, Check, Status, StepResult, Verdict

__all__ = ["RELATIONS", "SceneTask", "parse_placements", "parse_scene"]

RELATIONS = ("on_top_of", "inside", "aligned", "clearance", "within", "no_interpenetration")
RESOURCE_STATUSES = frozenset({"timeout", "memory", "killed", "too-large"})
"""Program statuses that mean a limit was exceeded (the response's fault: ``resources``)."""
_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL)


@dataclass(frozen=True, slots=True)
class SceneTask:
    """A validated scene reference."""

    parts: Mapping[str, MeshTask | None]  # None: no per-part constraint
    relations: tuple[Mapping[str, Any], ...]
    bounds: tuple[tuple[float, float, float], tuple[float, float, float]] | None
    tolerance: float
    program_budget_s: float = 60.0  # all program parts together
    program_memory_mb: int = 1024  # each program part


def parse_scene(value: JSON) -> SceneTask:
    """Validate ``reference["scene"]``.

    Raises:
        MalformedTaskError: unknown parts or relations, wrong types.
    """
    if not isinstance(value, Mapping):
        raise MalformedTaskError("scene must be an object")
    unknown = set(value) - {"parts", "relations", "bounds", "tolerance", "program"}
    if unknown:
        raise MalformedTaskError(f"unknown scene keys: {sorted(unknown)}")
    parts_spec = value.get("parts")
    if not isinstance(parts_spec, Mapping) or not parts_spec:
        raise MalformedTaskError("scene.parts must name at least one part")
    parts: dict[str, MeshTask | None] = {}
    for name, spec in parts_spec.items():
        if not isinstance(spec, Mapping):
            raise MalformedTaskError(f"scene.parts.{name} must be an object")
        parts[str(name)] = parse_task({**spec, "render": False}) if spec else None
    relations = value.get("relations", [])
    if not isinstance(relations, list):
        raise MalformedTaskError("scene.relations must be a list")
    for relation in relations:
        _check_relation(relation, parts)
    bounds = value.get("bounds")
    box = None
    if bounds is not None:
        if (
            not isinstance(bounds, list)
            or len(bounds) != 2
            or not all(isinstance(c, list) and len(c) == 3 for c in bounds)
        ):
            raise MalformedTaskError("scene.bounds must be [[x, y, z], [x, y, z]]")
        low, high = (tuple(_number(v, "scene.bounds") for v in corner) for corner in bounds)
        box = (low, high)
    tolerance = _number(value.get("tolerance", 1e-3), "scene.tolerance")
    budget, memory = _program_limits(value.get("program", {}))
    return SceneTask(parts, tuple(relations), box, tolerance, budget, memory)  # type: ignore[arg-type]


def _program_limits(value: Any) -> tuple[float, int]:
    """``scene.program``: ``timeout_s`` for all program parts together, ``memory_mb`` each."""
    if not isinstance(value, Mapping) or set(value) - {"timeout_s", "memory_mb"}:
        raise MalformedTaskError("scene.program holds only timeout_s and memory_mb")
    budget = _number(value.get("timeout_s", 60.0), "scene.program.timeout_s")
    memory = value.get("memory_mb", 1024)
    if budget <= 0 or isinstance(memory, bool) or not isinstance(memory, int) or memory < 1:
        raise MalformedTaskError(
            "scene.program.timeout_s must be > 0 and memory_mb a whole number >= 1"
        )
    return budget, memory


def _check_relation(relation: Any, parts: Mapping[str, Any]) -> None:
    if not isinstance(relation, Mapping) or relation.get("type") not in RELATIONS:
        raise MalformedTaskError(f"a scene relation needs a type in {RELATIONS}: {relation!r}")
    kind = relation["type"]
    names = [relation.get("a"), relation.get("b")] if kind != "no_interpenetration" else []
    if kind == "within":
        names = [relation.get("a")]
    for name in names:
        if name not in parts:
            raise MalformedTaskError(f"relation {kind} names an unknown part {name!r}")
    if kind == "clearance":
        _number(relation.get("distance"), "clearance.distance")
    if kind == "aligned" and relation.get("axis", "x") not in ("x", "y", "z"):
        raise MalformedTaskError("aligned.axis must be x, y or z")
    if kind == "no_interpenetration":
        chosen = relation.get("parts", list(parts))
        if not isinstance(chosen, list) or any(n not in parts for n in chosen):
            raise MalformedTaskError(f"no_interpenetration.parts names unknown parts: {chosen!r}")
    if kind == "within" and "bounds" not in relation:
        raise MalformedTaskError("within needs bounds [[x, y, z], [x, y, z]]")


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise MalformedTaskError(f"{name} must be a finite number, got {value!r}")
    return float(value)


@dataclass(frozen=True, slots=True)
class Placement:
    """A part of the response: its mesh text (or program source) and where it goes."""

    mesh: str
    translate: tuple[float, float, float]
    rotate_z: float
    scale: float
    program: bool = False  # ``mesh`` is Python source to run in the sandbox


def parse_placements(response: str) -> dict[str, Placement] | str:
    """The response's parts, or why they cannot be read (an ``unparsable`` message)."""
    fenced = _FENCE.findall(response)
    text = fenced[-1] if fenced else response
    try:
        data = json.loads(text)
    except ValueError as exc:
        return f"the scene is not JSON: {exc}"
    if not isinstance(data, dict) or not isinstance(data.get("parts"), dict):
        return 'the scene must be {"parts": {name: {"mesh": ..., "translate": ...}}}'
    placed: dict[str, Placement] = {}
    for name, part in data["parts"].items():
        if not isinstance(part, dict) or ("mesh" in part) == ("program" in part):
            return f"part {name!r} needs a 'mesh' (mesh text or base64) or a 'program'"
        source = part.get("mesh", part.get("program"))
        if not isinstance(source, str):
            return f"part {name!r}: its mesh or program must be a string"
        try:
            translate = tuple(_number(v, "translate") for v in part.get("translate", [0, 0, 0]))
            rotate = _number(part.get("rotate_z", 0.0), "rotate_z")
            scale = _number(part.get("scale", 1.0), "scale")
        except MalformedTaskError as exc:
            return f"part {name!r}: {exc}"
        if len(translate) != 3 or scale <= 0:
            return f"part {name!r}: translate needs 3 numbers and scale must be > 0"
        placed[str(name)] = Placement(source, translate, rotate, scale, "program" in part)
    return placed


def grade_scene(
    task: SceneTask,
    response: str,
    load: Callable[[Placement, MeshTask | None], Any],
    grade_part: Callable[[MeshTask, Any, Check], Verdict],
) -> Verdict:
    """Place each part, grade it (a step), then each relation (a step); the mean of the steps.

    Args:
        task: The scene.
        response: The response text.
        load: A placement and its constraints -> ``(raw trimesh mesh, load check)``, or a
            :class:`Verdict` that ends the part (a program part runs in the sandbox here).
        grade_part: Grades one placed part against its constraints (the mesh verifier's gate
            and checks), given its load check.
    """
    import numpy as np
    import trimesh
    from assay.domains.mesh.checks import validity_checks
    from assay.verifiers.mesh.validity import validity

    placed = parse_placements(response)
    if isinstance(placed, str):
        return Verdict.unparsable(placed)
    missing = sorted(set(task.parts) - set(placed))
    extra = sorted(set(placed) - set(task.parts))
    steps: list[StepResult] = []
    meshes: dict[str, trimesh.Trimesh] = {}
    for name, constraints in task.parts.items():
        if name not in placed:
            steps.append(StepResult(len(steps), f"part:{name}", False, 0.0, "missing"))
            continue
        p = placed[name]
        loaded = load(p, constraints)
        if isinstance(loaded, Verdict):
            fault = _fault(name, loaded)
            evidence = {"status": loaded.status.value, "program": p.program}
            if fault is not None:  # the response's fault: the scene ends here, incorrect
                steps.append(
                    StepResult(
                        len(steps),
                        f"part:{name}",
                        False,
                        0.0,
                        fault.message,
                        {**evidence, "check": fault.name},
                    )
                )
                return Verdict.incorrect((fault,), tuple(steps), fault.message)
            steps.append(
                StepResult(len(steps), f"part:{name}", False, 0.0, loaded.message or "", evidence)
            )
            continue
        raw, load_check = loaded
        rotation: Any = trimesh.transformations.rotation_matrix  # untyped in trimesh
        transform = rotation(math.radians(p.rotate_z), [0, 0, 1])
        transform[:3, :3] *= p.scale
        transform[:3, 3] = p.translate
        raw = raw.copy()
        raw.apply_transform(transform)
        if constraints is not None:
            verdict = grade_part(constraints, raw, load_check)
            solid = any(c.name == "solid" and c.passed for c in verdict.checks)
        else:  # a part with no constraints only has to be a valid solid: the whole gate
            report, mesh, _ = validity(raw)
            gate = validity_checks(report) if mesh is not None else []
            solid = bool(gate) and all(c.passed for c in gate)
            broken = [c.name for c in gate if not c.passed]
            message = "" if solid else "not a valid solid: " + (", ".join(broken) or "unreadable")
            verdict = Verdict(
                Status.CORRECT if solid else Status.INCORRECT, float(solid), tuple(gate),
                message=message or None,
            )  # fmt: skip
        steps.append(
            StepResult(
                len(steps),
                f"part:{name}",
                verdict.status is Status.CORRECT,
                verdict.score,
                verdict.message or "",
                {"status": verdict.status.value, "program": p.program},
            )
        )
        merged = validity(raw)[1] if solid else None
        if merged is not None:  # relations hold between solids: a sheet is as good as missing
            meshes[name] = merged
    for relation in task.relations:
        steps.append(_relation(task, relation, meshes, len(steps), np))
    if task.bounds is not None:
        steps.append(
            _relation(
                task, {"type": "within", "a": "*", "bounds": task.bounds}, meshes, len(steps), np
            )
        )
    score = sum(s.score for s in steps) / len(steps) if steps else 0.0
    checks = (
        Check(
            "scene_parts",
            not missing,
            float(not missing),
            f"{len(placed)} parts placed" + (f"; missing {missing}" if missing else ""),
            {"missing": missing, "extra": extra},
        ),
        Check(
            "scene",
            all(s.passed for s in steps),
            score,
            f"{sum(s.passed for s in steps)} of {len(steps)} steps passed",
            {"steps": len(steps)},
        ),
    )
    if all(s.passed for s in steps) and not missing:
        return Verdict.correct(checks, tuple(steps))
    failed = ", ".join(s.name for s in steps if not s.passed)
    if score < 0.01:
        return Verdict.incorrect(checks, tuple(steps), f"failed: {failed}")
    return Verdict(Status.PARTIAL, min(score, 0.99), checks, tuple(steps), f"failed: {failed}")


def _fault(name: str, verdict: Verdict) -> Check | None:
    """The failed ``resources`` / ``too_costly`` check of a part that exceeded a limit."""
    for check in verdict.checks:
        if check.passed:
            continue
        status = (check.evidence or {}).get("status")
        if check.name in (RESOURCES, TOO_COSTLY) or (
            check.name == "program" and status in RESOURCE_STATUSES
        ):
            kind = TOO_COSTLY if check.name == TOO_COSTLY else RESOURCES
            detail = verdict.message or check.message
            return Check(kind, False, 0.0, f"part {name!r}: {detail}", {
                "part": name, **dict(check.evidence or {})})  # fmt: skip
    return None


def _relation(
    task: SceneTask, relation: Mapping[str, Any], meshes: Mapping[str, Any], index: int, np: Any
) -> StepResult:
    kind = relation["type"]
    label = f"{kind}:{relation.get('a', '*')}" + (f",{relation['b']}" if "b" in relation else "")
    names = [n for n in (relation.get("a"), relation.get("b")) if n and n != "*"]
    if any(n not in meshes for n in names):
        return StepResult(index, label, False, 0.0, "a part it names is missing or broken")
    tol = task.tolerance
    passed, evidence = False, dict[str, Any]()
    if kind == "on_top_of":
        a, b = meshes[relation["a"]].bounds, meshes[relation["b"]].bounds
        gap = float(a[0, 2] - b[1, 2])
        centre = (a[0, :2] + a[1, :2]) / 2
        over = bool(((centre >= b[0, :2] - tol) & (centre <= b[1, :2] + tol)).all())
        passed, evidence = abs(gap) <= tol and over, {"gap": gap, "centre_over": over}
    elif kind == "inside":
        a, b = meshes[relation["a"]].bounds, meshes[relation["b"]].bounds
        passed = bool((a[0] >= b[0] - tol).all() and (a[1] <= b[1] + tol).all())
        evidence = {"a": a.tolist(), "b": b.tolist()}
    elif kind == "aligned":
        axis = "xyz".index(relation.get("axis", "x"))
        ca = meshes[relation["a"]].bounds.mean(axis=0)[axis]
        cb = meshes[relation["b"]].bounds.mean(axis=0)[axis]
        passed, evidence = abs(float(ca - cb)) <= tol, {"offset": float(ca - cb)}
    elif kind == "clearance":
        from assay.verifiers.mesh.similarity import sample_points, surface_distances

        a, b = meshes[relation["a"]], meshes[relation["b"]]
        points = np.concatenate([a.vertices, sample_points(a, 2048, 2)])
        gap = float(surface_distances(points, b).min())
        need = float(relation["distance"])
        passed, evidence = gap >= need - tol, {"distance": gap, "required": need}
    elif kind == "within":
        low, high = (np.asarray(c, dtype=np.float64) for c in relation["bounds"])
        chosen = [meshes[relation["a"]]] if relation["a"] != "*" else list(meshes.values())
        outside = [
            i for i, m in enumerate(chosen)
            if not ((m.bounds[0] >= low - tol).all() and (m.bounds[1] <= high + tol).all())
        ]  # fmt: skip
        passed, evidence = not outside, {"outside": len(outside)}
    elif kind == "no_interpenetration":
        from assay.verifiers.mesh.physics import interpenetration

        wanted = list(relation.get("parts", task.parts))
        absent = sorted(n for n in wanted if n not in meshes)
        if absent:  # a part that is missing or not a solid interpenetrates nothing: no answer
            message = f"not valid solids: {', '.join(absent[:5])}"
            return StepResult(index, label, False, 0.0, message, {"absent": absent})
        names_all = sorted(wanted)
        shared = interpenetration([meshes[n] for n in names_all])
        pairs = [[names_all[i] if i >= 0 else "?", names_all[j] if j >= 0 else "?", v]
                 for i, j, v in shared]  # fmt: skip
        passed, evidence = not shared, {"pairs": pairs}
    return StepResult(index, label, passed, float(passed), "" if passed else "violated", evidence)
