"""The one place where exceptions escaping a verifier become typed verdicts."""

from __future__ import annotations

import dataclasses
import time
import traceback
from typing import TypeVar

from assay import blame
from assay.blame import ResponseFault
from assay.errors import MalformedTaskError
from assay.safejson import json_safe
from assay.types import Check, Record, Result, StepResult, Verdict
from assay.verifier import Verifier

_Item = TypeVar("_Item", Check, StepResult)

MALFORMED_TASK = "malformed task"
"""How the message of an ``error`` verdict for a :class:`MalformedTaskError` begins."""


def run_verifier(
    verifier: Verifier, record: Record, *, limit_s: float | None = None, seq: int = -1
) -> Result:
    """Score ``record`` with ``verifier``; never raises for anything the verifier does.

    ``limit_s`` (the item's hard limit, for :class:`~assay.blame.Budget`) and ``seq`` (the
    pool's number of the item, written on the phase board) start the item's clock and
    declarations (:func:`assay.blame.begin_item`).

    A :class:`~assay.blame.ResponseFault` becomes the response's ``incorrect`` verdict (so does
    an exhaustion error inside :class:`~assay.blame.response_owned` work); a
    :class:`~assay.errors.MalformedTaskError` becomes an ``error`` verdict that names the
    task's fault; a :class:`MemoryError` an ``error`` naming the memory limit; any other
    exception an ``error`` verdict carrying the exception type, message and the innermost frame,
    so a verifier bug is visible and masked, never a silent reward of 0.

    The evidence of every check and step is made plain JSON data here
    (:func:`assay.safejson.json_safe`), so whatever a verifier put in it (a set, a NaN, an
    object that cannot be pickled) crosses the pipe to the parent and reaches the output.
    """
    start = time.perf_counter()
    saved = blame.begin_item(seq, limit_s)
    try:
        verdict = verifier.verify(record)
        if not isinstance(verdict, Verdict):
            verdict = Verdict.error(
                f"verifier {verifier.id} returned {type(verdict).__name__}, not a Verdict"
            )
    except ResponseFault as fault:
        verdict = fault.verdict()
    except MalformedTaskError as exc:
        verdict = Verdict.error(f"{MALFORMED_TASK}: {exc}")
    except MemoryError:
        verdict = Verdict.error("the verifier ran out of memory (worker memory cap reached)")
    except RecursionError:
        verdict = Verdict.error("the verifier exceeded the recursion limit")
    except Exception as exc:  # the boundary: every other escape becomes a masked error verdict
        verdict = Verdict.error(f"verifier {verifier.id} raised {_describe(exc)}")
    finally:
        blame.end_item(saved)
    try:
        verdict = plain_evidence(verdict)
    except Exception as exc:  # checks or steps that are not Check / StepResult values
        verdict = Verdict.error(f"verifier {verifier.id} returned a malformed verdict: {exc!r}")
    elapsed_ms = (time.perf_counter() - start) * 1000.0
    return Result(
        id=record.id,
        domain=record.domain,
        verdict=verdict,
        verifier=verifier.id,
        elapsed_ms=elapsed_ms,
        group=record.group,
        meta=record.meta,
    )


def plain_evidence(verdict: Verdict) -> Verdict:
    """``verdict`` with the evidence of its checks and steps as plain JSON data."""
    checks = tuple(_plain(check) for check in verdict.checks)
    steps = tuple(_plain(step) for step in verdict.steps)
    return dataclasses.replace(verdict, checks=checks, steps=steps)


def _plain(item: _Item) -> _Item:
    evidence = json_safe(item.evidence)
    return dataclasses.replace(
        item, evidence=evidence if isinstance(evidence, dict) else {"value": evidence}
    )


def _describe(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    try:
        text = str(exc)
    except Exception:  # an exception whose message cannot be formed is still named
        text = "<message cannot be shown>"
    return f"{type(exc).__name__}: {text}{where}"
