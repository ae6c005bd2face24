"""Shared fixtures: a registry with the probe verifier, and a warm scorer per session."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from bundled_eval import EvalOutput, run_bundled_eval  # noqa: E402
from probe_verifier import ProbeVerifier  # noqa: E402

from assay.registry import Registry  # noqa: E402
from assay.runner import ScoreOptions, Scorer  # noqa: E402
from assay.worker import freeze_long_lived  # noqa: E402


@pytest.fixture(scope="session")
def probe_registry() -> Registry:
    registry = Registry()
    registry.register(ProbeVerifier)
    return registry


@pytest.fixture(scope="session")
def probe_scorer(probe_registry: Registry) -> Iterator[Scorer]:
    with Scorer(ScoreOptions(workers=2, memory_mb=1024), probe_registry) as scorer:
        yield scorer


@pytest.fixture(scope="session")
def math_scorer() -> Iterator[Scorer]:
    with Scorer(ScoreOptions(workers=2)) as scorer:
        yield scorer


@pytest.fixture(scope="session")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> EvalOutput:
    """The one `assay eval` run of this session over every registered verifier's fixtures."""
    return run_bundled_eval(tmp_path_factory.mktemp("eval"))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collecting the tests imported (torch, Ray, trimesh, transformers...).

    Tests verify in this process, and every full collection would traverse those hundreds of
    thousands of long-lived objects again: on the whole suite that was most of the time of the
    tests that decode large hostile values (tests/code/test_attacks_values.py: 163 s with the
    rest collected, 88 s frozen).
    """
    freeze_long_lived()
