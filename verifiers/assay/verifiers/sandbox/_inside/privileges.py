"""Linux process controls Python's standard library lacks: prctl, capabilities, mounts.

They are called through :mod:`ctypes` on the C library. Every wrapper raises :class:`OSError`
with the C ``errno`` when the call fails, so callers decide what a failure means.
"""

from __future__ import annotations

import ctypes
import os
import re

__all__ = [
    "CLONE_NEWIPC",
    "SeccompProgram",
    "capability_sets",
    "drop_all_capabilities",
    "has_capability",
    "limit_future_privileges",
    "make_private_mounts",
    "mount_bind",
    "mount_tmpfs",
    "remount_all_readonly",
    "set_child_subreaper",
    "set_dumpable",
    "set_no_new_privs",
    "set_parent_death_signal",
    "setns",
    "umount_detach",
    "unshare",
]

CAP_SYS_ADMIN = 21
_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_CAPBSET_DROP = 24
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECUREBITS = 28
_SECURE_NOROOT_LOCKED = 0b1111  # NOROOT, NO_SETUID_FIXUP and their locks
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_MS_RDONLY = 1
_MS_NOSUID = 2
_MS_NODEV = 4
_MS_REMOUNT = 32
_MS_BIND = 4096
_MS_REC = 16384
_MS_PRIVATE = 1 << 18
_MNT_DETACH = 2
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
CLONE_NEWIPC = 0x08000000

# The C library, already loaded. (ctypes.util.find_library would import threading, whose
# at-fork hook makes every fork of the zygote measurably dearer.)
_libc = ctypes.CDLL(None, use_errno=True)
_libc.prctl.argtypes = [
    ctypes.c_int,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
]
_libc.prctl.restype = ctypes.c_int


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
    return result


def _prctl(option: int, arg2: int = 0, arg3: int = 0) -> int:
    result: int = _libc.prctl(option, arg2, arg3, 0, 0)
    return _check(result, "prctl") if result < 0 else result


def set_dumpable(dumpable: bool) -> None:
    """Non-dumpable processes cannot be ptraced, nor their /proc mem/environ/fd read, by peers."""
    _prctl(_PR_SET_DUMPABLE, int(dumpable))


def set_parent_death_signal(signal_number: int) -> None:
    """Have the kernel send ``signal_number`` to this process when its parent dies."""
    _prctl(_PR_SET_PDEATHSIG, signal_number)


def set_child_subreaper() -> None:
    """Adopt orphaned descendants (a daemon that double-forks stays our descendant)."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def set_no_new_privs() -> None:
    """Forbid execve from ever granting privileges (setuid bits, file capabilities)."""
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)


def capability_sets() -> dict[str, int]:
    """The capability masks of this process, keyed ``CapInh``, ``CapPrm``, ``CapEff``, ..."""
    masks: dict[str, int] = {}
    with open("/proc/self/status", encoding="ascii", errors="replace") as status:
        for line in status:
            if line.startswith("Cap"):
                key, _, value = line.partition(":")
                masks[key] = int(value.strip(), 16)
    return masks


def has_capability(capability: int) -> bool:
    """Whether ``capability`` is in this process's effective set."""
    return bool(capability_sets().get("CapEff", 0) >> capability & 1)


def _read_last_capability() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap", "rb") as last_cap_file:
            return int(last_cap_file.read().strip())
    except (OSError, ValueError):
        return 63


_LAST_CAPABILITY = _read_last_capability()  # read once in the zygote, before any fork


# Built once in the zygote, so that a forked child touches (and copies) as little as it can.
_HEADER = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
_NO_CAPABILITIES = (_CapData * 2)()
_READ_BACK = (_CapData * 2)()
_CAPSET = _libc.capset
_CAPGET = _libc.capget


def _capget() -> tuple[int, int, int]:
    _check(_CAPGET(ctypes.byref(_HEADER), _READ_BACK), "capget")
    low, high = _READ_BACK
    return (
        low.effective | high.effective << 32,
        low.permitted | high.permitted << 32,
        low.inheritable | high.inheritable << 32,
    )


def limit_future_privileges() -> bool:
    """Empty the bounding set and lock root's special cases; keep current capabilities.

    For the zygote, once: whatever it forks can then never gain a capability, not even by
    executing a program as uid 0 (``SECBIT_NOROOT``, locked). Returns whether it worked
    (it needs ``CAP_SETPCAP``).
    """
    try:
        _prctl(_PR_SET_SECUREBITS, _SECURE_NOROOT_LOCKED)
        for capability in range(_LAST_CAPABILITY + 1):
            _prctl(_PR_CAPBSET_DROP, capability)
    except OSError:
        return False
    return True


def drop_all_capabilities() -> None:
    """Drop every capability this process holds, for good.

    Clears the effective, permitted and inheritable sets (the ambient set, a subset of those,
    goes with them). ``no_new_privs`` and an empty bounding set come from the zygote
    (:func:`set_no_new_privs`, :func:`limit_future_privileges`), so no later execve can grant
    anything. Raises :class:`OSError` if any capability is still effective, permitted or
    inheritable.
    """
    _check(_CAPSET(ctypes.byref(_HEADER), _NO_CAPABILITIES), "capset")
    left = _capget()
    if any(left):
        raise OSError(1, f"capabilities survived the drop: {left}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str) -> None:
    result = _libc.mount(
        source.encode() if source is not None else None,
        target.encode(),
        fstype.encode() if fstype is not None else None,
        ctypes.c_ulong(flags),
        data.encode() if data else None,
    )
    _check(result, f"mount {target}")


def make_private_mounts() -> None:
    """Stop mount events propagating between this mount namespace and others."""
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE, "")


def mount_tmpfs(target: str, size_bytes: int) -> None:
    """Mount a fresh tmpfs of at most ``size_bytes`` on ``target``."""
    _mount("tmpfs", target, "tmpfs", _MS_NOSUID | _MS_NODEV, f"size={size_bytes},mode=0755")


def mount_bind(path: str, readonly: bool) -> None:
    """Bind ``path`` onto itself; read-only if asked (then even root inside cannot write it)."""
    _mount(path, path, None, _MS_BIND, "")
    if readonly:
        flags = _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV
        _mount(None, path, None, flags, "")


_PRESERVED_FLAGS = {
    "nosuid": _MS_NOSUID,
    "nodev": _MS_NODEV,
    "noexec": 8,
    "noatime": 1024,
    "nodiratime": 2048,
    "relatime": 1 << 21,
}


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda match: chr(int(match.group(1), 8)), field)


def remount_all_readonly() -> int:
    """Make every mount of this (private) mount namespace read-only; return how many failed.

    Mount flags that a less privileged namespace may not clear (nosuid, nodev, noexec, atime
    flags) are kept; read-only can always be added.
    """
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as mountinfo:
        mounts = [line.split() for line in mountinfo]
    failed = 0
    for fields in sorted(mounts, key=lambda f: len(f[4])):
        flags = _MS_BIND | _MS_REMOUNT | _MS_RDONLY
        for option in fields[5].split(","):
            flags |= _PRESERVED_FLAGS.get(option, 0)
        try:
            _mount(None, _unescape(fields[4]), None, flags, "")
        except OSError:
            failed += 1
    return failed


def umount_detach(path: str) -> None:
    """Lazily unmount ``path`` and everything mounted below it."""
    _check(_libc.umount2(path.encode(), ctypes.c_int(_MNT_DETACH)), f"umount {path}")


_UNSHARE = _libc.unshare  # bound once, not made anew (a ctypes function) in each spare child
_UNSHARE.argtypes = [ctypes.c_int]
_UNSHARE.restype = ctypes.c_int


def unshare(flags: int) -> None:
    """Move this process into new namespaces (``CLONE_NEWIPC``: a fresh IPC namespace)."""
    _check(_UNSHARE(flags), "unshare")


def setns(descriptor: int, nstype: int) -> None:
    """Enter the namespace that ``descriptor`` (an open ``/proc/PID/ns/...`` file) refers to."""
    _check(_libc.setns(ctypes.c_int(descriptor), ctypes.c_int(nstype)), "setns")


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class SeccompProgram:
    """A compiled classic-BPF seccomp filter, laid out in memory once, installed per process.

    Built before forking, so that installing it in a child is one ``prctl`` and touches no
    new pages. Installing needs ``no_new_privs`` (or ``CAP_SYS_ADMIN``); filters stack and
    are inherited across ``fork`` and ``execve``, and can never be removed.
    """

    def __init__(self, program: bytes) -> None:
        if not program or len(program) % 8 or len(program) // 8 > 4096:
            raise ValueError(f"not a seccomp program ({len(program)} bytes)")
        self._buffer = ctypes.create_string_buffer(program, len(program))
        self._fprog = _SockFprog(len(program) // 8, ctypes.addressof(self._buffer))
        self._address = ctypes.addressof(self._fprog)

    def install(self) -> None:
        """Apply the filter to this process (and everything it starts from now on)."""
        _prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, self._address)
