"""The examples in the package's docstrings run as written (``doctest``), so they cannot drift.

Examples that need a server, a GPU or a model say ``# doctest: +SKIP``.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import assay

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(assay.__path__, "assay."):
        if ".scaffold.templates" in info.name:
            continue  # sources a new plugin is made from, not modules of this package
        names.append(info.name)
    return sorted(names)


def _with_examples() -> list[str]:
    found = []
    finder = doctest.DocTestFinder(exclude_empty=True)
    for name in _modules():
        module = importlib.import_module(name)
        if any(test.examples for test in finder.find(module, name)):
            found.append(name)
    return found


MODULES = _with_examples()


def test_the_package_has_examples() -> None:
    assert len(MODULES) >= 20, MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=FLAGS, report=True, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
