"""Repo-patch tasks: apply a model's diff to a scratch copy, run chosen tests in the sandbox.

The patch is applied in the trusted process by ``git apply`` (which refuses paths outside the
tree), to a temporary copy of the task's repository. The files then go into the sandbox as the
candidate's files; the repository's own test files, conftest files and pytest settings are
written over them read-only, and files the patch adds that pytest or Python would load on
their own (``conftest.py``, ``sitecustomize.py``, ``*.pth``, plugins in ini files) are dropped.
pytest runs isolated (``-I``, no plugin autoload, no cache) and its JUnit report is read back.

Residual risk (docs/code.md): here the candidate's code and pytest share a process, so code
that patches pytest at import time could forge outcomes; the verifier rejects patches whose
added lines reach into the test framework or the interpreter (see
:mod:`assay.verifiers.code.suspicious`).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from assay.verifiers.code.units import Unit

PROTECTED_NAMES = {"conftest.py", "pytest.ini", "setup.cfg", "tox.ini", "pyproject.toml"}
AUTOLOADED = {"conftest.py", "sitecustomize.py", "usercustomize.py"}
REPORT = ".assay-junit.xml"
MAX_FILE_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class PatchedTree:
    """The candidate's files after the patch, and the files written over them read-only."""

    files: dict[str, bytes]
    readonly: dict[str, bytes]
    changed: tuple[str, ...]
    dropped: tuple[str, ...]


class PatchError(Exception):
    """The diff does not apply to the repository."""


def _read_tree(root: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink() or not path.is_file() or "/." in f"/{rel}" or "__pycache__" in rel:
            continue
        if path.stat().st_size <= MAX_FILE_BYTES:
            out[rel] = path.read_bytes()
    return out


def added_lines(diff: str) -> str:
    """The lines a diff adds, as source text (for the suspicious-code scan)."""
    lines = [
        line[1:]
        for line in diff.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    return "\n".join(lines)


def apply_patch(repo: Path, diff: str, test_files: set[str]) -> PatchedTree:
    """Apply ``diff`` to a copy of ``repo``; protect tests and settings.

    Raises:
        PatchError: ``git apply`` rejects the diff (malformed, does not match, unsafe paths).
    """
    pristine = _read_tree(repo)
    with tempfile.TemporaryDirectory(prefix="assay-repo-") as tmp:
        work = Path(tmp) / "repo"
        shutil.copytree(repo, work, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        proc = subprocess.run(
            ["git", "apply", "--whitespace=nowarn", "--recount", "-"],
            input=diff.encode(), cwd=work, capture_output=True, timeout=60, check=False,
        )  # fmt: skip
        if proc.returncode != 0:
            raise PatchError(
                proc.stderr.decode(errors="replace").strip()[:500] or "git apply failed"
            )
        patched = _read_tree(work)
    protected = {
        name: data for name, data in pristine.items()
        if name in test_files or Path(name).name in PROTECTED_NAMES
    }  # fmt: skip
    dropped = tuple(
        name for name in patched
        if name not in pristine and (Path(name).name in AUTOLOADED or name.endswith(".pth"))
    )  # fmt: skip
    files = {n: d for n, d in patched.items() if n not in dropped and n not in protected}
    changed = tuple(
        sorted(n for n in set(patched) | set(pristine) if patched.get(n) != pristine.get(n))
    )
    return PatchedTree(files, protected, changed, dropped)


def pytest_argv(test_ids: list[str]) -> list[str]:
    """The isolated pytest command run inside the sandbox."""
    return [
        "python", "-I", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
        "-o", "pythonpath=.", f"--junitxml={REPORT}", "-o", "junit_family=xunit2",
        "--rootdir", ".", *test_ids,
    ]  # fmt: skip


def read_junit(report: bytes | None, test_ids: list[str]) -> list[Unit]:
    """One unit per requested test id; passed only if the report lists it as passed."""
    outcomes: dict[str, tuple[bool, str, float]] = {}
    if report:
        try:
            root = ET.fromstring(report)
        except ET.ParseError:
            root = None
        for case in root.iter("testcase") if root is not None else ():
            key = _case_id(case.get("classname", ""), case.get("name", ""))
            problem = next((c for c in case if c.tag in ("failure", "error", "skipped")), None)
            seconds = float(case.get("time") or 0.0)
            message = (
                "" if problem is None else f"{problem.tag}: {problem.get('message', '')}"[:300]
            )
            outcomes[key] = (problem is None, message, seconds)
    units = []
    for test_id in test_ids:
        passed, message, seconds = outcomes.get(
            _normal(test_id), (False, "not reported as run", 0.0)
        )
        units.append(Unit(test_id, passed, message, wall_s=seconds))
    return units


def _case_id(classname: str, name: str) -> str:
    """JUnit ``classname`` ``tests.test_x.TestA`` + ``name`` -> ``tests/test_x.py::TestA::name``."""
    parts = classname.split(".")
    for cut in range(len(parts), 0, -1):
        if parts[cut - 1].startswith("test") or parts[cut - 1].endswith("_test"):
            path = "/".join(parts[:cut]) + ".py"
            return "::".join([path, *parts[cut:], name])
    return f"{classname}::{name}"


def _normal(test_id: str) -> str:
    return test_id.strip().lstrip("./")
