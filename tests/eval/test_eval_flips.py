"""`assay eval` catches a verifier whose behaviour changed: an edited copy of the math domain.

The copy of the domains package is put first on PYTHONPATH, so `assay.domains.math` is the
edited one, in the CLI process and in its worker processes alike; the real fixtures are linked
next to it (the verifier finds them relative to its own file). The committed baseline is the
one `make test` checks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BASELINE = ROOT / "eval" / "baselines" / "bundled.json"

# a looser default tolerance: 3.14 now passes for pi, 2.83 for 2*sqrt(2) (false positives)
LOOSER_TOLERANCE = """
_read_reference = read_reference


def read_reference(reference):
    answer, options = _read_reference(reference)
    if options.tolerance == CompareOptions().tolerance:
        options = CompareOptions(Fraction(1, 100), options.percent_as_fraction, options.ordered)
    return answer, options
"""

# a refactor that merges two statuses: unreadable answers become plain wrong ones (no credit moves)
UNPARSABLE_AS_INCORRECT = """
from assay.types import Status

_verify = MathVerifier.verify


def _merged(self, record):
    verdict = _verify(self, record)
    if verdict.status is Status.UNPARSABLE:
        return Verdict.incorrect(verdict.checks, message=verdict.message)
    return verdict


MathVerifier.verify = _merged
"""

BUMP = "\nMathVerifier.version = MathVerifier.version + '.post1'\n"

# the other combinations (a bump with more false positives, a merge without a bump) are in the
# comparison table of test_eval_baseline.py
EDITS = [
    # looser tolerance, same version: flips listed, and the false-positive rate went up
    ("tolerance", LOOSER_TOLERANCE, 5, "same version", "FALSE POSITIVES UP math"),
    # statuses merged and the version bumped: listed for review, not failed
    ("merge-bumped", UNPARSABLE_AS_INCORRECT + BUMP, 0, "version 1.", "eval passed"),
]


def _edited_copy(tmp_path: Path, edit: str) -> Path:
    copy = tmp_path / "domains"
    shutil.copytree(ROOT / "domains", copy, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "fixtures").mkdir()
    for domain in (ROOT / "fixtures").iterdir():
        (tmp_path / "fixtures" / domain.name).symlink_to(domain)
    verifier = copy / "assay" / "domains" / "math" / "verifier.py"
    verifier.write_text(verifier.read_text(encoding="utf-8") + textwrap.dedent(edit))
    return copy


@pytest.mark.parametrize(
    ("edit", "exit_code", "flip_note", "tail"),
    [e[1:] for e in EDITS],
    ids=[e[0] for e in EDITS],
)
def test_edited_verifier_flips_are_listed(
    tmp_path: Path, edit: str, exit_code: int, flip_note: str, tail: str
) -> None:
    copy = _edited_copy(tmp_path, edit)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(copy), os.environ.get("PYTHONPATH", "")]),
    }
    command = [sys.executable, "-m", "assay.cli", "eval", "--domains", "math"]
    command += ["--baseline", str(BASELINE), "--json", str(tmp_path / "eval.json")]
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240, check=False
    )
    out = done.stdout
    assert done.returncode == exit_code, out + done.stderr
    flips = [line for line in out.splitlines() if line.startswith("  FLIP math@")]
    assert flips, out
    assert all(flip_note in line for line in flips), out
    assert out.count("       why: ") == len(flips)
    assert tail in out
    # the verifier that ran is the edited copy, not the installed one
    report = json.loads((tmp_path / "eval.json").read_text(encoding="utf-8"))
    (math,) = report["verifiers"]
    assert math["fixtures"].startswith(str(tmp_path))
    assert {f["id"] for f in report["flips"]} == {line.split()[2].rstrip(":") for line in flips}
