"""A strict, data-only binary codec for values that cross the sandbox boundary.

Only these exact types are encodable (subclasses are not): ``None``, ``bool``, ``int``,
``float`` (nan, inf and -0.0 survive bit for bit), ``str``, ``bytes``, ``list``, ``tuple``,
``dict`` with ``str`` or ``int`` keys, ``set`` and ``frozenset``. Every value carries a one-byte
type tag, so ``True`` and ``1``, ``1`` and ``1.0``, ``(1,)`` and ``[1]`` stay distinct.

The encoder runs inside the sandbox on objects the candidate made, so it never calls a method
of theirs: it dispatches on ``type(value) is ...``, which a class cannot fake, and iterates
builtin containers through the builtin type. Anything else raises :class:`UnencodableError`.

The decoder runs on the trusted side on bytes the sandbox sent, so it builds only builtin
objects, checks every length against the bytes that remain, bounds the nesting depth, and
raises :class:`DecodeError` (never anything else) on malformed input.

Wire format: ``N`` None, ``T``/``F`` bools, ``i`` + u32 length + signed big-endian int,
``f`` + IEEE 754 double, ``s`` + u32 length + UTF-8 (surrogates passed through),
``b`` + u32 length + raw bytes, ``l``/``t``/``S``/``Z`` (list, tuple, set, frozenset) + u32 count
+ items, ``d`` + u32 count + key/value pairs.
"""

from __future__ import annotations

import struct
from collections.abc import Hashable
from typing import Any, TypeAlias

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "Data",
    "DecodeError",
    "UnencodableError",
    "decode",
    "encode",
]

Data: TypeAlias = (
    bool
    | int
    | float
    | str
    | bytes
    | list["Data"]
    | tuple["Data", ...]
    | dict[Any, "Data"]
    | set[Hashable]
    | frozenset[Hashable]
    | None
)
"""A value the codec can carry. Dict keys are str or int; sets hold hashable data."""

DEFAULT_MAX_DEPTH = 100
DEFAULT_MAX_BYTES = 64 * 1024 * 1024

_U32 = struct.Struct(">I")
_F64 = struct.Struct(">d")
_SEQUENCE_TAGS: dict[type, bytes] = {list: b"l", tuple: b"t", set: b"S", frozenset: b"Z"}
_SIMPLE: dict[bytes, Data] = {b"N": None, b"T": True, b"F": False}


class UnencodableError(Exception):
    """A value is not plain data (a foreign type, a subclass, too deep or too large)."""


class DecodeError(Exception):
    """Bytes are not a well-formed encoding of plain data."""


def encode(
    value: object, *, max_bytes: int = DEFAULT_MAX_BYTES, max_depth: int = DEFAULT_MAX_DEPTH
) -> bytes:
    """Encode plain data; raise :class:`UnencodableError` for anything else.

    Example:
        >>> decode(encode({"a": (1, True, 1.5)}))
        {'a': (1, True, 1.5)}
    """
    encoder = _Encoder(max_bytes, max_depth)
    encoder.add(value, 0)
    return bytes(encoder.out)


class _Encoder:
    def __init__(self, max_bytes: int, max_depth: int) -> None:
        self.out = bytearray()
        self.max_bytes = max_bytes
        self.max_depth = max_depth

    def _check_size(self) -> None:
        if len(self.out) > self.max_bytes:
            raise UnencodableError(f"encoded value exceeds {self.max_bytes} bytes")

    def add(self, value: object, depth: int) -> None:
        kind = type(value)
        out = self.out
        if value is None:
            out += b"N"
        elif kind is bool:
            out += b"T" if value else b"F"
        elif kind is int and isinstance(value, int):
            size = (value.bit_length() + 8) // 8
            if size > self.max_bytes:
                raise UnencodableError(f"encoded value exceeds {self.max_bytes} bytes")
            out += b"i" + _U32.pack(size) + int.to_bytes(value, size, "big", signed=True)
        elif kind is float:
            out += b"f" + _F64.pack(value)
        elif kind is str and isinstance(value, str):
            self._add_blob(b"s", str.encode(value, "utf-8", "surrogatepass"))
        elif kind is bytes and isinstance(value, bytes):
            self._add_blob(b"b", value)
        elif kind in _SEQUENCE_TAGS:
            self._add_items(_SEQUENCE_TAGS[kind], list(value), depth)  # type: ignore[call-overload]
        elif kind is dict:
            self._add_dict(list(dict.items(value)), depth)  # type: ignore[arg-type]
        else:
            raise UnencodableError(f"type {_type_name(kind)} is not plain data")

    def _add_blob(self, tag: bytes, raw: bytes) -> None:
        if len(raw) > self.max_bytes:
            raise UnencodableError(f"encoded value exceeds {self.max_bytes} bytes")
        self.out += tag + _U32.pack(len(raw))
        self.out += raw
        self._check_size()

    def _enter(self, depth: int) -> int:
        if depth >= self.max_depth:
            raise UnencodableError(f"nesting deeper than {self.max_depth} (or a cycle)")
        return depth + 1

    def _add_items(self, tag: bytes, items: list[object], depth: int) -> None:
        inner = self._enter(depth)
        self.out += tag + _U32.pack(len(items))
        for item in items:
            self.add(item, inner)
        self._check_size()  # every container checks: shared sub-lists cannot blow up unseen

    def _add_dict(self, pairs: list[tuple[object, object]], depth: int) -> None:
        inner = self._enter(depth)
        self.out += b"d" + _U32.pack(len(pairs))
        for key, item in pairs:
            if type(key) is not str and type(key) is not int:
                raise UnencodableError(f"dict key of type {_type_name(type(key))}")
            self.add(key, inner)
            self.add(item, inner)
        self._check_size()


def _type_name(kind: type) -> str:
    name = type.__dict__["__qualname__"].__get__(kind)
    return name if type(name) is str else "?"


def decode(data: bytes, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Data:
    """Decode bytes made by :func:`encode`; raise :class:`DecodeError` if malformed."""
    decoder = _Decoder(bytes(data), max_depth)
    try:
        value = decoder.read(0)
    except (struct.error, UnicodeDecodeError, TypeError, OverflowError, MemoryError) as exc:
        raise DecodeError(f"malformed data: {type(exc).__name__}") from None
    if decoder.pos != len(decoder.data):
        raise DecodeError("trailing bytes after the value")
    return value


class _Decoder:
    def __init__(self, data: bytes, max_depth: int) -> None:
        self.data = data
        self.pos = 0
        self.max_depth = max_depth

    def _take(self, size: int) -> bytes:
        end = self.pos + size
        if end > len(self.data):
            raise DecodeError("truncated data")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def _length(self, min_item_bytes: int) -> int:
        (count,) = _U32.unpack(self._take(4))
        if count * min_item_bytes > len(self.data) - self.pos:
            raise DecodeError("length exceeds the remaining data")
        return int(count)

    def read(self, depth: int) -> Data:
        tag = self._take(1)
        if tag in _SIMPLE:
            return _SIMPLE[tag]
        if tag == b"i":
            return int.from_bytes(self._take(self._length(1)), "big", signed=True)
        if tag == b"f":
            return float(_F64.unpack(self._take(8))[0])
        if tag == b"s":
            return self._take(self._length(1)).decode("utf-8", "surrogatepass")
        if tag == b"b":
            return self._take(self._length(1))
        if depth >= self.max_depth:
            raise DecodeError(f"nesting deeper than {self.max_depth}")
        if tag == b"d":
            return self._read_dict(depth + 1)
        if tag in (b"l", b"t", b"S", b"Z"):
            items = [self.read(depth + 1) for _ in range(self._length(1))]
            return _build_sequence(tag, items)
        raise DecodeError(f"unknown type tag {tag!r}")

    def _read_dict(self, depth: int) -> Data:
        result: dict[str | int, Data] = {}
        for _ in range(self._length(2)):
            key = self.read(depth)
            if type(key) is not str and type(key) is not int:
                raise DecodeError("dict key is not str or int")
            if key in result:
                raise DecodeError("duplicate dict key")
            result[key] = self.read(depth)
        return result


def _build_sequence(tag: bytes, items: list[Data]) -> Data:
    if tag == b"l":
        return items
    if tag == b"t":
        return tuple(items)
    try:
        return set(items) if tag == b"S" else frozenset(items)  # type: ignore[arg-type]
    except TypeError:
        raise DecodeError("unhashable item in a set") from None
