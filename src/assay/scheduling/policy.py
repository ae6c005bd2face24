"""How the scheduler orders and limits work: priorities, per-domain limits, warm-up, breaker."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from assay.errors import ConfigError

Pairs = tuple[tuple[str, int], ...]


def _pairs(value: Mapping[str, int] | Iterable[tuple[str, int]], what: str) -> Pairs:
    items = value.items() if isinstance(value, Mapping) else value
    pairs = tuple(sorted((str(name).lower(), int(number)) for name, number in items))
    if len({name for name, _ in pairs}) != len(pairs):
        raise ConfigError(f"{what}: a domain is named twice")
    return pairs


@dataclass(frozen=True, slots=True)
class SchedulePolicy:
    """Scheduling settings of a scorer (hashable, so options can key a shared scorer).

    Attributes:
        priorities: Domain -> priority; a free worker takes the queued item of the highest
            priority first (default 0; ties go to the oldest item).
        limits: Domain -> most workers busy with that domain at once (others stay free for
            the rest of the batch: an expensive domain cannot take every worker).
        warm: Domains each worker sets up as it starts, before it takes items (the code
            sandbox pool above all), so a replacement worker is warm too.
        breaker_threshold: Consecutive infrastructure failures (``error`` other than a
            malformed task, ``timeout``, a dead worker) that mark a domain degraded; 0: never.
        breaker_cooldown_s: How long a degraded domain's items are answered ``error`` at once
            before one item is let through to probe whether the verifier has recovered.

    Example:
        >>> policy = SchedulePolicy(priorities={"math": 1}, limits={"code": 1}, warm=("code",))
        >>> policy.limit_for("code"), policy.priority_for("math"), policy.priority_for("code")
        (1, 1, 0)
    """

    priorities: Pairs = ()
    limits: Pairs = ()
    warm: tuple[str, ...] = ()
    breaker_threshold: int = 20
    breaker_cooldown_s: float = 30.0

    def __init__(
        self,
        priorities: Mapping[str, int] | Iterable[tuple[str, int]] = (),
        limits: Mapping[str, int] | Iterable[tuple[str, int]] = (),
        warm: Iterable[str] = (),
        breaker_threshold: int = 20,
        breaker_cooldown_s: float = 30.0,
    ) -> None:
        limit_pairs = _pairs(limits, "limits")
        if any(number < 1 for _, number in limit_pairs):
            raise ConfigError("limits: each domain needs at least 1 worker")
        if breaker_threshold < 0 or breaker_cooldown_s < 0:
            raise ConfigError("breaker_threshold and breaker_cooldown_s must not be negative")
        object.__setattr__(self, "priorities", _pairs(priorities, "priorities"))
        object.__setattr__(self, "limits", limit_pairs)
        object.__setattr__(self, "warm", tuple(sorted({str(d).lower() for d in warm})))
        object.__setattr__(self, "breaker_threshold", int(breaker_threshold))
        object.__setattr__(self, "breaker_cooldown_s", float(breaker_cooldown_s))

    def priority_for(self, domain: str) -> int:
        return dict(self.priorities).get(domain.lower(), 0)

    def limit_for(self, domain: str) -> int | None:
        """Most workers at once for ``domain``; ``None``: no limit but the pool size."""
        return dict(self.limits).get(domain.lower())
