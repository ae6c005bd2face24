"""Reading an answer out of a sentence, for responses that mark none.

A sentence such as "So the farmer picked 42 apples in total, 15 of them on Wednesday." or
"The remainder is 2 because 1024 = 7 x 146 + 2." states its answer in the main clause; the
asides, justifications and trailing clauses that follow are not the answer. The helpers here
find that main clause and its final item (a bold span, a run of math spans, a run of choice
letters, or a number), and recognise a response cut off mid-sentence.
"""

from __future__ import annotations

import re

from assay.verifiers.math.scan import OPENERS

MAX_TRAILING_WORDS = 2
"""Words an unpunctuated last line may have after its last number ("18 dollars")."""
MAX_BOLD_LENGTH = 40
"""Longest bold span read as an answer."""
MAX_CONNECTIVE_LENGTH = 40
"""Longest text between two math spans (or boxes) that still joins them into one run."""

_FUNCTION_WORDS_TEXT = (
    "is are was were be been equals equal gives give get gets yields yield obtain find have "
    "has by as so then to of for and or the a an we which that with from into than because "
    "since if when where while it this these those compute calculate multiply divide subtract "
    "add dividing multiplying subtracting adding rewrite expands expand simplify simplifies "
    "becomes become at on in over us our let modulo mod times plus minus divided multiplied "
    "squared cubed"
)
_FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())
_ASIDE = re.compile(r"\((?=[^()$]*(?<![\\A-Za-z])[A-Za-z]{3,})[^()$]*\)")
_CONCLUSION = re.compile(
    r"\s*(?:so|thus|therefore|hence|giving|which\s+gives|and\s+so|that\s+is)\b", re.IGNORECASE
)
_NEGATION = re.compile(r"^not\b.*?,\s*(?:it\s+is|it's|but|rather)\s+(?P<rest>.+)$", re.IGNORECASE)
_FILLER = re.compile(
    r"^(?:either|approximately|about|exactly|roughly|just|simply|equal\s+to|=)\s+", re.IGNORECASE
)
_JUSTIFICATION = re.compile(
    r"\b(?:because|since|as|where|which|for\s+example)\b|\bi\.e\.|\be\.g\.",
    re.IGNORECASE,
)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z(*$\\])")
_MATH_SPAN = re.compile(
    r"\$\$(?P<a>.+?)\$\$|\$(?P<b>[^$]+?)\$|\\\((?P<c>.+?)\\\)|\\\[(?P<d>.+?)\\\]"
)
_BOLD = re.compile(r"\*\*(?P<text>[^*]+?)\*\*")
_CHOICE = re.compile(r"\((?P<letter>[A-J])\)")
_NUMBER = re.compile(
    r"(?<![\^A-Za-z_{²³])[-\u2212]?(?:\\frac\{\d+\}\{\d+\}|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:\s*/\s*\d+)?"
    r"|\.\d+)(?:\s*\\?%)?"
)
_WORD = re.compile(r"[A-Za-z']+")
_CONNECTIVE_NOISE = re.compile(
    r"\$|\\[()\[\]]|\\q?quad|\\[,;:! ]|\\text\s*\{|\}|\\\\|[,;.&]|\band\b|\bor\b"
    r"|[A-Za-z]\s*=|=|\s",
    re.IGNORECASE,
)


def is_connective(between: str) -> bool:
    """True when the text between two items only joins them (``, ``, `` or ``, ``$ and $``)."""
    return len(between) <= MAX_CONNECTIVE_LENGTH and not _CONNECTIVE_NOISE.sub("", between)


def drop_asides(text: str) -> str:
    """Remove parenthetical asides with words: ``7 (since 7^2 = 49)`` is ``7``.

    Whitespace runs are collapsed too, which keeps every later pattern linear.
    """
    return " ".join(_ASIDE.sub(" ", text).split())


def clean_tail(tail: str) -> str:
    """Tidy the text after an answer phrase: asides, "not 5, it is 7", fillers, clauses."""
    tail = drop_asides(tail)
    negation = _NEGATION.match(tail)
    if negation is not None:
        tail = negation["rest"]
    tail = _FILLER.sub("", tail)
    words = _WORD.findall(tail)
    if words and len(words[-1]) > 1 and words[-1].lower() in _FUNCTION_WORDS:
        return ""  # "The answer is not 5, it is" stops before its answer
    return main_clause(tail).strip()


def main_clause(sentence: str) -> str:
    """The sentence up to its first justification or trailing clause after its first item.

    Example:
        >>> main_clause("So she picked 42 apples in total, 15 of them on Wednesday")
        'So she picked 42 apples in total'
    """
    first = _first_item(sentence)
    if first is None:
        return sentence
    cut = len(sentence)
    justification = _JUSTIFICATION.search(sentence, first)
    if justification is not None:
        cut = justification.start()
    comma = _top_level_comma(sentence, first, cut)
    if (
        comma is not None
        and re.search(r"[A-Za-z]{2,}", _outside_math(sentence[first:comma]))
        and not _CONCLUSION.match(sentence, comma + 1)
    ):
        cut = comma
    return sentence[:cut]


def _first_item(sentence: str) -> int | None:
    """End of the first number or math span of a sentence."""
    masked = _mask_math(sentence)
    found = [m.end() for m in (_MATH_SPAN.search(sentence), _NUMBER.search(masked)) if m]
    return min(found) if found else None


def _mask_math(text: str) -> str:
    """``text`` with its math spans blanked out (same length, so positions still agree)."""
    return _MATH_SPAN.sub(lambda m: " " * len(m.group(0)), text)


def _top_level_comma(text: str, start: int, stop: int) -> int | None:
    depth, in_math = 0, False
    for index in range(start, stop):
        char = text[index]
        if char == "$":
            in_math = not in_math
        elif char in OPENERS:
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth <= 0 and not in_math:
            return index
    return None


def _outside_math(text: str) -> str:
    return _MATH_SPAN.sub(" ", text)


def is_cut_off(line: str) -> bool:
    """True for a last line that stops mid-sentence ("... so we compute", "... which is").

    A line ending in punctuation, a digit or a closing bracket is complete; otherwise at most
    two words, none of them a function word, may follow its last number or math span.
    """
    stripped = line.rstrip()
    if not stripped or stripped[-1] in ".!?)]}$*%" or stripped[-1].isdigit():
        return False
    items = [m.end() for m in (*_MATH_SPAN.finditer(stripped), *_NUMBER.finditer(stripped))]
    if not items:
        return True
    words = _WORD.findall(stripped[max(items) :])
    if not words:  # only symbols after the last number ("1,000.99€", "5 m²"): complete
        return False
    return len(words) > MAX_TRAILING_WORDS or words[-1].lower() in _FUNCTION_WORDS


def last_sentence(line: str) -> str:
    """The last sentence of a line that holds a number, a math span, bold text or a choice."""
    sentences = [s for s in _SENTENCE_BREAK.split(line) if s.strip()]
    for sentence in reversed(sentences):
        if any(p.search(sentence) for p in (_NUMBER, _MATH_SPAN, _BOLD, _CHOICE)):
            return sentence
    return sentences[-1] if sentences else ""


def final_item(sentence: str) -> str | None:
    """The answer a sentence ends on: bold text, a run of math spans or choices, a number."""
    bold = [
        m
        for m in _BOLD.finditer(sentence)
        if len(m["text"]) <= MAX_BOLD_LENGTH and not m["text"].rstrip().endswith(":")
    ]
    if bold:
        return bold[-1]["text"].strip()
    clause = main_clause(sentence)
    spans = list(_MATH_SPAN.finditer(clause))
    choices = list(_CHOICE.finditer(clause))
    numbers = list(_NUMBER.finditer(_mask_math(clause)))
    last = max(
        (*(("math", m) for m in spans), *(("choice", m) for m in choices)),
        key=lambda item: item[1].end(),
        default=None,
    )
    if numbers and (last is None or numbers[-1].start() > last[1].end()):
        return numbers[-1].group(0)
    if last is None:
        return None
    run = _run(clause, spans if last[0] == "math" else choices)
    return ", ".join(_item_text(m) for m in run)


def leading_math_run(text: str) -> str | None:
    """The math spans ``text`` opens with, joined by commas when only connectives part them.

    Example:
        >>> leading_math_run("$3$ or $5$. I hope it is correct.")
        '3, 5'
    """
    spans = list(_MATH_SPAN.finditer(text))
    if not spans or spans[0].start() != 0:
        return None
    run = [spans[0]]
    for span in spans[1:]:
        if not is_connective(text[run[-1].end() : span.start()]):
            break
        run.append(span)
    return ", ".join(_item_text(m) for m in run)


def _run(text: str, matches: list[re.Match[str]]) -> list[re.Match[str]]:
    """The final matches of a list that only connectives separate."""
    run = [matches[-1]]
    for match in reversed(matches[:-1]):
        if not is_connective(text[match.end() : run[0].start()]):
            break
        run.insert(0, match)
    return run


def _item_text(match: re.Match[str]) -> str:
    if "letter" in match.re.groupindex:
        return f"({match['letter']})"
    return next(group for group in match.groups() if group is not None).strip()
