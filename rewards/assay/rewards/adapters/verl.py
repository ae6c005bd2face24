"""verl adapters: ``compute_score`` for ``custom_reward_function``, a reward manager, parquet I/O.

``compute_score_float`` is the float form for verl's offline ``main_eval`` (which averages
scores with ``np.mean``).

``compute_score`` returns a dict with the same keys for every item (verl collects every key but
``score`` into ``reward_extra_info`` lists): ``score`` (float), ``status`` (the verdict status)
and ``masked`` (``True`` for ``error`` and ``timeout``). verl has no per-sample mask in its
reward path, so a masked item's ``score`` is 0.0: filter on ``masked`` (or use
:class:`AssayRewardManager` with ``return_dict=True``) rather than read it as a wrong answer.

:class:`AssayRewardManager` scores a whole batch at once through the warm worker pool. It reads
``data.batch["responses"]`` / ``["attention_mask"]`` and ``data.non_tensor_batch["data_source"]``,
``["reward_model"]``, ``["extra_info"]``, so any object with those two mappings works (verl's
``DataProto``, or the stand-in the tests use; verl itself is not a dependency).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.rewards.adapters._batch import SharedScorer, shared_scorer

from assay.io import without_nulls
from assay.registry import default_registry
from assay.runner import ScoreOptions
from assay.types import Result


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    *,
    domain: str | None = None,
    workers: int = 2,
    timeout_s: float | None = None,
    **_: Any,
) -> dict[str, Any]:
    """Score one verl item; the signature of verl's ``custom_reward_function``.

    Args:
        data_source: verl's ``data_source``; mapped to a domain by the registry.
        solution_str: The decoded response.
        ground_truth: ``reward_model.ground_truth`` (a string, or JSON text of an object).
        extra_info: verl's ``extra_info``, kept in the verdict's meta.
        domain: Domain to use instead of the one ``data_source`` maps to
            (``custom_reward_function.reward_kwargs.domain``).
        workers: Worker processes of the shared warm pool.
        timeout_s: Hard per-item limit; ``None`` uses each verifier's default.

    Raises:
        UnknownDomainError: ``domain`` is no known domain (:func:`check_domain`): the first
            call fails, with "did you mean ...?", rather than every sample being masked.

    Example:
        >>> compute_score("math", "\\\\boxed{2}", "2")["score"]  # doctest: +SKIP
        1.0
    """
    return compute_score_batch(
        [data_source],
        [solution_str],
        [ground_truth],
        [extra_info],
        domain=domain,
        workers=workers,
        timeout_s=timeout_s,
    )[0]


def compute_score_float(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    *,
    domain: str | None = None,
    workers: int = 2,
    timeout_s: float | None = None,
    masked_score: float | str = 0.0,
    **_: Any,
) -> float:
    """:func:`compute_score` as a bare float, for verl's offline ``main_eval``.

    ``python -m verl.trainer.main_eval`` averages what the custom reward function returns
    with ``np.mean``, which cannot average :func:`compute_score`'s dicts. A masked item
    (``error``, ``timeout``: the task's or the machine's fault) is ``masked_score``: 0.0 by
    default, as verl's own scorers count an item they cannot read; ``"nan"``
    (``reward_kwargs.masked_score=nan``) makes a data source with any masked item report NaN,
    so an infrastructure fault is not read as a wrong answer.

    Raises:
        UnknownDomainError: ``domain`` is no known domain (:func:`check_domain`).
    """
    result = compute_score(
        data_source,
        solution_str,
        ground_truth,
        extra_info,
        domain=domain,
        workers=workers,
        timeout_s=timeout_s,
    )
    return float(masked_score) if result["masked"] else float(result["score"])


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
    *,
    domain: str | None = None,
    workers: int = 2,
    timeout_s: float | None = None,
    **_: Any,
) -> list[dict[str, Any]]:
    """Score a batch of verl items in one call to the warm pool (verl's batch reward form)."""
    check_domain(domain)
    options = ScoreOptions(workers=workers, timeout_s=timeout_s)
    rows = verl_rows(data_sources, solution_strs, ground_truths, extra_infos, domain=domain)
    return [score_dict(result) for result in shared_scorer(options).score(rows)]


def check_domain(domain: str | None) -> None:
    """Refuse a ``reward_kwargs.domain`` no verifier has, before any sample is scored.

    Without this a typo (``domain=maths``) made every sample a masked ``error``: a training run
    with no reward and no message.

    Raises:
        UnknownDomainError: ``domain`` names no domain, alias or verl ``data_source``; the
            message suggests close names ("did you mean 'math'?") and lists the known ones.
    """
    if domain is not None:
        default_registry().resolve(str(domain))


def verl_rows(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Any] | None = None,
    *,
    domain: str | None = None,
) -> list[dict[str, Any]]:
    """Assay rows from verl's per-item fields.

    verl reads its dataset with ``datasets`` (Arrow), so a ground truth or ``extra_info``
    that is an object is read as ``assay score`` reads a stored row: a null inside it is a
    key the row does not have (docs/formats.md, "Nulls").
    """
    infos: Sequence[Any] = extra_infos if extra_infos is not None else [None] * len(solution_strs)
    rows: list[dict[str, Any]] = []
    for source, solution, truth, info in zip(
        data_sources, solution_strs, ground_truths, infos, strict=True
    ):
        row: dict[str, Any] = {
            "data_source": source,
            "response": solution,
            "reward_model": {"ground_truth": without_nulls(truth)},
        }
        if domain is not None:
            row["domain"] = domain
        if isinstance(info, Mapping):
            row["extra_info"] = without_nulls(dict(info))
        rows.append(row)
    return rows


def score_dict(result: Result) -> dict[str, Any]:
    """verl's dict form of a result: ``score``, ``status``, ``masked``."""
    masked = result.status.is_infrastructure
    return {
        "score": 0.0 if masked else result.score,
        "status": result.status.value,
        "masked": masked,
    }


class AssayRewardManager:
    """A verl reward manager that scores a whole batch through assay's warm worker pool.

    Args:
        tokenizer: Decodes response token ids (``tokenizer.decode``).
        num_examine: Print this many decoded responses per data source (verl's convention).
        compute_score: Ignored; accepted because verl passes it to every reward manager.
        reward_fn_key: The non-tensor field naming the data source.
        domain: Domain for every item, instead of the one ``data_source`` maps to.
        workers: Worker processes of the warm pool.
        timeout_s: Hard per-item limit; ``None`` uses each verifier's default.
        scorer: Use this scorer instead of the process-wide one for these options.
    """

    def __init__(
        self,
        tokenizer: Any,
        num_examine: int = 0,
        compute_score: Any = None,
        reward_fn_key: str = "data_source",
        *,
        domain: str | None = None,
        workers: int = 2,
        timeout_s: float | None = None,
        scorer: SharedScorer | None = None,
        **_: Any,
    ) -> None:
        self.tokenizer = tokenizer
        self.num_examine = num_examine
        self.reward_fn_key = reward_fn_key
        check_domain(domain)
        self.domain = domain
        self._scorer = scorer or shared_scorer(ScoreOptions(workers=workers, timeout_s=timeout_s))

    def __call__(self, data: Any, return_dict: bool = False) -> Any:
        """A ``[batch, response_length]`` float tensor with each score on the last valid token.

        With ``return_dict=True``: ``{"reward_tensor": ..., "reward_extra_info": {"status":
        [...], "masked": [...]}}``; masked items (``error``, ``timeout``) score 0.0 there and
        are flagged in ``masked``.
        """
        import torch

        responses = data.batch["responses"]
        attention_mask = data.batch["attention_mask"]
        response_length = responses.shape[-1]
        valid_lengths = attention_mask[:, -response_length:].sum(dim=-1).long()
        texts = [
            self.tokenizer.decode(responses[i, : int(n)].tolist(), skip_special_tokens=True)
            for i, n in enumerate(valid_lengths)
        ]
        extra = data.non_tensor_batch
        size = len(texts)
        truths = [_ground_truth(item) for item in _items(extra.get("reward_model"), size)]
        rows = verl_rows(
            list(_items(extra.get(self.reward_fn_key), size)),
            texts,
            truths,
            list(_items(extra.get("extra_info"), size)),
            domain=self.domain,
        )
        scored = [score_dict(result) for result in self._scorer.score(rows)]
        scores = torch.tensor([s["score"] for s in scored], dtype=torch.float32)
        reward_tensor = torch.zeros(responses.shape, dtype=torch.float32)
        last = (valid_lengths - 1).clamp(min=0).unsqueeze(-1)
        reward_tensor.scatter_(1, last, scores.unsqueeze(-1))
        self._examine(rows, scored)
        if return_dict:
            return {
                "reward_tensor": reward_tensor,
                "reward_extra_info": {
                    "status": [s["status"] for s in scored],
                    "masked": [s["masked"] for s in scored],
                },
            }
        return reward_tensor

    def _examine(self, rows: list[dict[str, Any]], scored: list[dict[str, Any]]) -> None:
        printed: dict[str, int] = {}
        for row, score in zip(rows, scored, strict=True):
            source = str(row["data_source"])
            if printed.get(source, 0) >= self.num_examine:
                continue
            printed[source] = printed.get(source, 0) + 1
            print(f"[response] {row['response']}")
            print(f"[ground_truth] {row['reward_model']['ground_truth']}")
            print(f"[score] {score['score']} ({score['status']})")


def _items(values: Any, size: int) -> Iterable[Any]:
    if values is None:
        return [None] * size
    return list(values)


def _ground_truth(reward_model: Any) -> Any:
    if isinstance(reward_model, Mapping):
        return reward_model.get("ground_truth")
    return None


def read_verl_parquet(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a verl parquet file as dicts (``data_source``, ``prompt``, ``reward_model``...).

    The rows can be scored as they are (:func:`assay.api.score` reads verl rows) once a
    ``response`` field is added.
    """
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = pq.read_table(str(path)).to_pylist()
    return rows


def write_verl_parquet(rows: Iterable[Mapping[str, Any]], path: str | Path) -> int:
    """Write assay records (or verl rows) as a verl training parquet file; returns the row count.

    Each row becomes ``data_source`` (the domain), ``prompt`` (chat messages; a text prompt
    becomes one user message), ``ability`` (the domain), ``reward_model`` ``{"style": "rule",
    "ground_truth": ...}`` (a non-string reference as JSON text, which assay decodes back) and
    ``extra_info`` ``{"index", "id"}``. Rows that already have ``data_source`` and
    ``reward_model`` keep them.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist([to_verl_row(row, i) for i, row in enumerate(rows)])
    pq.write_table(table, str(path))
    return int(table.num_rows)


def to_verl_row(row: Mapping[str, Any], index: int) -> dict[str, Any]:
    """One row in verl's training schema; see :func:`write_verl_parquet`."""
    source = str(row.get("data_source") or row.get("domain") or "")
    reward_model = row.get("reward_model")
    if isinstance(reward_model, Mapping) and "ground_truth" in reward_model:
        truth = reward_model["ground_truth"]
    else:
        truth = row.get("reference")
    prompt = row.get("prompt")
    if isinstance(prompt, str):
        prompt = [{"role": "user", "content": prompt}]
    extra = row.get("extra_info")
    extra_info = dict(extra) if isinstance(extra, Mapping) else {}
    extra_info.setdefault("index", index)
    extra_info.setdefault("id", str(row.get("id", index)))
    return {
        "data_source": source,
        "prompt": list(prompt or []),
        "ability": str(row.get("ability") or row.get("domain") or source),
        "reward_model": {
            "style": "rule",
            "ground_truth": truth if isinstance(truth, str) else json.dumps(truth),
        },
        "extra_info": extra_info,
    }
