"""Which dollar signs delimit LaTeX math and which are money.

Word problems write money with ``$`` ("sells them for $2 each, so she makes $18"), while model
answers write math with it (``$x = 2$``, ``$\\frac{1}{2}$``). Reading every ``$`` as a math
delimiter (as Math-Verify-style extractors do) turns "$2 each, so she makes $" into a formula
and loses both amounts. The pairing rules, after Pandoc's ``tex_math_dollars``:

- ``\\$`` is always a literal (money) dollar; ``$$ ... $$`` is display math.
- An inline span opens at a ``$`` with a non-space character right after it, and closes at
  the *next* unescaped ``$`` if that one has a non-space character right before it and is not
  followed by a digit. So ``$20,000 and $30,000`` holds no math, and ``$5+$3`` neither.
- A span that opens on a digit and whose content reads as prose (two or more plain words
  outside LaTeX commands, as in ``$5 and then she pays 3$``) is money, not math.
- ``\\( ... \\)`` and ``\\[ ... \\]`` are math whatever they hold.

A ``$`` that opens no span is money. One left-to-right pass: an inline span never contains a
``$``, so each ``$`` is looked at a bounded number of times (linear in the text).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_TOKEN = re.compile(r"\\\$|\\\(|\\\[|\$\$|\$")
_COMMAND = re.compile(r"\\[A-Za-z]+\*?(?:\s*\{[^{}$]*\})?")
_PLAIN_WORD = re.compile(r"(?<![A-Za-z\\])[A-Za-z]{2,}(?![A-Za-z])")
_PROSE_WORDS = 2


@dataclass(frozen=True, slots=True)
class MathSpan:
    """One math span: ``text[start:end]`` with its delimiters, ``text[inner_start:inner_end]``
    without them."""

    start: int
    end: int
    inner_start: int
    inner_end: int
    display: bool


@dataclass(frozen=True, slots=True)
class Dollars:
    """The math spans of a text and the positions of its money ``$`` characters."""

    spans: tuple[MathSpan, ...]
    money: frozenset[int]
    starts: tuple[int, ...] = ()

    def in_math(self, position: int) -> bool:
        """Whether ``position`` lies inside a math span (delimiters included)."""
        at = bisect.bisect_right(self.starts, position) - 1
        return at >= 0 and position < self.spans[at].end


def _can_close(text: str, index: int) -> bool:
    before = text[index - 1] if index > 0 else " "
    after = text[index + 1] if index + 1 < len(text) else " "
    return not before.isspace() and not after.isdigit()


def _reads_as_prose(inner: str) -> bool:
    words = _PLAIN_WORD.findall(_COMMAND.sub(" ", inner))
    return len(words) >= _PROSE_WORDS


def read_dollars(text: str) -> Dollars:
    """Classify every ``$`` of ``text`` and find its math spans.

    Example:
        >>> d = read_dollars("She sells them for $2 each, so she makes $18.")
        >>> d.spans, sorted(d.money)
        ((), [19, 41])
        >>> read_dollars("So $x = 2$.").spans[0].inner_start
        4
    """
    spans: list[MathSpan] = []
    money: set[int] = set()
    tokens = list(_TOKEN.finditer(text))
    index = 0
    while index < len(tokens):
        token = tokens[index]
        kind, start = token.group(0), token.start()
        if kind == "\\$":
            money.add(start + 1)
            index += 1
            continue
        if kind in ("\\(", "\\["):
            closer = "\\)" if kind == "\\(" else "\\]"
            close = text.find(closer, token.end())
            if close >= 0:
                spans.append(MathSpan(start, close + 2, token.end(), close, kind == "\\["))
                index = _first_token_after(tokens, index, close + 2)
            else:
                index += 1
            continue
        if kind == "$$":
            close = text.find("$$", token.end())
            if close >= 0:
                spans.append(MathSpan(start, close + 2, token.end(), close, True))
                index = _first_token_after(tokens, index, close + 2)
            else:
                index += 1
            continue
        index = _inline(text, tokens, index, spans, money)
    return Dollars(tuple(spans), frozenset(money), tuple(span.start for span in spans))


def _inline(
    text: str,
    tokens: list[re.Match[str]],
    index: int,
    spans: list[MathSpan],
    money: set[int],
) -> int:
    """Pair the inline ``$`` at ``tokens[index]``; return the index of the next token to read."""
    start = tokens[index].start()
    after = text[start + 1] if start + 1 < len(text) else " "
    following = tokens[index + 1] if index + 1 < len(tokens) else None
    if (
        after.isspace()
        or following is None
        or following.group(0) != "$"
        or not _can_close(text, following.start())
    ):
        money.add(start)
        return index + 1
    inner = text[start + 1 : following.start()]
    if after.isdigit() and _reads_as_prose(inner):
        money.add(start)
        return index + 1
    spans.append(MathSpan(start, following.end(), start + 1, following.start(), False))
    return index + 2


def _first_token_after(tokens: list[re.Match[str]], index: int, position: int) -> int:
    while index < len(tokens) and tokens[index].start() < position:
        index += 1
    return index


def mask_math(text: str, dollars: Dollars | None = None) -> str:
    """``text`` with its math spans blanked out (same length, so positions still agree)."""
    found = dollars if dollars is not None else read_dollars(text)
    if not found.spans:
        return text
    pieces: list[str] = []
    last = 0
    for span in found.spans:
        pieces.append(text[last : span.start])
        pieces.append(" " * (span.end - span.start))
        last = span.end
    pieces.append(text[last:])
    return "".join(pieces)
