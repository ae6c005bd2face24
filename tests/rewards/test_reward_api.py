"""The reward layer's public names resolve lazily and match ``__all__``."""

from __future__ import annotations

import subprocess
import sys

import assay.rewards
import pytest


@pytest.mark.parametrize("name", assay.rewards.__all__, ids=str)
def test_public_name_resolves(name: str) -> None:
    # every exported name imports from its module
    assert getattr(assay.rewards, name).__name__ == name


def test_all_matches_exports() -> None:
    # __all__ and the lazy table name the same things
    assert sorted(assay.rewards.__all__) == sorted(assay.rewards._EXPORTS)


def test_unknown_name() -> None:
    # a typo is an AttributeError, not a silent None
    with pytest.raises(AttributeError, match="compute_reward"):
        _ = assay.rewards.compute_reward


def test_import_is_light() -> None:
    # importing the package does not pull in torch
    code = "import sys, assay.rewards; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
