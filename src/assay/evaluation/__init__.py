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

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

# resolved on first use: the CLI imports assay.evaluation.command to build its parser, and must
# not pay for the runner and the worker pool then (see assay/__init__.py)
_EXPORTS: dict[str, str] = {
    "Baseline": "assay.evaluation.baseline",
    "Comparison": "assay.evaluation.baseline",
    "EvalRun": "assay.evaluation.run",
    "Evaluator": "assay.evaluation.run",
    "Flip": "assay.evaluation.baseline",
    "LabelledCase": "assay.evaluation.cases",
    "Metrics": "assay.evaluation.metrics",
    "Outcome": "assay.evaluation.metrics",
    "VerifierRun": "assay.evaluation.run",
    "compare": "assay.evaluation.baseline",
    "compute_metrics": "assay.evaluation.metrics",
    "load_cases": "assay.evaluation.cases",
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


__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS, __all__)
