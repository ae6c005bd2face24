"""Attacks on the math verifier's cost: answers made to hang, fill memory or crash the check.

An attacker under RL who cannot answer tries to make the check fail in a masked way (a
`timeout` or `error` escapes the negative reward). Every answer here must be the response's
fault: `incorrect`, score 0, a failed `too_costly` check, never masked, paid no more than an
honest wrong answer; and the batch it is in goes on. Scored through the real worker pool.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from assay.domains.math.verifier import MathVerifier
from assay.rewards.spec import RewardSpec

from assay.blame import TOO_COSTLY
from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer
from assay.types import Record, Result, Status

GOLD = "2"
HONEST_WRONG = "The answer is $\\boxed{3}$."

ATTACKS = [
    # A tower of powers: ten billion digits.
    ("tower-ten", "$\\boxed{10^{10^{10}}}$"),
    # A tower of twos, six high.
    ("tower-twos", "$\\boxed{2^{2^{2^{2^{2^{2}}}}}}$"),
    # Nines, three high: 369 million digits.
    ("tower-nines", "$\\boxed{9^{9^{9}}}$"),
    # A tower written with a radical base.
    ("radical-power", "$\\boxed{\\sqrt{2}^{10^{8}}}$"),
    # A power of an irrational base that sympy would expand.
    ("irrational-power", "$\\boxed{(1+\\sqrt{2})^{10^{6}}}$"),
    # The factorial of ten billion.
    ("factorial-power", "$\\boxed{(10^{10})!}$"),
    # A million factorial: 5.5 million digits.
    ("factorial-million", "$\\boxed{1000000!}$"),
    # Factorials stacked.
    ("factorial-stack", "$\\boxed{10!!!!}$"),
    ("factorial-nested", "$\\boxed{((10!)!)!}$"),
    # A binomial coefficient of a billion.
    ("binomial", "$\\boxed{\\binom{10^{9}}{5 \\cdot 10^{8}}}$"),
    # A variable to an absurd power.
    ("symbolic-power", "$\\boxed{x^{10^{10}}}$"),
    # Literal exponents and powers of ten past the literal limits.
    ("e-notation", "$\\boxed{1e99999}$"),
    ("times-ten", "$\\boxed{2 \\times 10^{5000}}$"),
    # A million-digit power of two (cheap to build, too large to compare honestly).
    ("huge-power", "$\\boxed{2^{3321928}}$"),
    # An enormous digit string and a long input.
    ("digit-string", "$\\boxed{" + "9" * 1001 + "}$"),
    ("long-sum", "$\\boxed{" + "1+" * 600 + "1}$"),
    # Deep nesting: brackets for the LaTeX parser, tuples for the structure reader.
    ("deep-brackets", "$\\boxed{" + "\\left(" * 45 + "1" + "\\right)" * 45 + "}$"),
    ("deep-tuples", "$\\boxed{" + "(" * 60 + "1" + ")" * 60 + "}$"),
    # A hedge whose every candidate is too costly.
    ("costly-hedge", "$\\boxed{10^{10^{10}}}$ or $\\boxed{9^{9^{9}}}$"),
    # Costly inside a list, against a list gold of the same length.
    ("costly-element", "$\\boxed{1, 10^{10^{10}}}$"),
]


@pytest.fixture(scope="module")
def scored() -> Iterator[dict[str, Result]]:
    """Every attack and the honest wrong answer in one batch: none may stop the batch."""
    cases = [("honest-wrong", HONEST_WRONG), *ATTACKS]
    rows = [
        RawRow(i, {"id": name, "domain": "math", "response": text, "reference": GOLD})
        for i, (name, text) in enumerate(cases)
    ]
    with Scorer(ScoreOptions(workers=2, timeout_s=5.0)) as scorer:
        yield {result.id: result for result in scorer.score_rows(rows)}


@pytest.mark.parametrize(("name", "response"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_costly_answer_is_the_responses_fault(
    scored: dict[str, Result], name: str, response: str
) -> None:
    verdict = scored[name].verdict
    assert verdict.status is Status.INCORRECT, verdict.message
    assert verdict.score == 0.0
    failed = [check.name for check in verdict.checks if not check.passed]
    if name == "costly-hedge":  # every candidate is refused, so the hedge pays nothing
        assert failed == ["hedging"]
    else:
        assert failed == [TOO_COSTLY], verdict.message
    honest = RewardSpec().reward(scored["honest-wrong"].verdict)
    hostile = RewardSpec().reward(verdict)
    assert not hostile.masked
    assert hostile.reward <= honest.reward


@pytest.mark.parametrize(
    ("response", "gold"),
    [
        # Cheap big numbers are still compared, not refused.
        ("$\\boxed{2^{1000}}$", "2^{1000}"),
        ("$\\boxed{2^{10^{3}}}$", "2^{1000}"),
        ("$\\boxed{\\binom{10^{9}}{2}}$", "499999999500000000"),
        ("$\\boxed{20!}$", "2432902008176640000"),
        ("$\\boxed{10^{10^{4}}}$", "10^{10000}"),
    ],
)
def test_large_but_cheap_answers_are_still_checked(response: str, gold: str) -> None:
    verdict = MathVerifier().verify(Record("c", "math", response, gold))
    assert verdict.status is Status.CORRECT, verdict.message


@pytest.mark.parametrize(
    "response",
    [
        # An int of 5,000 digits where a decimal is expected.
        "$\\boxed{" + "9" * 999 + "}$",
        # An int too large for float() against an inexact gold.
        "$\\boxed{2^{16000}}$",
        # Its reciprocal.
        "$\\boxed{\\frac{1}{2^{100000}}}$",
    ],
)
def test_values_that_would_crash_a_comparison_are_incorrect(response: str) -> None:
    """Against the inexact gold 0.5 (tolerance compare, float printing): a plain incorrect."""
    verdict = MathVerifier().verify(Record("c", "math", response, "0.5"))
    assert verdict.status is Status.INCORRECT, verdict.message


def test_a_costly_reference_is_the_tasks_fault() -> None:
    """The same tower as a gold answer is a malformed task (masked), not the response's."""
    rows = [RawRow(0, {"id": "g", "domain": "math", "response": "$\\boxed{2}$",
                       "reference": "10^{10^{10}}"})]  # fmt: skip
    with Scorer(ScoreOptions(workers=0)) as scorer:
        (result,) = scorer.score_rows(rows)
    assert result.status is Status.ERROR
    assert "too costly" in (result.verdict.message or "")
