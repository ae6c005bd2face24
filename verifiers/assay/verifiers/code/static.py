"""Static analysis of candidate code: Python's own parser for syntax, ruff for findings.

Nothing here executes candidate code: ``compile(..., PyCF_ONLY_AST)`` only parses, and ruff is
a separate program reading the source on stdin.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache, wraps
from pathlib import Path
from typing import Generic, TypeVar

from assay.blame import TOO_COSTLY, ResponseFault
from assay.errors import VerifierError

DEFAULT_SELECT = ("E9", "F", "B", "S", "E7", "W6", "PLE")
"""Rules run by default: syntax (E9), pyflakes (F), bugbear (B), bandit security (S),
statement style (E7), deprecations (W6), pylint errors (PLE)."""

RUFF_TIMEOUT_S = 30.0
"""How long ``ruff check`` may take on one response before the response is blamed for it."""

SEVERITY_WEIGHTS = {"error": 1.0, "security": 0.5, "warning": 0.25, "style": 0.05}
"""Penalty of one finding by severity; the check's score is ``max(0, 1 - sum)``."""


_T = TypeVar("_T")


class _SourceMemo(Generic[_T]):
    """Answers remembered by source text, least recently used first out, bounded in entries
    and in the characters of source kept as keys; a source longer than ``longest`` is never
    kept."""

    def __init__(self, items: int, chars: int, longest: int) -> None:
        self.items, self.chars, self.longest = items, chars, longest
        self.kept: OrderedDict[str, _T] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()  # in-process scoring may verify from several threads

    def get(self, source: str, compute: Callable[[str], _T]) -> _T:
        with self._lock:
            if source in self.kept:
                self.kept.move_to_end(source)
                return self.kept[source]
        answer = compute(source)
        if len(source) <= self.longest:
            with self._lock:
                if source not in self.kept:
                    self.kept[source] = answer
                    self._chars += len(source)
                while len(self.kept) > self.items or self._chars > self.chars:
                    oldest, _ = self.kept.popitem(last=False)
                    self._chars -= len(oldest)
        return answer


_PARSED_KEPT = 320
"""How many recent parses :func:`parse_module` keeps: an item's program is parsed for its
syntax, its definitions and its suspicious constructs, and a task's tests and prompt for its
format and its helpers, once for the chunk's ``prefetch`` and again for its item (a group of
samples shares them): one parse serves them all."""
_PARSED_MAX_CHARS = 256 * 1024
"""Sources longer than this are parsed afresh each time (their trees are not kept)."""
_PARSED_BUDGET_CHARS = 1024 * 1024
"""At most this many characters of source have their trees kept at once."""
_PARSES: _SourceMemo[ast.Module | str] = _SourceMemo(
    _PARSED_KEPT, _PARSED_BUDGET_CHARS, _PARSED_MAX_CHARS
)
_parsed = _PARSES.kept


def _parse(code: str) -> ast.Module | str:
    """The module's tree, or a one-line description of why it does not parse."""
    return _PARSES.get(code, _parse_afresh)


def _parse_afresh(code: str) -> ast.Module | str:
    try:
        return ast.parse(code, "solution.py")
    except SyntaxError as exc:
        return f"{type(exc).__name__}: {exc.msg} (line {exc.lineno})"
    except ValueError as exc:  # e.g. source code string cannot contain null bytes
        return f"invalid source: {exc}"
    except (RecursionError, MemoryError):
        return "invalid source: nested too deeply to parse"


MEMO_ITEMS = 4096
"""How many sources a :func:`memo_by_source` function remembers its answer for."""
MEMO_CHARS = 8 * 1024 * 1024
"""At most this many characters of source are kept as keys at once, per function."""


def memo_by_source(function: Callable[[str], _T]) -> Callable[[str], _T]:
    """Remember a pure function of one source text (a task's tests or prompt), bounded.

    The parse cache keeps few trees (a tree is ~100 times its source): with more distinct
    sources than it holds (a HumanEval round: 327 programs, 164 prompts, 164 test modules),
    the same test module was parsed again for every item, in the parent (the item's limit)
    and twice in the worker. A task's facts are small, so many are kept: the answers for the
    last :data:`MEMO_ITEMS` sources, :data:`MEMO_CHARS` characters of them at most. Exceptions
    are not remembered.
    """
    memo: _SourceMemo[_T] = _SourceMemo(MEMO_ITEMS, MEMO_CHARS, MEMO_CHARS)

    @wraps(function)
    def remembered(source: str) -> _T:
        return memo.get(source, function)

    return remembered


def parse_module(code: str) -> ast.Module | None:
    """``code``'s syntax tree (shared with other callers: read it, never change it), or
    ``None`` when it does not parse."""
    result = _parse(code)
    return result if isinstance(result, ast.Module) else None


def bound_names(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds (definitions, imports, plain assignments)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    return set()


def defines(tree: ast.Module | None, name: str) -> bool:
    """Whether a parsed module defines ``name`` (a function or class) at its top level."""
    return tree is not None and any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.name == name
        for node in tree.body
    )


def syntax_error(code: str) -> str | None:
    """A one-line description of why ``code`` is not valid Python, or ``None`` when it is."""
    result = _parse(code)
    return None if isinstance(result, ast.Module) else result


def severity(rule: str) -> str:
    """The severity class of a ruff rule code."""
    if rule.startswith(("E9", "F82", "F63", "F7", "PLE")) or rule == "invalid-syntax":
        return "error"
    if rule.startswith("S"):
        return "security"
    if rule.startswith(("F", "B")):
        return "warning"
    return "style"


@dataclass(frozen=True, slots=True)
class RuffReport:
    """Ruff's findings on one source, by rule and severity."""

    findings: tuple[dict[str, object], ...] = ()
    by_rule: dict[str, int] = field(default_factory=dict)
    by_severity: dict[str, int] = field(default_factory=dict)

    @property
    def score(self) -> float:
        penalty = sum(SEVERITY_WEIGHTS[s] * n for s, n in self.by_severity.items())
        return max(0.0, 1.0 - penalty)

    @property
    def passed(self) -> bool:
        return not (self.by_severity.get("error") or self.by_severity.get("security"))


@lru_cache(maxsize=1)
def ruff_binary() -> str:
    """The ruff executable: next to this interpreter, else on PATH."""
    beside = Path(sys.executable).parent / "ruff"
    if beside.exists():
        return str(beside)
    found = shutil.which("ruff")
    if found is None:
        raise VerifierError("ruff is not installed (pip install 'assay[code]')")
    return found


def _ruff_argv(select: tuple[str, ...]) -> list[str]:
    return [
        ruff_binary(), "check", "--isolated", "--ignore-noqa", "--no-cache",
        "--output-format", "json", "--select", ",".join(select),
    ]  # fmt: skip


def _ruff_env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "RUFF_NO_CACHE": "true"}


def _report(items: list[dict[str, object]], tree: str | None = None) -> RuffReport:
    findings = tuple(
        {
            "rule": item.get("code") or "invalid-syntax",
            "message": item.get("message", ""),
            "line": _row(item.get("location")),
            **({"file": _relative(item.get("filename"), tree)} if tree is not None else {}),
        }
        for item in items
    )
    rules = Counter(str(f["rule"]) for f in findings)
    severities = Counter(severity(str(f["rule"])) for f in findings)
    return RuffReport(findings, dict(rules), dict(severities))


@lru_cache(maxsize=1)
def _scratch_dir() -> str | None:
    """A memory-backed directory for the batch's files (``/dev/shm``), else the default.

    Creating and deleting a chunk's files on a disk filesystem costs more than ruff's lint.
    """
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def _row(location: object) -> object:
    return location.get("row") if isinstance(location, dict) else None


BATCH_MAX_SOURCE_BYTES = 64 * 1024
"""Sources larger than this are not checked in a batch: each is left to its own ``ruff``."""


def ruff_reports(
    codes: list[str], select: tuple[str, ...] = DEFAULT_SELECT, timeout_s: float | None = None
) -> dict[str, RuffReport]:
    """One ``ruff check`` for many sources: each source's report, as :class:`RuffRun` gives it.

    Each source is written as ``<n>/solution.py`` of a fresh directory (the name a single
    source is checked under), and ruff runs once over all of them, with the same isolated
    configuration. A source that cannot be written (not UTF-8 encodable) or is larger than
    :data:`BATCH_MAX_SOURCE_BYTES` is left out, and so is everything when ruff fails or
    passes ``timeout_s``: the caller checks what is missing one by one, so a source that
    breaks ruff is still blamed on its own item. ``timeout_s`` defaults to 10 s (at most
    :data:`RUFF_TIMEOUT_S`).
    """
    chosen: dict[str, bytes] = {}
    for code in codes:
        if code in chosen:
            continue
        try:
            data = code.encode("utf-8")
        except UnicodeEncodeError:
            continue
        if len(data) <= BATCH_MAX_SOURCE_BYTES:
            chosen[code] = data
    if len(chosen) < 2:
        return {}
    root = tempfile.mkdtemp(prefix="assay-ruff-batch-", dir=_scratch_dir())
    names: dict[str, str] = {}
    try:
        for index, (code, data) in enumerate(chosen.items()):
            name = os.path.join(str(index), "solution.py")
            os.mkdir(os.path.join(root, str(index)))
            names[name] = code
            Path(root, name).write_bytes(data)
        argv = [*_ruff_argv(select), "--", *names]
        try:
            proc = subprocess.run(
                argv, capture_output=True, text=True, env=_ruff_env(), cwd=root,
                timeout=min(10.0, RUFF_TIMEOUT_S) if timeout_s is None else timeout_s,
                check=False,
            )  # fmt: skip
        except (subprocess.TimeoutExpired, OSError):
            return {}
        if proc.returncode not in (0, 1):
            return {}
        try:
            raw = json.loads(proc.stdout or "[]")
        except ValueError:
            return {}
        real_root = os.path.realpath(root) + os.sep
        found: dict[str, list[dict[str, object]]] = {name: [] for name in names}
        for item in raw if isinstance(raw, list) else ():
            path = os.path.realpath(str(item.get("filename") or ""))
            name = path[len(real_root) :] if path.startswith(real_root) else ""
            if name not in found:
                return {}  # a finding ruff did not tie to one of the sources: trust none
            found[name].append(item)
    finally:  # only what was written here (rmtree would walk the tree again)
        for name in names:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(root, name))
            with contextlib.suppress(OSError):
                os.rmdir(os.path.join(root, os.path.dirname(name)))
        shutil.rmtree(root, ignore_errors=True)
    return {names[name]: _report(items) for name, items in found.items()}


class RuffRun:
    """``ruff check`` started in the background; :meth:`report` waits for its findings.

    The verifier starts it before running the tests, so static analysis overlaps execution.
    The response cannot switch findings off: ``--isolated`` ignores every configuration file
    (a ``pyproject.toml``, ``ruff.toml`` or ``.ruff.toml`` a patch adds included), the rules
    are the project's own (``select``), and ``--ignore-noqa`` disregards ``# noqa`` and
    ``# ruff: noqa`` comments.
    """

    def __init__(
        self,
        code: str = "",
        select: tuple[str, ...] = DEFAULT_SELECT,
        files: dict[str, str] | None = None,
    ) -> None:
        argv = _ruff_argv(select)
        env = _ruff_env()
        self._code = code
        self._tree: tempfile.TemporaryDirectory[str] | None = None
        if files is not None:  # a tree's files (repo mode), checked where ruff finds them
            self._tree = tempfile.TemporaryDirectory(prefix="assay-ruff-")
            for name, text in files.items():
                path = Path(self._tree.name, name)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
            argv += ["--", *sorted(files)]
        else:
            argv += ["--stdin-filename", "solution.py", "-"]
        self._proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=env, cwd=self._tree.name if self._tree is not None else None,
        )  # fmt: skip

    def report(self) -> RuffReport:
        try:
            stdout, stderr = self._proc.communicate(self._code, timeout=RUFF_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.communicate()
            # ruff reads nothing but this code, with a fixed configuration: the code's fault
            raise ResponseFault(
                TOO_COSTLY,
                f"static analysis did not finish within {RUFF_TIMEOUT_S:g} s on this code",
                {"analysis": "ruff", "limit_s": RUFF_TIMEOUT_S},
            ) from None
        finally:
            if self._tree is not None:
                self._tree.cleanup()
        if self._proc.returncode not in (0, 1):
            raise VerifierError(f"ruff failed ({self._proc.returncode}): {stderr.strip()[:300]}")
        raw = json.loads(stdout or "[]")
        return _report(raw, self._tree.name if self._tree is not None else None)


def _relative(filename: object, tree: str) -> str:
    text = str(filename or "")
    root = os.path.realpath(tree) + os.sep
    real = os.path.realpath(text) if text else ""
    return real[len(root) :] if real.startswith(root) else os.path.basename(text)


def ruff_report(code: str, select: tuple[str, ...] = DEFAULT_SELECT) -> RuffReport:
    """Run ``ruff check`` on ``code`` (JSON output) with a clean, isolated configuration."""
    return RuffRun(code, select).report()
