"""Terminal tasks: replay an agent's shell commands on an initial file tree, then test the
state it left, in runs the commands never saw.

Each command is one sandbox run: a trusted step driver unpacks the tree as the previous
command left it (with its working directory and exported variables), runs the command with
``bash``, and packs the tree again; the sandbox measures the exit status and output and kills
every process the command left when the run ends. The tests run afterwards in fresh runs of
their own: pytest files under the trusted HMAC runner (read-only, ``--noconftest``, their own
ini and rootdir), or shell checks judged by the exit status the sandbox measured. See
docs/code.md ("Terminal tasks").
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import io
import json
import secrets
import shlex
import tarfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.domains.code.trajectory import MAX_CALLS_READ, call_arguments
from assay.verifiers.code.extract import _blocks
from assay.verifiers.code.repo import _RUNNER_SOURCE as RUNNER_SOURCE
from assay.verifiers.code.repo import KEY, REPORT, RUNNER, mac
from assay.verifiers.code.units import Unit
from assay.verifiers.sandbox import CommandOutcome, Limits, ProgramStatus, SandboxPool

from assay.errors import MalformedTaskError
from assay.types import StepResult

MAX_COMMANDS = 64
MAX_TREE_BYTES = 32 * 1024 * 1024
TREE = ".assay-tree.tar"
NEXT = ".assay-next.tar"
STEP = ".assay-step.py"
TESTS_DIR = ".assay-tests"
PACK_SLACK_S = 5.0
"""Seconds a command's run has beyond its own limit, to pack the tree it left."""
SHELL_TOOLS = {"bash", "shell", "run", "terminal", "execute", "exec", "run_command", "sh",
               "execute_bash", "run_shell", "execute_command"}  # fmt: skip
SHELL_TAGS = {"bash", "sh", "shell", "console", "terminal", "zsh"}
_INI = b"[pytest]\n"

STEP_DRIVER = r'''
"""Trusted: unpack the tree, run one command with bash in the saved cwd and env, pack again."""
import os, shlex, signal, subprocess, sys, tarfile
tree, out, limit, command = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
root = os.getcwd()
def plain(name):
    while name.startswith("./"):
        name = name[2:]
    return name
def unpack(path):
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            name = plain(member.name)
            if name.startswith(".assay-") and name not in (".assay-cwd", ".assay-env"):
                continue
            try:
                tar.extract(member, root, filter="tar")
            except Exception as exc:
                print(f"assay: cannot restore {member.name}: {exc}", file=sys.stderr)
    os.unlink(path)
unpack(tree)
script = (
    'cd "$(cat "$ASSAY_ROOT/.assay-cwd" 2>/dev/null || echo "$ASSAY_ROOT")" 2>/dev/null\n'
    '[ -f "$ASSAY_ROOT/.assay-env" ] && . "$ASSAY_ROOT/.assay-env" >/dev/null 2>&1\n'
    'rm -f "$ASSAY_ROOT/.assay-cwd" "$ASSAY_ROOT/.assay-env"\n'
    + command + '\n__assay_status=$?\n'
    'pwd > "$ASSAY_ROOT/.assay-cwd"; export -p > "$ASSAY_ROOT/.assay-env"\nexit $__assay_status\n'
)
env = dict(os.environ, ASSAY_ROOT=root)
child = subprocess.Popen(["/usr/bin/bash", "-c", script], stdin=subprocess.DEVNULL, env=env,
                         start_new_session=True)
try:
    status = child.wait(limit)
except subprocess.TimeoutExpired:
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    print(f"assay: the command ran past its {limit:g} s limit and was killed", file=sys.stderr)
    status = 124
def skip(info):
    name = plain(info.name)
    return None if name in (".assay-tree.tar", ".assay-next.tar", ".assay-step.py") else info
with tarfile.open(out + ".part", "w") as tar:
    for name in sorted(os.listdir(root)):
        if name not in (".assay-next.tar.part",):
            tar.add(os.path.join(root, name), arcname=name, filter=skip)
os.rename(out + ".part", out)
sys.exit(status)
'''

UNPACK = r"""
import os, sys, tarfile
with tarfile.open(sys.argv[1]) as tar:
    for member in tar.getmembers():
        name = member.name
        while name.startswith("./"):
            name = name[2:]
        if name.startswith(".assay-"):
            continue
        try:
            tar.extract(member, ".", filter="tar")
        except Exception:
            pass
os.unlink(sys.argv[1])
"""
"""Trusted: restore the final tree for a test run (nothing named ``.assay-*`` is restored)."""


# -- the task --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TerminalSpec:
    """A terminal task: its initial tree, setup, instruction and tests."""

    files: Mapping[str, tuple[bytes, int]]
    setup: str | None
    instruction: str
    pytest: Mapping[str, str]
    checks: tuple[str, ...]
    key: str

    @property
    def test_ids(self) -> list[str]:
        """The tests' names: ``file::test`` per pytest test, ``check[i]`` per shell check."""
        return [*(_pytest_ids(self.pytest)), *(f"check[{i}]" for i in range(len(self.checks)))]


def parse_terminal(value: Any, resolve_dir: Any) -> TerminalSpec:
    """Validate a ``terminal`` object. ``resolve_dir`` maps a ``tree`` path to a directory."""
    if not isinstance(value, Mapping):
        raise MalformedTaskError(
            "terminal must be an object {files|tree, setup?, instruction, tests}"
        )
    files: dict[str, tuple[bytes, int]] = {}
    if value.get("tree") is not None:
        files |= _read_tree(resolve_dir(value["tree"]))
    inline = value.get("files") or {}
    if not isinstance(inline, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in inline.items()
    ):
        raise MalformedTaskError("terminal files must map relative paths to text")
    for name, text in inline.items():
        _relative(name)
        files[name] = (text.encode("utf-8", "surrogatepass"), 0o644)
    setup = value.get("setup")
    if setup is not None and not isinstance(setup, str):
        raise MalformedTaskError("terminal setup must be a shell script (text)")
    tests = value.get("tests")
    pytest_files: dict[str, str] = {}
    checks: list[str] = []
    if isinstance(tests, Mapping):
        for name, source in tests.items():
            if not (isinstance(name, str) and isinstance(source, str) and name.endswith(".py")):
                raise MalformedTaskError("terminal tests map test_*.py names to pytest source")
            _relative(name)
            pytest_files[name] = source
    elif isinstance(tests, list) and all(isinstance(c, str) and c.strip() for c in tests):
        checks = list(tests)
    else:
        raise MalformedTaskError(
            "terminal tests must be pytest files {name: source} or shell checks [command, ...]"
        )
    spec = TerminalSpec(files, setup, str(value.get("instruction") or ""), pytest_files,
                        tuple(checks), "")  # fmt: skip
    if not spec.test_ids:
        raise MalformedTaskError("terminal tests hold no test (def test_... or a check)")
    digest = hashlib.sha256(json.dumps(
        [sorted((k, v[0].hex(), v[1]) for k, v in files.items()), setup], sort_keys=True
    ).encode()).hexdigest()  # fmt: skip
    return TerminalSpec(files, setup, spec.instruction, pytest_files, tuple(checks), digest)


def _relative(name: str) -> None:
    parts = name.split("/")
    if not name or name.startswith("/") or ".." in parts or parts[0].startswith(".assay-"):
        raise MalformedTaskError(f"terminal path {name!r} is not a plain relative path")


def _read_tree(root: Path) -> dict[str, tuple[bytes, int]]:
    files: dict[str, tuple[bytes, int]] = {}
    total = 0
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            total += len(data)
            if total > MAX_TREE_BYTES:
                raise MalformedTaskError(f"terminal tree {root} is larger than 32 MB")
            files[path.relative_to(root).as_posix()] = (data, path.stat().st_mode & 0o777)
    return files


def _pytest_ids(files: Mapping[str, str]) -> list[str]:
    ids = []
    for name, source in files.items():
        try:
            tree = ast.parse(source)
        except SyntaxError as exc:
            raise MalformedTaskError(f"terminal test {name} does not parse: {exc}") from None
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
                "test"
            ):
                ids.append(f"{name}::{node.name}")
            if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                methods = [f for f in node.body if isinstance(f, ast.FunctionDef)]
                ids += [
                    f"{name}::{node.name}::{f.name}" for f in methods if f.name.startswith("test")
                ]
    return ids


# -- the trajectory ----------------------------------------------------------------------------


def shell_commands(response: str, steps: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """``(label, command)`` for each command the agent ran, in order (at most 64).

    From ``steps`` (OpenAI messages): tool calls of a shell tool (``bash``, ``shell``, ``run``,
    ...) with a ``command`` (or ``cmd``) argument, and fenced shell blocks of assistant turns
    without tool calls; else the fenced shell blocks of the response.
    """
    found: list[tuple[str, str]] = []
    calls_read = 0
    for index, message in enumerate(steps):
        if len(found) >= MAX_COMMANDS or calls_read > MAX_CALLS_READ:
            break
        if not isinstance(message, Mapping) or message.get("role") != "assistant":
            continue
        calls = message.get("tool_calls")
        if isinstance(calls, list) and calls:
            for number, call in enumerate(calls[: MAX_CALLS_READ + 1 - calls_read]):
                calls_read += 1
                command = _tool_command(call)
                if command is not None:
                    found.append((f"command[{index}.{number}]", command))
        elif isinstance(message.get("content"), str):
            for number, body in enumerate(_shell_blocks(message["content"])):
                found.append((f"command[{index}.{number}]", body))
    if not found and not steps:
        found = [(f"command[{n}]", body) for n, body in enumerate(_shell_blocks(response))]
    return found[:MAX_COMMANDS]


def _shell_blocks(text: str) -> list[str]:
    return [body for lang, body in _blocks(text) if lang in SHELL_TAGS and body.strip()]


def _tool_command(call: Any) -> str | None:
    if not isinstance(call, Mapping):
        return None
    function = call.get("function") if isinstance(call.get("function"), Mapping) else call
    if (
        not isinstance(function, Mapping)
        or str(function.get("name", "")).lower() not in SHELL_TOOLS
    ):
        return None
    arguments = call_arguments(function)
    if arguments is None:
        return None
    for key in ("command", "cmd", "script"):
        value = arguments.get(key)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            value = shlex.join(value)
        if isinstance(value, str) and value.strip():
            return value
    return None


# -- replay ------------------------------------------------------------------------------------


def pack(files: Mapping[str, tuple[bytes, int]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, (data, mode) in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), mode
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@dataclass(frozen=True, slots=True)
class CommandRun:
    """One replayed command: what the sandbox measured, and whether its tree came back."""

    label: str
    command: str
    outcome: CommandOutcome
    kept: bool

    def step(self, index: int) -> StepResult:
        o = self.outcome
        timed_out = o.exit_code == 124 or o.status is ProgramStatus.TIMEOUT or o.timed_out
        passed = o.status is ProgramStatus.OK and o.exit_code == 0
        message = f"exit {o.exit_code}" + (" (time limit)" if timed_out else "")
        message += "" if self.kept else "; the tree it left was lost (limit), the previous one kept"
        evidence = {
            "kind": "command", "command": self.command[:2000], "exit_code": o.exit_code,
            "signal": o.signal, "timed_out": timed_out, "stdout_tail": o.stdout[-1000:],
            "stderr_tail": o.stderr[-1000:], "wall_s": round(o.usage.wall_s, 4),
        }  # fmt: skip
        return StepResult(index, self.label, passed, 1.0 if passed else 0.0, message, evidence)


SETUP_CACHE_ITEMS = 32
_SETUP_CACHE: dict[str, bytes] = {}
_SETUP_LOCK = threading.Lock()


def _step_limits(timeout_s: float, memory_mb: int) -> Limits:
    return Limits(
        timeout_s=timeout_s + PACK_SLACK_S, memory_mb=memory_mb, max_processes=64,
        max_open_files=256, max_file_bytes=MAX_TREE_BYTES, max_value_bytes=MAX_TREE_BYTES,
        address_space_mb=memory_mb + 4096,
    )  # fmt: skip


def run_command(
    pool: SandboxPool, tree: bytes, label: str, command: str, *, timeout_s: float, memory_mb: int
) -> tuple[CommandRun, bytes]:
    """Replay one command on ``tree``; the tree it left (the same one when it was lost)."""
    outcome = pool.run_command(
        ["python", "-I", STEP, TREE, NEXT, f"{timeout_s:.3f}", command],
        files={TREE: tree},
        readonly_files={STEP: STEP_DRIVER},
        limits=_step_limits(timeout_s, memory_mb),
        collect=[NEXT],
    )
    after = outcome.collected.get(NEXT)
    kept = after is not None and NEXT not in outcome.collected_truncated
    return CommandRun(label, command, outcome, kept), (
        after if kept and after is not None else tree
    )


def initial_tree(pool: SandboxPool, spec: TerminalSpec, timeout_s: float, memory_mb: int) -> bytes:
    """The tree after the setup script (run once per task and cached)."""
    tree = pack(spec.files)
    if not spec.setup:
        return tree
    with _SETUP_LOCK:
        cached = _SETUP_CACHE.get(spec.key)
    if cached is not None:
        return cached
    run, after = run_command(
        pool, tree, "setup", spec.setup, timeout_s=max(timeout_s, 30.0), memory_mb=memory_mb
    )
    if run.outcome.exit_code != 0 or not run.kept:
        raise MalformedTaskError(
            f"the terminal task's setup failed (exit {run.outcome.exit_code}): "
            f"{run.outcome.stderr.strip()[-300:]}"
        )
    with _SETUP_LOCK:
        _SETUP_CACHE[spec.key] = after
        while len(_SETUP_CACHE) > SETUP_CACHE_ITEMS:  # oldest first out
            _SETUP_CACHE.pop(next(iter(_SETUP_CACHE)))
    return after


def run_tests(
    pool: SandboxPool, spec: TerminalSpec, tree: bytes, timeout_s: float, memory_mb: int
) -> list[Unit]:
    """The tests on the final tree, each kind in fresh runs the commands never saw."""
    units: list[Unit] = []
    if spec.pytest:
        units += _pytest_units(pool, spec, tree, timeout_s, memory_mb)
    for index, check in enumerate(spec.checks):
        outcome = pool.run_command(
            ["/usr/bin/bash", "-c", 'python3 -I -c "$1" "$2" && exec /usr/bin/bash -c "$3"',
             "bash", UNPACK, TREE, check],
            files={TREE: tree}, limits=_step_limits(timeout_s, memory_mb),
        )  # fmt: skip
        passed = outcome.status is ProgramStatus.OK and outcome.exit_code == 0
        message = "" if passed else f"exit {outcome.exit_code}: {outcome.stderr.strip()[-200:]}"
        units.append(Unit(f"check[{index}]", passed, message, outcome.usage.wall_s,
                          outcome.usage.cpu_s, outcome.usage.peak_rss_bytes,
                          evidence={"kind": "check", "check": check[:500]}))  # fmt: skip
    return units


def _pytest_units(
    pool: SandboxPool, spec: TerminalSpec, tree: bytes, timeout_s: float, memory_mb: int
) -> list[Unit]:
    key = secrets.token_bytes(32)
    readonly: dict[str, str | bytes] = {
        f"{TESTS_DIR}/{name}": source for name, source in spec.pytest.items()
    }
    readonly[f"{TESTS_DIR}/pytest.ini"] = _INI
    readonly[RUNNER] = RUNNER_SOURCE.read_bytes()
    args = ["-q", "-p", "no:cacheprovider", "-p", "no:junitxml", "--noconftest", "-o", "addopts=",
            "-c", f"{TESTS_DIR}/pytest.ini", "--rootdir", TESTS_DIR,
            *(f"{TESTS_DIR}/{name}" for name in spec.pytest)]  # fmt: skip
    script = 'python3 -I -c "$1" "$2" && shift 2 && exec python3 -I "$@"'
    tests = len(_pytest_ids(spec.pytest))
    outcome = pool.run_command(
        ["/usr/bin/bash", "-c", script, "bash", UNPACK, TREE, RUNNER, KEY, REPORT, "--", *args],
        files={TREE: tree, KEY: key.hex().encode()},
        readonly_files=readonly,
        limits=_step_limits(timeout_s * max(1, tests) + 10.0, max(memory_mb, 1024)),
        collect=[REPORT],
        env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"},
    )
    return read_terminal_report(outcome.collected.get(REPORT), key, _pytest_ids(spec.pytest))


def read_terminal_report(report: bytes | None, key: bytes, test_ids: list[str]) -> list[Unit]:
    """One unit per test: passed when it has authenticated lines (its parametrized cases
    included) and every one of them says so; lines without the key count for nothing."""
    lines: dict[str, list[tuple[bool, str, float]]] = {}
    for raw in (report or b"").split(b"\n")[:100_000]:
        tag, _, line = raw.partition(b" ")
        if not line or not hmac.compare_digest(tag, mac(key, line).encode()):
            continue
        fields = line.split(b" ")
        if len(fields) != 4 or fields[1] not in (b"0", b"1"):
            continue
        try:
            test_id = bytes.fromhex(fields[0].decode("ascii")).decode("utf-8", "replace")
            message = bytes.fromhex(fields[3].decode("ascii")).decode("utf-8", "replace")
            seconds = max(0.0, float(fields[2]))
        except ValueError:
            continue
        base = test_id.split("[", 1)[0].removeprefix(f"{TESTS_DIR}/")
        lines.setdefault(base, []).append((fields[1] == b"1", message[:300], seconds))
    units = []
    for test_id in test_ids:
        found = lines.get(test_id, [])
        passed = bool(found) and all(ok for ok, _, _ in found)
        message = "not reported as run" if not found else next(
            (m for ok, m, _ in found if not ok), "")  # fmt: skip
        units.append(Unit(test_id, passed, message, sum(s for _, _, s in found),
                          evidence={"kind": "test"}))  # fmt: skip
    return units


def tree_names(tree: bytes) -> list[str]:
    """The names in a packed tree (for replay records)."""
    with tarfile.open(fileobj=io.BytesIO(tree), mode="r:") as tar:
        return [m.name for m in tar.getmembers()][:1000]
