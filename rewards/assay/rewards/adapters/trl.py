"""Reward functions for TRL's ``GRPOTrainer`` (``reward_funcs=[...]``).

TRL calls a reward function as ``f(prompts, completions, completion_ids, **columns)``, where
``columns`` are the dataset's other columns, one value per completion. The functions here read
the reference from a ``reference`` or ``ground_truth`` column (or verl's ``reward_model``);
else, on a benchmark's own row (HumanEval, MBPP, LiveCodeBench, KodCode, AceCode, open-r1's
``verification_info``...), from its columns; else from ``answer``, ``solution``,
``final_answer``, ``expected_answer`` or ``Answer``; the
domain from a ``domain`` column (or ``data_source``) or the
``domain`` argument, and return one reward per completion: the verdict's score, or ``None``
for ``error`` and ``timeout`` so TRL leaves the sample out instead of reading it as 0.

Example:
    >>> from trl import GRPOTrainer  # doctest: +SKIP
    >>> trainer = GRPOTrainer(model, reward_funcs=[reward_function("math")], ...)  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from assay.rewards.adapters._batch import SharedScorer, reward_of, shared_scorer

from assay.chat import is_chat, read_chat
from assay.io import without_nulls
from assay.records import RESPONSE_KEYS, native_domain
from assay.registry import default_registry
from assay.runner import ScoreOptions

RewardFunc = Callable[..., list[float | None]]
AsyncRewardFunc = Callable[..., Awaitable[list[float | None]]]

REFERENCE_COLUMNS = ("reference", "answer", "solution", "ground_truth", "reward_model",
                     "final_answer", "expected_answer", "Answer")  # fmt: skip
"""Reference columns, as sets ship them (DeepMath's ``final_answer``, OpenMathReasoning's
``expected_answer``, AIME_2024's ``Answer``); a ``reference``, ``ground_truth`` or
``reward_model`` column (``_EXPLICIT``) wins over a benchmark row's own columns, and those
over the rest, in this order."""
_EXPLICIT = ("reference", "ground_truth", "reward_model")
_PASSED_COLUMNS = ("domain", "data_source", "id", "group", "meta", "extra_info")
_TRL_ARGUMENTS = frozenset({"prompts", "completions", "completion_ids", "trainer_state",
                            "log_extra", "log_metric"})  # fmt: skip


def reward_function(
    domain: str | None = None,
    *,
    workers: int = 2,
    timeout_s: float | None = None,
    name: str | None = None,
    scorer: SharedScorer | None = None,
) -> RewardFunc:
    """A GRPOTrainer reward function scoring completions with assay's verifiers.

    Args:
        domain: Domain for rows whose dataset has no ``domain`` / ``data_source`` column.
        workers: Worker processes of the shared warm pool.
        timeout_s: Hard per-item limit; ``None`` uses each verifier's default.
        name: The function's ``__name__``, which TRL logs rewards under
            (default ``assay_<domain>``, or ``assay``).
        scorer: Use this scorer instead of the process-wide one for these options.

    Returns:
        ``f(prompts, completions, completion_ids=None, **columns) -> list[float | None]``.

    Raises:
        UnknownDomainError: ``domain`` names no domain, alias or verl ``data_source`` (with a
            did-you-mean), when the function is made: not a masked ``None`` for every sample.
    """
    if domain is not None:  # a typo would make every completion a masked error (None)
        (scorer.registry if scorer is not None else default_registry()).resolve(domain)
    options = ScoreOptions(workers=workers, timeout_s=timeout_s, default_domain=domain)

    def assay_reward(
        prompts: Sequence[Any] | None,
        completions: Sequence[Any],
        completion_ids: Sequence[Any] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        rows = completion_rows(prompts, completions, columns)
        results = (scorer or shared_scorer(options)).score(rows)
        rewards = [reward_of(result) for result in results]
        _log(assay_reward.__name__, columns, [r.status.value for r in results], rewards)
        return rewards

    assay_reward.__name__ = assay_reward.__qualname__ = name or _default_name(domain)
    return assay_reward


def _log(
    name: str, columns: Mapping[str, Any], statuses: list[str], rewards: list[float | None]
) -> None:
    """Each verdict's status as a column of TRL's completions table (``<name>/status``) and
    the share of masked verdicts as a metric (``<name>/masked``), through the ``log_extra``
    and ``log_metric`` callbacks GRPOTrainer passes every reward function (none: nothing)."""
    log_extra, log_metric = columns.get("log_extra"), columns.get("log_metric")
    if callable(log_extra):
        log_extra(f"{name}/status", statuses)
    if callable(log_metric) and rewards:
        log_metric(f"{name}/masked", sum(r is None for r in rewards) / len(rewards))


def async_reward_function(
    domain: str | None = None,
    *,
    workers: int = 2,
    timeout_s: float | None = None,
    name: str | None = None,
    scorer: SharedScorer | None = None,
) -> AsyncRewardFunc:
    """The ``async def`` form of :func:`reward_function` (for TRL's async reward functions).

    Scoring runs in a thread (``asyncio.to_thread``), so the event loop stays free while the
    worker pool verifies.
    """
    sync = reward_function(domain, workers=workers, timeout_s=timeout_s, name=name, scorer=scorer)

    async def assay_reward(
        prompts: Sequence[Any] | None,
        completions: Sequence[Any],
        completion_ids: Sequence[Any] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        return await asyncio.to_thread(sync, prompts, completions, completion_ids, **columns)

    assay_reward.__name__ = assay_reward.__qualname__ = sync.__name__
    return assay_reward


def completion_rows(
    prompts: Sequence[Any] | None, completions: Sequence[Any], columns: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Assay records, one per completion, from TRL's reward-function arguments."""
    rows: list[dict[str, Any]] = []
    for i, completion in enumerate(completions):
        prompt = without_nulls(prompts[i]) if prompts is not None and i < len(prompts) else None
        # a conversational completion (with tools=, the whole tool loop) stays messages:
        # the record builder reads its answer and trajectory (assay.chat.read_chat)
        row: dict[str, Any] = {"response": completion}
        for key in _PASSED_COLUMNS:
            value = _column(columns, key, i)
            if value is not None:
                row[key] = value
        row |= _reference_columns(columns, i)
        if prompt is not None:
            row["prompt"] = prompt
        rows.append(row)
    return rows


def _reference_columns(columns: Mapping[str, Any], index: int) -> dict[str, Any]:
    """Where row ``index``'s reference comes from: a ``reference``, ``ground_truth`` or
    ``reward_model`` column; else, for a benchmark's own row (HumanEval, MBPP, LiveCodeBench,
    KodCode, AceCode, open-r1's ``verification_info``...), its columns, read as ``assay score``
    reads such a row (KodCode's ``solution`` is then its setter's answer, not a reference);
    else the first other column of :data:`REFERENCE_COLUMNS` the row has."""
    for key in _EXPLICIT:
        value = _column(columns, key, index)
        if value is not None:
            return {"reward_model" if key == "reward_model" else "reference": value}
    data = {
        key: value
        for key in columns
        if key not in _TRL_ARGUMENTS and key not in _PASSED_COLUMNS and key != "prompt"
        and (value := _column(columns, key, index)) is not None
    }  # fmt: skip
    if native_domain(data) is not None:
        return {key: value for key, value in data.items() if key not in RESPONSE_KEYS}
    for key in REFERENCE_COLUMNS:
        if key in data:
            return {"reference": data[key]}
    return {}


def completion_text(completion: Any) -> str | Any:
    """The text of a completion: a string as it is, or the final answer of chat messages.

    Anything else is returned unchanged, so the runner reports it as ``unparsable``.
    """
    if isinstance(completion, str) or not is_chat(completion):
        return completion
    return read_chat(completion).text


def _column(columns: Mapping[str, Any], key: str, index: int) -> Any:
    """Row ``index`` of a dataset column, read as ``assay score`` reads a stored row: the
    dataset is Arrow, so a null inside an object is a key the row does not have."""
    values = columns.get(key)
    if isinstance(values, Sequence) and not isinstance(values, str) and index < len(values):
        return without_nulls(values[index])
    return None


def _default_name(domain: str | None) -> str:
    return f"assay_{domain}".replace("-", "_") if domain else "assay"
