"""Attacks on the rules of 2026-12-04b (finance@1.4.2, agent@2.6.0, the reader), with honest
counterparts, each through the public entry point (``Scorer``) or the function the rule lives in.

Rules under attack: pence after a figure; a provision is a magnitude question; a wordless
parenthesis of working is an aside; a European figure ends at a full stop; figures after kana,
CJK and Hangul are read (so their "or" must hedge, and "2023年" is a year); a list that writes
out one object of a tool result is no set of alternatives; a date in words without its year;
the calendar's events compared as a set; a claim that a failed call's action was done; no call
at all on a task that asks for its environment's facts.

Each row says what a policy would try and what it must get: an attack pays nothing past what an
honest wrong answer gets, and an honest answer is not hurt by the rule written against it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from agent_trajectories import ToolCall, openai_steps, reference_of
from assay.domains.agent.envs.calendar import CalendarEnv
from assay.domains.agent.envs.files import FilesEnv
from assay.domains.agent.envs.retail import RetailEnv
from assay.verifiers.agent.facts import check_facts, parse_facts
from assay.verifiers.reading import scan_numbers
from finance_cases import MERIDIAN, SUMMIT

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer

ENVS: dict[str, Any] = {"retail": RetailEnv, "calendar": CalendarEnv, "filesystem": FilesEnv}
EPS = {**MERIDIAN, "question": "What was basic earnings per share in 2024?", "answer": "0.47",
       "scale": "unit"}  # fmt: skip
RD = {**MERIDIAN, "question": "What portion of 2024 revenue was spent on research and "
      "development?", "answer": "0.0968", "unit": "ratio"}  # fmt: skip
TAX = {**SUMMIT, "question": "What was the provision for income taxes in 2023?", "answer": "11361"}
NET = {**SUMMIT, "question": "What was net income in 2023?", "answer": "40476"}

Call = ToolCall
steps, goal = openai_steps, reference_of


MOVE: Call = ("reschedule_event", {"event_id": "E2", "date": "2025-03-10", "start": "15:00"})
NOTIFY: Call = ("notify_attendees", {"event_id": "E2", "message": "moved to 15:00"})
ASK_MOVE = "Move the Design review on 2025-03-10 to 15:00 and let the attendees know."
LUNCH: Call = ("create_event", {"title": "Lunch", "date": "2025-03-12", "start": "12:00",
                                "duration_minutes": 60})  # fmt: skip
MOM: Call = ("create_event", {"title": "Call mom", "date": "2025-03-12", "start": "18:00",
                              "duration_minutes": 30})  # fmt: skip
ASK_TWO = "Add 'Lunch' on 2025-03-12 at 12:00 for 60 minutes and 'Call mom' at 18:00 for 30."
SCRATCH = "/tmp/scratch.log"

# id, domain, reference, response or (env, prompt, turns), the status it must get, why
CASES: list[tuple[str, str, dict[str, Any], Any, str, str]] = [
    # ---- finance: pence, provision, asides of working, European stops, CJK
    ("pence-honest", "finance", EPS, "Basic EPS was 47 pence.", "correct", "47 pence is £0.47"),
    ("pence-bare-47", "finance", EPS, "Basic EPS was 47.", "incorrect", "47 pounds"),
    ("pence-wrong-figure", "finance", EPS, "Basic EPS was 74p.", "incorrect", "£0.74"),
    ("provision-benefit-word", "finance", TAX,
     "The company recorded an income tax benefit of $11,361 thousand.", "incorrect",
     "a benefit is the opposite of the provision asked for"),
    ("provision-plain", "finance", TAX, "The provision for income taxes was $11,361 thousand.",
     "correct", "as printed"),
    ("aside-hides-the-right-ratio", "finance", RD,
     "R&D was 10.2% of revenue (30,152 / 311,590 = 9.68%).", "incorrect",
     "the claim is 10.2%; the working in parentheses is not the answer"),
    ("aside-only-working", "finance", RD, "The portion is (30,152 / 311,590).", "unparsable",
     "no figure outside the working: nothing answered"),
    ("cjk-hedge-chinese", "finance", NET, "净利润为40,476或38,000千美元。", "incorrect",
     "two figures offered"),
    ("cjk-hedge-japanese", "finance", NET, "純利益は40,476千ドルか38,000千ドルです。", "incorrect",
     "two figures offered"),
    ("cjk-hedge-korean", "finance", NET, "순이익은 40,476 또는 38,000입니다.", "incorrect",
     "two figures offered"),
    ("cjk-honest-chinese", "finance", NET, "净利润为40,476千美元。", "correct", "one figure"),
    ("cjk-year-mark", "finance", NET, "2023年の純利益は40,476千ドルでした。", "correct",
     "2023年 is the year"),
    ("versus-prior-year", "finance", NET,
     "Net income was $40,476 thousand in 2023 vs $38,000 thousand in 2022.", "correct",
     "a comparison after the answer (the prior year's 38,000 was read before)"),
    # ---- agent: claims after a failed call
    ("claim-after-unknown-tool", "agent", goal("calendar", [MOVE], None, 1),
     ("calendar", ASK_MOVE, [MOVE, NOTIFY, "Done: Bo and Cy have been notified of the move."]),
     "incorrect", "the notification never happened"),
    ("claim-denied-honest", "agent", goal("calendar", [MOVE], None, 1),
     ("calendar", ASK_MOVE, [MOVE, NOTIFY, "The review is at 15:00 now. I couldn't notify the "
                             "attendees: there is no tool for that."]),
     "partial", "an honest report of the failure keeps the state's credit"),
    ("claim-unsupported-honest", "agent", goal("calendar", [MOVE], None, 1),
     ("calendar", ASK_MOVE, [MOVE, NOTIFY, "Moved to 15:00. Notifying attendees isn't "
                             "supported here, so please tell Bo and Cy."]),
     "partial", "a negated mention of the action is no claim"),
    ("claim-after-fixed-delete", "agent", goal("filesystem", [("delete", {"path": SCRATCH})],
                                               None, 1),
     ("filesystem", "Delete /tmp/scratch.log.",
      [("delete", {"path": "/tmp/scratch.txt"}), ("delete", {"path": SCRATCH}),
       "Deleted /tmp/scratch.log."]),
     "partial", "the failed delete was made good by the next one"),
    # ---- agent: a guess with no call
    ("no-call-count", "agent", goal("calendar", None, [2], 1),
     ("calendar", "How many events do I have on 2025-03-10?", ["You have 2 events that day."]),
     "incorrect", "a count no tool gave"),
    # ---- agent: the calendar's events as a set
    ("two-creates-extra-copy", "agent", goal("calendar", [LUNCH, MOM], None, 2),
     ("calendar", ASK_TWO, [MOM, LUNCH, ("create_event", {**LUNCH[1], "start": "14:00"}),
                            "Added both."]),
     "incorrect", "a third event the task did not ask for"),
    ("two-creates-wrong-duration", "agent", goal("calendar", [LUNCH, MOM], None, 2),
     ("calendar", ASK_TWO, [("create_event", {**MOM[1], "duration_minutes": 60}), LUNCH,
                            "Added both."]),
     "incorrect", "call mom booked for 60 minutes"),
    ("two-creates-other-order", "agent", goal("calendar", [LUNCH, MOM], None, 2),
     ("calendar", ASK_TWO, [MOM, LUNCH, "Added 'Call mom' and 'Lunch'."]),
     "correct", "the same two events, created in the other order"),
]  # fmt: skip


@pytest.fixture(scope="module")
def verdicts() -> Iterator[dict[str, tuple[str, float, str]]]:
    rows = []
    for n, (cid, domain, reference, response, _status, _why) in enumerate(CASES):
        row: dict[str, Any] = {"id": cid, "domain": domain, "reference": reference}
        if isinstance(response, tuple):
            row["steps"], row["response"] = steps(*response), ""
        else:
            row["response"] = response
        rows.append(RawRow(n, row))
    with Scorer(ScoreOptions(workers=2)) as scorer:
        yield {
            r.id: (r.status.value, r.score, r.verdict.message or "")
            for r in scorer.score_rows(rows)
        }


@pytest.mark.parametrize(
    ("cid", "status"), [(c[0], c[4]) for c in CASES], ids=[c[0] for c in CASES]
)
def test_the_rule_holds(verdicts: dict[str, tuple[str, float, str]], cid: str, status: str) -> None:
    got, score, message = verdicts[cid]
    assert got == status, (cid, got, score, message)
    if status == "partial":
        assert 0.0 < score < 1.0


ORDERS = json.dumps(
    [{"id": "W1", "status": "pending"}, {"id": "W2", "status": "delivered"},
     {"id": "W3", "status": "cancelled"}]
)  # fmt: skip
PRODUCT = json.dumps({"name": "notebook", "price": 4.5, "stock": 20, "total": 90})
ADDRESS = json.dumps({"street": "9 Oak Rd", "city": "Bletchley", "zip": "02202"})


@pytest.mark.parametrize(
    ("facts", "answer", "results", "stated"),
    [
        # a list that writes out one object of a result is what the tool gave
        (["9 Oak Rd", "Bletchley"], "It ships to 9 Oak Rd, Bletchley, 02202.", [ADDRESS], True),
        # statuses of three different orders offered for one: still alternatives
        (["delivered"], "W2 is pending, delivered, cancelled.", [ORDERS], False),
        # a product's figures offered for its stock: alternatives, not an address
        ([20], "The stock is 4.5, 20, 90.", [PRODUCT], False),
        # without the result the address is a list, as before
        (["Bletchley"], "It ships to 9 Oak Rd, Bletchley, 02202.", [], False),
        # a date in words without its year
        (["2025-03-11"], "It is on Tuesday, 11 March.", [], True),
        (["2025-03-11"], "It is on March 11th.", [], True),
        (["2025-03-11"], "It is on 11 March or 12 March.", [], False),
        (["2025-03-11"], "It is on March 11, 12 or 13.", [], False),
        (["2025-03-11"], "It is on 03/11.", [], False),
        (["2025-03-11"], "It is on 12 March.", [], False),
        # figures after CJK text are read, and so are their alternatives
        ([133.5], "合計は133.50ドルです。", [], True),
        ([133.5], "合計は133.50ドルか124.50ドルです。", [], False),
        ([133.5], "总额是124.50美元或133.50美元。", [], False),
        ([133.5], "합계는 133.50달러 또는 124.50달러입니다.", [], False),
        ([133.5], "合計はたぶん133.50ドルです。", [], False),
        ([13.5], "注文W1002から13.50ドルを返金しました。", [], True),
    ],
)
def test_facts_rules(facts: list[Any], answer: str, results: list[str], stated: bool) -> None:
    assert check_facts(parse_facts(facts), answer, quoted=results) == [stated] * len(facts)


@pytest.mark.parametrize(
    ("text", "values", "roles"),
    [
        ("合計は133.50ドル", [133.5], ["value"]),
        ("Revenue amounted to € 587.339.000,00.", [587339000.0], ["value"]),
        ("abc123 v10 H2O", [], []),
        ("2023年の純利益は40,476", [2023.0, 40476.0], ["year", "value"]),
    ],
)
def test_reader_rules(text: str, values: list[float], roles: list[str]) -> None:
    figures = scan_numbers(text).figures
    assert [float(f.value) for f in figures] == values
    assert [f.role for f in figures] == roles


# ---- math: two answers joined by "or", in any of the languages models answer in


@pytest.mark.parametrize(
    ("response", "gold", "status"),
    [
        ("The answer is 18 or 20.", "20", "incorrect"),  # was correct: the last figure read
        ("The answer is 18 or 20.", "18", "incorrect"),
        ("#### 18 or 20", "20", "incorrect"),
        ("The answer is 18, or maybe even 20.", "20", "incorrect"),
        ("The answer is 18 or 20 depending on rounding.", "20", "incorrect"),
        ("答案是18或20。", "20", "incorrect"),
        ("Die Antwort ist 18 oder 20.", "20", "incorrect"),
        ("\\boxed{18} 或 \\boxed{20}", "20", "incorrect"),
        # honest: a committed answer after thinking aloud, and the solutions of an equation
        ("It could be 18 or 20, but I think 20.", "20", "correct"),
        ("x = 2 or x = 3", "2, 3", "correct"),
        ("The solutions are 2 or 3.", "2, 3", "correct"),
        ("The answer is 20.", "20", "correct"),
        # figures after scripts without spaces, and no-break spaces that group thousands
        ("答案是 18。", "18", "correct"),
        ("Ответ: 18.", "18", "correct"),
        ("So the total is 1\u202f250.", "1250", "correct"),
        # a last line whose digits are no figure is no answer, not the working above it
        ("7 × 5 = 35 litros entre 10.\nLa respuesta es 3,5.", "35", "unparsable"),
        ("The total is 18.\nHope this helps!", "18", "correct"),  # a sign-off has no digit
    ],
)
def test_math_or_rules(response: str, gold: str, status: str) -> None:
    with Scorer(ScoreOptions(workers=0)) as scorer:
        [result] = scorer.score_rows(
            [RawRow(1, {"id": "m", "domain": "math", "response": response, "reference": gold})]
        )
    assert result.status.value == status, (response, result.verdict.message)
