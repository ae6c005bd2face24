"""The math verifier's contract: references in, typed verdicts with named checks out."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import assay.verifiers.math as math_checks
import pytest
from assay.domains.math import MathVerifier

from assay.errors import MalformedTaskError
from assay.types import JSON, Record, Status, Verdict

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def verifier() -> MathVerifier:
    instance = MathVerifier()
    instance.setup()
    return instance


def run(verifier: MathVerifier, response: str, reference: JSON) -> Verdict:
    return verifier.verify(Record(id="t", domain="math", response=response, reference=reference))


def check(verdict: Verdict, name: str) -> Any:
    return next(c for c in verdict.checks if c.name == name)


VERDICTS = [
    # verl's plain-string ground truth, answer in a box.
    ("So $\\boxed{\\dfrac{1}{2}}$.", "0.5", Status.CORRECT),
    # A dict reference with "answer".
    ("\\boxed{12}", {"answer": "12"}, Status.CORRECT),
    # "ground_truth" is accepted as the answer key.
    ("\\boxed{12}", {"ground_truth": "12"}, Status.CORRECT),
    # A JSON number (the CLI decodes --reference 1000) is read as its literal.
    ("#### 1,000", 1000, Status.CORRECT),
    ("\\boxed{0.25}", {"answer": 0.25}, Status.CORRECT),
    # A gold that is a whole solution is reduced to its last box.
    ("\\boxed{5}", "so it is $\\boxed{5}$", Status.CORRECT),
    # A GSM8K gold solution ends with "#### 72".
    ("The answer is 72.", "48 + 24 = 72\n#### 72", Status.CORRECT),
    # A wrong number is incorrect, not unparsable.
    ("\\boxed{13}", "12", Status.INCORRECT),
    # Hedging is not credited.
    ("\\boxed{3} or \\boxed{5}", "3", Status.INCORRECT),
    # ... unless the gold itself is a list that long.
    ("\\boxed{3} or \\boxed{5}", "3, 5", Status.CORRECT),
    ("$\\boxed{5}$ and $\\boxed{3}$", "\\{3, 5\\}", Status.CORRECT),
    # Two boxes with the same value are a restatement, not a hedge.
    ("\\boxed{\\frac{1}{2}} = \\boxed{0.5}", "1/2", Status.CORRECT),
    # Nothing to extract.
    ("I do not know how to solve this problem at all.", "5", Status.UNPARSABLE),
    # Extracted, but not math or text.
    ("\\boxed{__import__('os').system('ls')}", "5", Status.UNPARSABLE),
    # Cut off inside the box.
    ("Hence \\boxed{\\frac{3}{", "\\frac{3}{4}", Status.UNPARSABLE),
    # Exact comparison of big integers.
    ("\\boxed{2^{100}+1}", "2^{100}", Status.INCORRECT),
    # A power too large to print still yields a verdict.
    ("\\boxed{2^{2^{2^{2^{2}}}}}", "1", Status.INCORRECT),
    # A percent reference equals its fraction (issue 15); the reverse only when asked.
    ("\\boxed{0.5}", "50\\%", Status.CORRECT),
    ("\\boxed{50\\%}", {"answer": "0.5", "percent_as_fraction": True}, Status.CORRECT),
    # Order is forced by the reference.
    ("\\boxed{2, 1}", {"answer": "1, 2", "ordered": True}, Status.INCORRECT),
    # Tolerance is relative and set by the reference.
    ("\\boxed{3.14}", {"answer": "\\pi", "tolerance": 0.001}, Status.CORRECT),
    # Units, currency and thousands separators in a GSM8K-style answer.
    ("She pays \\$1,250 dollars in total.\n#### \\$1,250", "1250", Status.CORRECT),
    # A text answer.
    ("The day is $\\boxed{\\text{Monday}}$.", "\\text{monday}", Status.CORRECT),
    # A multiple-choice letter with its option text.
    ("The answer is (C) 12.", "C", Status.CORRECT),
    # Hedging between two letters in a sentence.
    ("It is either (B) or (D).", "B", Status.INCORRECT),
    # A scalar times a matrix against the entries of their product.
    (
        "\\boxed{\\frac{1}{4}\\begin{pmatrix} 2 & 0 \\\\ 0 & 1 \\end{pmatrix}}",
        "\\begin{pmatrix} \\frac{1}{2} & 0 \\\\ 0 & \\frac{1}{4} \\end{pmatrix}",
        Status.CORRECT,
    ),
    # Cut off mid-sentence: the numbers in it are inputs, not an answer.
    ("We subtract 47 from 280 to get", "233", Status.UNPARSABLE),
    # An absurdly long "answer" is refused without being parsed: too costly, the response's fault.
    ("\\boxed{" + "1+" * 600 + "1}", "1201", Status.INCORRECT),
]


@pytest.mark.parametrize(
    ("response", "reference", "status"),
    VERDICTS,
    ids=[
        "string-reference",
        "dict-answer",
        "dict-ground-truth",
        "int-reference",
        "float-answer",
        "gold-solution-boxed",
        "gold-solution-hash",
        "wrong-number",
        "hedge",
        "hedge-as-list",
        "hedge-as-set",
        "restated-box",
        "nothing-extracted",
        "not-math",
        "cut-off-box",
        "big-integers",
        "huge-power",
        "percent-default",
        "percent-as-fraction",
        "ordered",
        "tolerance",
        "gsm8k-units",
        "text-answer",
        "choice-with-text",
        "choice-hedge",
        "scalar-times-matrix",
        "cut-off",
        "too-long",
    ],
)
def test_verdict(verifier: MathVerifier, response: str, reference: JSON, status: Status) -> None:
    verdict = run(verifier, response, reference)
    assert verdict.status is status, verdict.message
    assert verdict.score == (1.0 if status is Status.CORRECT else 0.0)


CHECK_NAMES = [
    # The common path: all three checks.
    ("\\boxed{3}", "3", ["extraction", "parse", "equivalence"]),
    # A hedge stops at the hedging check.
    ("\\boxed{3} or \\boxed{5}", "3", ["extraction", "hedging"]),
    # A hedge read as the gold's list is then compared as usual.
    ("\\boxed{3}, \\boxed{5}", "3, 5", ["extraction", "hedging", "parse", "equivalence"]),
    # Nothing extracted: only the failed extraction.
    ("I could not solve it.", "3", ["extraction"]),
    # Not readable: extraction then a failed parse.
    ("\\boxed{\\frac{1}{}}", "3", ["extraction", "parse"]),
]


@pytest.mark.parametrize(
    ("response", "reference", "names"),
    CHECK_NAMES,
    ids=["compared", "hedged", "hedge-as-list", "nothing", "unreadable"],
)
def test_check_names(
    verifier: MathVerifier, response: str, reference: str, names: list[str]
) -> None:
    assert [c.name for c in run(verifier, response, reference).checks] == names


def test_check_evidence(verifier: MathVerifier) -> None:
    # Every check carries the evidence an audit needs.
    verdict = run(verifier, "Thus $\\boxed{2x+2}$.", "2(x+1)")
    extraction = check(verdict, "extraction").evidence
    assert (extraction["method"], extraction["text"]) == ("boxed", "2x+2")
    parsed = check(verdict, "parse").evidence
    assert (parsed["answer_kind"], parsed["gold_kind"]) == ("expression", "expression")
    assert parsed["answer"] == parsed["gold"] == "2*x + 2"
    equivalence = check(verdict, "equivalence")
    assert equivalence.passed
    assert equivalence.evidence["method"] == "symbolic"
    assert equivalence.evidence["tolerance"] == 1e-6


def test_hedging_evidence(verifier: MathVerifier) -> None:
    # The hedge names its candidates and the size of the gold it was measured against.
    verdict = run(verifier, "$\\boxed{3}$ or $\\boxed{5}$", "3")
    hedging = check(verdict, "hedging")
    assert not hedging.passed
    assert hedging.evidence == {"candidates": ["3", "5"], "gold_size": 1, "credited": False}


def test_unparsable_says_why(verifier: MathVerifier) -> None:
    # An unparsable verdict carries a message (the Verdict type requires one).
    verdict = run(verifier, "\\boxed{__import__('os')}", "5")
    assert verdict.status is Status.UNPARSABLE
    assert verdict.message is not None
    assert "unknown word" in verdict.message


@pytest.mark.parametrize(
    "reference",
    [
        # Missing.
        None,
        # Empty or blank.
        "",
        "   ",
        # Neither a string nor a number (nor a list of those).
        [],
        True,
        float("nan"),
        # A dict without the answer.
        {"tolerance": 0.1},
        # A dict whose answer is not a string.
        {"answer": None},
        {"answer": ""},
        # Options of the wrong type.
        {"answer": "1", "tolerance": "small"},
        {"answer": "1", "tolerance": -1.0},
        {"answer": "1", "tolerance": True},
        {"answer": "1", "ordered": "yes"},
        {"answer": "1", "percent_as_fraction": 1},
    ],
    ids=[
        "none",
        "empty",
        "blank",
        "empty-list",
        "bool",
        "nan",
        "no-answer",
        "answer-none",
        "answer-empty",
        "tolerance-str",
        "tolerance-negative",
        "tolerance-bool",
        "ordered-str",
        "percent-int",
    ],
)
def test_malformed_reference(verifier: MathVerifier, reference: JSON) -> None:
    with pytest.raises(MalformedTaskError):
        run(verifier, "\\boxed{1}", reference)


HOSTILE = [
    # Python code in a box.
    "\\boxed{__import__('os').system('echo pwned')}",
    # Python code as a plain one-line answer.
    "exec('import os')",
    # Lambda and attribute access.
    "\\boxed{(lambda: 1)()}",
    # Deep nesting.
    "\\boxed{" + "(" * 300 + "1" + ")" * 300 + "}",
    # Unbalanced braces and brackets.
    "\\boxed{(1, 2]]]}}",
    # A huge literal.
    "\\boxed{" + "9" * 5000 + "}",
    # Control characters and odd Unicode.
    "\\boxed{\x00\x1b[31m\u202e1}",
    # A set-builder the structure reader does not handle.
    "\\boxed{\\{x \\mid x > 2\\}}",
]


@pytest.fixture
def string_evaluations(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every text handed to sympy's string parser (``sympify`` of a str ends there, then in eval).

    The spy records and passes through, so no ``except`` between it and the test can hide a call;
    the parse caches are cleared so text seen earlier in the session takes the real path again.
    """
    import importlib

    import latex2sympy2_extended.latex2sympy2 as l2s
    from sympy.parsing import sympy_parser

    grade, parse, scalar = (
        importlib.import_module(f"assay.verifiers.math.{name}")
        for name in ("grade", "parse", "scalar")
    )

    original = sympy_parser.parse_expr
    calls: list[str] = []

    def recording(text: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(str(text))
        return original(text, *args, **kwargs)

    monkeypatch.setattr(sympy_parser, "parse_expr", recording)
    monkeypatch.setattr(l2s, "parse_expr", recording)
    caches = (scalar.parse_latex, parse.parse_answer, grade.prepare_gold)
    for cached in caches:
        cached.cache_clear()
    yield calls
    for cached in caches:
        cached.cache_clear()


def test_string_evaluation_spy_sees_sympy_number(string_evaluations: list[str]) -> None:
    # The spy itself bites: latex2sympy2's own number reading (sympy.Number(text)) is caught.
    import sympy

    assert sympy.Number("12") == 12
    assert string_evaluations == ["12"]


@pytest.mark.parametrize(
    "response",
    HOSTILE,
    ids=[
        "python-in-box",
        "python-plain",
        "lambda",
        "deep-nesting",
        "unbalanced",
        "huge-literal",
        "control-chars",
        "set-builder",
    ],
)
def test_hostile_output_is_a_verdict(
    verifier: MathVerifier, string_evaluations: list[str], response: str
) -> None:
    verdict = run(verifier, response, "5")
    assert verdict.status in (Status.INCORRECT, Status.UNPARSABLE)
    assert string_evaluations == []


# Answers whose numbers go through the LaTeX parser (not the plain-literal fast path).
NUMBERS_IN_EXPRESSIONS = [
    ("\\boxed{sqrt(3)/3 + x**2}", "x^2 + \\frac{1}{\\sqrt{3}}", 1.0),
    ("\\boxed{0.5x + 2}", "\\frac{x}{2} + 2", 1.0),
    ("\\boxed{1.5E-7 \\pi}", "1.5 \\times 10^{-7} \\pi", 1.0),
    ("\\boxed{1,000 + x}", "x + 1000", 1.0),
    ("\\boxed{007 y}", "7y", 1.0),
    ("\\boxed{3.25 + \\sqrt{2}}", "\\frac{13}{4} + \\sqrt{2}", 1.0),
    ("\\boxed{2.5 + \\sqrt{2}}", "3 + \\sqrt{2}", 0.0),
]


@pytest.mark.parametrize(("response", "reference", "score"), NUMBERS_IN_EXPRESSIONS)
def test_numbers_in_expressions_need_no_eval(
    verifier: MathVerifier,
    string_evaluations: list[str],
    response: str,
    reference: str,
    score: float,
) -> None:
    # Plain-text math is transliterated to LaTeX, and the LaTeX parser's number tokens are read
    # with int / sympy.Float: parse_expr is never called, yet the numbers keep their values.
    assert run(verifier, response, reference).score == score
    assert string_evaluations == []


# Texts whose parse must not change by replacing latex2sympy2's sympy.Number(text) calls.
LIBRARY_PARITY = [
    "0.5x",
    "1.5E-7",
    "2e10 + y",
    "1,000.5",
    "-1,000",
    "0,111",
    "1,234,567",
    "00.5 + x",
    "3. + x",
    "007",
    "0.1234567890123456789012 x",
    "10\\%",
    "\\frac{1.25}{x}",
    "2^{0.5}",
    "[1.5, 2)",
    "\\{1, 2.5\\}",
    "f(1.5, 2)",
    "\\max(1.5, 2, 3)",
    "x = 2.5",
]


@pytest.mark.parametrize("latex", LIBRARY_PARITY)
def test_number_reading_matches_the_library(latex: str, string_evaluations: list[str]) -> None:
    from assay.verifiers.math import scalar
    from latex2sympy2_extended import latex2sympy

    ours = outcome(
        lambda: scalar._converter_class()(None, is_real=True, convert_degrees=True).parse(latex)
    )
    assert string_evaluations == []
    theirs = outcome(
        lambda: latex2sympy(latex, is_real=True, convert_degrees=True, normalization_config=None)
    )
    assert ours == theirs


def outcome(parse: Callable[[], Any]) -> tuple[str, str]:
    """``("ok", srepr of the result)`` or ``("raises", "")``: what a parse came to."""
    import sympy

    try:
        return ("ok", str(sympy.srepr(parse())))
    except Exception:
        return ("raises", "")


class UnexpectedError(Exception):
    """Stands in for a bug inside the parser."""


@pytest.mark.parametrize("bug", [AssertionError("bug"), KeyError("bug"), UnexpectedError("bug")])
def test_a_bug_in_the_parser_is_not_unparsable(
    monkeypatch: pytest.MonkeyPatch, verifier: MathVerifier, bug: Exception
) -> None:
    # Only the parser's bare Exception and sympy's own errors mean "not math"; anything else is a
    # verifier bug and must propagate instead of turning into an unparsable verdict.
    from assay.verifiers.math import scalar

    def broken(self: Any, text: str) -> Any:
        raise bug

    monkeypatch.setattr(scalar._converter_class(), "parse_number", broken)
    scalar.parse_latex.cache_clear()
    try:
        with pytest.raises(type(bug)):
            scalar.parse_latex("x + 2")
    finally:
        scalar.parse_latex.cache_clear()


def test_class_attributes() -> None:
    # Registry keys: name, version, aliases, verl data sources, timeout, fixtures.
    assert (MathVerifier.name, MathVerifier.version) == ("math", "1.5.2")
    assert MathVerifier.aliases == ("gsm8k", "competition_math")
    assert "HuggingFaceH4/MATH-500" in MathVerifier.data_sources
    assert "aime*" in MathVerifier.data_sources
    assert MathVerifier.default_timeout_s == 5.0
    assert MathVerifier.fixtures == ROOT / "fixtures" / "math" / "cases.jsonl"


def test_namespace_layout() -> None:
    # verifiers/ contributes to the assay namespace without an assay/__init__.py of its own.
    assert not (ROOT / "verifiers" / "assay" / "__init__.py").exists()
    assert (ROOT / "verifiers" / "assay" / "verifiers" / "__init__.py").exists()


def test_public_api() -> None:
    # __all__ lists exactly the public names the package exports (submodules aside).
    public = {
        name
        for name, value in vars(math_checks).items()
        if not name.startswith("_") and not inspect.ismodule(value) and name != "annotations"
    }
    assert set(math_checks.__all__) == public
