"""A pytest file run in the trusted process against the sandboxed candidate.

The test file (trusted, from the reference) is collected and run by pytest in this process,
with ``solution`` bound to a :class:`~assay.verifiers.code.remote.RemoteModule`: every
candidate function call crosses into the sandbox as data. The candidate never shares a process
or a filesystem with pytest, so it cannot write conftest.py, load plugins, patch pytest, edit
the tests or forge the report; pytest runs with ``--noconftest``, ``-p no:cacheprovider``, no
plugin autoload, an empty ini file and ``--import-mode=importlib`` in a fresh directory.
Only tests whose call phase is reported passed (and whose setup and teardown did not fail)
count; skipped, errored or uncollected tests fail.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from assay.verifiers.code.remote import CallLog, RemoteModule, Session
from assay.verifiers.code.units import Unit

from assay.errors import MalformedTaskError


class _Recorder:
    def __init__(self, log: CallLog) -> None:
        self.log = log
        self.order: list[str] = []
        self.outcomes: dict[str, tuple[bool, str]] = {}
        self.calls: dict[str, tuple[int, int]] = {}
        self.collect_errors: list[str] = []

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.collect_errors.append(str(report.longrepr)[-500:])

    def pytest_runtest_setup(self, item: Any) -> None:
        self.calls[item.nodeid] = (len(self.log.outcomes), -1)

    def pytest_runtest_teardown(self, item: Any) -> None:
        start, _ = self.calls.get(item.nodeid, (0, -1))
        self.calls[item.nodeid] = (start, len(self.log.outcomes))

    def pytest_runtest_logreport(self, report: Any) -> None:
        nodeid = report.nodeid
        if nodeid not in self.outcomes:
            self.order.append(nodeid)
            self.outcomes[nodeid] = (False, "not run")
        passed, _ = self.outcomes[nodeid]
        if report.when == "call":
            message = "" if report.passed else _reason(report)
            self.outcomes[nodeid] = (bool(report.passed), message)
        elif not report.passed:  # setup/teardown failed or skipped
            self.outcomes[nodeid] = (False, f"{report.when} {report.outcome}: {_reason(report)}")
        elif report.when == "setup":
            self.outcomes[nodeid] = (passed, "")


def _reason(report: Any) -> str:
    if report.skipped:
        return "skipped"
    text = str(report.longrepr or "")
    return text.strip().splitlines()[-1][:300] if text.strip() else report.outcome


def run_pytest_file(tests: str, session: Session, module_name: str = "solution") -> list[Unit]:
    """Run the test file with pytest here; one unit per collected test item."""
    import pytest

    log = CallLog()
    recorder = _Recorder(log)
    previous = sys.modules.get(module_name)
    sys.modules[module_name] = RemoteModule(module_name, session, log, free_names(tests))
    env_before = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        with tempfile.TemporaryDirectory(prefix="assay-pytest-") as tmp:
            root = Path(tmp)
            (root / "pytest.ini").write_text("[pytest]\n")
            test_file = root / "test_solution.py"
            test_file.write_text(tests)
            args = [
                str(test_file), "-q", "-p", "no:cacheprovider", "--noconftest",
                "--import-mode=importlib", "-c", str(root / "pytest.ini"), "--rootdir", str(root),
                "-o", "addopts=", "-W", "ignore::pytest.PytestAssertRewriteWarning",
            ]  # fmt: skip
            sink = io.StringIO()
            try:
                with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                    pytest.main(args, plugins=[recorder])
            finally:
                _forget_modules_under(root)
    finally:
        if previous is None:
            sys.modules.pop(module_name, None)
        else:
            sys.modules[module_name] = previous
        if env_before is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = env_before
    if recorder.collect_errors and not recorder.order:
        if log.outcomes:  # the candidate was reached and failed: its tests fail, the task is fine
            reason = f"the candidate module failed: {recorder.collect_errors[0][-200:]}"
            return [Unit(name, False, reason) for name in _test_names(tests)]
        raise MalformedTaskError(f"the pytest file does not collect: {recorder.collect_errors[0]}")
    if not recorder.order:
        raise MalformedTaskError("the pytest file has no tests")
    return [_unit(nodeid, recorder, log) for nodeid in recorder.order]


def free_names(source: str) -> tuple[str, ...]:
    """Names ``source`` reads but never binds, less builtins: what a star import may give it.

    Anything the module binds anywhere (a definition, an import, an assignment, a parameter)
    is left out, so names of the module's own stay its own.
    """
    import ast
    import builtins

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    read: set[str] = set()
    bound: set[str] = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            bound.add(node.name)
    return tuple(sorted(name for name in read - bound if not name.startswith("_")))


def _test_names(tests: str) -> list[str]:
    """Test functions and methods the file defines (the units when collection fails)."""
    import ast

    names = []
    for node in ast.parse(tests).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            names.append(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            names += [
                f"{node.name}::{f.name}"
                for f in node.body
                if isinstance(f, ast.FunctionDef) and f.name.startswith("test")
            ]
    return names or ["collection"]


def _forget_modules_under(root: Path) -> None:
    """Drop the run's test modules from ``sys.modules``: the next run must import afresh."""
    prefix = str(root)
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(prefix):
            del sys.modules[name]


def _unit(nodeid: str, recorder: _Recorder, log: CallLog) -> Unit:
    passed, message = recorder.outcomes[nodeid]
    start, end = recorder.calls.get(nodeid, (0, 0))
    return log.unit(nodeid.split("::", 1)[-1], passed, message, start, end if end >= 0 else None)
