"""Test verifiers for the scheduler, the async API and the Ray backend.

The response is a command, ``name:arg:arg``:

- ``ok`` / ``wrong``: correct / incorrect.
- ``fail``: raises (a verifier bug: an infrastructure ``error``).
- ``hang``: sleeps far past any time limit (the item times out).
- ``log:<file>:<seconds>``: appends ``start <id>``, sleeps, appends ``end <id>``.
- ``fifo-self:<fifo>``: on its first run (a ``<fifo>.done`` marker is absent) writes this
  worker's pid into the named pipe and sleeps until killed; on a retry returns correct.
- ``fifo-parent:<fifo>``: the same with the parent's pid (a Ray actor, for the actor tests).

``setup()`` writes ``<ASSAY_TEST_SETUP_DIR>/<name>-<pid>`` when that variable is set, so a
test sees which worker processes set the verifier up before any item reached them.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from assay.registry import Registry, default_registry
from assay.types import Check, Record, Verdict
from assay.verifier import Verifier


class CommandVerifier(Verifier):
    """Behaviour chosen by the response; see the module docstring."""

    name = "scaleprobe"
    version = "1"
    default_timeout_s = 20.0

    def setup(self) -> None:
        folder = os.environ.get("ASSAY_TEST_SETUP_DIR")
        if folder:
            Path(folder, f"{self.name}-{os.getpid()}").write_text("set up\n")

    def verify(self, record: Record) -> Verdict:
        command, _, arg = record.response.partition(":")
        if command == "ok":
            return Verdict.correct((Check("pid", True, evidence={"pid": os.getpid()}),))
        if command == "wrong":
            return Verdict.incorrect()
        if command == "fail":
            raise RuntimeError("the verifier's backing service is down")
        if command == "hang":
            time.sleep(3600)
        if command == "log":
            path, _, seconds = arg.rpartition(":")
            _append(path, f"start {record.id}")
            time.sleep(float(seconds))
            _append(path, f"end {record.id}")
            return Verdict.correct()
        if command in ("fifo-self", "fifo-parent"):
            return _fifo(arg, os.getpid() if command == "fifo-self" else os.getppid())
        return Verdict.unparsable(f"unknown command {command!r}")


class OtherVerifier(CommandVerifier):
    """The same commands under a second domain name (priorities and limits need two)."""

    name = "other"
    version = "1"


def _append(path: str, line: str) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line + "\n")


def _fifo(fifo: str, pid: int) -> Verdict:
    done = Path(fifo + ".done")
    if done.exists():  # the retry after the kill
        return Verdict.correct((Check("pid", True, evidence={"pid": os.getpid()}),))
    done.write_text(str(pid))
    parent = os.getppid()
    with open(fifo, "w", encoding="utf-8") as handle:  # blocks until the test reads
        handle.write(str(pid))
    deadline = time.monotonic() + 60
    while os.getppid() == parent and time.monotonic() < deadline:
        time.sleep(0.05)  # until the test kills this worker or its parent (then exit too)
    return Verdict.incorrect()


def math_and_probe_registry() -> Registry:
    """The built-in math verifier and :class:`CommandVerifier`, the Ray tests' registry."""
    registry = Registry()
    for entry in default_registry().entries():
        if entry.name == "math":
            registry.register(entry.cls)
    registry.register(CommandVerifier)
    return registry
