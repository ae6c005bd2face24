"""The math verifier's contract: references in, typed verdicts with named checks out."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
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
    # Percent as fraction only when the reference asks.
    ("\\boxed{0.5}", "50\\%", Status.INCORRECT),
    ("\\boxed{0.5}", {"answer": "50\\%", "percent_as_fraction": True}, Status.CORRECT),
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
        # Neither a string nor a number.
        ["1"],
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
        "list",
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
def no_string_evaluation(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail the test if any text reaches sympy's string parser (which ends in eval)."""
    import latex2sympy2_extended.latex2sympy2 as l2s
    from sympy.parsing import sympy_parser

    original = sympy_parser.parse_expr

    def forbidden(text: str, *args: Any, **kwargs: Any) -> Any:
        # The LaTeX lexer hands its number tokens (digits only) to sympy.Number: harmless.
        if isinstance(text, str) and re.fullmatch(r"[\d.,\s]+", text):
            return original(text, *args, **kwargs)
        raise AssertionError(f"string evaluation attempted: {text!r}")

    monkeypatch.setattr(sympy_parser, "parse_expr", forbidden)
    monkeypatch.setattr(l2s, "parse_expr", forbidden)
    yield


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
    verifier: MathVerifier, no_string_evaluation: None, response: str
) -> None:
    verdict = run(verifier, response, "5")
    assert verdict.status in (Status.INCORRECT, Status.UNPARSABLE)


def test_plain_text_math_needs_no_eval(verifier: MathVerifier, no_string_evaluation: None) -> None:
    # Plain-text math is transliterated to LaTeX; parse_expr is never called.
    assert run(verifier, "\\boxed{sqrt(3)/3 + x**2}", "x^2 + \\frac{1}{\\sqrt{3}}").score == 1.0


def test_class_attributes() -> None:
    # Registry keys: name, version, aliases, verl data sources, timeout, fixtures.
    assert (MathVerifier.name, MathVerifier.version) == ("math", "1.1.0")
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
