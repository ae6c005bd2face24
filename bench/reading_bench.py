"""The shared reader (assay.verifiers.reading) against the three readers it is to replace.

Two parts, in one run:

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
- flips: what the wiring of docs/reading.md would change. Each domain's fixtures (and the
  finance out-of-sample cases) are scored in-process twice, with the domain's reader and with
  the shared one patched in through the small adapters below, and every changed verdict is
  listed with its label. Nothing in the domains is edited.

Run: ``python bench/reading_bench.py [--rounds 5] [--part timing|flips|all]``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import time
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
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


def math_extract(response: str) -> Any:
    """math's ``extract_answer`` on the shared reader."""
    from assay.verifiers.math.extract import Extraction
    from assay.verifiers.reading import locate_answer

    found = locate_answer(response)
    if found is None:
        return None
    method = {
        "json": "final_answer_phrase",
        "final_answer": "final_answer_phrase",
        "answer_is": "final_answer_phrase",
        "last_figure": "last_line",
    }.get(found.method, found.method)
    return Extraction(method, found.text, found.candidates)  # type: ignore[arg-type]


def finance_final_answer(text: str) -> Any:
    """finance's ``final_answer`` on the shared reader."""
    from assay.verifiers.finance.answers import FinalAnswer, _page, _quote
    from assay.verifiers.reading import locate_answer

    found = locate_answer(text)
    if found is None:
        return None
    if found.method == "json" and found.data is not None:
        data = found.data
        return FinalAnswer(found.text, "json", page=_page(data.get("page")), quote=_quote(data))
    if not found.marked and found.figure is not None and found.figure.role != "value":
        return None  # finance's own rule: a fallback year is no answer (see docs/reading.md)
    method = {"boxed": "boxed", "whole": "last_figure", "last_line": "last_figure"}.get(
        found.method, "marker" if found.marked else "last_figure"
    )
    return FinalAnswer(found.text, method)


def to_amount(figure: Any) -> Any:
    from assay.verifiers.finance.numbers import Amount

    return Amount(
        value=figure.value,
        decimals=figure.decimals,
        scale=figure.scale,
        currency=figure.currency,
        percent=figure.percent,
        text=figure.text,
        start=figure.start,
    )


def finance_answer_amount(span: str) -> tuple[Any, bool]:
    """finance's ``answer_amount`` on the shared number reader (hedge and header rules kept)."""
    from dataclasses import replace

    from assay.verifiers.finance.answers import _HEDGE
    from assay.verifiers.finance.numbers import declared_scale
    from assay.verifiers.reading import scan_numbers

    figures = [f for f in scan_numbers(span).figures if f.role != "date"]
    values = [f for f in figures if f.role == "value"] or figures
    if not values:
        return None, False
    distinct = {(f.value, f.percent) for f in values}
    hedged = len(distinct) > 1 and _HEDGE.search(span) is not None
    first = to_amount(values[0])
    header = declared_scale(span)
    if first.scale is None and not first.percent and header is not None:
        first = replace(first, scale=header)
    return first, hedged


def agent_numbers_in(text: str) -> list[float]:
    """agent's ``numbers_in`` on the shared reader (parentheses are no sign in a chat reply)."""
    from assay.verifiers.reading import scan_numbers

    found = []
    for figure in scan_numbers(text).figures:
        value = -figure.value if figure.parenthesized else figure.value
        found.append(float(value))
        if figure.scale is not None:
            found.append(float(figure.scaled))
    return found


@contextmanager
def patched(targets: list[tuple[Any, str, Callable[..., Any]]]) -> Iterator[None]:
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in targets]
    try:
        for owner, name, value in targets:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


def domain_patches(domain: str) -> list[tuple[Any, str, Callable[..., Any]]]:
    module = importlib.import_module  # by name: assay.verifiers.math also exports a grade()
    if domain == "math":
        return [(module("assay.verifiers.math.grade"), "extract_answer", math_extract)]
    if domain == "finance":
        question = module("assay.domains.finance.question")
        return [
            (question, "final_answer", finance_final_answer),
            (question, "answer_amount", finance_answer_amount),
        ]
    return [(module("assay.verifiers.agent.facts"), "numbers_in", agent_numbers_in)]


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


# ---------------------------------------------------------------- flips


def score(cases: list[dict[str, Any]]) -> dict[str, Any]:
    from assay.records import RawRow
    from assay.runner import ScoreOptions, Scorer

    rows = [RawRow(i, c) for i, c in enumerate(cases, start=1)]
    with Scorer(ScoreOptions(workers=0)) as scorer:
        return {r.id: r for r in scorer.score_rows(rows)}


def flips() -> None:
    print("\nflips: verdicts that change when the shared reader is wired in (in-process)")
    for name, domain in (
        ("math", "math"),
        ("finance", "finance"),
        ("finance-oos", "finance"),
        ("agent", "agent"),
    ):
        cases = load(name)
        before = score(cases)
        with patched(domain_patches(domain)):
            after = score(cases)
        changed = [c for c in cases if before[c["id"]].status != after[c["id"]].status]
        agree_before = sum(
            before[c["id"]].status.value == c["meta"]["expected_status"] for c in cases
        )
        agree_after = sum(
            after[c["id"]].status.value == c["meta"]["expected_status"] for c in cases
        )
        credit_before, credit_after = (
            sum(
                (results[c["id"]].status.value == "correct")
                == (c["meta"]["expected_status"] == "correct")
                for c in cases
            )
            for results in (before, after)
        )
        print(
            f"\n{name}: {len(cases)} cases, {len(changed)} flips; status agreement"
            f" {agree_before}/{len(cases)} -> {agree_after}/{len(cases)}, credit agreement"
            f" {credit_before}/{len(cases)} -> {credit_after}/{len(cases)}"
        )
        for case in changed:
            old, new = before[case["id"]], after[case["id"]]
            message = new.verdict.message or ""
            print(
                f"  {case['id']}: {old.status.value} -> {new.status.value}"
                f" (label {case['meta']['expected_status']}) | {message[:90]!r}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--part", choices=("timing", "flips", "all"), default="all")
    args = parser.parse_args()
    if args.part in ("timing", "all"):
        timing(args.rounds)
    if args.part in ("flips", "all"):
        flips()


if __name__ == "__main__":
    main()
