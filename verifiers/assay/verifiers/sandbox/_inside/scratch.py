"""The per-run scratch area inside the sandbox, and the read-only protection of test files."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping

from . import fsutil, privileges

__all__ = ["Scratch"]


class Scratch:
    """The per-run working area: ``<root>/work`` is the run's cwd and HOME, ``<root>`` TMPDIR."""

    def __init__(self, root: str, can_mount: bool, extra_wipe: list[str]) -> None:
        self.root = root
        self.work = os.path.join(root, "work")
        self.can_mount = can_mount
        self.extra_wipe = extra_wipe
        self.mounts: list[str] = []

    def prepare(self, files: Mapping[str, bytes], readonly: Mapping[str, bytes]) -> None:
        """Create a fresh work dir with ``files``, then ``readonly`` files over them.

        Read-only files are mode 0444 and, where the zygote may mount, read-only bind mounts
        (their directories are bind mounts too), so they cannot be changed, deleted or renamed
        away even by uid 0 inside the sandbox.
        """
        if os.listdir(self.root):
            fsutil.wipe_contents(self.root)
        os.mkdir(self.work, 0o755)
        fsutil.write_files(self.work, files, 0o644)
        protected = fsutil.write_files(self.work, readonly, 0o444)
        if not (self.can_mount and protected):
            return
        directories = {self.work}
        for path in protected:
            parent = os.path.dirname(path)
            while parent.startswith(self.work):
                directories.add(parent)
                parent = os.path.dirname(parent)
        for directory in sorted(directories, key=lambda name: name.count("/")):
            privileges.mount_bind(directory, readonly=False)
            self.mounts.append(directory)
        for path in protected:
            privileges.mount_bind(path, readonly=True)
            self.mounts.append(path)

    def clean(self) -> None:
        """Unmount what :meth:`prepare` mounted and delete everything in the scratch area."""
        for path in reversed(self.mounts):
            with contextlib.suppress(OSError):
                privileges.umount_detach(path)
        self.mounts.clear()
        fsutil.wipe_contents(self.root)
        for directory in self.extra_wipe:
            with contextlib.suppress(OSError):
                fsutil.wipe_contents(directory)
