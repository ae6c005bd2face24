"""Rows through a started :class:`~assay.runner.Scorer`, as ``assay score`` reads them."""

from __future__ import annotations

from typing import Any

from assay.records import RawRow
from assay.runner import Scorer
from assay.types import Result


def score(scorer: Scorer, rows: list[dict[str, Any]]) -> list[Result]:
    """The results of ``rows`` (numbered from 1, as lines of a file), in their order."""
    return list(scorer.score_rows([RawRow(n, row) for n, row in enumerate(rows, 1)]))
