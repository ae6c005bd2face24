"""The committed fixtures of math, code and mesh are exactly what their builder scripts write.

Each builder runs as a script from a copy of its folder in a temporary directory (it writes next
to itself), and every file it writes must equal the committed file at the same path, byte for
byte; every committed file there that is not the builder or a README must be one it wrote. (Agent
and finance have their own tests: tests/agent/test_agent_fixtures.py,
tests/finance/test_finance_verifier.py.)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
HAND_WRITTEN = {"README.md"}

BUILDERS = [
    # domain, the builder script
    ("math", "build_cases.py"),
    ("code", "build_cases.py"),
    ("mesh", "build_cases.py"),
]


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def generated(domain: str, script: str, out: Path) -> dict[str, bytes]:
    """The files ``fixtures/<domain>/<script>`` writes when run from a copy in ``out``."""
    folder = out / "fixtures" / domain
    folder.mkdir(parents=True)
    for builder in (FIXTURES / domain).glob("build_*.py"):
        shutil.copy(builder, folder / builder.name)
    done = subprocess.run(
        [sys.executable, script],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return {
        name: data
        for name, data in _files(folder).items()
        if not (name.startswith("build_") and name.endswith(".py"))
    }


@pytest.mark.parametrize(("domain", "script"), BUILDERS, ids=[b[0] for b in BUILDERS])
def test_committed_fixtures_are_the_builders_output(
    tmp_path: Path, domain: str, script: str
) -> None:
    written = generated(domain, script, tmp_path)
    assert written, f"{script} wrote nothing"
    committed = {
        name: data
        for name, data in _files(FIXTURES / domain).items()
        if not (name.startswith("build_") and name.endswith(".py")) and name not in HAND_WRITTEN
    }
    assert sorted(written) == sorted(committed), "files written vs committed differ"
    changed = [name for name in written if written[name] != committed[name]]
    assert changed == [], f"regenerate with: python fixtures/{domain}/{script}"
