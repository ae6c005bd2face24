"""Core value types: records in, verdicts out.

A :class:`Record` is one model attempt to score. A verifier turns it into a :class:`Verdict`:
a typed status, a score in [0, 1], named :class:`Check` results with their evidence, and
per-step :class:`StepResult` values the reward layer can place on token spans. The runner
wraps a verdict into a :class:`Result`, the unit written to the output file.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, TypeVar

from assay.safejson import clean_text, json_safe

JSON = Any
"""A value that round-trips through ``json`` (dict, list, str, int, float, bool, None)."""


_C = TypeVar("_C", bound=type)


def _pickled_by_field_names(cls: _C) -> _C:
    """Pickle a frozen, slotted dataclass through its field names read once per class.

    The state is the list of field values, as the dataclass's own ``__getstate__`` writes it,
    but without calling ``dataclasses.fields`` for every object: every verdict crosses a
    process boundary (worker to parent, actor to driver), with its checks and steps, and
    that call was most of the parent's time unpickling results.
    """
    names = tuple(f.name for f in fields(cls))
    setter = object.__setattr__

    def __getstate__(self: Any) -> list[Any]:  # noqa: N807
        return [getattr(self, name) for name in names]

    def __setstate__(self: Any, state: list[Any]) -> None:  # noqa: N807
        for name, value in zip(names, state, strict=True):
            setter(self, name, value)

    setattr(cls, "__getstate__", __getstate__)  # noqa: B010 - a method of the class
    setattr(cls, "__setstate__", __setstate__)  # noqa: B010
    return cls


class Status(StrEnum):
    """What a verdict says about an attempt.

    ``error`` and ``timeout`` describe the verifier's infrastructure, not the model: a trainer
    must mask them out of the loss, never read them as reward 0.
    """

    CORRECT = "correct"
    PARTIAL = "partial"
    INCORRECT = "incorrect"
    UNPARSABLE = "unparsable"
    TIMEOUT = "timeout"
    ERROR = "error"

    @property
    def is_infrastructure(self) -> bool:
        """True for statuses a trainer masks instead of scoring (``error``, ``timeout``)."""
        return self in (Status.ERROR, Status.TIMEOUT)


@_pickled_by_field_names
@dataclass(frozen=True, slots=True)
class Check:
    """One named check of a verdict, with the evidence behind it.

    Attributes:
        name: Stable identifier, e.g. ``"extraction"`` or ``"ruff"``.
        passed: Whether the check holds.
        score: Optional graded value in [0, 1] (a reward spec may weight it).
        message: One line a human reads in an audit.
        evidence: JSON-able details (extracted text, distances, rule counts...).
    """

    name: str
    passed: bool
    score: float | None = None
    message: str = ""
    evidence: Mapping[str, JSON] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSON]:
        """Plain JSON data: unencodable text and values replaced (:mod:`assay.safejson`)."""
        return {
            "name": clean_text(str(self.name)),
            "passed": bool(self.passed),
            "score": json_safe(self.score),
            "message": json_safe(self.message),
            "evidence": json_safe(dict(self.evidence)),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, JSON]) -> Check:
        return cls(
            name=str(data["name"]),
            passed=bool(data["passed"]),
            score=None if data.get("score") is None else float(data["score"]),
            message=str(data.get("message", "")),
            evidence=dict(data.get("evidence") or {}),
        )


@_pickled_by_field_names
@dataclass(frozen=True, slots=True)
class StepResult:
    """The result of one step of an attempt (a test case, a tool call, a reasoning step).

    Attributes:
        index: Position of the step in the attempt (0-based).
        name: What the step is, e.g. ``"test[3]"`` or ``"turn[2]"``.
        passed: Whether the step succeeded.
        score: Step reward in [0, 1].
        message: Short human-readable reason.
        evidence: JSON-able details.
    """

    index: int
    name: str
    passed: bool
    score: float
    message: str = ""
    evidence: Mapping[str, JSON] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSON]:
        """Plain JSON data: unencodable text and values replaced (:mod:`assay.safejson`)."""
        return {
            "index": json_safe(self.index),
            "name": clean_text(str(self.name)),
            "passed": bool(self.passed),
            "score": json_safe(self.score),
            "message": json_safe(self.message),
            "evidence": json_safe(dict(self.evidence)),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, JSON]) -> StepResult:
        return cls(
            index=int(data["index"]),
            name=str(data["name"]),
            passed=bool(data["passed"]),
            score=float(data["score"]),
            message=str(data.get("message", "")),
            evidence=dict(data.get("evidence") or {}),
        )


def _check_score(score: float) -> float:
    if not math.isfinite(score) or not 0.0 <= score <= 1.0:
        raise ValueError(f"score must be a finite number in [0, 1], got {score!r}")
    return float(score)


@_pickled_by_field_names
@dataclass(frozen=True, slots=True)
class Verdict:
    """What a verifier concludes about one attempt.

    Attributes:
        status: The typed outcome.
        score: Reward-ready value in [0, 1]; 0 for ``unparsable``, ``timeout`` and ``error``.
        checks: Named checks with evidence.
        steps: Per-step results for process rewards.
        message: Why, in one line; required for ``error``, ``timeout`` and ``unparsable``.
    """

    status: Status
    score: float
    checks: tuple[Check, ...] = ()
    steps: tuple[StepResult, ...] = ()
    message: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))
        object.__setattr__(self, "score", _check_score(self.score))
        if self.status in (Status.UNPARSABLE, Status.TIMEOUT, Status.ERROR) and self.score != 0.0:
            raise ValueError(f"a {self.status} verdict must score 0, got {self.score}")

    @classmethod
    def correct(cls, checks: tuple[Check, ...] = (), steps: tuple[StepResult, ...] = ()) -> Verdict:
        return cls(Status.CORRECT, 1.0, checks, steps)

    @classmethod
    def incorrect(
        cls,
        checks: tuple[Check, ...] = (),
        steps: tuple[StepResult, ...] = (),
        message: str | None = None,
    ) -> Verdict:
        return cls(Status.INCORRECT, 0.0, checks, steps, message)

    @classmethod
    def unparsable(cls, message: str, checks: tuple[Check, ...] = ()) -> Verdict:
        return cls(Status.UNPARSABLE, 0.0, checks, (), message)

    @classmethod
    def error(cls, message: str, checks: tuple[Check, ...] = ()) -> Verdict:
        return cls(Status.ERROR, 0.0, checks, (), message)

    @classmethod
    def timeout(cls, message: str) -> Verdict:
        return cls(Status.TIMEOUT, 0.0, (), (), message)

    @classmethod
    def graded(
        cls,
        score: float,
        checks: tuple[Check, ...] = (),
        steps: tuple[StepResult, ...] = (),
        message: str | None = None,
    ) -> Verdict:
        """A verdict from a graded score: 1 is correct, 0 incorrect, anything between partial."""
        if score >= 1.0:
            status = Status.CORRECT
        elif score <= 0.0:
            status = Status.INCORRECT
        else:
            status = Status.PARTIAL
        return cls(status, min(max(score, 0.0), 1.0), checks, steps, message)


@_pickled_by_field_names
@dataclass(frozen=True, slots=True)
class Record:
    """One attempt to score, as read from the input (see docs/formats.md).

    Attributes:
        id: Unique id of the attempt.
        domain: Canonical domain name (after alias and ``data_source`` mapping).
        response: The model's output text.
        reference: Ground truth; its shape is the domain's (a dict, or a plain string).
        group: Samples of one prompt share it (GRPO groups).
        prompt: The prompt, as text or chat messages.
        steps: OpenAI-format chat messages of a multi-turn trajectory.
        meta: Passed through untouched.
    """

    id: str
    domain: str
    response: str
    reference: JSON = None
    group: str | None = None
    prompt: JSON = None
    steps: tuple[Mapping[str, JSON], ...] = ()
    meta: Mapping[str, JSON] = field(default_factory=dict)


@_pickled_by_field_names
@dataclass(frozen=True, slots=True)
class Result:
    """One output line: the verdict of one input record, with provenance.

    ``verifier`` is ``name@version`` (empty when no verifier could be chosen), ``error`` carries
    the message of ``error`` verdicts and is ``None`` otherwise.
    """

    id: str
    domain: str
    verdict: Verdict
    verifier: str
    elapsed_ms: float
    group: str | None = None
    meta: Mapping[str, JSON] = field(default_factory=dict)

    @property
    def status(self) -> Status:
        return self.verdict.status

    @property
    def score(self) -> float:
        return self.verdict.score

    def to_dict(self) -> dict[str, JSON]:
        """The output line as plain JSON data (docs/formats.md).

        Every value is passed through :func:`assay.safejson.json_safe`, so a lone surrogate in
        an id, a message, a check's evidence or the meta, a NaN or a non-JSON object never
        stops a writer: ``json.dumps(result.to_dict(), allow_nan=False)`` always succeeds and
        its text always encodes as UTF-8.
        """
        verdict = self.verdict
        message = json_safe(verdict.message)
        out: dict[str, JSON] = {
            "id": json_safe(self.id),
            "domain": json_safe(self.domain),
            "status": verdict.status.value,
            "score": verdict.score,
            "checks": [c.to_dict() for c in verdict.checks],
            "steps": [s.to_dict() for s in verdict.steps],
            "verifier": json_safe(self.verifier),
            "elapsed_ms": json_safe(round(self.elapsed_ms, 3)),
            "error": message if verdict.status is Status.ERROR else None,
            "message": message,
        }
        if self.group is not None:
            out["group"] = json_safe(self.group)
        if self.meta:
            out["meta"] = json_safe(dict(self.meta))
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, JSON]) -> Result:
        verdict = Verdict(
            status=Status(data["status"]),
            score=float(data["score"]),
            checks=tuple(Check.from_dict(c) for c in data.get("checks") or ()),
            steps=tuple(StepResult.from_dict(s) for s in data.get("steps") or ()),
            message=data.get("message") or data.get("error"),
        )
        return cls(
            id=str(data["id"]),
            domain=str(data.get("domain", "")),
            verdict=verdict,
            verifier=str(data.get("verifier", "")),
            elapsed_ms=float(data.get("elapsed_ms", 0.0)),
            group=data.get("group"),
            meta=dict(data.get("meta") or {}),
        )
