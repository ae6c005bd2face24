"""The repo-mode test runner: trusted code that runs pytest inside the sandbox.

It is copied into the sandbox as a read-only file and started as
``python -I .assay-runner.py KEYFILE REPORT -- <pytest args>``. Before pytest or any of the
candidate's code is imported it reads the run's secret key from ``KEYFILE`` and deletes the
file, and opens ``REPORT`` for appending. Then, as each test ends (after its teardown), it
appends ``<HMAC-SHA256 hex> <json line>`` for it. The key is kept only inside an HMAC object
(never as a plain value), and what the candidate writes to the report without the key is
ignored by the trusted side. Standard library and pytest only: it must run in the sandbox.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sys
from typing import Any


def _take_key(path: str) -> hmac.HMAC:
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        text = os.read(descriptor, 256)
    finally:
        os.close(descriptor)
    os.unlink(path)
    return hmac.new(bytes.fromhex(text.decode("ascii").strip()), digestmod=hashlib.sha256)


class _Reporter:
    """A pytest plugin object: one authenticated line per test once its teardown has run."""

    def __init__(self, base: hmac.HMAC, descriptor: int) -> None:
        self._base = base
        self._descriptor = descriptor
        self._open: dict[str, tuple[bool, str, float]] = {}

    def pytest_runtest_logreport(self, report: Any) -> None:
        nodeid = str(report.nodeid)
        passed, message, seconds = self._open.get(nodeid, (True, "", 0.0))
        seconds += float(getattr(report, "duration", 0.0) or 0.0)
        if report.when == "call":
            passed = passed and bool(report.passed)
        elif not report.passed:  # setup or teardown failed or skipped: the test fails
            passed = False
        if not report.passed and not message:
            message = f"{report.when} {report.outcome}: {str(report.longrepr)[-200:]}"
        self._open[nodeid] = (passed, message, seconds)
        if report.when == "teardown":
            del self._open[nodeid]
            self._emit({"id": nodeid, "passed": passed, "message": message, "seconds": seconds})

    def _emit(self, entry: dict[str, Any]) -> None:
        line = json.dumps(entry, ensure_ascii=True).encode("ascii")
        tag = self._base.copy()
        tag.update(line)
        os.write(self._descriptor, tag.hexdigest().encode("ascii") + b" " + line + b"\n")


def main(argv: list[str]) -> int:
    """Run pytest on ``argv[3:]`` (after ``--``) reporting to ``argv[1]`` keyed by ``argv[0]``."""
    key_file, report_file, separator, *pytest_args = argv
    if separator != "--":
        raise SystemExit("usage: runner KEYFILE REPORT -- PYTEST-ARGS")
    base = _take_key(key_file)
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW
    descriptor = os.open(report_file, flags, 0o600)
    import pytest

    return int(pytest.main(pytest_args, plugins=[_Reporter(base, descriptor)]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
