"""Deterministic tool environments: the base class, the ``@tool`` decorator and the registry.

An environment is a Python state machine: its state is JSON-like data (dicts, lists, sets,
scalars), each tool is a method that reads or changes it, and a tool that cannot do what it is
asked raises :class:`ToolError` (the agent sees an error result). The verifier builds a fresh
instance for every replay, so nothing leaks between trajectories.

Environments are found by name in an :class:`EnvRegistry`: the package's own, those registered
in-process with :func:`register_env`, and plugins: distributions that name an
:class:`Environment` subclass in the entry point group ``assay.agent_envs``::

    [project.entry-points."assay.agent_envs"]
    warehouse = "my_envs.warehouse:WarehouseEnv"
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Any, ClassVar, TypeVar

from assay.verifiers.agent.canonical import Canonicalizer
from assay.verifiers.agent.schema import ToolSpec, check_arguments
from assay.verifiers.agent.state import StateBase, state_digest

from assay.errors import DuplicateVerifierError, PluginError, RegistryError
from assay.types import JSON

ENV_ENTRY_POINT_GROUP = "assay.agent_envs"
Method = TypeVar("Method", bound=Callable[..., Any])


class UnknownEnvironmentError(RegistryError):
    """No environment is registered under a name."""


class ToolError(Exception):
    """A tool refused a call (unknown order, slot taken...); the agent sees it as an error."""


@dataclass(frozen=True, slots=True)
class ToolDef:
    """A tool of an environment: its schema, whether it changes state, and its method name."""

    spec: ToolSpec
    mutates: bool
    method: str


def tool(
    description: str,
    properties: Mapping[str, JSON] | None = None,
    required: Iterable[str] = (),
    *,
    mutates: bool = False,
    name: str | None = None,
) -> Callable[[Method], Method]:
    """Mark an :class:`Environment` method as a tool; its keyword arguments are the call's."""

    def mark(method: Method) -> Method:
        parameters = {
            "type": "object",
            "properties": dict(properties or {}),
            "required": list(required),
            "additionalProperties": False,
        }
        spec = ToolSpec(name or method.__name__, parameters, description)
        method.__assay_tool__ = ToolDef(spec, mutates, method.__name__)  # type: ignore[attr-defined]
        return method

    return mark


class Environment:
    """Base class of tool environments.

    Subclasses set ``name`` and ``version``, implement :meth:`initial_state`, and mark tool
    methods with :func:`tool`. ``unordered`` lists the state paths whose lists are multisets
    (see :mod:`assay.verifiers.agent.canonical`); ``keyless`` the collections whose keys the
    environment hands out itself, in call order, which the state digest leaves out
    (:func:`.state.state_digest`).

    Example:
        >>> class Counter(Environment):
        ...     name, version = "counter", "1"
        ...     @classmethod
        ...     def initial_state(cls): return {"n": 0}
        ...     @tool("Add to the counter", {"by": {"type": "integer"}}, ["by"], mutates=True)
        ...     def add(self, by: int) -> int:
        ...         self.state["n"] += by
        ...         return self.state["n"]
        >>> env = Counter()
        >>> env.call("add", {"by": 2}), env.state
        (2, {'n': 2})
    """

    name: ClassVar[str]
    version: ClassVar[str] = "1"
    unordered: ClassVar[tuple[str, ...]] = ()
    keyless: ClassVar[frozenset[str]] = frozenset()
    tools: ClassVar[dict[str, ToolDef]] = {}
    _canonicalizer: ClassVar[Canonicalizer]
    _default_base: ClassVar[StateBase | None] = None
    _class_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        found: dict[str, ToolDef] = {}
        for klass in reversed(cls.__mro__):
            for attr in vars(klass).values():
                definition = getattr(attr, "__assay_tool__", None)
                if isinstance(definition, ToolDef):
                    found[definition.spec.name] = definition
        cls.tools = found
        cls._canonicalizer = Canonicalizer(cls.unordered)
        cls._default_base = None
        cls._class_lock = threading.Lock()

    def __init__(self, state: Mapping[str, JSON] | StateBase | None = None) -> None:
        """A fresh instance starting from ``state`` (default: :meth:`initial_state`).

        The state is copy-on-write (:mod:`assay.verifiers.agent.state`): entries of its
        collections are private deep copies made when a tool first reads them.
        """
        if state is None:
            state = self.base()
        elif not isinstance(state, StateBase):
            state = self.base(state)
        self._base = state
        self.state: dict[str, JSON] = state.fresh()

    @classmethod
    def base(cls, state: Mapping[str, JSON] | None = None) -> StateBase:
        """The prepared starting state (for :meth:`initial_state`, built once per class)."""
        if state is not None:
            return StateBase(state, cls._canonicalizer)
        with cls._class_lock:
            if cls._default_base is None:
                cls._default_base = StateBase(cls.initial_state(), cls._canonicalizer)
            return cls._default_base

    @classmethod
    def initial_state(cls) -> dict[str, JSON]:
        """The state a fresh instance starts from when the task gives none."""
        raise NotImplementedError

    @classmethod
    def tool_specs(cls) -> dict[str, ToolSpec]:
        return {name: definition.spec for name, definition in cls.tools.items()}

    def call(self, name: str, arguments: Mapping[str, JSON], *, checked: bool = False) -> JSON:
        """Run one tool; raises :class:`ToolError` for an unknown tool, arguments its own
        schema refuses (a task's ``tools`` may be laxer than the environment's), or a refused
        call. ``checked``: the caller already checked ``arguments`` against this tool's spec."""
        definition = self.tools.get(name)
        if definition is None:
            raise ToolError(f"unknown tool {name!r}")
        problems = [] if checked else check_arguments(definition.spec, arguments)
        if problems:
            raise ToolError("; ".join(problems)[:300])
        return getattr(self, definition.method)(**arguments)

    def digest(self) -> str:
        """Canonical hash of the current state (see :func:`.state.state_digest`)."""
        return state_digest(self.state, self._base, self.keyless)

    @classmethod
    def digest_of(cls, state: Mapping[str, JSON]) -> str:
        """Canonical hash of a state given as data (a task's explicit goal state)."""
        return state_digest(state, StateBase({}, cls._canonicalizer), cls.keyless)


class EnvRegistry:
    """Environments by name: built-ins (lazy ``"module:Class"``), in-process, plugins."""

    def __init__(self, builtins: Mapping[str, str] | None = None) -> None:
        self._specs: dict[str, str] = dict(builtins or {})
        self._classes: dict[str, type[Environment]] = {}
        self._sources: dict[str, str] = dict.fromkeys(self._specs, "builtin")
        self._plugins_loaded = False
        self._lock = threading.RLock()

    def register(self, cls: type[Environment], source: str = "in-process") -> None:
        """Add an environment class; its name must be new."""
        cls = _checked_env(cls, repr(cls))
        with self._lock:
            self._load_plugins()
            self._add(cls.name, cls, source)

    def _add(self, name: str, cls: type[Environment], source: str) -> None:
        if name in self._specs or name in self._classes:
            raise DuplicateVerifierError(
                f"environment {name!r} from {source} is already registered by "
                f"{self._sources.get(name, '?')}"
            )
        self._classes[name] = cls
        self._sources[name] = source

    def names(self) -> list[str]:
        with self._lock:
            self._load_plugins()
            return sorted({*self._specs, *self._classes})

    def source(self, name: str) -> str:
        self.get(name)
        return self._sources[name]

    def get(self, name: str) -> type[Environment]:
        """The class registered under ``name``; raises :class:`UnknownEnvironmentError`."""
        with self._lock:
            self._load_plugins()
            if name not in self._classes and name in self._specs:
                self._classes[name] = _load_env_spec(self._specs[name])
            found = self._classes.get(name)
        if found is None:
            import difflib

            known = self.names()
            close = difflib.get_close_matches(name, known, n=3)
            hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
            raise UnknownEnvironmentError(
                f"unknown environment {name!r}.{hint} Known: {', '.join(known)}."
            )
        return found

    def _load_plugins(self) -> None:
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        for ep in metadata.entry_points(group=ENV_ENTRY_POINT_GROUP):
            if self._specs.get(ep.name) == ep.value:
                continue  # assay's own entry point for a built-in
            dist = ep.dist.name if ep.dist is not None else "?"
            origin = f"entry point {ep.name!r} ({ep.value}) of {dist}"
            try:
                loaded = ep.load()
            except Exception as exc:  # a broken plugin is reported with the contract
                raise PluginError(f"{origin} failed to load: {type(exc).__name__}: {exc}") from exc
            cls = _checked_env(loaded, origin)
            self._add(cls.name, cls, f"plugin:{dist}")


_CONTRACT = (
    "an agent environment plugin must be a subclass of "
    "assay.verifiers.agent.environment.Environment with a class attribute `name` (str), "
    "an `initial_state()` classmethod and @tool methods"
)


def _checked_env(obj: object, origin: str) -> type[Environment]:
    if not (isinstance(obj, type) and issubclass(obj, Environment)):
        raise PluginError(f"{origin} is {obj!r}: {_CONTRACT}")
    if not isinstance(getattr(obj, "name", None), str) or not obj.name or not obj.tools:
        raise PluginError(f"{origin} has no name or no tools: {_CONTRACT}")
    return obj


def _load_env_spec(spec: str) -> type[Environment]:
    module_name, _, attr = spec.partition(":")
    try:
        obj = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise PluginError(f"cannot load environment {spec!r}: {exc}") from exc
    return _checked_env(obj, spec)
