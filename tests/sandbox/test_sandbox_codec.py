"""The data-only codec: what crosses the sandbox boundary, and what must not."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

import pytest
from assay.verifiers.sandbox import (
    Data,
    DecodeError,
    UnencodableError,
    decode,
    encode,
    strict_equal,
)


class AlwaysEqual:
    """The classic reward hack: equal to every expected answer."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0


class Text(str):
    """A str subclass could override __eq__ or __hash__; only exact str is data."""


class Number(int):
    """An int subclass could lie in comparisons; only exact int is data."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0


def _cycle() -> list[object]:
    items: list[object] = []
    items.append(items)
    return items


def _deep(levels: int) -> list[object]:
    value: list[object] = []
    for _ in range(levels):
        value = [value]
    return value


def _diamond(levels: int) -> list[object]:
    value: list[object] = [0]
    for _ in range(levels):
        value = [value, value]
    return value


ROUND_TRIPS: list[tuple[str, Data]] = [
    ("none", None),  # None has its own tag
    ("true", True),  # bools keep their type: True is not 1
    ("false", False),
    ("zero", 0),
    ("negative", -1),
    ("huge-int", 2**200 + 1),  # beyond 64 bits and beyond the 4300-digit str limit's reach
    ("huge-negative-int", -(2**200)),
    ("float", 1.5),
    ("negative-zero", -0.0),  # sign of zero survives
    ("inf", math.inf),
    ("minus-inf", -math.inf),
    ("str", "héllo ☃"),
    ("lone-surrogate", "\ud800"),  # not valid UTF-8, still a str Python can hold
    ("bytes", b"\x00\xff"),
    ("empty-list", []),
    ("list", [1, "a", None]),
    ("tuple", (1, (2, 3))),  # tuples stay tuples
    ("dict-str-keys", {"a": 1, "b": [2]}),
    ("dict-int-keys", {1: "a", -2: "b"}),
    ("set", {1, 2, 3}),
    ("frozenset", frozenset({"a", (1, 2)})),
    ("nested", {"rows": [(1, 2.5, True), (3, -0.0, False)], "tags": {frozenset({1})}}),
]


@pytest.mark.parametrize(
    ("value"), [value for _, value in ROUND_TRIPS], ids=[n for n, _ in ROUND_TRIPS]
)
def test_round_trip_keeps_value_and_exact_types(value: Data) -> None:
    back = decode(encode(value))
    assert strict_equal(back, value)
    assert type(back) is type(value)


def test_nan_round_trips_bit_for_bit() -> None:
    # a NaN payload is data too; compare bits because nan != nan
    value = struct.unpack(">d", bytes.fromhex("7ff8000000000bad"))[0]
    back = decode(encode(value))
    assert isinstance(back, float)
    assert struct.pack(">d", back) == struct.pack(">d", value)


@pytest.mark.parametrize(
    ("left", "right"),
    [(True, 1), (1, 1.0), ((1,), [1]), ({1}, frozenset({1})), ("1", b"1")],
    ids=["bool-vs-int", "int-vs-float", "tuple-vs-list", "set-vs-frozenset", "str-vs-bytes"],
)
def test_look_alikes_encode_differently(left: Data, right: Data) -> None:
    # Python says these are (mostly) equal; the wire format must not
    assert encode(left) != encode(right)


UNENCODABLE: list[tuple[str, Callable[[], object]]] = [
    ("always-equal", AlwaysEqual),  # __eq__ always True: the reward hack this codec exists for
    ("str-subclass", lambda: Text("a")),  # a subclass could override comparison
    ("int-subclass", lambda: Number(3)),
    ("object", object),
    ("function", lambda: len),
    ("generator", lambda: (i for i in range(3))),
    ("bytearray", lambda: bytearray(b"x")),  # mutable cousin of bytes: not in the contract
    ("complex", lambda: 1j),
    ("tuple-key", lambda: {(1, 2): 3}),  # dict keys are str or int only
    ("bool-key", lambda: {True: 1}),  # would collide with the int key 1
    ("hidden-in-list", lambda: [1, [2, AlwaysEqual()]]),  # found however deep it hides
    ("hidden-in-set", lambda: {1, AlwaysEqual()}),
    ("cycle", _cycle),  # a list that contains itself
    ("too-deep", lambda: _deep(1000)),
    ("exponential-diamond", lambda: _diamond(64)),  # 2**64 leaves: stopped by the size cap
]


@pytest.mark.parametrize("make", [m for _, m in UNENCODABLE], ids=[n for n, _ in UNENCODABLE])
def test_non_data_is_unencodable(make: Callable[[], object]) -> None:
    with pytest.raises(UnencodableError):
        encode(make(), max_bytes=1 << 20)


def test_size_cap_applies_to_one_big_string() -> None:
    # a single huge value is refused before it is copied
    with pytest.raises(UnencodableError):
        encode("x" * 2000, max_bytes=1000)


MALFORMED: list[tuple[str, bytes]] = [
    ("empty", b""),  # nothing at all
    ("unknown-tag", b"X"),
    ("truncated-int", b"i\x00\x00\x00\x08\x01"),  # says 8 bytes, has 1
    ("length-beyond-data", b"s\xff\xff\xff\xffab"),  # a 4 GiB string in 2 bytes
    ("count-beyond-data", b"l\xff\xff\xff\xff"),  # must not preallocate 4 billion items
    ("trailing-bytes", b"NN"),
    ("unhashable-in-set", b"S\x00\x00\x00\x01l\x00\x00\x00\x00"),  # a list inside a set
    ("list-as-dict-key", b"d\x00\x00\x00\x01l\x00\x00\x00\x00N"),
    ("float-as-dict-key", b"d\x00\x00\x00\x01f" + struct.pack(">d", 1.0) + b"N"),
    ("duplicate-dict-key", b"d\x00\x00\x00\x02s\x00\x00\x00\x01aNs\x00\x00\x00\x01aN"),
    ("bad-utf8", b"s\x00\x00\x00\x01\xff"),
    ("too-deep", b"l\x00\x00\x00\x01" * 200 + b"N"),
]


@pytest.mark.parametrize("data", [d for _, d in MALFORMED], ids=[n for n, _ in MALFORMED])
def test_malformed_bytes_raise_decode_error_only(data: bytes) -> None:
    with pytest.raises(DecodeError):
        decode(data)


@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        ({"a": [1, 2.0]}, {"a": [1, 2.0]}, True),  # same data
        (True, 1, False),  # bool answer for an int question
        (1, 1.0, False),  # float answer for an int question
        ([1, 2], (1, 2), False),  # tuple answer for a list question
        (math.nan, math.nan, True),  # nan matches nan here, unlike ==
        (0.0, -0.0, True),  # as ==
        ({1}, {1}, True),  # Python already collapsed {1, True} to {1}
        ({"k": True}, {"k": 1}, False),  # found inside containers too
        ({frozenset({1})}, {frozenset({True})}, False),
    ],
    ids=[
        "same", "bool-vs-int", "float-vs-int", "tuple-vs-list", "nan", "signed-zero",
        "collapsed-set", "nested-bool", "nested-frozenset",
    ],
)  # fmt: skip
def test_strict_equal(left: Data, right: Data, equal: bool) -> None:
    assert strict_equal(left, right) is equal
