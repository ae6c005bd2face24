"""The one exception tree of assay.

::

    AssayError
    ├── ConfigError             bad options or settings given by the caller
    ├── RegistryError
    │   ├── UnknownDomainError  no verifier for a name ("did you mean ...?")
    │   ├── DuplicateVerifierError
    │   └── PluginError         an entry point that breaks the plugin contract
    ├── InputError              an input file or record that cannot be read (--strict raises it)
    ├── VerifierError           a verifier found a fault in the task, not in the answer
    │   └── MalformedTaskError  the reference is unusable (e.g. empty fail_to_pass)
    └── WorkerError             a worker process died or could not start

A verifier never raises on bad *model output*: that is a verdict (``unparsable``, ``incorrect``).
Exceptions that escape a verifier are turned into ``error`` verdicts at one boundary
(:func:`assay.boundary.run_verifier`), so a trainer can mask them instead of scoring 0.
"""

from __future__ import annotations


class AssayError(Exception):
    """Base class of every error assay raises on purpose."""


class ConfigError(AssayError):
    """Options or settings given by the caller are invalid."""


class RegistryError(AssayError):
    """A verifier name cannot be resolved or registered."""


class UnknownDomainError(RegistryError):
    """No verifier is registered under a name."""

    def __init__(self, name: str, known: list[str], suggestions: list[str]) -> None:
        hint = f" Did you mean {' or '.join(repr(s) for s in suggestions)}?" if suggestions else ""
        super().__init__(f"unknown domain {name!r}.{hint} Known domains: {', '.join(known)}.")
        self.name = name
        self.known = known
        self.suggestions = suggestions


class DuplicateVerifierError(RegistryError):
    """Two verifiers claim the same name or alias."""


class PluginError(RegistryError):
    """An entry point does not satisfy the plugin contract."""


class InputError(AssayError):
    """An input file or record cannot be read."""


class VerifierError(AssayError):
    """A verifier found a fault in the task itself, not in the model's answer."""


class MalformedTaskError(VerifierError):
    """The reference of a task is unusable; the verdict is ``error``."""


class WorkerError(AssayError):
    """A worker process died, hung, or could not be started."""
