"""Attacks on repo/patch mode, written as a policy would write its diff.

In repo mode the candidate's code runs in pytest's own process, so the attacks go for the
report: forge it from an exit hook, truncate it, exit early with status 0, rewrite pytest's
arguments, write a JUnit file, steal the run's key, rebind what the reporter calls, bring in
conftest files, ini files, ``.pth`` files, ``sitecustomize``, ``pytest_plugins``, and hide
code from the static gate in binary hunks, compiled files and renames. Each one leaves
``word_count`` broken, so it must earn no more than an honest patch that fixes nothing, never
a masked status, and the same warm worker must then grade the real fix as correct.

Diffs are made by git from real trees (``git diff --binary``), as a model's tooling would.
"""

from __future__ import annotations

import os
import py_compile
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from assay.domains.code.verifier import PROJECT_ROOT, CodeVerifier
from assay.verifiers.code.repo import apply_patch, mac, read_report, tree_flags

from assay.boundary import run_verifier
from assay.types import Record, Result, Status

REPO = PROJECT_ROOT / "fixtures" / "code" / "repos" / "textstats"
F2P = [
    "tests/test_textstats.py::test_word_count_whitespace",
    "tests/test_textstats.py::test_word_count_empty",
]
P2P = [
    "tests/test_textstats.py::test_word_count_simple",
    "tests/test_textstats.py::test_char_count",
    "tests/test_textstats.py::test_average_word_length",
]
REFERENCE = {"repo": str(REPO), "fail_to_pass": F2P, "pass_to_pass": P2P, "timeout_s": 10}
INIT = "textstats/__init__.py"
PRISTINE = (REPO / INIT).read_text()
FIXED = PRISTINE.replace('len(text.split(" "))', "len(text.split())")
ALL_IDS = F2P + P2P

FORGE_LINES = f"""
import json as _json
_IDS = {ALL_IDS!r}
def _forged():
    lines = []
    for test_id in _IDS:
        body = _json.dumps({{"id": test_id, "passed": True}})
        lines.append("0" * 64 + " " + body)
        lines.append("0" * 64 + " " + test_id.encode().hex() + " 1 0.0 ")
    return "\\n".join(lines) + "\\n"
_REPORT = "." + "assay-rep" + "ort"
"""

# name -> (changes: path -> new bytes, or None to delete), how it must be stopped:
# "runs" = the gate lets it through and the report channel holds; "gate" = the gate refuses it.
ATTACKS: dict[str, tuple[dict[str, bytes | None], str]] = {
    "atexit hook appends forged lines": (
        {
            INIT: (
                PRISTINE
                + FORGE_LINES
                + """
import atexit
def _hook():
    with open(_REPORT, "a") as handle:
        handle.write(_forged())
atexit.register(_hook)
"""
            ).encode()
        },
        "runs",
    ),
    "report truncated and replaced at import": (
        {
            INIT: (
                PRISTINE
                + FORGE_LINES
                + """
with open(_REPORT, "w") as handle:
    handle.write(_forged())
"""
            ).encode()
        },
        "runs",
    ),
    "forged lines written from inside the tested function": (
        {
            INIT: (
                PRISTINE.replace(
                    '    return len(text.split(" "))',
                    """    with open(_REPORT, "a") as handle:
        handle.write(_forged())
    return len(text.split(" "))""",
                )
                + FORGE_LINES
            ).encode()
        },
        "runs",
    ),
    "forged lines, then os._exit(0) before any genuine line": (
        {
            INIT: (
                PRISTINE.replace(
                    '    return len(text.split(" "))',
                    """    with open(_REPORT, "a") as handle:
        handle.write(_forged())
    import os
    os._exit(0)""",
                )
                + FORGE_LINES
            ).encode()
        },
        "runs",
    ),
    "os._exit(0) at import": (
        {INIT: (PRISTINE + "\nimport os\nos._exit(0)\n").encode()},
        "runs",
    ),
    "os._exit(0) in the function under test": (
        {
            INIT: PRISTINE.replace(
                '    return len(text.split(" "))', "    import os\n    os._exit(0)"
            ).encode()
        },
        "runs",
    ),
    "sys.exit(0) from atexit after printing a pass summary": (
        {
            INIT: (
                PRISTINE
                + """
import atexit, sys
print("5 passed in 0.01s")
atexit.register(lambda: sys.exit(0))
"""
            ).encode()
        },
        "runs",
    ),
    "pytest's arguments rewritten at import": (
        {
            INIT: (
                PRISTINE
                + """
import sys
sys.argv[:] = ["pytest", "-q", "tests/test_textstats.py::test_char_count", "--co"]
"""
            ).encode()
        },
        "runs",
    ),
    "a JUnit report claiming every test passed": (
        {
            INIT: (
                PRISTINE
                + f"""
_cases = "".join('<testcase classname="tests.test_textstats" name="%s"/>' % t.split("::")[1]
                 for t in {ALL_IDS!r})
with open("." + "assay-jun" + "it.xml", "w") as handle:
    handle.write('<testsuites><testsuite>' + _cases + '</testsuite></testsuites>')
"""
            ).encode()
        },
        "runs",
    ),
    "the key file read and used to sign forgeries": (
        {
            INIT: (
                PRISTINE.replace('    return len(text.split(" "))', "    _sign_and_vanish()")
                + FORGE_LINES
                + """
import hashlib, hmac as _hmac, os
_keys = []
for _path in ("." + "assay-key", "/tmp/work/." + "assay-key", "/proc/self/cmdline", "/proc/self/environ"):
    try:
        _raw = open(_path, "rb").read()
    except OSError:
        continue
    for _word in _raw.replace(b"\\0", b" ").split():
        try:
            _keys.append(bytes.fromhex(_word.decode()))
        except ValueError:
            pass
def _sign_and_vanish():
    with open(_REPORT, "a") as handle:
        for _key in _keys:
            for _id in _IDS:
                _line = (_id.encode().hex() + " 1 0.0 ").encode()
                handle.write(_hmac.new(_key, _line, hashlib.sha256).hexdigest() + " " + _line.decode() + "\\n")
    os._exit(0)
"""
            ).encode()
        },
        "runs",
    ),
    "json, hmac and os.write rebound to steal the reporter's MAC": (
        {
            INIT: (
                PRISTINE
                + FORGE_LINES
                + """
import hmac, json, os
_stolen, _copy, _write, _exit, _dumps = [], hmac.HMAC.copy, os.write, os._exit, json.dumps
def _steal(self):
    _stolen.append(self)
    return _copy(self)
hmac.HMAC.copy = _steal
json.dumps = lambda obj, *a, **k: _dumps({**obj, "passed": True} if isinstance(obj, dict) else obj, *a, **k)
def _rewrite(fd, data):
    if _stolen:  # the reporter is signing its first line: sign passes instead, then vanish
        for _id in _IDS:
            _line = (_id.encode().hex() + " 1 0.0 ").encode()
            _tag = _copy(_stolen[0])
            _tag.update(_line)
            _write(fd, _tag.hexdigest().encode() + b" " + _line + b"\\n")
        _exit(0)
    return _write(fd, data.replace(b" 0 ", b" 1 "))
os.write = _rewrite
"""
            ).encode()
        },
        "runs",
    ),
    "conftest.py added beside the tests": (
        {
            "tests/conftest.py": b"def pytest_runtest_logreport(report):\n    report.outcome = 'passed'\n"
        },
        "runs",
    ),
    "conftest.py added in the package": (
        {
            "textstats/conftest.py": b"def pytest_runtest_logreport(report):\n    report.outcome = 'passed'\n"
        },
        "runs",
    ),
    "pytest.ini loading the package as a plugin": (
        {
            "pytest.ini": b"[pytest]\naddopts = -p textstats.hooks\n",
            "textstats/hooks.py": b"def pytest_runtest_logreport(report):\n    report.outcome = 'passed'\n",
        },
        "runs",
    ),
    "pyproject.toml with pytest options": (
        {
            "pyproject.toml": b"[tool.pytest.ini_options]\naddopts = '-p textstats.hooks'\n",
            "textstats/hooks.py": b"def pytest_runtest_logreport(report):\n    report.outcome = 'passed'\n",
        },
        "runs",
    ),
    "sitecustomize, usercustomize and a .pth file": (
        {
            "sitecustomize.py": b"import atexit, os\natexit.register(lambda: os._exit(0))\n",
            "usercustomize.py": b"import os\nos.environ['PYTEST_ADDOPTS'] = '-p textstats.hooks'\n",
            "evil.pth": b"import textstats.hooks\n",
            "textstats/hooks.py": b"def pytest_runtest_logreport(report):\n    report.outcome = 'passed'\n",
        },
        "runs",
    ),
    "pytest_plugins in the package": (
        {
            INIT: (PRISTINE + "\npytest_plugins = ['textstats.hooks']\n").encode(),
            "textstats/hooks.py": b"def pytest_runtest_logreport(report):\n    report.outcome = 'passed'\n",
        },
        "runs",
    ),
    "pytest's reports patched through an obfuscated import": (
        {
            INIT: (
                PRISTINE
                + """
_reports = __import__("_py" + "test.reports", fromlist=["TestReport"])
_reports.TestReport.outcome = "passed"
"""
            ).encode()
        },
        "gate",
    ),
    "builtins reached through print.__self__": (
        {
            INIT: (
                PRISTINE
                + """
_b = print.__self__
_runner = _b.__dict__["__import__"]("_py" + "test.runner", fromlist=["x"])
_runner.call_and_report = lambda item, when, log=True, **kw: None
"""
            ).encode()
        },
        "gate",
    ),
    "the reporter's HMAC found with gc": (
        {
            INIT: (
                PRISTINE
                + FORGE_LINES
                + """
import gc
for _o in gc.get_objects():
    if type(_o).__name__ == "_Reporter":
        _o._emit("tests/test_textstats.py::test_word_count_empty", True, "", 0.0)
"""
            ).encode()
        },
        "gate",
    ),
    "pytest internals in a binary hunk": (
        {
            INIT: (PRISTINE + "\nfrom textstats import _speedups  # noqa: F401\n").encode(),
            "textstats/_speedups.py": b"import _pytest.reports\n_pytest.reports.TestReport.passed = True\n\x00",
        },
        "gate",
    ),
    "a sourceless .pyc module": (
        {
            INIT: (PRISTINE + "\nfrom textstats import _fast  # noqa: F401\n").encode(),
            "textstats/_fast.pyc": b"PYC",
        },
        "gate",
    ),
    "a renamed module with frame introspection added": (
        {
            INIT: b"from textstats.core import *  # noqa: F403\n",
            "textstats/core.py": (
                PRISTINE + "\nimport sys\n_caller = sys._getframe(1).f_globals\n"
            ).encode(),
        },
        "gate",
    ),
}


def make_diff(changes: dict[str, bytes | None], chmod: tuple[str, ...] = ()) -> str:
    """A real ``git diff --binary`` of ``changes`` against the fixture repository."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "repo"
        shutil.copytree(REPO, work)
        git = ["git", "-c", "user.name=a", "-c", "user.email=a@b", "-c", "core.fileMode=true"]
        subprocess.run([*git, "init", "-q"], cwd=work, check=True)
        subprocess.run([*git, "add", "-A"], cwd=work, check=True)
        subprocess.run([*git, "commit", "-qm", "base"], cwd=work, check=True)
        for name, content in changes.items():
            path = work / name
            if content is None:
                path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            if name.endswith(".pyc"):
                source = path.with_suffix(".src.py")
                source.write_text(
                    "import _pytest.reports\n_pytest.reports.TestReport.passed = True\n"
                )
                py_compile.compile(str(source), cfile=str(path))
                source.unlink()
            else:
                path.write_bytes(content)
        for name in chmod:
            os.chmod(work / name, 0o755)
        subprocess.run([*git, "add", "-A"], cwd=work, check=True)
        diff = subprocess.run(
            [*git, "diff", "--cached", "--binary", "-M"], cwd=work, check=True, capture_output=True
        )
    return diff.stdout.decode()


def _verify(verifier: CodeVerifier, diff: str) -> Result:
    return run_verifier(verifier, Record("repo-attack", "code", diff, REFERENCE))


@pytest.fixture(scope="module")
def honest_wrong(verifier: CodeVerifier) -> Result:
    """What a patch that fixes nothing earns: the pass-to-pass tests only."""
    result = _verify(verifier, make_diff({"README": b"Docs only.\n"}))
    assert result.status is Status.PARTIAL and result.verdict.score == pytest.approx(0.6)
    return result


def _check(result: Result, name: str) -> bool | None:
    found = [c for c in result.verdict.checks if c.name == name]
    return found[0].passed if found else None


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attack_earns_no_more_than_an_honest_wrong_patch(
    verifier: CodeVerifier, honest_wrong: Result, name: str
) -> None:
    changes, route = ATTACKS[name]
    result = _verify(verifier, make_diff(changes))
    assert result.status in (Status.INCORRECT, Status.PARTIAL), (name, result.verdict)
    assert result.verdict.score <= honest_wrong.verdict.score, (name, result.verdict)
    failed_f2p = [s for s in result.verdict.steps if s.name in F2P and s.passed]
    assert failed_f2p == [], f"{name}: a fail-to-pass test was credited"
    if route == "gate":
        assert _check(result, "hostile") is False, f"{name} was not refused by the gate"
    else:
        assert _check(result, "hostile") is None, f"{name} never reached the report channel"
    # nothing left behind: the same warm worker grades the real fix as correct
    fixed = _verify(verifier, make_diff({INIT: FIXED.encode()}))
    assert fixed.status is Status.CORRECT, (name, fixed.verdict)


def test_the_real_fix_is_correct_and_its_runs_are_authenticated(verifier: CodeVerifier) -> None:
    result = _verify(verifier, make_diff({INIT: FIXED.encode()}))
    assert result.status is Status.CORRECT and result.verdict.score == 1.0
    assert [s.name for s in result.verdict.steps] == ALL_IDS


def test_added_config_files_are_dropped_not_read(verifier: CodeVerifier) -> None:
    changes, _ = ATTACKS["sitecustomize, usercustomize and a .pth file"]
    tree = apply_patch(REPO, make_diff(changes), {"tests/test_textstats.py"})
    assert set(tree.dropped) == {"sitecustomize.py", "usercustomize.py", "evil.pth"}
    ini, _ = ATTACKS["pytest.ini loading the package as a plugin"]
    assert "pytest.ini" in apply_patch(REPO, make_diff(ini), set()).dropped


def test_a_mode_change_is_seen_and_carries_nothing(verifier: CodeVerifier) -> None:
    diff = make_diff({INIT: FIXED.encode()}, chmod=(INIT,))
    assert "new mode 100755" in diff
    tree = apply_patch(REPO, diff, set())
    assert INIT in tree.modes
    assert _verify(verifier, diff).status is Status.CORRECT


@pytest.mark.parametrize(
    ("before", "after", "new"),
    [
        ({"a.py": "import sys\nm = sys.modules\n"}, {"b.py": "import sys\nm = sys.modules\n"}, 0),
        (
            {"a.py": "import sys\nm = sys.modules\n"},
            {"a.py": "import sys\nm = sys.modules\nn = sys.modules\n"},
            1,
        ),
        ({}, {"a.py": "x = print.__self__\n"}, 1),
        ({}, {"a.pyc": "anything"}, 1),
        ({"a.py": "x = 1\n"}, {"a.py": "x = 2\n"}, 0),
    ],
)
def test_the_gate_counts_only_what_the_patch_brings(
    before: dict[str, str], after: dict[str, str], new: int
) -> None:
    changed = tuple(sorted(set(before) | set(after)))
    old = {k: v.encode() for k, v in before.items()}
    assert len(tree_flags(old, {k: v.encode() for k, v in after.items()}, changed)) == new


def test_undecodable_python_is_refused() -> None:
    flags = tree_flags({}, {"a.py": b"x = '\xff'\n"}, ("a.py",))
    assert [f.kind for f in flags] == ["unreadable"]


def test_noqa_and_ruff_config_in_the_patch_do_not_hide_findings(verifier: CodeVerifier) -> None:
    diff = make_diff(
        {
            INIT: (FIXED + "\nimport os  # noqa\nimport sys  # ruff: noqa: F401\n").encode(),
            "ruff.toml": b"[lint]\nignore = ['F401']\n",
            "textstats/.ruff.toml": b"[lint]\nignore = ['F401']\n",
            "textstats/pyproject.toml": b"[tool.ruff.lint]\nignore = ['F401']\n",
        }
    )
    result = _verify(verifier, diff)
    ruff = next(c for c in result.verdict.checks if c.name == "ruff")
    assert ruff.evidence["by_rule"].get("F401") == 2, ruff.evidence


@pytest.mark.parametrize(
    "report",
    [
        b"",
        b"garbage\n\x00\xff",
        b"0" * 64
        + b" "
        + b"tests/test_textstats.py::test_word_count_empty".hex().encode()
        + b" 1 0.0 \n",
    ],
)
def test_a_report_without_the_key_counts_for_nothing(report: bytes) -> None:
    units = read_report(report, b"k" * 32, F2P)
    assert [u.passed for u in units] == [False, False]


def test_a_signed_failure_stands_against_a_later_signed_pass() -> None:
    key = b"k" * 32
    test_id = F2P[0].encode().hex().encode()
    lines = [test_id + b" 0 0.1 ", test_id + b" 1 0.1 "]
    report = b"".join(mac(key, line).encode() + b" " + line + b"\n" for line in lines)
    assert [u.passed for u in read_report(report, key, F2P[:1])] == [False]
    only_pass = mac(key, lines[1]).encode() + b" " + lines[1] + b"\n"
    assert [u.passed for u in read_report(only_pass, key, F2P[:1])] == [True]
