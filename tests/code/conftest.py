"""The code verifier the test modules of this folder share, one per module (as each had)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from assay.domains.code.verifier import CodeVerifier


@pytest.fixture(scope="module")
def verifier() -> Iterator[CodeVerifier]:
    instance = CodeVerifier()
    instance.setup()
    yield instance
    instance.pool.close()
