"""Where scoring runs: ``local`` (this machine's worker pool) or ``ray`` (a Ray cluster).

Both backends take the same :class:`~assay.runner.ScoreOptions`, give the same verdicts and
have the same interface (:class:`Backend`): ``score_rows(rows, skip_ids)`` yields results in
input order, ``cache`` is the verdict cache, ``close()`` stops the workers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Literal, Protocol

from assay.cache import VerdictCache
from assay.errors import ConfigError
from assay.records import RawRow
from assay.registry import Registry
from assay.runner import ScoreOptions, Scorer
from assay.types import Result

BackendName = Literal["local", "ray"]
BACKENDS: tuple[BackendName, ...] = ("local", "ray")


class Backend(Protocol):
    """What the CLI and the API need of a backend."""

    @property
    def cache(self) -> VerdictCache | None: ...

    def score_rows(
        self, rows: Iterable[RawRow], skip_ids: frozenset[str] | set[str] = ...
    ) -> Iterator[Result]: ...

    def close(self) -> None: ...


def open_backend(
    name: str,
    options: ScoreOptions,
    registry: Registry | None = None,
    *,
    address: str | None = None,
    actors: int | None = None,
    connect_timeout_s: float | None = None,
) -> Backend:
    """A started backend by name; ``address``, ``actors``, ``connect_timeout_s``: ``ray`` only.

    Example:
        >>> backend = open_backend("local", ScoreOptions(workers=1))
        >>> backend.close()
    """
    if name == "local":
        if address is not None or actors is not None:
            raise ConfigError("--address and --actors need --backend ray")
        return Scorer(options, registry)
    if name == "ray":
        from assay.backends.ray_backend import RayBackend, RayOptions

        ray_options = RayOptions(address=address, actors=actors)
        if connect_timeout_s is not None:
            ray_options = dataclasses.replace(ray_options, connect_timeout_s=connect_timeout_s)
        return RayBackend(options, ray_options, registry)
    raise ConfigError(f"unknown backend {name!r}; choose one of: {', '.join(BACKENDS)}")
