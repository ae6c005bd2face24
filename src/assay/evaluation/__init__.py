"""The regression suite behind ``assay eval``: accuracy per verifier@version, flips against a
golden baseline, an HTML report with plots.

- :mod:`assay.evaluation.cases`: labelled fixture cases and what counts as a false positive.
- :mod:`assay.evaluation.metrics`: agreement, false-positive / false-negative rates, latency.
- :mod:`assay.evaluation.run`: scoring through the worker pool (never the verdict cache).
- :mod:`assay.evaluation.baseline`: the golden file and the flips against it.
- :mod:`assay.evaluation.report`: the self-contained HTML report and the PNG summary.
- :mod:`assay.evaluation.command`: the ``assay eval`` command line.
"""

from __future__ import annotations

from assay.evaluation.baseline import Baseline, Comparison, Flip, compare
from assay.evaluation.cases import LabelledCase, load_cases
from assay.evaluation.metrics import Metrics, Outcome, compute_metrics
from assay.evaluation.run import EvalRun, Evaluator, VerifierRun, select_entries

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
