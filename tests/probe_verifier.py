"""A verifier whose behaviour the response chooses: it exercises the runner's failure paths."""

from __future__ import annotations

import contextlib
import gc
import mmap
import os
import signal
import time
from collections.abc import Sequence

from assay.blame import TOO_COSTLY, Budget, ResponseFault, current_phase, response_owned
from assay.errors import MalformedTaskError
from assay.types import Check, Record, Verdict
from assay.verifier import Verifier

OWNED = "owned:"
"""Prefix of a command run as response-owned work (``owned:spin``: the response's hang)."""


class ProbeVerifier(Verifier):
    """``response`` is a command: ``ok``, ``wrong``, ``sleep:<s>``, ``spin``, ``crash``,
    ``oom``, ``fill-oom``, ``raise``, ``malformed``, ``pid``, ``ignore-term``, and for blame:

    - ``owned:<command>``: the command inside :class:`assay.blame.response_owned`;
    - ``recurse``, ``overflow``, ``bigint``: a recursion, a float overflow, an int too long
      for text (run them ``owned:`` to make them the response's);
    - ``fault``: a :class:`~assay.blame.ResponseFault` raised from inside the verifier;
    - ``budget``: endless steps under a :class:`~assay.blame.Budget` (the item's one budget);
    - ``steps:<n>``: ``n`` steps under a budget of 100 steps;
    - ``owned-then-spin``: response-owned work that ends, then a hang of the verifier's own;
    - ``phase``: the open declaration, in the evidence of a passed check;
    - ``chunk``: the size of the chunk ``prefetch`` saw this item in (1: verified alone);
      ``prefetch-raise`` makes the ``prefetch`` of its chunk raise;
    - ``frozen``: whether what set-up made (a list) is out of the collector's view, and what
      the item makes is in it.
    """

    name = "probe"
    version = "1"
    aliases = ("probe-alias",)
    data_sources = ("probe/*",)
    default_timeout_s = 2.0

    def __init__(self) -> None:
        self._chunk_of: dict[str, int] = {}
        self._made_at_setup: list[int] = [1, 2, 3]

    def prefetch(self, records: Sequence[Record]) -> None:
        if any(r.response == "prefetch-raise" for r in records):
            raise RuntimeError("the probe's prefetch fails")
        self._chunk_of = {r.id: len(records) for r in records}

    def verify(self, record: Record) -> Verdict:
        command = record.response
        if command in ("chunk", "prefetch-raise"):
            size = self._chunk_of.get(record.id, 1)
            evidence = {"chunk": size, "pid": os.getpid()}
            return Verdict.correct((Check("chunk", True, evidence=evidence),))
        if command.startswith(OWNED):
            with response_owned(f"probe command {command!r}"):
                return self._run(command.removeprefix(OWNED))
        return self._run(command)

    def _run(self, command: str) -> Verdict:
        if command == "recurse":
            return _recurse(0)
        if command == "overflow":
            return Verdict.correct(message=str(float(10**400)))
        if command == "bigint":
            return Verdict.correct(message=str(10**5000))
        if command == "fault":
            raise ResponseFault(TOO_COSTLY, "the probe's answer is too costly", {"probe": 1})
        if command == "budget":
            budget = Budget("probe steps")
            while True:
                budget.step()
        if command.startswith("steps:"):
            budget = Budget("probe steps", max_steps=100)
            for _ in range(int(command.split(":", 1)[1])):
                budget.step()
            return Verdict.correct()
        if command == "phase":
            phase = current_phase()
            seen = None if phase is None else [phase.seq, phase.check, phase.what]
            return Verdict.correct((Check("phase", True, evidence={"phase": seen}),))
        if command == "owned-then-spin":
            with response_owned("probe work that ends"):
                pass
            return self._run("spin")
        if command == "frozen":
            made_now: list[int] = [4, 5, 6]
            tracked = gc.get_objects()
            evidence = {
                "setup_in_view": any(o is self._made_at_setup for o in tracked),
                "item_in_view": any(o is made_now for o in tracked),
            }
            return Verdict.correct((Check("frozen", True, evidence=evidence),))
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
        if command == "slow-oom":  # takes the memory cap, then stalls: a slow machine's blow-up
            held = []  # untouched anonymous maps: the address space fills at once, the RAM not
            with contextlib.suppress(MemoryError, OSError):
                while True:
                    held.append(mmap.mmap(-1, 16 * 1024 * 1024))
            for region in held[-2:]:  # room to breathe: now the time limit, not the cap, ends it
                region.close()
            while True:
                time.sleep(0.05)
        if command == "oom":  # calloc'd, untouched: the cap is hit at once on any machine
            hog = [bytes(64 * 1024 * 1024) for _ in range(10_000)]
            return Verdict.correct(message=str(len(hog)))  # type: ignore[call-arg]
        if command == "fill-oom":  # every page written: a loaded machine may hit the time first
            filled = [bytearray(64 * 1024 * 1024) for _ in range(10_000)]
            return Verdict.correct(message=str(len(filled)))  # type: ignore[call-arg]
        if command == "raise":
            raise ZeroDivisionError("probe bug")
        if command == "malformed":
            raise MalformedTaskError("the reference has no tests")
        if command == "pid":
            return Verdict.correct((Check("pid", True, evidence={"pid": os.getpid()}),))
        return Verdict.unparsable(f"unknown probe command {command!r}")


def _recurse(depth: int) -> Verdict:
    return _recurse(depth + 1)
