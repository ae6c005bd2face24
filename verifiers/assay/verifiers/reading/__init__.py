"""One reader of model answers and numbers, shared by the math, finance and agent domains.

- :mod:`.tokens`: decoder special tokens removed; the answer region after ``</think>``.
- :mod:`.dollars`: which ``$`` delimit LaTeX math and which are money.
- :mod:`.locate`: where the final answer is (JSON ``answer``, ``\\boxed{}``, "final answer
  is", "the answer is", ``Answer:``, ``####``, the whole response, the last line, the last
  figure), returned with its span and the method that found it.
- :mod:`.numbers`: what a written number is (:class:`Figure`), read as written.
- :mod:`.dates`, :mod:`.cues`, :mod:`.words`: dates and years, sign words, number words.

Each domain keeps what is its own (sympy equivalence, reporting precision, fact matching).
The rules and the wiring plan are in docs/reading.md.
"""

from __future__ import annotations

from assay.verifiers.reading.cues import SignCue, sign_cue
from assay.verifiers.reading.dates import date_spans, is_plausible_year
from assay.verifiers.reading.dollars import Dollars, MathSpan, mask_math, read_dollars
from assay.verifiers.reading.locate import (
    MARKED,
    Box,
    Located,
    Method,
    extract_object,
    find_boxes,
    is_prose,
    locate_answer,
    prepare,
)
from assay.verifiers.reading.numbers import (
    CURRENCIES,
    MAX_DIGITS,
    MAX_EXPONENT,
    SCALES,
    Figure,
    NumberScan,
    NumberTooLargeError,
    Oversized,
    find_numbers,
    read_number,
    scan_numbers,
)
from assay.verifiers.reading.tokens import (
    HasSpecialTokens,
    answer_region,
    special_tokens_of,
    strip_special_tokens,
)
from assay.verifiers.reading.words import WordNumber, find_word_numbers

from assay.decoding import DEFAULT_SPECIAL_TOKENS

__all__ = [
    "CURRENCIES",
    "DEFAULT_SPECIAL_TOKENS",
    "MARKED",
    "MAX_DIGITS",
    "MAX_EXPONENT",
    "SCALES",
    "Box",
    "Dollars",
    "Figure",
    "HasSpecialTokens",
    "Located",
    "MathSpan",
    "Method",
    "NumberScan",
    "NumberTooLargeError",
    "Oversized",
    "SignCue",
    "WordNumber",
    "answer_region",
    "date_spans",
    "extract_object",
    "find_boxes",
    "find_numbers",
    "find_word_numbers",
    "is_plausible_year",
    "is_prose",
    "locate_answer",
    "mask_math",
    "prepare",
    "read_dollars",
    "read_number",
    "scan_numbers",
    "sign_cue",
    "special_tokens_of",
    "strip_special_tokens",
]
