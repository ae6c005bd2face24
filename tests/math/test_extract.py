"""Finding the answer in model text, and normalizing it before any parsing."""

from __future__ import annotations

import pytest
from assay.verifiers.math.extract import extract_answer
from assay.verifiers.math.normalize import normalize_answer, string_key

EXTRACTIONS = [
    # The common case: one box at the end of a worked solution.
    ("So the area is $\\boxed{12}$.", "boxed", "12"),
    # Nested braces inside the box must be kept whole.
    ("Thus $\\boxed{\\frac{\\sqrt{2}}{2}}$", "boxed", "\\frac{\\sqrt{2}}{2}"),
    # \fbox is the other boxing command models use.
    ("Answer is \\fbox{7}", "boxed", "7"),
    # The LAST box wins: a model may box an intermediate result earlier.
    ("First \\boxed{3}. After checking the whole argument once more, \\boxed{4}", "boxed", "4"),
    # The bare form \boxed 5 (no braces) is still a box.
    ("so \\boxed 5", "boxed", "5"),
    # A box inside the thinking section does not count once </think> closes it.
    ("<think>maybe \\boxed{4}</think>The final answer is $5$.", "final_answer_phrase", "5"),
    # Minerva-style ending: the math span is taken, the trailing sentence dropped.
    (
        "Final Answer: The final answer is $\\frac{3}{4}$. I hope it is correct.",
        "final_answer_phrase",
        "\\frac{3}{4}",
    ),
    # "The answer is" without math delimiters stops at the end of the sentence.
    ("We add them. The answer is 3.5. Done.", "final_answer_phrase", "3.5"),
    # Markdown bold around the label is common in chat models.
    ("**Final Answer:** 17", "final_answer_phrase", "17"),
    # "Answer:" on its own line.
    ("Work...\nAnswer: $x = 5$", "answer_colon", "x = 5"),
    # GSM8K's "#### 42" convention.
    ("Natalia sold 48 + 24 = 72 clips.\n#### 72", "hash", "72"),
    # The answer may sit on the line after the label.
    ("Final Answer:\n\n$$\\frac{1}{2}$$", "final_answer_phrase", "\\frac{1}{2}"),
    # A short response is the answer itself.
    ("42", "whole", "42"),
    # Words after the math are units, still a whole answer.
    ("72 clips", "whole", "72 clips"),
    # A word answer.
    ("no solution", "whole", "no solution"),
    # A sentence is not an answer: fall back to its last number.
    ("So 2+3 = 5", "last_line", "5"),
    # Fallback: the last number of the last non-empty line, thousands separators included.
    # the shared reader returns the figure as written; normalize_answer drops the unit
    ("Adding up the costs.\nIn total she pays 1,250 dollars\n\n", "last_line", "1,250 dollars"),
    # A justification in parentheses after the answer is not part of it.
    ("Answer: 7 (since 7^2 = 49).", "answer_colon", "7"),
    # A correction inside the phrase: the corrected value counts.
    ("The answer is not 5, it is 7.", "final_answer_phrase", "7"),
    # Two math spans joined by "or" after the phrase are both kept (then judged as a list).
    ("The answer is $3$ or $5$.", "final_answer_phrase", "3, 5"),
    # A trailing clause after the answer's comma is not the answer.
    ("So the farmer picked 42 apples in total, 15 of them on Wednesday.", "last_line", "42"),
    # ... but a conclusion after the comma is.
    # the figure as written; normalize_answer turns the percent word into \\%
    ("That is 20/80 of the price, so it fell by 25 percent.", "last_line", "25 percent"),
    # A justification after "because" is not the answer.
    ("The remainder is 2 because 1024 = 7 * 146 + 2.", "last_line", "2"),
    # An aside at the end of the line is dropped.
    ("The side is 32 / 4 = 8. (As an aside, its diagonal is about 11.31.)", "last_line", "8"),
    # A run of math spans at the end of the line.
    ("Taking square roots, $x = 2$ or $x = -2$.", "last_line", "x = 2, x = -2"),
    # Bold text in the last sentence is the answer.
    ("It is **odd**.", "last_line", "odd"),
    # A run of choice letters (then judged as a hedge).
    ("It is either (B) or (D).", "last_line", "(B), (D)"),
]


@pytest.mark.parametrize(
    ("response", "method", "text"),
    EXTRACTIONS,
    ids=[
        "boxed",
        "nested-braces",
        "fbox",
        "last-box-wins",
        "bare-boxed",
        "after-think",
        "minerva-ending",
        "answer-is-sentence",
        "markdown-bold",
        "answer-colon",
        "gsm8k-hash",
        "answer-on-next-line",
        "short-whole",
        "whole-with-unit",
        "whole-words",
        "prose-falls-back",
        "last-line-number",
        "aside-after-answer",
        "correction",
        "math-run-after-phrase",
        "trailing-clause",
        "conclusion-clause",
        "justification",
        "aside-sentence",
        "math-run-last-line",
        "bold",
        "choice-run",
    ],
)
def test_extraction(response: str, method: str, text: str) -> None:
    found = extract_answer(response)
    assert found is not None
    assert (found.method, found.text) == (method, text)


BOX_RUNS = [
    # Two different answers offered together: a hedge (the grader decides what it means).
    ("\\boxed{3} or \\boxed{5}", ("3", "5")),
    # Separated only by $ and a comma, still one run.
    ("$\\boxed{1}$, $\\boxed{2}$", ("1", "2")),
    # "x =" between boxes is a connective too.
    ("x = \\boxed{2} or x = \\boxed{-2}", ("2", "-2")),
    # The same box repeated is not a hedge: exact repeats collapse.
    ("\\boxed{3} and \\boxed{3}", ("3",)),
    # Boxes far apart are not offered together: only the last counts.
    ("\\boxed{3}. Wait, let me recheck the sign of the second term... \\boxed{5}", ("5",)),
]


@pytest.mark.parametrize(
    ("response", "candidates"),
    BOX_RUNS,
    ids=["or", "dollars-comma", "x-equals", "repeat", "far-apart"],
)
def test_box_runs(response: str, candidates: tuple[str, ...]) -> None:
    found = extract_answer(response)
    assert found is not None
    assert found.candidates == candidates


@pytest.mark.parametrize(
    "response",
    [
        # Nothing at all.
        "",
        # Only thinking, nothing after </think>.
        "<think>the answer is \\boxed{4}</think>   ",
        # A sentence with no number on its last line.
        "It is hard to say.\nI am not sure at all about this one.",
        # An unclosed box is not an answer (and not a crash).
        "The value is \\boxed{\\frac{1}{2",
        # Cut off mid-sentence: 360 is an input, not the answer.
        "The distance is 360 km and the time is",
        # Cut off while thinking: <think> never closes.
        "<think>\nAdding 7 gives 3x = 27. Then dividing",
        # An answer marker with nothing after it.
        "Work done.\nAnswer:",
        # A phrase cut off before its answer.
        "The answer is not 5, it is",
        # A first-person non-answer.
        "I don't know.",
    ],
    ids=[
        "empty",
        "think-only",
        "no-number",
        "unclosed-box",
        "cut-off",
        "unclosed-think",
        "bare-marker",
        "cut-off-phrase",
        "first-person",
    ],
)
def test_nothing_extractable(response: str) -> None:
    assert extract_answer(response) is None


NORMALIZED = [
    # \dfrac and \tfrac are \frac.
    ("\\dfrac{1}{2}", "\\frac{1}{2}"),
    # Shorthand \frac12 and \sqrt3 get their braces.
    ("\\tfrac12+\\sqrt3", "\\frac{1}{2}+\\sqrt{3}"),
    # Math delimiters go.
    ("$\\frac{1}{2}$", "\\frac{1}{2}"),
    # \left and \right go, the brackets stay.
    ("\\left( 1, 2 \\right]", "( 1, 2 ]"),
    # Unicode minus (U+2212) and en dash are ASCII minus.
    ("\u22125 \u2013 2", "-5 - 2"),
    # Thousands separators, three spellings.
    ("1,000,000", "1000000"),
    ("1\\,000", "1000"),
    ("1{,}000", "1000"),
    # ... but not inside a point, where the comma separates coordinates.
    ("(5,100)", "(5,100)"),
    # Units in \text, with a power.
    ("5\\text{ cm}^2", "5"),
    # Units as plain words.
    ("12 dollars", "12"),
    # Currency: escaped dollar with a thin space.
    ("\\$\\,12.50", "12.50"),
    # Degrees, LaTeX and Unicode.
    ("30^\\circ", "30"),
    ("30\u00b0", "30"),
    # Degrees stay where a trigonometric function needs them.
    ("\\sin 30^\\circ", "\\sin 30^\\circ"),
    # Every percent spelling becomes \%, which is kept for the comparison to decide.
    ("50%", "50\\%"),
    ("50 percent", "50\\%"),
    # \text{} unwrapped, and "or" between answers is a comma.
    ("\\text{3 or 5}", "3, 5"),
    ("3 \\text{ and } 5", "3, 5"),
    # A trailing period is punctuation, a factorial is not.
    ("5.", "5"),
    ("5!", "5!"),
    # A variable after a number is not a unit.
    ("2 x", "2 x"),
    # Double backslash rows of a matrix survive the spacing cleanup.
    ("\\begin{pmatrix}1\\\\2\\end{pmatrix}", "\\begin{pmatrix}1\\\\2\\end{pmatrix}"),
]


@pytest.mark.parametrize(
    ("raw", "normalized"),
    NORMALIZED,
    ids=[
        "dfrac",
        "shorthand",
        "dollars-delimiters",
        "left-right",
        "unicode-minus",
        "thousands-comma",
        "thousands-thin-space",
        "thousands-braced-comma",
        "point-keeps-comma",
        "text-unit-power",
        "word-unit",
        "currency",
        "degrees-latex",
        "degrees-unicode",
        "degrees-in-trig",
        "percent-plain",
        "percent-word",
        "text-or",
        "text-and",
        "trailing-period",
        "factorial",
        "variable-not-unit",
        "matrix-rows",
    ],
)
def test_normalize(raw: str, normalized: str) -> None:
    assert normalize_answer(raw) == normalized


def test_string_key_ignores_spacing_around_symbols() -> None:
    # "x = 3" and "x=3" are the same answer; "\pi r" keeps its space (it is not "\pir").
    assert string_key("x = 3") == string_key("x=3")
    assert string_key("\\pi r") != string_key("\\pir")
