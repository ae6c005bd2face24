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

import bisect
import re
from dataclasses import dataclass
from typing import Literal

Direction = Literal["down", "up"]

_DOWN = (
    r"decrease[sd]?|decreasing|decline[sd]?|declining|fell|falls?|falling|drop(?:s|ped)?"
    r"|down|lower|reduc(?:ed|tion|tions)|shr[au]nk|loss(?:es)?|expenses?|deficit|outflows?"
    r"|negative|impairment|write-?downs?|contract(?:ed|ion)"
)
_UP = (
    r"increase[sd]?|increasing|rose|rises?|rising|gr[eo]w(?:n|s|th)?|gain(?:ed|s)?|up|higher"
    r"|profit|surplus|inflows?|improve(?:d|ment)"
)
_FILLER = (
    r"(?:(?:approximately|about|around|roughly|nearly|almost|some|just|only|a|an|the|net|total"
    r"|of|by)\s+)*"
)
_CUE_WORD = re.compile(rf"(?<![\w-])(?P<word>{_DOWN}|{_UP})(?![\w-])", re.IGNORECASE)
_GAP = re.compile(rf"\s+{_FILLER}|\s*", re.IGNORECASE)
_DOWN_WORD = re.compile(rf"(?:{_DOWN})", re.IGNORECASE)
WINDOW = 60
"""Characters before a figure searched for its cue."""


@dataclass(frozen=True, slots=True)
class SignCue:
    """A sign word before a figure: the word as written, its direction and where it starts."""

    word: str
    direction: Direction
    start: int


class CueIndex:
    """Every cue word of a text, found in one pass, to look up the cue before each figure."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.cues = [
            (match.end(), SignCue(match.group(0), _direction(match.group(0)), match.start()))
            for match in _CUE_WORD.finditer(text)
        ]
        self.ends = [end for end, _ in self.cues]

    def before(self, start: int) -> SignCue | None:
        """The cue joined to the figure that starts at ``start``, if any."""
        at = bisect.bisect_right(self.ends, start) - 1
        if at < 0:
            return None
        end, cue = self.cues[at]
        if start - end > WINDOW or _GAP.fullmatch(self.text, end, start) is None:
            return None
        return cue


def _direction(word: str) -> Direction:
    return "down" if _DOWN_WORD.fullmatch(word) else "up"


def sign_cue(text: str, start: int) -> SignCue | None:
    """The sign word right before the figure starting at ``start`` in ``text``, if any.

    Example:
        >>> sign_cue("a net decrease of $5,127", 18)
        SignCue(word='decrease', direction='down', start=6)
        >>> sign_cue("cash fell to $5", 13) is None
        True
    """
    begin = max(0, start - WINDOW)
    cue = CueIndex(text[begin:start]).before(start - begin)
    return None if cue is None else SignCue(cue.word, cue.direction, cue.start + begin)
