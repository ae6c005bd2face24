"""The math verifier: is the final answer of a response equal to the reference answer?"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import ClassVar

from assay.verifiers.math import CompareOptions, grade, prepare_gold, warm_up
from assay.verifiers.math.grade import grade_identical

from assay.blame import response_owned
from assay.errors import MalformedTaskError
from assay.types import JSON, Record, Verdict
from assay.verifier import Verifier

_ANSWER_KEYS = ("answer", "ground_truth")


class MathVerifier(Verifier):
    """Checks a final math answer against a reference (verl's ``reward_model.ground_truth``).

    The reference is either the answer string (a JSON number is read as its literal), or a
    dict with ``answer`` (or ``ground_truth``) and optional keys:

    - ``tolerance``: relative tolerance for inexact (decimal) numbers, default ``1e-6``;
      exact values (integers, fractions, radicals, ``\\pi``) always compare exactly. Without
      it, a plain decimal reference (``1621.9750``) is compared at the precision it is
      written with and an integer reference exactly; with it, the tolerance decides.
    - ``percent_as_fraction``: ``true`` also lets an answer ``50\\%`` equal a reference
      ``0.5``. Without it a percent reference still equals its bare number and its fraction
      (``50\\%``, ``50`` and ``0.5``), and an answer's percent sign is ignored (``50\\%``
      equals ``50``, not ``0.5``).
    - ``ordered``: ``true`` makes bare lists (``1, 2``) ordered, ``false`` makes tuples
      unordered; by default lists and sets are unordered and tuples ordered.

    Verdicts: ``correct`` (1.0), ``incorrect`` (0.0; also a hedge such as
    ``\\boxed{3} or \\boxed{5}``), ``unparsable`` (0.0; nothing extracted, or the extracted
    answer is not math or text). Checks: ``extraction``, ``hedging`` (only for hedges),
    ``parse``, ``equivalence`` (see :mod:`assay.verifiers.math.grade`).

    Example:
        >>> verifier = MathVerifier()
        >>> record = Record(id="1", domain="math", response="So $\\\\boxed{\\\\dfrac{1}{2}}$.",
        ...                 reference={"answer": "0.5"})
        >>> verdict = verifier.verify(record)
        >>> verdict.status, [check.name for check in verdict.checks]
        (<Status.CORRECT: 'correct'>, ['extraction', 'parse', 'equivalence'])
    """

    name: ClassVar[str] = "math"
    version: ClassVar[str] = "1.2.2"
    aliases: ClassVar[tuple[str, ...]] = ("gsm8k", "competition_math")
    data_sources: ClassVar[tuple[str, ...]] = (
        "lighteval/MATH",
        "DigitalLearningGmbH/MATH-lighteval",
        "HuggingFaceH4/MATH-500",
        "openai/gsm8k",
        "math_dapo",
        "math",
        "aime*",
        "numina_*",
        "deepscaler*",
        "simplerl*",
    )
    default_timeout_s: ClassVar[float] = 5.0
    fixtures: ClassVar[Path | None] = (
        Path(__file__).resolve().parents[4] / "fixtures" / "math" / "cases.jsonl"
    )

    def setup(self) -> None:
        """Import sympy and latex2sympy2_extended and warm the LaTeX parser once."""
        warm_up()

    def verify(self, record: Record) -> Verdict:
        """Score one response; raises :class:`MalformedTaskError` for an unusable reference."""
        answer, options = read_reference(record.reference)
        with response_owned("checking the math answer"):  # the response's work (assay.blame)
            identical = grade_identical(record.response, answer, options)  # before evaluating
            if identical is not None:
                return identical
        gold = prepare_gold(answer)  # the task's work: a costly reference is a malformed task
        with response_owned("checking the math answer"):
            return grade(record.response, gold, options)


def read_reference(reference: JSON) -> tuple[str, CompareOptions]:
    """The gold answer and the comparison options of a math task.

    Raises:
        MalformedTaskError: the answer is missing, empty, or neither a string nor a finite
            number, or an option has the wrong type.
    """
    if isinstance(reference, str | int | float) and not isinstance(reference, bool):
        return _answer_text(reference), CompareOptions()
    if not isinstance(reference, Mapping):
        raise MalformedTaskError(
            f"math reference must be a string or a dict, got {type(reference).__name__}"
        )
    key = next((k for k in _ANSWER_KEYS if k in reference), None)
    if key is None:
        raise MalformedTaskError("math reference has no 'answer' (or 'ground_truth')")
    options = CompareOptions(
        tolerance=_tolerance(reference.get("tolerance")),
        written_precision=reference.get("tolerance") is None,
        percent_as_fraction=_flag(reference, "percent_as_fraction") is True,
        ordered=_flag(reference, "ordered"),
    )
    return _answer_text(reference[key]), options


def _answer_text(answer: JSON) -> str:
    """The answer as text; a JSON number (``--reference 1000``) is read as its literal."""
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        if not math.isfinite(answer):
            raise MalformedTaskError(f"math answer must be finite, got {answer!r}")
        return repr(answer)
    if not isinstance(answer, str):
        raise MalformedTaskError(f"math answer must be a string, got {type(answer).__name__}")
    if not answer.strip():
        raise MalformedTaskError("math answer is empty")
    return answer


def _tolerance(value: JSON) -> Fraction:
    if value is None:
        return CompareOptions().tolerance
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MalformedTaskError(f"tolerance must be a number, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise MalformedTaskError(f"tolerance must be finite and >= 0, got {value!r}")
    return Fraction(str(value))


def _flag(reference: Mapping[str, JSON], key: str) -> bool | None:
    value = reference.get(key)
    if value is not None and not isinstance(value, bool):
        raise MalformedTaskError(f"{key} must be true or false, got {value!r}")
    return value
