"""What a response claims: a JSON object of fields, or a final answer, and whether it refuses.

Where the final answer is and what its number is come from the shared reader
(:func:`assay.verifiers.reading.locate_answer`, :func:`~assay.verifiers.reading.scan_numbers`;
docs/reading.md): a JSON ``answer``, ``\\boxed{}``, "final answer is", ``Answer:``, ``####``,
else the main clause of the last line (asides in parentheses, dates and trailing clauses are
not the answer). Finance keeps its own rules on top: a fallback that is only a year or a date
is no answer unless the task asks for a year; a hedge between figures; a scale header
("(in millions)"); refusals.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Literal

from assay.verifiers.finance.numbers import (
    Amount,
    amount_from_number,
    declared_scale,
    parse_amount,
    scale_of_label,
    to_amount,
    with_glued_scale,
)
from assay.verifiers.reading import (
    Figure,
    Located,
    NumberTooLargeError,
    locate_answer,
    prepare,
    scan_numbers,
)
from assay.verifiers.reading import extract_object as _extract_object
from assay.verifiers.reading.numbers import OR_WORDS
from assay.verifiers.reading.sentence import drop_asides, last_sentence, main_clause

from assay.blame import TOO_COSTLY, ResponseFault
from assay.types import JSON

_REFUSAL = re.compile(
    r"""
    \b(?:cannot|can't|can\s+not|unable\s+to|not\s+able\s+to)\s+(?:be\s+)?
        (?:determine|determined|answer|answered|calculate|calculated|find|found|compute|computed)
    | \b(?:not|never)\s+(?:disclosed|reported|provided|stated|available|given|presented)\b
    | \b(?:do|does|did)\s+not\s+(?:disclose|report|provide|state|give|present|include)\b
    | \b(?:don't|doesn't|didn't)\s+(?:disclose|report|provide|state|give|present|include)\b
    | \b(?:insufficient|not\s+enough|no)\s+(?:information|data)\b
    | \bi\s+(?:do\s+not|don't)\s+know\b
    | ^\s*n/?a\s*\.?\s*$
    """,
    re.IGNORECASE | re.VERBOSE | re.MULTILINE,
)
_HEDGE = re.compile(
    rf"[\s,;]\s*(?:{OR_WORDS})\s|\d[^\W\d]{{0,4}}\s*[,，、;]?\s*(?:{OR_WORDS}|[～〜])\s*\S?\d",
    re.IGNORECASE,
)
"""Two figures offered as one answer: "40,476 or 38,000", "40,476或38,000"."""
_BOTH_SIGNS = re.compile(r"(?:±|\+\s*/\s*[-−–]|[-−–]\s*/\s*\+)\s*[$€£]?\s*\d")
"""A figure given with both signs at once: ``±24,175``, ``+/-24,175``."""
_THAN = re.compile(r"\bthan\b", re.IGNORECASE)
"""A comparison: "higher in 2023 than in 2024" answers the year before it."""


@dataclass(frozen=True, slots=True)
class FinalAnswer:
    """The final answer of a response.

    Attributes:
        text: The span the answer was read from.
        method: How it was found (``json``, ``boxed``, ``marker``, ``last_figure``).
        page: A page the response cites for it, if any.
        quote: Evidence the response quotes for it, if any.
        amount: The answer as one figure read in its line (its year or date role, the sign
            word before it), when the answer is exactly one figure.
    """

    text: str
    method: str
    page: int | None = None
    quote: str | None = None
    amount: Amount | None = None


@dataclass(frozen=True, slots=True)
class ClaimedField:
    """One field value a response gives (``amount`` is ``None`` when it gave no number)."""

    name: str
    amount: Amount | None
    scale: str | None = None
    page: int | None = None
    quote: str | None = None


def extract_object(text: str) -> dict[str, JSON] | None:
    """The last JSON object in ``text`` (fenced or bare), or ``None`` (the shared reader's)."""
    found = _extract_object(text)
    return dict(found) if found is not None else None


def read_value(value: JSON) -> Amount | None:
    """The amount a JSON value states: a number, or a string read like a final answer."""
    if isinstance(value, str):
        try:
            amount = parse_amount(value)
        except NumberTooLargeError as exc:
            message = f"the answer's number is too large to read: {exc}"
            raise ResponseFault(TOO_COSTLY, message) from exc
        if amount is None:
            amount, hedged = answer_amount(value)
            amount = None if hedged else amount
        return amount
    return amount_from_number(value)


def read_fields(data: Mapping[str, JSON]) -> dict[str, ClaimedField]:
    """The fields of a response object (top level, or under ``fields``).

    A ``scale`` (or ``units``) string beside the fields, or on one field, says the scale of
    bare values ("thousand", "in millions"); a scale nobody can read makes the value unreadable.
    """
    inner = data.get("fields")
    source = inner if isinstance(inner, Mapping) else data
    shared = _scale_key(data)
    claimed = {}
    for name, raw in source.items():
        if name in ("scale", "units"):
            continue
        item = raw if isinstance(raw, Mapping) else {"value": raw}
        scale = _scale_key(item) if any(k in item for k in ("scale", "units")) else shared
        amount = read_value(item.get("value"))
        claimed[name] = ClaimedField(
            name=name,
            amount=None if scale == "" else amount,
            scale=scale or None,
            page=_page(item.get("page")),
            quote=_quote(item),
        )
    return claimed


def _scale_key(data: Mapping[str, JSON]) -> str | None:
    """The scale named under ``scale``/``units``: ``None`` if absent, ``""`` if unreadable."""
    label = data.get("scale", data.get("units"))
    if label is None:
        return None
    return (scale_of_label(label) or "") if isinstance(label, str) else ""


_METHODS = {"json": "json", "boxed": "boxed", "whole": "last_figure"}


def final_answer(
    text: str,
    *,
    year_answer: bool = False,
    text_answer: bool = False,
    yes_no: bool = False,
    change: bool = False,
    special_tokens: Iterable[str] = (),
) -> FinalAnswer | None:
    """The final answer span of a response, or ``None`` when it has none.

    Args:
        text: The response (decoder special tokens are removed first).
        year_answer: The task's answer is a year: a fallback that is a year is the answer
            ("Net income was higher in 2023"); otherwise it is no answer ("revenue for 2021
            is not disclosed"). With no marked answer, the last year of the main clause is
            the answer even when figures follow it ("peaked in 2023 at €99,282 thousand").
        text_answer: The task's answer is a text or a list of spans: with no marked answer
            and no figure, the predicate of the last sentence is the answer ("The segments
            are Cloud and Devices." answers "Cloud and Devices").
        yes_no: The task's answer is "yes" or "no": with no marked answer, a response that
            opens with "Yes" or "No" answers that ("No, net income fell from ... to ...").
        change: The task asks for a signed change: with no marked answer, a figure its sign
            word joins ("a drop of $4,781 thousand") is preferred to an uncued level ("went
            from $28,171K to $23,390K, a drop of $4,781 thousand" answers -4,781).
        special_tokens: More special tokens to remove.
    """
    text = _fiscal_years(text)
    found = locate_answer(text, special_tokens)
    if found is not None and not found.marked and _bold_label(found, year_answer, text_answer):
        if text_answer:
            predicate = _predicate(prepare(text.replace("**", ""), special_tokens))
            if predicate is not None:
                return predicate
        unbolded = locate_answer(text.replace("**", ""), special_tokens)
        found = unbolded if unbolded is not None else found
    if found is not None and found.text.strip() == "1":
        ratio = _RATIO_BEFORE.search(found.source, 0, found.start)
        if ratio is not None:  # "2.41058:1": the ratio is the figure before the colon
            return FinalAnswer(ratio.group(1), "last_figure")
    if found is None and text_answer:
        items = _bullet_items(prepare(text, special_tokens))
        if items:
            return FinalAnswer(", ".join(items), "last_figure")
    if yes_no and (found is None or not found.marked):
        opening = _YES_NO.match(prepare(text, special_tokens))
        if opening is not None:
            return FinalAnswer(opening.group(1).lower(), "last_figure")
    if found is None:
        return _predicate(prepare(text, special_tokens)) if text_answer else None
    if not found.marked and (year_answer or change):
        preferred = _preferred_figure(found, year=year_answer)
        if preferred is not None:
            return preferred
    if found.method == "json":
        data = found.data or {}
        return FinalAnswer(found.text, "json", page=_page(data.get("page")), quote=_quote(data))
    amount = to_amount(found.figure) if found.figure is not None else None
    fallback_year = not found.marked and amount is not None and amount.role != "value"
    if fallback_year and not (year_answer and amount is not None and amount.role == "year"):
        return None
    method = _METHODS.get(found.method, "marker" if found.marked else "last_figure")
    aside = _HEDGE_ASIDE.match(found.source, found.end)
    if aside is not None:  # "-24,175 (or 24,175)": the aside is part of what it answers
        return FinalAnswer(found.text + aside.group(0), method)
    line = _line_of(found)
    if line != found.text and _opposite(_values(line)):  # "by either +24,175 or -24,175"
        return FinalAnswer(line, method)
    unit = _UNIT_AFTER.match(found.source, found.end)
    if unit is not None and not _UNIT_AFTER.search(found.text):  # "grew by 1,440 bps"
        return FinalAnswer(found.text + unit.group(0), method, amount=amount)
    return FinalAnswer(found.text, method, amount=amount)


_UNIT_AFTER = re.compile(
    r"\s*(?:bps|bp|basis\s+points?|cents?|¢|pence|(?<=\d)p)(?![\w-])", re.IGNORECASE
)
"""A unit written after the figure that changes what it is: basis points are hundredths of
a percent, cents (pence, "47p") hundredths of the currency. The answer's span keeps it (the
figure alone, "1,440" of "grew by 1,440 bps", would be read as 1,440 of the task's unit)."""


_YES_NO = re.compile(r"^\W*(?:[A-Za-z][^.:;!?\n,]{0,40},\s*)?(yes|no)\b", re.IGNORECASE)
"""A leading "Yes" or "No", after a short lead-in ("Based on the table, no: ...")."""
_HEDGE_ASIDE = re.compile(
    r"\s*\((?:or|and/or|possibly|maybe|perhaps)\b[^()\n]{0,60}\d[^()\n]{0,20}\)", re.IGNORECASE
)
_FISCAL = re.compile(r"\bFY\s?'?(\d{2})\b")
_BOLD_YEAR = re.compile(r"^\(?(?:19|20)\d{2}\)?$|\((?:19|20)\d{2}\)\s*:?$")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(?P<item>.+?)\s*$")


def _fiscal_years(text: str) -> str:
    """``FY23`` as ``fiscal 2023`` (the shared reader reads ``FY2023`` as a year itself, but two
    digits glued to letters are no number)."""

    def year(match: re.Match[str]) -> str:
        digits = match.group(1)
        return f"fiscal {'19' if int(digits) >= 50 else '20'}{digits}"

    return _FISCAL.sub(year, text)


def _bold_label(found: Located, year_answer: bool, text_answer: bool) -> bool:
    """Whether the answer the reader took is a bold span that only labels the line: a bold
    year ("In **2024**, net income was ..."), a label ending in a year ("**Net income
    (2024)**: $58,926K"), or, for an answer in words, one of several bold spans ("**Products**
    and **Services**"). The line is then read without its bold marks."""
    if f"**{found.text}**" not in found.source:
        return False
    if text_answer:
        return found.source.count("**") >= 4
    return not year_answer and _BOLD_YEAR.search(found.text.strip()) is not None


def _bullet_items(source: str) -> list[str]:
    """The items of a bullet list that ends the response ("- Products" / "- Services")."""
    lines = [line for line in source.splitlines() if line.strip()]
    items: list[str] = []
    for line in reversed(lines):
        match = _BULLET.match(line)
        if match is None:
            break
        items.insert(0, match["item"].strip(" *"))
    return items if len(items) > 1 else []


def _preferred_figure(found: Located, *, year: bool) -> FinalAnswer | None:
    """The year (``year``) or the cued change figure of the answer's sentence, if another."""
    sentence = last_sentence(drop_asides(_line_of(found)))
    if year:
        clause = main_clause(sentence)
        years = [f for f in scan_numbers(clause).figures if f.role == "year"]
        if len({f.value for f in years}) > 1 and _HEDGE.search(clause[years[0].start :]):
            return FinalAnswer(clause[years[0].start :], "last_figure")  # "in 2024 or 2023"
        than = _THAN.search(clause)
        compared = [f for f in years if than is not None and f.start < than.start()]
        chosen = compared[-1] if compared else (years[-1] if years else None)
    else:
        figures = [f for f in scan_numbers(sentence).figures if f.role == "value"]
        if any(f.cue is not None and f.text == found.text for f in figures):
            return None
        cued = [f for f in figures if f.cue is not None]
        chosen = cued[-1] if cued else None
    if chosen is None or chosen.text == found.text:
        return None
    return FinalAnswer(chosen.text, "last_figure", amount=to_amount(chosen))


_COPULA = re.compile(
    r"\b(?:is|are|was|were|include|includes|shows?|lists?|covers?|consists\s+of)\b", re.IGNORECASE
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _predicate(source: str) -> FinalAnswer | None:
    """The text after the last copula of the last sentence of the last line, if short."""
    lines = [line.strip() for line in source.splitlines() if line.strip()]
    if not lines:
        return None
    sentence = _SENTENCE_END.split(lines[-1][-1000:])[-1]
    parts = _COPULA.split(sentence)
    if len(parts) < 2:
        return None
    answer = parts[-1].strip().rstrip(".!").strip(" *")
    if not answer or len(answer) > 200:
        return None
    return FinalAnswer(answer, "last_figure")


def answer_amount(span: str, *, percent: bool | None = None) -> tuple[Amount | None, bool]:
    """The figure a final-answer span states, and whether it hedges between several.

    Dates are never the figure; years only when nothing else is there. When ``percent`` says
    whether the task's answer is a percentage, the first figure of that kind is preferred.

    Raises:
        ResponseFault: the span's only numbers are too large to read.
    """
    result = _after_last_equals(span)
    if result is not None:
        span = result  # "514,354 - 538,529 = -24,175" answers -24,175
    span = _RATIO_TO_ONE.sub(r"\1", span)  # "2.41058:1" is the ratio 2.41058
    scan = scan_numbers(span)
    figures = [f for f in scan.figures if f.role != "date"]
    values = [f for f in figures if f.role == "value"] or figures
    labels = [f for f in values if _year_in_parentheses(f)]
    if labels and len(labels) < len(values):
        values = [f for f in values if f not in labels]  # "Net income (2024): $58,926k"
    if not values:
        if scan.oversized:
            raise ResponseFault(
                TOO_COSTLY, f"the answer's number is too large to read: {span[:80]!r}"
            )
        return None, False
    distinct = {(f.value, f.percent) for f in values}
    hedged = len(distinct) > 1 and _HEDGE.search(span) is not None
    hedged = hedged or _BOTH_SIGNS.search(span) is not None or _opposite(values)
    fitting = [f for f in values if percent is None or f.percent == percent]
    first, end = with_glued_scale(span, (fitting or values)[0])
    if _CENTS.match(span, end) and first.scale is None and not first.percent:
        first = replace(first, value=first.value / 100, decimals=first.decimals + 2)  # "62 cents"
    header = declared_scale(span)
    if first.scale is None and not first.percent and header is not None:
        first = replace(first, scale=header)  # "24.175 (in millions)"
    return first, hedged


_RATIO_TO_ONE = re.compile(r"(\d(?:[\d,]*\d)?(?:\.\d+)?)\s*:\s*1(?![\d.,])")
_RATIO_BEFORE = re.compile(r"(\d(?:[\d,]*\d)?(?:\.\d+)?)\s*:\s*$")
_CENTS = re.compile(r"\s*(?:cents?|¢|pence|(?<=\d)p)(?![\w-])", re.IGNORECASE)


def _year_in_parentheses(figure: Figure) -> bool:
    """A year in parentheses, a label ("(2024)"), not an accounting negative."""
    value = abs(figure.value)
    return (
        figure.parenthesized
        and figure.scale is None
        and not figure.percent
        and figure.currency is None
        and value == value.to_integral_value()
        and 1900 <= value <= 2100
        and "," not in figure.text
    )


def _line_of(found: Located) -> str:
    source = found.source
    start = source.rfind("\n", 0, found.start) + 1
    end = source.find("\n", found.end)
    return source[start : len(source) if end < 0 else end].strip()


def _values(text: str) -> list[Figure]:
    return [f for f in scan_numbers(text).figures if f.role == "value"]


def _opposite(values: list[Figure]) -> bool:
    """Whether two figures are one magnitude with opposite signs ("-24,175 / +24,175",
    "-24,175 (or 24,175)"): the answer names both directions of one change."""
    seen: dict[tuple[object, bool], set[bool]] = {}
    for figure in values:
        value = figure.value  # signed as read: "(24,175)" is already negative
        if value == 0:
            continue
        signs = seen.setdefault((abs(value), figure.percent), set())
        signs.add(value < 0)
        if len(signs) > 1:
            return True
    return False


def _after_last_equals(span: str) -> str | None:
    """The text after the last ``=`` of a worked line, when it holds a figure."""
    if "=" not in span:
        return None
    tail = span.rsplit("=", 1)[1]
    return tail if any(f.role == "value" for f in scan_numbers(tail).figures) else None


def is_refusal(text: str) -> bool:
    """Whether the text declines to answer ("cannot be determined", "not disclosed", "N/A")."""
    return _REFUSAL.search(text) is not None


def _page(value: JSON) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _quote(data: Mapping[str, JSON]) -> str | None:
    for key in ("evidence", "quote"):
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


SignReading = Literal["signed", "magnitude"]

_SIGNED_QUESTION = re.compile(
    r"\(\s*(?:loss|losses|expense|expenses|deficit|decrease|provision)\s*\)"  # income (loss)
    r"|\bchange[sd]?\b|\bdifference\b|\bgrowth\b|\bnet\s+(?:increase|decrease)\b",
    re.IGNORECASE,
)
_MAGNITUDE_QUESTION = re.compile(
    r"\b(?:loss|losses|expense|expenses|deficit|decrease|decline|outflow|impairment|provision)\b",
    re.IGNORECASE,
)


def sign_reading(question: str) -> SignReading | None:
    """How a sign word in the answer is read, as the question makes it unambiguous.

    - ``signed``: the question asks for a signed quantity: an "income (loss)", "income
      (expense)", "increase (decrease)", a "change" or a "difference". A down word before the
      figure ("an operating loss of $134", "an expense of 358", "decreased by 24,175") makes
      it negative; an up word keeps it positive.
    - ``magnitude``: the question asks for the negative item itself ("net loss", "expenses",
      "decrease"): "a loss of 871" is 871.
    - ``None``: no question, or neither: sign words are not read, only written signs.
    """
    if _SIGNED_QUESTION.search(question):
        return "signed"
    if _MAGNITUDE_QUESTION.search(question):
        return "magnitude"
    return None


_OPPOSITE_ITEMS: dict[str, tuple[str, ...]] = {
    "provision": ("benefit",),
    "expense": ("benefit",),
    "expenses": ("benefit",),
    "loss": ("gain", "profit", "net income"),
    "losses": ("gains", "gain", "profit"),
    "impairment": ("reversal",),
}
"""The item on the other side of a magnitude question's item: "an income tax benefit of
$11,361 thousand" answers no provision for income taxes, whatever its figure."""


def opposite_item(question: str, answer: str) -> str | None:
    """The opposite item an answer to a magnitude question names instead of the asked one
    (``None``: it names the asked item, or no opposite). Only words the question itself does
    not use count ("benefit (provision)" asks for both).

    Example:
        >>> opposite_item("What was the provision for income taxes?", "A tax benefit of $5.")
        'benefit'
        >>> opposite_item("What was the provision for income taxes?", "The provision was $5.")
    """
    asked = _MAGNITUDE_QUESTION.search(question)
    if asked is None:
        return None
    item = asked.group(0).lower()
    said, posed = answer.lower(), question.lower()
    if _affirmed(item, said):
        return None
    for word in _OPPOSITE_ITEMS.get(item, ()):
        if _affirmed(word, said) and not re.search(rf"\b{word}\b", posed):
            return word
    return None


def _affirmed(word: str, text: str) -> bool:
    """Whether ``text`` names ``word`` other than as denied ("no tax benefit", "not a
    benefit", "without a provision")."""
    for match in re.finditer(rf"\b{word}\b", text):
        if not _DENIED_BEFORE.search(text, max(0, match.start() - 24), match.start()):
            return True
    return False


_DENIED_BEFORE = re.compile(r"\b(?:no|not|never|without|nor)\b(?:\s+\w+){0,2}\s*\Z", re.IGNORECASE)


def apply_sign(amount: Amount, reading: SignReading | None) -> Amount:
    """``amount`` with its sign word applied under ``reading`` (see :func:`sign_reading`)."""
    if reading != "signed" or amount.cue is None or amount.cue.direction != "down":
        return amount
    if amount.value <= 0:
        return amount  # "a decrease of -5" is written negative already
    return replace(amount, value=-amount.value)


_NAMED_UNIT = re.compile(
    r"\bin\s+(?:(?:U\.\s?S\.|US)\s*)?(?:dollars|USD|euros|EUR|pounds|GBP|yen|JPY)\b"
    r"|\bin\s+(?:U\.\s?S\.|US)\s*\$",
    re.IGNORECASE,
)


def named_scale(question: str) -> str | None:
    """The scale a question names for its answer: "in millions" -> ``million``; "in U.S.
    dollars" (no scale word with it) -> ``unit``; else ``None``."""
    declared = declared_scale(question)
    if declared is not None:
        return declared
    return "unit" if _NAMED_UNIT.search(question) else None


_YEAR_QUESTION = re.compile(
    r"\b(?:which|what)\s+(?:fiscal\s+|calendar\s+)?year\b|\bin\s+which\s+(?:fiscal\s+)?year\b"
    r"|^\s*when\b",
    re.IGNORECASE,
)


def asks_for_year(question: str) -> bool:
    """Whether the question's answer is a year ("In which fiscal year ...", "What year ...")."""
    return _YEAR_QUESTION.search(question) is not None
