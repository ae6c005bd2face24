"""Call forms (Python-call text, JSON lists, Hermes ``<tool_call>``), BFCL rows as records,
alternative call sets, exact-by-default, the task keys of agent@2 and grounded claims."""

from __future__ import annotations

import json
from typing import Any

import pytest
from assay.domains.agent.verifier import AgentVerifier
from assay.verifiers.agent.calltext import CallTextError, read_calls, split_tool_call_tags
from assay.verifiers.agent.grounding import answer_ids, check_grounding

from assay.boundary import run_verifier
from assay.errors import MalformedTaskError
from assay.records import RawRow, RecordBuilder
from assay.registry import Registry
from assay.types import Record, Status

VERIFIER = AgentVerifier()
WEATHER = {"name": "get_weather", "parameters": {"type": "dict", "properties": {
    "city": {"type": "string"}, "days": {"type": "integer"},
    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}  # fmt: skip
TRUTH = [{"get_weather": {"city": ["Paris", "Paris, France"], "days": [3, ""], "unit": [""]}}]


def verdict(response: str, reference: dict[str, Any], steps: tuple[Any, ...] = ()) -> Any:
    return run_verifier(VERIFIER, Record("t", "agent", response, reference, steps=steps)).verdict


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        ("[get_weather(city='Paris', days=3)]", [("get_weather", {"city": "Paris", "days": 3})]),
        ("get_weather(city='Paris')", [("get_weather", {"city": "Paris"})]),
        ("[m.sub.f(x=-1.5, y=(1, 2), z={'a': [True, None]})]",
         [("m.sub.f", {"x": -1.5, "y": [1, 2], "z": {"a": [True, None]}})]),
        ('[{"get_weather": {"city": "Paris"}}]', [("get_weather", {"city": "Paris"})]),
        ('[{"get_weather": "{\\"city\\": \\"Paris\\"}"}]', [("get_weather", {"city": "Paris"})]),
        ('{"name": "get_weather", "arguments": {"city": "Paris"}}',
         [("get_weather", {"city": "Paris"})]),
        ('[{"type": "function", "function": {"name": "f", "arguments": "{}"}}]', [("f", {})]),
        ("```python\n[f(a=1)]\n```", [("f", {"a": 1})]),
        ("[]", []),
    ],
    ids=["python-list", "python-bare", "python-literals", "bfcl-json", "bfcl-json-string",
         "openai-object", "openai-wrapper", "fenced", "empty"],
)  # fmt: skip
def test_read_calls(text: str, calls: list[tuple[str, dict[str, Any]]]) -> None:
    got = read_calls(text)
    assert [(c.name, c.arguments) for c in got] == calls
    assert all(c.problem is None for c in got)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[f(a=b)]", "not a literal value"),
        ("[f(a=g(1))]", "not a literal value"),
        ("[f(1, 2)]", "positional arguments"),
        ("[f(**kw)]", "**kwargs"),
        ("[f(a=__import__('os').system('true'))]", "not a literal value"),
    ],
    ids=["name", "nested-call", "positional", "kwargs", "no-eval"],
)  # fmt: skip
def test_calls_that_cannot_match_say_why(text: str, problem: str) -> None:
    (call,) = read_calls(text)
    assert call.arguments is None and call.problem is not None and problem in call.problem


@pytest.mark.parametrize("text", ["[f(a=1", "[1, 2]", "f(a=1) + g()", "[{'a': 1, 'b': 2}]"])
def test_unreadable_call_text_raises(text: str) -> None:
    with pytest.raises(CallTextError):
        read_calls(text)


def test_hermes_blocks() -> None:
    text = ('<think>two cities</think>\n<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n'
            '</tool_call>\n<tool_call>{"name": "g", "arguments": {"b": 2</tool_call>')  # fmt: skip
    split = split_tool_call_tags(text)
    assert split is not None
    rest, calls = split
    assert rest == "<think>two cities</think>"
    assert (calls[0].name, calls[0].arguments) == ("f", {"a": 1})
    assert calls[1].arguments is None and "unreadable" in (calls[1].problem or "")
    assert split_tool_call_tags("no calls here") is None


BFCL_REF = {"function": [WEATHER], "ground_truth": TRUTH}


@pytest.mark.parametrize(
    ("response", "status"),
    [
        ("[get_weather(city='Paris')]", "correct"),
        ("[get_weather(city='paris, france', days=3)]", "correct"),
        ("[get_weather(city='Paris', days='3')]", "incorrect"),  # wrong type
        ("[get_weather(city='Paris', days=3.0)]", "incorrect"),  # float for an integer
        ("[get_weather(city='Paris', unit='celsius')]", "incorrect"),  # "" only: never given
        ("[get_weather(city='Paris'), get_weather(city='Paris')]", "incorrect"),  # duplicate
        ("[get_weather(city='Lyon')]", "incorrect"),
        ("[get_weather(city=paris)]", "incorrect"),  # a variable cannot match
        ("[get_weather(city='Paris'", "unparsable"),
        ("It is sunny in Paris.", "incorrect"),  # prose where a call is needed
    ],
)
def test_bfcl_single_turn_is_exact(response: str, status: str) -> None:
    assert verdict(response, BFCL_REF).status.value == status


def test_partial_credit_only_when_asked() -> None:
    two = {"function": [WEATHER], "ground_truth": [
        {"get_weather": {"city": ["Paris"]}}, {"get_weather": {"city": ["Tokyo"]}}]}  # fmt: skip
    half = "[get_weather(city='Paris')]"
    assert verdict(half, two).status is Status.INCORRECT
    graded = verdict(half, {**two, "partial_credit": True})
    assert (graded.status, graded.score) == (Status.PARTIAL, 0.5)


def test_alternative_call_sets() -> None:
    ref = {"function": [WEATHER], "expected_calls": [
        [{"get_weather": {"city": ["Paris"]}}, {"get_weather": {"city": ["Tokyo"]}}],
        [{"name": "get_weather", "arguments": {"city": "Lyon"}}]]}  # fmt: skip
    assert verdict("[get_weather(city='Lyon')]", ref).status is Status.CORRECT
    assert verdict("[get_weather(city='Tokyo'), get_weather(city='Paris')]", ref).score == 1.0
    assert verdict("[get_weather(city='Tokyo')]", ref).status is Status.INCORRECT
    # "no call" as one acceptable alternative
    maybe = {"function": [WEATHER], "expected_calls": [[], [{"get_weather": {"city": ["Rome"]}}]]}
    assert verdict("Which city?", maybe).status is Status.CORRECT
    assert verdict("[get_weather(city='Rome')]", maybe).status is Status.CORRECT


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ({"function": [WEATHER], "ground_truth": [{"get_wether": {"city": ["Paris"]}}]},
         "can never match: it is not among the tools"),
        ({"function": [WEATHER], "ground_truth": [{"get_weather": {"town": ["Paris"]}}]},
         "can never match: required argument(s) town"),
        ({"function": [WEATHER], "expected_calls": [[{"get_weather": {"city": ["P"]}}],
                                                    {"get_weather": {"city": ["P"]}}]},
         "mixes call sets"),
        ({**BFCL_REF, "partial_credit": "yes"}, "partial_credit must be true or false"),
        ({**BFCL_REF, "refusal_ok": 1}, "refusal_ok must be true or false"),
        ({**BFCL_REF, "call_budget": -1}, "call_budget must be an integer"),
        ({**BFCL_REF, "grounding": "loose"}, "grounding must be one of"),
        ({**BFCL_REF, "weights": {"efficiency": 1}}, "only lower a success"),
    ],
    ids=["unknown-function", "undeclared-argument", "mixed-sets", "partial-credit-type",
         "refusal-type", "budget", "grounding-mode", "efficiency-weight"],
)  # fmt: skip
def test_malformed_tasks_say_why(reference: dict[str, Any], message: str) -> None:
    got = verdict("[get_weather(city='Paris')]", reference)
    assert got.status is Status.ERROR and message in (got.message or ""), got.message
    with pytest.raises(MalformedTaskError):
        VERIFIER.verify(Record("t", "agent", "x", reference))


def test_ground_truth_values_that_break_their_schema_are_admitted() -> None:
    # BFCL's data: null for an optional string, a variable name for an array, an enum outside
    func = {"name": "f", "parameters": {"type": "dict", "properties": {
        "a": {"type": "string"}, "xs": {"type": "array", "items": {"type": "integer"}},
        "u": {"type": "string", "enum": ["s", "ms"]}}, "required": ["xs"]}}  # fmt: skip
    ref = {"function": [func], "ground_truth": [
        {"f": {"a": ["", None], "xs": ["data['x']"], "u": ["", "N/A"]}}]}  # fmt: skip
    assert verdict("[f(a=None, xs=\"data['x']\", u='N/A')]", ref).status is Status.CORRECT
    # only the admitted values: another string for the array is still a schema error
    assert verdict("[f(xs='other')]", ref).status is Status.INCORRECT
    assert verdict("[f(xs='data[x]', u='hours')]", ref).status is Status.INCORRECT


REGISTRY = Registry()
REGISTRY.register(AgentVerifier)


@pytest.mark.parametrize(
    ("row", "status"),
    [
        ({"id": "simple_python_0", "question": [[{"role": "user", "content": "Paris?"}]],
          "function": [WEATHER], "ground_truth": TRUTH, "result": "[get_weather(city='Paris')]"},
         "correct"),
        ({"id": "simple_1", "function": [WEATHER], "ground_truth": TRUTH,
          "result": [{"get_weather": {"city": "Paris"}}]}, "correct"),
        ({"id": "irrelevance_3", "function": [WEATHER], "result": "I cannot help with that."},
         "correct"),
        ({"id": "live_irrelevance_3-1-0", "function": [WEATHER],
          "result": "[get_weather(city='Paris')]"}, "incorrect"),
        ({"id": "live_relevance_2-2-0", "function": [WEATHER],
          "result": "[get_weather(city='Paris')]"}, "correct"),
        ({"id": "live_relevance_2-2-1", "function": [WEATHER], "result": "No call."},
         "incorrect"),
        ({"id": "mystery_1", "function": [WEATHER], "result": "[]"}, "error"),
    ],
    ids=["python-text", "decoded-list", "irrelevance-text", "irrelevance-call", "relevance",
         "relevance-none", "no-truth-no-category"],
)  # fmt: skip
def test_bfcl_rows_are_records(row: dict[str, Any], status: str) -> None:
    record = RecordBuilder(REGISTRY).build(RawRow(1, row))
    assert isinstance(record, Record), record
    assert record.domain == "agent"
    assert run_verifier(VERIFIER, record).verdict.status.value == status


def test_hermes_text_in_steps_and_results() -> None:
    ref = {"tools": [{"type": "function", "function": WEATHER}], "facts": [21],
           "expected_calls": [{"get_weather": {"city": ["Paris"]}}]}  # fmt: skip
    steps = (
        {"role": "user", "content": "Paris?"},
        {"role": "assistant", "content": '<tool_call>{"name": "get_weather", "arguments": '
         '{"city": "Paris"}}</tool_call>'},
        {"role": "tool", "content": '{"temp_c": 21}'},
        {"role": "assistant", "content": "It is 21 degrees in Paris."},
    )  # fmt: skip
    assert verdict("", ref, steps).status is Status.CORRECT
    lie = (*steps[:3], {"role": "assistant", "content": "It is 25 degrees in Paris."})
    got = verdict("", ref, lie)
    assert got.status is Status.INCORRECT and "25" in (got.message or "")


EVIDENCE = [json.dumps({"order": "A77", "total": 412.5, "items": [400.0, 12.5]}),
            "What is the total of A77?"]  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "figures", "ids"),
    [
        ("A77 costs $412.50.", (), ()),
        ("A77 costs four hundred twelve dollars and fifty cents.", (), ()),
        ("412.5 in all", (), ()),
        ("the lamp is $400 and the cable $12.50", (), ()),
        ("$812.50 for both", (), ()),  # 400 + 412.5: a sum of two stated figures
        ("A77 costs $450.", (450.0,), ()),
        ("Tracking 1Z999AA10123456784.", (), ("1Z999AA10123456784",)),
        ("It arrives on the 3rd, 2 boxes, 10am.", (), ()),
        ("Order B12 is ready.", (), ("B12",)),
    ],
)  # fmt: skip
def test_grounding(answer: str, figures: tuple[float, ...], ids: tuple[str, ...]) -> None:
    found = check_grounding(answer, EVIDENCE)
    assert (found.figures, found.ids) == (figures, ids)


def test_strict_grounding_counts_small_numbers_too() -> None:
    assert check_grounding("2 boxes", EVIDENCE).passed
    assert check_grounding("2 boxes", EVIDENCE, strict=True).figures == (2.0,)
    assert answer_ids("W1001 and 3rd and 5kg and ab1") == ["W1001", "ab1"]


def test_grounding_many_figures_against_many_numbers() -> None:
    # past MAX_PAIRWISE evidence numbers no sums are tried (quadratic), lookups stay bisects
    evidence = [" ".join(str(n) for n in range(2000))]
    answer = " ".join(f"{n}.5" for n in range(1000)) + " 1999 1999000"
    found = check_grounding(answer, evidence)
    assert len(found.figures) == 1000  # no x.5 is stated; 1999 is, 1999000 is the total


@pytest.mark.parametrize(
    ("response", "status"),
    [
        ("[" * 20_000, "unparsable"),
        ("[f(a=" + "[" * 5000 + "]" * 5000 + ")]", "unparsable"),
        ("[get_weather(city=" + "9" * 5000 + ")]", "unparsable"),
        ('[{"get_weather": ' * 3000 + "{}" + "}]" * 3000, "unparsable"),
        ("<tool_call>" * 5000, "incorrect"),
        ("[" + ", ".join(["get_weather(city='Paris')"] * 1001) + "]", "incorrect"),
    ],
    ids=["brackets", "nested-value", "huge-int", "nested-json", "many-tags", "1001-calls"],
)  # fmt: skip
def test_hostile_call_text_is_the_responses_fault(response: str, status: str) -> None:
    # never a masked error or timeout: the response pays
    got = verdict(response, BFCL_REF)
    assert got.status.value == status, got.message
    assert got.score == 0.0
