"""`assay new-verifier NAME` writes a plugin that installs and passes out of the box.

The plugin is pip-installed (a real wheel build, offline) into a throwaway virtual environment
that sees this one's packages (assay, pytest, hatchling) through a site directory, then its own
tests and `assay eval` run there, unchanged.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from assay.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # the plugin's tests need no pytest plugin; loading this environment's (dash...) costs seconds
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def _throwaway_venv(path: Path) -> Path:
    venv.EnvBuilder(with_pip=False).create(path)
    python = path / "bin" / "python"
    site = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], path
    )
    parent = sysconfig.get_paths()[
        "purelib"
    ]  # this environment: assay (editable), pytest, hatchling
    Path(site.stdout.strip(), "_parent_env.pth").write_text(
        f"import site; site.addsitedir({parent!r})\n"
    )
    return python


def _doc_files() -> dict[str, str]:
    """The files docs/writing-a-verifier.md shows, by the path in its `<!-- file: ... -->` mark."""
    text = (ROOT / "docs" / "writing-a-verifier.md").read_text(encoding="utf-8")
    return dict(re.findall(r"<!-- file: (\S+) -->\n```\w+\n(.*?)```", text, re.S))


def _install(python: Path, plugin: Path) -> None:
    command = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps"]
    command += ["--no-build-isolation", "--no-index", "--disable-pip-version-check", str(plugin)]
    done = _run(command, plugin.parent)
    assert done.returncode == 0, done.stdout + done.stderr


def _tests_pass(python: Path, plugin: Path) -> None:
    """The plugin's own tests (assay.testing's checks, the examples) and ruff, unchanged."""
    done = _run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], plugin)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "10 passed" in done.stdout, done.stdout
    done = _run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], plugin)
    assert done.returncode == 0, done.stdout


def test_scaffold_and_the_documented_plugin_pass(tmp_path: Path) -> None:
    python = _throwaway_venv(tmp_path / "venv")
    # out of the box: the scaffold as written
    assert main(["new-verifier", "units", "--dir", str(tmp_path / "assay-units")]) == 0
    _install(python, tmp_path / "assay-units")
    # the walkthrough: the scaffold with the files docs/writing-a-verifier.md shows
    assert main(["new-verifier", "length", "--dir", str(tmp_path / "assay-length")]) == 0
    files = _doc_files()
    assert len(files) == 3, sorted(files)
    for path, text in files.items():
        (tmp_path / path).write_text(text, encoding="utf-8")
    _install(python, tmp_path / "assay-length")

    done = _run([str(python), "-m", "assay.cli", "domains"], tmp_path)
    assert "units@0.1.0" in done.stdout and "plugin:assay-units" in done.stdout, done.stdout
    assert "length@1.0.0" in done.stdout and "plugin:assay-length" in done.stdout, done.stdout
    _tests_pass(python, tmp_path / "assay-units")
    _tests_pass(python, tmp_path / "assay-length")

    # assay eval over both plugins: record a baseline, then compare against it
    baseline = tmp_path / "baselines" / "plugins.json"
    command = [str(python), "-m", "assay.cli", "eval", "--domains", "units", "length"]
    command += ["--baseline", str(baseline)]
    done = _run([*command, "--update-baseline"], tmp_path)
    assert done.returncode == 0 and baseline.exists(), done.stdout + done.stderr
    done = _run(command, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[1:3]]
    assert [(row[0], row[2]) for row in rows] == [
        ("length@1.0.0", "100.0%"),
        ("units@0.1.0", "100.0%"),
    ]
    assert "no regression against" in done.stdout


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Units", "not a valid verifier name"),  # upper case
        ("u", "not a valid verifier name"),  # too short
        ("2d_units", "not a valid verifier name"),  # must start with a letter
        ("math", "already registered"),  # a built-in's name
        ("gsm8k", "already registered"),  # a built-in's alias
    ],
)
def test_bad_names_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, message: str
) -> None:
    assert main(["new-verifier", name, "--dir", str(tmp_path / "p")]) == 2  # a bad value
    assert message in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


def test_existing_directory_is_not_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "keep.txt").write_text("mine")
    assert main(["new-verifier", "units", "--dir", str(tmp_path / "p")]) == 2
    assert "--force" in capsys.readouterr().err


def test_templates_ship_in_the_wheel(tmp_path: Path) -> None:
    build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    done = _run([*build, "--disable-pip-version-check", "-w", str(tmp_path), str(ROOT)], tmp_path)
    assert done.returncode == 0, done.stderr
    (wheel,) = tmp_path.glob("assay-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = {p.name for p in (ROOT / "src" / "assay" / "scaffold" / "templates").iterdir()}
    assert {f"assay/scaffold/templates/{t}" for t in templates} <= names
    assert {"assay/py.typed", "assay/testing.py", "assay/evaluation/run.py"} <= names
