"""The public names of assay.verifiers.reading, and the examples in its docstrings."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest
from assay.verifiers import reading


def test_all_lists_the_public_names() -> None:
    public = {name for name in vars(reading) if not name.startswith("_")}
    modules = {info.name for info in pkgutil.iter_modules(reading.__path__)}
    assert set(reading.__all__) == public - modules - {"annotations"}


MODULES = sorted(info.name for info in pkgutil.iter_modules(reading.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"assay.verifiers.reading.{name}")
    failures, _ = doctest.testmod(module)
    assert failures == 0
