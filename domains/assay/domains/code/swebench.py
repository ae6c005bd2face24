"""SWE-bench instances as they come, on the code domain's repo mode (docs/formats.md).

An instance (``instance_id``, ``repo``, ``base_commit``, ``patch``, ``test_patch``,
``FAIL_TO_PASS``, ``PASS_TO_PASS``; the two lists as JSON strings, as SWE-bench publishes them,
or as lists) becomes a repo task: the repository at ``base_commit`` with ``test_patch`` applied
(trusted, before the candidate's patch), its ``FAIL_TO_PASS`` and ``PASS_TO_PASS`` test ids, and
the files ``test_patch`` touches protected like the tests' own files (written over the patched
tree read-only). The gold ``patch`` stays on the trusted side; it is never run.

The ``repo`` name (``owner/name``) is looked up in the roots listed in ``ASSAY_SWEBENCH_REPOS``
(``:``-separated): the first of ``<root>/owner__name`` (SWE-bench's own naming),
``<root>/owner/name`` and ``<root>/name`` that is a git checkout holding ``base_commit``. The
tree at that commit is taken with ``git archive`` (the checkout's working tree and other
branches are never read) into a per-process cache keyed by checkout, commit and test patch.
"""

from __future__ import annotations

import atexit
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from assay.errors import MalformedTaskError

SWEBENCH_REPOS_ENV = "ASSAY_SWEBENCH_REPOS"
INSTANCE_KEYS = frozenset({"instance_id", "base_commit"})
"""Columns that make a row a SWE-bench instance."""
_REPO_NAME = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_COMMIT = re.compile(r"^[0-9a-fA-F]{7,40}$")
_DIFF_PATHS = re.compile(r"^diff --git a/(\S+) b/(\S+)$", re.MULTILINE)
_PASSED_ON = ("timeout_s", "memory_mb", "all_or_nothing", "static_analysis", "ruff_weight")
_CACHE: dict[str, Path] = {}


def is_instance(reference: Mapping[str, Any]) -> bool:
    return all(reference.get(k) not in (None, "") for k in INSTANCE_KEYS)


def from_instance(reference: Mapping[str, Any]) -> dict[str, Any]:
    """The repo-mode reference of a SWE-bench instance (its checkout is made when parsed).

    Raises:
        MalformedTaskError: a field is missing or has the wrong shape.
    """
    repo, commit = reference.get("repo"), reference.get("base_commit")
    if not isinstance(repo, str) or not _REPO_NAME.match(repo) or ".." in repo:
        raise MalformedTaskError(f"SWE-bench repo must be 'owner/name', got {repo!r}")
    if not isinstance(commit, str) or not _COMMIT.match(commit):
        raise MalformedTaskError(f"SWE-bench base_commit must be a commit hash, got {commit!r}")
    test_patch = reference.get("test_patch") or ""
    if not isinstance(test_patch, str):
        raise MalformedTaskError("SWE-bench test_patch must be a diff (text)")
    fail_to_pass = _test_ids(reference, "FAIL_TO_PASS")
    if not fail_to_pass:
        raise MalformedTaskError("a SWE-bench instance needs a non-empty FAIL_TO_PASS")
    touched = sorted({p for pair in _DIFF_PATHS.findall(test_patch) for p in pair})
    return {
        "all_or_nothing": True,  # resolved: every FAIL_TO_PASS and PASS_TO_PASS test passes
        **{k: reference[k] for k in _PASSED_ON if reference.get(k) is not None},
        "repo": {"swebench": repo, "base_commit": commit, "test_patch": test_patch},
        "fail_to_pass": fail_to_pass,
        "pass_to_pass": _test_ids(reference, "PASS_TO_PASS"),
        "test_files": touched,
    }


def _test_ids(reference: Mapping[str, Any], key: str) -> list[str]:
    value = reference.get(key)
    if value is None:
        value = reference.get(key.lower())
    if value is None or value == "":
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise MalformedTaskError(f"{key} must be a JSON list of test ids: {exc}") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise MalformedTaskError(f"{key} must be a list of test ids")
    return list(value)


def roots() -> list[Path]:
    """The checkout roots listed in ``ASSAY_SWEBENCH_REPOS``."""
    raw = os.environ.get(SWEBENCH_REPOS_ENV, "")
    return [Path(p).resolve() for p in raw.split(":") if p]


def find_checkout(repo: str) -> Path:
    """The git checkout of ``owner/name`` under the configured roots.

    Raises:
        MalformedTaskError: no root holds it (the message names the variable and the paths).
    """
    owner, name = repo.split("/", 1)
    tried: list[str] = []
    for root in roots():
        for candidate in (root / f"{owner}__{name}", root / owner / name, root / name):
            tried.append(str(candidate))
            resolved = candidate.resolve()
            if resolved.is_relative_to(root) and (resolved / ".git").exists():
                return resolved
    where = ", ".join(tried) if tried else f"{SWEBENCH_REPOS_ENV} is not set"
    raise MalformedTaskError(
        f"no git checkout of {repo!r} (set {SWEBENCH_REPOS_ENV} to ':'-separated roots holding "
        f"owner__name or owner/name checkouts; tried: {where})"
    )


def checkout_tree(spec: Mapping[str, Any]) -> Path:
    """The tree of ``spec``'s repo at its base commit with its test patch applied (cached).

    Raises:
        MalformedTaskError: no checkout, the commit is not in it, or the test patch does not
            apply (the instance is unusable: not the response's doing).
    """
    repo, commit, test_patch = spec["swebench"], spec["base_commit"], spec["test_patch"]
    checkout = find_checkout(repo)
    key = hashlib.sha256(f"{checkout}\0{commit}\0{test_patch}".encode()).hexdigest()[:24]
    cached = _CACHE.get(key)
    if cached is not None and cached.is_dir():
        return cached
    archive = subprocess.run(
        ["git", "-C", str(checkout), "archive", "--format=tar", f"{commit}^{{commit}}"],
        capture_output=True, timeout=300, check=False,
    )  # fmt: skip
    if archive.returncode != 0:
        problem = archive.stderr.decode(errors="replace").strip()[:300]
        raise MalformedTaskError(f"base_commit {commit} is not in {checkout}: {problem}")
    folder = Path(tempfile.mkdtemp(prefix=f"assay-swebench-{key[:8]}-"))
    atexit.register(shutil.rmtree, folder, True)
    tree = folder / "tree"
    try:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(tree, filter="data")
        if test_patch.strip():
            applied = subprocess.run(
                ["git", "apply", "--whitespace=nowarn", "-"],
                input=test_patch.encode(), cwd=tree, capture_output=True, timeout=60,
                check=False,
            )  # fmt: skip
            if applied.returncode != 0:
                problem = applied.stderr.decode(errors="replace").strip()[:300]
                raise MalformedTaskError(f"the instance's test_patch does not apply: {problem}")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    _CACHE[key] = tree
    return tree
