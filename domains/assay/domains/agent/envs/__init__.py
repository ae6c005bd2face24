"""The agent domain's environments and where they are found.

Built-ins: ``retail`` (:class:`~assay.domains.agent.envs.retail.RetailEnv`), ``calendar``
(:class:`~assay.domains.agent.envs.calendar.CalendarEnv`) and ``filesystem``
(:class:`~assay.domains.agent.envs.files.FilesEnv`), and ``bfcl``
(:class:`~assay.domains.agent.envs.bfcl_env.BfclEnv`: BFCL's multi-turn classes, needs the
``bfcl`` extra and bfcl-eval). Others come from the entry point group
``assay.agent_envs`` or from :func:`register_env` in the verifying process.
"""

from __future__ import annotations

import threading

from assay.verifiers.agent.environment import Environment, EnvRegistry

BUILTIN_ENVS: dict[str, str] = {
    "retail": "assay.domains.agent.envs.retail:RetailEnv",
    "calendar": "assay.domains.agent.envs.calendar:CalendarEnv",
    "filesystem": "assay.domains.agent.envs.files:FilesEnv",
    "bfcl": "assay.domains.agent.envs.bfcl_env:BfclEnv",
}

_registry: EnvRegistry | None = None
_lock = threading.Lock()


def env_registry() -> EnvRegistry:
    """The process-wide environment registry (built-ins, then plugins on first use)."""
    global _registry
    with _lock:
        if _registry is None:
            _registry = EnvRegistry(BUILTIN_ENVS)
        return _registry


def register_env(cls: type[Environment]) -> type[Environment]:
    """Register an environment class in this process; usable as a class decorator.

    Note: the worker pool runs verifiers in separate processes; an environment registered
    in-process is seen there only if the module that registers it is imported by the workers
    (for the pool, ship it as an ``assay.agent_envs`` entry point instead).
    """
    env_registry().register(cls)
    return cls


def get_env(name: str) -> type[Environment]:
    """The environment class registered under ``name``."""
    return env_registry().get(name)


__all__ = ["BUILTIN_ENVS", "env_registry", "get_env", "register_env"]
