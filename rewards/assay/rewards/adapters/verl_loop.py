"""assay as a reward manager of verl 0.9's reward loop (``reward.reward_manager.name=assay``).

verl 0.9 scores rollouts in ``RewardLoopWorker`` actors: each worker calls its reward manager's
``async run_single(data)`` once per sample, all samples of its chunk at once (one
``asyncio.gather``), and the manager class's ``assemble_rm_scores`` puts the scores on the last
valid response token. :class:`AssayRewardLoopManager` is such a manager: the calls that arrive
in one turn of the event loop are coalesced into one call to the warm worker pool, so a worker's
chunk is scored as one batch, not sample by sample.

This module imports verl (it subclasses verl's ``RewardManagerBase``);
:mod:`assay.rewards.adapters.verl_plugin` registers the class under the name ``assay``, and
verl loads that plugin itself (the ``verl.plugins`` entry point) in every process that imports
verl. Options come from ``reward.reward_kwargs``: ``domain``, ``workers``, ``timeout_s``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from assay.rewards.adapters._batch import SharedScorer, shared_scorer
from assay.rewards.adapters.verl import check_domain, score_dict, verl_rows
from verl.experimental.reward_loop.reward_manager.base import RewardManagerBase

from assay.runner import ScoreOptions
from assay.types import Result


class AssayRewardLoopManager(RewardManagerBase):
    """verl 0.9's reward-loop interface over assay's warm worker pool.

    Args:
        config: verl's whole trainer config; ``config.reward.reward_kwargs`` may hold
            ``domain`` (score every item in that domain instead of the one its
            ``data_source`` maps to), ``workers`` and ``timeout_s``.
        tokenizer: Decodes the response ids (special tokens skipped, as verl's own managers).
        compute_score: Ignored: verl hands every manager its default scorer (gsm8k and the
            like); assay scores with its own verifiers.
        reward_router_address: Accepted for verl's signature; assay needs no reward model.
        reward_model_tokenizer: Accepted for verl's signature.
        scorer: Use this scorer instead of the process-wide one for these options.
    """

    def __init__(
        self,
        config: Any,
        tokenizer: Any,
        compute_score: Any = None,
        reward_router_address: str | None = None,
        reward_model_tokenizer: Any = None,
        *,
        scorer: SharedScorer | None = None,
    ) -> None:
        super().__init__(config, tokenizer, compute_score)
        kwargs = _reward_kwargs(config)
        self.domain: str | None = kwargs.get("domain")
        check_domain(self.domain)  # a typo fails the worker's start, not every sample
        options = ScoreOptions(
            workers=int(kwargs.get("workers", 2)),
            timeout_s=None if kwargs.get("timeout_s") is None else float(kwargs["timeout_s"]),
        )
        self._scorer = scorer or shared_scorer(options)
        self._pending: list[tuple[dict[str, Any], asyncio.Future[Result]]] = []

    async def run_single(self, data: Any) -> dict[str, Any]:
        """``{"reward_score": float, "reward_extra_info": {"status", "masked"}}`` for one sample.

        A masked verdict (``error``, ``timeout``) scores 0.0 with ``masked`` True, as the other
        verl adapters do.
        """
        item = data[-1]
        response_ids = item.batch["responses"]
        length = int(item.batch["attention_mask"][-response_ids.shape[-1] :].sum())
        tokenizer: Any = self.tokenizer
        text = tokenizer.decode(response_ids[:length].tolist(), skip_special_tokens=True)
        extra = item.non_tensor_batch
        reward_model = extra.get("reward_model")
        truth = reward_model.get("ground_truth") if isinstance(reward_model, Mapping) else None
        info = extra.get("extra_info")
        (row,) = verl_rows(
            [extra.get("data_source")],
            [text],
            [truth],
            [info if isinstance(info, Mapping) else None],
            domain=self.domain,
        )
        scored = score_dict(await self._submit(row))
        return {
            "reward_score": scored["score"],
            "reward_extra_info": {"status": scored["status"], "masked": scored["masked"]},
        }

    async def _submit(self, row: dict[str, Any]) -> Result:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Result] = loop.create_future()
        self._pending.append((row, future))
        if len(self._pending) == 1:
            # every run_single started in this turn of the loop joins the same batch
            loop.call_soon(self._flush, loop)
        return await future

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        batch, self._pending = self._pending, []
        scoring = loop.run_in_executor(None, self._scorer.score, [row for row, _ in batch])

        def deliver(done: asyncio.Future[list[Result]]) -> None:
            error = done.exception()
            for i, (_, future) in enumerate(batch):
                if future.done():
                    continue
                if error is not None:
                    future.set_exception(error)
                else:
                    future.set_result(done.result()[i])

        scoring.add_done_callback(deliver)


def _reward_kwargs(config: Any) -> dict[str, Any]:
    reward = config.get("reward") if hasattr(config, "get") else None
    kwargs = reward.get("reward_kwargs") if reward is not None else None
    return dict(kwargs) if kwargs else {}
