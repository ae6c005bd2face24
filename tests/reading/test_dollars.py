"""Money dollars are not LaTeX delimiters, and LaTeX dollars are not money (both directions)."""

from __future__ import annotations

import pytest
from assay.verifiers.reading import mask_math, read_dollars

# (text, contents of the math spans, number of money $)
DOLLARS: list[tuple[str, list[str], int]] = [
    # --- money (Math-Verify-style extractors read these as one formula) ---
    ("She sells them for $2 each, so she makes $18.", [], 2),  # GSM8K: two prices
    ("$20,000 and $30,000", [], 2),  # Pandoc's own example
    ("He pays $5+$3=$8.", [], 3),  # closer followed by a digit: never a span
    ("It costs $5, and he has $10.", [], 2),  # closers with a space before them
    ("Tickets are $12.50 each.", [], 1),  # one price
    ("The price rose from $4 to $6 per pound.", [], 2),  # a range of prices
    ("$5 and then she pays 3$ more", [], 2),  # opens on a digit, prose inside: money
    ("costs $ 5", [], 1),  # a space after the $ never opens math
    ("Profit: \\$1,000", [], 1),  # escaped dollar is always money
    ("\\$5 and \\$6", [], 2),  # two escaped dollars
    ("It is $5.", [], 1),  # one dollar at the end
    ("$", [], 1),  # a lone dollar
    # --- real LaTeX ---
    ("So $x = 2$.", ["x = 2"], 0),  # an equation
    ("The area is $\\frac{1}{2}$.", ["\\frac{1}{2}"], 0),  # a fraction
    ("$2x + 3$", ["2x + 3"], 0),  # opens on a digit, math inside
    ("$3$ or $5$", ["3", "5"], 0),  # two numbers in math
    ("$$x^2$$", ["x^2"], 0),  # display math
    ("\\(x+1\\)", ["x+1"], 0),  # \( \)
    ("\\[\\frac{a}{b}\\]", ["\\frac{a}{b}"], 0),  # \[ \]
    ("$\\boxed{18}$", ["\\boxed{18}"], 0),  # a box in math
    ("$5 \\text{ dollars}$", ["5 \\text{ dollars}"], 0),  # text inside LaTeX stays math
    ("$18$ dollars", ["18"], 0),  # a number in math, then a word
    # --- both in one text ---
    ("It costs $5, and $x = 7$.", ["x = 7"], 1),  # money, then math
    ("Let $n$ be the count; each costs $3.", ["n"], 1),  # math, then money
    ("$x$ costs $5", ["x"], 1),  # math then a price
    ("\\$5 plus $y$", ["y"], 1),  # escaped money then math
    ("$$\\$5$$", ["\\$5"], 0),  # an escaped dollar inside display math belongs to the span
]


@pytest.mark.parametrize(("text", "spans", "money"), DOLLARS, ids=[d[0][:40] for d in DOLLARS])
def test_dollars(text: str, spans: list[str], money: int) -> None:
    found = read_dollars(text)
    assert [text[s.inner_start : s.inner_end].strip() for s in found.spans] == spans
    assert len(found.money) == money


def test_mask_keeps_positions() -> None:
    text = "It costs $5, and $x = 7$."
    masked = mask_math(text)
    assert len(masked) == len(text) and "$5" in masked and "x = 7" not in masked


def test_unclosed_display_math_is_no_span() -> None:
    assert read_dollars("$$x + 1").spans == ()
    assert read_dollars("\\(x + 1").spans == ()
