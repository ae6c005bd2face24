"""Attacks on what one task can leave for the next on a warm worker, and on the kernel.

Written as a policy under RL would try them: create SysV / POSIX IPC objects, keyrings,
memfds and /dev/shm files and look for them from the next task; hide memory where neither
RLIMIT_AS nor the proportional set size sees it; reach for the system calls a sandbox escape
starts with (io_uring, keyctl, ptrace, bpf, perf, mount, unshare, ...). Every run goes through
the shared single-worker pool, so "the next task" really is the same warm zygote.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap

import pyseccomp
import pytest
from assay.verifiers.sandbox import CallStatus, Limits, ProgramStatus, SandboxPool
from assay.verifiers.sandbox._seccomp import ALWAYS_DENIED, RUN_DENIED
from sandbox_helpers import call

NATIVE = pyseccomp.Arch()

SYSCALL = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def attack(number, args):
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args])
    return [result, ctypes.get_errno()]
"""

# (system call, arguments, what it would do unfiltered). Arguments are chosen so that, without
# the filter, most of these calls would succeed or fail with another errno than EPERM.
DENIED_CALLS = [
    ("io_uring_setup", [1, 0]),  # EFAULT without the filter
    ("io_uring_enter", [0, 0, 0, 0, 0, 0]),  # EBADF without the filter
    ("io_uring_register", [0, 0, 0, 0]),  # EBADF
    ("keyctl", [0, -3, 1]),  # KEYCTL_GET_KEYRING_ID of the session keyring: succeeds
    ("add_key", [0, 0, 0, 0, -3]),  # EFAULT
    ("request_key", [0, 0, 0, 0]),  # EFAULT
    ("ptrace", [0, 0, 0, 0]),  # PTRACE_TRACEME: succeeds
    ("process_vm_readv", [1, 0, 0, 0, 0, 0]),  # reads the zygote's memory
    ("bpf", [0, 0, 0]),  # EFAULT / EPERM
    ("perf_event_open", [0, 0, -1, -1, 0]),  # EFAULT
    ("userfaultfd", [0]),  # succeeds for user faults on many kernels
    ("personality", [0xFFFFFFFF]),  # a query: succeeds
    ("kexec_load", [0, 0, 0, 0]),
    ("kexec_file_load", [-1, -1, 0, 0, 0]),  # EBADF
    ("init_module", [0, 0, 0]),
    ("finit_module", [-1, 0, 0]),  # EBADF
    ("delete_module", [0, 0]),  # EFAULT
    ("mount", [0, 0, 0, 0, 0]),
    ("umount2", [0, 0]),  # EFAULT
    ("pivot_root", [0, 0]),  # EFAULT
    ("chroot", [0]),  # EFAULT
    ("fsopen", [0, 0]),  # EFAULT
    ("open_tree", [-100, 0, 0]),  # EFAULT
    ("move_mount", [-1, 0, -1, 0, 0]),
    ("unshare", [0x10000000]),  # CLONE_NEWUSER: EPERM only because user namespaces are off
    ("unshare", [0x08000000]),  # CLONE_NEWIPC: the filter lets it by, the kernel refuses (no caps)
    ("unshare", [0]),  # a no-op: succeeds without the filter
    ("setns", [-1, 0]),  # EBADF
    ("open_by_handle_at", [-100, 0, 0]),  # EFAULT
    ("name_to_handle_at", [-100, 0, 0, 0, 0]),
    ("kcmp", [1, 1, 0, 0, 0]),
    ("pidfd_getfd", [-1, 0, 0]),  # EBADF
    ("swapon", [0, 0]),
    ("reboot", [0, 0, 0, 0]),
    ("syslog", [10, 0, 0]),  # SYSLOG_ACTION_SIZE_BUFFER: may succeed
    ("clock_settime", [0, 0]),
    ("move_pages", [0, 0, 0, 0, 0, 0]),  # succeeds with no pages
]


def _number(name: str) -> int:
    return int(pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name))


def test_the_table_covers_every_denied_family() -> None:
    """Each family of the filter has at least one call tried from inside below."""
    tried = {name for name, _ in DENIED_CALLS}
    for family, names in {**ALWAYS_DENIED, **RUN_DENIED}.items():
        if family in ("system administration",):
            continue  # sampled: reboot, swapon, syslog, clock_settime
        assert tried & set(names), f"no attack tries the {family} family"


@pytest.mark.parametrize(("name", "args"), DENIED_CALLS, ids=[f"{n}{a}" for n, a in DENIED_CALLS])
def test_denied_system_calls_fail_with_eperm(pool: SandboxPool, name: str, args: list[int]) -> None:
    outcome = call(pool, SYSCALL, args=[_number(name), args])
    assert outcome.ok, outcome
    assert outcome.value == [-1, errno.EPERM], f"{name}{args} returned {outcome.value}"


CLONE_WITH_NAMESPACES = """
import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def attack(number, flags):
    ctypes.set_errno(0)
    pid = libc.syscall(ctypes.c_long(number), ctypes.c_long(flags | signal.SIGCHLD), 0, 0, 0, 0)
    if pid == 0:
        os._exit(0)
    if pid > 0:
        os.waitpid(pid, 0)
    return [pid if pid <= 0 else "created", ctypes.get_errno()]
"""


@pytest.mark.parametrize(
    "flags",
    [0x10000000, 0x20000000, 0x40000000, 0x08000000, 0x00020000, 0x04000000, 0x02000000],
    ids=["NEWUSER", "NEWPID", "NEWNET", "NEWIPC", "NEWNS", "NEWUTS", "NEWCGROUP"],
)
def test_clone_into_new_namespaces_is_denied(pool: SandboxPool, flags: int) -> None:
    outcome = call(pool, CLONE_WITH_NAMESPACES, args=[_number("clone"), flags])
    assert outcome.ok, outcome
    assert outcome.value == [-1, errno.EPERM]


def test_clone3_says_enosys_so_libc_falls_back_to_clone(pool: SandboxPool) -> None:
    outcome = call(pool, SYSCALL, args=[_number("clone3"), [0, 0]])
    assert outcome.ok and outcome.value == [-1, errno.ENOSYS], outcome


RUN_FILTER_ALONE = """
import ctypes, os, sys
from assay.verifiers.sandbox._inside.privileges import SeccompProgram
from assay.verifiers.sandbox._seccomp import programs
libc = ctypes.CDLL(None, use_errno=True)
SeccompProgram(programs().run).install()
out = []
for flags in (0x08000000, 0x08000000 | 0x00020000, 0x10000000, 0):
    ctypes.set_errno(0)
    out.append([libc.unshare(flags), ctypes.get_errno()])
print(out)
"""


def test_the_run_filter_lets_exactly_the_spares_ipc_unshare_through() -> None:
    """The template installs the run filter on itself, so each spare child moves into its fresh
    IPC namespace under it (with its capabilities still held): that one call, and no other
    unshare, passes the filter; a run has no capabilities left, so the kernel refuses it.
    (Not root: in a user namespace of its own, where the process holds CAP_SYS_ADMIN.)"""
    command = [sys.executable, "-c", RUN_FILTER_ALONE]
    if os.geteuid() != 0:
        command = ["unshare", "--user", "--map-root-user", *command]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [[0, 0], [-1, errno.EPERM], [-1, errno.EPERM],
                                       [-1, errno.EPERM]]  # fmt: skip


def test_two_filters_bind_every_run(pool: SandboxPool) -> None:
    source = """
def attack():
    status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
    return [status["Seccomp"].strip(), status.get("Seccomp_filters", "").strip(),
            status["NoNewPrivs"].strip()]
"""
    outcome = call(pool, source)
    assert outcome.ok, outcome
    assert outcome.value == ["2", "2", "1"]  # filter mode, the zygote's + the run's, no_new_privs
    assert pool.report.seccomp


ORDINARY = {
    "threads": """
import threading
def attack():
    out = []
    workers = [threading.Thread(target=out.append, args=(i,)) for i in range(8)]
    for w in workers: w.start()
    for w in workers: w.join()
    return sorted(out)
""",
    "subprocess": """
import subprocess, sys
def attack():
    return subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True,
                          text=True, check=True).stdout
""",
    "multiprocessing pool": """
import multiprocessing
def square(x):
    return x * x
def attack():
    with multiprocessing.get_context("fork").Pool(2) as workers:
        return workers.map(square, range(5))
""",
    "asyncio and sockets": """
import asyncio, socket
async def main():
    reader, writer = await asyncio.open_connection(sock=socket.socketpair()[0])
    writer.close()
    return 42
def attack():
    return asyncio.run(main())
""",
    "mmap, tempfile, memfd": """
import mmap, os, tempfile
def attack():
    with tempfile.TemporaryFile() as handle:
        handle.write(b"x" * 4096); handle.flush()
        mapped = mmap.mmap(handle.fileno(), 4096)
        first = mapped[:1]
    fd = os.memfd_create("ok")
    os.write(fd, b"abc"); os.close(fd)
    return first.decode()
""",
    "shared memory block": """
from multiprocessing import shared_memory
def attack():
    block = shared_memory.SharedMemory(create=True, size=1024)
    block.buf[:3] = b"abc"
    data = bytes(block.buf[:3]).decode()
    block.close(); block.unlink()
    return data
""",
}
ORDINARY_RESULTS = {
    "threads": list(range(8)),
    "subprocess": "42\n",
    "multiprocessing pool": [0, 1, 4, 9, 16],
    "asyncio and sockets": 42,
    "mmap, tempfile, memfd": "x",
    "shared memory block": "abc",
}


@pytest.mark.parametrize("name", sorted(ORDINARY))
def test_ordinary_code_still_works_under_the_filter(pool: SandboxPool, name: str) -> None:
    outcome = call(pool, ORDINARY[name], limits=Limits(timeout_s=20, memory_mb=512))
    assert outcome.ok, outcome
    assert outcome.value == ORDINARY_RESULTS[name]


# -- leftovers: what one task creates, the next must not see ----------------------------------

LEAVE = {
    "sysv shm with a key": """
libc.shmget(0x5A17, 65536, 0o1666)
""",
    "sysv shm, private, attached by a daemon": """
shm = libc.shmget(0, 65536, 0o1600)
if os.fork() == 0:
    os.setsid()
    libc.shmat(shm, None, 0)
    time.sleep(60)
""",
    "sysv message queue with a message": """
queue = libc.msgget(0x5A18, 0o1666)
message = ctypes.create_string_buffer(b"\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00secret", 32)
libc.msgsnd(queue, message, 6, 0)
""",
    "sysv semaphore set": """
libc.semget(0x5A19, 4, 0o1666)
""",
    "posix message queue": """
libc.mq_open(b"/assay-leak", os.O_CREAT | os.O_RDWR, 0o666, None)
""",
    "file in /dev/shm": """
open("/dev/shm/assay-leak", "w").write("secret")
""",
    "named shared memory block": """
from multiprocessing import shared_memory
block = shared_memory.SharedMemory(name="assay-leak-block", create=True, size=4096)
block.buf[:6] = b"secret"
import multiprocessing.resource_tracker as tracker
tracker.unregister(block._name, "shared_memory")
""",
    "memfd held by a daemon": """
fd = os.memfd_create("assay-leak")
os.write(fd, b"secret")
if os.fork() == 0:
    os.setsid()
    time.sleep(60)
""",
    "session keyring": """
libc.syscall(ctypes.c_long(KEYCTL_NR), 1, b"assay-leak")
""",
}
LEAVE_PRELUDE = """
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
KEYCTL_NR = {keyctl}
"""
LOOK = """
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
def rows(name):
    return [line for line in open("/proc/sysvipc/" + name).read().splitlines()[1:] if line.strip()]
def memfds():
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:
            continue
        found += [link for link in links if "memfd" in link]
    return found
seen = {
    "shm": rows("shm"), "msg": rows("msg"), "sem": rows("sem"),
    "shm key": libc.shmget(0x5A17, 0, 0), "msg key": libc.msgget(0x5A18, 0),
    "sem key": libc.semget(0x5A19, 0, 0),
    "mq": libc.mq_open(b"/assay-leak", os.O_RDWR, 0, None),
    "dev shm": sorted(os.listdir("/dev/shm")),
    "keys": open("/proc/keys").read() if os.path.exists("/proc/keys") else "",
    "memfds": memfds(),
}
print(json.dumps(seen))
"""
NOTHING = {
    "shm": [],
    "msg": [],
    "sem": [],
    "shm key": -1,
    "msg key": -1,
    "sem key": -1,
    "mq": -1,
    "dev shm": [],
    "memfds": [],
}


@pytest.mark.parametrize("name", sorted(LEAVE))
def test_the_next_task_sees_nothing_a_task_left(pool: SandboxPool, name: str) -> None:
    limits = Limits(timeout_s=3, memory_mb=256)
    prelude = LEAVE_PRELUDE.format(keyctl=_number("add_key"))
    left = pool.run_program(prelude + textwrap.dedent(LEAVE[name]), "", limits)
    assert left.status is ProgramStatus.OK, left
    looked = pool.run_program(LOOK, "", limits)
    assert looked.status is ProgramStatus.OK, looked
    seen = json.loads(looked.stdout)
    assert "assay-leak" not in seen.pop("keys")
    assert seen == NOTHING


def test_a_task_in_flight_does_not_see_the_previous_tasks_ipc_in_a_session(
    pool: SandboxPool,
) -> None:
    """The same holds for call sessions (function-style tasks), not only programs."""
    create = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def attack():
    return libc.shmget(0x5A20, 4096, 0o1666)
"""
    look = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def attack():
    return libc.shmget(0x5A20, 0, 0)
"""
    made = call(pool, create)
    assert made.ok and isinstance(made.value, int) and made.value >= 0, made
    found = call(pool, look)
    assert found.ok and found.value == -1, found


# -- memory kept outside the process's address space counts against the cap ------------------

HIDE_MEMORY = {
    "memfds written, never mapped": """
import os, time
fds = []
for i in range(60):
    fd = os.memfd_create("m%d" % i)
    os.write(fd, b"x" * (8 << 20))
    fds.append(fd)
time.sleep(5)
print("kept")
""",
    "memfds handed to a daemon": """
import os, time
fds = [os.memfd_create("m%d" % i) for i in range(30)]
for fd in fds:
    os.write(fd, b"x" * (8 << 20))
if os.fork() == 0:
    os.setsid()
    time.sleep(60)
time.sleep(5)
print("kept")
""",
    "sysv shm attached, filled, detached": """
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
for _ in range(12):
    segment = libc.shmget(0, 32 << 20, 0o1600)
    address = libc.shmat(segment, None, 0)
    ctypes.memset(ctypes.c_void_p(address), 1, 32 << 20)
    libc.shmdt(ctypes.c_void_p(address))
time.sleep(5)
print("kept")
""",
    "sysv message queues filled": """
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
message = ctypes.create_string_buffer(b"\\x01" + b"\\x00" * 7 + b"m" * 8192, 8200)
for _ in range(12000):
    queue = libc.msgget(0, 0o1600)
    libc.msgsnd(queue, message, 8192, 0x800)
    libc.msgsnd(queue, message, 8192, 0x800)
time.sleep(5)
print("kept")
""",
    "files on the scratch tmpfs": """
import time
for i in range(14):
    with open("/tmp/fill%d" % i, "wb") as handle:
        handle.write(b"x" * (15 << 20))
time.sleep(5)
print("kept")
""",
    "deleted files held open": """
import os, time
fds = []
for i in range(14):
    fd = os.open("/tmp", os.O_TMPFILE | os.O_RDWR)
    os.write(fd, b"x" * (15 << 20))
    fds.append(fd)
time.sleep(5)
print("kept")
""",
    "mapped memfds shared by forked children": """
import mmap, os, time
for i in range(12):
    if os.fork() == 0:
        fd = os.memfd_create("m%d" % i)
        os.ftruncate(fd, 15 << 20)
        mapped = mmap.mmap(fd, 15 << 20)
        os.close(fd)
        mapped.write(b"x" * (15 << 20))
        time.sleep(60)
time.sleep(5)
print("kept")
""",
}


@pytest.mark.parametrize("name", sorted(HIDE_MEMORY))
def test_memory_hidden_from_the_address_space_is_capped(pool: SandboxPool, name: str) -> None:
    limits = Limits(timeout_s=8, memory_mb=160)
    outcome = pool.run_program(HIDE_MEMORY[name], "", limits)
    assert outcome.status is ProgramStatus.MEMORY, outcome
    assert "kept" not in outcome.stdout
    after = pool.run_program(LOOK, "", Limits(timeout_s=3, memory_mb=256))
    assert after.status is ProgramStatus.OK, after
    seen = json.loads(after.stdout)
    seen.pop("keys")
    assert seen == NOTHING


def test_dev_shm_filled_past_a_small_cap_is_memory(pool: SandboxPool) -> None:
    source = """
import time
with open("/dev/shm/fill", "wb") as handle:
    handle.write(b"x" * (15 << 20))
time.sleep(5)
print("kept")
"""
    baseline = pool.run_program("print(1)", "", Limits(timeout_s=3, memory_mb=256))
    cap_mb = max(8, baseline.usage.peak_rss_bytes // 2**20 // 2 + 8)
    outcome = pool.run_program(source, "", Limits(timeout_s=8, memory_mb=cap_mb))
    assert outcome.status is ProgramStatus.MEMORY, (cap_mb, outcome)


def test_a_session_that_hides_memory_in_memfds_is_memory(pool: SandboxPool) -> None:
    source = """
import os, time
def attack():
    fds = []
    for i in range(60):
        fd = os.memfd_create("m%d" % i)
        os.write(fd, b"x" * (8 << 20))
        fds.append(fd)
    time.sleep(5)
    return len(fds)
"""
    outcome = call(pool, source, limits=Limits(timeout_s=8, memory_mb=160))
    assert outcome.status is CallStatus.MEMORY, outcome
