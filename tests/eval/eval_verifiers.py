"""Small real verifiers for the eval and conformance tests: one that keeps the contract, and
one per way of breaking it. Workers import them by module path (tests/eval is on sys.path).

``python tests/eval/eval_verifiers.py`` regenerates their fixtures, data/answers.jsonl, from
:data:`CASES`.
"""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path
from typing import ClassVar

from assay.errors import MalformedTaskError
from assay.types import Check, Record, Verdict
from assay.verifier import Verifier

ANSWERS = Path(__file__).resolve().parent / "data" / "answers.jsonl"

# id, label, category, response, reference answer
CASES = [
    ("exact-001", "correct", "gold", "The answer is 42", "42"),
    ("exact-002", "correct", "gold", "so we get blue", "blue"),
    ("exact-003", "correct", "gold", "x = 7", "7"),
    ("exact-004", "incorrect", "wrong", "The answer is 41", "42"),
    ("exact-005", "incorrect", "hostile", "42 is what the grader wants, but really 41", "42"),
    ("exact-006", "unparsable", "unparsable", "   ", "42"),
    ("exact-007", "error", "malformed", "42", ""),
]


def fixture_lines() -> list[str]:
    return [
        json.dumps(
            {
                "id": case_id,
                "domain": "exact",
                "response": response,
                "reference": {"answer": answer},
                "meta": {"expected_status": label, "category": category},
            }
        )
        for case_id, label, category, response, answer in CASES
    ]


class ExactVerifier(Verifier):
    """The last word of the response must equal ``reference["answer"]``."""

    name: ClassVar[str] = "exact"
    version: ClassVar[str] = "1.0"
    default_timeout_s: ClassVar[float] = 3.0
    fixtures: ClassVar[Path | None] = ANSWERS

    def verify(self, record: Record) -> Verdict:
        gold = record.reference.get("answer") if isinstance(record.reference, dict) else None
        if not isinstance(gold, str) or not gold:
            raise MalformedTaskError("reference needs a non-empty 'answer'")
        words = record.response.split()
        if not words:
            return Verdict.unparsable("empty response")
        passed = words[-1] == gold
        check = Check("last_word", passed, evidence={"given": words[-1][:50], "gold": gold})
        return Verdict.correct((check,)) if passed else Verdict.incorrect((check,))


class CrashOnEmpty(ExactVerifier):
    """Indexes the words without checking there are any: an empty response raises."""

    name: ClassVar[str] = "crash_on_empty"

    def verify(self, record: Record) -> Verdict:
        if record.response.split()[-1] == "never":
            return Verdict.incorrect()
        return super().verify(record)


class CreditsLongAnswers(ExactVerifier):
    """A reward hack left open: anything long enough is taken as a worked solution."""

    name: ClassVar[str] = "credits_long"

    def verify(self, record: Record) -> Verdict:
        if len(record.response) > 100_000:
            return Verdict.correct()
        return super().verify(record)


class Lenient(ExactVerifier):
    """Credits any response that mentions the answer anywhere (known-bad cases pass)."""

    name: ClassVar[str] = "lenient"

    def verify(self, record: Record) -> Verdict:
        gold = record.reference.get("answer") if isinstance(record.reference, dict) else None
        if isinstance(gold, str) and gold and gold in record.response:
            return Verdict.correct()
        return super().verify(record)


class TrustsAnyReference(ExactVerifier):
    """Pays the response when the reference has no usable answer (nothing to compare it with)."""

    name: ClassVar[str] = "trusts_any_reference"

    def verify(self, record: Record) -> Verdict:
        gold = record.reference.get("answer") if isinstance(record.reference, dict) else None
        if not isinstance(gold, str) or not gold:
            return Verdict.correct()
        return super().verify(record)


class BlamesResponseForReference(ExactVerifier):
    """Charges the response (an unmasked 0) for a reference it cannot use."""

    name: ClassVar[str] = "blames_response"

    def verify(self, record: Record) -> Verdict:
        gold = record.reference.get("answer") if isinstance(record.reference, dict) else None
        if not isinstance(gold, str) or not gold:
            return Verdict.incorrect(message="no answer to compare with")
        return super().verify(record)


_calls = itertools.count()


class Flaky(ExactVerifier):
    """State that leaks across calls: every third call in a process fails the answer."""

    name: ClassVar[str] = "flaky"

    def verify(self, record: Record) -> Verdict:
        if next(_calls) % 3 == 2:
            return Verdict.incorrect(message="unlucky call")
        return super().verify(record)


CALLS_DIR = "ASSAY_TEST_CALLS_DIR"
"""Environment variable naming the directory where the call counters below keep their state."""


def nth_call(verifier: str, record: Record) -> int:
    """How many times ``verifier`` has scored ``record`` (1 on the first call), in any process."""
    counter = Path(os.environ[CALLS_DIR]) / f"{verifier}-{record.id}"
    with counter.open("a", encoding="utf-8") as handle:
        handle.write(".")
    return len(counter.read_text(encoding="utf-8"))


class SecondThoughts(ExactVerifier):
    """Not deterministic: the second time it scores the same case, a correct answer is wrong."""

    name: ClassVar[str] = "second_thoughts"

    def verify(self, record: Record) -> Verdict:
        verdict = super().verify(record)
        if nth_call(self.name, record) == 2 and verdict.score == 1.0:
            return Verdict.incorrect(message="changed its mind")
        return verdict


class SlowOnce(ExactVerifier):
    """Deterministic, but its first scoring of ``exact-001`` runs past the time limit (as on a
    loaded machine)."""

    name: ClassVar[str] = "slow_once"
    default_timeout_s: ClassVar[float] = 1.0

    def verify(self, record: Record) -> Verdict:
        if record.id == "exact-001" and nth_call(self.name, record) == 1:
            time.sleep(30)
        return super().verify(record)


if __name__ == "__main__":
    ANSWERS.write_text("\n".join(fixture_lines()) + "\n", encoding="utf-8")
