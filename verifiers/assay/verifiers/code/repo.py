"""Repo-patch tasks: apply a model's diff to a scratch copy, run chosen tests in the sandbox.

The patch is applied in the trusted process by ``git apply`` (which refuses paths outside the
tree), to a temporary copy of the task's repository. The static gate then judges the patched
*tree*, not the patch text: every changed or added file is read back after ``git apply``
(binary hunks, renames and mode changes included) and scanned; compiled code (``.pyc``,
``.so``, ...) and undecodable sources are refused outright. The files then go into the
sandbox as the candidate's files; the repository's own test files, conftest files and
settings are written over them read-only, and files the patch adds that Python, pytest or
ruff would load on their own (``conftest.py``, ``sitecustomize.py``, ``*.pth``, ``pytest.ini``,
``pyproject.toml``, ``ruff.toml``, ...) are dropped.

Results come back over a channel the test process cannot fake: a trusted runner
(:mod:`._repo_runner`, a read-only file in the sandbox) reads a one-run secret key from a file
and deletes it before pytest or any candidate code starts, then appends one line per test id,
authenticated with HMAC-SHA256 under that key, as each test ends. The trusted side counts a
test as passed only when every authenticated line for its id says so; exit codes, stdout,
JUnit files and lines without a valid MAC (an ``atexit`` hook, a forged report) count for
nothing, and a test that never reports (``os._exit``) fails.

Residual risk (docs/code.md): the candidate's code and pytest still share a process, so code
that reaches the runner's objects by introspection could forge lines; the gate rejects
patches whose code reaches into the test framework or the interpreter (see
:mod:`assay.verifiers.code.suspicious`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from assay.verifiers.code.suspicious import Flag, scan_suspicious
from assay.verifiers.code.units import Unit

PROTECTED_NAMES = {"conftest.py", "pytest.ini", "setup.cfg", "tox.ini", "pyproject.toml"}
AUTOLOADED = {
    "conftest.py", "sitecustomize.py", "usercustomize.py", "pytest.ini", "tox.ini",
    "setup.cfg", "pyproject.toml", "ruff.toml", ".ruff.toml", "pytest_plugins.py",
}  # fmt: skip
"""Names of added files that Python, pytest or ruff would load on their own: dropped."""
COMPILED_SUFFIXES = (".pyc", ".pyo", ".so", ".pyd", ".dll", ".dylib")
"""Importable code the gate cannot read: a patch that adds or changes such a file is refused."""
RUNNER = ".assay-runner.py"
KEY = ".assay-key"
REPORT = ".assay-report"
MAX_FILE_BYTES = 1 << 20
_RUNNER_SOURCE = Path(__file__).with_name("_repo_runner.py")


@dataclass(frozen=True, slots=True)
class PatchedTree:
    """The candidate's files after the patch, and the files written over them read-only."""

    files: dict[str, bytes]
    readonly: dict[str, bytes]
    changed: tuple[str, ...]
    dropped: tuple[str, ...]
    flags: tuple[Flag, ...] = ()
    """Suspicious constructs the patch brings into the tree (found after applying it)."""
    modes: tuple[str, ...] = field(default=())
    """Paths whose file mode the patch changes or that it turns into symlinks (not carried)."""


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


def _modes(root: Path) -> dict[str, int]:
    """Each path's mode bits (symlinks and hidden files included) for the mode-change audit."""
    found: dict[str, int] = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if "__pycache__" not in rel and not rel.startswith(".git/"):
            found[rel] = path.lstat().st_mode
    return found


def _source_flags(name: str, data: bytes | None) -> list[Flag]:
    """The suspicious constructs of one file of the tree (none for files Python never loads)."""
    if data is None:
        return []
    if name.endswith(COMPILED_SUFFIXES):
        return [Flag("compiled", 0, f"{name}: compiled code cannot be checked")]
    if not name.endswith((".py", ".pyi", ".pyw")):
        return []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return [Flag("unreadable", 0, f"{name}: not UTF-8 source")]
    if "\x00" in text:
        return [Flag("unreadable", 0, f"{name}: source holds a NUL byte")]
    from assay.verifiers.code.static import syntax_error

    problem = syntax_error(text)
    if problem is not None:
        return [Flag("unreadable", 0, f"{name}: {problem}")]
    return [Flag(f.kind, f.line, f"{name}: {f.detail}") for f in scan_suspicious(text)]


def tree_flags(
    pristine: dict[str, bytes], patched: dict[str, bytes], changed: tuple[str, ...]
) -> tuple[Flag, ...]:
    """Flags of the changed files after the patch that the same files did not have before.

    Flags compare by kind and what was seen (not by line or path), so moving code (a
    rename) or editing near existing constructs adds nothing, while any new construct does.
    """
    before: Counter[tuple[str, str]] = Counter()
    for name in changed:
        for flag in _source_flags(name, pristine.get(name)):
            before[flag.kind, flag.detail.partition(": ")[2]] += 1
    new: list[Flag] = []
    for name in changed:
        for flag in _source_flags(name, patched.get(name)):
            key = (flag.kind, flag.detail.partition(": ")[2])
            if before[key] > 0 and flag.kind not in ("compiled", "unreadable"):
                before[key] -= 1
            else:
                new.append(flag)
    return tuple(new)


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
    pristine_modes = _modes(repo)
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
        patched_modes = _modes(work)
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
    modes = tuple(sorted(n for n, mode in patched_modes.items() if pristine_modes.get(n) != mode))
    flags = tree_flags(pristine, patched, changed)
    return PatchedTree(files, protected, changed, dropped, flags, modes)


@dataclass(frozen=True, slots=True)
class RunnerCommand:
    """One sandboxed test run of a patched tree: the command, its files, and the run's key."""

    argv: list[str]
    files: dict[str, bytes]
    readonly: dict[str, bytes]
    env: dict[str, str]
    key: bytes
    report: str = REPORT


def pytest_args(test_ids: list[str]) -> list[str]:
    """pytest's arguments inside the sandbox: no plugins, cache, ini addopts or JUnit."""
    return [
        "-q", "-p", "no:cacheprovider", "-p", "no:junitxml", "-o", "addopts=",
        "-o", "pythonpath=.", "--rootdir", ".", *test_ids,
    ]  # fmt: skip


def runner_command(tree: PatchedTree, test_ids: list[str]) -> RunnerCommand:
    """The isolated run of ``test_ids`` by the trusted runner, with a fresh secret key."""
    key = secrets.token_bytes(32)
    files = {**tree.files, KEY: key.hex().encode()}
    readonly = {**tree.readonly, RUNNER: _RUNNER_SOURCE.read_bytes()}
    argv = ["python", "-I", RUNNER, KEY, REPORT, "--", *pytest_args(test_ids)]
    env = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    return RunnerCommand(argv, files, readonly, env, key)


def mac(key: bytes, line: bytes) -> str:
    """The HMAC-SHA256 (hex) of one report line under the run's key."""
    return hmac.new(key, line, hashlib.sha256).hexdigest()


def read_report(report: bytes | None, key: bytes, test_ids: list[str]) -> list[Unit]:
    """One unit per requested test id: passed only if every authenticated line says so.

    Lines are ``<hex mac> <hex id> <1|0> <seconds> <hex message>``; a line whose MAC does
    not verify is ignored, so nothing the test process writes without the key counts. A test
    with no authenticated line fails.
    """
    outcomes: dict[str, tuple[bool, str, float]] = {}
    for raw in (report or b"").split(b"\n")[:100_000]:
        tag, _, line = raw.partition(b" ")
        if not line or not hmac.compare_digest(tag, mac(key, line).encode()):
            continue
        entry = _entry(line)
        if entry is None:
            continue
        test_id, passed, message, seconds = entry
        earlier = outcomes.get(_normal(test_id))
        if earlier is not None and not earlier[0]:
            continue  # a failure stands, whatever a later line says
        outcomes[_normal(test_id)] = (passed, message, seconds)
    units = []
    for test_id in test_ids:
        passed, message, seconds = outcomes.get(
            _normal(test_id), (False, "not reported as run", 0.0)
        )
        units.append(Unit(test_id, passed, message, wall_s=seconds))
    return units


def _entry(line: bytes) -> tuple[str, bool, str, float] | None:
    """``(id, passed, message, seconds)`` of an authenticated line (``None`` if malformed)."""
    fields = line.split(b" ")
    if len(fields) != 4 or fields[1] not in (b"0", b"1"):
        return None
    try:
        test_id = bytes.fromhex(fields[0].decode("ascii")).decode("utf-8", "replace")
        message = bytes.fromhex(fields[3].decode("ascii")).decode("utf-8", "replace")
        seconds = float(fields[2])
    except ValueError:
        return None
    return test_id, fields[1] == b"1", message[:300], seconds if seconds >= 0 else 0.0


def _normal(test_id: str) -> str:
    return test_id.strip().lstrip("./")
