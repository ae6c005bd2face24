"""A circuit breaker per domain: a verifier that keeps failing is marked degraded.

Closed (normal) -> open after ``threshold`` consecutive infrastructure failures: the domain's
items are answered ``error`` at once, with the reason, instead of each waiting for its own
failure (a hung verifier would otherwise cost every item its full time limit). After
``cooldown_s`` the breaker is half-open: one item is let through as a probe; a good verdict
closes the breaker, another failure opens it again for a new cooldown.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from assay.boundary import MALFORMED_TASK
from assay.types import Result, Status, Verdict


def is_infrastructure_failure(result: Result) -> bool:
    """Whether a result says the verifier failed (not the model, not the task)."""
    if result.status is Status.TIMEOUT:
        return True
    if result.status is not Status.ERROR:
        return False
    return not (result.verdict.message or "").startswith(MALFORMED_TASK)


@dataclass(slots=True)
class _State:
    failures: int = 0
    opened_at: float | None = None
    probing: bool = False
    last_failure: str = ""


class CircuitBreaker:
    """Tracks consecutive infrastructure failures per domain; see the module docstring.

    Args:
        threshold: Consecutive failures that open the breaker (0: never opens).
        cooldown_s: Seconds an open breaker answers at once before it lets a probe through.
        clock: Monotonic clock (a parameter so a test can move time on).

    Example:
        >>> breaker = CircuitBreaker(threshold=2, cooldown_s=60)
        >>> from assay.types import Verdict, Result
        >>> bad = Result("1", "x", Verdict.error("boom"), "x@1", 0.0)
        >>> breaker.record(bad), breaker.record(bad), breaker.admit("x") is None
        (False, True, False)
    """

    def __init__(
        self,
        threshold: int = 5,
        cooldown_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.threshold = threshold
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._states: dict[str, _State] = {}

    def degraded(self) -> list[str]:
        """Domains whose breaker is open now."""
        return sorted(name for name, s in self._states.items() if s.opened_at is not None)

    def admit(self, domain: str) -> Verdict | None:
        """``None`` when an item of ``domain`` may run; else the ``error`` verdict to give it."""
        state = self._states.get(domain)
        if state is None or state.opened_at is None:
            return None
        if not state.probing and self._clock() - state.opened_at >= self.cooldown_s:
            state.probing = True  # half-open: this one item probes the verifier
            return None
        return self.refusal(domain)

    def refusal(self, domain: str) -> Verdict:
        """The ``error`` verdict for an item of a degraded domain (the state is unchanged)."""
        state = self._states.get(domain) or _State()
        return Verdict.error(
            f"domain {domain!r} is degraded: its verifier failed {state.failures} times in a "
            f"row (last: {state.last_failure}); item not verified; the verifier is probed "
            f"again {self.cooldown_s:g} s after it was marked"
        )

    def record(self, result: Result) -> bool:
        """Count a finished item; True when this result opened the breaker."""
        if self.threshold <= 0:
            return False
        state = self._states.setdefault(result.domain, _State())
        if not is_infrastructure_failure(result):
            state.failures, state.opened_at, state.probing = 0, None, False
            return False
        state.failures += 1
        state.last_failure = _short(result.verdict.message or result.status.value)
        if state.probing:  # the probe failed: stay open for another cooldown
            state.opened_at, state.probing = self._clock(), False
            return False
        if state.opened_at is None and state.failures >= self.threshold:
            state.opened_at = self._clock()
            return True
        return False


def _short(text: str, limit: int = 160) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
