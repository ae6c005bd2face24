"""Type-exact comparison of decoded values, for graders that must not be fooled by ``True == 1``."""

from __future__ import annotations

import math
from collections.abc import Hashable

from ._inside.codec import Data

__all__ = ["strict_equal"]


def _canonical(value: object) -> Hashable:
    kind = type(value)
    if kind is float:
        number: float = value  # type: ignore[assignment]
        return ("float", "nan" if math.isnan(number) else number)
    if kind in (list, tuple):
        return (kind.__name__, tuple(_canonical(item) for item in value))  # type: ignore[attr-defined]
    if kind in (set, frozenset):
        return (kind.__name__, frozenset(_canonical(item) for item in value))  # type: ignore[attr-defined]
    if kind is dict:
        pairs = value.items()  # type: ignore[attr-defined]
        return ("dict", frozenset((_canonical(k), _canonical(v)) for k, v in pairs))
    if value is None or kind in (bool, int, str, bytes):
        return (kind.__name__, value)
    raise TypeError(f"not plain data: {kind.__name__}")


def strict_equal(left: Data, right: Data) -> bool:
    """Equality that also requires the same types all the way down.

    ``True`` differs from ``1``, ``1`` from ``1.0``, ``(1,)`` from ``[1]``; ``nan`` equals
    ``nan`` and ``-0.0`` equals ``0.0``.

    Example:
        >>> strict_equal({"a": [1, 2.0]}, {"a": [1, 2.0]}), strict_equal(True, 1)
        (True, False)
    """
    return _canonical(left) == _canonical(right)
