"""The repo-mode test runner: trusted code that runs pytest inside the sandbox.

It is copied into the sandbox as a read-only file and started as
``python -I .assay-runner.py KEYFILE REPORT -- <pytest args>``. Before pytest or any of the
candidate's code is imported it reads the run's secret key from ``KEYFILE`` and deletes the
file, and opens ``REPORT`` for appending. Then, as each test ends (after its teardown), it
appends an HMAC-SHA256-tagged line for it. The key lives only inside OpenSSL's HMAC object
(never as a Python value, and behind a C type whose methods cannot be replaced), and what the
candidate writes to the report without the key is ignored by the trusted side. Standard
library and pytest only: it must run in the sandbox.
"""

from __future__ import annotations

import os
import sys
from _hashlib import hmac_new  # C: its HMAC type is immutable, unlike hmac.HMAC's methods
from typing import Any

# Everything _emit uses is bound here, before any candidate code runs: rebinding os.write,
# json.dumps, hmac.HMAC.copy or a builtin later changes nothing below.
_WRITE = os.write
_STR = str
_FLOAT = float
_GETATTR = getattr


def _take_key(path: str) -> Any:
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        text = os.read(descriptor, 256)
    finally:
        os.close(descriptor)
    os.unlink(path)
    return hmac_new(bytes.fromhex(text.decode("ascii").strip()), digestmod="sha256")


def _hex(text: Any, _str: Any = _STR) -> bytes:
    encoded: bytes = _str(text).encode("utf-8", "surrogateescape").hex().encode("ascii")
    return encoded


class _Reporter:
    """A pytest plugin object: one authenticated line per test once its teardown has run.

    A line is ``<hex HMAC> <hex node id> <1|0> <seconds> <hex message>``.
    """

    def __init__(self, base: Any, descriptor: int) -> None:
        self._base = base
        self._descriptor = descriptor
        self._open: dict[str, tuple[bool, str, float]] = {}

    def pytest_runtest_logreport(
        self, report: Any, _str: Any = _STR, _float: Any = _FLOAT, _getattr: Any = _GETATTR
    ) -> None:
        nodeid = _str(report.nodeid)
        passed, message, seconds = self._open.get(nodeid, (True, "", 0.0))
        seconds += _float(_getattr(report, "duration", 0.0) or 0.0)
        ok = report.outcome == "passed"
        if report.when == "call" or not ok:  # a failed or skipped setup/teardown fails it too
            passed = passed and ok
        if not ok and not message:
            message = f"{report.when} {report.outcome}: {_str(report.longrepr)[-200:]}"
        self._open[nodeid] = (passed, message, seconds)
        if report.when == "teardown":
            del self._open[nodeid]
            self._emit(nodeid, passed, message, seconds)

    def _emit(
        self, nodeid: str, passed: bool, message: str, seconds: float, _write: Any = _WRITE
    ) -> None:
        line = b"%s %d %.6f %s" % (_hex(nodeid), passed, seconds, _hex(message[:300]))
        tag = self._base.copy()
        tag.update(line)
        _write(self._descriptor, tag.hexdigest().encode("ascii") + b" " + line + b"\n")


def main(argv: list[str]) -> int:
    """Run pytest on the arguments after ``--``, reporting to ``argv[1]`` keyed by ``argv[0]``."""
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
