"""Lazy public names for a package ``__init__``: imported on first use, then cached.

``import assay`` and the CLI stay fast because the heavy modules behind the public names load
only when a name is first read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Any


def lazy_exports(
    namespace: MutableMapping[str, Any], exports: Mapping[str, str], public: Sequence[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of a package with lazily imported names.

    ``dir()`` of the package lists its public names only.

    Args:
        namespace: The package's ``globals()``; a resolved name is stored there, so the next
            read is an ordinary attribute.
        exports: Public name -> module that defines it.
        public: The package's ``__all__``.

    Example:
        >>> namespace = {"__name__": "demo"}
        >>> getattr_, dir_ = lazy_exports(namespace, {"sqrt": "math"}, ["sqrt"])
        >>> getattr_("sqrt")(9.0), "sqrt" in namespace, dir_()
        (3.0, True, ['sqrt'])
    """

    def get_attribute(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def list_names() -> list[str]:
        return sorted(public)

    return get_attribute, list_names
