"""Copy-on-write environment states and their digests, so a replay pays for what it touches.

A state is a dict of top-level values; a top-level mapping (``orders``, ``users``, ``files``) is a
*collection* of entries. :class:`StateBase` pickles every entry of a starting state once and
keeps each entry's canonical digest. :meth:`StateBase.fresh` gives a new state whose
collections are :class:`CowCollection` views: an entry is unpickled (a private deep copy) the
first time a tool reads it, so a 20-call replay on a state of thousands of entries copies a few
dozen. :func:`state_digest` then re-encodes only the entries a replay touched.

The digest is sha256 over the top-level keys of each value's digest; a collection's digest is
sha256 over its keys of each entry's canonical JSON (:mod:`assay.verifiers.agent.canonical`).
Two states have equal digests exactly when their canonical forms are equal.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass

from assay.verifiers.agent.canonical import Canonicalizer, dump_json

from assay.types import JSON

_PROTOCOL = pickle.HIGHEST_PROTOCOL


def _sha(value: JSON) -> str:
    return hashlib.sha256(dump_json(value).encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class _Entries:
    blobs: Mapping[str, bytes]
    digests: Mapping[str, str]
    digest: str


class CowCollection(MutableMapping[str, JSON]):
    """A collection that copies an entry from its base on first access."""

    def __init__(self, name: str, base: _Entries) -> None:
        self.name = name
        self.base = base
        self.live: dict[str, JSON] = {}
        self.deleted: set[str] = set()

    def __contains__(self, key: object) -> bool:
        return key in self.live or (key in self.base.blobs and key not in self.deleted)

    def __getitem__(self, key: str) -> JSON:
        if key in self.live:
            return self.live[key]
        if key in self.deleted or key not in self.base.blobs:
            raise KeyError(key)
        value = pickle.loads(self.base.blobs[key])
        self.live[key] = value
        return value

    def __setitem__(self, key: str, value: JSON) -> None:
        self.live[key] = value
        self.deleted.discard(key)

    def __delitem__(self, key: str) -> None:
        if key not in self:
            raise KeyError(key)
        self.live.pop(key, None)
        if key in self.base.blobs:
            self.deleted.add(key)

    def __iter__(self) -> Iterator[str]:
        for key in self.base.blobs:
            if key not in self.deleted:
                yield key
        for key in self.live:
            if key not in self.base.blobs:
                yield key

    def __len__(self) -> int:
        added = sum(1 for key in self.live if key not in self.base.blobs)
        return len(self.base.blobs) - len(self.deleted) + added

    def __repr__(self) -> str:
        return f"CowCollection({self.name!r}, {len(self)} entries, {len(self.live)} touched)"


class StateBase:
    """A starting state, pickled entry by entry, with the canonical digest of every entry.

    Example:
        >>> base = StateBase({"orders": {"A": {"n": 1}, "B": {"n": 2}}, "next": 3}, Canonicalizer())
        >>> state = base.fresh()
        >>> state["orders"]["A"]["n"] = 5
        >>> state_digest(state, base) == state_digest({"orders": {"A": {"n": 5}, "B": {"n": 2}},
        ...                                            "next": 3}, base)
        True
    """

    def __init__(self, state: Mapping[str, JSON], canonicalizer: Canonicalizer) -> None:
        self.canonicalizer = canonicalizer
        self.scalars: dict[str, bytes] = {}
        self.collections: dict[str, _Entries] = {}
        for key, value in state.items():
            name = str(key)
            if isinstance(value, Mapping):
                blobs = {str(k): pickle.dumps(v, _PROTOCOL) for k, v in value.items()}
                digests = {str(k): self.entry_digest(name, str(k), v) for k, v in value.items()}
                self.collections[name] = _Entries(blobs, digests, _sha(sorted(digests.items())))
            else:
                self.scalars[name] = pickle.dumps(value, _PROTOCOL)

    def entry_digest(self, collection: str, key: str, value: JSON) -> str:
        return _sha(self.canonicalizer.canonical(value, (collection, key)))

    def fresh(self) -> dict[str, JSON]:
        """A new state: top-level values unpickled, collections as copy-on-write views."""
        state: dict[str, JSON] = {k: pickle.loads(blob) for k, blob in self.scalars.items()}
        for name, entries in self.collections.items():
            state[name] = CowCollection(name, entries)
        return state


def state_digest(
    state: Mapping[str, JSON], base: StateBase, keyless: frozenset[str] = frozenset()
) -> str:
    """The digest of ``state`` (rules in the module docstring), reusing ``base``'s entry digests
    for the entries of its copy-on-write collections that were never touched.

    A collection named in ``keyless`` is digested as the multiset of its entries, its keys left
    out: keys an environment hands out in call order (``E4``, ``E5``) say nothing about the
    state, so two events created in either order are one state.
    """
    parts = []
    for key in sorted(state, key=str):
        value, name = state[key], str(key)
        if isinstance(value, CowCollection) and value.base is base.collections.get(name):
            parts.append((name, _collection_digest(value, base, name in keyless)))
        elif isinstance(value, Mapping):
            digests = {str(k): base.entry_digest(name, str(k), v) for k, v in value.items()}
            parts.append((name, _keyed_digest(digests, name in keyless)))
        else:
            parts.append((name, _sha(base.canonicalizer.canonical(value, (name,)))))
    return _sha(parts)


def _keyed_digest(digests: Mapping[str, str], keyless: bool) -> str:
    if keyless:
        return _sha(["keyless", sorted(digests.values())])
    return _sha(sorted(digests.items()))


def _collection_digest(collection: CowCollection, base: StateBase, keyless: bool = False) -> str:
    if not collection.live and not collection.deleted and not keyless:
        return collection.base.digest
    digests = dict(collection.base.digests)
    for key in collection.deleted:
        digests.pop(key, None)
    for key, value in collection.live.items():
        blob = collection.base.blobs.get(key)
        if blob is not None and key in digests and pickle.dumps(value, _PROTOCOL) == blob:
            continue  # read but unchanged: pickling (C) is far cheaper than canonical encoding
        digests[key] = base.entry_digest(collection.name, key, value)
    return _keyed_digest(digests, keyless)
