"""Records with a value nested past the JSON parser's limit, as a file line or an HTTP body.

The parser gives up near 1,000 levels; a record accepts 100 (:data:`assay.safejson.MAX_DEPTH`).
A row read from a file or a request is cut past :data:`assay.safejson.CUT_DEPTH` levels, so the
record's own depth rule names the field: a trajectory (the response's) is ``unparsable``, a
reference (the task's) ``error``, and the rest of the file or batch is scored as it is (red team
round 4: such a line was a masked ``error`` for the whole row).
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from assay.domains.code import trajectory
from assay.rewards.adapters.serve import RewardServer, ServeConfig

from assay.io import read_rows
from assay.runner import ScoreOptions, Scorer
from assay.safejson import CUT_DEPTH, MAX_DEPTH, loads_rows, nested_deeper_than

DEEP = 2_000
MATH_REF = {"answer": "\\frac{1}{2}"}
AGENT_REF = {
    "env": "retail",
    "goal": {"calls": [{"name": "cancel_order", "arguments": {"order_id": "W1001"}}]},
    "gold_steps": 2,
}


def _deep(text_inside: str = "") -> str:
    return "[" * DEEP + text_inside + "]" * DEEP


def _depth(value: Any) -> int:
    depth = 0
    while isinstance(value, list) and value:
        value, depth = value[0], depth + 1
    return depth


# (id, JSON text, what loads_rows gives: a check on the value)
SHALLOW = [
    ('{"a": [1, 2, {"b": "[[[" }]}', {"a": [1, 2, {"b": "[[["}]}),
    ('{"s": "\\"[[\\\\", "t": [[]]}', {"s": '"[[\\', "t": [[]]}),
    ("[]", []),
    ('"plain"', "plain"),
]


@pytest.mark.parametrize(("text", "value"), SHALLOW)
def test_what_the_parser_reads_is_returned_as_it_is(text: str, value: Any) -> None:
    assert loads_rows(text) == value
    assert loads_rows(text.encode()) == value


DEEP_DOCUMENTS = [
    # a deep list as a field
    ('{"id": "a", "steps": ' + _deep() + "}", "steps"),
    # brackets and escaped quotes inside strings are not counted
    ('{"id": "a", "note": "]]]\\"]]", "steps": ' + _deep('"x]\\"[y"') + "}", "steps"),
    # objects nest too
    ('{"id": "a", "reference": ' + '{"k": ' * DEEP + "1" + "}" * DEEP + "}", "reference"),
]


@pytest.mark.parametrize(("text", "field"), DEEP_DOCUMENTS)
def test_a_value_too_deep_for_the_parser_is_cut_and_stays_too_deep(text: str, field: str) -> None:
    with pytest.raises(RecursionError):
        json.loads(text)
    row = loads_rows(text)
    assert row["id"] == "a"
    assert nested_deeper_than(row[field]), "the record's depth rule must still refuse the field"
    assert not nested_deeper_than(row, CUT_DEPTH + 1)
    assert loads_rows(text.encode()) == row


def test_the_cut_is_the_depth_marker_at_the_cut_depth() -> None:
    value = loads_rows(_deep('"x"'))
    assert _depth(value) == CUT_DEPTH
    inner = value
    for _ in range(CUT_DEPTH):
        inner = inner[0]
    assert inner == f"<nested deeper than {MAX_DEPTH} levels>"


@pytest.mark.parametrize(
    "text",
    [
        "[" * DEEP,  # never closed
        "[" * DEEP + '"open',  # an unterminated string
        "[" * DEEP + "]" * (DEEP - 1) + "}",  # wrong closer
    ],
)
def test_malformed_deep_text_is_still_malformed(text: str) -> None:
    with pytest.raises(ValueError):
        loads_rows(text)


def test_deep_bytes_that_are_not_utf8_are_malformed() -> None:
    with pytest.raises(ValueError):
        loads_rows(b"[" * DEEP + b'"\xff"' + b"]" * DEEP)


LINES = {
    "honest": {"domain": "math", "reference": MATH_REF, "response": "\\boxed{1/2}"},
    "deep_steps": '{"id": "deep_steps", "domain": "agent", "reference": '
    + json.dumps(AGENT_REF)
    + ', "response": "Cancelled.", "steps": [{"role": "user", "content": '
    + _deep()
    + "}]}",
    "deep_reference": '{"id": "deep_reference", "domain": "math", "response": "\\\\boxed{1}", '
    '"reference": {"answer": ' + _deep() + "}}",
    "wrong": {"domain": "math", "reference": MATH_REF, "response": "\\boxed{1/3}"},
}
WANT = {
    "honest": ("correct", None),
    "deep_steps": ("unparsable", "field 'steps' nests deeper than 100 levels"),
    "deep_reference": ("error", "field 'reference' nests deeper than 100 levels"),
    "wrong": ("incorrect", None),
}


def _line(name: str, value: Any) -> str:
    return value if isinstance(value, str) else json.dumps({"id": name, **value})


def test_a_file_with_deep_lines_scores_every_line_by_its_own_fault(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(_line(k, v) + "\n" for k, v in LINES.items()))
    with Scorer(ScoreOptions(workers=1)) as scorer:
        results = {r.id: r for r in scorer.score_rows(read_rows(path))}
    assert sorted(results) == sorted(LINES)
    for name, (status, message) in WANT.items():
        verdict = results[name].verdict
        assert verdict.status.value == status, (name, verdict.message)
        if message is not None:
            assert message in verdict.message


@pytest.fixture(scope="module")
def server() -> Iterator[RewardServer]:
    running = RewardServer(ServeConfig(port=0, workers=1, max_batch=8))
    running.start()
    yield running
    running.shutdown()


def test_a_request_with_one_deep_record_scores_the_others(server: RewardServer) -> None:
    body = '{"records": [' + ", ".join(_line(k, v) for k, v in LINES.items()) + "]}"
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    connection.request("POST", "/verify", body.encode(), {"Content-Type": "application/json"})
    response = connection.getresponse()
    payload = json.loads(response.read())
    connection.close()
    assert response.status == 200, payload
    statuses = {r["id"]: r["status"] for r in payload["results"]}
    assert statuses == {name: status for name, (status, _) in WANT.items()}


# --- the code domain's trajectory: what the parent reads before any limit applies -----------

FENCE = "```python\ndef add(a, b):\n    return a + b\n```"


def _call(arguments: str, name: str = "python") -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


TRAJECTORIES = [
    ("none", [{"role": "user", "content": "x"}]),
    ("one fence", [{"role": "assistant", "content": FENCE}]),
    ("a call", [{"role": "assistant", "tool_calls": [_call('{"code": "print(1)"}')]}]),
    ("a call without code", [{"role": "assistant", "tool_calls": [_call('{"q": "x"}', "s")]}]),
    (
        "arguments too deep for the parser, then a real call",
        [
            {"role": "assistant", "tool_calls": [_call('{"code": ' + _deep() + "}")]},
            {"role": "assistant", "tool_calls": [_call('{"code": "print(2)"}')]},
        ],
    ),
    ("40 fences", [{"role": "assistant", "content": FENCE}] * 40),
    ("messages that are not objects", ["text", None, {"role": "assistant", "content": FENCE}]),
    (
        "past the calls read",
        [
            {"role": "assistant", "tool_calls": [_call("{}", "s")] * trajectory.MAX_CALLS_READ},
            {"role": "assistant", "tool_calls": [_call('{"code": "print(3)"}')]},
        ],
    ),
]


@pytest.mark.parametrize(("name", "steps"), TRAJECTORIES, ids=[t[0] for t in TRAJECTORIES])
def test_the_budget_counts_the_commands_without_reading_their_code(
    name: str, steps: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    found = trajectory.commands(steps)
    assert len(found) <= trajectory.MAX_COMMANDS

    def no_extraction(text: str) -> str:
        raise AssertionError("command_count must not extract code")

    monkeypatch.setattr(trajectory, "extract_code", no_extraction)
    assert trajectory.command_count(steps) == len(found)
