"""The HTML report (one self-contained file) and the PNG summary of an ``assay eval`` run.

The HTML file holds its style inline and its plots as SVG data URIs: no script, no stylesheet,
no font, nothing fetched, so it opens the same offline, in a mail attachment or a CI artifact.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from assay.errors import InputError
from assay.evaluation import plots
from assay.evaluation.baseline import Comparison
from assay.evaluation.run import EvalRun, VerifierRun

if TYPE_CHECKING:
    from matplotlib.figure import Figure

DISAGREEMENTS_SHOWN = 200

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1b1b1b; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; }
table { border-collapse: collapse; margin: 8px 0; } td, th { border: 1px solid #ccc;
padding: 3px 8px; text-align: left; vertical-align: top; } th { background: #f2f2f2; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.ok { color: #2e7d32; font-weight: 600; } .bad { color: #c62828; font-weight: 600; }
figure.plot { margin: 12px 0; } figure.plot img { max-width: 100%; height: auto;
border: 1px solid #ddd; } figcaption { color: #555; }
code { font-size: 12px; }
"""


def write_report(
    path: Path, run: EvalRun, comparison: Comparison, baseline: Path | None, notes: Sequence[str]
) -> None:
    """Write the HTML report to ``path``."""
    _write(path, render_html(run, comparison, baseline, notes).encode("utf-8"))


def write_summary_png(path: Path, run: EvalRun, comparison: Comparison) -> None:
    """Write the one-image summary (rates per verifier, the regression verdict) to ``path``."""
    figure = plots.summary(run.runs, len(comparison.flips), comparison.regressed)
    _write(path, plots.png_bytes(figure))


def render_html(
    run: EvalRun, comparison: Comparison, baseline: Path | None, notes: Sequence[str]
) -> str:
    from assay import __version__

    runs = run.runs
    against = f" against <code>{html.escape(str(baseline))}</code>"
    if baseline is None:
        state = "metrics only: no baseline compared"
    elif comparison.regressed:
        state = f'<span class="bad">REGRESSION</span>{against}'
    else:
        state = f'<span class="ok">no regression</span>{against}'
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>assay eval report</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>assay eval</h1>",
        f"<p>{state} &middot; assay {__version__} &middot; "
        f"{when} &middot; {sum(r.metrics.cases for r in runs)} cases in {run.wall_s:.1f} s</p>",
        "<h2>Metrics per verifier</h2>",
        _metrics_table(runs),
        "<h2>Changed verdicts</h2>",
        _flips_table(comparison),
    ]
    if notes:
        parts.append("<ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>")
    if runs:
        parts += [
            "<h2>Plots</h2>",
            _figure("rewards", "Reward distribution per domain", plots.reward_distributions(runs)),
            _figure(
                "confusion", "Confusion matrices: expected vs got", plots.confusion_matrices(runs)
            ),
            _figure("latency", "Latency per case", plots.latency_histograms(runs)),
        ]
    parts += ["<h2>Disagreements with the labels</h2>", *(_disagreements(r) for r in runs)]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _figure(kind: str, caption: str, figure: Figure) -> str:
    uri = plots.svg_data_uri(figure)
    return (
        f'<figure class="plot" data-plot="{kind}"><img alt="{html.escape(caption)}" src="{uri}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


def _metrics_table(runs: Sequence[VerifierRun]) -> str:
    head = (
        "<tr><th>verifier</th><th>source</th><th>cases</th><th>agreement</th><th>FP rate</th>"
        "<th>FN rate</th><th>hostile FP</th><th>p50 ms</th><th>p95 ms</th><th>statuses</th></tr>"
    )
    rows = []
    for run in runs:
        m = run.metrics
        statuses = ", ".join(f"{s}&nbsp;{n}" for s, n in m.status_counts.items() if n)
        rows.append(
            f"<tr><td>{html.escape(run.id)}</td><td>{html.escape(run.source)}</td>"
            f'<td class="n">{m.cases}</td><td class="n">{_pct(m.agreement)}</td>'
            f'<td class="n">{_pct(m.false_positive_rate)} ({m.false_positives})</td>'
            f'<td class="n">{_pct(m.false_negative_rate)} ({m.false_negatives})</td>'
            f'<td class="n">{m.hostile_false_positives}/{m.hostile_cases}</td>'
            f'<td class="n">{m.latency_p50_ms:.2f}</td><td class="n">{m.latency_p95_ms:.2f}</td>'
            f"<td>{statuses}</td></tr>"
        )
    return f"<table>{head}{''.join(rows)}</table>"


def _flips_table(comparison: Comparison) -> str:
    if not comparison.flips and not comparison.rate_regressions:
        return "<p>None.</p>"
    rows = [
        "<tr><th>verifier</th><th>id</th><th>label</th><th>before</th><th>after</th>"
        "<th>version</th><th>why</th></tr>"
    ]
    for flip in comparison.flips:
        version = "bumped" if flip.version_bumped else '<span class="bad">same</span>'
        rows.append(
            f"<tr><td>{html.escape(flip.verifier)}</td><td>{html.escape(flip.case_id)}</td>"
            f"<td>{flip.expected}</td><td>{flip.before}</td><td>{flip.after}</td>"
            f"<td>{version}</td><td>{html.escape(flip.why)}</td></tr>"
        )
    rates = "".join(
        f'<p class="bad">False-positive rate of {html.escape(r.name)} up: '
        f"{_pct(r.before)} &rarr; {_pct(r.after)}</p>"
        for r in comparison.rate_regressions
    )
    return f"<table>{''.join(rows)}</table>{rates}"


def _disagreements(run: VerifierRun) -> str:
    wrong = [o for o in run.outcomes if not o.agrees]
    if not wrong:
        return f"<p>{html.escape(run.id)}: every verdict matches its label.</p>"
    rows = "".join(
        f"<tr><td>{html.escape(o.case.id)}</td><td>{o.case.expected.value}</td>"
        f"<td>{o.result.status.value} ({o.result.score:g})</td>"
        f"<td>{html.escape(o.result.verdict.message or '')}</td></tr>"
        for o in wrong[:DISAGREEMENTS_SHOWN]
    )
    more = len(wrong) - DISAGREEMENTS_SHOWN
    tail = f"<p>... and {more} more (see --json).</p>" if more > 0 else ""
    return (
        f"<h3>{html.escape(run.id)}: {len(wrong)}</h3><table><tr><th>id</th><th>label</th>"
        f"<th>got</th><th>message</th></tr>{rows}</table>{tail}"
    )


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def _write(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        raise InputError(f"cannot write {str(path)!r}: {exc.strerror}") from exc
