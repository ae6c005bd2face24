"""Sign words as data, calendar dates, and number words, each over a table of real phrasings."""

from __future__ import annotations

from decimal import Decimal

import pytest
from assay.verifiers.reading import date_spans, find_numbers, find_word_numbers

# (text, cue word or None, direction or None) for the last value figure of the text
CUES: list[tuple[str, str | None, str | None]] = [
    ("Cash showed a net decrease of $5,127 thousand in 2024.", "decrease", "down"),  # net decrease
    ("Other income (expense), net was an expense of $358 thousand.", "expense", "down"),
    ("2019 shows an operating loss of $134 million.", "loss", "down"),  # FinQA operating loss
    ("The company reported a net loss of $871 thousand.", "loss", "down"),  # TAT-QA net loss
    ("Revenue decreased by $24,175 thousand.", "decreased", "down"),  # decreased by
    ("Revenue declined €5.0 million year over year.", "declined", "down"),  # no preposition
    ("Sales fell 3.2%.", "fell", "down"),  # fell
    ("Margins dropped by approximately 2 points.", "dropped", "down"),  # filler word
    ("a reduction of 15%", "reduction", "down"),  # noun form
    ("a deficit of $2 billion", "deficit", "down"),  # deficit
    ("an impairment of $40 million", "impairment", "down"),  # impairment charge
    ("net outflow of $12 million", "outflow", "down"),  # cash outflow
    ("down 4%", "down", "down"),  # terse
    ("Revenue increased by $67.7 million.", "increased", "up"),  # up cue
    ("Revenue grew 11.85%.", "grew", "up"),  # grew
    ("a gain of $3 million", "gain", "up"),  # gain
    ("rose 5%", "rose", "up"),  # rose
    ("up 12%", "up", "up"),  # terse up
    ("a net profit of $9 million", "profit", "up"),  # profit
    ("Revenue slipped by £0.8 million.", "slipped", "down"),  # slipped (finance oos2)
    ("Margins dipped 40 basis points to 12", None, None),  # the last figure is a level
    ("Shares tumbled 12%.", "tumbled", "down"),  # tumbled
    ("Orders climbed 9% in the quarter.", "climbed", "up"),  # climbed
    ("Volume surged by 30%.", "surged", "up"),  # surged
    ("Cash fell to $28,752 thousand.", None, None),  # a level, not a change
    ("down from $46,132 thousand", None, None),  # the reference point, not the change
    ("The net change was $5,127 thousand.", None, None),  # no sign word
    ("Revenue changed by $24,175 thousand.", None, None),  # "changed": no direction
    ("Other income, net of $1,668 thousand.", None, None),  # "net of": no cue
    ("losses were large; then 5", None, None),  # the word is far from the figure
]


@pytest.mark.parametrize(("text", "word", "direction"), CUES, ids=[c[0][:40] for c in CUES])
def test_cues(text: str, word: str | None, direction: str | None) -> None:
    figure = [f for f in find_numbers(text) if f.role == "value"][-1]
    got = (figure.cue.word, figure.cue.direction) if figure.cue else (None, None)
    assert got == (word, direction)


def test_cue_never_changes_the_value() -> None:
    figure = find_numbers("a net loss of $871 thousand")[-1]
    assert figure.value == Decimal(871) and figure.cue is not None


DATES = [
    ("at December 31, 2024", ["December 31, 2024"]),  # US long form
    ("on 31 December 2023", ["31 December 2023"]),  # day month year
    ("on Dec. 31, 2023", ["Dec. 31, 2023"]),  # abbreviated month
    ("on Sept 30 2022", ["Sept 30 2022"]),  # no comma
    ("in March 2024", ["March 2024"]),  # month and year
    ("on the 5th of June", ["5th of June"]),  # ordinal day of month
    ("2024-12-31", ["2024-12-31"]),  # ISO
    ("12/31/2024", ["12/31/2024"]),  # US numeric
    ("31.12.2023", ["31.12.2023"]),  # European numeric
    ("2024/01/15", ["2024/01/15"]),  # ISO with slashes
    ("June 5", ["June 5"]),  # no year
    ("in 2024", []),  # a year alone is no date (it is a year mention)
    ("May 5,000 people", []),  # "May" then a grouped number: not a date
    ("3/4 of the cake", []),  # a fraction is no date
    ("12/31/99", []),  # two-digit year: not read as a date
    ("version 2024-13-45", []),  # impossible month and day
]


@pytest.mark.parametrize(("text", "dates"), DATES, ids=[d[0] for d in DATES])
def test_dates(text: str, dates: list[str]) -> None:
    assert [text[a:b] for a, b in date_spans(text)] == dates


WORDS = [
    ("ten", ["10"]),  # one word
    ("twenty-five", ["25"]),  # hyphen
    ("twenty five", ["25"]),  # space
    ("one hundred twelve", ["112"]),  # hundreds
    ("four hundred and twelve", ["412"]),  # British and
    ("two thousand and five", ["2005"]),  # thousands and units
    ("one million two hundred thousand", ["1200000"]),  # descending scales
    ("nine hundred ninety-nine trillion", ["999000000000000"]),  # the largest scale
    ("a dozen", ["12"]),  # a dozen
    ("three dozen", ["36"]),  # dozens
    ("a hundred", ["100"]),  # "a" before a scale
    ("a thousand", ["1000"]),  # "a" before a big scale
    ("zero", ["0"]),  # zero
    ("Eleven", ["11"]),  # capitalised
    ("five three", ["5", "3"]),  # two numbers
    ("twenty ten", ["20", "10"]),  # a unit after a ten must be below ten
    ("thousand million", []),  # scales alone
    ("one thousand thousand", ["1000"]),  # a repeated scale does not compound
    ("hundred", []),  # a scale alone
    ("a man and a dog", []),  # "a" alone is no number
    ("someone", []),  # a number word inside a word
    ("seventy-seven and eight", ["77", "8"]),  # "and" joins only after a scale
    ("one hundred and", ["100"]),  # a dangling "and"
]


@pytest.mark.parametrize(("text", "values"), WORDS, ids=[w[0] for w in WORDS])
def test_word_numbers(text: str, values: list[str]) -> None:
    assert [str(n.value) for n in find_word_numbers(text)] == values


def test_word_numbers_stay_bounded() -> None:
    # However many scale words follow, one phrase stays below 10**15.
    text = " ".join(["nine hundred ninety-nine trillion"] * 200)
    assert all(n.value < 10**15 for n in find_word_numbers(text))
