"""A verifier whose verdicts carry everything JSON cannot hold: it attacks the output path.

The response chooses the behaviour: ``raise:<text>`` raises an exception whose message is the
text (lone surrogates included); anything else is echoed into the verdict's message, a check's
name, message and evidence and a step, next to values no JSON encoder takes as they are (NaN,
infinities, an integer of 5,000 digits, a set, bytes, a tuple key, a cycle, a structure nested
300 levels deep, an object whose ``repr`` raises, a lambda that cannot be pickled).
"""

from __future__ import annotations

import math
from typing import Any

from assay.types import Check, Record, StepResult, Verdict
from assay.verifier import Verifier

SURROGATES = "\ud800|\udfff|\ud83d\ude00"
"""Two lone surrogates and a pair (the pair is one character, U+1F600): never in a response,
since the reader cleans them, so the verifier adds them itself."""


class Unprintable:
    """An object whose ``repr`` and ``str`` raise."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    __str__ = __repr__


def hostile_evidence(text: str) -> dict[Any, Any]:
    """Evidence with the response's text and every kind of value JSON refuses."""
    cycle: list[Any] = [text]
    cycle.append(cycle)
    deep: list[Any] = []
    for _ in range(300):
        deep = [deep]
    return {
        "text": text,
        text: "the response as a key",
        "nan": math.nan,
        "floats": [math.inf, -math.inf, 1e308 * 10, -0.0, 5e-324],
        "big": 10**5000,
        "set": {3, 1, 2},
        "bytes": b"\xff\xfe" + text.encode("utf-8", "surrogatepass"),
        (1, "two"): "a tuple key",
        7: "an int key",
        "cycle": cycle,
        "deep": deep,
        "unprintable": Unprintable(),
        "lambda": lambda: text,
    }


class HostileOutputVerifier(Verifier):
    """``raise:<text>`` raises ``ValueError(text)``; any other response is echoed, incorrect."""

    name = "hostile-output"
    version = "1"
    default_timeout_s = 20.0

    def verify(self, record: Record) -> Verdict:
        text = record.response + SURROGATES
        if text.startswith("raise:"):
            raise ValueError(text[len("raise:") :])
        check = Check(f"echo {text}", False, math.nan, text, hostile_evidence(text))
        step = StepResult(0, text, False, 0.0, text, hostile_evidence(text))
        return Verdict.incorrect((check,), (step,), message=text)
