"""Hostile 300 KB responses: bounded work (counted, never timed) and typed results, no crash.

Timing lives in bench/reading_bench.py; here the work is counted: the characters the
sentence rules hand to the number scanner stay bounded whatever the response's size.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from assay.verifiers.reading import NumberTooLargeError, locate_answer, read_number, scan_numbers
from assay.verifiers.reading import sentence as sentence_module

SIZE = 300_000

HOSTILE: dict[str, Callable[[int], str]] = {
    "digits": lambda n: "1" * n,  # one huge digit string
    "grouped": lambda n: "1" + ",000" * (n // 4),  # a huge grouped number
    "thin-grouped": lambda n: "1" + "\u2009000" * (n // 4),  # thin-space grouping
    "dollars": lambda n: "$" * n,  # nothing but dollar signs
    "money": lambda n: "$1 " * (n // 3),  # a price list without end
    "braces": lambda n: "{" * n,  # unclosed braces
    "boxes": lambda n: "\\boxed{" * (n // 7),  # unclosed boxes
    "parens": lambda n: "(" * n,  # unclosed parentheses
    "negatives": lambda n: "(1)" * (n // 3),  # accounting negatives glued together
    "json": lambda n: '{"a":' * (n // 5),  # deep JSON that never closes
    "json-deep": lambda n: '{"answer": ' + "[" * n,  # nesting that exhausts recursion
    "words": lambda n: "one " * (n // 4),  # endless number words
    "scales": lambda n: "one hundred thousand " * (n // 21),  # scale words without end
    "dates": lambda n: "December 31, 2024 " * (n // 18),  # a calendar
    "dashes": lambda n: "-" * n,  # signs with no digit
    "minus-digits": lambda n: "-1" * (n // 2),  # sign digit sign digit
    "markers": lambda n: "answer: " * (n // 8),  # markers with nothing after
    "hashes": lambda n: "#" * n,  # GSM8K markers
    "exponents": lambda n: "1e" * (n // 2),  # half-written scientific notation
    "powers": lambda n: "1.2 \\times 10^{" * (n // 15),  # unclosed LaTeX powers
    "fracs": lambda n: "\\frac{1}{" * (n // 9),  # unclosed fractions
    "glued": lambda n: "a1" * (n // 2),  # identifiers
    "phones": lambda n: "555-123-" * (n // 8),  # an endless code
    "newlines": lambda n: "1\n" * (n // 2),  # many lines
    "dots": lambda n: "1." * (n // 2),  # a version string without end
    "commas": lambda n: "1," * (n // 2),  # a comma list without spaces
    "cents": lambda n: "5 dollars and " * (n // 14),  # cheque words without end
    "thinks": lambda n: "<think>" * (n // 7),  # thinking that never ends
    "asides": lambda n: "(the " * (n // 10) + ")" * (n // 10),  # nested asides
    "bold": lambda n: "**" * (n // 2),  # bold markers
    "inline-math": lambda n: "$x$ " * (n // 4),  # many math spans
    "tokens": lambda n: "<|im_end|>" * (n // 10),  # special tokens only
    "one-line": lambda n: "The total is " + "7 plus " * (n // 7) + "so",  # a line cut off
}


def _count_scanned(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    sizes: list[int] = []
    original = sentence_module.scan_numbers

    def counting(text: str, *args: Any, **kwargs: Any) -> Any:
        sizes.append(len(text))
        return original(text, *args, **kwargs)

    monkeypatch.setattr(sentence_module, "scan_numbers", counting)
    return sizes


@pytest.mark.parametrize("name", list(HOSTILE), ids=list(HOSTILE))
def test_locate_work_is_bounded(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    sizes = _count_scanned(monkeypatch)
    locate_answer(HOSTILE[name](SIZE))  # whatever it finds, it returns (or None), never raises
    # The sentence rules read at most a 1000-character window a bounded number of times.
    assert sum(sizes) <= 60 * sentence_module.MAX_LINE_LENGTH


def test_huge_numbers_are_oversized_not_converted() -> None:
    scan = scan_numbers("1" * SIZE)
    assert scan.figures == () and len(scan.oversized) == 1
    with pytest.raises(NumberTooLargeError):
        read_number("9" * SIZE)


def test_huge_grouped_number_is_oversized() -> None:
    scan = scan_numbers("1" + ",000" * (SIZE // 4))
    assert scan.figures == () and "digits" in scan.oversized[0].reason


def test_exponent_bomb_is_oversized() -> None:
    # 1e999999 would be a million-digit integer if a domain turned it into a Fraction.
    scan = scan_numbers("The answer is 1e999999.")
    assert scan.figures == () and "exponent" in scan.oversized[0].reason


def test_deep_json_does_not_crash() -> None:
    # json's C decoder raises RecursionError on deep nesting; the reader treats it as no JSON.
    found = locate_answer('{"answer": ' + "[" * 15_000 + "\nThe answer is 4.")
    assert found is not None and found.text == "4"
