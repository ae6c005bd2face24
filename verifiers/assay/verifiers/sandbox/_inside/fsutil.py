"""File helpers for the scratch directory: safe relative names, writing, reading back, wiping."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Mapping

__all__ = [
    "PathError",
    "read_beneath",
    "split_relative_path",
    "wipe_contents",
    "write_files",
]

_MAX_NAME_LENGTH = 4096


class PathError(ValueError):
    """A file name is not a plain relative path (absolute, ``..``, empty part, NUL)."""


def split_relative_path(name: str) -> tuple[str, ...]:
    """Split ``a/b.py`` into its parts; raise :class:`PathError` unless it stays below the root."""
    if not name or len(name) > _MAX_NAME_LENGTH or "\x00" in name or name.startswith("/"):
        raise PathError(f"not a relative file name: {name!r}")
    parts = tuple(name.split("/"))
    if any(part in ("", ".", "..") for part in parts):
        raise PathError(f"not a plain relative file name: {name!r}")
    return parts


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, onerror=_make_writable_and_retry)
    else:
        os.unlink(path)


def _make_writable_and_retry(function: object, path: str, _exc_info: object) -> None:
    """``rmtree`` error hook: give the owner write access, retry once, let a second error out."""
    os.chmod(os.path.dirname(path), stat.S_IRWXU)
    if function is os.rmdir or function is os.unlink:
        os.rmdir(path) if function is os.rmdir else os.unlink(path)
    else:
        os.chmod(path, stat.S_IRWXU)
        shutil.rmtree(path)


def write_files(root: str, files: Mapping[str, bytes], mode: int) -> list[str]:
    """Write ``files`` below ``root``, replacing whatever is in the way; return their paths.

    A file replaces an existing file or directory of the same name, and a directory needed on
    the way replaces a file of that name: files written later win over files written earlier.
    """
    written: list[str] = []
    for name, content in files.items():
        parts = split_relative_path(name)
        directory = root
        for part in parts[:-1]:
            directory = os.path.join(directory, part)
            if os.path.lexists(directory) and not os.path.isdir(directory):
                _remove(directory)
            if not os.path.lexists(directory):
                os.mkdir(directory, 0o755)
        path = os.path.join(directory, parts[-1])
        if os.path.lexists(path):
            _remove(path)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            view = memoryview(content)
            while view:
                view = view[os.write(descriptor, view) :]
            os.fchmod(descriptor, mode)
        finally:
            os.close(descriptor)
        written.append(path)
    return written


def read_beneath(root: str, name: str, max_bytes: int) -> tuple[bytes, bool] | None:
    """Read a regular file below ``root`` without following any symlink on the way.

    Returns the first ``max_bytes`` bytes and whether the file was longer, or ``None`` when the
    name is missing, not a regular file, or reached through a symlink.
    """
    parts = split_relative_path(name)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        directory = os.open(root, flags | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        for part in parts[:-1]:
            inner = os.open(part, flags | os.O_DIRECTORY, dir_fd=directory)
            os.close(directory)
            directory = inner
        descriptor = os.open(parts[-1], flags | os.O_NONBLOCK, dir_fd=directory)
    except OSError:
        return None
    finally:
        os.close(directory)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        chunks: list[bytes] = []
        remaining = max_bytes + 1
        while remaining > 0:
            chunk = os.read(descriptor, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    data = b"".join(chunks)
    return data[:max_bytes], len(data) > max_bytes


def wipe_contents(directory: str) -> None:
    """Delete everything inside ``directory`` (not the directory itself), whatever its modes,
    and set its times back to a fixed point, so that nothing a run set on the directory
    (its mode, its times) reaches the next run (extended attributes and ACLs cannot be set:
    the seccomp filters refuse them)."""
    os.chmod(directory, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    for entry in os.listdir(directory):
        _remove(os.path.join(directory, entry))
    os.utime(directory, ns=(WIPED_TIME_NS, WIPED_TIME_NS))


WIPED_TIME_NS = 1_700_000_000 * 10**9
"""The access and modification time of a wiped directory (2023-11-14, any fixed point)."""
