"""Regressions found on outside cases (Math-Verify's own test tables)."""

from __future__ import annotations

import pytest
from assay.domains.math.verifier import MathVerifier

from assay.boundary import run_verifier
from assay.types import Record


@pytest.mark.parametrize(
    "response",
    [
        "the number is not 10 which is 1,000.99€",  # currency symbol after the last number
        "so it is 5 m²",  # a superscript after the last number
        "The total: 12 %%",  # only symbols after the number
    ],
    ids=["currency-symbol-tail", "superscript-tail", "symbol-tail"],
)
def test_symbol_tails_do_not_crash_the_cut_off_check(response: str) -> None:
    # an IndexError here used to turn the verdict into a masked `error`
    result = run_verifier(MathVerifier(), Record("r", "math", response, {"answer": "7"}))
    assert result.status.value in {"correct", "incorrect", "unparsable"}, result.verdict.message


@pytest.mark.parametrize(
    ("response", "status"),
    [
        ("Answer \\[ \n 9 \n \\]", "correct"),  # a display block over several lines is one answer
        ("Answer $$ \n 9 \n $$", "correct"),  # the same with $$ ... $$
        ("So\n\\[\nx = 9\n\\]", "correct"),  # an equation in a display block
        # inline math does not span lines: the "$" are no math, and the last line holding an
        # item (the shared reader's last_figure) is "9"
        ("Answer $ \n 9 \n $", "correct"),
    ],
    ids=["bracket-block", "dollar-block", "equation-block", "inline-split"],
)
def test_display_math_over_several_lines(response: str, status: str) -> None:
    result = run_verifier(MathVerifier(), Record("r", "math", response, {"answer": "9"}))
    assert result.status.value == status, result.verdict.message


@pytest.mark.parametrize(
    ("response", "gold", "status"),
    [
        ("The area is 1000.99 m^2, which is 1,000.99m²", "1000.99", "correct"),
        ("The area is 12 cm^2", "12", "correct"),
        ("The volume is 8 m³", "8", "correct"),
        ("The volume is 8 m^{3}", "8", "correct"),
        ("The area is 12 cm^2", "2", "incorrect"),  # the unit's exponent is not the answer
    ],
    ids=["caret-then-superscript", "caret", "superscript", "braced-exponent", "not-the-exponent"],
)
def test_unit_exponent_is_not_the_answer(response: str, gold: str, status: str) -> None:
    # an unmarked last line used to end on the "2" of "m^2"
    result = run_verifier(MathVerifier(), Record("r", "math", response, {"answer": gold}))
    assert result.status.value == status, result.verdict.message
