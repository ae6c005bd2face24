"""The CLI registers `assay eval` without importing the suite's runner (it must start fast)."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import assay.cli
assay.cli._parser()
print(" ".join(sorted(sys.modules)))
"""

NOT_AT_START = {
    "assay.evaluation.run": "the scorer, and the worker pool behind it",
    "assay.evaluation.baseline": "the golden file",
    "assay.pool": "worker processes",
    "matplotlib": "only the report draws",
}


def test_building_the_parser_imports_no_runner() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = set(done.stdout.split())
    assert "assay.evaluation.command" in loaded  # the probe did build the eval parser
    assert {m: why for m, why in NOT_AT_START.items() if m in loaded} == {}
