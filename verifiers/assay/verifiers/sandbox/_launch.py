"""How a zygote is started at each isolation level: the command line and its scratch area."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass

from ._outcomes import Isolation

__all__ = ["LaunchPlan", "make_plan"]

_INSIDE_PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_inside")
_SANDBOX_PACKAGE_ROOT = "/opt/assay-sandbox"
_SANDBOX_VENV = "/opt/venv"
_SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
_TOP_LEVEL_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime")
_ETC_TOOLCHAIN = ("/etc/alternatives", "/etc/java-17-openjdk")
"""Read-only /etc parts the compilers need: Debian's alternatives links (``javac``, ``cc``)
and the JDK's configuration (``$JAVA_HOME/conf`` links there). No secrets live in either."""
_SHM_BYTES = 16 * 1024 * 1024
SANDBOX_UID = 65534
"""Host uid (and gid) that bubblewrap runs as when the caller is root: "nobody"."""


@dataclass(frozen=True, slots=True)
class LaunchPlan:
    """Everything needed to start one zygote.

    Attributes:
        level: Isolation level this plan gives.
        argv: Command that starts the zygote (its stdin/stdout carry the protocol).
        python: The Python executable as seen inside the sandbox (``python`` in a command).
        path_env: ``PATH`` inside the sandbox.
        scratch_root: Scratch area as seen inside (``<root>/work`` is each run's cwd).
        scratch_tmpfs_bytes: Size of a tmpfs the zygote mounts on ``scratch_root`` itself
            (0: the launcher already provides one, or none can be mounted).
        host_scratch: Host directory to delete when the worker ends (``None`` for bwrap).
        extra_wipe: Other writable directories the zygote empties after each run.
        isolated: Whether the zygote runs in its own user, PID and mount namespaces.
        readonly_host: Whether the zygote must remount every inherited mount read-only (the
            ``unshare`` level, where the host filesystem stays visible).
    """

    level: Isolation
    argv: tuple[str, ...]
    python: str
    path_env: str
    scratch_root: str
    scratch_tmpfs_bytes: int
    host_scratch: str | None
    extra_wipe: tuple[str, ...]
    isolated: bool
    readonly_host: bool = False
    cleanup_dirs: tuple[str, ...] = ()


def _boot_code(package_parent: str) -> str:
    return (
        "import sys; sys.path.insert(0, " + repr(package_parent) + "); "
        "import _inside.zygote as zygote; del sys.path[0]; zygote.main()"
    )


def _inside_python() -> tuple[str, str | None]:
    """The interpreter path inside the bwrap sandbox, and the venv to mount (if any)."""
    if sys.prefix != sys.base_prefix:
        return os.path.join(_SANDBOX_VENV, "bin", os.path.basename(sys.executable)), sys.prefix
    return os.path.realpath(sys.executable), None


_STAGE_SCRIPT = (
    'set -e; while [ "$1" != -- ]; do mount --bind "$1" "$2"; shift 2; done; shift; exec "$@"'
)


def _staged_launch(binds: list[tuple[str, str]], bwrap: list[str]) -> tuple[list[str], str | None]:
    """Run bubblewrap as ``nobody`` when the caller is root, with the binds it needs staged.

    As root, bubblewrap would map uid 0 inside to uid 0 outside, and the kernel treats that
    uid as root in DAC checks (for example on /proc/sys files). So a private mount namespace
    (``unshare --mount``) first bind-mounts the directories only root can reach (such as a
    Python under /root) onto world-traversable staging directories, then ``setpriv`` drops to
    uid/gid 65534 with no groups and no capabilities, and bubblewrap starts from there.
    Returns the final argv and the staging directory to delete later (``None`` if not staged).
    """
    tools = [shutil.which(name) for name in ("unshare", "setpriv", "mount")]
    if os.geteuid() != 0 or not all(tools):
        direct = [arg for bind in binds for arg in ("--ro-bind", *bind)]
        return [bwrap[0], *direct, *bwrap[1:]], None
    stage = tempfile.mkdtemp(prefix="assay-sandbox-stage-")
    os.chmod(stage, 0o755)
    mounts: list[str] = []
    staged: list[str] = []
    for index, (source, destination) in enumerate(binds):
        target = os.path.join(stage, str(index))
        os.mkdir(target, 0o755)
        mounts += [source, target]
        staged += ["--ro-bind", target, destination]
    unshare, setpriv, _ = tools
    prefix = [
        str(unshare), "--mount", "--propagation", "private", "--",
        "/bin/sh", "-c", _STAGE_SCRIPT, "sh", *mounts, "--",
        str(setpriv), f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}", "--clear-groups",
        "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs",
    ]  # fmt: skip
    return [*prefix, bwrap[0], *staged, *bwrap[1:]], stage


def bwrap_argv(scratch_bytes: int) -> tuple[tuple[str, ...], str, str, str | None]:
    """The bubblewrap command line, the inside Python and ``PATH``, and a staging dir.

    The sandbox sees: /usr and the top-level links into it, a few /etc files the loader and
    ``time`` need, the Python base prefix (at its host path, read-only), the venv (read-only,
    at /opt/venv), the zygote's own code (read-only), a fresh /proc and minimal /dev, and two
    size-limited tmpfs (/tmp, /dev/shm). Everything else (home directories, /root, /work, the
    host /tmp, the repository, grader and test files) does not exist inside.
    """
    python, venv = _inside_python()
    binds: list[tuple[str, str]] = []
    if not sys.base_prefix.startswith("/usr/"):
        binds.append((sys.base_prefix, sys.base_prefix))
    if venv is not None:
        binds.append((venv, _SANDBOX_VENV))
    binds.append((_INSIDE_PACKAGE, _SANDBOX_PACKAGE_ROOT + "/_inside"))
    argv = [
        shutil.which("bwrap") or "bwrap",
        "--unshare-all",  # user, PID, network, IPC, UTS, mount, cgroup namespaces
        "--unshare-user",
        "--uid", "0",  # root of the new user namespace only (capabilities end at its border)
        "--gid", "0",
        "--cap-add", "ALL",  # for the zygote, inside that namespace; each run child drops all
        "--die-with-parent",
        "--new-session",
        "--as-pid-1",  # the zygote is init: unkillable from inside, kill(-1) cleans everything
        "--hostname", "sandbox",
        "--ro-bind", "/usr", "/usr",
    ]  # fmt: skip
    for name in _TOP_LEVEL_LINKS:
        path = "/" + name
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    for path in (*_ETC_FILES, *_ETC_TOOLCHAIN):
        argv += ["--ro-bind-try", path, path]
    argv += [
        "--proc", "/proc",
        "--dev", "/dev",
        "--size", str(_SHM_BYTES), "--tmpfs", "/dev/shm",
        "--remount-ro", "/dev",
        "--size", str(scratch_bytes), "--tmpfs", "/tmp",
        "--remount-ro", "/",
        "--chdir", "/tmp",
        "--clearenv",
        "--setenv", "LANG", "C.UTF-8",
        "--setenv", "HOME", "/tmp",
        python, "-I", "-c", _boot_code(_SANDBOX_PACKAGE_ROOT),
    ]  # fmt: skip
    full, stage = _staged_launch(binds, argv)
    path_env = (os.path.join(_SANDBOX_VENV, "bin") + ":" if venv else "") + _SYSTEM_PATH
    return tuple(full), python, path_env, stage


def _host_path_env() -> str:
    return os.path.dirname(sys.executable) + ":" + _SYSTEM_PATH


def make_plan(level: Isolation, scratch_bytes: int) -> LaunchPlan:
    """Build the launch plan for ``level``; the caller checks whether it starts."""
    package_parent = os.path.dirname(_INSIDE_PACKAGE)
    if level is Isolation.BWRAP:
        argv, python, path_env, stage = bwrap_argv(scratch_bytes)
        return LaunchPlan(
            level, argv, python, path_env, "/tmp", 0, None, ("/dev/shm",), isolated=True,
            cleanup_dirs=(stage,) if stage else (),
        )  # fmt: skip
    host_scratch = tempfile.mkdtemp(prefix="assay-sandbox-")
    command = (sys.executable, "-I", "-c", _boot_code(package_parent))
    if level is Isolation.UNSHARE:
        unshare = shutil.which("unshare") or "unshare"
        argv = (
            unshare, "--user", "--map-root-user", "--pid", "--fork", "--kill-child",
            "--mount", "--mount-proc", "--net", "--ipc", "--uts", "--", *command,
        )  # fmt: skip
        return LaunchPlan(
            level, argv, sys.executable, _host_path_env(), host_scratch, scratch_bytes,
            host_scratch, (), isolated=True, readonly_host=True,
        )  # fmt: skip
    return LaunchPlan(
        level, command, sys.executable, _host_path_env(), host_scratch, 0, host_scratch, (),
        isolated=False,
    )  # fmt: skip
