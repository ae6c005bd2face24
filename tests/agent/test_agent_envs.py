"""The shipped environments, the environment registry and a real entry-point plugin."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from assay.domains.agent.envs import BUILTIN_ENVS, get_env
from assay.domains.agent.verifier import AgentVerifier
from assay.verifiers.agent.environment import (
    Environment,
    EnvRegistry,
    ToolError,
    UnknownEnvironmentError,
    tool,
)

from assay.errors import DuplicateVerifierError, PluginError
from assay.records import RawRow
from assay.registry import Registry
from assay.runner import ScoreOptions, Scorer
from assay.types import Record


@pytest.mark.parametrize(
    ("env", "calls", "result"),
    [
        (
            "retail",
            [("cancel_order", {"order_id": "W1001", "reason": "ordered by mistake"})],
            {"order_id": "W1001", "status": "cancelled", "refund": 50.0},
        ),
        (
            "retail",
            [("place_order", {"user_id": "u1", "items": [{"product_id": "p2", "quantity": 2}]})],
            {"order_id": "W1004", "total": 9.0},
        ),
        (
            "retail",
            [("return_items", {"order_id": "W1002", "product_ids": ["p2"]})],
            {"order_id": "W1002", "refund": 13.5, "status": "delivered"},
        ),
        (
            "calendar",
            [("find_free_slot", {"date": "2025-03-10", "duration_minutes": 180})],
            {"date": "2025-03-10", "start": "09:15"},
        ),
        (
            "calendar",
            [
                ("cancel_event", {"event_id": "E2"}),
                ("find_free_slot", {"date": "2025-03-10", "duration_minutes": 240}),
            ],
            {"date": "2025-03-10", "start": "09:15"},
        ),
        (
            "calendar",
            [
                (
                    "create_event",
                    {"title": "x", "date": "2025-03-11", "start": "23:30", "duration_minutes": 30},
                ),
                ("list_events", {"date": "2025-03-11"}),
            ],
            [
                {
                    "event_id": "E3",
                    "title": "Dentist",
                    "date": "2025-03-11",
                    "start": "10:30",
                    "duration": 45,
                    "attendees": [],
                },
                {
                    "event_id": "E4",
                    "title": "x",
                    "date": "2025-03-11",
                    "start": "23:30",
                    "duration": 30,
                    "attendees": [],
                },
            ],
        ),
        ("filesystem", [("list_dir", {"path": "/home/ada"})], ["notes", "report.csv", "todo.txt"]),
        (
            "filesystem",
            [
                ("move", {"source": "/tmp/scratch.log", "destination": "/home"}),
                ("file_size", {"path": "/home/scratch.log"}),
            ],
            1000,
        ),
    ],
    ids=[
        "cancel",
        "place",
        "return",
        "free-slot",
        "free-slot-after-cancel",
        "create-then-list",
        "list-dir",
        "move-size",
    ],
)
def test_environment_calls(env: str, calls: list[tuple[str, Any]], result: Any) -> None:
    instance = get_env(env)()
    out = None
    for name, arguments in calls:
        out = instance.call(name, arguments)
    assert out == result


@pytest.mark.parametrize(
    ("env", "name", "arguments", "error"),
    [
        (
            "retail",
            "cancel_order",
            {"order_id": "W1002", "reason": "ordered by mistake"},
            "only pending",
        ),
        (
            "retail",
            "place_order",
            {"user_id": "u1", "items": [{"product_id": "p4", "quantity": 1}]},
            "in stock",
        ),
        ("retail", "get_order", {"order_id": "W9"}, "not found"),
        (
            "calendar",
            "create_event",
            {"title": "x", "date": "2025-03-10", "start": "09:10", "duration_minutes": 30},
            "overlaps E1",
        ),
        (
            "calendar",
            "find_free_slot",
            {"date": "2025-03-10", "duration_minutes": 240},
            "no free 240-minute slot",
        ),
        (
            "calendar",
            "create_event",
            {"title": "x", "date": "2025-03-10", "start": "25:00", "duration_minutes": 30},
            "not a time",
        ),
        ("filesystem", "delete", {"path": "/home/ada/notes"}, "not empty"),
        ("filesystem", "write_file", {"path": "/nope/a.txt", "content": ""}, "does not exist"),
        ("filesystem", "nope", {}, "unknown tool"),
    ],
    ids=[
        "cancel-delivered",
        "out-of-stock",
        "no-order",
        "overlap",
        "no-slot",
        "bad-time",
        "non-empty",
        "no-parent",
        "unknown-tool",
    ],
)
def test_environment_refusals(env: str, name: str, arguments: Any, error: str) -> None:
    instance = get_env(env)()
    before = instance.digest()
    with pytest.raises(ToolError, match=error):
        instance.call(name, arguments)
    assert instance.digest() == before  # a refused call changes nothing


def test_fresh_instances_share_nothing() -> None:
    # each replay starts from the same state, whatever an earlier instance did
    first = get_env("retail")()
    first.call("issue_credit", {"user_id": "u1", "amount": 5})
    assert get_env("retail")().state["users"]["u1"]["credit"] == 0
    assert set(BUILTIN_ENVS) == {"retail", "calendar", "filesystem", "bfcl"}


class TinyEnv(Environment):
    name = "tiny"

    @classmethod
    def initial_state(cls) -> dict[str, Any]:
        return {"lights": "off"}

    @tool("Switch the lights.", {"on": {"type": "boolean"}}, ["on"], mutates=True)
    def switch(self, on: bool) -> str:
        self.state["lights"] = "on" if on else "off"
        return str(self.state["lights"])


def test_in_process_registration() -> None:
    registry = EnvRegistry(BUILTIN_ENVS)
    registry.register(TinyEnv)
    assert registry.get("tiny") is TinyEnv and registry.source("tiny") == "in-process"
    assert "retail" in registry.names()
    with pytest.raises(DuplicateVerifierError, match="already registered"):
        registry.register(TinyEnv)
    with pytest.raises(UnknownEnvironmentError, match="Did you mean 'tiny'"):
        registry.get("tine")
    with pytest.raises(PluginError, match="subclass of"):
        registry.register(dict)  # type: ignore[arg-type]


PLUGIN = """
from assay.verifiers.agent.environment import Environment, ToolError, tool


class KettleEnv(Environment):
    name = "kettle"
    version = "0.1"

    @classmethod
    def initial_state(cls):
        return {"water_ml": 0, "boiled": False}

    @tool("Fill the kettle.", {"ml": {"type": "integer", "minimum": 1}}, ["ml"], mutates=True)
    def fill(self, ml):
        self.state["water_ml"] = min(1500, self.state["water_ml"] + ml)
        return self.state["water_ml"]

    @tool("Boil the water.", mutates=True)
    def boil(self):
        if not self.state["water_ml"]:
            raise ToolError("the kettle is empty")
        self.state["boiled"] = True
        return "boiled"
"""


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Path]:
    """A directory laid out as pip installs a distribution: module + .dist-info."""
    (tmp_path / "kettle_env_mod.py").write_text(textwrap.dedent(PLUGIN))
    info = tmp_path / "kettle_env-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kettle-env\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[assay.agent_envs]\nkettle = kettle_env_mod:KettleEnv\n"
    )
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    sys.modules.pop("kettle_env_mod", None)


KETTLE_TASK = {"env": "kettle", "goal": {"calls": [{"name": "fill", "arguments": {"ml": 500}},
                                                   {"name": "boil", "arguments": {}}]}}  # fmt: skip


def _kettle_steps(first: str) -> list[dict[str, Any]]:
    calls = [("boil", "{}"), ("fill", '{"ml": 500}'), ("boil", "{}")]
    if first == "fill":
        calls = calls[1:]
    steps: list[dict[str, Any]] = [{"role": "user", "content": "Boil 500 ml"}]
    for k, (name, arguments) in enumerate(calls):
        steps.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"k{k}",
                        "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    }
                ],
            }
        )
        steps.append({"role": "tool", "tool_call_id": f"k{k}", "content": "ok"})
    return steps  # fmt: skip


def test_entry_point_plugin_env(site: Path) -> None:
    # found by its entry point in a fresh registry, and scored in the worker pool's processes
    registry = EnvRegistry(BUILTIN_ENVS)
    assert registry.source("kettle") == "plugin:kettle-env"
    assert set(registry.get("kettle").tools) == {"fill", "boil"}
    verifiers = Registry()
    verifiers.register(AgentVerifier)
    rows = [
        RawRow(1, {"id": "ok", "domain": "tool_calling", "response": "Boiled.",
                   "steps": _kettle_steps("fill"), "reference": KETTLE_TASK}),
        RawRow(2, {"id": "recovered", "domain": "agent", "response": "Boiled.",
                   "steps": _kettle_steps("boil"), "reference": KETTLE_TASK}),
        RawRow(3, {"id": "unknown-env", "domain": "agent", "response": "x",
                   "steps": _kettle_steps("fill"), "reference": {**KETTLE_TASK, "env": "kettel"}}),
    ]  # fmt: skip
    with Scorer(ScoreOptions(workers=1), verifiers) as scorer:
        results = {r.id: r for r in scorer.score_rows(rows)}
    assert (results["ok"].status.value, results["ok"].score) == ("correct", 1.0)
    recovered = results["recovered"].verdict
    assert recovered.status.value == "partial"
    assert [s.evidence["error_recovered"] for s in recovered.steps] == [False, False, True]
    assert results["unknown-env"].status.value == "error"
    assert "Did you mean 'kettle'" in str(results["unknown-env"].verdict.message)


def test_broken_plugin_names_the_contract(site: Path) -> None:
    entry = site / "kettle_env-0.1.dist-info" / "entry_points.txt"
    entry.write_text("[assay.agent_envs]\nkettle = kettle_env_mod:ToolError\n")
    with pytest.raises(PluginError, match="must be a subclass"):
        EnvRegistry(BUILTIN_ENVS).names()


def test_verifier_with_in_process_env() -> None:
    # an in-process environment class is usable by the verifier of this process
    from assay.domains.agent.envs import env_registry, register_env

    if "tiny" not in env_registry().names():
        register_env(TinyEnv)
    record = Record("t", "agent", "Lights on.", {"env": "tiny", "goal": {"state": {
        "lights": "on"}}}, steps=({"role": "assistant", "content": None, "tool_calls": [{
        "id": "a", "type": "function", "function": {"name": "switch", "arguments":
        '{"on": 1}'}}]}, {"role": "tool", "tool_call_id": "a", "content": "error"}))  # fmt: skip
    verdict = AgentVerifier().verify(record)
    assert verdict.status.value == "incorrect"  # 1 is not a boolean: the lights stay off
    assert verdict.steps[0].evidence["calls"][0]["error_kind"] == "schema"
