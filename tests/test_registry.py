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


# the hub names of RL training sets, as verl rows built with them carry them in data_source
HUB_SOURCES = [
    ("KodCode/KodCode-Light-RL-10K", "code"),
    ("TIGER-Lab/AceCode-87K", "code"),
    ("agentica-org/DeepCoder-Preview-Dataset", "code"),
    ("open-r1/verifiable-coding-problems-python", "code"),
    ("PrimeIntellect/verifiable-coding-problems", "code"),
    ("deepcoder", "code"),
    ("agentica-org/DeepScaleR-Preview-Dataset", "math"),
    ("open-r1/OpenR1-Math-220k", "math"),
    ("PrimeIntellect/verifiable-math-problems", "math"),
    ("BytedTsinghua-SIA/DAPO-Math-17k", "math"),
    ("zwhe99/DeepMath-103K", "math"),
    ("math-ai/aime25", "math"),
    ("Maxwell-Jia/AIME_2024", "math"),
]


@pytest.mark.parametrize(("name", "expected"), HUB_SOURCES, ids=[n for n, _ in HUB_SOURCES])
def test_training_sets_hub_names_resolve(name: str, expected: str) -> None:
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
from assay.worker import worker_registry
registry = worker_registry(dict(BUILTINS))
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


def test_a_code_worker_does_not_discover_plugins() -> None:
    # plugin discovery (importlib.metadata, ~70 ms at every worker start) is the parent's work
    import subprocess
    import sys

    probe = WORKER_IMPORTS.replace(
        "print(json.dumps([names, loaded]))", "print('importlib.metadata' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, "code"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert out.stdout.strip() == "False"


def test_worker_unknown_domain_still_suggests() -> None:
    from assay.registry import BUILTINS
    from assay.worker import worker_registry

    with pytest.raises(UnknownDomainError, match="code"):
        worker_registry(dict(BUILTINS)).get("cdoe")


def _eager() -> Registry:
    from assay.registry import BUILTINS

    registry = Registry()
    for spec in BUILTINS.values():
        registry.register(load_spec(spec))
    return registry


@pytest.mark.parametrize(
    "name", ["code", " CODE ", "python", "gsm8k", "lighteval/MATH", "bfcl", "3d", "cdoe", "x"]
)
def test_lazy_builtins_resolve_as_eager_ones(name: str) -> None:
    from assay.registry import BUILTINS

    lazy = Registry()
    for key, spec in BUILTINS.items():
        lazy.register_lazy(key, spec)
    assert lazy.names() == _eager().names()
    assert lazy.specs() == _eager().specs()
    try:
        expected: str | tuple[str, list[str]] = _eager().resolve(name)
    except UnknownDomainError as exc:
        expected = ("unknown", exc.suggestions)
    try:
        got: str | tuple[str, list[str]] = lazy.resolve(name)
    except UnknownDomainError as exc:
        got = ("unknown", exc.suggestions)
    assert got == expected


def test_lazy_builtin_clash_is_still_a_clash() -> None:
    from assay.registry import BUILTINS

    lazy = Registry()
    for key, spec in BUILTINS.items():
        lazy.register_lazy(key, spec)
    clash = type(ProbeVerifier)(
        "Clash", (ProbeVerifier,), {"name": "clash", "aliases": ("python",)}
    )
    with pytest.raises(DuplicateVerifierError, match="python"):
        lazy.register(clash)


PARENT_IMPORTS = """
import json, sys
from assay.registry import default_registry
name = default_registry().resolve(sys.argv[1])
print(json.dumps([name, sorted(m for m in sys.modules if m.startswith("assay.domains.")
                               and m.endswith(".verifier"))]))
"""


@pytest.mark.parametrize(
    ("asked", "loaded"),
    [
        ("code", ["assay.domains.code.verifier"]),  # the CLI scoring code imports code only
        ("gsm8k", [f"assay.domains.{d}.verifier" for d in ("agent", "code", "finance", "math", "mesh")]),
    ],
)  # fmt: skip
def test_default_registry_imports_the_domain_it_resolves(asked: str, loaded: list[str]) -> None:
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", PARENT_IMPORTS, asked],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert json.loads(out.stdout)[1] == loaded


def _verl_routes() -> list[tuple[str, str]]:
    """The data_sources verl's own ``default_compute_score`` routes, each with the scorer
    module its branch imports (read from the installed verl's source)."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec("verl.utils.reward_score")
    assert spec is not None and spec.origin is not None
    with open(spec.origin, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    [function] = [n for n in ast.walk(tree)
                  if isinstance(n, ast.FunctionDef) and n.name == "default_compute_score"]  # fmt: skip
    routes: list[tuple[str, str]] = []
    node: ast.stmt | None = next(n for n in function.body if isinstance(n, ast.If))
    while isinstance(node, ast.If):
        modules = [a.name for n in ast.walk(ast.Module(node.body, [])) if isinstance(n, ast.ImportFrom)
                   for a in n.names]  # fmt: skip
        sources = [c.value for c in ast.walk(node.test)
                   if isinstance(c, ast.Constant) and isinstance(c.value, str)]  # fmt: skip
        for source in sources:
            routes.append((source, modules[-1] if modules else ""))
        node = node.orelse[0] if len(node.orelse) == 1 else None
    return routes


VERL_SCORERS = {"gsm8k": "math", "math_reward": "math", "math_dapo": "math",
                "prime_math": "math", "geo3k": "math", "math_verify": "math",
                "prime_code": "code", "sandbox_fusion": "code"}  # fmt: skip


def test_every_math_and_code_source_verl_routes_reaches_the_same_kind_of_verifier() -> None:
    routes = [(source, VERL_SCORERS[module]) for source, module in _verl_routes()
              if module in VERL_SCORERS]  # fmt: skip
    assert len(routes) >= 15, routes  # verl 0.9's list: gsm8k, MATH, dapo, numina, code, geo3k
    registry = default_registry()
    found = {  # verl's aime test is a prefix: any name that starts with it
        source: registry.domain_for_data_source("aime24" if source == "aime" else source)
        for source, _ in routes
    }
    assert [(s, found[s], kind) for s, kind in routes if found[s] != kind] == []
