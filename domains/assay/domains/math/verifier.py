"""The math verifier: is the final answer of a response equal to the reference answer?"""

from __future__ import annotations

import ast
import math
import traceback
import warnings
from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import ClassVar, TypeVar

from assay.verifiers.math import CompareOptions, grade, prepare_gold, warm_up
from assay.verifiers.math.grade import grade_identical

from assay.blame import response_owned
from assay.errors import MalformedTaskError
from assay.types import JSON, Record, Status, Verdict
from assay.verifier import Verifier

_ANSWER_KEYS = ("answer", "ground_truth")
MAX_ANSWERS = 32
"""The most acceptable answers one reference may list."""
_MAX_LIST_TEXT = 20_000
_CONTROL = frozenset("\a\b\t\n\v\f\r")


class MathVerifier(Verifier):
    """Checks a final math answer against a reference (verl's ``reward_model.ground_truth``).

    The reference is either the answer string (a JSON number is read as its literal), or a
    dict with ``answer`` (or ``ground_truth``) and optional keys. Either may list several
    acceptable answers, and a response equal to any of them is right: a JSON list of answers,
    or the text of a Python or JSON list of answer *strings* (``"['\\\\frac{1}{2}']"``,
    Skywork-OR1's ``ground_truth``); the text of a list of numbers (``"[1, 2]"``) is one
    answer, a list. The options are:

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
    version: ClassVar[str] = "1.5.2"
    aliases: ClassVar[tuple[str, ...]] = ("gsm8k", "competition_math")
    data_sources: ClassVar[tuple[str, ...]] = (
        "lighteval/MATH",
        "DigitalLearningGmbH/MATH-lighteval",
        "HuggingFaceH4/MATH-500",
        "openai/gsm8k",
        "math_dapo*",
        "math",
        "hiyouga/geometry3k",
        "aime*",
        "numina_*",
        "deepscaler*",
        "simplerl*",
        "agentica-org/deepscaler*",
        "open-r1/openr1-math*",
        "primeintellect/verifiable-math*",
        "bytedtsinghua-sia/dapo-math*",
        "zwhe99/deepmath*",
        "math-ai/*",
        "maxwell-jia/aime*",
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
        answers, options = read_reference(record.reference)  # one answer or more, never none
        verdicts: list[Verdict] = []
        for answer in answers:  # right when equal to any; else the first answer's verdict
            verdict = _grade_one(record.response, answer, options)
            if verdict.status is Status.CORRECT:
                return verdict
            verdicts.append(verdict)
        return verdicts[0]


_Judged = TypeVar("_Judged", Verdict, Verdict | None)


def _grade_one(response: str, answer: str, options: CompareOptions) -> Verdict:
    identical = _response_work(lambda: grade_identical(response, answer, options))
    if identical is not None:  # before evaluating
        return identical
    gold = prepare_gold(answer)  # the task's work: a costly reference is a malformed task
    return _response_work(lambda: grade(response, gold, options))


def _response_work(work: Callable[[], _Judged]) -> _Judged | Verdict:
    """``work()`` as the response's work (:mod:`assay.blame`); sympy refusing the answer's
    math makes it ``unparsable`` (:func:`_refused_by_sympy`)."""
    try:
        with response_owned("checking the math answer"):
            return work()
    except _SYMPY_REFUSALS as exc:
        return _refused_by_sympy(exc)


_SYMPY_REFUSALS = (TypeError, ValueError, AttributeError, NotImplementedError, ZeroDivisionError)
_SYMPY_PATHS = ("/sympy/", "/mpmath/", "\\sympy\\", "\\mpmath\\")


def _refused_by_sympy(exc: Exception) -> Verdict:
    """The answer's verdict when sympy refused the math it wrote (else ``exc`` is raised).

    The gold is prepared, and parsed, before the answer is compared, so an exception sympy
    raises while the answer is read or compared is the answer's form: an interval with an end
    that is not real (``[i, 2]``), a set on one side of a relation (``x = \\mathbb{R}``).
    Such an answer is ``unparsable``, naming what sympy said; an exception raised in assay's
    own code stays a masked ``error`` (a bug is not the response's fault).
    """
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames or not any(part in frames[-1].filename for part in _SYMPY_PATHS):
        raise exc
    try:
        detail = str(exc)[:200]
    except Exception:
        detail = ""
    message = f"the answer's math is outside what sympy reads: {type(exc).__name__}: {detail}"
    return Verdict.unparsable(message)


def read_reference(reference: JSON) -> tuple[tuple[str, ...], CompareOptions]:
    """The acceptable answers (one or more) and the comparison options of a math task.

    Raises:
        MalformedTaskError: the answer is missing, empty, or neither a string nor a finite
            number (nor a list of those, at most :data:`MAX_ANSWERS`), or an option has the
            wrong type.
    """
    if isinstance(reference, str | int | float | list) and not isinstance(reference, bool):
        return _answers(reference), CompareOptions()
    if not isinstance(reference, Mapping):
        raise MalformedTaskError(
            f"math reference must be a string, a list of answers or a dict, "
            f"got {type(reference).__name__}"
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
    return _answers(reference[key]), options


def _answers(answer: JSON) -> tuple[str, ...]:
    if isinstance(answer, list):
        if not answer:
            raise MalformedTaskError("math answer list is empty")
        if len(answer) > MAX_ANSWERS:
            raise MalformedTaskError(f"math answer list is longer than {MAX_ANSWERS}")
        return tuple(_answer_text(item) for item in answer)
    text = _answer_text(answer)
    return _listed_in_text(text) or (text,)


def _listed_in_text(text: str) -> tuple[str, ...] | None:
    """The answers of a reference that is the text of a list of strings (else ``None``).

    Written by ``str(list)`` or ``json.dumps``, LaTeX backslashes are escaped; a list written
    by hand with bare ones (``['\\frac{1}{2}']`` read as ``\\f``, a form feed) is read again
    with them kept.
    """
    stripped = text.strip()
    if not (stripped.startswith("[") and stripped.endswith("]")) or len(stripped) > _MAX_LIST_TEXT:
        return None
    for source in (stripped, stripped.replace("\\", "\\\\")):
        try:
            with warnings.catch_warnings():  # an invalid escape such as \\s warns
                warnings.simplefilter("ignore")
                value = ast.literal_eval(source)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if not isinstance(value, list) or not value or len(value) > MAX_ANSWERS:
            return None
        if not all(type(item) is str and item.strip() for item in value):
            return None
        if not any(_CONTROL.intersection(item) for item in value):
            return tuple(value)
    return None


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
