"""verl plugin: registers assay's reward managers under the name ``assay``.

verl 0.9 imports every ``verl.plugins`` entry point when ``verl`` itself is imported (unless
``VERL_USE_EXTERNAL_PLUGINS=none``), in the driver and in each Ray worker, so with assay
installed ``reward.reward_manager.name=assay`` works with no launcher code. Without the entry
point, ``VERL_USE_EXTERNAL_MODULES=assay.rewards.adapters.verl_plugin`` does the same.

Two registries get the name: the reward loop's (``verl.experimental.reward_loop``, what 0.9's
``main_ppo`` uses: :class:`~assay.rewards.adapters.verl_loop.AssayRewardLoopManager`) and the
older ``verl.workers.reward_manager`` one (the ``__call__(data)`` interface of
:class:`~assay.rewards.adapters.verl.AssayRewardManager`).
"""

from __future__ import annotations

from typing import Any, cast

from assay.rewards.adapters.verl import AssayRewardManager
from assay.rewards.adapters.verl_loop import AssayRewardLoopManager
from verl.experimental.reward_loop.reward_manager import registry as _loop_registry
from verl.workers.reward_manager import registry as _legacy_registry

NAME = "assay"

_loop_registry.register(NAME)(AssayRewardLoopManager)
# verl types its old registry with its own abstract base; assay's manager has its interface
_legacy_registry.register(NAME)(cast(Any, AssayRewardManager))
