"""Run a model's mesh-building program in the code sandbox and collect the mesh it writes.

The program runs as ``python -I solution.py`` in a fresh scratch directory of a
:class:`~assay.verifiers.sandbox.SandboxPool` worker (bubblewrap; the venv, hence trimesh and
manifold3d, is mounted read-only), with a wall-clock, CPU and memory limit. It must write
``output.<ext>`` (ext one of stl, obj, ply, off, glb) in its working directory. A crash, a
timeout, a memory blow-up or no output file is the model's fault: a :class:`ProgramRun` that
says so, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.verifiers.sandbox import Limits, ProgramStatus, SandboxPool

from .load import FORMATS

__all__ = ["OUTPUT_NAMES", "ProgramRun", "run_mesh_program"]

OUTPUT_NAMES = tuple(f"output.{ext}" for ext in FORMATS)
_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@dataclass(frozen=True, slots=True)
class ProgramRun:
    """What a mesh program did.

    Attributes:
        ok: It exited 0 and wrote an output file.
        status: The sandbox's status (``ok``, ``error``, ``timeout``, ``memory``, ...).
        file_type: Format of the output file found.
        data: Its bytes.
        message: Why it failed, with the tail of stderr.
        wall_s: Wall time of the run.
    """

    ok: bool
    status: str
    file_type: str = ""
    data: bytes = b""
    message: str = ""
    wall_s: float = 0.0


def _ended_by_memory_error(stderr_tail: str) -> bool:
    """Whether the traceback's last line is an uncaught :class:`MemoryError` (the RLIMIT_AS)."""
    lines = stderr_tail.splitlines()
    return bool(lines) and lines[-1].split(":", 1)[0].strip() == "MemoryError"


def run_mesh_program(pool: SandboxPool, code: str, timeout_s: float, memory_mb: int) -> ProgramRun:
    """Run ``code`` in ``pool`` and read back the first ``output.*`` it wrote."""
    limits = Limits(timeout_s=timeout_s, memory_mb=memory_mb, max_processes=64)
    outcome = pool.run_command(
        ["python", "-I", "solution.py"],
        files={"solution.py": code},
        limits=limits,
        collect=list(OUTPUT_NAMES),
        env=_ENV,
    )
    wall = outcome.usage.wall_s
    if outcome.status is not ProgramStatus.OK:
        tail = outcome.stderr[-400:].strip()
        status = str(outcome.status)
        if outcome.status is ProgramStatus.ERROR and _ended_by_memory_error(tail):
            status = str(ProgramStatus.MEMORY)  # the command path reports it as an exit code 1
        return ProgramRun(False, status, message=tail or status, wall_s=wall)
    for name in OUTPUT_NAMES:
        if name in outcome.collected_truncated:
            return ProgramRun(False, "too-large", message=f"{name} is over the size limit")
        if name in outcome.collected:
            ext = name.rsplit(".", 1)[1]
            return ProgramRun(True, "ok", ext, outcome.collected[name], wall_s=wall)
    return ProgramRun(
        False, "no-output", message=f"the program wrote none of {', '.join(OUTPUT_NAMES)}"
    )
