"""The verifier contract every domain (built-in or plugin) implements."""

from __future__ import annotations

import abc
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from assay.types import Record, Verdict


class Verifier(abc.ABC):
    """Turns one :class:`~assay.types.Record` into a :class:`~assay.types.Verdict`.

    Subclasses set the class attributes and implement :meth:`verify`. ``verify`` must not
    raise on bad model output (return ``unparsable`` / ``incorrect``); it raises
    :class:`~assay.errors.MalformedTaskError` for an unusable reference. Anything else that
    escapes becomes an ``error`` verdict at the runner's boundary.

    Attributes:
        name: Canonical domain name, e.g. ``"math"``.
        version: Bump it whenever a verdict can change; golden files are keyed by it.
        aliases: Other names accepted for the domain.
        data_sources: verl ``data_source`` values (exact, or prefixes ending in ``*``).
        default_timeout_s: Hard wall-clock limit per item unless the caller sets one.
        fixtures: Labelled cases (JSONL) for conformance tests and ``assay eval``.
        reads_transcript_calls: The verifier judges a decoded multi-turn tool transcript's
            calls (the agent verifier): it gets every turn, each executed turn with the calls
            written in its thinking (:func:`assay.decoding.read_answer`); any other verifier
            gets the last assistant turn, without its thinking.

    Example:
        >>> class Echo(Verifier):
        ...     name, version = "echo", "1"
        ...     def verify(self, record: Record) -> Verdict:
        ...         ok = record.response == record.reference
        ...         return Verdict.correct() if ok else Verdict.incorrect()
        >>> Echo().verify(Record(id="1", domain="echo", response="a", reference="a")).status
        <Status.CORRECT: 'correct'>
    """

    name: ClassVar[str]
    version: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    data_sources: ClassVar[tuple[str, ...]] = ()
    default_timeout_s: ClassVar[float] = 10.0
    fixtures: ClassVar[Path | None] = None
    reads_transcript_calls: ClassVar[bool] = False

    @property
    def id(self) -> str:
        """``name@version``, the key of caches and golden files."""
        return f"{self.name}@{self.version}"

    @classmethod
    def timeout_for(cls, record: Record) -> float:
        """Hard wall-clock limit for one item (the runner kills the worker past it)."""
        return cls.default_timeout_s

    def setup(self) -> None:  # noqa: B027 - optional hook, empty by default
        """Warm up once per worker process (import heavy libraries, open contexts)."""

    def prefetch(self, records: Sequence[Record]) -> None:  # noqa: B027 - optional hook
        """Prepare work shared by a chunk of items before :meth:`verify` sees them one by one.

        A worker calls it with the items of one chunk (all of this verifier's domain), then
        verifies each. What it prepares must give exactly the verdicts :meth:`verify` would
        give without it; an exception here is ignored (each item is then verified alone).
        """

    @abc.abstractmethod
    def verify(self, record: Record) -> Verdict:
        """Score one attempt."""
