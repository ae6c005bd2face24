"""A strict, data-only binary codec for values that cross the sandbox boundary.

Only these exact types are encodable (subclasses are not): ``None``, ``bool``, ``int``,
``float`` (nan, inf and -0.0 survive bit for bit), ``str``, ``bytes``, ``list``, ``tuple``,
``dict`` with ``str`` or ``int`` keys, ``set`` and ``frozenset``. Every value carries a one-byte
type tag, so ``True`` and ``1``, ``1`` and ``1.0``, ``(1,)`` and ``[1]`` stay distinct.

The encoder runs inside the sandbox on objects the candidate made, so it never calls a method
of theirs: it dispatches on ``type(value) is ...``, which a class cannot fake, and iterates
builtin containers through the builtin type. Anything else raises :class:`UnencodableError`.

The decoder runs on the trusted side on bytes the sandbox sent, so it builds only builtin
objects, checks every length against the bytes that remain, and raises :class:`DecodeError`
(never anything else) on malformed input. Its cost is bounded whatever the bytes say: the
nesting depth (``max_depth``), the number of values weighted by what each costs to build
(``max_items``; a set or a dict costs more than an int), and hash collisions: a dict or set
whose keys share one hash value more than :data:`MAX_SAME_HASH` times, more than that many
distinct large ints (the only ints whose hashes can collide: ``hash(k * (2**61 - 1)) == 0``)
sharing a hash anywhere in the value, or a list or tuple with more than that many distinct
tuples, frozensets or rows of one hash, is refused instead of being built in quadratic time.

Handles: a reply to a request that may return a candidate object carries :class:`Handle`
(``H``) and :class:`ExceptionClass` (``E``) values, which have their own type tags. They are
encoded and decoded only when the caller says ``handles=True``; anywhere else a handle tag is
malformed input, so plain data (a dict that looks like a marker, an int) can never decode as
one.

Wire format: ``N`` None, ``T``/``F`` bools, ``i`` + u32 length + signed big-endian int,
``f`` + IEEE 754 double, ``s`` + u32 length + UTF-8 (surrogates passed through),
``b`` + u32 length + raw bytes, ``l``/``t``/``S``/``Z`` (list, tuple, set, frozenset) + u32 count
+ items, ``d`` + u32 count + key/value pairs; with handles, ``H`` + token (as ``b``) + type
name (as ``s``) and ``E`` + u32 count + names (each as ``s``).
"""

from __future__ import annotations

import operator
import struct
from collections.abc import Hashable
from typing import Any, TypeAlias, final

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_INT_BYTES",
    "DEFAULT_MAX_ITEMS",
    "MAX_SAME_HASH",
    "Data",
    "DecodeError",
    "ExceptionClass",
    "Handle",
    "UnencodableError",
    "decode",
    "encode",
    "encode_list_of",
]


@final
class Handle:
    """A candidate object that stays in the sandbox, named by an unguessable token.

    Only the sandboxed child makes these (for requests that may return an object), and the
    trusted side accepts them only in replies to such requests (``handles=True``).
    """

    __slots__ = ("token", "type_name")
    __hash__ = None  # type: ignore[assignment]  # never a set item or a dict key

    def __init__(self, token: bytes, type_name: str) -> None:
        self.token = token
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"Handle({self.type_name!r})"


@final
class ExceptionClass:
    """A candidate exception class, by its name and the builtin classes it derives from."""

    __slots__ = ("names",)
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names

    def __repr__(self) -> str:
        return f"ExceptionClass({self.names!r})"


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
    | Handle
    | ExceptionClass
    | None
)
"""A value the codec can carry. Dict keys are str or int; sets hold hashable data.

:class:`Handle` and :class:`ExceptionClass` appear only where ``handles=True`` was asked for.
"""

DEFAULT_MAX_DEPTH = 100
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_ITEMS = 1 << 20
"""Decoding budget: one unit per value, more for containers (see ``_COST``)."""
MAX_SAME_HASH = 8
"""At most this many keys of one dict or set (or large ints of one value) share a hash."""
DEFAULT_MAX_INT_BYTES = 1 << 17
"""Largest int decoded (a million bits, ~315,000 digits): arithmetic a test does on a
returned int stays cheap (a multiplication of two such ints takes milliseconds)."""
_MAX_HANDLE_NAMES = 8

_U32 = struct.Struct(">I")
_F64 = struct.Struct(">d")
_SEQUENCE_TAGS: dict[type, bytes] = {list: b"l", tuple: b"t", set: b"S", frozenset: b"Z"}


class UnencodableError(Exception):
    """A value is not plain data (a foreign type, a subclass, too deep or too large)."""


class DecodeError(Exception):
    """Bytes are not a well-formed encoding of plain data."""


def encode(
    value: object,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    handles: bool = False,
) -> bytes:
    """Encode plain data; raise :class:`UnencodableError` for anything else.

    With ``handles``, :class:`Handle` and :class:`ExceptionClass` values are encodable too.

    Example:
        >>> decode(encode({"a": (1, True, 1.5)}))
        {'a': (1, True, 1.5)}
    """
    encoder = _Encoder(max_bytes, max_depth, handles)
    encoder.add(value, 0)
    return bytes(encoder.out)


class _Encoder:
    def __init__(self, max_bytes: int, max_depth: int, handles: bool = False) -> None:
        self.out = bytearray()
        self.max_bytes = max_bytes
        self.max_depth = max_depth
        self.handles = handles

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
        elif kind is Handle and self.handles:
            handle: Handle = value  # type: ignore[assignment]
            token, type_name = handle.token, handle.type_name
            if type(token) is not bytes or type(type_name) is not str:
                raise UnencodableError("a handle's token or type name has the wrong type")
            self.out += b"H"
            self._add_blob(b"b", token)
            self._add_blob(b"s", str.encode(type_name, "utf-8", "surrogatepass"))
        elif kind is ExceptionClass and self.handles:
            names: tuple[object, ...] = value.names  # type: ignore[attr-defined]
            self.out += b"E" + _U32.pack(len(names))
            for name in names:
                if type(name) is not str:
                    raise UnencodableError("an exception class name is not a str")
                self.add(name, depth)
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


def encode_list_of(items: list[bytes], *, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The encoding of a list whose items were each encoded already (by :func:`encode`).

    Each item must have been encoded with ``max_depth`` one less than the list's reader
    allows, so that the list stays within it.
    """
    total = 5 + sum(len(item) for item in items)
    if total > max_bytes:
        raise UnencodableError(f"encoded value exceeds {max_bytes} bytes")
    return b"l" + _U32.pack(len(items)) + b"".join(items)


def decode(
    data: bytes,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_items: int = DEFAULT_MAX_ITEMS,
    max_int_bytes: int = DEFAULT_MAX_INT_BYTES,
    handles: bool = False,
) -> Data:
    """Decode bytes made by :func:`encode`; raise :class:`DecodeError` if malformed.

    Args:
        data: The encoded bytes (untrusted).
        max_depth: Deepest nesting accepted.
        max_items: Budget of values, weighted by their cost to build (a set costs 8, a dict
            4, a list or tuple 2, anything else 1).
        max_int_bytes: Largest int accepted, in encoded bytes.
        handles: Accept :class:`Handle` and :class:`ExceptionClass` values.
    """
    decoder = _Decoder(bytes(data), max_depth, max_items, handles, max_int_bytes)
    try:
        value = decoder.read(0)
    except (struct.error, UnicodeDecodeError, TypeError, OverflowError, MemoryError) as exc:
        raise DecodeError(f"malformed data: {type(exc).__name__}") from None
    except RecursionError:
        raise DecodeError("malformed data: nested too deeply for this interpreter") from None
    if decoder.pos != len(decoder.data):
        raise DecodeError("trailing bytes after the value")
    return value


_COST = {ord("S"): 8, ord("Z"): 8, ord("d"): 4, ord("l"): 2, ord("t"): 2}
_BIG_INT_BYTES = 8
"""Ints of fewer bytes are below 2**61 - 1 in magnitude: their hashes are themselves."""


class _Decoder:
    def __init__(
        self, data: bytes, max_depth: int, max_items: int, handles: bool, max_int_bytes: int
    ) -> None:
        self.data = data
        self.pos = 0
        self.max_depth = max_depth
        self.budget = max_items
        self.handles = handles
        self.big_hashes: dict[int, list[int]] = {}
        self.max_int_bytes = max_int_bytes

    def _length(self, min_item_bytes: int) -> int:
        pos = self.pos
        (count,) = _U32.unpack_from(self.data, pos)  # struct.error when truncated
        pos += 4
        self.pos = pos
        if count * min_item_bytes > len(self.data) - pos:
            raise DecodeError("length exceeds the remaining data")
        return int(count)

    def _blob(self) -> bytes:
        size = self._length(1)
        start = self.pos
        self.pos = start + size
        return self.data[start : start + size]

    def read(self, depth: int) -> Data:
        data = self.data
        pos = self.pos
        if pos >= len(data):
            raise DecodeError("truncated data")
        tag = data[pos]
        self.pos = pos + 1
        self.budget -= _COST.get(tag, 1)
        if self.budget < 0:
            raise DecodeError("too many values to decode (a decoding budget)")
        if tag == 78:  # N
            return None
        if tag == 84:  # T
            return True
        if tag == 70:  # F
            return False
        if tag == 105:  # i
            raw = self._blob()
            if len(raw) > self.max_int_bytes:
                raise DecodeError(f"an int of more than {self.max_int_bytes * 8} bits")
            number = int.from_bytes(raw, "big", signed=True)
            if len(raw) >= _BIG_INT_BYTES:
                self._count_big(number)
            return number
        if tag == 102:  # f
            (number_f,) = _F64.unpack_from(data, self.pos)
            self.pos += 8
            return float(number_f)
        if tag == 115:  # s
            return self._blob().decode("utf-8", "surrogatepass")
        if tag == 98:  # b
            return self._blob()
        if depth >= self.max_depth:
            raise DecodeError(f"nesting deeper than {self.max_depth}")
        if tag == 108:  # l
            items = [self.read(depth + 1) for _ in range(self._length(1))]
            if len(items) > _FEW:
                _refuse_crafted_items(items)
            return items
        if tag == 116:  # t
            items = [self.read(depth + 1) for _ in range(self._length(1))]
            if len(items) > _FEW:
                _refuse_crafted_items(items)
            return tuple(items)
        if tag == 100:  # d
            return self._read_dict(depth + 1)
        if tag in {83, 90}:  # S, Z
            items = [self.read(depth + 1) for _ in range(self._length(1))]
            return _build_set(tag, items)
        if tag == 72 and self.handles:  # H
            token, type_name = self.read(depth + 1), self.read(depth + 1)
            if type(token) is not bytes or type(type_name) is not str:
                raise DecodeError("malformed handle")
            return Handle(token, type_name)
        if tag == 69 and self.handles:  # E
            names = [self.read(depth + 1) for _ in range(self._length(1))]
            if not names or any(type(n) is not str for n in names):
                raise DecodeError("malformed exception class")
            return ExceptionClass(tuple(names[:_MAX_HANDLE_NAMES]))  # type: ignore[arg-type]
        if tag in {72, 69}:
            raise DecodeError("a handle where only plain data may appear")
        raise DecodeError(f"unknown type tag {bytes([tag])!r}")

    def _count_big(self, number: int) -> None:
        """Refuse more than :data:`MAX_SAME_HASH` distinct large ints of one hash value.

        Repeats of one value share its hash honestly (``[10**18] * n``, a table's infinity).
        """
        key = hash(number)  # a hash value is below 2**63: as a key it collides only mod 2**61-1
        seen = self.big_hashes.get(key)
        if seen is None:
            self.big_hashes[key] = [number]
        elif number not in seen:
            if len(seen) >= MAX_SAME_HASH:
                raise DecodeError("too many large ints share one hash value (a collision attack)")
            seen.append(number)

    def _read_dict(self, depth: int) -> Data:
        count = self._length(2)
        keys: list[str | int] = []
        values: list[Data] = []
        for _ in range(count):
            key = self.read(depth)
            if type(key) is not str and type(key) is not int:
                raise DecodeError("dict key is not str or int")
            keys.append(key)
            values.append(self.read(depth))
        if count > _FEW:
            _refuse_collisions(keys)
        result = dict(zip(keys, values, strict=True))
        if len(result) != count:
            raise DecodeError("duplicate dict key")
        return result


_FEW = 64
"""Containers this small cannot cost much however their hashes collide (64**2 probes)."""


def _refuse_collisions(items: list[Any]) -> None:
    """Refuse items of which more than :data:`MAX_SAME_HASH` share one hash value.

    Sorting the hashes (not counting them in a dict) keeps the check itself free of
    collisions; an unhashable item raises ``TypeError`` (malformed input).
    """
    hashes = sorted(map(hash, items))
    if any(map(operator.eq, hashes, hashes[MAX_SAME_HASH:])):
        raise DecodeError("too many keys share one hash value (a collision attack)")


def _refuse_crafted_items(items: list[Any]) -> None:
    """Refuse a list or tuple of which more than :data:`MAX_SAME_HASH` distinct tuples,
    frozensets or lists (read as tuples) share one hash value.

    A test may put a returned sequence's items in a set (``set(result)``, ``{tuple(row)
    for row in result}``). CPython's tuple and frozenset hashes are not randomised for ints,
    so an answer can craft any number of distinct ones with one hash, which such a set takes
    quadratic time to build. Repeats of one item share its hash honestly and pass; so do
    strings and bytes (their hashes are randomised), floats (a few dozen at most can share a
    hash) and ints (large ones are counted wherever they are, :meth:`_Decoder._count_big`).
    """
    keyed: list[tuple[int, Any]] = []
    for item in items:
        kind = type(item)
        if kind is tuple or kind is frozenset or kind is list:
            try:
                key = tuple(item) if kind is list else item
                keyed.append((hash(key), key))
            except TypeError:  # it holds a list, a dict or a set: no set can take it
                continue
    keyed.sort(key=operator.itemgetter(0))  # sorted by hash: no dict of attacker's keys
    hashes = [value for value, _ in keyed]
    if not any(map(operator.eq, hashes, hashes[MAX_SAME_HASH:])):
        return
    start = 0
    while start < len(keyed):
        end = start + 1
        while end < len(keyed) and hashes[end] == hashes[start]:
            end += 1
        if end - start > MAX_SAME_HASH:
            distinct: list[Any] = []
            for _, key in keyed[start:end]:
                if key not in distinct:
                    distinct.append(key)
                    if len(distinct) > MAX_SAME_HASH:
                        raise DecodeError(
                            "too many distinct items share one hash value (a collision attack)"
                        )
        start = end


def _build_set(tag: int, items: list[Data]) -> Data:
    if len(items) > _FEW:
        _refuse_collisions(items)
    return set(items) if tag == 83 else frozenset(items)  # type: ignore[arg-type]
