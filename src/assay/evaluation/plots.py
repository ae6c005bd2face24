"""The report's figures, drawn with matplotlib's Agg backend (no display, no network).

Each figure has one panel per verifier. SVG output keeps text as paths, so a report needs no
font at all where it is opened.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from assay.evaluation.metrics import STATUSES
from assay.evaluation.run import VerifierRun
from assay.types import Status

if TYPE_CHECKING:
    from matplotlib.figure import Figure

LABEL_GROUPS = (
    ("labelled correct", "#2e7d32", (Status.CORRECT,)),
    ("labelled partial", "#f9a825", (Status.PARTIAL,)),
    (
        "labelled no credit",
        "#c62828",
        tuple(s for s in Status if s.value not in {"correct", "partial"}),
    ),
)


def _figure(panels: int, width: float = 4.2, height: float = 3.2) -> tuple[Figure, list[Any]]:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "assay-eval"  # stable ids: the same run, the same bytes
    from matplotlib.figure import Figure

    columns = min(max(panels, 1), 3)
    rows = max(math.ceil(panels / columns), 1)
    figure = Figure(figsize=(width * columns, height * rows), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False).ravel().tolist()
    for extra in axes[panels:]:
        extra.set_visible(False)
    return figure, axes[:panels] or axes


def reward_distributions(runs: Sequence[VerifierRun]) -> Figure:
    """Histogram of scores per verifier, stacked by the label's credit."""
    figure, axes = _figure(len(runs))
    bins = [i / 10 for i in range(11)]
    for ax, run in zip(axes, runs, strict=False):
        groups = [
            [o.result.score for o in run.outcomes if o.case.expected in statuses]
            for _, _, statuses in LABEL_GROUPS
        ]
        ax.hist(
            groups,
            bins=bins,
            stacked=True,
            color=[color for _, color, _ in LABEL_GROUPS],
            label=[name for name, _, _ in LABEL_GROUPS],
        )
        ax.set_title(f"{run.id}: reward")
        ax.set_xlabel("score")
        ax.set_ylabel("cases")
        ax.legend(fontsize=7)
    return figure


def confusion_matrices(runs: Sequence[VerifierRun]) -> Figure:
    """Expected status (rows) against the status got (columns), counts in the cells."""
    figure, axes = _figure(len(runs), height=3.8)
    for ax, run in zip(axes, runs, strict=False):
        expected = [s for s in STATUSES if s in run.metrics.confusion]
        matrix = [[run.metrics.confusion[e][g] for g in STATUSES] for e in expected]
        ax.imshow(matrix, cmap="Blues", aspect="auto")
        ax.set_xticks(range(len(STATUSES)), STATUSES, rotation=40, ha="right", fontsize=8)
        ax.set_yticks(range(len(expected)), expected, fontsize=8)
        peak = max((max(row) for row in matrix), default=0)
        for i, row in enumerate(matrix):
            for j, count in enumerate(row):
                if count:
                    color = "white" if count > peak / 2 else "black"
                    ax.text(j, i, str(count), ha="center", va="center", color=color, fontsize=8)
        ax.set_title(f"{run.id}: expected vs got")
        ax.set_xlabel("got")
        ax.set_ylabel("expected")
    return figure


def latency_histograms(runs: Sequence[VerifierRun]) -> Figure:
    """Time in the verifier per case (log scale), with p50 and p95 marked."""
    figure, axes = _figure(len(runs))
    for ax, run in zip(axes, runs, strict=False):
        times = [max(o.result.elapsed_ms, 1e-3) for o in run.outcomes]
        low, high = min(times, default=1e-3), max(times, default=1.0)
        edges = _log_edges(low, high)
        ax.hist(times, bins=edges, color="#1565c0")
        ax.set_xscale("log")
        for value, style, name in (
            (run.metrics.latency_p50_ms, "--", "p50"),
            (run.metrics.latency_p95_ms, ":", "p95"),
        ):
            ax.axvline(
                max(value, 1e-3), color="black", linestyle=style, label=f"{name} {value:.1f} ms"
            )
        ax.set_title(f"{run.id}: latency")
        ax.set_xlabel("ms per case")
        ax.set_ylabel("cases")
        ax.legend(fontsize=7)
    return figure


def summary(runs: Sequence[VerifierRun], flips: int, regressed: bool) -> Figure:
    """Agreement, false-positive and false-negative rate per verifier, with the verdict."""
    figure, (ax,) = _figure(1, width=max(6.0, 1.6 * len(runs) + 3), height=3.6)
    names = [run.id for run in runs]
    series = (
        ("agreement", "#2e7d32", [r.metrics.agreement for r in runs]),
        ("false-positive rate", "#c62828", [r.metrics.false_positive_rate for r in runs]),
        ("false-negative rate", "#f9a825", [r.metrics.false_negative_rate for r in runs]),
    )
    width = 0.26
    for k, (label, color, values) in enumerate(series):
        xs = [i + (k - 1) * width for i in range(len(names))]
        bars = ax.bar(xs, values, width, label=label, color=color)
        ax.bar_label(bars, labels=[f"{100 * v:.1f}%" for v in values], fontsize=7)
    ax.set_xticks(range(len(names)), names, fontsize=8)
    ax.set_ylim(0, 1.3)
    ax.set_ylabel("share of cases")
    state = "REGRESSION" if regressed else "no regression"
    ax.set_title(f"assay eval: {state}, {flips} changed verdict(s)")
    ax.legend(fontsize=8, loc="upper center", ncols=3)
    return figure


def svg_data_uri(figure: Figure) -> str:
    """The figure as an ``data:image/svg+xml;base64,...`` URI (self-contained, no fonts)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def png_bytes(figure: Figure, dpi: int = 110) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def _log_edges(low: float, high: float, count: int = 30) -> list[float]:
    if high <= low * 1.01:
        return [low / 1.5, high * 1.5]
    step = (math.log10(high) - math.log10(low)) / count
    return [10 ** (math.log10(low) + i * step) for i in range(count + 1)]
