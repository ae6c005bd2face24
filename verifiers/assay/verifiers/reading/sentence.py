"""Reading an answer out of a sentence, for responses that mark none.

A sentence such as "So the farmer picked 42 apples in total, 15 of them on Wednesday." or
"Gross profit was $211,374 thousand (revenue of $514,354K less cost of $302,980K)." states its
answer in the main clause; the asides, justifications and trailing clauses that follow are not
the answer. The helpers here find that main clause and its final item (a bold span, a run of
math spans, a run of choice letters, or a figure that is neither a date nor, when another
figure is there, a year), and recognise a response cut off mid-sentence.

Math spans come from :func:`~assay.verifiers.reading.dollars.read_dollars`, so the money in
"sells them for $2 each, so she makes $18" is two figures, not one formula.
"""

from __future__ import annotations

import re

from assay.verifiers.reading.dollars import MathSpan, mask_math, read_dollars
from assay.verifiers.reading.numbers import AND_WORDS, OR_WORDS, Figure, scan_numbers

MAX_TRAILING_WORDS = 2
"""Words an unpunctuated last line may have after its last number ("18 dollars")."""
MAX_BOLD_LENGTH = 40
"""Longest bold span read as an answer."""
MAX_LINE_LENGTH = 1000
"""Characters at the end of a line that are read."""
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
_KEEP_IN_PARENTHESES = frozenset(
    [
        "in",
        "thousands",
        "thousand",
        "millions",
        "million",
        "billions",
        "billion",
        "of",
        "dollars",
        "usd",
        "eur",
        "percent",
    ]
)
_ASIDE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_CONCLUSION = re.compile(
    r"\s*(?:so|thus|therefore|hence|giving|which\s+gives|and\s+so|that\s+is)\b", re.IGNORECASE
)
_TRAILING_CLAUSE = re.compile(
    r"\s*(?:but|however|though|although|assuming|unless|I|we|hope|up|down|compared|versus"
    r"|vs\.?|from|representing|reflecting|driven|due|including|excluding|before|after|while"
    r"|whereas"
    r"|an?\s+(?:increase|decrease|rise|decline|drop|gain|loss|change))\b",
    re.IGNORECASE,
)
"""What after a comma begins a trailing clause even right after the answer ("7, but...")."""
_LAST_TOKEN = re.compile(r"([A-Za-z']+|[^\sA-Za-z']+)[\s.!?*]*$")
_NEGATION = re.compile(r"^not\b.*?,\s*(?:it\s+is|it's|but|rather)\s+(?P<rest>.+)$", re.IGNORECASE)
_FILLER = re.compile(
    r"^(?:either|approximately|about|exactly|roughly|just|simply|equal\s+to|=)\s+", re.IGNORECASE
)
_JUSTIFICATION = re.compile(
    r"\b(?:because|since|as|where|which(?!\s+(?:gives|equals|makes|totals|comes\s+to|amounts\s+to))"
    r"|for\s+example)\b|\bi\.e\.|\be\.g\.",
    re.IGNORECASE,
)
_VERSUS = re.compile(r"\s+(?:vs\.?|versus)\s+", re.IGNORECASE)
"""A comparison after the answer, without a comma ("... in 2023 vs $38,000 in 2022")."""
_DASH_BREAK = re.compile(r"\s*—\s*|\s+--\s+|\s+–\s+(?=[A-Za-z])")
"""A dash that opens an explanation: "came to £57,445 thousand — gross profit of ... less ..."."""
_TO_FROM = re.compile(r"\bto\s+[$£€¥]?$", re.IGNORECASE)
_FROM_AFTER = re.compile(
    r"(?:\s*(?:thousand|million|billion|trillion|dollars|euros|pounds)\b)?\s+from\b",
    re.IGNORECASE,
)
_OPERATOR = re.compile(r"\d[^\d]*?(?:[-+−×÷*/=]|\bless\b|\bminus\b|\bplus\b)[^\d]*?\d")
_MONEY_MARK = re.compile(r"[$£€¥]|\d\s?[KkMmBb]\b")
_ASCII_SPACE = re.compile(r"[ \t\r\n\f\v]+")
_CJK_CLAUSE = re.compile(r"[、，][^。！？]*\S")
"""A CJK comma after the last figure with more after it: a clause that has not ended."""
_GROUPED = re.compile(r"\d,\d{3}(?!\d)")
"""A figure grouped in thousands: in parentheses with an operator it is working, not a tuple."""
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z(*$\\])")
_BOLD = re.compile(r"\*\*(?P<text>[^*]+?)\*\*")
_CHOICE = re.compile(r"\((?P<letter>[A-J])\)")
_WORD = re.compile(r"[A-Za-z']+")
_CONNECTIVE_NOISE = re.compile(
    r"\$|\\[()\[\]]|\\q?quad|\\[,;:! ]|\\text\s*\{|\}|\\\\|[,;.&、]"
    rf"|{AND_WORDS}|{OR_WORDS}|[A-Za-z]\s*=|=|\s",
    re.IGNORECASE,
)
OPENERS = "([{"
CLOSERS = ")]}"


def math_spans(text: str) -> tuple[MathSpan, ...]:
    """The LaTeX math spans of ``text`` (money dollars excluded)."""
    return read_dollars(text).spans


def span_text(text: str, span: MathSpan) -> str:
    """The content of a math span, without its delimiters."""
    return text[span.inner_start : span.inner_end].strip()


def is_connective(between: str) -> bool:
    """True when the text between two items only joins them (``, ``, `` or ``, ``$ and $``)."""
    return len(between) <= MAX_CONNECTIVE_LENGTH and not _CONNECTIVE_NOISE.sub("", between)


def drop_asides(text: str) -> str:
    """Remove parenthetical asides with words: ``7 (since 7^2 = 49)`` is ``7``.

    Nested parentheses are one aside (``(shown as (5,127) in the statement)``); a figure in
    parentheses (``(587.4)``), a choice (``(B)``) and a scale note (``(in millions)``) stay.
    Whitespace runs are collapsed too, which keeps every later pattern linear.
    """
    masked = mask_math(text)
    pieces: list[str] = []
    depth, last, opened = 0, 0, 0
    for index, char in enumerate(masked):
        if char == "(":
            if depth == 0:
                opened = index
            depth += 1
        elif char == ")" and depth > 0:
            depth -= 1
            if depth == 0 and _is_aside(text[opened + 1 : index]):
                pieces.append(text[last:opened])
                pieces.append(" ")
                last = index + 1
    pieces.append(text[last:])
    # only ASCII whitespace: a no-break or narrow no-break space groups thousands (1\u202f250)
    return _ASCII_SPACE.sub(" ", "".join(pieces)).strip(" ")


def _is_aside(content: str) -> bool:
    words = [w.lower() for w in _ASIDE_WORD.findall(_COMMAND.sub(" ", content))]
    if not words:  # "(587.4)", "(B)", "(5, 100)" stay; "(£311,590K − £271,395K)" is working
        marked = _MONEY_MARK.search(content) or _GROUPED.search(content)  # "(30,152 / 311,590)"
        return marked is not None and _OPERATOR.search(content) is not None
    note = all(word in _KEEP_IN_PARENTHESES for word in words)
    return not note or any(char.isdigit() for char in content)


def clean_tail(tail: str) -> str:
    """Tidy the text after an answer phrase: asides, "not 5, it is 7", fillers, clauses."""
    tail = drop_asides(tail)
    negation = _NEGATION.match(tail)
    if negation is not None:
        tail = negation["rest"]
    tail = _FILLER.sub("", tail)
    last = _LAST_TOKEN.search(tail)
    if last is not None and len(last.group(1)) > 1 and last.group(1).lower() in _FUNCTION_WORDS:
        return ""  # "The answer is not 5, it is" stops before its answer
    return main_clause(tail).strip()


def main_clause(sentence: str) -> str:
    """The sentence up to its first justification or trailing clause after its first item.

    Trailing clauses: a comma clause ("15 of them on Wednesday", ", before falling to ..."),
    a dash that opens an explanation (" — gross profit of ... less ..."), a comparison ("vs Y",
    "versus Y") and "from Y" after "to X" ("rose to X from Y" answers X).

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
    dash = _DASH_BREAK.search(mask_math(sentence), first, cut)
    if dash is not None:
        cut = dash.start()
    versus = _VERSUS.search(sentence, first, cut)
    if versus is not None:  # "$40,476 thousand in 2023 vs $38,000 thousand in 2022"
        cut = versus.start()
    opening = answer_figures(sentence)[:1]
    if (
        opening
        and opening[0].end == first
        and _TO_FROM.search(sentence, 0, opening[0].start)
        and _FROM_AFTER.match(sentence, first)
    ):
        cut = min(cut, first)  # "rose to $40,476 thousand from $26,087 thousand"
    comma = _top_level_comma(sentence, first, cut)
    if comma is not None and not _CONCLUSION.match(sentence, comma + 1):
        worded = re.search(r"[A-Za-z]{2,}", mask_math(sentence[first:comma])) is not None
        if worded or _TRAILING_CLAUSE.match(sentence, comma + 1):
            cut = comma
    return sentence[:cut]


def answer_figures(text: str) -> list[Figure]:
    """The figures of ``text`` outside math that may be answers: values, else year mentions.

    Dates never are; nor is a lone "one" in words ("this one", "no one" are pronouns).
    """
    figures = [
        f
        for f in scan_numbers(mask_math(text)).figures
        if f.role != "date" and not (f.kind == "words" and f.text.lower() == "one")
    ]
    values = [f for f in figures if f.role == "value"]
    return values or figures


def _first_item(sentence: str) -> int | None:
    """End of the first figure or math span of a sentence."""
    ends = [span.end for span in math_spans(sentence)[:1]]
    ends += [figure.end for figure in answer_figures(sentence)[:1]]
    return min(ends) if ends else None


def _top_level_comma(text: str, start: int, stop: int) -> int | None:
    masked = mask_math(text)
    depth = 0
    for index in range(start, stop):
        char = masked[index]
        if char in OPENERS:
            depth += 1
        elif char in CLOSERS:
            depth -= 1
        elif char == "," and depth <= 0 and not _inside_number(masked, index):
            return index
    return None


def _inside_number(text: str, index: int) -> bool:
    """A thousands comma (``1,250``) is not a clause break."""
    return index > 0 and text[index - 1].isdigit() and text[index + 1 : index + 4].isdigit()


def is_cut_off(line: str) -> bool:
    """True for a last line that stops mid-sentence ("... so we compute", "... which is").

    A line ending in punctuation, a digit or a closing bracket is complete; otherwise at most
    two words, none of them a function word, may follow its last figure or math span.
    """
    stripped = line.rstrip()[-MAX_LINE_LENGTH:]
    if not stripped or stripped[-1] in ".!?)]}$*%。！？।" or stripped[-1].isdigit():
        return False
    ends = [span.end for span in math_spans(stripped)]
    ends += [figure.end for figure in scan_numbers(mask_math(stripped)).figures]
    if not ends:
        return True
    if _CJK_CLAUSE.search(stripped, max(ends)):  # "18 なので、次に": the sentence goes on
        return True
    words = _WORD.findall(stripped[max(ends) :])
    if not words:  # only symbols after the last figure ("1,000.99€", "5 m²"): complete
        return False
    return len(words) > MAX_TRAILING_WORDS or words[-1].lower() in _FUNCTION_WORDS


def last_sentence(line: str) -> str:
    """The last sentence of a line that holds a figure, a math span, bold text or a choice."""
    sentences = [s for s in _SENTENCE_BREAK.split(line) if s.strip()]
    for sentence in reversed(sentences):
        if (
            answer_figures(sentence)
            or math_spans(sentence)
            or _BOLD.search(sentence)
            or _CHOICE.search(sentence)
        ):
            return sentence
    return sentences[-1] if sentences else ""


def final_item(sentence: str) -> str | None:
    """The answer a sentence ends on: bold text, a run of math spans or choices, a figure."""
    bold = [
        m
        for m in _BOLD.finditer(sentence)
        if len(m["text"]) <= MAX_BOLD_LENGTH and not m["text"].rstrip().endswith(":")
    ]
    if bold:
        return bold[-1]["text"].strip()
    clause = main_clause(sentence)
    spans = list(math_spans(clause))
    choices = list(_CHOICE.finditer(mask_math(clause)))
    figures = answer_figures(clause)
    last_span = spans[-1].end if spans else -1
    last_choice = choices[-1].end() if choices else -1
    if figures and figures[-1].start >= max(last_span, last_choice):
        return figures[-1].text
    if last_span < 0 and last_choice < 0:
        return None
    if last_span > last_choice:
        return ", ".join(span_text(clause, span) for span in _span_run(clause, spans))
    return ", ".join(f"({m['letter']})" for m in _choice_run(clause, choices))


def leading_math_run(text: str) -> str | None:
    """The math spans ``text`` opens with, joined by commas when only connectives part them.

    Example:
        >>> leading_math_run("$3$ or $5$. I hope it is correct.")
        '3, 5'
    """
    spans = list(math_spans(text))
    if not spans or spans[0].start != 0:
        return None
    run = [spans[0]]
    for span in spans[1:]:
        if not is_connective(text[run[-1].end : span.start]):
            break
        run.append(span)
    return ", ".join(span_text(text, span) for span in run)


def _span_run(text: str, spans: list[MathSpan]) -> list[MathSpan]:
    run = [spans[-1]]
    for span in reversed(spans[:-1]):
        if not is_connective(text[span.end : run[0].start]):
            break
        run.insert(0, span)
    return run


def _choice_run(text: str, choices: list[re.Match[str]]) -> list[re.Match[str]]:
    run = [choices[-1]]
    for match in reversed(choices[:-1]):
        if not is_connective(text[match.end() : run[0].start()]):
            break
        run.insert(0, match)
    return run
