"""A task sampler that balances domains and follows difficulty, fed the verdicts of each step.

:class:`TaskSampler` decides which tasks the next batch contains:

- **Domain mix.** Each domain has a target share (equal by default, or given); a smooth
  weighted round robin hands out the slots of a batch, so a domain with many tasks does not
  crowd out a small one and the running mix stays within a slot of its targets. With
  ``adaptive > 0`` part of the share follows *learning progress*: the rise of a domain's pass
  rate (a fast moving average above a slow one) pulls share toward domains still improving.
- **Difficulty.** Each task's pass rate is a Beta posterior: prior mean the domain's pooled pass
  rate, prior strength ``prior_strength``, then the task's own (decayed) attempts. A task is
  drawn with weight ``P(a group of group_size answers is not all alike)`` under that posterior,
  ``1 - E[p^G] - E[(1-p)^G]``: DAPO's observation that a group the policy always or never solves
  carries no GRPO signal. An unseen task gets the prior's value (high, not the maximum), so it is
  neither starved nor over-sampled. Tasks whose posterior mean is outside ``band`` are further
  down-weighted by ``outside_band_weight``.
- **Curriculum.** Optional ordered levels from task metadata (``level``): a domain's level opens
  when the mean pass rate of the highest open level, on its tasks' own evidence (a neutral
  prior, so untried tasks count as 0.5), reaches ``level_threshold``; tasks of locked levels are
  not drawn. Levels never close again.
- **Held back.** A task whose verdicts were masked (``error`` / ``timeout``) ``hold_after``
  times in a row is held back for ``hold_steps`` batches, then gets one probe; a verdict saying
  the domain's circuit breaker is open holds back the whole domain the same way.
- **Deterministic and resumable.** All randomness comes from one seeded generator; the whole
  state (generator, counts, credits, levels, holds) round-trips through :meth:`state_dict` /
  :meth:`load_state_dict`, so a resumed run draws what the uninterrupted one would have.

Example:
    >>> tasks = [{"id": f"m{i}", "domain": "math"} for i in range(6)] + [
    ...     {"id": "c0", "domain": "code"}, {"id": "c1", "domain": "code"}]
    >>> sampler = TaskSampler(tasks, seed=0)
    >>> batch = sampler.sample(4)
    >>> sorted(sampler.tasks[i].domain for i in batch)
    ['code', 'code', 'math', 'math']
    >>> sampler.update(batch, [1.0, 0.0, None, 1.0])  # a score, or None for a masked verdict
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.errors import ConfigError
from assay.records import DerivedIds, verl_row_id
from assay.types import Result, Status, Verdict

# the message of the error verdict a degraded domain's items get (assay.scheduling.breaker)
BREAKER_OPEN_MARK = "is degraded: its verifier failed"

Outcome = Result | Verdict | Mapping[str, Any] | float | bool | None


@dataclass(frozen=True, slots=True)
class TaskInfo:
    """What the sampler knows of one task: its id, its domain and its curriculum level."""

    id: str
    domain: str
    level: int = 0


@dataclass(frozen=True, slots=True)
class SamplerConfig:
    """The sampler's knobs (see the module docstring and docs/rewards.md).

    Attributes:
        domain_weights: Target share per domain (normalised); ``None`` gives every domain an
            equal share. A domain missing from the mapping gets share 0 (never drawn).
        adaptive: Fraction of the share that follows learning progress (0: fixed mix).
        progress_fast: Rate of the fast moving average of a domain's pass rate.
        progress_slow: Rate of the slow moving average; progress is ``max(fast - slow, 0)``.
        group_size: Answers per prompt (GRPO's group), for the usefulness weight.
        prior_strength: Pseudo-attempts of a task's Beta prior (centred on its domain's rate).
        decay: Weight older attempts of a task keep per update (1: plain counts), so the
            estimate follows a policy that is changing.
        band: Posterior pass rates outside ``[low, high]`` are down-weighted ...
        outside_band_weight: ... by this factor.
        min_weight: Floor of every drawable task's weight, so no open task starves.
        level_threshold: Mean pass rate of a domain's highest open level that opens the next.
        hold_after: Consecutive masked verdicts that hold a task (or a breaker verdict, its
            domain) back.
        hold_steps: Batches a held task or domain sits out before it is probed again.
        pass_score: A score at or above this counts as solved.
    """

    domain_weights: Mapping[str, float] | None = None
    adaptive: float = 0.0
    progress_fast: float = 0.3
    progress_slow: float = 0.05
    group_size: int = 8
    prior_strength: float = 2.0
    decay: float = 0.9
    band: tuple[float, float] = (0.05, 0.95)
    outside_band_weight: float = 0.1
    min_weight: float = 0.01
    level_threshold: float = 0.6
    hold_after: int = 3
    hold_steps: int = 20
    pass_score: float = 1.0

    def __post_init__(self) -> None:
        checks = [
            (0.0 <= self.adaptive <= 1.0, "adaptive must be in [0, 1]"),
            (0.0 < self.progress_slow <= self.progress_fast <= 1.0, "need 0 < slow <= fast <= 1"),
            (self.group_size >= 2, "group_size must be at least 2"),
            (self.prior_strength > 0.0, "prior_strength must be positive"),
            (0.0 < self.decay <= 1.0, "decay must be in (0, 1]"),
            (0.0 <= self.band[0] <= self.band[1] <= 1.0, "band must be 0 <= low <= high <= 1"),
            (0.0 <= self.outside_band_weight <= 1.0, "outside_band_weight must be in [0, 1]"),
            (self.min_weight > 0.0, "min_weight must be positive"),
            (0.0 <= self.level_threshold <= 1.0, "level_threshold must be in [0, 1]"),
            (self.hold_after >= 1 and self.hold_steps >= 1, "hold_after, hold_steps >= 1"),
        ]
        for ok, message in checks:
            if not ok:
                raise ConfigError(f"SamplerConfig: {message}")
        weights = self.domain_weights
        if weights is not None and (
            any(w < 0 or not math.isfinite(w) for w in weights.values())
            or sum(weights.values()) <= 0
        ):
            raise ConfigError("SamplerConfig: domain_weights must be finite, >= 0, not all 0")


@dataclass(slots=True)
class _TaskState:
    attempts: float = 0.0
    solved: float = 0.0
    times_sampled: int = 0
    failures: int = 0  # consecutive masked verdicts
    held_until: int = -1  # step from which the task may be drawn again


@dataclass(slots=True)
class _DomainState:
    attempts: float = 0.0
    solved: float = 0.0
    fast: float | None = None
    slow: float | None = None
    credit: float = 0.0
    drawn: int = 0
    open_level: int = 0
    held_until: int = -1
    last_drawn: int = 0


@dataclass(slots=True)
class _Feedback:
    solved: float = 0.0
    attempts: float = 0.0
    masked: int = 0
    breaker_open: bool = False


class TaskSampler:
    """Chooses the tasks of each batch from their verdicts; see the module docstring.

    Args:
        tasks: The dataset's tasks in dataset order (positions are what :meth:`sample`
            returns): :class:`TaskInfo` values, or rows read by :func:`task_info`.
        config: The knobs.
        seed: Seed of the sampler's only random generator.

    Raises:
        ConfigError: No tasks, duplicate task ids, or no domain with a positive target share.
    """

    def __init__(
        self,
        tasks: Sequence[TaskInfo | Mapping[str, Any]],
        config: SamplerConfig | None = None,
        *,
        seed: int = 0,
    ) -> None:
        self.config = config or SamplerConfig()
        derived = DerivedIds()  # two files of one data source must stay two sets of tasks
        self.tasks = [
            t if isinstance(t, TaskInfo) else task_info(t, i, derived) for i, t in enumerate(tasks)
        ]
        if not self.tasks:
            raise ConfigError("TaskSampler needs at least one task")
        self._position = {t.id: i for i, t in enumerate(self.tasks)}
        if len(self._position) != len(self.tasks):
            dupes = [k for k, n in Counter(t.id for t in self.tasks).items() if n > 1]
            raise ConfigError(f"duplicate task ids: {dupes[:5]}")
        self.domains = list(dict.fromkeys(t.domain for t in self.tasks))
        self._by_domain = {
            d: [i for i, t in enumerate(self.tasks) if t.domain == d] for d in self.domains
        }
        self._levels = {
            d: sorted({self.tasks[i].level for i in ix}) for d, ix in self._by_domain.items()
        }
        base = self.config.domain_weights
        raw = {d: 1.0 if base is None else float(base.get(d, 0.0)) for d in self.domains}
        if sum(raw.values()) <= 0:
            raise ConfigError(f"no domain of the tasks has a positive target share: {self.domains}")
        self._base = {d: w / sum(raw.values()) for d, w in raw.items()}
        self.seed = seed
        self._rng = random.Random(seed)
        self._step = 0
        self._task = [_TaskState() for _ in self.tasks]
        self._domain = {d: _DomainState(open_level=self._levels[d][0]) for d in self.domains}
        self._last_targets: dict[str, float] = {}

    # -- what comes next -------------------------------------------------------------------

    def sample(self, n: int) -> list[int]:
        """Positions of the ``n`` tasks of the next batch (distinct while enough can be drawn).

        Raises:
            ConfigError: ``n`` below 1.
        """
        if n < 1:
            raise ConfigError(f"batch size must be at least 1, got {n}")
        weights = {d: self._weights(d) for d in self.domains}
        targets = self._targets(weights)
        chosen: list[int] = []
        taken: set[int] = set()
        for d in self.domains:
            self._domain[d].last_drawn = 0
        for _ in range(n):
            domain = self._next_domain(targets, weights, taken)
            index = self._draw(weights[domain], taken)
            taken.add(index)
            chosen.append(index)
            self._task[index].times_sampled += 1
            self._domain[domain].drawn += 1
            self._domain[domain].last_drawn += 1
        self._last_targets = targets
        self._step += 1
        return chosen

    def batches(self, batch_size: int) -> Iterator[list[int]]:
        """An endless iterator of batches for a custom loop; call :meth:`update` in between."""
        while True:
            yield self.sample(batch_size)

    def update(self, tasks: Sequence[int | str], outcomes: Sequence[Outcome]) -> None:
        """Feed the verdicts of a step: one outcome per attempt (a group repeats its task).

        Args:
            tasks: Task positions (``int``) or task ids (``str``), one per attempt.
            outcomes: A :class:`~assay.types.Result` or :class:`~assay.types.Verdict`, verl's
                dict (``status``, ``score``), a score (solved at ``pass_score``), a bool, or
                ``None`` (a masked verdict, as TRL's reward functions return for one).

        Raises:
            ConfigError: Lengths differ, or a task is not one of the sampler's.
        """
        if len(tasks) != len(outcomes):
            raise ConfigError(f"{len(tasks)} tasks but {len(outcomes)} outcomes")
        feedback: dict[int, _Feedback] = {}
        for task, outcome in zip(tasks, outcomes, strict=True):
            _add(
                feedback.setdefault(self._resolve(task), _Feedback()),
                outcome,
                self.config.pass_score,
            )
        self._apply(feedback)

    # -- reading ---------------------------------------------------------------------------

    def position_of(self, task_id: str) -> int:
        """The dataset position of a task id."""
        return self._resolve(task_id)

    def pass_rate(self, task: int | str) -> float:
        """The posterior mean pass rate of a task (its prior mean when never attempted)."""
        alpha, beta = self._posterior(self._resolve(task))
        return alpha / (alpha + beta)

    def held_back(self) -> list[str]:
        """Ids of tasks not drawn now: held back themselves or in a held-back domain."""
        return [t.id for i, t in enumerate(self.tasks) if self._is_held(i)]

    def open_level(self, domain: str) -> int:
        """The highest open curriculum level of a domain."""
        return self._domain[domain].open_level

    def target_shares(self) -> dict[str, float]:
        """The domain shares the next batch aims at (over domains that can be drawn)."""
        return self._targets({d: self._weights(d) for d in self.domains})

    def metrics(self, prefix: str = "sampler") -> dict[str, float]:
        """Flat metrics of the last batch and the run so far, for a logger.

        ``<prefix>/share/<d>`` (last batch), ``<prefix>/share_total/<d>`` (run),
        ``<prefix>/target/<d>``, ``<prefix>/pass_rate/<d>`` (mean posterior),
        ``<prefix>/open_level/<d>``, ``<prefix>/pass_rate_hist/<lo>-<hi>`` (share of tasks per
        tenth), ``<prefix>/held_back`` and ``<prefix>/held_back_domains``, ``<prefix>/step``.
        """
        out: dict[str, float] = {f"{prefix}/step": float(self._step)}
        last = sum(s.last_drawn for s in self._domain.values())
        total = sum(s.drawn for s in self._domain.values())
        targets = self._last_targets or self.target_shares()
        for d, state in self._domain.items():
            rates = [self.pass_rate(i) for i in self._by_domain[d]]
            out[f"{prefix}/share/{d}"] = state.last_drawn / last if last else 0.0
            out[f"{prefix}/share_total/{d}"] = state.drawn / total if total else 0.0
            out[f"{prefix}/target/{d}"] = targets.get(d, 0.0)
            out[f"{prefix}/pass_rate/{d}"] = sum(rates) / len(rates)
            out[f"{prefix}/open_level/{d}"] = float(state.open_level)
        bins = Counter(min(int(self.pass_rate(i) * 10), 9) for i in range(len(self.tasks)))
        for b in range(10):
            out[f"{prefix}/pass_rate_hist/{b / 10:.1f}-{(b + 1) / 10:.1f}"] = bins[b] / len(
                self.tasks
            )
        out[f"{prefix}/held_back"] = float(len(self.held_back()))
        out[f"{prefix}/held_back_domains"] = float(
            sum(s.held_until > self._step for s in self._domain.values())
        )
        return out

    # -- state -----------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The whole state as plain Python values (``torch.save`` and JSON both take it)."""
        version, internal, gauss = self._rng.getstate()
        return {
            "seed": self.seed,
            "step": self._step,
            "rng": [version, list(internal), gauss],
            "task_ids": [t.id for t in self.tasks],
            "tasks": [
                [s.attempts, s.solved, s.times_sampled, s.failures, s.held_until]
                for s in self._task
            ],
            "domains": {
                d: [
                    s.attempts,
                    s.solved,
                    s.fast,
                    s.slow,
                    s.credit,
                    s.drawn,
                    s.open_level,
                    s.held_until,
                    s.last_drawn,
                ]
                for d, s in self._domain.items()
            },
            "last_targets": dict(self._last_targets),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore :meth:`state_dict`'s output; the tasks must be the same, in the same order.

        Raises:
            ConfigError: The state belongs to another task list.
        """
        if list(state["task_ids"]) != [t.id for t in self.tasks]:
            raise ConfigError("sampler state was saved for a different task list")
        version, internal, gauss = state["rng"]
        self._rng.setstate((int(version), tuple(int(x) for x in internal), gauss))
        self.seed = int(state["seed"])
        self._step = int(state["step"])
        self._task = [
            _TaskState(float(a), float(s), int(n), int(f), int(h))
            for a, s, n, f, h in state["tasks"]
        ]
        self._domain = {}
        for d in self.domains:
            a, s, fast, slow, credit, drawn, level, held, last = state["domains"][d]
            self._domain[d] = _DomainState(
                float(a),
                float(s),
                fast,
                slow,
                float(credit),
                int(drawn),
                int(level),
                int(held),
                int(last),
            )
        self._last_targets = {str(k): float(v) for k, v in state["last_targets"].items()}

    # -- internals -------------------------------------------------------------------------

    def _resolve(self, task: int | str) -> int:
        if isinstance(task, str):
            if task not in self._position:
                raise ConfigError(f"unknown task id {task!r}")
            return self._position[task]
        if isinstance(task, bool) or not 0 <= int(task) < len(self.tasks):
            raise ConfigError(f"task position {task!r} out of range 0..{len(self.tasks) - 1}")
        return int(task)

    def _domain_rate(self, domain: str) -> float:
        state = self._domain[domain]
        return (state.solved + 1.0) / (state.attempts + 2.0)

    def _posterior(self, index: int) -> tuple[float, float]:
        mean = self._domain_rate(self.tasks[index].domain)
        k = self.config.prior_strength
        state = self._task[index]
        return k * mean + state.solved, k * (1.0 - mean) + state.attempts - state.solved

    def _own_rate(self, index: int) -> float:
        """A task's pass rate on its own evidence (a neutral prior): what opens a level."""
        state, k = self._task[index], self.config.prior_strength
        return (state.solved + 0.5 * k) / (state.attempts + k)

    def _usefulness(self, index: int) -> float:
        alpha, beta = self._posterior(index)
        all_solved = all_failed = 1.0
        for j in range(self.config.group_size):
            all_solved *= (alpha + j) / (alpha + beta + j)
            all_failed *= (beta + j) / (alpha + beta + j)
        weight = max(0.0, 1.0 - all_solved - all_failed)
        low, high = self.config.band
        if not low <= alpha / (alpha + beta) <= high:
            weight *= self.config.outside_band_weight
        return max(weight, self.config.min_weight)

    def _is_held(self, index: int) -> bool:
        domain = self._domain[self.tasks[index].domain]
        return self._task[index].held_until > self._step or domain.held_until > self._step

    def _weights(self, domain: str) -> dict[int, float]:
        """Drawable tasks of a domain with their weights (locked and held tasks left out)."""
        level = self._domain[domain].open_level
        return {
            i: self._usefulness(i)
            for i in self._by_domain[domain]
            if self.tasks[i].level <= level and not self._is_held(i)
        }

    def _targets(self, weights: Mapping[str, Mapping[int, float]]) -> dict[str, float]:
        live = [d for d in self.domains if weights[d] and self._base[d] > 0]
        if not live:
            live = [d for d in self.domains if weights[d]]
        if not live:
            raise ConfigError("every task is held back or locked: nothing to sample")
        base = {d: self._base[d] for d in live}
        if sum(base.values()) <= 0:
            base = {d: 1.0 for d in live}
        total = sum(base.values())
        shares = {d: w / total for d, w in base.items()}
        if self.config.adaptive > 0:
            progress = {d: self._progress(d) for d in live}
            if sum(progress.values()) > 0:
                a = self.config.adaptive
                scale = sum(progress.values())
                shares = {d: (1 - a) * shares[d] + a * progress[d] / scale for d in live}
        return shares

    def _progress(self, domain: str) -> float:
        state = self._domain[domain]
        if state.fast is None or state.slow is None:
            return 0.0
        return max(state.fast - state.slow, 0.0)

    def _next_domain(
        self,
        targets: Mapping[str, float],
        weights: Mapping[str, Mapping[int, float]],
        taken: set[int],
    ) -> str:
        for d, share in targets.items():
            self._domain[d].credit += share
        fresh = [d for d in targets if any(i not in taken for i in weights[d])]
        pool = fresh or list(targets)
        best = max(pool, key=lambda d: self._domain[d].credit)
        self._domain[best].credit -= 1.0
        return best

    def _draw(self, weights: Mapping[int, float], taken: set[int]) -> int:
        pool = [(i, w) for i, w in weights.items() if i not in taken] or list(weights.items())
        point = self._rng.random() * sum(w for _, w in pool)
        for index, weight in pool:
            point -= weight
            if point < 0:
                return index
        return pool[-1][0]

    def _apply(self, feedback: Mapping[int, _Feedback]) -> None:
        keep = self.config.decay
        per_domain: dict[str, _Feedback] = {}
        for index, fb in feedback.items():
            state = self._task[index]
            domain = self.tasks[index].domain
            total = per_domain.setdefault(domain, _Feedback())
            total.solved += fb.solved
            total.attempts += fb.attempts
            total.breaker_open |= fb.breaker_open
            if fb.attempts:
                state.attempts = keep * state.attempts + fb.attempts
                state.solved = keep * state.solved + fb.solved
                state.failures = 0
            elif fb.masked:
                state.failures += fb.masked
                if state.failures >= self.config.hold_after:
                    state.held_until = self._step + self.config.hold_steps
                    state.failures = self.config.hold_after - 1  # one probe after the hold
        for domain, fb in per_domain.items():
            self._update_domain(domain, fb)

    def _update_domain(self, domain: str, fb: _Feedback) -> None:
        state = self._domain[domain]
        if fb.breaker_open:
            state.held_until = self._step + self.config.hold_steps
        if not fb.attempts:
            return
        state.attempts += fb.attempts
        state.solved += fb.solved
        rate = fb.solved / fb.attempts
        fast, slow = self.config.progress_fast, self.config.progress_slow
        state.fast = rate if state.fast is None else (1 - fast) * state.fast + fast * rate
        state.slow = rate if state.slow is None else (1 - slow) * state.slow + slow * rate
        self._open_levels(domain)

    def _open_levels(self, domain: str) -> None:
        state = self._domain[domain]
        levels = self._levels[domain]
        while state.open_level != levels[-1]:
            current = [
                i for i in self._by_domain[domain] if self.tasks[i].level == state.open_level
            ]
            mean = sum(self._own_rate(i) for i in current) / len(current)
            if mean < self.config.level_threshold:
                return
            state.open_level = levels[levels.index(state.open_level) + 1]


def _add(feedback: _Feedback, outcome: Outcome, pass_score: float) -> None:
    """Count one attempt's outcome into a task's feedback of this step."""
    if outcome is None:
        feedback.masked += 1
        return
    if isinstance(outcome, Result):
        outcome = outcome.verdict
    if isinstance(outcome, Verdict):
        if outcome.status.is_infrastructure:
            feedback.masked += 1
            feedback.breaker_open |= BREAKER_OPEN_MARK in (outcome.message or "")
            return
        feedback.attempts += 1
        feedback.solved += float(outcome.status is Status.CORRECT or outcome.score >= pass_score)
        return
    if isinstance(outcome, Mapping):
        if outcome.get("masked") or str(outcome.get("status", "")) in ("error", "timeout"):
            feedback.masked += 1
            return
        status = outcome.get("status")
        score = float(outcome.get("score", 0.0))
        feedback.attempts += 1
        feedback.solved += float(status == "correct" or score >= pass_score)
        return
    value = float(outcome)
    if not math.isfinite(value):
        feedback.masked += 1
        return
    feedback.attempts += 1
    feedback.solved += float(value >= pass_score)


def task_info(row: Mapping[str, Any], position: int, derived: DerivedIds | None = None) -> TaskInfo:
    """A row's task: id from ``id`` (else ``extra_info.id``, else verl's derived id
    ``"<data_source>-<split>-<index>"`` (:func:`assay.records.verl_row_id`), else the position),
    domain from ``domain`` (else ``data_source``, else ``"default"``), level from ``level``
    (else ``meta.level`` / ``extra_info.level``, else 0).

    Raises:
        ConfigError: A level that is not an integer.
    """
    nests = [row, *(row.get(k) for k in ("extra_info", "meta"))]
    maps = [m for m in nests if isinstance(m, Mapping)]
    task_id = _first(maps, ("id",))
    if task_id is None:
        task_id = _first(maps[:1], ("index",))
    if task_id is None:  # verl's numbering restarts in each file: the data source keeps it apart
        task_id = verl_row_id(row)
        if task_id is not None and derived is not None:
            task_id = derived.distinct(task_id, row)  # and another task with that id too
    if task_id is None:
        task_id = _first(maps, ("index",))
    domain = row.get("domain") or row.get("data_source") or "default"
    level = _first(maps, ("level",))
    if level is not None and (isinstance(level, bool) or not isinstance(level, int | str)):
        raise ConfigError(f"task {task_id or position}: level {level!r} is not an integer")
    try:
        number = 0 if level is None else int(level)
    except ValueError as exc:
        raise ConfigError(f"task {task_id or position}: level {level!r} is not an integer") from exc
    return TaskInfo(str(position if task_id is None else task_id), str(domain), number)


def _first(maps: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> Hashable | None:
    for key in keys:
        for mapping in maps:
            value = mapping.get(key)
            if value is not None and isinstance(value, Hashable):
                return value
    return None
