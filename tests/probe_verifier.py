"""A verifier whose behaviour the response chooses: it exercises the runner's failure paths."""

from __future__ import annotations

import os
import signal
import time

from assay.errors import MalformedTaskError
from assay.types import Check, Record, Verdict
from assay.verifier import Verifier


class ProbeVerifier(Verifier):
    """``response`` is a command: ``ok``, ``wrong``, ``sleep:<s>``, ``spin``, ``crash``,
    ``oom``, ``raise``, ``malformed``, ``pid``, ``ignore-term``."""

    name = "probe"
    version = "1"
    aliases = ("probe-alias",)
    data_sources = ("probe/*",)
    default_timeout_s = 2.0

    def verify(self, record: Record) -> Verdict:
        command = record.response
        if command == "ok":
            return Verdict.correct((Check("probe", True, evidence={"pid": os.getpid()}),))
        if command == "wrong":
            return Verdict.incorrect()
        if command.startswith("sleep:"):
            time.sleep(float(command.split(":", 1)[1]))
            return Verdict.correct()
        if command == "spin":
            while True:
                pass
        if command == "ignore-term":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            while True:
                time.sleep(0.01)
        if command == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        if command == "oom":
            hog = [bytearray(64 * 1024 * 1024) for _ in range(10_000)]
            return Verdict.correct(message=str(len(hog)))  # type: ignore[call-arg]
        if command == "raise":
            raise ZeroDivisionError("probe bug")
        if command == "malformed":
            raise MalformedTaskError("the reference has no tests")
        if command == "pid":
            return Verdict.correct((Check("pid", True, evidence={"pid": os.getpid()}),))
        return Verdict.unparsable(f"unknown probe command {command!r}")
