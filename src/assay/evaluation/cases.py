"""Labelled cases: a verifier's fixture records with the verdict each one must get.

A fixture file is JSONL; each line is an input record (docs/formats.md) whose
``meta.expected_status`` is the status it must get. ``meta.expected_score`` (optional) pins the
score of ``partial`` cases, or ``meta.expected_score_range`` (``[low, high]``) bounds it where
the score rests on sampling or rendering; ``meta.category`` (optional) groups cases, and the
categories in :data:`HOSTILE_CATEGORIES` mark adversarial attempts (reward hacks, sandbox escapes).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from assay.errors import InputError
from assay.types import JSON, Result, Status

SCORE_TOLERANCE = 5e-5
"""How far a score may be from ``meta.expected_score`` (or outside the range) and still agree:
finance reports scores rounded to 4 digits."""

HOSTILE_CATEGORIES = frozenset({"hostile", "adversarial", "hack", "reward_hack"})
"""``meta.category`` values that mark an adversarial attempt."""


@dataclass(frozen=True, slots=True)
class LabelledCase:
    """One fixture record and the verdict it must get.

    Attributes:
        id: The record's id (unique within its fixture file).
        expected: The status the verifier must return.
        expected_score: The exact score it must return, when the label pins one.
        category: ``meta.category``, or ``""``.
        row: The record as written in the fixture file.
        expected_score_range: ``(low, high)``, inclusive, when the label bounds the score.
    """

    id: str
    expected: Status
    expected_score: float | None
    category: str
    row: Mapping[str, JSON]
    expected_score_range: tuple[float, float] | None = None

    @property
    def hostile(self) -> bool:
        return self.category.lower() in HOSTILE_CATEGORIES

    @property
    def deserves_credit(self) -> bool:
        """Whether the label gives any reward (``correct`` or ``partial``)."""
        return self.expected in (Status.CORRECT, Status.PARTIAL)

    def agrees(self, result: Result) -> bool:
        """The result has the labelled status (and the labelled score or score range, when the
        label gives one)."""
        if result.status is not self.expected:
            return False
        if self.expected_score_range is not None:
            low, high = self.expected_score_range
            return low - SCORE_TOLERANCE <= result.score <= high + SCORE_TOLERANCE
        return self.expected_score is None or math.isclose(
            result.score, self.expected_score, abs_tol=SCORE_TOLERANCE
        )

    def false_positive(self, result: Result) -> bool:
        """More credit than the label allows: any reward for a case labelled zero-credit, or
        full credit for a case labelled ``partial``."""
        if self.expected is Status.CORRECT:
            return False
        if self.expected is Status.PARTIAL:
            return result.status is Status.CORRECT
        return result.score > 0.0

    def false_negative(self, result: Result) -> bool:
        """Credit withheld: less than full credit for a ``correct`` case, none for ``partial``."""
        if self.expected is Status.CORRECT:
            return result.status is not Status.CORRECT
        if self.expected is Status.PARTIAL:
            return result.score <= 0.0
        return False


def load_cases(path: Path, domain: str) -> list[LabelledCase]:
    """Read a fixture file; every record is routed to ``domain`` (the verifier that owns it).

    Raises:
        InputError: the file cannot be read, or a line is not a labelled record (not JSON, no
            string ``id``, no valid ``meta.expected_status``, an id seen before); the message
            names file and line.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read fixtures {str(path)!r}: {exc}") from exc
    cases: dict[str, LabelledCase] = {}
    # split on "\n" alone: str.splitlines() also breaks inside a JSON string at U+2028, U+0085...
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        case = _case(_json_line(line, where), domain, where)
        if case.id in cases:
            raise InputError(f"{where}: duplicate case id {case.id!r}")
        cases[case.id] = case
    return list(cases.values())


def _json_line(line: str, where: str) -> dict[str, JSON]:
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise InputError(f"{where}: not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise InputError(f"{where}: a fixture line must be a JSON object")
    return data


def _case(data: dict[str, JSON], domain: str, where: str) -> LabelledCase:
    meta = data.get("meta")
    if not isinstance(data.get("id"), str) or not isinstance(meta, dict):
        raise InputError(f"{where}: a labelled case needs a string 'id' and a 'meta' object")
    try:
        expected = Status(str(meta.get("expected_status")))
    except ValueError:
        known = ", ".join(s.value for s in Status)
        raise InputError(
            f"{where}: meta.expected_status must be one of {known}, "
            f"got {meta.get('expected_status')!r}"
        ) from None
    score = meta.get("expected_score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise InputError(f"{where}: meta.expected_score must be a number, got {score!r}")
    return LabelledCase(
        id=data["id"],
        expected=expected,
        expected_score=None if score is None else float(score),
        category=str(meta.get("category") or ""),
        row={**data, "domain": domain},
        expected_score_range=_score_range(meta, score, where),
    )


def _score_range(meta: Mapping[str, JSON], score: JSON, where: str) -> tuple[float, float] | None:
    bounds = meta.get("expected_score_range")
    if bounds is None:
        return None
    if score is not None:
        raise InputError(
            f"{where}: give meta.expected_score or meta.expected_score_range, not both"
        )
    numbers = (
        [b for b in bounds if isinstance(b, int | float) and not isinstance(b, bool)]
        if isinstance(bounds, list)
        else []
    )
    if len(numbers) != 2 or len(bounds) != 2 or not 0.0 <= numbers[0] <= numbers[1] <= 1.0:
        raise InputError(
            f"{where}: meta.expected_score_range must be [low, high] with "
            f"0 <= low <= high <= 1, got {bounds!r}"
        )
    return float(numbers[0]), float(numbers[1])
