"""The regression suite behind ``assay eval``: accuracy per verifier@version, flips against a
golden baseline, an HTML report with plots.

- :mod:`assay.evaluation.cases`: labelled fixture cases and what counts as a false positive.
- :mod:`assay.evaluation.metrics`: agreement, false-positive / false-negative rates, latency.
- :mod:`assay.evaluation.run`: scoring through the worker pool (never the verdict cache).
- :mod:`assay.evaluation.baseline`: the golden file and the flips against it.
- :mod:`assay.evaluation.report`: the self-contained HTML report and the PNG summary.
- :mod:`assay.evaluation.command`: the ``assay eval`` command line.

Names are resolved lazily, so the CLI's parser can import the command module cheaply.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "Baseline": "assay.evaluation.baseline",
    "Comparison": "assay.evaluation.baseline",
    "Flip": "assay.evaluation.baseline",
    "compare": "assay.evaluation.baseline",
    "LabelledCase": "assay.evaluation.cases",
    "load_cases": "assay.evaluation.cases",
    "Metrics": "assay.evaluation.metrics",
    "Outcome": "assay.evaluation.metrics",
    "compute_metrics": "assay.evaluation.metrics",
    "EvalRun": "assay.evaluation.run",
    "Evaluator": "assay.evaluation.run",
    "VerifierRun": "assay.evaluation.run",
    "select_entries": "assay.evaluation.run",
}

__all__ = [
    "Baseline",
    "Comparison",
    "EvalRun",
    "Evaluator",
    "Flip",
    "LabelledCase",
    "Metrics",
    "Outcome",
    "VerifierRun",
    "compare",
    "compute_metrics",
    "load_cases",
    "select_entries",
]

if TYPE_CHECKING:
    from assay.evaluation.baseline import Baseline as Baseline
    from assay.evaluation.baseline import Comparison as Comparison
    from assay.evaluation.baseline import Flip as Flip
    from assay.evaluation.baseline import compare as compare
    from assay.evaluation.cases import LabelledCase as LabelledCase
    from assay.evaluation.cases import load_cases as load_cases
    from assay.evaluation.metrics import Metrics as Metrics
    from assay.evaluation.metrics import Outcome as Outcome
    from assay.evaluation.metrics import compute_metrics as compute_metrics
    from assay.evaluation.run import EvalRun as EvalRun
    from assay.evaluation.run import Evaluator as Evaluator
    from assay.evaluation.run import VerifierRun as VerifierRun
    from assay.evaluation.run import select_entries as select_entries


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'assay.evaluation' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
