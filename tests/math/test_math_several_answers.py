"""Math references that list several acceptable answers, as RL datasets ship them.

- Skywork-OR1-RL-Data (and the sets built from it) keep ``reward_model.ground_truth`` as the
  *text* of a Python list of answer strings, ``"['\\\\frac{1}{2}']"``; their loaders take
  ``ast.literal_eval(ground_truth)`` and a response is right when it matches any of them.
- Other sets give a JSON list of answers (``["12", "12.0"]``), bare or under ``answer``.

The labels are by hand, from the answers themselves: a response is right when its final
answer equals one of the listed answers. A list of *numbers* written as text (``"[1, 2]"``)
is one answer, a list, as before.
"""

from __future__ import annotations

from typing import Any

import pytest
from assay.domains.math import MathVerifier

from assay.errors import MalformedTaskError
from assay.types import Record, Status


@pytest.fixture(scope="module")
def verifier() -> MathVerifier:
    instance = MathVerifier()
    instance.setup()
    return instance


HALF = "... so the probability is $\\boxed{\\frac{1}{2}}$."
CASES: list[tuple[str, Any, str, Status]] = [
    ("skywork-one", "['\\\\frac{1}{2}']", HALF, Status.CORRECT),
    ("skywork-one-decimal", "['\\\\frac{1}{2}']", "The answer is $\\boxed{0.5}$", Status.CORRECT),
    ("skywork-one-wrong", "['\\\\frac{1}{2}']", "$\\boxed{\\frac{1}{3}}$", Status.INCORRECT),
    ("skywork-json-quotes", '["\\\\frac{1}{2}"]', HALF, Status.CORRECT),
    ("skywork-two-second", "['36', '36^\\\\circ']", "So $\\boxed{36^\\circ}$.", Status.CORRECT),
    ("skywork-two-first", "['36', '36^\\\\circ']", "Final answer: 36", Status.CORRECT),
    ("skywork-two-wrong", "['36', '36^\\\\circ']", "$\\boxed{63}$", Status.INCORRECT),
    ("bare-backslash-list", "['\\frac{1}{2}', '\\sqrt{2}']", HALF, Status.CORRECT),
    (
        "bare-backslash-second",
        "['\\frac{1}{2}', '\\sqrt{2}']",
        "$\\boxed{\\sqrt{2}}$",
        Status.CORRECT,
    ),
    ("skywork-nothing", "['7']", "I am not sure.", Status.UNPARSABLE),
    ("json-list", ["12", "12.0"], "#### 12", Status.CORRECT),
    ("json-list-wrong", ["12", "12.0"], "#### 13", Status.INCORRECT),
    ("json-list-numbers", [3, "x = 3"], "$\\boxed{3}$", Status.CORRECT),
    (
        "answer-key-list",
        {"answer": ["\\sqrt{2}", "2^{1/2}"]},
        "$\\boxed{\\sqrt 2}$",
        Status.CORRECT,
    ),
    (
        "answer-key-list-tolerance",
        {"answer": ["3.14159", "\\pi"], "tolerance": 1e-3},
        "$\\boxed{3.1416}$",
        Status.CORRECT,
    ),
    ("numbers-text-is-one-list", "[1, 2]", "$\\boxed{[1, 2]}$", Status.CORRECT),
    ("numbers-text-not-either", "[1, 2]", "$\\boxed{1}$", Status.INCORRECT),
    ("one-number-in-brackets", "[3]", "$\\boxed{3}$", Status.CORRECT),
    # attacks: a response that names several candidates is a hedge, whatever the list allows
    ("hedge-over-the-list", "['3', '5']", "$\\boxed{3}$ or $\\boxed{5}$", Status.INCORRECT),
    ("hedge-one-right", ["3"], "It is $\\boxed{3}$ or maybe $\\boxed{4}$.", Status.INCORRECT),
    ("list-of-the-answers", "['3', '5']", "$\\boxed{3, 5}$", Status.INCORRECT),
]


@pytest.mark.parametrize(
    ("reference", "response", "status"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_several_acceptable_answers(
    verifier: MathVerifier, reference: Any, response: str, status: Status
) -> None:
    record = Record(id="t", domain="math", response=response, reference=reference)
    verdict = verifier.verify(record)
    assert verdict.status is status, verdict.message


@pytest.mark.parametrize(
    "reference",
    [[], {"answer": []}, [{"a": 1}], ["3", None], ["3", ""], [True], {"answer": [[1, 2]]}],
    ids=["empty", "empty-answer", "object", "null", "blank", "bool", "nested"],
)
def test_a_list_that_names_no_usable_answer_is_a_malformed_task(
    verifier: MathVerifier, reference: Any
) -> None:
    record = Record(id="t", domain="math", response="$\\boxed{3}$", reference=reference)
    with pytest.raises(MalformedTaskError, match="answer"):
        verifier.verify(record)


def test_the_text_of_an_empty_list_is_still_an_answer(verifier: MathVerifier) -> None:
    record = Record(id="t", domain="math", response="$\\boxed{[]}$", reference="[]")
    assert verifier.verify(record).status is not Status.ERROR
