"""SWE-bench instances as they come: a tiny git repository built here, its instance rows scored.

The repository has a bug at its base commit (``add`` subtracts); the gold patch fixes it; the
instance's ``test_patch`` adds the failing test. Scored with the checkout found through
``ASSAY_SWEBENCH_REPOS`` (``owner__name``), the gold patch is credited and nothing else is:
not an empty or wrong patch, and not a patch that edits the tests or brings a conftest.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from assay.domains.code.swebench import SWEBENCH_REPOS_ENV
from scoring import score

from assay.runner import ScoreOptions, Scorer

BASE = {
    "calc/__init__.py": "",
    "calc/ops.py": "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
    "tests/__init__.py": "",
    "tests/conftest.py": "",
    "tests/test_ops.py": "from calc.ops import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n",
}
FORCE_PASS = (
    "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n"
    "    outcome = yield\n"
    "    outcome.get_result().outcome = 'passed'\n"
)
TEST_ADD = "from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def git(cwd: Path, *args: str, stdin: str | None = None) -> str:
    proc = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd, input=stdin, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return proc.stdout


def diff_of(repo: Path, edit: dict[str, str]) -> str:
    """The unified diff (``git diff``) that writes ``edit``'s files over the checkout."""
    for name, text in edit.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    patch = git(repo, "diff", "--cached")
    git(repo, "reset", "-q", "--hard")
    return patch


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("checkouts")
    repo = root / "acme__calc"  # SWE-bench's owner__name
    repo.mkdir()
    git(repo, "init", "-q")
    for name, text in BASE.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD").strip()
    fixed = BASE["calc/ops.py"].replace("return a - b", "return a + b", 1)
    row = {
        "instance_id": "acme__calc-1",
        "repo": "acme/calc",
        "base_commit": base,
        "patch": diff_of(repo, {"calc/ops.py": fixed}),
        "test_patch": diff_of(repo, {"tests/test_add.py": TEST_ADD}),
        "FAIL_TO_PASS": json.dumps(["tests/test_add.py::test_add"]),
        "PASS_TO_PASS": json.dumps(["tests/test_ops.py::test_sub"]),
        "version": "0.1",
        "created_at": "2024-01-01T00:00:00",
    }
    # later commits must not leak in: the instance is the tree at base_commit
    (repo / "calc/ops.py").write_text(fixed)
    git(repo, "commit", "-q", "-am", "fixed upstream")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SWEBENCH_REPOS_ENV, str(root))
        yield {"row": row, "repo": repo}


@pytest.fixture(scope="module")
def scorer() -> Iterator[Scorer]:
    with Scorer(ScoreOptions(workers=0)) as scorer:
        yield scorer


def test_gold_patch_and_attacks(scorer: Scorer, instance: dict[str, Any]) -> None:
    row, repo = instance["row"], instance["repo"]
    git(repo, "checkout", "-q", row["base_commit"])  # the diffs below are against the base
    wrong = BASE["calc/ops.py"].replace("return a - b", "return a * b", 1)
    cases = {
        "gold": row["patch"],
        "empty": "",
        "wrong": diff_of(repo, {"calc/ops.py": wrong}),
        # a test file the instance runs patches the function for the failing test: the
        # instance's test files are written back over the patched tree
        "edits-a-test": diff_of(
            repo,
            {
                "tests/test_ops.py": "import calc.ops\n\ncalc.ops.add = lambda a, b: a + b\n"
                + BASE["tests/test_ops.py"]
            },
        ),
        # the repo's conftest turned into one that makes every failure a pass
        "edits-conftest": diff_of(repo, {"tests/conftest.py": FORCE_PASS}),
        # a new conftest at the root doing the same: dropped (pytest would load it on its own)
        "adds-conftest": diff_of(repo, {"conftest.py": FORCE_PASS}),
    }
    rows = [{**row, "instance_id": f"{row['instance_id']}:{k}", "model_patch": p}
            for k, p in cases.items()]  # fmt: skip
    results = dict(zip(cases, score(scorer, rows), strict=True))
    got = {k: (r.status.value, r.score) for k, r in results.items()}
    assert got["gold"] == ("correct", 1.0), results["gold"].verdict.message
    for name in cases:
        if name != "gold":
            assert got[name][1] == 0.0 and got[name][0] != "correct", (name, got[name])
            assert got[name][0] not in ("error", "timeout"), (name, results[name].verdict.message)
    assert got["empty"][0] == "unparsable"


def test_the_tree_is_the_base_commit_with_the_test_patch(instance: dict[str, Any]) -> None:
    from assay.domains.code.formats import from_native
    from assay.domains.code.task import parse_task

    task = parse_task(from_native(instance["row"]), Path.cwd())
    tree = Path(task.spec)
    assert "return a - b" in (tree / "calc/ops.py").read_text().split("def sub")[0]
    assert (tree / "tests/test_add.py").read_text() == TEST_ADD
    assert task.fail_to_pass == ("tests/test_add.py::test_add",)
    assert task.pass_to_pass == ("tests/test_ops.py::test_sub",)
    assert task.all_or_nothing and "tests/test_add.py" in task.test_files


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"repo": "acme/nowhere"}, "no git checkout of 'acme/nowhere'"),
        ({"repo": "../etc"}, "owner/name"),
        ({"base_commit": "f" * 40}, "is not in"),
        ({"FAIL_TO_PASS": "[tests/x.py::t"}, "JSON list"),
        ({"FAIL_TO_PASS": "[]"}, "non-empty FAIL_TO_PASS"),
    ],
    ids=["unknown-repo", "path-in-name", "unknown-commit", "bad-json", "no-tests"],
)
def test_unusable_instances_are_errors_that_say_why(
    scorer: Scorer, instance: dict[str, Any], change: dict[str, str], needle: str
) -> None:
    [result] = score(scorer, [{**instance["row"], **change, "model_patch": "x"}])
    assert result.status.value == "error" and needle in (result.verdict.message or "")
