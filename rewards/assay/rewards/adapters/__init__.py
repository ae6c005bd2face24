"""Trainer adapters: assay verdicts in the shapes TRL, verl, OpenRLHF and datasets expect.

Each adapter is its own module and imports its framework only where used:

- :mod:`assay.rewards.adapters.trl`: GRPOTrainer reward functions (sync and async).
- :mod:`assay.rewards.adapters.verl`: ``compute_score`` for ``custom_reward_function``, a
  reward manager, and verl's parquet schema.
- :mod:`assay.rewards.adapters.verl_loop`: the reward manager of verl 0.9's reward loop
  (``reward.reward_manager.name=assay``); imports verl.
- :mod:`assay.rewards.adapters.verl_plugin`: verl's ``verl.plugins`` entry point, registering
  the name ``assay`` in verl's reward-manager registries.
- :mod:`assay.rewards.adapters.serve`: the HTTP server behind ``assay serve`` (OpenRLHF's
  remote reward protocol and a ``/verify`` endpoint for assay records).
- :mod:`assay.rewards.adapters.datasets`: a batched ``Dataset.map`` function adding verdict
  columns.
- :mod:`assay.rewards.adapters.curriculum`: the task sampler as verl's ``train_sampler`` and
  under TRL's repeat structure, fed each step's verdicts;
  :mod:`assay.rewards.adapters.trl_curriculum`: the ``GRPOTrainer`` subclass that uses it.

Every adapter masks ``error`` and ``timeout`` verdicts (see docs/integrations.md): they describe
the verifier's infrastructure, never the model, so they are never handed to a trainer as 0.
"""
