"""Sign words next to a figure, as data: "a decrease of $5,127", "an operating loss of 134".

Whether "a loss of 871" answers -871 or 871 depends on the question (asked for "net loss", the
loss is 871; asked for "operating income (loss)", it is -871), so the reader never applies a
sign word. It reports the cue next to the figure and lets the domain decide.

A cue is a word of change or of a negative item directly before the figure, joined to it by
nothing or by "of"/"by" and fillers ("approximately", "a net", "the"): "declined €5.0 million",
"net decrease of $5,127", "an expense of $358", "decreased by 24,175". Levels are not changes:
"fell to 5" and "down from 46" carry no cue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Direction = Literal["down", "up"]

DOWN_WORDS = frozenset(
    [
        "decrease",
        "decreases",
        "decreased",
        "decreasing",
        "decline",
        "declines",
        "declined",
        "declining",
        "fell",
        "fall",
        "falls",
        "falling",
        "drop",
        "drops",
        "dropped",
        "down",
        "lower",
        "reduced",
        "reduction",
        "reductions",
        "shrank",
        "shrunk",
        "loss",
        "losses",
        "expense",
        "expenses",
        "deficit",
        "outflow",
        "outflows",
        "negative",
        "impairment",
        "write-down",
        "write-downs",
        "writedown",
        "writedowns",
        "contracted",
        "contraction",
        "slipped",
        "slip",
        "slips",
        "slid",
        "dipped",
        "dip",
        "dips",
        "plunged",
        "tumbled",
    ]
)
"""Cue words of a fall or of a negative item."""
UP_WORDS = frozenset(
    [
        "increase",
        "increases",
        "increased",
        "increasing",
        "rose",
        "rise",
        "rises",
        "rising",
        "grew",
        "grow",
        "grows",
        "grown",
        "growth",
        "gain",
        "gained",
        "gains",
        "up",
        "higher",
        "profit",
        "surplus",
        "inflow",
        "inflows",
        "improved",
        "improvement",
        "climbed",
        "jumped",
        "surged",
        "soared",
        "advanced",
    ]
)
"""Cue words of a rise or of a positive item."""
FILLERS = frozenset(
    [
        "approximately",
        "about",
        "around",
        "roughly",
        "nearly",
        "almost",
        "some",
        "just",
        "only",
        "a",
        "an",
        "the",
        "net",
        "total",
        "of",
        "by",
    ]
)
"""Words that may stand between a cue and its figure."""
WINDOW = 60
"""Characters before a figure searched for its cue."""
_LAST_WORD = re.compile(r"(?<![A-Za-z-])([A-Za-z][A-Za-z-]*)(\s*)$")
_ALTERNATIVE = re.compile(
    r"(?<![A-Za-z-])([A-Za-z][A-Za-z-]*)(?:,?\s+(?:or|and/or)\s+|\s*/\s*)$", re.I
)
"""The word and "or" (or a slash) before a cue word: "rose or fell", "up or down",
"rose/fell", "increased / decreased"."""


@dataclass(frozen=True, slots=True)
class SignCue:
    """A sign word before a figure: the word as written, its direction and where it starts.

    ``hedged``: the word is the second of two opposite ones joined by "or" or a slash ("rose or
    fell by $5", "rose/fell by $5"), so the text names both directions and commits to neither.
    """

    word: str
    direction: Direction
    start: int
    hedged: bool = False


class CueIndex:
    """Looks up the cue before each figure of one text (kept for the scanner's one pass)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def before(self, start: int) -> SignCue | None:
        """The cue joined to the figure that starts at ``start``, if any."""
        begin = max(0, start - WINDOW)
        end = start
        first = True
        while end > begin:
            match = _LAST_WORD.search(self.text, begin, end)
            if match is None or (not first and not match.group(2)):
                return None
            word = match.group(1).lower()
            if word in DOWN_WORDS or word in UP_WORDS:
                direction: Direction = "down" if word in DOWN_WORDS else "up"
                opposite = UP_WORDS if direction == "down" else DOWN_WORDS
                before = _ALTERNATIVE.search(self.text, max(0, match.start(1) - WINDOW),
                                             match.start(1))  # fmt: skip
                hedged = before is not None and before.group(1).lower() in opposite
                return SignCue(match.group(1), direction, match.start(1), hedged)
            if word not in FILLERS:
                return None
            end, first = match.start(1), False
        return None


def sign_cue(text: str, start: int) -> SignCue | None:
    """The sign word right before the figure starting at ``start`` in ``text``, if any.

    Example:
        >>> sign_cue("a net decrease of $5,127", 18)
        SignCue(word='decrease', direction='down', start=6, hedged=False)
        >>> sign_cue("cash fell to $5", 13) is None
        True
    """
    return CueIndex(text).before(start)
