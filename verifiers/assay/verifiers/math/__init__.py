"""Math answer checking: extraction, normalization, parsing and equivalence.

The pipeline, each step usable on its own::

    extract_answer(response)        -> Extraction (method, text, boxed candidates)
    normalize_answer(text)          -> canonical string (fast path: equal strings)
    parse_answer(normalized)        -> Value (Number, Expression, Interval, Collection...)
    equivalent(gold, answer, opts)  -> Equivalence (equal, method, detail)
    grade(response, gold, opts)     -> assay Verdict with named checks

Example:
    >>> from assay.verifiers.math import CompareOptions, grade, prepare_gold
    >>> grade("The answer is $\\\\boxed{2x+2}$.", prepare_gold("2(x+1)"), CompareOptions()).score
    1.0
"""

from __future__ import annotations

from assay.verifiers.math.compare import equivalent
from assay.verifiers.math.extract import Extraction, extract_answer
from assay.verifiers.math.grade import GoldAnswer, grade, prepare_gold
from assay.verifiers.math.normalize import normalize_answer
from assay.verifiers.math.outcome import DEFAULT_TOLERANCE, CompareOptions, Equivalence
from assay.verifiers.math.parse import parse_answer
from assay.verifiers.math.scalar import AnswerParseError, warm_up
from assay.verifiers.math.values import (
    Choice,
    Collection,
    Expression,
    Interval,
    Matrix,
    Number,
    Relation,
    Text,
    Value,
)

__all__ = [
    "DEFAULT_TOLERANCE",
    "AnswerParseError",
    "Choice",
    "Collection",
    "CompareOptions",
    "Equivalence",
    "Expression",
    "Extraction",
    "GoldAnswer",
    "Interval",
    "Matrix",
    "Number",
    "Relation",
    "Text",
    "Value",
    "equivalent",
    "extract_answer",
    "grade",
    "normalize_answer",
    "parse_answer",
    "prepare_gold",
    "warm_up",
]
