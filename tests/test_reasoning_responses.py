"""Responses as reasoning models write them, in every domain: thinking first, then the answer.

Qwen3's chat template opens ``<think>`` in the prompt, so its response only closes it;
DeepSeek-R1-style models write a whole ``<think>...</think>`` block; a response cut off at
its token limit never closes it. Only what follows the thinking is the answer: a draft in the
thinking (code, a call, a mesh, a boxed number) is neither credited nor held against it, and a
response that never stopped thinking has not answered. Labelled by hand from how those models
answer (out of sample: written before the rule that reads them), scored through the
:class:`~assay.runner.Scorer` as ``assay score`` runs them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.records import RawRow
from assay.runner import Scorer

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MESHES = {
    r["id"]: r
    for r in map(json.loads, (FIXTURES / "mesh/cases.jsonl").read_text().splitlines())
    if r["id"] in ("mesh-block-obj", "mesh-block-ply", "mesh-block-off", "mesh-block-stl-ascii")
}
CALLS = next(
    json.loads(line)
    for line in (FIXTURES / "agent/cases.jsonl").open()
    if '"agent-game-python-calls"' in line
)
SQ = {
    "language": "python",
    "entry_point": "sq",
    "tests": "def check(candidate):\n    assert candidate(3) == 9\n    assert candidate(-2) == 4\n",
}
TAGS = {"language": "python", "entry_point": "answer_of",
        "tests": "def check(candidate):\n    assert candidate('<think>a</think>b') == 'b'\n"
                 "    assert candidate('b') == 'b'\n"}  # fmt: skip
RIGHT = "```python\ndef sq(x):\n    return x * x\n```"
WRONG = "```python\ndef sq(x):\n    return x + x\n```"
THOUGHT = "<think>\nThe block: 20 x 10 x 5 mm, one body.\n</think>\n\n"

# (id, domain, response, reference, expected status, expected score)
CASES: list[tuple[str, str, str, Any, str, float]] = [
    ("code-qwen3-template-opened", "code",
     "Okay, the square. Multiply x by itself; negatives square to positives.\n</think>\n\n" + RIGHT,
     SQ, "correct", 1.0),
    ("code-r1-think-block", "code",
     "<think>\nAlright, squaring: x * x. 3 -> 9, -2 -> 4.\n</think>\n\nHere it is:\n\n" + RIGHT,
     SQ, "correct", 1.0),
    # the right code only in the thinking: the final answer is what is judged
    ("code-draft-in-thinking-wrong-final", "code",
     "<think>\nFirst attempt:\n" + RIGHT + "\nMaybe addition is wanted.\n</think>\n\n" + WRONG,
     SQ, "incorrect", 0.0),
    ("code-wrong-draft-right-final", "code",
     "<think>\nDraft:\n" + WRONG.replace("```python", "```py") + "\nNo: 3 + 3 is 6.\n</think>\n\n"
     + RIGHT, SQ, "correct", 1.0),
    ("code-draft-fenced-final-unfenced", "code",
     "<think>\nA version:\n" + RIGHT + "\nWorks for 3.\n</think>\ndef sq(x):\n    return x + x\n",
     SQ, "incorrect", 0.0),
    # never closed its <think>: cut off before it answered
    ("code-cut-off-while-thinking", "code",
     "<think>\nA draft:\n" + RIGHT + "\nbut wait, I should check negatives", SQ, "unparsable", 0.0),
    # the tags as string literals are code, with or without thinking before them
    ("code-literal-think-tags", "code",
     '```python\ndef answer_of(text):\n    return text.split("</think>")[-1]\n```',
     TAGS, "correct", 1.0),
    ("code-literal-think-tags-after-thinking", "code",
     "<think>\nSplit on the closing tag.\n</think>\n\n```python\ndef answer_of(text):\n"
     "    return text.split('</think>')[-1]\n```", TAGS, "correct", 1.0),
    ("mesh-obj-after-thinking", "mesh", THOUGHT + MESHES["mesh-block-obj"]["response"],
     MESHES["mesh-block-obj"]["reference"], "correct", 1.0),
    ("mesh-obj-qwen3-template-opened", "mesh",
     "The block is 20 by 10 by 5.\n</think>\n" + MESHES["mesh-block-obj"]["response"],
     MESHES["mesh-block-obj"]["reference"], "correct", 1.0),
    ("mesh-ply-after-thinking", "mesh", THOUGHT + MESHES["mesh-block-ply"]["response"],
     MESHES["mesh-block-ply"]["reference"], "correct", 1.0),
    ("mesh-off-after-thinking", "mesh", THOUGHT + MESHES["mesh-block-off"]["response"],
     MESHES["mesh-block-off"]["reference"], "correct", 1.0),
    ("mesh-stl-after-thinking", "mesh", THOUGHT + MESHES["mesh-block-stl-ascii"]["response"],
     MESHES["mesh-block-stl-ascii"]["reference"], "correct", 1.0),
    ("agent-calls-after-thinking", "agent",
     "<think>\nTwo cities, two get_weather calls.\n</think>\n\n" + CALLS["response"],
     CALLS["reference"], "correct", 1.0),
    # a call written in the thinking is not a call made
    ("agent-draft-call-in-thinking", "agent",
     "<think>\nMaybe [get_weather(city='London')]? No: Tokyo and Paris.\n</think>\n"
     + CALLS["response"], CALLS["reference"], "correct", 1.0),
    ("agent-calls-only-in-thinking", "agent",
     "<think>\n" + CALLS["response"] + "\n</think>\nI cannot check the weather.",
     CALLS["reference"], "incorrect", 0.0),
    ("math-boxed-after-thinking", "math",
     "<think>\nMaybe 71? No: 48 + 24 = 72.\n</think>\n\nThe answer is \\boxed{72}.", "72",
     "correct", 1.0),
    ("math-answer-only-in-thinking", "math",
     "<think>\n48 + 24 = 72, so \\boxed{72}.\n</think>\n\nI am not sure.", "72", "unparsable", 0.0),
]  # fmt: skip

WRONG_BEFORE_THE_RULE = {
    # what assay answered wrong before it read the thinking apart from the answer (7 of 18)
    "code-draft-fenced-final-unfenced", "code-cut-off-while-thinking", "mesh-ply-after-thinking",
    "mesh-off-after-thinking", "mesh-stl-after-thinking", "agent-calls-after-thinking",
    "agent-draft-call-in-thinking",
}  # fmt: skip
assert {case[0] for case in CASES} >= WRONG_BEFORE_THE_RULE


@pytest.mark.parametrize(
    "case",
    CASES,
    ids=[case[0] for case in CASES],
)
def test_only_what_follows_the_thinking_is_the_answer(
    math_scorer: Scorer, case: tuple[str, str, str, Any, str, float]
) -> None:
    case_id, domain, response, reference, status, score = case
    row = {"id": case_id, "domain": domain, "response": response, "reference": reference}
    [result] = math_scorer.score_rows([RawRow(1, row)])
    assert (result.status.value, round(result.score, 3)) == (status, score), result.verdict.message
