"""Length-prefixed frames over pipes and sockets: a 4-byte big-endian size, then the payload."""

from __future__ import annotations

import os
import struct

__all__ = ["HEADER_SIZE", "FrameBuffer", "FrameError", "pack_frame", "read_frame", "write_all"]

_HEADER = struct.Struct(">I")
HEADER_SIZE = _HEADER.size


class FrameError(Exception):
    """A frame is larger than allowed, or the stream ended inside a frame."""


def pack_frame(payload: bytes) -> bytes:
    """Prefix ``payload`` with its length."""
    return _HEADER.pack(len(payload)) + payload


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to a blocking file descriptor."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_exact(fd: int, size: int) -> bytes | None:
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            if remaining == size:
                return None
            raise FrameError("stream ended inside a frame")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, max_size: int) -> bytes | None:
    """Read one frame from a blocking descriptor; ``None`` at a clean end of stream."""
    header = _read_exact(fd, HEADER_SIZE)
    if header is None:
        return None
    (size,) = _HEADER.unpack(header)
    if size > max_size:
        raise FrameError(f"frame of {size} bytes exceeds {max_size}")
    payload = _read_exact(fd, size) if size else b""
    if payload is None:
        raise FrameError("stream ended inside a frame")
    return payload


class FrameBuffer:
    """Reassemble frames from chunks read off a non-blocking descriptor."""

    def __init__(self, max_size: int) -> None:
        self._buffer = bytearray()
        self._max_size = max_size

    def feed(self, chunk: bytes) -> None:
        """Append bytes; raise :class:`FrameError` as soon as a frame is known to be too big."""
        self._buffer += chunk
        if len(self._buffer) >= HEADER_SIZE:
            (size,) = _HEADER.unpack_from(self._buffer)
            if size > self._max_size:
                raise FrameError(f"frame of {size} bytes exceeds {self._max_size}")

    def pop(self) -> bytes | None:
        """Return the first complete frame's payload, if one has arrived."""
        if len(self._buffer) < HEADER_SIZE:
            return None
        (size,) = _HEADER.unpack_from(self._buffer)
        end = HEADER_SIZE + size
        if len(self._buffer) < end:
            return None
        payload = bytes(self._buffer[HEADER_SIZE:end])
        del self._buffer[:end]
        self.feed(b"")
        return payload

    def ready(self) -> bool:
        """Whether a complete frame is waiting to be popped."""
        if len(self._buffer) < HEADER_SIZE:
            return False
        (size,) = _HEADER.unpack_from(self._buffer)
        return len(self._buffer) >= HEADER_SIZE + int(size)
