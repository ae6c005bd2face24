"""The languages the code domain runs beyond Python: toolchains, compile step, artifact cache.

Every language's programs compile (where the language has a compile step) and run inside the
same sandbox pool as Python (``SandboxPool.run_command``), under separate limits for the two
steps. Toolchains are the Debian packages ``scripts/system-deps.sh`` installs (``make`` runs
it); only what is under ``/usr`` exists inside the sandbox, so tools are named by their real
path under ``/usr`` (Debian's ``/etc/alternatives`` links are resolved here, on the trusted side).

A compiled artifact is cached in memory by (language, compiler version, flags, source hash):
the sixteen identical samples a GRPO group often holds compile once. See docs/code.md.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import re
import shutil
import subprocess
import tarfile
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field

from assay.verifiers.sandbox import CommandOutcome, Limits, ProgramStatus, SandboxPool

ARTIFACT_DIR = "out"
"""Where a compile step writes its output, inside the run's work dir."""
ARTIFACT_TAR = "artifact.tar"
COMPILE_TIMEOUT_S = 30.0
"""Default wall-clock limit of a compile step (``compile_timeout_s`` in the task)."""
COMPILE_MEMORY_MB = 2048
"""Default memory cap of a compile step (``compile_memory_mb`` in the task)."""
COMPILE_ADDRESS_MB = 16384
"""Address space of the compilers (the JVM, Go and V8 reserve far more than they touch; the
memory cap above is what their processes may really hold)."""
RUNTIME_ADDRESS_EXTRA_MB = 4096
"""Extra address space a reserving runtime (JVM, Node, Go) gets over the task's memory cap."""
CACHE_BYTES = 256 * 1024 * 1024
MAX_ARTIFACT_BYTES = 48 * 1024 * 1024
MAX_DIAGNOSTICS = 4000

_PACK = (
    "import sys, tarfile\n"
    "with tarfile.open(sys.argv[1], 'w') as tar:\n"
    "    tar.add(sys.argv[2], arcname='.')\n"
)
"""Run (as ``python -I -c``) after a successful compile: the output dir as one tar to collect."""


@dataclass(frozen=True, slots=True)
class Language:
    """How a language's solution is compiled and run.

    Attributes:
        name: The ``language`` value of a task.
        source: The file name of the solution (Java's comes from its public class).
        tags: Fence info strings whose block is taken as the solution.
        compiler: The compiler's path under ``/usr`` (``None``: no compile step).
        compile_args: The compile command after the compiler (``{src}``, ``{out}`` filled in).
        run: The run command (``{out}`` is the artifact dir, ``{src}`` the source, ``{mem}``
            the memory cap in MB).
        check: For languages without a compile step: a syntax check command (a failure is
            ``unparsable``), or ``None``.
        reserves_address_space: The runtime reserves far more virtual memory than it uses.
        version_args: How the tool reports its version (part of the cache key).
        call_mode: Supports function-call cases (``test_cases``).
        package: The Debian package that provides the toolchain.
        note: What a solution is, for docs and ``assay domains``.
    """

    name: str
    source: str
    tags: frozenset[str]
    compiler: str | None
    compile_args: tuple[str, ...] = ()
    run: tuple[str, ...] = ()
    check: tuple[str, ...] | None = None
    reserves_address_space: bool = False
    version_args: tuple[str, ...] = ("--version",)
    call_mode: bool = False
    package: str = ""
    note: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    extra_files: Mapping[str, str] = field(default_factory=dict)

    @property
    def tool(self) -> str:
        """The program whose version identifies the toolchain."""
        return self.compiler or self.run[0]

    @property
    def compiled(self) -> bool:
        return self.compiler is not None


_JVM = (
    "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CompressedClassSpaceSize=64m",
    "-XX:ReservedCodeCacheSize=64m", "-Xss64m",
)  # fmt: skip
_GO_ENV = {"GO111MODULE": "off", "GOTOOLCHAIN": "local"}
"""cgo stays on: Debian's precompiled standard library was built with it (with CGO_ENABLED=0
``net`` and friends are rebuilt on every compile, 14 s instead of 3 s), and gcc, like the go
tool, runs inside the sandbox."""
_NODE_GLOBALS = (
    "declare var require: (name: string) => any;\n"
    "declare var process: any;\ndeclare var module: any;\ndeclare var exports: any;\n"
    "declare var Buffer: any;\ndeclare var __dirname: string;\ndeclare var console: any;\n"
    "declare function setTimeout(f: (...a: any[]) => void, ms?: number): any;\n"
)
"""TypeScript: Node's globals as ``any`` (no ``@types/node`` package in Debian's tsc); the
library is ES2020 alone (the DOM's declarations would triple the compile time)."""

LANGUAGES: dict[str, Language] = {
    "c": Language(
        "c", "main.c", frozenset({"c", "h"}), "/usr/bin/gcc",
        ("-std=gnu17", "-O2", "-pipe", "-Wall", "-o", "{out}/prog", "{src}", "-lm"),
        ("{out}/prog",), package="gcc", note="a whole program with main()",
    ),
    "cpp": Language(
        "cpp", "main.cpp", frozenset({"cpp", "c++", "cc", "cxx", "hpp"}), "/usr/bin/g++",
        ("-std=gnu++17", "-O2", "-pipe", "-Wall", "-o", "{out}/prog", "{src}"),
        ("{out}/prog",), package="g++", note="a whole program with main()",
    ),
    "java": Language(
        "java", "Main.java", frozenset({"java"}), "/usr/bin/javac",
        ("-J-Xmx512m", *(f"-J{flag}" for flag in _JVM[:-1]), "-encoding", "UTF-8",
         "-Xlint:all", "-d", "{out}", "{src}"),
        ("/usr/bin/java", "-Xmx{mem}m", *_JVM, "-cp", "{out}", "{main}"),
        reserves_address_space=True, version_args=("-version",), package="openjdk-17-jdk-headless",
        note="a class with public static void main (the public class, else Main, names the file)",
    ),
    "go": Language(
        "go", "main.go", frozenset({"go", "golang"}), "/usr/bin/go",
        ("build", "-o", "{out}/prog", "{src}"), ("{out}/prog",),
        reserves_address_space=True, version_args=("version",), package="golang-go",
        note="a package main with func main()", env=_GO_ENV,
    ),
    "rust": Language(
        "rust", "main.rs", frozenset({"rust", "rs"}), "/usr/bin/rustc",
        ("--edition", "2021", "-O", "-C", "strip=symbols", "-C", "linker={cc}",
         "-o", "{out}/prog", "{src}"),
        ("{out}/prog",), package="rustc", note="a whole program with fn main() (std only)",
    ),
    "javascript": Language(
        "javascript", "main.js", frozenset({"javascript", "js", "node", "nodejs"}), None,
        run=("/usr/bin/node", "--max-old-space-size={mem}", "{src}"),
        check=("/usr/bin/node", "--check", "{src}"), reserves_address_space=True,
        call_mode=True, package="nodejs",
        note="a Node script (stdio), or a function (test_cases: global or module.exports)",
    ),
    "typescript": Language(
        "typescript", "main.ts", frozenset({"typescript", "ts"}), "/usr/bin/tsc",
        ("--outDir", "{out}", "--target", "es2020", "--module", "commonjs", "--strict",
         "--skipLibCheck", "--lib", "es2020", "node-globals.d.ts", "{src}"),
        ("/usr/bin/node", "--max-old-space-size={mem}", "{out}/main.js"),
        reserves_address_space=True, package="node-typescript",
        note="a Node program in TypeScript (tsc 4.8, strict)",
        extra_files={"node-globals.d.ts": _NODE_GLOBALS},
    ),
    "bash": Language(
        "bash", "main.sh", frozenset({"bash", "sh", "shell", "zsh"}), None,
        run=("/usr/bin/bash", "{src}"), check=("/usr/bin/bash", "-n", "{src}"),
        version_args=("--version",), package="bash", note="a bash script",
    ),
}  # fmt: skip
"""Every language but Python (which runs in the zygote itself; see :mod:`modes`)."""

ALIASES = {
    "c++": "cpp", "cxx": "cpp", "js": "javascript", "node": "javascript", "nodejs": "javascript",
    "ts": "typescript", "sh": "bash", "shell": "bash", "golang": "go", "rs": "rust",
    "java17": "java", "python3": "python", "py": "python", "cpp17": "cpp", "gnu c++17": "cpp",
}  # fmt: skip


def canonical(language: str) -> str:
    """The language's canonical name (``"C++"`` -> ``"cpp"``), lower-cased."""
    key = language.strip().lower()
    return ALIASES.get(key, key)


@functools.cache
def toolchain_version(name: str) -> str | None:
    """The installed toolchain's version line, or ``None`` when it is not installed.

    Checked on the host (the sandbox sees the same ``/usr``); cached for the process.
    """
    if name == "python":
        import sys

        return f"Python {sys.version.split()[0]}"
    language = LANGUAGES[name]
    tool = _real(language.tool)
    if tool is None:
        return None
    try:
        done = subprocess.run(
            [tool, *language.version_args], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    lines = (done.stdout + done.stderr).strip().splitlines()
    return lines[0].strip() if lines else None


def availability() -> dict[str, str | None]:
    """Every language's toolchain version (``None``: not installed), Python first."""
    return {"python": toolchain_version("python")} | {n: toolchain_version(n) for n in LANGUAGES}


def _real(path: str) -> str | None:
    """``path`` with every link resolved, when it exists and stays under ``/usr``."""
    found = shutil.which(path)
    if found is None:
        return None
    real = os.path.realpath(found)
    return real if real.startswith("/usr/") and os.access(real, os.X_OK) else None


# -- solutions --------------------------------------------------------------------------------

_JAVA_PUBLIC = re.compile(r"\bpublic\s+(?:final\s+|abstract\s+)*class\s+([A-Za-z_$][\w$]*)")
_JAVA_CLASS = re.compile(r"\bclass\s+([A-Za-z_$][\w$]*)")
_GO_PACKAGE = re.compile(r"^\s*package\s+(\w+)", re.M)


def source_name(language: Language, code: str) -> str:
    """The file name the solution is compiled from (Java: ``<public class>.java``)."""
    if language.name == "java":
        public = _JAVA_PUBLIC.search(code)
        if public is not None:
            return f"{public.group(1)}.java"
    return language.source


def main_class(code: str) -> str:
    """Java's class to run: the public class, else ``Main`` if declared, else the first class."""
    public = _JAVA_PUBLIC.search(code)
    if public is not None:
        return public.group(1)
    names = _JAVA_CLASS.findall(code)
    return "Main" if "Main" in names or not names else names[0]


def precheck(language: Language, code: str) -> str | None:
    """A reason the text cannot be this language's solution at all, found without compiling."""
    if language.name == "go":
        package = _GO_PACKAGE.search(code)
        if package is None or package.group(1) != "main":
            return "a Go solution must be a `package main` with func main()"
    return None


# -- the compile step and its cache -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CompileResult:
    """The outcome of a compile step (or a syntax check, for languages without one).

    Attributes:
        ok: Compiled (or the syntax check passed).
        artifacts: The files the run needs (relative names under :data:`ARTIFACT_DIR`).
        diagnostics: What the compiler printed (the end of it, at most 4000 characters).
        warnings: Warnings the compiler reported.
        errors: Errors the compiler reported.
        fault: ``"time"`` / ``"memory"`` when the step hit its limit (the response's fault).
        cached: Served from the cache, not compiled again.
        seconds: Wall time of the compile (0 when cached).
        key: The cache key.
    """

    ok: bool
    artifacts: Mapping[str, bytes]
    diagnostics: str = ""
    warnings: int = 0
    errors: int = 0
    fault: str | None = None
    cached: bool = False
    seconds: float = 0.0
    key: str = ""
    version: str = ""


_WARNING = re.compile(r"\bwarning(?:\[\w+\])?:", re.I)
_ERROR = re.compile(r"\berror(?:\[\w+\])?\b(?::|\s+TS\d+)", re.I)


def _count(pattern: re.Pattern[str], text: str) -> int:
    return len(pattern.findall(text))


class ArtifactCache:
    """Compiled artifacts by (language, compiler version, flags, source hash), LRU by bytes.

    Thread-safe; one per process (:data:`CACHE`). Compile failures are kept too (the same
    diagnostics for the same source); a compile that hit a limit is not (it may be the load).
    """

    def __init__(self, max_bytes: int = CACHE_BYTES) -> None:
        self._max = max_bytes
        self._items: OrderedDict[str, CompileResult] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._inflight: dict[str, threading.Lock] = {}
        self.hits = self.misses = 0

    def get(self, key: str) -> CompileResult | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                self.hits += 1
            return found

    def put(self, result: CompileResult) -> None:
        size = sum(len(v) for v in result.artifacts.values()) + len(result.diagnostics)
        if result.fault is not None or size > self._max:
            return
        with self._lock:
            old = self._items.pop(result.key, None)
            if old is not None:
                self._bytes -= _size(old)
            self._items[result.key] = result
            self._bytes += size
            while self._bytes > self._max and self._items:
                _, dropped = self._items.popitem(last=False)
                self._bytes -= _size(dropped)

    def lock_for(self, key: str) -> threading.Lock:
        """A lock per key, so concurrent identical samples wait for one compile."""
        with self._lock:
            return self._inflight.setdefault(key, threading.Lock())

    def release(self, key: str) -> None:
        with self._lock:
            self._inflight.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0
            self.hits = self.misses = 0


def _size(result: CompileResult) -> int:
    return sum(len(v) for v in result.artifacts.values()) + len(result.diagnostics)


CACHE = ArtifactCache()


def cache_key(language: Language, code: str, flags: tuple[str, ...]) -> str:
    """sha256 over the language, its toolchain version, the flags and the source."""
    digest = hashlib.sha256()
    for part in (language.name, toolchain_version(language.name) or "", "\0".join(flags), code):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0\1")
    return digest.hexdigest()


def _fill(args: tuple[str, ...], values: Mapping[str, str]) -> list[str]:
    return [arg.format_map(values) for arg in args]


def compile_limits(timeout_s: float, memory_mb: int) -> Limits:
    return Limits(
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        address_space_mb=max(COMPILE_ADDRESS_MB, memory_mb),
        max_processes=64,
        max_open_files=256,
        max_file_bytes=MAX_ARTIFACT_BYTES,
        max_value_bytes=MAX_ARTIFACT_BYTES,
        max_output_bytes=256 * 1024,
    )


def compile_source(
    pool: SandboxPool,
    language: Language,
    code: str,
    limits: Limits,
    cache: ArtifactCache | None = CACHE,
) -> CompileResult:
    """Compile (or syntax-check) ``code`` in the sandbox, through the artifact cache.

    The compiler sees only the source; its output directory comes back as one tar.
    """
    source = source_name(language, code)
    values = {"src": source, "out": ARTIFACT_DIR, "cc": _real("/usr/bin/gcc") or "/usr/bin/gcc"}
    tool = _real(language.tool) or language.tool
    if language.compiled:
        argv = [tool, *_fill(language.compile_args, values)]
    elif language.check is not None:
        argv = [_real(language.check[0]) or language.check[0], *_fill(language.check[1:], values)]
    else:
        return CompileResult(True, {}, version=toolchain_version(language.name) or "")
    key = cache_key(language, code, tuple(argv))
    version = toolchain_version(language.name) or ""
    job = functools.partial(
        _compile, pool, language, code=code, source=source, argv=argv, limits=limits, key=key,
        version=version,
    )  # fmt: skip
    if cache is None:
        return job()
    lock = cache.lock_for(key)
    with lock:
        found = cache.get(key)
        if found is not None:
            return CompileResult(
                found.ok, found.artifacts, found.diagnostics, found.warnings, found.errors,
                None, True, 0.0, key, version,
            )  # fmt: skip
        cache.misses += 1
        result = job()
        cache.put(result)
    cache.release(key)
    return result


def _compile(
    pool: SandboxPool,
    language: Language,
    *,
    code: str,
    source: str,
    argv: list[str],
    limits: Limits,
    key: str,
    version: str,
) -> CompileResult:
    script = 'mkdir -p "$1" && "${@:4}" && exec python3 -I -c "$3" "$2" "$1"'
    if not language.compiled:
        script = 'exec "${@:4}"'
    command = ["/usr/bin/bash", "-c", script, "bash", ARTIFACT_DIR, ARTIFACT_TAR, _PACK, *argv]
    env = {"GOCACHE": "/tmp/go-cache", "GOPATH": "/tmp/go", **language.env}
    outcome = pool.run_command(
        command,
        files={source: code},
        readonly_files=dict(language.extra_files),
        limits=limits,
        collect=[ARTIFACT_TAR] if language.compiled else [],
        env=env,
    )
    diagnostics = (outcome.stderr + outcome.stdout)[-MAX_DIAGNOSTICS:]
    warnings, errors = _count(_WARNING, diagnostics), _count(_ERROR, diagnostics)
    if not errors and language.name == "go":  # go's messages carry no "error:" word
        errors = len(re.findall(r"^\S+\.go:\d+:\d+: ", diagnostics, re.M))
    seconds = outcome.usage.wall_s
    fault = _compile_fault(outcome)
    if fault is not None:
        return CompileResult(False, {}, diagnostics, warnings, errors, fault, False, seconds, key,
                             version)  # fmt: skip
    if outcome.status is not ProgramStatus.OK or outcome.exit_code != 0:
        return CompileResult(False, {}, diagnostics, warnings, max(errors, 1), None, False,
                             seconds, key, version)  # fmt: skip
    artifacts: dict[str, bytes] = {}
    if language.compiled:
        raw = outcome.collected.get(ARTIFACT_TAR)
        if raw is None or ARTIFACT_TAR in outcome.collected_truncated:
            return CompileResult(False, {}, diagnostics + "\nthe compiled output is missing or "
                                 "larger than the artifact limit", warnings, max(errors, 1),
                                 None, False, seconds, key, version)  # fmt: skip
        artifacts = _untar(raw)
    return CompileResult(True, artifacts, diagnostics, warnings, errors, None, False, seconds,
                         key, version)  # fmt: skip


def _compile_fault(outcome: CommandOutcome) -> str | None:
    if outcome.status is ProgramStatus.TIMEOUT or outcome.timed_out:
        return "time"
    if outcome.status is ProgramStatus.MEMORY:
        return "memory"
    return None


def _untar(raw: bytes) -> dict[str, bytes]:
    """The regular files of a tar the pack step wrote (names kept relative, nothing else)."""
    files: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
        for member in tar.getmembers():
            name = os.path.normpath(member.name)
            if not member.isfile() or name.startswith(("..", "/")):
                continue
            handle = tar.extractfile(member)
            if handle is not None:
                files[name] = handle.read()
    return files


def run_argv(language: Language, code: str, memory_mb: int) -> list[str]:
    """The command that runs a solution; executables are made executable first."""
    values = {
        "src": source_name(language, code), "out": ARTIFACT_DIR, "mem": str(memory_mb),
        "main": main_class(code),
    }  # fmt: skip
    argv = _fill(language.run, values)
    argv[0] = _real(argv[0]) or argv[0]
    if language.run[0].startswith("{out}"):  # a compiled executable: files arrive mode 0644
        return ["/usr/bin/bash", "-c", 'chmod 700 "$1" && exec "$@"', "bash", *argv]
    return argv


def run_limits(language: Language, timeout_s: float, memory_mb: int, output_bytes: int) -> Limits:
    """A run's limits; reserving runtimes get a wide address space under the same memory cap."""
    address = memory_mb + RUNTIME_ADDRESS_EXTRA_MB if language.reserves_address_space else None
    return Limits(
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        address_space_mb=address,
        max_output_bytes=output_bytes,
        max_processes=64 if language.name in ("go", "java") else 32,
    )


def artifact_files(artifacts: Mapping[str, bytes]) -> dict[str, bytes]:
    """The artifacts as the run's files (under :data:`ARTIFACT_DIR`)."""
    return {f"{ARTIFACT_DIR}/{name}": data for name, data in artifacts.items()}
