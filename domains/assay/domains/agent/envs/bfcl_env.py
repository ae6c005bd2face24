"""BFCL's environments as an assay :class:`Environment` named ``bfcl`` (needs bfcl-eval).

Imported only when a task names ``"env": "bfcl"`` (it reads bfcl-eval's function docs at import);
see :mod:`assay.domains.agent.envs.bfcl` for the instances and the safe dispatch.
"""

from __future__ import annotations

import datetime
import importlib.resources
import json
from collections.abc import Mapping
from typing import Any

from assay.domains.agent.envs.bfcl import (
    MULTI_TURN_CLASSES,
    BfclCall,
    BfclWorld,
    Scenario,
    UnsafeCall,
    _bfcl_module,
    is_error_result,
)
from assay.verifiers.agent.environment import Environment, ToolDef, ToolError
from assay.verifiers.agent.schema import parse_tools

from assay.types import JSON


def public_state(value: Any, path: tuple[int, ...] = ()) -> JSON:
    """An instance's public attributes as JSON data (what BFCL's state checker compares):
    objects become ``{"__class__": name, attribute: ...}`` without ``_`` attributes; a
    reference back to an enclosing object (a directory's ``parent``) is ``"<enclosing>"``."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if id(value) in path:
        return "<enclosing>"
    inner = (*path, id(value))
    if isinstance(value, Mapping):
        return {str(k): public_state(v, inner) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [public_state(v, inner) for v in value]
    if isinstance(value, set | frozenset):
        items = [public_state(v, inner) for v in value]
        return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if hasattr(value, "__dict__"):
        attributes = {k: v for k, v in vars(value).items() if not k.startswith("_")}
        return {"__class__": type(value).__name__, **public_state(attributes, inner)}
    return str(value)


def _tool_defs() -> dict[str, ToolDef]:
    """The tools of every multi-turn class, from bfcl-eval's function docs."""
    names = _bfcl_module("bfcl_eval.constants.executable_backend_config")
    docs = importlib.resources.files("bfcl_eval") / "data" / "multi_turn_func_doc"
    found: dict[str, ToolDef] = {}
    for class_name in MULTI_TURN_CLASSES:
        text = (docs / names.MULTI_TURN_FUNC_DOC_FILE_MAPPING[class_name]).read_text("utf-8")
        for spec in parse_tools([json.loads(line) for line in text.splitlines()]).values():
            found[spec.name] = ToolDef(spec, mutates=True, method=spec.name)
    return found


class BfclEnv(Environment):
    """BFCL's environments behind assay's :class:`Environment` contract (``"env": "bfcl"``).

    The state is ``{"involved_classes": [...], "initial_config": {...}, "long_context": bool}``
    (default: every multi-turn class with its default scenario); the tools are the classes'
    function docs; a call runs on :class:`BfclWorld` (a refusal, an error result or an unsafe
    call is a :class:`ToolError`); :meth:`digest` hashes :func:`public_state` of the
    instances, so ``goal: {"calls": [...]}`` compares the final public state, as BFCL's state
    checker does after the last turn. Per-turn judging: :mod:`assay.domains.agent.bfcl_multi_turn`.
    """

    name = "bfcl"
    version = "1"

    def __init__(self, state: Any = None) -> None:
        super().__init__(state)
        plain = {k: dict(v) if isinstance(v, Mapping) else v for k, v in self.state.items()}
        self.world = BfclWorld(Scenario.from_reference(plain))

    @classmethod
    def initial_state(cls) -> dict[str, JSON]:
        return {"involved_classes": list(MULTI_TURN_CLASSES), "initial_config": {}}

    def call(self, name: str, arguments: Mapping[str, JSON], *, checked: bool = False) -> JSON:
        if name not in self.tools:
            raise ToolError(f"unknown tool {name!r}")
        try:
            text = self.world.run(BfclCall(name, (), dict(arguments)))
        except UnsafeCall as exc:
            raise ToolError(str(exc)[:300]) from None
        if is_error_result(text):
            raise ToolError(text[:300])
        return text

    def world_state(self) -> dict[str, JSON]:
        return {name: public_state(i) for name, i in self.world.instances.items()}

    def digest(self) -> str:
        return self.digest_of(self.world_state())


BfclEnv.tools = _tool_defs()


__all__ = ["BfclEnv", "public_state"]
