"""The mesh verifier: is a model's 3D mesh (or the program that builds it) the part asked for?"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import logging
import math
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from assay.domains.mesh.task import MeshTask, parse_task

from assay.blame import RESOURCES, TOO_COSTLY, response_fault, response_owned
from assay.errors import MalformedTaskError, VerifierError
from assay.types import Check, Record, Status, Verdict
from assay.verifier import Verifier

if TYPE_CHECKING:
    import trimesh
    from assay.domains.mesh.target import PreparedTarget, TargetCache
    from assay.verifiers.mesh.clip import ClipScorer
    from assay.verifiers.mesh.render import Renderer
    from assay.verifiers.sandbox import SandboxPool

log = logging.getLogger(__name__)

PROJECT_ROOT = Path(__file__).resolve().parents[4]
CLIP_MODEL_ENV = "ASSAY_CLIP_MODEL"
CLIP_DEVICE_ENV = "ASSAY_CLIP_DEVICE"
MAX_FILE_BYTES = 256 * 1024 * 1024
"""Largest mesh file a response path may name (programs' files are capped by the sandbox)."""


MIN_PROGRAM_S = 0.5
"""A scene's program part is not started with less of the scene's budget left (``resources``)."""


class RenderUnavailableError(VerifierError):
    """The worker has no offscreen GL context (an infrastructure failure: ``error``)."""


_PROGRAM_HINTS = re.compile(
    r"```[ \t]*(?:python3?|py3?)\b|^[ \t]*(?:import|from)[ \t]+(?:trimesh|manifold3d|numpy)\b",
    re.IGNORECASE | re.MULTILINE,
)
"""Cheap signs of a program (the parent process picks the item's limit without numpy), read as
the loader reads them: a fence's tag in any case, blanks between ``import`` and the module."""


class MeshVerifier(Verifier):
    """Scores a 3D mesh against a target mesh and/or constraints.

    The response is a mesh (inline OBJ/STL/PLY/OFF text, base64 GLB/STL/PLY, or a path under an
    allowed data root) or a Python program that writes ``output.<ext>`` with trimesh or
    manifold3d (run in the code sandbox). Validity (finite, non-degenerate, watertight,
    consistent winding, positive volume, no self-intersection, no overlapping bodies) is a gate:
    failing it is ``incorrect`` with score 0. Then each constraint and similarity check gets a
    score; the verdict's score is their weighted mean, ``correct`` (1.0) only when every check
    passes. See docs/mesh.md.

    Example:
        >>> cube = "\\n".join(["v 0 0 0", "v 1 0 0", "v 1 1 0", "v 0 1 0", "v 0 0 1", "v 1 0 1",
        ...     "v 1 1 1", "v 0 1 1", "f 1 3 2", "f 1 4 3", "f 5 6 7", "f 5 7 8", "f 1 2 6",
        ...     "f 1 6 5", "f 2 3 7", "f 2 7 6", "f 3 4 8", "f 3 8 7", "f 4 1 5", "f 4 5 8"])
        >>> record = Record("1", "mesh", cube, {"dimensions": {"extents": [1, 1, 1]}})
        >>> MeshVerifier().verify(record).status
        <Status.CORRECT: 'correct'>
    """

    name: ClassVar[str] = "mesh"
    version: ClassVar[str] = "1.2.0"
    aliases: ClassVar[tuple[str, ...]] = ("3d", "cad")
    data_sources: ClassVar[tuple[str, ...]] = ("mesh*", "cad*")
    default_timeout_s: ClassVar[float] = 60.0
    fixtures: ClassVar[Path | None] = PROJECT_ROOT / "fixtures" / "mesh" / "cases.jsonl"

    def __init__(self) -> None:
        self._renderer: Renderer | None = None
        self._pool: SandboxPool | None = None
        self._targets: TargetCache | None = None
        self._render_failure: str | None = None
        self._clip: ClipScorer | None = None

    @classmethod
    def timeout_for(cls, record: Record) -> float:
        """Programs get their own limit on top of the checks' time (a scene: its budget)."""
        reference = record.reference if isinstance(record.reference, dict) else {}
        scene = reference.get("scene")
        if isinstance(scene, dict):
            return cls._scene_timeout(scene)
        program = reference.get("program")
        limit = program.get("timeout_s", 20.0) if isinstance(program, dict) else 20.0
        is_program = (
            isinstance(record.response, str) and _PROGRAM_HINTS.search(record.response) is not None
        )
        extra = float(limit) + 30.0 if is_program and isinstance(limit, int | float) else 0.0
        return cls.default_timeout_s + extra

    @classmethod
    def _scene_timeout(cls, scene: dict[str, Any]) -> float:
        """The checks' time plus the scene's program budget and 30 s, whatever the response.

        Not only when the response looks like it holds a program: JSON can spell any text
        with ``\\u`` escapes, so a hint test on the raw response could be dodged and the
        programs' time would then run into the item's hard limit (a masked ``timeout``).
        """
        program = scene.get("program")
        budget = program.get("timeout_s", 60.0) if isinstance(program, dict) else 60.0
        if isinstance(budget, bool) or not isinstance(budget, int | float):
            budget = 0.0
        if not math.isfinite(budget):
            budget = 0.0  # a malformed task: parse_scene says so, no program runs
        return cls.default_timeout_s + max(0.0, float(budget)) + 30.0

    def setup(self) -> None:
        """Import the geometry libraries and open this worker's one GL context.

        A context that cannot be opened (no EGL device, no OSMesa) does not stop the worker:
        tasks without a target or with ``"render": false`` are still scored, and a task that
        needs renders gets an ``error`` verdict naming the GL failure.
        """
        from assay.domains.mesh.target import TargetCache

        importlib.import_module("open3d")  # about a second; the first target needs it
        self._targets = TargetCache()
        try:
            self.renderer  # noqa: B018 - opens the context now, not during the first item
        except Exception as exc:  # GL stacks fail in many ways; the first render re-raises it
            self._render_failure = f"{type(exc).__name__}: {exc}"
            log.warning("mesh: no offscreen GL context, render checks will fail: %s", exc)

    @property
    def renderer(self) -> Renderer:
        """This process's renderer (one GL context, reused).

        Raises:
            RenderUnavailableError: the context could not be opened in :meth:`setup`.
        """
        if self._render_failure is not None:
            raise RenderUnavailableError(f"no offscreen GL context: {self._render_failure}")
        if self._renderer is None:
            from assay.verifiers.mesh.render import Renderer

            self._renderer = Renderer(size=128)
        return self._renderer

    @property
    def clip(self) -> ClipScorer:
        """This worker's image-text model, loaded on the first description task.

        The model is the local directory in ``ASSAY_CLIP_MODEL`` on ``ASSAY_CLIP_DEVICE``
        (default ``cpu``); never downloaded.

        Raises:
            DescriptionModelError: not configured, missing or unloadable (``error``).
        """
        if self._clip is None:
            from assay.verifiers.mesh.clip import ClipScorer, DescriptionModelError

            path = os.environ.get(CLIP_MODEL_ENV, "")
            if not path:
                raise DescriptionModelError(
                    f"a description task needs a local CLIP model: set {CLIP_MODEL_ENV}"
                )
            self._clip = ClipScorer(path, os.environ.get(CLIP_DEVICE_ENV, "cpu"))
        return self._clip

    @property
    def pool(self) -> SandboxPool:
        """The sandbox for mesh programs, started on the first program."""
        if self._pool is None:
            from assay.verifiers.sandbox import SandboxPool

            self._pool = SandboxPool(size=1)
        return self._pool

    def verify(self, record: Record) -> Verdict:
        """Score one response; raises :class:`MalformedTaskError` for an unusable reference."""
        if isinstance(record.reference, dict) and "scene" in record.reference:
            return self._scene(record)
        task = parse_task(record.reference)
        if self._targets is None:
            from assay.domains.mesh.target import TargetCache

            self._targets = TargetCache()
        target = self._targets.get(dict(task.target), task.samples) if task.target else None
        loaded = self._load(record.response, task, target_digest=target.digest if target else None)
        if isinstance(loaded, Verdict):
            return loaded
        raw, load_check = loaded
        return self._grade(task, raw, load_check, target)

    def _scene(self, record: Record) -> Verdict:
        """A scene task (assay.domains.mesh.scene): a step per part and per relation.

        Program parts run one after another in this worker's sandbox, each with its part's
        ``program.timeout_s`` (default 20 s) cut to what is left of the scene's budget
        (``scene.program.timeout_s``, default 60 s, all programs together) and the scene's
        ``program.memory_mb``; a part's ``max_faces`` bounds its mesh.
        """
        from assay.domains.mesh.scene import Placement, grade_scene, parse_scene

        reference = record.reference
        if not isinstance(reference, dict) or set(reference) != {"scene"}:
            raise MalformedTaskError("a scene task holds only the 'scene' key")
        scene = parse_scene(reference["scene"])
        plain = MeshTask(render=False)
        spent = [0.0]

        def load(part: Placement, constraints: MeshTask | None) -> Any:
            own = constraints or plain
            left = scene.program_budget_s - spent[0]
            task = dataclasses.replace(
                own,
                render=False,
                program_timeout_s=min(own.program_timeout_s, left),
                program_memory_mb=scene.program_memory_mb,
            )
            if part.program and left < MIN_PROGRAM_S:
                return response_fault(
                    RESOURCES,
                    f"the scene's programs used up its {scene.program_budget_s:g} s budget",
                    {"budget_s": scene.program_budget_s, "spent_s": spent[0]},
                )
            start = time.monotonic()
            try:
                return self._load(part.mesh, task, as_program=part.program)
            finally:
                spent[0] += time.monotonic() - start if part.program else 0.0

        def grade(task: MeshTask, raw: trimesh.Trimesh, loaded: Check) -> Verdict:
            return self._grade(task, raw, loaded, None)

        return grade_scene(scene, record.response, load, grade)

    def _load(
        self,
        response: str,
        task: MeshTask,
        *,
        as_program: bool = False,
        target_digest: str | None = None,
    ) -> tuple[trimesh.Trimesh, Check] | Verdict:
        """The response's mesh, as written, with a ``load`` check; or the verdict that ends it.

        ``as_program``: ``response`` is Python source (a scene's ``program`` part), not sniffed.
        """
        from assay.verifiers.mesh.load import MeshLoadError, MeshSource, decode_mesh, parse_response

        source = MeshSource("program", code=response) if as_program else parse_response(response)
        if source is None:
            return Verdict.unparsable(
                "no mesh (OBJ/STL/PLY/OFF/GLB) or mesh program in the response"
            )
        evidence: dict[str, Any] = {"kind": source.kind, "encoding": source.encoding}
        data, file_type = source.data, source.file_type
        if source.kind == "path":
            read = _read_path(source.path, task, evidence, target_digest)
            if isinstance(read, Verdict):
                return read
            data = read
        elif source.kind == "program":
            ran = self._run_program(source.code, task, evidence)
            if isinstance(ran, Verdict):
                return ran
            data, file_type = ran
        try:
            with response_owned("decoding the mesh"):  # a file that is costly to decode: its own
                raw = decode_mesh(data, file_type)
        except MeshLoadError as exc:
            return Verdict.unparsable(str(exc), (Check("load", False, 0.0, str(exc), evidence),))
        evidence.update(format=file_type, vertices=len(raw.vertices), faces=len(raw.faces))
        loaded_check = Check(
            "load", True, None, f"{file_type} with {len(raw.faces)} faces", evidence
        )
        if len(raw.faces) > task.max_faces:
            message = (
                f"too costly to check: {len(raw.faces)} faces, over the limit of {task.max_faces}"
            )
            cost = Check(
                TOO_COSTLY,
                False,
                0.0,
                message,
                {"faces": len(raw.faces), "max_faces": task.max_faces},
            )
            return _invalid([loaded_check, cost])
        return raw, loaded_check

    def _run_program(
        self, code: str, task: MeshTask, evidence: dict[str, Any]
    ) -> tuple[bytes, str] | Verdict:
        """Run a mesh program in the sandbox; its output file, or an ``incorrect`` verdict."""
        from assay.verifiers.mesh.program import run_mesh_program

        run = run_mesh_program(self.pool, code, task.program_timeout_s, task.program_memory_mb)
        evidence.update(status=run.status, wall_s=run.wall_s, message=run.message)
        if not run.ok:
            check = Check("program", False, 0.0, f"the program failed: {run.status}", evidence)
            return Verdict.incorrect(
                (check,), message=f"mesh program {run.status}: {run.message[-200:]}"
            )
        return run.data, run.file_type

    def _grade(
        self, task: MeshTask, raw: trimesh.Trimesh, load: Check, target: PreparedTarget | None
    ) -> Verdict:
        """Validity gate, then the graded checks, then the weighted score."""
        from assay.domains.mesh import checks as build
        from assay.verifiers.mesh.validity import validity

        if task.assembly:
            assembled = build.guarded((build.GEOMETRY,), lambda: build.assemble(raw))
            if isinstance(assembled, list):  # a part is not a solid, or a library raised
                return _invalid([load, *assembled])
            if assembled is not None:  # else not split by the file's indexing: one solid
                whole, union, parts, total, gate = assembled
                return self._graded(task, whole, union, parts, total, [load, *gate], target)
        measured = build.guarded((build.GEOMETRY,), lambda: validity(raw))
        if isinstance(measured, list):  # a library raised: the mesh's fault
            return _invalid([load, *measured])
        report, mesh, bodies = measured
        gate = [load, *build.validity_checks(report)]
        if mesh is None or not all(c.passed for c in gate):
            return _invalid(gate)
        solid = build.manifold_check(mesh)
        if isinstance(solid, Check):
            return _invalid([*gate, solid])
        volumes = report.body_volumes  # measured once, in validity
        outward = [b for b, v in zip(bodies, volumes, strict=True) if v > 0]  # cavities: < 0
        return self._graded(task, mesh, solid, outward, float(sum(volumes)), gate, target)

    def _graded(  # noqa: PLR0917 - the parts of one measured solid, passed on
        self,
        task: MeshTask,
        mesh: trimesh.Trimesh,
        solid: object,
        outward: list[trimesh.Trimesh],
        volume: float,
        gate: list[Check],
        target: PreparedTarget | None,
    ) -> Verdict:
        from assay.domains.mesh import checks as build

        gate.append(Check("manifold", True, None, "manifold3d accepts the solid"))
        if len(outward) > 1 and not task.allow_interpenetration:
            gate += build.guarded(
                ("interpenetration",), lambda: [build.interpenetration_check(outward)]
            )
            if not gate[-1].passed:
                return _invalid(gate)
        graded = build.constraint_checks(task, mesh, outward, volume)
        if target is not None:
            graded += build.guarded(
                ("chamfer", "fscore", "iou"),
                lambda: build.similarity_checks(task, mesh, solid, target),
            )
            if task.render:
                renderer = self.renderer  # no GL context: an error of the worker, not the mesh
                graded += build.guarded(
                    ("render",), lambda: [build.render_check(task, mesh, target, renderer)]
                )
        if task.description is not None:
            scorer = self.clip  # no model: an error of the worker's set-up, not the mesh
            graded += build.guarded(
                ("description",),
                lambda: [build.description_check(task, mesh, self.renderer, scorer)],
            )
        return combine(task, gate, graded)


def _read_path(
    path_text: str, task: MeshTask, evidence: dict[str, Any], target_digest: str | None = None
) -> bytes | Verdict:
    """The bytes of a response's mesh file, if it may be read (see docs/mesh.md)."""
    from assay.domains.mesh.target import response_roots
    from assay.verifiers.mesh.load import resolve_under

    path = resolve_under(path_text, response_roots())
    if path is None:
        return Verdict.unparsable(f"{path_text!r} is not a file under an allowed data root")
    evidence["path"] = str(path)
    if task.target is not None and path in _target_files(dict(task.target)):
        return _load_failed("the response names the task's own target file", evidence)
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        return response_fault(
            TOO_COSTLY,
            f"too costly to check: {size} bytes, over the {MAX_FILE_BYTES} byte limit",
            {**evidence, "bytes": size, "max_bytes": MAX_FILE_BYTES},
        )
    data = path.read_bytes()
    if target_digest and hashlib.sha256(data).hexdigest() == target_digest:
        # another copy of the answer key (the shared file of its hash, a duplicate elsewhere)
        return _load_failed("the response names a copy of the task's own target file", evidence)
    return data


def _target_files(spec: dict[str, Any]) -> set[Path | None]:
    """The files a target spec reads: its path, or the shared file of its content hash."""
    from assay.domains.mesh.target import shared_target, target_path

    files = {target_path(spec)}
    if "sha256" in spec:
        files.add(shared_target(str(spec["sha256"])))
    return files - {None}


def _load_failed(message: str, evidence: dict[str, Any]) -> Verdict:
    return Verdict.incorrect((Check("load", False, 0.0, message, evidence),), message=message)


SOLID = "solid"
"""Check name: the response is a valid solid (every gate check passed). Present in every
verdict that reached a mesh; a trainer tells "not a solid" (failed) from "valid but wrong"
(passed, with ``fit`` failed) by it, and a reward spec can weight it (docs/mesh.md)."""
FIT = "fit"
"""Check name: how well a valid solid does the task (the weighted mean of the graded checks);
score 0 and failed when the response is not a solid."""


def solid_check(gate: list[Check]) -> Check:
    """``solid``: passed when every gate check passed; evidence names the ones that failed."""
    failed = [c.name for c in gate if not c.passed]
    return Check(
        SOLID,
        not failed,
        float(not failed),
        "a valid solid" if not failed else f"not a valid solid: {', '.join(failed)}",
        {"valid_solid": not failed, "failed": failed},
    )


def _invalid(gate: list[Check]) -> Verdict:
    solid = solid_check(gate)
    fit = Check(FIT, False, 0.0, "not graded: not a valid solid", {"graded": False})
    checks = (*gate, solid, fit)
    costly = [c for c in gate if c.name == TOO_COSTLY and not c.passed]
    if costly:
        return Verdict.incorrect(checks, message=costly[0].message)
    return Verdict.incorrect(checks, message=solid.message)


def combine(task: MeshTask, gate: list[Check], graded: list[Check]) -> Verdict:
    """Weighted mean of the graded checks' scores; ``correct`` only when every check passes.

    A score below ``task.score_floor`` (default 0.01) is 0: ``incorrect``, not a ``partial``
    of 1e-37. The verdict carries ``solid`` (passed) and ``fit`` (the score) after the checks.
    """
    weights = [task.weights.get(c.name, 1.0) for c in graded]
    total = sum(weights)
    if total == 0:
        score = 1.0 if all(c.passed for c in graded) else 0.0
    else:
        score = (
            sum(
                w * min(1.0, max(0.0, c.score if c.score is not None else float(c.passed)))
                for w, c in zip(weights, graded, strict=True)
            )
            / total
        )
    failed = [c.name for c in graded if not c.passed]
    floored = 0 < score < task.score_floor and bool(failed)
    if floored:
        score = 0.0
    fit = Check(
        FIT,
        not failed,
        score if failed else 1.0,
        "every check passed" if not failed else f"score {score:.4g}; failed: {', '.join(failed)}",
        {"graded": True, "failed": failed, "score_floor": task.score_floor, "floored": floored},
    )
    checks = (*gate, *graded, solid_check(gate), fit)
    if not failed:
        return Verdict.correct(checks)
    message = f"failed: {', '.join(failed)}"
    if floored:
        message += f" (score below the floor of {task.score_floor})"
    if score <= 0:
        return Verdict.incorrect(checks, message=message)
    return Verdict(Status.PARTIAL, min(score, 0.99), checks, (), message)
