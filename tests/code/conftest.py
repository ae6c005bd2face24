"""The code verifier and scorer the test modules of this folder share, one per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from assay.domains.code.verifier import CodeVerifier

from assay.runner import ScoreOptions, Scorer


@pytest.fixture(scope="module")
def verifier() -> Iterator[CodeVerifier]:
    instance = CodeVerifier()
    instance.setup()
    yield instance
    instance.pool.close()


@pytest.fixture(scope="module")
def code_scorer() -> Iterator[Scorer]:
    """A started scorer with two workers, as ``assay score --workers 2`` runs."""
    with Scorer(ScoreOptions(workers=2)) as scorer:
        yield scorer
