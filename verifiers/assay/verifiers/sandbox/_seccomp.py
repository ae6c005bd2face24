"""The sandbox's seccomp filters: system calls that graded code never needs, denied.

Two classic-BPF programs are compiled once per process on the trusted side with libseccomp
(through ``pyseccomp``, a ctypes binding; Debian's ``libseccomp2``) and sent to each zygote in
its configuration:

* ``zygote``: installed by the zygote on itself once its mounts are set up, so it binds the
  zygote, the template and every run (filters are inherited and cannot be removed);
* ``run``: installed by the template (the process that forks every run child) on itself, so
  every run child has it from its first instruction, adding the calls the zygote itself still
  needs (``mount``/``umount2`` for the scratch area, ``setns`` to measure a run's IPC memory,
  ``unshare``), except ``unshare(CLONE_NEWIPC)`` alone: a fresh spare child moves into its own
  IPC namespace with it while it still holds its capabilities, then drops them all, after
  which the kernel refuses that call too (``EPERM``: no ``CAP_SYS_ADMIN``, an empty bounding
  set, ``no_new_privs``). Installed once per template instead of once per child, it saves
  each run ~0.13 ms (docs/code.md, "Measured").

A denied call fails with ``EPERM`` (``clone3`` with ``ENOSYS``, so that the C library falls
back to ``clone``, whose namespace flags the filter can see). A system call of another
architecture (x32, or i386 through ``int 0x80``) kills the process. docs/code.md lists the
families.
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import tempfile
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ALWAYS_DENIED", "NAMESPACE_FLAGS", "RUN_DENIED", "UNSUPPORTED", "SeccompPrograms", "programs",
]  # fmt: skip

log = logging.getLogger(__name__)

ALWAYS_DENIED: dict[str, tuple[str, ...]] = {
    "io_uring": ("io_uring_setup", "io_uring_enter", "io_uring_register"),
    "keyrings": ("keyctl", "add_key", "request_key"),
    "ptrace": (
        "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_getfd",
        "kcmp",
    ),
    "bpf": ("bpf",),
    "perf": ("perf_event_open",),
    "kernel modules and kexec": (
        "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    ),
    "userfaultfd": ("userfaultfd",),
    "personality": ("personality",),
    "new mount API and root changes": (
        "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
        "pivot_root", "chroot",
    ),
    "file handles": ("open_by_handle_at", "name_to_handle_at"),
    "system administration": (
        "reboot", "swapon", "swapoff", "acct", "syslog", "quotactl", "quotactl_fd", "vhangup",
        "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "iopl", "ioperm",
        "lookup_dcookie", "uselib", "fanotify_init", "memfd_secret",
    ),
    "NUMA page moves": ("move_pages", "migrate_pages"),
}  # fmt: skip
"""Denied to everything in the sandbox, the zygote included, by family."""

RUN_DENIED: dict[str, tuple[str, ...]] = {
    "mount": ("mount", "umount2"),
    "namespaces": ("unshare", "setns"),
}
"""Denied to run children only (the zygote needs them between runs)."""

UNSUPPORTED: dict[str, tuple[str, ...]] = {
    "extended attributes": ("setxattr", "lsetxattr", "fsetxattr", "setxattrat"),
}
"""Denied to everything in the sandbox with ``EOPNOTSUPP``, as a file system without them
answers (so ``shutil.copy2`` and the like go on): tmpfs keeps extended attributes (POSIX ACLs
among them) in kernel memory that no size limit counts, and on the mount roots they outlived
the run, a channel to the next sample."""

NAMESPACE_FLAGS = 0x7E020080
"""CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME: ``clone``
with any of them is denied everywhere."""


@dataclass(frozen=True, slots=True)
class SeccompPrograms:
    """The two compiled filters (raw ``struct sock_filter`` arrays) and what they deny."""

    zygote: bytes
    run: bytes
    denied: tuple[str, ...]


CLONE_NEWIPC = 0x08000000
"""The one ``unshare`` the run filter lets through (see the module docstring)."""


def _compile(names: list[str], sc: Any) -> tuple[bytes, list[str]]:
    """One filter: allow by default, ``EPERM`` for ``names`` (``unshare`` but for exactly
    ``CLONE_NEWIPC``) and namespace-creating clones, ``EOPNOTSUPP`` for :data:`UNSUPPORTED`."""
    syscall_filter = sc.SyscallFilter(sc.ALLOW)
    added: list[str] = []
    unsupported = [(name, errno.EOPNOTSUPP) for family in UNSUPPORTED.values() for name in family]
    for name, code in [*((name, errno.EPERM) for name in names), *unsupported]:
        condition = [sc.Arg(0, sc.NE, CLONE_NEWIPC)] if name == "unshare" else []
        try:
            syscall_filter.add_rule(sc.ERRNO(code), name, *condition)
        except (RuntimeError, ValueError, OSError):  # not a system call of this architecture
            continue
        added.append(name)
    syscall_filter.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    for bit in range(32):
        flag = 1 << bit
        if NAMESPACE_FLAGS & flag:
            rule = sc.Arg(0, sc.MASKED_EQ, flag, flag)
            syscall_filter.add_rule(sc.ERRNO(errno.EPERM), "clone", rule)
    with tempfile.TemporaryFile() as out:
        syscall_filter.export_bpf(out)
        out.seek(0)
        return out.read(), added


@functools.lru_cache(maxsize=1)
def programs() -> SeccompPrograms | None:
    """The compiled filters, or ``None`` (logged loudly) where libseccomp is unavailable."""
    if os.uname().sysname != "Linux":
        return None
    try:
        import pyseccomp
    except (ImportError, OSError) as exc:  # the binding, or libseccomp.so.2, is missing
        log.warning("no seccomp filter for the code sandbox (install libseccomp2): %s", exc)
        return None
    always = [name for family in ALWAYS_DENIED.values() for name in family]
    run_only = [name for family in RUN_DENIED.values() for name in family]
    zygote, _ = _compile(always, pyseccomp)
    run, added_run = _compile(always + run_only, pyseccomp)
    return SeccompPrograms(zygote, run, tuple(added_run))
