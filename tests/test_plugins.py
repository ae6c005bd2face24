"""A plugin distribution found by its entry point is scored like a built-in."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.errors import PluginError
from assay.records import RawRow
from assay.registry import _load_default
from assay.runner import ScoreOptions, Scorer

PLUGIN = """
from assay.types import Record, Verdict
from assay.verifier import Verifier


class UpperVerifier(Verifier):
    name = "upper"
    version = "0.3"

    def verify(self, record: Record) -> Verdict:
        if record.response.upper() == record.response:
            return Verdict.correct()
        return Verdict.incorrect()
"""


def _install(site: Path, module: str, source: str, entry: str) -> None:
    """Lay out a distribution the way pip does: the module and its .dist-info with entry points."""
    (site / f"{module}.py").write_text(textwrap.dedent(source))
    info = site / f"{module}_plugin-0.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}-plugin\nVersion: 0.3\n")
    (info / "entry_points.txt").write_text(f"[assay.verifiers]\n{entry}\n")


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in [m for m in sys.modules if m.startswith("upper_plugin_mod")]:
        del sys.modules[name]


def test_entry_point_plugin_is_registered_and_scored(site: Path) -> None:
    _install(site, "upper_plugin_mod", PLUGIN, "upper = upper_plugin_mod:UpperVerifier")
    registry = _load_default()
    entry = registry.entry("upper")
    assert entry.source == "plugin:upper_plugin_mod-plugin"
    assert "math" in registry.names()
    rows = [
        RawRow(1, {"id": "a", "domain": "upper", "response": "LOUD", "reference": None}),
        RawRow(2, {"id": "b", "domain": "upper", "response": "quiet", "reference": None}),
    ]
    # reference None is "missing": give one
    rows = [RawRow(r.position, {**r.data, "reference": "x"}) for r in rows]
    with Scorer(ScoreOptions(workers=1), registry) as scorer:
        results = list(scorer.score_rows(rows))
    assert [(r.status.value, r.verifier) for r in results] == [
        ("correct", "upper@0.3"),
        ("incorrect", "upper@0.3"),
    ]


def test_broken_plugin_names_the_contract(site: Path) -> None:
    _install(site, "upper_plugin_mod", "Thing = 42\n", "bad = upper_plugin_mod:Thing")
    with pytest.raises(PluginError, match=r"subclass of assay\.Verifier"):
        _load_default()
