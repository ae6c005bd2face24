"""The shared reader (assay.verifiers.reading) against the three readers it is to replace.

Timing, in one run (every domain now reads through the shared reader; the "flips" part that
measured what wiring it in would change was removed once it was wired: its figures are kept in
docs/reading.md):

- timing: on the same inputs, the old reader of each domain and the shared reader, taking
  turns in rounds so machine load falls on both alike; µs per input and the ratio
  shared/old. Inputs are the responses of each domain's fixtures (math 438, finance 436 plus
  the 59 out-of-sample cases, agent's final assistant messages). The old readers:
  math ``extract_answer``; finance ``final_answer`` + ``answer_amount``; agent ``numbers_in``
  as it was before agent@1.0.2 (kept verbatim below: agent now reads through the shared one).
  The shared reader: ``locate_answer`` (+ ``scan_numbers`` of the located span for finance,
  of the whole message for agent), its scan cache cleared before each input. Plus a
  linearity check: ``locate_answer`` and
  ``scan_numbers`` on hostile inputs of 30 KB and 300 KB (a ratio near 10 is linear, far
  above it would be quadratic).

Run: ``python bench/reading_bench.py [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import json
import re
import time
import unicodedata
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = {
    "math": [ROOT / "fixtures" / "math" / "cases.jsonl"],
    "finance": [ROOT / "fixtures" / "finance" / "cases.jsonl"],
    "finance-oos": [ROOT / "fixtures" / "finance" / "oos" / "cases.jsonl"],
    "agent": [ROOT / "fixtures" / "agent" / "cases.jsonl"],
}


def load(name: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in FIXTURES[name]:
        with path.open(encoding="utf-8") as handle:
            rows.extend(json.loads(line) for line in handle if line.strip())
    return rows


def final_message(case: Mapping[str, Any]) -> str:
    """An agent case's answer: its response, else the last assistant message with text."""
    if case.get("response"):
        return str(case["response"])
    for step in reversed(case.get("steps") or []):
        if step.get("role") == "assistant" and isinstance(step.get("content"), str):
            return str(step["content"])
    return ""


# ---------------------------------------------------------------- adapters (the wiring plan)


# ---------------------------------------------------------------- agent's reader before 1.0.2
# agent@1.0.2 reads through the shared reader, so its former reader is kept here, verbatim,
# as the timing baseline (verifiers/assay/verifiers/agent/facts.py at commit 3b8cbad).

_LEGACY_NUMBER = re.compile(
    r"(?<![\w.])(-)?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?![\d])"
)
_LEGACY_WORD = re.compile(r"\w+")
_LEGACY_UNITS = {
    word: value
    for value, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_LEGACY_TENS = {
    word: 10 * (i + 2)
    for i, word in enumerate(
        ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    )
}
_LEGACY_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}


def legacy_agent_numbers_in(text: str) -> list[float]:
    """agent's ``numbers_in`` before it read through the shared reader."""
    text = unicodedata.normalize("NFKC", text)
    found = []
    for match in _LEGACY_NUMBER.finditer(text):
        value = float(match.group(2).replace(",", ""))
        found.append(-value if match.group(1) else value)
    tokens = _LEGACY_WORD.findall(unicodedata.normalize("NFKC", text.replace("-", " ")).casefold())
    found.extend(_legacy_word_numbers(tokens))
    return found


def _legacy_word_numbers(tokens: list[str]) -> list[float]:
    units, tens, scales = _LEGACY_UNITS, _LEGACY_TENS, _LEGACY_SCALES
    found: list[float] = []
    total, current, last = 0, 0, ""
    for position, token in enumerate([*tokens, ""]):
        if token in units and last in ("", "ten", "scale", "and"):
            if last == "ten" and units[token] >= 10:
                found.append(float(total + current))
                total, current = 0, 0
            current += units[token]
            last = "unit"
        elif token in tens and last in ("", "scale", "and"):
            current += tens[token]
            last = "ten"
        elif token in units or token in tens:
            found.append(float(total + current))
            total, current = units.get(token, 0), tens.get(token, 0)
            last = "unit" if token in units else "ten"
        elif token in scales and last in ("unit", "ten", "scale"):
            current = max(current, 1) * scales[token]
            if scales[token] > 100:
                total, current = total + current, 0
            last = "scale"
        elif (
            token == "and"
            and last == "scale"
            and position + 1 < len(tokens)
            and (tokens[position + 1] in units or tokens[position + 1] in tens)
        ):
            last = "and"
        else:
            if last:
                found.append(float(total + current))
            total, current, last = 0, 0, ""
    return found


# ---------------------------------------------------------------- timing


def old_and_new(domain: str) -> tuple[Callable[[str], Any], Callable[[str], Any]]:
    from assay.verifiers.reading import locate_answer, scan_numbers

    if domain == "math":
        from assay.verifiers.math.extract import extract_answer

        return extract_answer, locate_answer
    if domain == "finance":
        from assay.verifiers.finance.answers import answer_amount, final_answer

        def old_finance(text: str) -> Any:
            found = final_answer(text)
            return answer_amount(found.text) if found is not None else None

        def new_finance(text: str) -> Any:
            found = locate_answer(text)
            return scan_numbers(found.text) if found is not None else None

        return old_finance, new_finance
    return legacy_agent_numbers_in, scan_numbers


def time_pair(
    old: Callable[[str], Any], new: Callable[[str], Any], inputs: list[str], rounds: int
) -> tuple[float, float]:
    from assay.verifiers.reading.numbers import _scan_cached

    def cold(text: str) -> Any:  # every response is new to a verifier: no cache carried over
        _scan_cached.cache_clear()
        return new(text)

    totals = [0.0, 0.0]
    for _ in range(rounds):
        for index, reader in enumerate((old, cold)):
            start = time.perf_counter()
            for text in inputs:
                reader(text)
            totals[index] += time.perf_counter() - start
    per = rounds * len(inputs)
    return totals[0] / per * 1e6, totals[1] / per * 1e6


def timing(rounds: int) -> None:
    corpora = {
        "math": [c["response"] for c in load("math")],
        "finance": [c["response"] for c in load("finance") + load("finance-oos")],
        "agent": [final_message(c) for c in load("agent")],
    }
    print(f"timing, {rounds} rounds, µs per input (old reader vs shared reader, same inputs)")
    print(f"{'domain':<9} {'inputs':>6} {'old µs':>9} {'shared µs':>10} {'shared/old':>11}")
    for domain, inputs in corpora.items():
        old, new = old_and_new(domain)
        old_us, new_us = time_pair(old, new, inputs, rounds)
        print(
            f"{domain:<9} {len(inputs):>6} {old_us:>9.1f} {new_us:>10.1f} {new_us / old_us:>11.2f}"
        )
    linearity()


HOSTILE: dict[str, Callable[[int], str]] = {
    "money": lambda n: "$1 " * (n // 3),
    "dates": lambda n: "December 31, 2024 " * (n // 18),
    "words": lambda n: "one hundred " * (n // 12),
    "parens": lambda n: "(1)" * (n // 3),
    "digits": lambda n: "1" * n,
    "braces": lambda n: "{" * n,
    "lines": lambda n: "7\n" * (n // 2),
}


def linearity() -> None:
    from assay.verifiers.reading import locate_answer, scan_numbers

    print("\nlinearity: seconds at 30 KB and 300 KB, and their ratio (10 is linear)")
    print(f"{'input':<8} {'reader':<13} {'30 KB':>8} {'300 KB':>8} {'ratio':>6}")
    for name, make in HOSTILE.items():
        for label, reader in (("locate_answer", locate_answer), ("scan_numbers", scan_numbers)):
            seconds = []
            for size in (30_000, 300_000):
                text = make(size)
                start = time.perf_counter()
                reader(text)
                seconds.append(time.perf_counter() - start)
            ratio = seconds[1] / max(seconds[0], 1e-6)
            print(f"{name:<8} {label:<13} {seconds[0]:>8.3f} {seconds[1]:>8.3f} {ratio:>6.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--part", choices=("timing",), default="timing")  # the one part left
    args = parser.parse_args()
    timing(args.rounds)


if __name__ == "__main__":
    main()
