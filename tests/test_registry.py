"""Names, aliases and verl data_sources resolve; mistakes say what to do."""

from __future__ import annotations

import pytest
from probe_verifier import ProbeVerifier

from assay.errors import DuplicateVerifierError, PluginError, UnknownDomainError
from assay.registry import Registry, default_registry, load_spec


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("math", "math"),  # canonical
        ("MATH", "math"),  # case-insensitive
        ("lighteval/MATH", "math"),  # verl data_source
        ("DigitalLearningGmbH/MATH-lighteval", "math"),  # verl data_source
        ("openai/gsm8k", "math"),  # verl data_source
        ("aime2024", "math"),  # prefix pattern aime*
    ],
    ids=["canonical", "case", "lighteval", "lighteval-dlg", "gsm8k", "aime-prefix"],
)
def test_builtin_names_resolve(name: str, expected: str) -> None:
    assert default_registry().resolve(name) == expected


def test_unknown_domain_suggests_and_lists() -> None:
    with pytest.raises(UnknownDomainError) as info:
        default_registry().resolve("mathh")
    message = str(info.value)
    assert "did you mean 'math'" in message.lower()
    assert "Known domains: " in message and "math" in message


def test_duplicate_names_raise() -> None:
    registry = Registry()
    registry.register(ProbeVerifier)
    with pytest.raises(DuplicateVerifierError):
        registry.register(ProbeVerifier)


def test_alias_and_data_source_of_a_plugin() -> None:
    registry = Registry()
    registry.register(ProbeVerifier)
    assert registry.resolve("probe-alias") == "probe"
    assert registry.resolve("probe/anything") == "probe"


@pytest.mark.parametrize(
    "spec",
    ["no_colon_here", "json:dumps", "assay.types:Status", "missing_module_xyz:Thing"],
    ids=["no-colon", "not-a-class", "not-a-verifier", "missing-module"],
)
def test_bad_specs_state_the_contract(spec: str) -> None:
    with pytest.raises(PluginError):
        load_spec(spec)


WORKER_IMPORTS = """
import json, sys
from assay.registry import BUILTINS
from assay.worker import _LazyRegistry
registry = _LazyRegistry(dict(BUILTINS))
names = [registry.get(name).name for name in sys.argv[1:]]
loaded = sorted(d for d in BUILTINS if f"assay.domains.{d}.verifier" in sys.modules)
print(json.dumps([names, loaded]))
"""


@pytest.mark.parametrize(
    ("asked", "names", "loaded"),
    [
        (["code"], ["code"], ["code"]),  # a code-only worker imports the code verifier only
        (["math", "math"], ["math", "math"], ["math"]),
        (["code", "finance"], ["code", "finance"], ["code", "finance"]),
        # a name that is not canonical loads every spec, so aliases still resolve
        (["python"], ["code"], ["agent", "code", "finance", "math", "mesh"]),
    ],
)
def test_worker_imports_only_the_domains_it_scores(
    asked: list[str], names: list[str], loaded: list[str]
) -> None:
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", WORKER_IMPORTS, *asked],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert json.loads(out.stdout) == [names, loaded]


def test_worker_unknown_domain_still_suggests() -> None:
    from assay.registry import BUILTINS
    from assay.worker import _LazyRegistry

    with pytest.raises(UnknownDomainError, match="code"):
        _LazyRegistry(dict(BUILTINS)).get("cdoe")
