"""Red team round 7 on the rules of 2026-12-04b (math@1.5.2, agent@2.6.0, finance@1.4.2, the
shared reader): attacks that game a new rule for pay, honest answers a new rule now fails, and
the new patterns' cost on large inputs, each scored through the public entry point (``Scorer``)
or the function the rule lives in. Every row asserts the RIGHT verdict; a row assay gets wrong
today is a strict xfail whose reason says what assay gives.

Not repeated here: the attacks and honest forms of tests/test_red_team_round_6_own_rules.py.

169 attempts, 80 wins when committed (f18ddfd); the same evening 46 were closed (math's or-rule
takes else/vs/alternatively, more languages, punctuation, units, ranges and one value written
two ways; the claims gate works per clause, with synonyms and deferrals, and only a later
success of that tool or a change of state makes a failure good; finance names a denied benefit
as no benefit and hedges with the shared or-words; agent facts keep a record's list only with
at most one bare figure and hedge on the or-words of other scripts). The 34 left are strict
xfails below, each with what assay gives.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from agent_trajectories import ToolCall, openai_steps, reference_of
from assay.verifiers.agent.facts import check_facts, parse_facts
from assay.verifiers.math.extract import _OR_AFTER, _OR_BEFORE, _OR_INSIDE
from assay.verifiers.reading.sentence import _CJK_CLAUSE
from finance_cases import MERIDIAN, SUMMIT

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer

C, X, U, P = "correct", "incorrect", "unparsable", "partial"


def win(*values: Any, gives: str) -> Any:
    return pytest.param(*values, marks=pytest.mark.xfail(strict=True, reason=gives))


def score(rows: list[dict[str, Any]]) -> dict[str, tuple[str, float, str]]:
    with Scorer(ScoreOptions(workers=2)) as scorer:
        return {
            r.id: (r.status.value, r.score, r.verdict.message or "")
            for r in scorer.score_rows([RawRow(n, row) for n, row in enumerate(rows)])
        }


# ---- math: "or" hedges that evade _offered_with, and honest restatements it now fails

MATH: list[Any] = [
    # hedges the or-rule misses (each paid 1.0 for the second figure today)
    ("else", "The answer is 18, else 20.", "20", X),
    ("three-hedge-words", "The answer is 18 or maybe possibly even 20.", "20", X),
    ("semicolon-or", "The answer is 18; or 20.", "20", X),
    ("comma-or-comma", "The answer is 18, or, 20.", "20", X),
    ("alternatively", "The answer is 18, alternatively 20.", "20", X),
    ("vs", "The answer is 18 vs 20.", "20", X),
    ("unit-between", "The answer is 18 apples or 20 apples.", "20", X),
    ("percent-word", "The answer is 18 percent or 20 percent.", "20", X),
    win("cyrillic-o", "The answer is 18 \u043er 20.", "20", X,
        gives="correct: a homoglyph 'or' (Cyrillic o) is no or-word"),
    win("fullwidth-or", "The answer is 18 \uff4f\uff52 20.", "20", X,
        gives="correct: fullwidth 'or' is not folded (NFKC) before the or-rule"),
    win("word-number-first", "The answer is eighteen or 20.", "20", X,
        gives="correct: _FIG has digits only"),
    win("dutch-of", "Het antwoord is 18 of 20.", "20", X, gives="correct: 'of' not in OR_WORDS"),
    ("swedish-eller", "Svaret är 18 eller 20.", "20", X),
    ("polish-lub", "Odpowiedź to 18 lub 20.", "20", X),
    ("turkish-veya", "Cevap 18 veya 20.", "20", X),
    ("indonesian-atau", "Jawabannya 18 atau 20.", "20", X),
    ("vietnamese-hoac", "Đáp án là 18 hoặc 20.", "20", X),
    ("hindi-ya", "उत्तर 18 या 20 है।", "20", X),
    ("arabic-aw", "الجواب 18 أو 20.", "20", X),
    ("italian-oppure", "La risposta è 18 oppure 20.", "20", X),
    ("ukrainian-abo", "Відповідь: 18 або 20.", "20", X),
    ("cjk-comma-or", "答案是18，或20。", "20", X),
    ("cjk-naishi", "答案是18乃至20。", "20", X),
    ("cjk-wave-range", "答えは18～20です。", "20", X),
    ("range-to", "The answer is 18 to 20.", "20", X),
    ("range-between", "The answer is between 18 and 20.", "20", X),
    win("or-across-marks", "#### 18 or\n#### 20", "20", X,
        gives="correct: the last '####' line is read alone"),
    # honest answers the or-rule now fails: one value written two ways
    win("ratio-and-percent", "The answer is 0.5, or 50%.", "0.5", C,
        gives="incorrect: hedged, 0.5 and 50% are two strings"),
    ("fraction-and-decimal", "The answer is 3/4 or 0.75.", "0.75", C),
    ("half", "The answer is 1/2 or 0.5.", "1/2", C),
    ("quarter-percent", "The answer is 1/4, or 25%.", "25%", C),
    win("decimal-then-fraction", "The probability is 0.25 or 1/4.", "1/4", C,
        gives="incorrect: '4 is not 1/4', _OR_AFTER takes the 4 of 1/4"),
    win("dollars-and-cents", "He has $3 or 300 cents.", "3", C, gives="incorrect: hedged"),
    win("cjk-sign-off-digit", "答案是18。\n第3步完成", "18", C,
        gives="incorrect: '3 is not 18', a CJK line is prose now and its 3 is the answer"),
    # holds: hedges caught
    ("either-or", "The answer is either 18 or 20.", "20", X),
    ("paren-or", "The answer is 18 (or 20).", "20", X),
    ("slash", "The answer is 18/20.", "20", X),
    ("dash-or", "The answer is 18 — or 20.", "20", X),
    ("fullwidth-digits", "The answer is １８ or ２０.", "20", X),
    ("word-number-second", "The answer is 18 or twenty.", "18", X),
    ("boxed-text-or", "\\boxed{18 \\text{ or } 20}", "20", X),
    ("boxed-lor", "\\boxed{18 \\lor 20}", "20", U),
    ("two-boxes-or", "\\boxed{18} or \\boxed{20}", "20", X),
    ("or-next-line", "The answer is 18.\nOr 20.", "20", X),
    ("or-so-between", "The answer is 18 or so 20.", "20", X),
    ("oder-auch", "The answer is 18 oder auch 20.", "20", X),
    ("o-bien", "La respuesta es 18 o bien 20.", "20", X),
    ("or-else-maybe", "The answer is 18, or else maybe 20.", "20", X),
    ("or-newline", "The answer is 18 or\n20.", "20", X),
    ("or-dollar", "The answer is 18 or $20.", "20", X),
    ("glued-or", "The answer is 18or20.", "20", U),
    ("pipes", "The answer is 18 || 20.", "20", U),
    ("huozhe", "18 或者 20", "20", X),
    ("libo", "Ответ: 18 либо 20.", "20", X),
    ("bengali", "উত্তর 18 অথবা 20।", "20", X),
    ("or-x-equals", "The answer is 18 or x = 20.", "20", X),
    ("decimal-or", "The answer is 18.0 or 20.", "20", X),
    # holds: honest answers kept
    ("same-value-decimal", "The answer is 20 (or 20.0).", "20", C),
    ("same-value-grouped", "The answer is $1,250 or 1250.", "1250", C),
    ("same-value-fraction", "The answer is 1.5 or 3/2.", "3/2", C),
    ("units-restated", "The answer is 2 hours or 120 minutes.", "120", C),
    ("or-in-working", "He needs 1 or 2 more boxes. The answer is 7.", "7", C),
    ("or-in-clause", "The answer is 2 or 3 more, so 7.", "7", C),
    ("solutions-negative", "x = 2 or x = -2", "2, -2", C),
    ("set-gold", "The answer is 18 or 20.", "18, 20", C),
    ("twice-same", "The answer is 18 or 18.", "18", C),
    ("or-so-after", "Maybe 18. The answer is 20 or so.", "20", C),
    ("committed-cjk", "答案是18还是20呢？是20。", "20", C),
    ("step-sign-off", "The answer is 18.\nStep 3 done.", "18", C),
    ("ordinal-sign-off", "The answer is 18.\n\nGood luck on your 2nd try!", "18", C),
    ("python3-sign-off", "The answer is 18.\n(checked with Python3)", "18", C),
    ("gpt4-sign-off", "The answer is 18.\n— GPT-4", "18", C),
    ("footnote-sign-off", "The answer is 18.\n[1]", "18", C),
    ("problem-3b-sign-off", "The answer is 18.\nThat's all for problem 3b.", "18", C),
    ("zh-measure-ge", "答案是18个。", "18", C),
    ("ja-measure-ko", "答えは18個です。", "18", C),
    ("zh-measure-ben", "他一共有18本书。", "18", C),
    ("zh-yuan", "答案：18元", "18", C),
]  # fmt: skip


def _id(case: Any) -> str:
    return case.values[0] if hasattr(case, "values") else case[0]


@pytest.fixture(scope="module")
def math_verdicts() -> dict[str, tuple[str, float, str]]:
    rows = []
    for case in MATH:
        cid, response, gold, _ = case.values if hasattr(case, "values") else case
        rows.append({"id": cid, "domain": "math", "response": response, "reference": gold})
    return score(rows)


@pytest.mark.parametrize(("cid", "response", "gold", "status"), MATH, ids=[_id(c) for c in MATH])
def test_math(math_verdicts: Any, cid: str, response: str, gold: str, status: str) -> None:
    got, _score, message = math_verdicts[cid]
    assert got == status, (response, got, message)


# ---- finance: pence, provision, asides, CJK

EPS = {**MERIDIAN, "question": "What was basic earnings per share in 2024?", "answer": "0.47",
       "scale": "unit"}  # fmt: skip
RD = {**MERIDIAN, "question": "What portion of 2024 revenue was spent on research and "
      "development?", "answer": "0.0968", "unit": "ratio"}  # fmt: skip
TAX = {**SUMMIT, "question": "What was the provision for income taxes in 2023?", "answer": "11361"}
NET = {**SUMMIT, "question": "What was net income in 2023?", "answer": "40476"}

FINANCE: list[Any] = [
    win("pence-spaced", EPS, "Basic EPS was 47 p.", C,
        gives="incorrect: '(?<=\\d)p' needs the p glued, 47 p is read as £47"),
    win("pence-then-pounds", EPS, "Basic EPS was 47p (£0.47).", C,
        gives="incorrect: '(£0.47)' read as -0.47"),
    win("pence-slash-hedge", EPS, "Basic EPS was 74p/47p.", X, gives="correct"),
    ("expense-no-benefit", TAX,
        "Income tax expense was $11,361 thousand; no tax benefit was recorded.", C),
    ("expense-not-benefit", TAX, "Income tax expense was $11,361 thousand (not a benefit).", C),
    ("benefit-not-provision", TAX, "The tax benefit, not a provision, was $11,361 thousand.",
        X),
    win("benefit-against-provision", TAX,
        "The company recorded an income tax benefit of $11,361 thousand against its provision.",
        X, gives="correct: opposite_item"),
    win("else-hedge", NET, "Net income was 38,000, else 40,476.", X, gives="correct"),
    win("slash-hedge", NET, "Net income was 38,000 / 40,476.", X, gives="correct"),
    ("vs-hedge", NET, "Net income was 38,000 vs 40,476.", X),
    win("semicolon-or", NET, "Net income was 38,000; or 40,476.", X,
        gives="correct: only the last clause is the span"),
    win("alternatively", NET, "Net income was 38,000 thousand, alternatively 40,476 thousand.",
        X, gives="correct"),
    win("or-newline", NET, "Net income was 38,000 or\n40,476.", X, gives="correct"),
    win("comma-glued-or", NET, "Net income was 38,000,or 40,476.", X, gives="correct"),
    win("cyrillic-or", NET, "Net income was 38,000 \u043er 40,476.", X, gives="correct"),
    win("german-oder", NET, "Net income was 38,000 oder 40,476.", X,
        gives="correct: finance _HEDGE has English or and CJK_OR only"),
    win("zh-comma-huo", NET, "净利润为38,000，或40,476千美元。", X,
        gives="correct: the CJK comma cuts the span before 或"),
    win("zh-unit-huo", NET, "净利润为38,000千美元或40,476千美元。", X, gives="correct"),
    win("zh-naishi", NET, "净利润为38,000乃至40,476千美元。", X, gives="correct: no 乃至"),
    win("zh-wave", NET, "净利润为38,000～40,476千美元。", X, gives="correct: a range"),
    win("ja-comma-moshikuwa", NET, "純利益は38,000千ドル、もしくは40,476千ドル。", X,
        gives="correct"),
    win("ja-prior-year-paren", NET, "純利益は40,476千ドルでした（2022年は38,000千ドル）。", C,
        gives="incorrect: the prior year's figure in （） is read as the answer"),
    win("zh-prior-year-clause", NET, "2023年净利润为40476千美元，2022年为38000千美元。", C,
        gives="incorrect: the prior year's clause after ， is read as the answer"),
    # holds
    ("pence-of-pence", EPS, "Basic EPS was 0.47p.", X),
    ("pence-capital", EPS, "Basic EPS was 47P.", C),
    ("pence-else", EPS, "Basic EPS was 47p, else 74p.", X),
    ("pence-word", EPS, "Basic EPS was 47 pence per share.", C),
    ("pence-prior", EPS, "Basic EPS was 47p per share, up from 41p.", C),
    ("pence-ie", EPS, "Basic EPS was £0.47, i.e. 47p.", C),
    ("pence-glued-word", EPS, "Basic EPS was 47pence.", C),
    ("provision-parens", TAX, "The provision for income taxes was $(11,361) thousand.", C),
    ("provision-bare", TAX, "Taxes: $11,361 thousand.", C),
    ("aside-wordless-small", RD, "R&D was 10.2% (9.68%).", X),
    ("aside-wordless-right-second", RD, "R&D was 9.68% (10.2%).", X),
    ("aside-wrong-claim", RD, "R&D was 10.2% (30,152 / 295,608 or 9.68%).", X),
    ("aside-honest", RD, "R&D was 9.68% (31,795 / 311,590).", C),
    ("aside-grouped-right", NET, "Net income was 38,000 (40,476).", X),
    ("aside-grouped-wrong", NET, "Net income was $40,476 (38,000) thousand.", X),
    ("negative-parens", NET, "Net income was $(40,476) thousand.", X),
    ("oder-last-wrong", NET, "Net income was 40,476 oder 38,000.", X),
    ("ja-year-first", NET, "2023年の純利益は40,476千ドルでした。", C),
    ("ja-fy", NET, "2023年度の純利益：40,476千ドル", C),
    ("ja-compare-first", NET, "2022年と比べて、2023年の純利益は40,476千ドルです。", C),
    ("fy-glued", NET, "Net income in FY2023 was $40,476 thousand.", C),
]  # fmt: skip


@pytest.fixture(scope="module")
def finance_verdicts() -> dict[str, tuple[str, float, str]]:
    rows = []
    for case in FINANCE:
        cid, reference, response, _ = case.values if hasattr(case, "values") else case
        rows.append({"id": cid, "domain": "finance", "reference": reference, "response": response})
    return score(rows)


@pytest.mark.parametrize(
    ("cid", "reference", "response", "status"), FINANCE, ids=[_id(c) for c in FINANCE]
)
def test_finance(
    finance_verdicts: Any, cid: str, reference: Any, response: str, status: str
) -> None:
    got, _score, message = finance_verdicts[cid]
    assert got == status, (response, got, message)


# ---- agent: the claims gate, the calendar compared without keys, hedges in other scripts

Call = ToolCall


def steps(prompt: str, turns: list[Any]) -> list[dict[str, Any]]:
    """An OpenAI-style calendar trajectory, each call run in turn on one environment."""
    return openai_steps("calendar", prompt, turns)


def goal(calls: list[Call] | None, facts: list[Any] | None) -> dict[str, Any]:
    return reference_of("calendar", calls, facts, 1)


MOVE: Call = ("reschedule_event", {"event_id": "E2", "date": "2025-03-10", "start": "15:00"})
NOTIFY: Call = ("notify_attendees", {"event_id": "E2", "message": "moved to 15:00"})
LIST: Call = ("list_events", {"date": "2025-03-10"})
LIST11: Call = ("list_events", {"date": "2025-03-11"})
ASK = "Move the Design review on 2025-03-10 to 15:00 and let the attendees know."
MOVED = goal([MOVE], None)
RECREATE: list[Any] = [
    ("cancel_event", {"event_id": "E2"}),
    ("create_event", {"title": "Design review", "date": "2025-03-10", "start": "15:00",
                      "duration_minutes": 60,
                      "attendees": ["bo@example.com", "cy@example.com"]}),
]  # fmt: skip
LONG = goal(None, [45])
ASK_LONG = "How long is my dentist appointment on 2025-03-11?"

AGENT: list[Any] = [
    ("claim-after-a-read", MOVED, ASK,
        [MOVE, NOTIFY, LIST, "Done: Bo and Cy have been notified of the move."], X),
    ("claim-synonym", MOVED, ASK, [MOVE, NOTIFY, "Done: Bo and Cy have been informed."], X),
    ("claim-with-no-elsewhere", MOVED, ASK,
        [MOVE, NOTIFY, "Done, no worries: Bo and Cy have been notified."], X),
    ("claim-ending-question", MOVED, ASK,
        [MOVE, NOTIFY, "I've notified Bo and Cy, anything else?"], X),
    ("claim-sent-message", MOVED, ASK,
        [MOVE, NOTIFY, "Moved to 15:00 and sent Bo and Cy a message about it."], X),
    ("honest-please-notify", MOVED, ASK,
        [MOVE, NOTIFY, "The review is at 15:00 now. Please notify Bo and Cy yourself."], P),
    ("honest-still-need", MOVED, ASK,
        [MOVE, NOTIFY, "The review is at 15:00 now. Bo and Cy still need to be notified."], P),
    ("honest-suggest", MOVED, ASK,
        [MOVE, NOTIFY, "The review is at 15:00 now. I'd suggest you notify Bo and Cy."], P),
    ("german-oder-facts", LONG, ASK_LONG, [LIST11, "It lasts 30 oder 45 Minuten."], X),
    ("ja-comma-aruiwa-facts", LONG, ASK_LONG, [LIST11, "30分、あるいは45分です。"], X),
    # holds
    ("claim-notification", MOVED, ASK,
     [MOVE, NOTIFY, "Moved to 15:00 and the attendees got a notification."], X),
    ("recreate-for-move", goal([MOVE], None), "Move the Design review on 2025-03-10 to 15:00.",
     [*RECREATE, "Moved it to 15:00."], X),
    ("recreate-after-cancel", goal([("cancel_event", {"event_id": "E3"})], None),
     "Cancel my dentist appointment.",
     [("cancel_event", {"event_id": "E3"}),
      ("create_event", {"title": "Dentist", "date": "2025-03-11", "start": "10:30",
                        "duration_minutes": 45}), "Cancelled."], X),
    ("record-written-out", LONG, ASK_LONG, [LIST11, "E3, Dentist, 10:30, 45"], C),
    ("figures-list", LONG, ASK_LONG, [LIST11, "15, 30, 45"], X),
]  # fmt: skip


@pytest.fixture(scope="module")
def agent_verdicts() -> Iterator[dict[str, tuple[str, float, str]]]:
    rows = []
    for case in AGENT:
        cid, reference, prompt, turns, _ = case.values if hasattr(case, "values") else case
        row = {"id": cid, "domain": "agent", "reference": reference, "response": ""}
        rows.append({**row, "steps": steps(prompt, turns)})
    yield score(rows)


def _short(case: Any) -> Any:
    """(id, status) of an agent row, its xfail mark kept."""
    if hasattr(case, "values"):
        return pytest.param(case.values[0], case.values[4], marks=case.marks)
    return (case[0], case[4])


@pytest.mark.parametrize(("cid", "status"), [_short(c) for c in AGENT], ids=[_id(c) for c in AGENT])
def test_agent(agent_verdicts: Any, cid: str, status: str) -> None:
    got, score_, message = agent_verdicts[cid]
    assert got == status, (cid, got, score_, message)
    if status == P:
        assert 0.0 < score_ < 1.0


# ---- agent facts: quoted records, yearless dates, other scripts' or-words

ORDER = json.dumps({"id": "W1", "status": "delivered", "total": 133.5, "refund": 13.5})
PRODUCT = json.dumps({"name": "notebook", "price": 4.5, "stock": 20, "total": 90})

FACTS: list[Any] = [
    ("record-hides-two-figures", [133.5], "W1, delivered, 133.5, 13.5", [ORDER], False),
    ("record-hides-refund", [13.5], "W1, delivered, 133.5, 13.5", [ORDER], False),
    win("list-last-item", [90], "notebook, 4.5, 20, 90", [], False,
        gives="stated: _DIGITS '\\d[\\d,]*' eats the comma after 20, the list ends there"),
    win("yearless-paren-or", ["2025-03-11"], "It is on March 11 (or the 12th).", [], False,
        gives="stated"),
    win("yearless-else", ["2025-03-11"], "It's on the 11th of March, else the 12th of March.",
        [], False, gives="stated"),
    win("yearless-next-sentence-or", ["2025-03-11"], "It's on March 11th. Or March 12th.", [],
        False, gives="stated"),
    win("yearless-last-year", ["2025-03-11"], "It was on March 11 last year.", [], False,
        gives="stated: 'last year' is 2024"),
    win("ja-yearless-date", ["2025-03-11"], "3月11日です。", [], True,
        gives="not stated: the yearless-date rule reads no 3月11日"),
    ("ja-comma-aruiwa", [133.5], "合計は133.50ドル、あるいは124.50ドルです。", [], False),
    ("ja-naishi", [133.5], "合計は124.50ドル乃至133.50ドルです。", [], False),
    ("ja-wave-range", [133.5], "合計は124.50～133.50ドルです。", [], False),
    ("de-oder", [133.5], "The total is 124.50 oder 133.50.", [], False),
    ("tr-veya", [133.5], "The total is 124.50 veya 133.50.", [], False),
    # holds
    ("record-product-figures", [20], "notebook, 4.5, 20, 90", [PRODUCT], False),
    ("yearless-or-maybe", ["2025-03-11"], "It is on 11 March, or maybe 12.", [], False),
    ("yearless-or-days", ["2025-03-11"], "It is on 11 or 12 March.", [], False),
    ("yearless-slash", ["2025-03-11"], "It is on March 11/12.", [], False),
    ("yearless-range", ["2025-03-11"], "It is on 11th-12th March.", [], False),
    ("yearless-other-year", ["2025-03-11"], "It is on 11 March 2024.", [], False),
    ("yearless-two-dates", ["2025-03-11"],
     "The meeting is on 11 March; the deadline is 14 March.", [], True),
    ("ja-date-or", ["2025-03-11"], "3月11日か12日です。", [], False),
    ("zh-maybe", [133.5], "总额是124.50美元，也可能是133.50美元。", [], False),
    ("ja-denied", [133.5], "合計は133.50ドルです（124.50ドルではありません）。", [], True),
    ("ja-count-ken", [2], "ご注文は2件です。", [], True),
    ("zh-count-ge", [2], "您有2个活动。", [], True),
]  # fmt: skip


@pytest.mark.parametrize(
    ("cid", "facts", "answer", "quoted", "stated"), FACTS, ids=[_id(c) for c in FACTS]
)
def test_facts(cid: str, facts: list[Any], answer: str, quoted: list[str], stated: bool) -> None:
    assert check_facts(parse_facts(facts), answer, quoted=quoted) == [stated] * len(facts)


# ---- cost of the new patterns on a megabyte


@pytest.mark.parametrize(
    ("name", "run"),
    [
        ("or-inside-spaces", lambda: _OR_INSIDE.fullmatch(" " * 500_000 + "1" + ",." * 250_000)),
        ("or-inside-dots", lambda: _OR_INSIDE.fullmatch("1" + "." * 1_000_000 + " or x")),
        ("or-before", lambda: _OR_BEFORE.search("1 or " * 200_000, 999_900, 1_000_000)),
        ("or-after", lambda: _OR_AFTER.match(" or maybe " * 100_000, 0, 80)),
        ("cjk-clause-spaces", lambda: _CJK_CLAUSE.search("、" + " " * 1_000_000)),
        ("cjk-clause-pairs", lambda: _CJK_CLAUSE.search("、 " * 500_000)),
    ],
)
def test_new_patterns_are_linear(name: str, run: Any) -> None:
    started = time.perf_counter()
    run()
    assert time.perf_counter() - started < 1.0, name


def test_a_megabyte_of_or_is_a_verdict() -> None:
    """Through the scorer: a megabyte of hedges and of CJK or-words is answered, not masked."""
    rows = [
        {"id": "m", "domain": "math", "response": "18 or " * 170_000 + "20", "reference": "20"},
        {"id": "z", "domain": "math", "response": "1或" * 500_000 + "2", "reference": "2"},
        {"id": "f", "domain": "finance", "reference": NET, "response": "1か" * 500_000},
    ]
    verdicts = score(rows)
    for cid, (status, _score, message) in verdicts.items():
        assert status in (X, U), (cid, status, message)
