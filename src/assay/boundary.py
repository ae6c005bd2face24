"""The one place where exceptions escaping a verifier become typed verdicts."""

from __future__ import annotations

import time
import traceback

from assay import blame
from assay.blame import ResponseFault
from assay.errors import MalformedTaskError
from assay.types import Record, Result, Verdict
from assay.verifier import Verifier

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


def _describe(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"
