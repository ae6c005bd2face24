"""``assay eval``: the command line of the regression suite."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from assay.errors import InputError
from assay.types import JSON, Status

if TYPE_CHECKING:
    from assay.evaluation.baseline import Baseline, CaseVerdict, Comparison
    from assay.evaluation.run import EvalRun, Evaluator, VerifierRun

DEFAULT_BASELINE = Path("eval") / "baselines" / "bundled.json"
EXIT_REGRESSION = 5

EVAL_HELP = """Run every registered verifier (plugins included) over its labelled fixtures and
report, per verifier@version: agreement with the labels, false-positive rate (credit given to a case
labelled not correct, hostile attempts included), false-negative rate, status counts and
latency p50 / p95.

The verdicts are compared with the baseline: a verdict that changed while its verifier kept its
version, or a higher false-positive rate, is a regression (exit 5). Every changed verdict is
printed (verifier, id, before -> after, why). Flipped cases are scored a second time first, so a
flip is reported only if it reproduces; a case whose two scorings disagree is UNSTABLE, also a
regression (exit 5), unless one of the two was a timeout (a loaded machine: the second verdict
is kept). No verdict cache is used. See docs/eval.md.
"""

EVAL_EPILOG = f"""exit codes:
  0  no regression (or --update-baseline wrote the file)
  1  assay itself failed (e.g. worker processes cannot start)
  2  bad command line (unknown domain, --workers 0)
  3  a fixture or baseline file cannot be read or written
  {EXIT_REGRESSION}  regression: a verdict flipped without a version bump, a false-positive rate
     higher than the baseline's, or a verdict that changed when the same case was scored again
     (with --update-baseline: the baseline is then not written)
"""


def add_eval_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``assay eval`` on the CLI's subparsers."""
    parser = sub.add_parser(
        "eval",
        help="regression suite: verifier accuracy per version, flips against a baseline",
        description=EVAL_HELP,
        epilog=EVAL_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--domains", nargs="+", metavar="D", help="only these verifiers (default: every one)"
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help=f"golden file (default {DEFAULT_BASELINE}, compared only if it exists)",
    )
    parser.add_argument(
        "--update-baseline",
        action="store_true",
        help="write this run's verdicts into the baseline (other verifiers' entries are kept)",
    )
    parser.add_argument("--report", type=Path, metavar="HTML", help="write the HTML report")
    parser.add_argument(
        "--summary-png",
        type=Path,
        metavar="PNG",
        help="write the PNG summary (default with --report: next to it, same name, .png)",
    )
    parser.add_argument("--json", type=Path, metavar="OUT", help="write metrics, flips, verdicts")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument(
        "--timeout", type=float, metavar="S", help="hard limit per item (default: per verifier)"
    )
    parser.set_defaults(handler=run_eval_command)


@dataclass(frozen=True, slots=True)
class Unstable:
    """A case that got two different verdicts on two scorings of the same run."""

    verifier: str
    case_id: str
    first: CaseVerdict
    second: CaseVerdict

    @property
    def timed_out(self) -> bool:
        """One of the two scorings hit the time limit: load on the machine, not the verifier."""
        return Status.TIMEOUT.value in (self.first.status, self.second.status)


def run_eval_command(args: argparse.Namespace) -> int:
    """Run the suite, print the table and the flips, write the requested files."""
    from assay.evaluation.baseline import Baseline, compare
    from assay.evaluation.run import Evaluator, select_entries, subset
    from assay.registry import default_registry

    registry = default_registry()
    entries = select_entries(registry, args.domains)
    path: Path = args.baseline or DEFAULT_BASELINE
    if args.baseline is not None and not path.exists() and not args.update_baseline:
        raise InputError(f"no baseline at {str(path)!r} (record one with --update-baseline)")
    baseline = Baseline.read(path) if path.exists() else Baseline()
    with Evaluator(subset(entries), args.workers, args.timeout) as evaluator:
        run = evaluator.evaluate(entries)
        run, unstable = _confirm(evaluator, run, baseline)
    comparison = compare(baseline, run.runs)
    notes = list(comparison.notes)
    if not args.domains:
        scored = {r.name for r in run.runs}
        notes += [
            f"{e.verifier}: in the baseline but not registered now"
            for name, e in sorted(baseline.entries.items())
            if name not in scored and name not in dict(run.skipped)
        ]
    notes += [f"{name}: {why}, not evaluated" for name, why in run.skipped]
    compared = path if path.exists() else None
    out = sys.stdout
    changed = [u for u in unstable if not u.timed_out]
    notes += [
        f"{u.verifier} {u.case_id}: scored {u.first}, then {u.second} (a timeout on a loaded "
        "machine: the second verdict is kept)"
        for u in unstable
        if u.timed_out
    ]
    _print_table(run.runs, out)
    _print_flips(comparison, compared, out)
    for item in changed:
        print(
            f"  UNSTABLE {item.verifier} {item.case_id}: scored {item.first}, then "
            f"{item.second} (the same input scored twice)",
            file=out,
        )
    for note in notes:
        print(f"note: {note}", file=out)
    regressed = (comparison.regressed or bool(changed)) and not args.update_baseline
    if args.json is not None:
        _write_json(args.json, run, comparison, unstable, notes, compared, regressed)
    png = args.summary_png or (args.report.with_suffix(".png") if args.report else None)
    if args.report is not None or png is not None:
        from assay.evaluation.report import write_report, write_summary_png

        if args.report is not None:
            write_report(args.report, run, comparison, compared, notes)
            print(f"report: {args.report}", file=out)
        if png is not None:
            write_summary_png(png, run, comparison)
            print(f"summary: {png}", file=out)
    if args.update_baseline and changed:
        print(
            f"baseline not written: {len(changed)} verdict(s) changed when scored again "
            "(a verifier that is not deterministic cannot be recorded)",
            file=out,
        )
        return EXIT_REGRESSION
    if args.update_baseline:
        baseline.updated(run.runs).write(path)
        print(f"baseline written: {path} ({', '.join(r.id for r in run.runs)})", file=out)
        return 0
    print(_verdict_line(comparison, compared, run.wall_s, len(changed)), file=out)
    return EXIT_REGRESSION if regressed else 0


def _confirm(
    evaluator: Evaluator, run: EvalRun, baseline: Baseline
) -> tuple[EvalRun, list[Unstable]]:
    """Score suspicious cases again; keep the second verdict and return every case that moved.

    Suspicious: a verdict that differs from the baseline, or an infrastructure verdict
    (``timeout``, ``error``) the label does not expect. A one-off timeout on a loaded machine
    then does not fail the suite; any other change between the two scorings is a verifier that
    is not deterministic, which the caller fails.
    """
    from assay.evaluation.baseline import verdict_of
    from assay.evaluation.run import EvalRun

    runs = []
    unstable: list[Unstable] = []
    for verifier_run in run.runs:
        entry = baseline.entries.get(verifier_run.name)
        recorded = entry.cases if entry is not None else {}
        suspects = [
            o.case.id
            for o in verifier_run.outcomes
            if (o.result.status.is_infrastructure and o.result.status is not o.case.expected)
            or recorded.get(o.case.id, verdict_of(o)) != verdict_of(o)
        ]
        if not suspects:
            runs.append(verifier_run)
            continue
        again = evaluator.rescore(verifier_run, suspects)
        for case_id in suspects:
            first, second = verifier_run.outcome(case_id), again.outcome(case_id)
            if first and second and verdict_of(first) != verdict_of(second):
                unstable.append(
                    Unstable(verifier_run.id, case_id, verdict_of(first), verdict_of(second))
                )
        runs.append(again)
    return EvalRun(tuple(runs), run.skipped, run.wall_s), unstable


def _print_table(runs: Sequence[VerifierRun], out: TextIO) -> None:
    header = ("verifier", "cases", "agree", "FP rate", "FN rate", "p50 ms", "p95 ms", "statuses")
    rows = [header]
    for run in runs:
        m = run.metrics
        statuses = ", ".join(f"{s} {n}" for s, n in m.status_counts.items() if n)
        rows.append(
            (
                run.id,
                str(m.cases),
                _pct(m.agreement),
                _pct(m.false_positive_rate),
                _pct(m.false_negative_rate),
                f"{m.latency_p50_ms:.2f}",
                f"{m.latency_p95_ms:.2f}",
                statuses,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    for row in rows:
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(width) for cell, width in zip(row[1:-1], widths[1:], strict=True)]
        print("  ".join([*cells, row[-1]]), file=out)


def _print_flips(comparison: Comparison, baseline: Path | None, out: TextIO) -> None:
    if baseline is None:
        print("no baseline: metrics only (record one with --update-baseline)", file=out)
        return
    if not comparison.flips:
        print(f"no verdict changed against {baseline}", file=out)
    else:
        print(f"{len(comparison.flips)} verdict(s) changed against {baseline}:", file=out)
    for flip in comparison.flips:
        bump = f"version {flip.baseline_version} -> " if flip.version_bumped else "same version "
        print(
            f"  FLIP {flip.verifier} {flip.case_id}: {flip.before} -> {flip.after} "
            f"[label {flip.expected}, {flip.direction}, {bump}{flip.verifier.rpartition('@')[2]}]"
            f"\n       why: {flip.why}",
            file=out,
        )
    for rate in comparison.rate_regressions:
        print(
            f"  FALSE POSITIVES UP {rate.name}: {_pct(rate.before)} ({rate.before_verifier}) -> "
            f"{_pct(rate.after)} ({rate.after_verifier})",
            file=out,
        )


def _verdict_line(
    comparison: Comparison, baseline: Path | None, wall_s: float, unstable: int
) -> str:
    parts = []
    if unstable:
        parts.append(f"{unstable} verdict(s) changed when the same case was scored again")
    if baseline is None:
        if parts:
            return "REGRESSION: " + "; ".join(parts)
        return f"eval done in {wall_s:.1f} s (no baseline compared)"
    if not comparison.regressed and not parts:
        return f"eval passed in {wall_s:.1f} s: no regression against {baseline}"
    if comparison.unversioned_flips:
        parts.append(
            f"{len(comparison.unversioned_flips)} verdict(s) flipped without a version bump"
        )
    if comparison.rate_regressions:
        names = ", ".join(r.name for r in comparison.rate_regressions)
        parts.append(f"false-positive rate up for {names}")
    return f"REGRESSION against {baseline}: " + "; ".join(parts)


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def _write_json(  # noqa: PLR0917 - one call site, every part of the run
    path: Path,
    run: EvalRun,
    comparison: Comparison,
    unstable: list[Unstable],
    notes: list[str],
    baseline: Path | None,
    regressed: bool,
) -> None:
    from assay import __version__

    data: dict[str, JSON] = {
        "assay_version": __version__,
        "baseline": None if baseline is None else str(baseline),
        "regressed": regressed,
        "wall_s": round(run.wall_s, 3),
        "verifiers": [_run_dict(r) for r in run.runs],
        "flips": [f.to_dict() for f in comparison.flips],
        "rate_regressions": [
            {"name": r.name, "before": r.before, "after": r.after}
            for r in comparison.rate_regressions
        ],
        "unstable": [
            {
                "verifier": u.verifier,
                "id": u.case_id,
                "first": str(u.first),
                "second": str(u.second),
                "timed_out": u.timed_out,
            }
            for u in unstable
        ],
        "notes": notes,
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {str(path)!r}: {exc.strerror}") from exc


def _run_dict(run: VerifierRun) -> dict[str, JSON]:
    return {
        "verifier": run.id,
        "source": run.source,
        "fixtures": run.fixtures,
        "metrics": run.metrics.to_dict(),
        "cases": [
            {
                "id": o.case.id,
                "expected": o.case.expected.value,
                "status": o.result.status.value,
                "score": o.result.score,
                "agrees": o.agrees,
                "elapsed_ms": round(o.result.elapsed_ms, 3),
                "message": o.result.verdict.message,
            }
            for o in run.outcomes
        ],
    }
