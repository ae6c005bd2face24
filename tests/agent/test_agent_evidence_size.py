"""A trajectory's size is not multiplied into its verdict's output line (red team round 4).

Each call's step evidence held the call's id, tool name and error whole, and the error of an
unknown tool repeats the name: 999 calls to a tool named with 190 KB made a 380 MB output line
(the verdict itself was right). Evidence strings are cut to a few hundred characters.
"""

from __future__ import annotations

import json

import pytest

from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer

REFERENCE = {
    "env": "retail",
    "goal": {
        "calls": [
            {
                "name": "cancel_order",
                "arguments": {"order_id": "W1001", "reason": "no longer needed"},
            }
        ]
    },
    "gold_steps": 2,
}


def _steps(calls: int, name: str, call_id: str) -> list[dict[str, object]]:
    steps: list[dict[str, object]] = [{"role": "user", "content": "Cancel W1001"}]
    for i in range(calls):
        ident = f"{call_id}{i}"
        function = {"name": name, "arguments": '{"order_id": "W1001"}'}
        steps.append({"role": "assistant", "tool_calls": [{"id": ident, "function": function}]})
        steps.append({"role": "tool", "tool_call_id": ident, "content": "ok"})
    return steps


CASES = [
    ("long unknown tool names", _steps(200, "x" * 50_000, "c")),
    ("long call ids", _steps(200, "get_order", "i" * 50_000)),
    ("long names of a known tool's kind", _steps(100, "get_order" + " " * 80_000, "c")),
]


@pytest.mark.parametrize(("name", "steps"), CASES, ids=[c[0] for c in CASES])
def test_the_output_line_stays_small(name: str, steps: list[dict[str, object]]) -> None:
    row = {
        "id": "a",
        "domain": "agent",
        "reference": REFERENCE,
        "response": "Done.",
        "steps": steps,
    }
    size_in = len(json.dumps(row))
    with Scorer(ScoreOptions(workers=1)) as scorer:
        (result,) = scorer.score_rows([RawRow(1, row)])
    assert result.verdict.status.value == "incorrect", result.verdict.message
    assert result.verdict.score == 0.0
    line = json.dumps(result.to_dict())
    assert len(line) < min(size_in // 10, 1_000_000), (len(line), size_in)
