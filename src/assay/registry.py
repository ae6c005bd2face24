"""Names to verifiers: built-ins as lazy ``"module:attr"`` strings, plugins by entry point.

Verifier classes are imported only when a name is resolved, so ``assay --help`` stays fast.
A duplicate name or alias raises :class:`~assay.errors.DuplicateVerifierError`; an unknown name
raises :class:`~assay.errors.UnknownDomainError` with "did you mean ...?" suggestions.
"""

from __future__ import annotations

import difflib
import importlib
import threading
from dataclasses import dataclass

from assay.errors import DuplicateVerifierError, PluginError, UnknownDomainError
from assay.verifier import Verifier

ENTRY_POINT_GROUP = "assay.verifiers"

BUILTINS: dict[str, str] = {
    "agent": "assay.domains.agent.verifier:AgentVerifier",
    "code": "assay.domains.code.verifier:CodeVerifier",
    "finance": "assay.domains.finance.verifier:FinanceVerifier",
    "math": "assay.domains.math.verifier:MathVerifier",
    "mesh": "assay.domains.mesh.verifier:MeshVerifier",
}


@dataclass(frozen=True, slots=True)
class Entry:
    """One registered verifier class and where it came from."""

    name: str
    cls: type[Verifier]
    source: str  # "builtin" or "plugin:<distribution>"

    @property
    def version(self) -> str:
        return self.cls.version

    @property
    def id(self) -> str:
        return f"{self.name}@{self.cls.version}"


def load_spec(spec: str) -> type[Verifier]:
    """Import ``"package.module:ClassName"`` and check it is a :class:`Verifier` subclass."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise PluginError(f"{spec!r} is not of the form 'package.module:ClassName'")
    try:
        obj = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise PluginError(f"cannot load verifier {spec!r}: {exc}") from exc
    return _checked(obj, spec)


def _checked(obj: object, origin: str) -> type[Verifier]:
    contract = (
        "a verifier plugin must be a subclass of assay.Verifier with class attributes "
        "`name` and `version` (str) and a method `verify(record) -> Verdict`"
    )
    if not (isinstance(obj, type) and issubclass(obj, Verifier)):
        raise PluginError(f"{origin} is {obj!r}: {contract}")
    for attr in ("name", "version"):
        if not isinstance(getattr(obj, attr, None), str) or not getattr(obj, attr):
            raise PluginError(f"{origin} has no {attr!r}: {contract}")
    return obj


class Registry:
    """A set of verifier classes addressable by name, alias or verl ``data_source``."""

    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}
        self._aliases: dict[str, str] = {}
        self._instances: dict[str, Verifier] = {}
        self._lock = threading.Lock()
        self._lazy: dict[str, str] = {}  # canonical name -> "module:Class", not imported yet
        self._load_lock = threading.RLock()

    def register_lazy(self, name: str, spec: str) -> None:
        """Add a built-in by name and spec; its module is imported when a name needs it.

        Only for verifiers whose canonical name is ``name``: :meth:`resolve` imports just that
        module for its exact name, and every lazy one for any other name (an alias, a
        ``data_source``, an unknown name), so the answers are those of an eager registry.
        """
        with self._load_lock:
            if name.lower() in self._aliases or name.lower() in self._lazy:
                raise DuplicateVerifierError(f"{name!r} is already registered")
            self._lazy[name.lower()] = spec

    def _load(self, key: str) -> None:
        with self._load_lock:
            spec = self._lazy.pop(key, None)
            if spec is not None:
                self._register(load_spec(spec), "builtin")

    def _load_all(self) -> None:
        with self._load_lock:
            for key in list(self._lazy):
                self._load(key)

    def specs(self) -> dict[str, str]:
        """``{name: "module:Class"}`` for every verifier, without importing the lazy ones."""
        with self._load_lock:
            loaded = {
                e.name: f"{e.cls.__module__}:{e.cls.__qualname__}" for e in self._entries.values()
            }
            return dict(sorted({**loaded, **self._lazy}.items()))

    def register(self, cls: type[Verifier], source: str = "builtin") -> Entry:
        """Add a verifier class; its name and aliases must be new."""
        self._load_all()  # a clash with a built-in not imported yet is still a clash
        return self._register(cls, source)

    def _register(self, cls: type[Verifier], source: str) -> Entry:
        cls = _checked(cls, repr(cls))
        names = [cls.name, *cls.aliases]
        for key in names:
            owner = self._aliases.get(key.lower())
            if owner is not None:
                raise DuplicateVerifierError(
                    f"{key!r} from {source} is already registered by {self._entries[owner].source}"
                    f" ({owner})"
                )
        entry = Entry(cls.name, cls, source)
        self._entries[cls.name] = entry
        for key in names:
            self._aliases[key.lower()] = cls.name
        return entry

    def names(self) -> list[str]:
        with self._load_lock:
            return sorted({*self._entries, *self._lazy})

    def entries(self) -> list[Entry]:
        self._load_all()
        return [self._entries[name] for name in self.names()]

    def resolve(self, name: str) -> str:
        """Canonical domain name for a name, alias or verl ``data_source``."""
        key = name.strip().lower()
        if key in self._lazy:  # a built-in's own name: import that verifier only
            self._load(key)
        if key not in self._aliases:
            self._load_all()
        found = self._aliases.get(key) or self.domain_for_data_source(name)
        if found is not None:
            return found
        choices = sorted(self._aliases)
        suggestions = difflib.get_close_matches(key, choices, n=3, cutoff=0.6)
        raise UnknownDomainError(name, self.names(), suggestions)

    def domain_for_data_source(self, data_source: str) -> str | None:
        """Map a verl ``data_source`` (e.g. ``lighteval/MATH``) to a domain, if any claims it."""
        key = data_source.strip()
        self._load_all()
        for entry in self._entries.values():
            for pattern in entry.cls.data_sources:
                if pattern.endswith("*"):
                    if key.lower().startswith(pattern[:-1].lower()):
                        return entry.name
                elif key.lower() == pattern.lower():
                    return entry.name
        return None

    def entry(self, name: str) -> Entry:
        return self._entries[self.resolve(name)]

    def get(self, name: str) -> Verifier:
        """A shared, set-up instance of the verifier for ``name``."""
        canonical = self.resolve(name)
        with self._lock:
            instance = self._instances.get(canonical)
            if instance is None:
                instance = self._entries[canonical].cls()
                instance.setup()
                self._instances[canonical] = instance
            return instance


def _load_default() -> Registry:
    """Built-ins and plugins; the built-ins stay unimported until a name needs them.

    With a plugin installed every built-in is imported first (as before), so a plugin's name or
    alias that clashes with a built-in is reported at load.
    """
    from importlib import metadata  # here: a worker's registry needs no plugin discovery

    registry = Registry()
    builtin_specs = set(BUILTINS.values())
    plugins = [
        ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)
        if ep.value not in builtin_specs  # assay's own entry points name its built-ins
    ]  # fmt: skip
    for name, spec in BUILTINS.items():
        if plugins:
            registry.register(load_spec(spec), "builtin")
        else:
            registry.register_lazy(name, spec)
    for ep in plugins:
        dist = ep.dist.name if ep.dist is not None else "?"
        try:
            cls = _checked(ep.load(), f"entry point {ep.name!r} ({ep.value}) of {dist}")
        except PluginError:
            raise
        except Exception as exc:  # a broken plugin is reported, with the contract, not hidden
            raise PluginError(
                f"entry point {ep.name!r} ({ep.value}) of {dist} failed to load: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        registry.register(cls, f"plugin:{dist}")
    return registry


_default: Registry | None = None
_default_lock = threading.Lock()


def default_registry() -> Registry:
    """The process-wide registry of built-ins and installed plugins (loaded once)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = _load_default()
        return _default


def get_verifier(name: str) -> Verifier:
    """A set-up verifier for a domain name, alias or verl ``data_source``."""
    return default_registry().get(name)


def list_domains() -> list[Entry]:
    """Every registered verifier, sorted by name."""
    return default_registry().entries()
