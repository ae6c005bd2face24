"""Hostile candidates. Every case is a real attempt executed inside the sandbox.

A policy rewarded for passing tests will try each of these. The sandbox must report the
outcome as data, keep the host and the trusted side unharmed, and stay usable afterwards.
"""

from __future__ import annotations

import os
import socket
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from assay.verifiers.sandbox import (
    CallStatus,
    Isolation,
    Limits,
    ProgramStatus,
    SandboxPool,
    strict_equal,
)
from sandbox_helpers import FAST, call, other_processes

REPO = Path(__file__).resolve().parents[2]

READ = """
def attack(path):
    try:
        with open(path, "rb") as handle:
            return ["read", handle.read(200)]
    except OSError as exc:
        return ["denied", type(exc).__name__]
"""


@pytest.fixture(scope="module")
def host_secrets() -> Iterator[dict[str, str]]:
    """Secret files on the host: in the home dir, in the host /tmp, and in the repository."""
    token = uuid.uuid4().hex
    home = Path.home() / f".assay-sandbox-secret-{token}"
    tmp = Path("/tmp") / f"assay-sandbox-secret-{token}"
    for path in (home, tmp):
        path.write_text(token)
    yield {"home": str(home), "tmp": str(tmp), "token": token}
    home.unlink()
    tmp.unlink()


@pytest.mark.parametrize(
    "target",
    [
        "/etc/shadow",  # password hashes: /etc is not mounted, only two loader files are
        "/etc/passwd",  # host account names
        "home",  # a file in the grader's home directory (~, here /root)
        "tmp",  # a file in the host /tmp (the sandbox has its own, empty /tmp)
        str(REPO / "pyproject.toml"),  # the repository with the grader and its tests
        str(REPO / "tests" / "sandbox" / "test_sandbox_attacks.py"),  # the tests themselves
        str(Path(sys.prefix) / "pyvenv.cfg"),  # the venv at its host path (it is at /opt/venv)
        "/proc/1/environ",  # the zygote's environment: it is not dumpable
        "/proc/1/mem",  # the zygote's memory
        "/proc/kcore",  # physical memory
        "/sys/kernel/notes",  # /sys is not mounted
    ],
    ids=[
        "etc-shadow", "etc-passwd", "home-secret", "host-tmp-secret", "repo-file", "test-file",
        "venv-host-path", "zygote-environ", "zygote-mem", "kcore", "sysfs",
    ],
)  # fmt: skip
def test_host_files_are_unreadable(
    bwrap_pool: SandboxPool, host_secrets: dict[str, str], target: str
) -> None:
    path = host_secrets.get(target, target)
    outcome = call(bwrap_pool, READ, args=(path,))
    assert outcome.ok, outcome
    assert isinstance(outcome.value, list) and outcome.value[0] == "denied", outcome.value
    assert host_secrets["token"] not in repr(outcome.value)


def test_directories_hide_host_content(
    bwrap_pool: SandboxPool, host_secrets: dict[str, str]
) -> None:
    # listing where the secrets are: the home dir holds only the Python prefix, /tmp is private
    source = """
import os

def attack(paths):
    seen = {}
    for path in paths:
        try:
            seen[path] = sorted(os.listdir(path))
        except OSError as exc:
            seen[path] = type(exc).__name__
    return seen
"""
    places = ["/", str(Path.home()), "/tmp", str(REPO.parent), str(REPO)]
    outcome = call(bwrap_pool, source, args=(places,))
    assert outcome.ok, outcome
    assert host_secrets["token"] not in repr(outcome.value)
    listing = outcome.value
    assert isinstance(listing, dict)
    assert "work" not in listing["/"] and "home" not in listing["/"]
    assert listing[str(REPO)] == "FileNotFoundError"


WRITE = """
def attack(path):
    try:
        with open(path, "ab") as handle:
            handle.write(b"pwned")
        return "written"
    except OSError as exc:
        return type(exc).__name__
"""


@pytest.mark.parametrize(
    "path",
    [
        "/evil",  # the sandbox root is a read-only tmpfs
        "/usr/lib/evil",  # system files are read-only binds
        "/etc/ld.so.cache",  # the loader cache (read-only bind)
        "/opt/venv/evil",  # the venv, which has the grader's packages
        "/opt/assay-sandbox/_inside/zygote.py",  # the zygote's own code
        os.path.join(sys.base_prefix, "lib", "python3.11", "os.py"),  # the stdlib
        "/dev/evil",  # /dev is read-only apart from its device nodes
        "/proc/sys/kernel/hostname",  # kernel settings
    ],
    ids=["root", "usr", "etc", "venv", "zygote-code", "stdlib", "dev", "proc-sys"],
)
def test_writes_outside_scratch_fail(bwrap_pool: SandboxPool, path: str) -> None:
    outcome = call(bwrap_pool, WRITE, args=(path,))
    assert outcome.ok, outcome
    assert outcome.value != "written"


def test_scratch_leftovers_do_not_reach_the_next_run(pool: SandboxPool) -> None:
    # run 1 drops files in its cwd and in TMPDIR; run 2 (same worker) must not see them
    plant = "import os, tempfile\ndef attack():\n    open('left', 'w').write('x')\n    open(os.path.join(tempfile.gettempdir(), 'left2'), 'w').write('x')\n    return os.getcwd()\n"
    look = "import os, tempfile\ndef attack():\n    return [os.path.exists('left'), os.path.exists(os.path.join(tempfile.gettempdir(), 'left2'))]\n"
    assert call(pool, plant).ok
    assert call(pool, look).value == [False, False]


def test_tcp_to_host_listener_fails(pool: SandboxPool) -> None:
    # the host listens on 127.0.0.1; the sandbox has its own network namespace
    if pool.isolation is Isolation.NONE:
        pytest.fail("no network namespace without isolation")
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    source = """
import socket

def attack(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return "connected"
    except OSError as exc:
        return type(exc).__name__
"""
    try:
        outcome = call(pool, source, args=(port,))
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody knocked
    finally:
        listener.close()
    assert outcome.value == "ConnectionRefusedError"


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        (("8.8.8.8", 53), "inet"),  # the internet: no route at all
        ("\0assay-sandbox-test", "abstract-unix"),  # abstract unix sockets are per namespace
    ],
    ids=["internet", "abstract-unix-socket"],
)
def test_other_network_paths_fail(pool: SandboxPool, address: object, kind: str) -> None:
    if pool.isolation is Isolation.NONE:
        pytest.fail("no network namespace without isolation")
    server = None
    if kind == "abstract-unix":
        server = socket.socket(socket.AF_UNIX)
        server.bind(address)  # type: ignore[arg-type]
        server.listen()
    source = """
import socket

def attack(address, kind):
    family = socket.AF_UNIX if kind == "abstract-unix" else socket.AF_INET
    target = address if kind == "abstract-unix" else tuple(address)
    try:
        with socket.socket(family) as sock:
            sock.settimeout(1)
            sock.connect(target)
        return "connected"
    except OSError as exc:
        return type(exc).__name__
"""
    try:
        outcome = call(
            pool, source, args=(address if isinstance(address, str) else list(address), kind)
        )  # type: ignore[arg-type]
    finally:
        if server is not None:
            server.close()
    assert outcome.ok, outcome
    assert outcome.value != "connected"


def test_trusted_side_is_invisible_in_proc(bwrap_pool: SandboxPool) -> None:
    # the grader's pid names nothing inside; its cmdline and environ cannot be read
    source = """
def attack(pid):
    found = {}
    for name in ("cmdline", "environ"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as handle:
                found[name] = handle.read()
        except OSError as exc:
            found[name] = type(exc).__name__
    return found
"""
    outcome = call(bwrap_pool, source, args=(os.getpid(),))
    assert outcome.value == {"cmdline": "FileNotFoundError", "environ": "FileNotFoundError"}


def test_zygote_cannot_be_traced_or_inspected(bwrap_pool: SandboxPool) -> None:
    # ptrace, or opening /proc/1/fd/N, would hand the zygote's protocol pipes to the candidate
    source = """
import ctypes, os

def attack():
    libc = ctypes.CDLL(None, use_errno=True)
    traced = [libc.ptrace(16, 1, 0, 0), ctypes.get_errno()]  # PTRACE_ATTACH to the zygote
    opened = {}
    for name in os.listdir("/proc/1/fd"):  # the numbers are visible, the files are not
        for what, action in (("link", os.readlink), ("open", lambda p: os.open(p, os.O_RDWR))):
            try:
                action(f"/proc/1/fd/{name}")
                opened[f"{what} {name}"] = "done"
            except OSError as exc:
                opened[f"{what} {name}"] = type(exc).__name__
    return [traced, sorted(set(opened.values()))]
"""
    outcome = call(bwrap_pool, source)
    assert outcome.value == [[-1, 1], ["PermissionError"]]  # EPERM; nothing opened


PRIVILEGED = """
import ctypes, os, resource

def attack():
    libc = ctypes.CDLL(None, use_errno=True)
    results = {}
    os.makedirs("m", exist_ok=True)
    results["mount"] = libc.mount(b"none", b"m", b"tmpfs", 0, None)
    try:
        resource.setrlimit(resource.RLIMIT_NPROC, (10**6, 10**6))
        results["raise-rlimit"] = 0
    except (ValueError, OSError):
        results["raise-rlimit"] = -1
    for name, action in (("setuid", lambda: os.setuid(1000)), ("chroot", lambda: os.chroot("/tmp"))):
        try:
            action()
            results[name] = 0
        except OSError:
            results[name] = -1
    with open("/proc/self/status") as status:
        results["caps"] = [line.split()[1] for line in status if line.startswith("CapEff")][0]
    return results
"""


def test_no_privileges_inside(pool: SandboxPool) -> None:
    # uid 0 inside, but no capability: no mounts, no raised limits, no setuid, no chroot
    if pool.isolation is Isolation.NONE:
        pytest.fail("nothing to check without isolation")
    outcome = call(pool, PRIVILEGED)
    assert outcome.value == {
        "mount": -1, "raise-rlimit": -1, "setuid": -1, "chroot": -1, "caps": "0000000000000000",
    }  # fmt: skip


def test_nested_user_namespace_matches_report(pool: SandboxPool) -> None:
    # a user namespace of its own would give candidate code capabilities there (attack surface)
    source = "import ctypes\ndef attack():\n    return ctypes.CDLL(None).unshare(0x10000000)\n"
    outcome = call(pool, source)
    assert outcome.ok, outcome
    # the report is what callers rely on: unshare fails (-1) exactly when it says it is disabled
    assert outcome.value == (-1 if pool.report.nested_userns_disabled else 0), pool.report


KILL_PARENT = "import os\ndef attack():\n    os.kill(os.getppid(), 9)\n    return 'still here'\n"
KILL_ZYGOTE = "import os\ndef attack():\n    os.kill(1, 9)\n    return 'still here'\n"
STOP_PARENT = "import os, signal\ndef attack():\n    os.kill(os.getppid(), signal.SIGSTOP)\n    return 'still here'\n"
KILL_ALL = "import os\ndef attack():\n    os.kill(-1, 9)\n    return 'still here'\n"
STOP_ZYGOTE = "import os, signal\ndef attack():\n    for sig in (signal.SIGSTOP, signal.SIGTERM, signal.SIGINT):\n        os.kill(1, sig)\n    return 'still here'\n"


@pytest.mark.parametrize(
    "source",
    [KILL_PARENT, KILL_ZYGOTE, KILL_ALL, STOP_ZYGOTE, STOP_PARENT],
    ids=["kill-parent", "kill-zygote", "kill-minus-one", "stop-zygote", "stop-parent"],
)
def test_killing_the_zygote_hurts_only_this_run(source: str) -> None:
    # the parent is the template (restarted when killed, resumed when stopped); the zygote, as
    # init of its PID namespace, ignores signals from inside (without a PID namespace it dies
    # and the pool replaces it). Either way the next run works.
    with SandboxPool(limits=FAST) as pool:
        outcome = call(pool, source)
        assert outcome.status in (CallStatus.OK, CallStatus.EXCEPTION, CallStatus.CRASHED)
        assert call(pool, "def attack():\n    return 1\n").value == 1
        if pool.report.namespace_init:
            assert pool.stats.recycled == 0


def test_kill_parent_from_a_program(pool: SandboxPool) -> None:
    outcome = pool.run_program("import os\nos.kill(os.getppid(), 9)\nprint('after')")
    assert outcome.status in (ProgramStatus.OK, ProgramStatus.CRASHED)
    assert pool.run_program("print(1)").stdout == "1\n"


def test_fork_bomb_is_contained(pool: SandboxPool) -> None:
    # RLIMIT_NPROC stops the bomb; the timeout ends it; nothing survives the run
    bomb = (
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    )
    outcome = pool.run_program(bomb, limits=Limits(timeout_s=1.0, max_processes=16))
    assert outcome.status is ProgramStatus.TIMEOUT
    if pool.report.namespace_init:
        assert other_processes(pool) == []
    assert pool.run_program("print(2)").stdout == "2\n"


@pytest.mark.parametrize(
    "body",
    [
        "return len(bytearray(10**10))",  # one huge allocation
        "hoard = []\n    while True:\n        hoard.append(bytearray(10**7))",  # death by a thousand cuts
        "return 'x' * 10**10",  # a string too big
    ],
    ids=["one-big-block", "growing-list", "huge-string"],
)
def test_memory_bomb_is_a_memory_outcome(pool: SandboxPool, body: str) -> None:
    outcome = call(pool, f"def attack():\n    {body}\n")
    assert outcome.status is CallStatus.MEMORY
    assert call(pool, "def attack():\n    return 3\n").value == 3


def test_memory_spread_over_processes_is_caught(pool: SandboxPool) -> None:
    # each process stays under RLIMIT_AS, together they hold far more: the zygote's watchdog
    # sums the run's memory and ends it
    bomb = (
        "import os, time\n"
        "for _ in range(8):\n"
        "    if os.fork() == 0:\n"
        "        block = b'x' * (100 * 1024 * 1024)\n"
        "        time.sleep(60)\n"
        "time.sleep(60)\n"
    )
    outcome = pool.run_program(bomb, limits=Limits(timeout_s=20.0, memory_mb=256))
    assert outcome.status is ProgramStatus.MEMORY
    assert pool.run_program("print(9)").stdout == "9\n"


def test_memory_bomb_in_a_program(pool: SandboxPool) -> None:
    outcome = pool.run_program("hoard = []\nwhile True:\n    hoard.append(bytearray(10**7))\n")
    assert outcome.status is ProgramStatus.MEMORY


HANGS = [
    # ignores SIGTERM and SIGINT, burns CPU: only SIGKILL from the zygote ends it
    "import signal\nfor s in (signal.SIGTERM, signal.SIGINT):\n    signal.signal(s, signal.SIG_IGN)\ndef attack():\n    while True:\n        pass\n",
    # sleeps: no CPU used, the wall clock ends it
    "import time\ndef attack():\n    time.sleep(1000)\n",
    # swallows KeyboardInterrupt and SystemExit in a loop
    "def attack():\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass\n",
]


@pytest.mark.parametrize(
    "source", HANGS, ids=["busy-ignoring-signals", "sleep", "swallow-everything"]
)
def test_hang_times_out_and_later_calls_do_not_hang(pool: SandboxPool, source: str) -> None:
    with pool.call_session({}, source, Limits(timeout_s=1.0)) as session:
        assert session.call("attack").status is CallStatus.TIMEOUT
        later = session.call("attack")
    assert later.status is CallStatus.CRASHED
    assert call(pool, "def attack():\n    return 4\n").value == 4


def test_exit_mid_call_is_a_crash(pool: SandboxPool) -> None:
    source = "import os\ndef attack():\n    os._exit(0)\ndef fine():\n    return 5\n"
    with pool.call_session({}, source) as session:
        assert session.call("attack").status is CallStatus.CRASHED
        assert session.call("fine").status is CallStatus.CRASHED  # the session is over
    assert call(pool, source, "fine").value == 5


DAEMON = """
import os, tempfile, time

def attack(flag):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(1)
            open(os.path.join(tempfile.gettempdir(), flag), "w").write("alive")
            while True:
                time.sleep(1)
        os._exit(0)
    return "spawned"
"""
CHECK_DAEMON = """
import os, tempfile, time

def attack(flag):
    time.sleep(1.5)
    return os.path.exists(os.path.join(tempfile.gettempdir(), flag))
"""


@pytest.mark.parametrize("level", list(Isolation), ids=[level.value for level in Isolation])
def test_double_forked_daemon_does_not_survive_the_run(level: Isolation, tmp_path: Path) -> None:
    # a daemon that double-forks and setsid's would write a flag one second later
    if level is not Isolation.NONE and not _level_available(level):
        pytest.fail(f"{level} is not available here")
    flag = f"daemon-{uuid.uuid4().hex}"
    with SandboxPool(limits=Limits(timeout_s=5.0), isolation=level) as pool:
        assert call(pool, DAEMON, args=(flag,)).value == "spawned"
        assert call(pool, CHECK_DAEMON, args=(flag,)).value is False
        if pool.report.namespace_init:
            assert other_processes(pool) == []
        assert pool.stats.started == 1  # same worker: the cleanup, not a restart, did it
    assert not any(flag in name for name in os.listdir("/tmp"))


def _level_available(level: Isolation) -> bool:
    try:
        with SandboxPool(isolation=level):
            return True
    except Exception:
        return False


@pytest.mark.parametrize(
    ("source", "stream"),
    [
        ("import sys\nsys.stdout.write('x' * 10**8)\n", "stdout"),  # 100 MB at once
        ("import sys\nsys.stderr.write('e' * 10**8)\n", "stderr"),
    ],
    ids=["stdout-1e8", "stderr-1e8"],
)
def test_output_flood_is_truncated(pool: SandboxPool, source: str, stream: str) -> None:
    outcome = pool.run_program(source, limits=Limits(timeout_s=20.0))
    assert outcome.status is ProgramStatus.OK
    assert len(getattr(outcome, stream)) == Limits().max_output_bytes
    assert getattr(outcome, f"{stream}_truncated") is True


def test_endless_flood_times_out_truncated(pool: SandboxPool) -> None:
    outcome = pool.run_program(
        "import os\nwhile True:\n    os.write(1, b'x' * 65536)\n", limits=Limits(timeout_s=1.0)
    )
    assert outcome.status is ProgramStatus.TIMEOUT
    assert outcome.stdout_truncated and len(outcome.stdout) == Limits().max_output_bytes


def test_flood_inside_a_call(pool: SandboxPool) -> None:
    outcome = call(pool, "def attack():\n    print('y' * 10**7)\n    return 6\n")
    assert (outcome.status, outcome.value, outcome.stdout_truncated) == (CallStatus.OK, 6, True)


UNENCODABLE_RETURNS = [
    # the classic: an object equal to everything
    "class AlwaysEqual:\n    def __eq__(self, other):\n        return True\n    def __hash__(self):\n        return 0\ndef attack():\n    return AlwaysEqual()\n",
    # a str subclass whose __eq__ lies
    "class Liar(str):\n    def __eq__(self, other):\n        return True\ndef attack():\n    return Liar('wrong')\n",
    # an int subclass that compares equal to anything
    "class Liar(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\ndef attack():\n    return Liar(0)\n",
    # the liar hidden deep in a container
    "class AlwaysEqual:\n    __eq__ = lambda self, other: True\ndef attack():\n    return {'answer': [1, (2, AlwaysEqual())]}\n",
    # a dict subclass with a lying __eq__
    "class D(dict):\n    __eq__ = lambda self, other: True\ndef attack():\n    return D()\n",
    # a list that contains itself
    "def attack():\n    items = []\n    items.append(items)\n    return items\n",
    # a function, a generator
    "def attack():\n    return attack\n",
    "def attack():\n    return (i for i in range(3))\n",
    # bigger than max_value_bytes
    "def attack():\n    return 'z' * (9 * 1024 * 1024)\n",
]


@pytest.mark.parametrize(
    "source",
    UNENCODABLE_RETURNS,
    ids=[
        "always-equal",
        "str-subclass",
        "int-subclass",
        "nested-liar",
        "dict-subclass",
        "cycle",
        "function",
        "generator",
        "too-large",
    ],
)
def test_non_data_return_is_unencodable(pool: SandboxPool, source: str) -> None:
    outcome = call(pool, source)
    assert outcome.status is CallStatus.UNENCODABLE
    assert outcome.value is None


@pytest.mark.parametrize(
    ("expression", "expected"),
    [("True", 1), ("1.0", 1), ("(1, 2)", [1, 2]), ("'1'", 1)],
    ids=["bool-for-int", "float-for-int", "tuple-for-list", "str-for-int"],
)
def test_look_alike_answers_keep_their_type(
    pool: SandboxPool, expression: str, expected: object
) -> None:
    # the trusted side can tell True from 1: exact types survive, strict_equal refuses them
    outcome = call(pool, f"def attack():\n    return {expression}\n")
    assert outcome.ok
    assert type(outcome.value) is not type(expected)
    assert not strict_equal(outcome.value, expected)  # type: ignore[arg-type]


def test_forged_protocol_frames_end_the_session(pool: SandboxPool) -> None:
    # candidate code writes garbage onto the zygote's control socket (descriptor 3)
    source = (
        "import os\ndef attack():\n    os.write(3, b'\\x00\\x00\\x00\\x05hello')\n    return 1\n"
    )
    outcome = call(pool, source)
    assert outcome.status is CallStatus.CRASHED
    assert "protocol" in outcome.detail
    assert call(pool, "def attack():\n    return 7\n").value == 7


def test_oversized_frame_header_ends_the_session(pool: SandboxPool) -> None:
    source = "import os\ndef attack():\n    os.write(3, b'\\xff\\xff\\xff\\xff')\n    return 1\n"
    assert call(pool, source).status is CallStatus.CRASHED
    assert call(pool, "def attack():\n    return 8\n").value == 8


def test_file_size_limit(pool: SandboxPool) -> None:
    source = "def attack():\n    try:\n        open('big', 'wb').write(b'x' * 2_000_000)\n        return 'written'\n    except OSError as exc:\n        return type(exc).__name__\n"
    outcome = call(pool, source, limits=Limits(max_file_bytes=1_000_000))
    assert outcome.value != "written"


TAMPER = """
import json, os

attempts = {}
for name, action in [
    ("overwrite", lambda: open("test_solution.py", "w").write("def test_x(): pass\\n")),
    ("append", lambda: open("test_solution.py", "a").write("\\n")),
    ("unlink", lambda: os.unlink("test_solution.py")),
    ("rename", lambda: os.rename("test_solution.py", "moved.py")),
    ("chmod", lambda: os.chmod("test_solution.py", 0o666)),
    ("rename-dir", lambda: os.rename("tests", "tests_old")),
    ("unlink-in-dir", lambda: os.unlink("tests/test_more.py")),
]:
    try:
        action()
        attempts[name] = "done"
    except OSError as exc:
        attempts[name] = type(exc).__name__
json.dump(attempts, open("tamper.json", "w"))

def add(a, b):
    return a - b
"""


def test_readonly_tests_cannot_be_changed(bwrap_pool: SandboxPool) -> None:
    # the candidate's module, imported by the tests, tries to rewrite or remove them
    if not bwrap_pool.report.readonly_mounts:
        pytest.fail("read-only bind mounts are not available")
    tests = "from solution import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    outcome = bwrap_pool.run_command(
        [
            "python",
            "-I",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "test_solution.py",
            "tests",
        ],
        files={"solution.py": TAMPER},
        readonly_files={"test_solution.py": tests, "tests/test_more.py": tests},
        limits=Limits(timeout_s=60, memory_mb=1024),
        collect=["tamper.json", "test_solution.py", "tests/test_more.py"],
    )
    assert outcome.exit_code == 1, outcome.stdout  # the real tests ran, and failed
    assert outcome.collected["test_solution.py"] == tests.encode()
    assert outcome.collected["tests/test_more.py"] == tests.encode()
    attempts = outcome.collected["tamper.json"].decode()
    assert '"done"' not in attempts, attempts
