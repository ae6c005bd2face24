"""The reusable checkers of assay.verifiers.agent, one table each."""

from __future__ import annotations

from typing import Any

import pytest
from assay.verifiers.agent.canonical import Canonicalizer, state_hash
from assay.verifiers.agent.facts import check_facts, numbers_in, parse_facts
from assay.verifiers.agent.matching import match_calls, normalise_string, parse_expected
from assay.verifiers.agent.schema import ToolSpec, check_arguments, parse_tools
from assay.verifiers.agent.trajectory import TrajectoryError, parse_trajectory

from assay.errors import MalformedTaskError

SPEC = ToolSpec("f", {
    "type": "object", "required": ["n"],
    "properties": {
        "n": {"type": "integer"}, "x": {"type": "number"}, "flag": {"type": "boolean"},
        "s": {"type": "string", "enum": ["a", "b"]}, "tags": {"type": "array",
        "items": {"type": "string"}, "maxItems": 2},
        "opt": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "obj": {"type": "object", "properties": {"k": {"type": "integer"}},
                "additionalProperties": False}},
})  # fmt: skip


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"n": 1}, None),  # the minimum
        ({"n": 1, "x": 2}, None),  # an int for a number is fine
        ({"n": 1, "x": 2.5, "flag": False, "s": "a", "tags": ["t"], "opt": None}, None),
        ({"n": "10"}, "expected integer"),  # a numeric string is not an integer
        ({"n": 10.0}, "expected integer"),  # strict: a float is not an integer
        ({"n": True}, "expected integer"),  # a bool is not an integer
        ({"n": 1, "x": True}, "expected number"),  # nor a number
        ({"n": 1, "x": "2.5"}, "expected number"),
        ({"n": 1, "flag": 1}, "expected boolean"),  # 1 is not a bool
        ({"n": 1, "flag": "true"}, "expected boolean"),
        ({"n": 1, "s": "A"}, "not one of"),  # enums are exact
        ({"n": 1, "s": True}, "expected string"),
        ({"x": 1.0}, "missing required argument 'n'"),
        ({"n": 1, "m": 2}, "invented argument 'm'"),
        ({"n": 1, "tags": ["a", 2]}, "tags[1]: expected string"),
        ({"n": 1, "tags": ["a", "b", "c"]}, "more than 2 items"),
        ({"n": 1, "opt": "x"}, "anyOf"),
        ({"n": 1, "obj": {"k": 1, "z": 0}}, "unexpected key 'z'"),
        ({"n": 1, "x": float("nan")}, "expected number"),  # NaN is not a JSON number
    ],
    ids=lambda v: repr(v)[:40],
)
def test_strict_argument_types(arguments: dict[str, Any], problem: str | None) -> None:
    problems = check_arguments(SPEC, arguments)
    if problem is None:
        assert problems == []
    else:
        assert any(problem in p for p in problems), problems


def test_bfcl_types_and_bad_tools() -> None:
    # BFCL's own type names read as JSON Schema ones; malformed tool lists are task errors
    specs = parse_tools([{"name": "g", "parameters": {"type": "dict", "properties": {
        "v": {"type": "float"}, "t": {"type": "tuple"}}}}])  # fmt: skip
    assert check_arguments(specs["g"], {"v": 3, "t": [1]}) == []
    assert check_arguments(specs["g"], {"v": "3"}) != []
    for bad in ({"name": "g"}, [{"function": {}}], [{"name": "g"}, {"name": "g"}]):
        with pytest.raises(MalformedTaskError):
            parse_tools(bad)


@pytest.mark.parametrize(
    ("text", "normalised"),
    [
        ("Paris, France", "parisfrance"),
        ("  NEW-york ", "newyork"),
        ("\u01c4_x", "\u01c6x"),
        ("O'Brien", 'o"brien'),
        ("a\tb", "a\tb"),
    ],
    ids=["comma", "dash-case", "lower-not-nfkc", "quote-as-bfcl", "tab-kept"],
)
def test_normalise_string(text: str, normalised: str) -> None:
    assert normalise_string(text) == normalised


WEATHER = {"w": {"city": ["Paris"], "unit": ["celsius", ""]}}


@pytest.mark.parametrize(
    ("expected", "actual", "pairs", "missing", "extra"),
    [
        # parallel calls in any order
        (
            [WEATHER, {"w": {"city": ["Rome"]}}],
            [("w", {"city": "rome"}), ("w", {"city": "PARIS"})],
            [(0, 1), (1, 0)],
            [],
            [],
        ),
        # one actual call cannot satisfy two expected ones
        ([WEATHER, WEATHER], [("w", {"city": "Paris"})], [(0, 0)], [1], []),
        # an optional argument left out, or given an allowed value
        ([WEATHER], [("w", {"city": "Paris", "unit": "celsius"})], [(0, 0)], [], []),
        ([WEATHER], [("w", {"city": "Paris", "unit": "kelvin"})], [], [0], [0]),
        # an argument not expected, a wrong name
        ([WEATHER], [("w", {"city": "Paris", "days": 3})], [], [0], [0]),
        ([WEATHER], [("v", {"city": "Paris"})], [], [0], [0]),
        # the explicit notation; an int matches an allowed float; a bool never matches 1
        ([{"name": "a", "arguments": {"x": 5.0}}], [("a", {"x": 5})], [(0, 0)], [], []),
        ([{"name": "a", "arguments": {"x": 1}}], [("a", {"x": True})], [], [0], [0]),
        # a greedy matcher would take actual 0 for expected 0 and leave expected 1 unmatched
        (
            [{"a": {"x": [1, 2]}}, {"a": {"x": [1]}}],
            [("a", {"x": 1}), ("a", {"x": 2})],
            [(0, 1), (1, 0)],
            [],
            [],
        ),
    ],
    ids=[
        "any-order",
        "no-double-use",
        "optional-given",
        "optional-wrong",
        "unexpected-arg",
        "wrong-name",
        "explicit-int-float",
        "bool-not-int",
        "augmenting-path",
    ],
)
def test_match_calls(
    expected: list[Any], actual: list[Any], pairs: list[Any], missing: list[int], extra: list[int]
) -> None:
    matching = match_calls(parse_expected(expected), actual)
    assert list(matching.pairs) == pairs
    assert list(matching.unmatched_expected) == missing
    assert list(matching.unmatched_actual) == extra


@pytest.mark.parametrize(
    ("left", "right", "unordered", "equal"),
    [
        ({"a": 10}, {"a": 10.0}, (), True),  # an integral float is the int
        ({"a": 0.1 + 0.2}, {"a": 0.3}, (), True),  # 12 significant digits
        ({"a": 0.3}, {"a": 0.31}, (), False),
        ({"a": True}, {"a": 1}, (), False),  # a bool is not a number
        ({"a": [1, 2]}, {"a": [2, 1]}, (), False),  # lists are ordered by default
        ({"a": [1, 2]}, {"a": [2, 1]}, ("a",), True),  # unless the path is unordered
        ({"e": {"x": {"t": ["p", "q"]}}}, {"e": {"x": {"t": ["q", "p"]}}}, ("e.*.t",), True),
        ({"a": [1, 1, 2]}, {"a": [1, 2, 2]}, ("a",), False),  # multisets keep counts
        ({"a": {1, 2}}, {"a": [2, 1]}, (), False),  # a set is not a list at an ordered path
        ({"a": {1, 2}}, {"a": {2, 1}}, (), True),
        ({"b": 1, "a": 2}, {"a": 2, "b": 1}, (), True),  # key order never counts
        ({"a": float("nan")}, {"a": float("nan")}, (), True),
    ],
    ids=[
        "int-float",
        "float-noise",
        "float-differs",
        "bool-int",
        "ordered",
        "unordered",
        "wildcard",
        "multiset",
        "set-vs-list",
        "sets",
        "keys",
        "nan",
    ],
)
def test_canonical_hash(left: Any, right: Any, unordered: tuple[str, ...], equal: bool) -> None:
    assert (state_hash(left, unordered) == state_hash(right, unordered)) is equal


def test_canonical_rejects_non_json() -> None:
    with pytest.raises(TypeError):
        Canonicalizer().canonical({"a": object()})


START = {"orders": {"A": {"n": 1, "tags": ["x"]}, "B": {"n": 2, "tags": []}}, "next": 3, "d": ["/"]}


@pytest.mark.parametrize(
    ("change", "plain"),
    [
        (lambda s: None, START),  # untouched: the base's cached digests
        (lambda s: s["orders"]["A"], START),  # read, not changed
        (
            lambda s: s["orders"]["A"].update(n=5),
            {**START, "orders": {**START["orders"], "A": {"n": 5, "tags": ["x"]}}},
        ),
        (
            lambda s: s["orders"]["A"]["tags"].append("y"),
            {**START, "orders": {**START["orders"], "A": {"n": 1, "tags": ["x", "y"]}}},
        ),
        (lambda s: s["orders"].pop("B"), {**START, "orders": {"A": START["orders"]["A"]}}),
        (
            lambda s: s["orders"].__setitem__("C", {"n": 3.0}),
            {**START, "orders": {**START["orders"], "C": {"n": 3}}},
        ),
        (lambda s: s.__setitem__("next", 4), {**START, "next": 4}),
        (lambda s: s["d"].append("/tmp"), {**START, "d": ["/", "/tmp"]}),
        (lambda s: s.__setitem__("orders", {}), {**START, "orders": {}}),
    ],
    ids=[
        "untouched",
        "read",
        "update",
        "nested-append",
        "delete",
        "add",
        "scalar",
        "list",
        "replaced",
    ],
)
def test_copy_on_write_state(change: Any, plain: dict[str, Any]) -> None:
    # a replayed copy-on-write state digests exactly as the same state given as plain data,
    # and the base it started from is never changed
    from assay.verifiers.agent.state import StateBase, state_digest

    canonicalizer = Canonicalizer(["orders.*.tags"])
    base = StateBase(START, canonicalizer)
    before = state_digest(base.fresh(), base)
    state = base.fresh()
    change(state)
    empty = StateBase({}, canonicalizer)
    assert state_digest(state, base) == state_digest(plain, empty)
    assert state_digest(base.fresh(), base) == before == state_digest(START, empty)
    assert (state_digest(state, base) == before) is (plain == START)


def test_copy_on_write_collection_behaves_as_a_dict() -> None:
    from assay.verifiers.agent.state import StateBase

    state = StateBase(START, Canonicalizer()).fresh()
    orders = state["orders"]
    assert list(orders) == ["A", "B"] and len(orders) == 2 and "A" in orders
    del orders["A"]
    orders["C"] = {"n": 0}
    orders["A"] = {"n": 9}  # deleted, then added again: back in its place
    assert list(orders.items()) == [("A", {"n": 9}), ("B", {"n": 2, "tags": []}), ("C", {"n": 0})]
    assert orders.get("Z") is None and len(orders) == 3
    with pytest.raises(KeyError):
        del orders["Z"]


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("$1,000 refunded", [1000.0]),
        ("10% off", [10.0]),
        ("-3 degrees", [-3.0]),
        ("2024-05-10", [2024.0, 5.0, 10.0]),  # a dash inside a date is no minus
        ("twenty-five and three hundred and five", [25.0, 305.0]),
        ("version v1.2.3 or a2b", []),  # digits glued to letters are not numbers
        ("total: 4.50, (42)", [4.5, 42.0]),
        ("the 3rd order, v2 and H2O", []),  # ordinals and tokens with digits are no numbers
        ("refund of 1.5 million", [1.5, 1_500_000.0]),  # a scale word: as written and scaled
        ("a dozen eggs", [12.0]),  # "a dozen"
        ("12\u202f345 points", [12345.0]),  # narrow no-break space as a thousands separator
        ("rate 1e5 per s", [100000.0]),  # scientific notation is one number, not 1 and 5
        ("done<|im_end|>", []),  # a decoder token holds no number
    ],
    ids=[
        "thousands",
        "percent",
        "minus",
        "date",
        "words",
        "glued",
        "punctuation",
        "ordinal",
        "scale-word",
        "dozen",
        "thin-space",
        "scientific",
        "special-token",
    ],
)
def test_numbers_in(text: str, numbers: list[float]) -> None:
    assert numbers_in(text) == numbers


@pytest.mark.parametrize(
    ("fact", "answer", "stated"),
    [
        (10, "It costs $1,000.", False),  # "10" is not found inside "$1,000"
        ("10", "It costs $10.", True),
        (10, "ten dollars", True),
        (10, "It costs 100 or 10.5", False),
        (1000, "1,000 characters", True),
        (13.5, "$13.50", True),
        ("cancelled", "Order CANCELLED.", True),
        ("cancel", "Order cancelled.", False),  # words, not substrings
        ("ORD-1002", "order ord 1002 is gone", True),  # punctuation between words is free
        ({"any": ["shipped", "delivered"]}, "It was delivered", True),
    ],
    ids=[
        "thousand-trap",
        "numeric-string",
        "number-word",
        "near-misses",
        "separators",
        "decimal",
        "case",
        "substring",
        "id",
        "any",
    ],
)
def test_facts(fact: Any, answer: str, stated: bool) -> None:
    assert check_facts(parse_facts([fact]), answer) == [stated]


@pytest.mark.parametrize("bad", [[None], [{"any": []}], "x", [True]], ids=repr)
def test_bad_facts_are_task_errors(bad: Any) -> None:
    with pytest.raises(MalformedTaskError):
        parse_facts(bad)


CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"n": 1}'}}
USER = {"role": "user", "content": "hi"}


@pytest.mark.parametrize(
    ("steps", "kind"),
    [
        ("not a list", "not_a_list"),
        ([USER, 3], "not_an_object"),
        ([{"role": "robot", "content": ""}], "unknown_role"),
        ([{"role": "assistant", "content": {"a": 1}}], "bad_content"),
        ([{"role": "assistant", "tool_calls": [{"function": {}}]}], "bad_tool_call"),
        (
            [{"role": "assistant", "tool_calls": [CALL]}, {"role": "assistant", "content": "done"}],
            "missing_tool_result",
        ),
        ([{"role": "tool", "tool_call_id": "c1", "content": "x"}], "orphan_tool_result"),
        ([{"role": "assistant", "tool_calls": [CALL, CALL]}], "duplicate_call_id"),
    ],
    ids=[
        "string",
        "number-message",
        "role",
        "content-dict",
        "no-name",
        "missing-result",
        "orphan",
        "duplicate-id",
    ],
)
def test_unreadable_trajectories(steps: Any, kind: str) -> None:
    with pytest.raises(TrajectoryError) as info:
        parse_trajectory(steps)
    assert info.value.kind == kind


def test_trajectory_reading() -> None:
    # bad JSON is kept as an invalid call; the last turn's calls may lack results (BFCL);
    # a result without tool_call_id answers the oldest pending call
    steps = [
        USER,
        {"role": "assistant", "content": None, "tool_calls": [
            {"function": {"name": "f", "arguments": "{bad"}},
            {"function": {"name": "g", "arguments": {"n": 2}}}]},
        {"role": "tool", "content": "r1"},
        {"role": "tool", "content": [{"type": "text", "text": "r2"}]},
        {"role": "assistant", "content": "so", "tool_calls": [CALL]},
    ]  # fmt: skip
    trajectory = parse_trajectory(steps)
    first, second, third = trajectory.calls
    assert first.arguments is None and "not valid JSON" in str(first.problem)
    assert second.arguments == {"n": 2} and second.id == "call@1.1"
    assert trajectory.results == {"call@1.0": "r1", "call@1.1": "r2"}
    assert third.turn == 1 and third.id not in trajectory.results
    assert trajectory.final_text == ""
