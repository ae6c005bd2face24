"""A batched ``Dataset.map`` function that adds verdict columns to a dataset of records.

Example:
    >>> scored = dataset.map(verdict_columns(), batched=True)  # doctest: +SKIP
    >>> scored["assay_status"][:2]  # doctest: +SKIP
    ['correct', 'incorrect']

The columns are ``assay_status``, ``assay_score`` (NaN for ``error`` and ``timeout``: masked,
never 0), ``assay_masked`` (``True`` for those), ``assay_verifier`` (``name@version``),
``assay_error`` (the message of an ``error`` verdict, else ``""``) and ``assay_checks`` (the
checks as JSON text). No column holds ``None``: ``datasets`` fixes a column's type from the
first batch, and a batch of only ``None`` would make it ``null``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assay.rewards.adapters._batch import reward_of, shared_scorer

from assay.runner import ScoreOptions
from assay.types import Result


@dataclass(frozen=True, slots=True)
class VerdictColumns:
    """The map function :func:`verdict_columns` returns (picklable: it holds only options)."""

    options: ScoreOptions
    prefix: str = "assay_"

    def __call__(self, batch: Mapping[str, list[Any]]) -> dict[str, Any]:
        size = len(next(iter(batch.values()), []))
        rows = [{key: values[i] for key, values in batch.items()} for i in range(size)]
        results = shared_scorer(self.options).score(rows)
        p = self.prefix
        # no None in any column: a first batch of only None would fix a column's type to null
        return {
            f"{p}status": [r.status.value for r in results],
            f"{p}score": [_score(r) for r in results],
            f"{p}masked": [r.status.is_infrastructure for r in results],
            f"{p}verifier": [r.verifier for r in results],
            f"{p}error": [r.to_dict()["error"] or "" for r in results],
            f"{p}checks": [
                json.dumps([c.to_dict() for c in r.verdict.checks], ensure_ascii=False)
                for r in results
            ],
        }


def _score(result: Result) -> float:
    reward = reward_of(result)
    return math.nan if reward is None else reward


def verdict_columns(
    domain: str | None = None,
    *,
    workers: int = 2,
    timeout_s: float | None = None,
    prefix: str = "assay_",
) -> VerdictColumns:
    """A function for ``dataset.map(fn, batched=True)`` that scores each row.

    Args:
        domain: Domain for rows that name none (no ``domain`` / ``data_source`` column).
        workers: Worker processes of the shared warm pool.
        timeout_s: Hard per-item limit; ``None`` uses each verifier's default.
        prefix: Prefix of the added column names.
    """
    options = ScoreOptions(workers=workers, timeout_s=timeout_s, default_domain=domain)
    return VerdictColumns(options, prefix)
