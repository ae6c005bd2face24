"""Reward specs: what each verdict earns, per domain.

A :class:`RewardSpec` turns one :class:`~assay.types.Verdict` into a scalar reward and says
whether the sample is masked out of the loss. A :class:`SpecSet` maps domain names to specs,
with a default for every other domain. Both load from plain mappings, TOML files (one table per
domain, ``[default]`` for the fallback) and, when PyYAML is importable, YAML files.

Order of operations for one sample (see docs/rewards.md):

1. masked status (``error``, ``timeout`` by default): reward 0, loss mask 0;
2. base reward: the status reward, or the weighted mean of named check scores when
   ``weights`` is set (``unparsable`` keeps its status reward either way);
3. minus each format penalty whose check is present and failed;
4. plus the DAPO soft overlong penalty (and a loss mask 0 for truncated responses when
   ``mask_truncated`` is set);
5. clipped to ``clip``.
"""

from __future__ import annotations

import importlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from assay.errors import ConfigError
from assay.types import Status, Verdict

Normalization = Literal["none", "batch", "group", "running"]
NORMALIZATIONS: tuple[str, ...] = ("none", "batch", "group", "running")

_DEFAULT_STATUS_REWARDS: Mapping[Status, float | None] = {
    Status.CORRECT: 1.0,
    Status.PARTIAL: None,
    Status.INCORRECT: 0.0,
    Status.UNPARSABLE: 0.0,
}
_SPEC_KEYS = frozenset(
    {
        "rewards",
        "weights",
        "mask_statuses",
        "masked",
        "format_penalties",
        "overlong",
        "clip",
        "normalize",
    }
)
DEFAULT_MASK_STATUSES = frozenset({Status.ERROR, Status.TIMEOUT})
"""What the loss leaves out by default: the verdicts a verifier cannot pin on the response.

A response that hangs, fills memory or is too costly to check is ``incorrect`` (see
:mod:`assay.blame`), so it is scored, not masked: hanging never earns more than a wrong answer."""


@dataclass(frozen=True, slots=True)
class OverlongPenalty:
    """DAPO's soft overlong punishment.

    The penalty is 0 up to ``max_len - cache_len`` tokens, then falls linearly to ``-factor`` at
    ``max_len``, and stays at ``-factor`` beyond it.

    Attributes:
        max_len: Maximum response length in tokens (the generation limit).
        cache_len: Width of the soft band before ``max_len``; 0 makes it a hard step.
        factor: Size of the full penalty.
        mask_truncated: Mask responses of ``max_len`` tokens or more (truncated) out of the loss.

    Example:
        >>> OverlongPenalty(max_len=100, cache_len=20).penalty(90)
        -0.5
    """

    max_len: int
    cache_len: int = 0
    factor: float = 1.0
    mask_truncated: bool = False

    def __post_init__(self) -> None:
        if self.max_len <= 0 or not 0 <= self.cache_len <= self.max_len:
            raise ConfigError(
                f"overlong needs 0 <= cache_len <= max_len and max_len > 0, "
                f"got max_len={self.max_len}, cache_len={self.cache_len}"
            )

    def penalty(self, length: int) -> float:
        """The (non-positive) penalty for a response of ``length`` tokens."""
        start = self.max_len - self.cache_len
        if length <= start:
            return 0.0
        if length >= self.max_len or self.cache_len == 0:
            return -self.factor
        return -self.factor * (length - start) / self.cache_len

    def truncated(self, length: int) -> bool:
        """Whether a response of ``length`` tokens hit the generation limit."""
        return length >= self.max_len


@dataclass(frozen=True, slots=True)
class SampleReward:
    """The reward of one sample and whether it takes part in the loss."""

    reward: float
    masked: bool


@dataclass(frozen=True, slots=True)
class RewardSpec:
    """How verdicts of one domain become rewards.

    Attributes:
        rewards: Reward per status; ``None`` means "the verdict's score" (the default for
            ``partial``). Statuses not listed keep their defaults (correct 1, partial the score,
            incorrect 0, unparsable 0).
        weights: Named check weights; when set, the base reward of unmasked, parsable verdicts
            is the weighted mean of the checks' scores (``score`` if given, else 1/0 for
            passed/failed; a missing check counts 0).
        mask_statuses: Statuses masked out of the loss (reward 0, loss mask 0); by default
            ``error`` and ``timeout`` (:data:`DEFAULT_MASK_STATUSES`). The TOML/YAML key is
            ``mask_statuses`` (``masked`` is read too).
        format_penalties: Check name to penalty subtracted when that check is present and failed.
        overlong: DAPO soft overlong penalty, or ``None``.
        clip: Bounds ``(low, high)`` the final reward is clipped to, or ``None``.
        normalize: Per-domain normalisation (see :mod:`assay.rewards.normalize`).

    Example:
        >>> from assay.types import Verdict
        >>> RewardSpec(rewards={"incorrect": -1.0}).reward(Verdict.incorrect())
        SampleReward(reward=-1.0, masked=False)
    """

    rewards: Mapping[Status | str, float | None] = field(default_factory=dict)
    weights: Mapping[str, float] = field(default_factory=dict)
    mask_statuses: frozenset[Status] = DEFAULT_MASK_STATUSES
    format_penalties: Mapping[str, float] = field(default_factory=dict)
    overlong: OverlongPenalty | None = None
    clip: tuple[float, float] | None = None
    normalize: Normalization = "none"

    def __post_init__(self) -> None:
        rewards = {**_DEFAULT_STATUS_REWARDS}
        rewards.update({Status(k): v for k, v in self.rewards.items()})
        object.__setattr__(self, "rewards", rewards)
        object.__setattr__(self, "mask_statuses", frozenset(Status(s) for s in self.mask_statuses))
        if self.weights and sum(self.weights.values()) <= 0:
            raise ConfigError(f"check weights must sum to a positive number: {self.weights}")
        if self.clip is not None:
            low, high = float(self.clip[0]), float(self.clip[1])
            if low > high:
                raise ConfigError(f"clip low {low} is above high {high}")
            object.__setattr__(self, "clip", (low, high))
        if self.normalize not in NORMALIZATIONS:
            raise ConfigError(
                f"unknown normalize {self.normalize!r}; expected one of {', '.join(NORMALIZATIONS)}"
            )

    @property
    def masked(self) -> frozenset[Status]:
        """The statuses masked out of the loss (the older name of :attr:`mask_statuses`)."""
        return self.mask_statuses

    def base_reward(self, verdict: Verdict) -> float:
        """The reward before penalties and clipping (status reward or weighted check mix)."""
        if self.weights and verdict.status is not Status.UNPARSABLE:
            return _weighted_checks(verdict, self.weights)
        value = self.rewards.get(verdict.status, 0.0)
        return verdict.score if value is None else value

    def reward(self, verdict: Verdict, length: int | None = None) -> SampleReward:
        """The final reward of one verdict and its mask flag.

        Args:
            verdict: The verifier's verdict.
            length: Response length in tokens, needed for the overlong penalty.
        """
        if verdict.status in self.mask_statuses:
            return SampleReward(0.0, True)
        value = self.base_reward(verdict)
        failed = {c.name for c in verdict.checks if not c.passed}
        value -= sum(p for name, p in self.format_penalties.items() if name in failed)
        masked = False
        if self.overlong is not None and length is not None:
            value += self.overlong.penalty(length)
            masked = self.overlong.mask_truncated and self.overlong.truncated(length)
        if self.clip is not None:
            value = min(max(value, self.clip[0]), self.clip[1])
        return SampleReward(0.0 if masked else value, masked)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RewardSpec:
        """Build a spec from a plain mapping (the body of one TOML/YAML table)."""
        unknown = set(data) - _SPEC_KEYS
        if unknown:
            raise ConfigError(
                f"unknown reward spec keys {sorted(unknown)}; expected {sorted(_SPEC_KEYS)}"
            )
        if "mask_statuses" in data and "masked" in data:
            raise ConfigError("give mask_statuses or masked (its older name), not both")
        masks = data.get("mask_statuses", data.get("masked", ("error", "timeout")))
        try:
            overlong = data.get("overlong")
            clip = data.get("clip")
            return cls(
                rewards={str(k): _status_value(v) for k, v in data.get("rewards", {}).items()},
                weights={str(k): float(v) for k, v in data.get("weights", {}).items()},
                mask_statuses=frozenset(Status(s) for s in masks),
                format_penalties={
                    str(k): float(v) for k, v in data.get("format_penalties", {}).items()
                },
                overlong=None if overlong is None else OverlongPenalty(**overlong),
                clip=None if clip is None else (float(clip[0]), float(clip[1])),
                normalize=cast(Normalization, data.get("normalize", "none")),
            )
        except (TypeError, ValueError, IndexError) as exc:
            raise ConfigError(f"invalid reward spec: {exc}") from exc


def _status_value(value: Any) -> float | None:
    if value is None or value == "score":
        return None
    return float(value)


def _weighted_checks(verdict: Verdict, weights: Mapping[str, float]) -> float:
    scores = {c.name: (c.score if c.score is not None else float(c.passed)) for c in verdict.checks}
    total = sum(weights.values())
    return sum(w * scores.get(name, 0.0) for name, w in weights.items()) / total


@dataclass(frozen=True, slots=True)
class SpecSet:
    """Reward specs per domain, with a default for domains not listed.

    Example:
        >>> specs = SpecSet({"math": RewardSpec(rewards={"incorrect": -1.0})})
        >>> specs["code"] is specs.default
        True
    """

    specs: Mapping[str, RewardSpec] = field(default_factory=dict)
    default: RewardSpec = field(default_factory=RewardSpec)

    def __getitem__(self, domain: str) -> RewardSpec:
        return self.specs.get(domain, self.default)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SpecSet:
        """Build from ``{domain: table}``; the ``default`` table, if any, is the fallback."""
        tables = dict(data)
        default = RewardSpec.from_dict(tables.pop("default", {}))
        for domain, table in tables.items():
            if not isinstance(table, Mapping):
                raise ConfigError(f"reward spec for domain {domain!r} must be a table")
        return cls({str(d): RewardSpec.from_dict(t) for d, t in tables.items()}, default)

    @classmethod
    def load(cls, path: str | Path) -> SpecSet:
        """Load a spec file: ``.toml``, or ``.yaml``/``.yml`` when PyYAML is installed."""
        path = Path(path)
        text = path.read_text(encoding="utf-8")
        if path.suffix in (".yaml", ".yml"):
            try:
                yaml = importlib.import_module("yaml")
            except ImportError as exc:
                raise ConfigError(f"reading {path} needs PyYAML (pip install pyyaml)") from exc
            data = yaml.safe_load(text) or {}
        else:
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"{path}: {exc}") from exc
        if not isinstance(data, Mapping):
            raise ConfigError(f"{path}: expected a table of domains")
        return cls.from_dict(data)
