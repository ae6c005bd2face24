"""One `assay eval` run over every registered verifier's fixtures, shared by the tests.

`make test` runs the regression suite through the `bundled` session fixture (tests/conftest.py):
the eval against the committed baseline (tests/eval/test_eval_bundled.py) and the per-case
conformance check (tests/test_conformance.py) read the same run, so each fixture case is scored
once per test session.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "eval" / "baselines" / "bundled.json"


@dataclass(frozen=True)
class EvalOutput:
    """What one `assay eval --baseline ... --report ... --json ...` run left behind."""

    code: int
    stdout: str
    report: Path
    summary: Path
    json: Path

    def statuses(self) -> dict[str, str]:
        """Case id -> status the run gave it, over every verifier."""
        return {case_id: status for case_id, (status, _) in self.verdicts().items()}

    def verdicts(self) -> dict[str, tuple[str, float]]:
        """Case id -> (status, score) the run gave it, over every verifier."""
        data = json.loads(self.json.read_text(encoding="utf-8"))
        return {
            case["id"]: (case["status"], case["score"])
            for run in data["verifiers"]
            for case in run["cases"]
        }


def run_bundled_eval(out: Path) -> EvalOutput:
    """Run the CLI as `make test` users would, writing its report and JSON under ``out``."""
    command = [sys.executable, "-m", "assay.cli", "eval", "--baseline", str(BASELINE)]
    command += ["--report", str(out / "report.html"), "--json", str(out / "eval.json")]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=900, check=False
    )
    return EvalOutput(
        done.returncode,
        done.stdout + done.stderr,
        out / "report.html",
        out / "report.png",
        out / "eval.json",
    )
