"""The body of a worker process: verify the items the parent sends, one at a time.

Messages to the parent: ``("hello", pid)`` once started (and warm); ``("setup", seq, domain)``
before a verifier is set up (the parent extends the deadline) and ``("ready", seq, domain)`` after;
``("result", seq, Result)`` per item. Messages from the parent: ``("batch", [(seq, Record,
limit_s), ...])`` and ``("stop",)``. Besides the socket, the worker writes its open
response-owned declarations on the phase board whose descriptor came with ``init``
(:class:`assay.blame.PhaseBoard`); the parent reads it when it kills or buries the worker.
The worker exits after ``max_items`` items or after running out of memory, so a
leak or a fragmented heap never outlives a bounded number of items.
"""

from __future__ import annotations

import gc
import os
import resource
import sys
from multiprocessing.connection import Connection
from typing import Any

from assay import blame
from assay.boundary import run_verifier
from assay.registry import Registry
from assay.types import Record, Result, Verdict
from assay.verifier import Verifier

MEMORY_MESSAGE = "ran out of memory"


def cap_memory(memory_mb: int) -> None:
    """Cap this process's address space; 0 means no cap."""
    if memory_mb <= 0:
        return
    limit = memory_mb * 1024 * 1024
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    used = _address_space_bytes()
    if used is not None and used >= limit:  # nothing could be allocated: fail at start
        raise SystemExit(
            f"assay worker: a {memory_mb} MB address space is below this worker's own "
            f"{used // (1024 * 1024)} MB; raise --memory-mb"
        )
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _address_space_bytes() -> int | None:
    """This process's mapped address space (Linux), else ``None``."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


def main() -> None:
    """Entry of a worker process: ``python -c '...main()' <fd of the socket to the parent>``."""
    conn = Connection(int(sys.argv[1]))
    kind, settings = conn.recv()
    if kind != "init":
        raise SystemExit(f"assay worker: expected init, got {kind!r}")
    for entry in reversed(settings["sys_path"]):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    warm = settings.get("warm", [])
    board_fd = settings.get("board_fd")
    if board_fd is not None:
        blame.install_board(blame.PhaseBoard.attach(int(board_fd)))
    serve(conn, settings["specs"], settings["memory_mb"], settings["max_items"], warm)


def serve(
    conn: Connection,
    specs: dict[str, str],
    memory_mb: int,
    max_items: int,
    warm: list[str] | None = None,
) -> None:
    """Serve batches until told to stop, the pipe closes, or ``max_items`` are done.

    The verifiers of the ``warm`` domains are set up before the worker says hello (each
    announced by a ``("setup", -1, domain)`` message); one that fails to set up is left for
    its first item, whose verdict then reports the failure.
    """
    cap_memory(memory_mb)
    registry = worker_registry(specs)
    verifiers: dict[str, Verifier] = {}
    for domain in warm or ():
        conn.send(("setup", -1, domain))
        try:
            verifiers[domain] = registry.get(domain)
        except Exception:  # boundary: the item that needs it reports the failure as a verdict
            continue
    freeze_long_lived()
    conn.send(("hello", os.getpid()))
    done = 0
    while done < max_items:
        try:
            message: tuple[Any, ...] = conn.recv()
        except (EOFError, OSError):
            return
        if message[0] == "stop":
            return
        recycle = False
        _prefetch(verifiers, [record for _, record, _ in message[1]])
        for seq, record, limit_s in message[1]:
            verifier = verifiers.get(record.domain)
            if verifier is None:
                conn.send(("setup", seq, record.domain))
                try:
                    verifier = registry.get(record.domain)
                except Exception as exc:  # boundary: a verifier that cannot start is an error
                    conn.send(("result", seq, setup_failure(record, exc)))
                    done += 1
                    continue
                verifiers[record.domain] = verifier
                freeze_long_lived()
                conn.send(("ready", seq, record.domain))
            result = run_verifier(verifier, record, limit_s=limit_s, seq=seq)
            conn.send(("result", seq, result))
            done += 1
            message_text = result.verdict.message or ""
            recycle = recycle or MEMORY_MESSAGE in message_text
        if recycle:
            return


def freeze_long_lived() -> None:
    """Move what set-up left alive (modules, models, tables) out of the collector's view.

    A worker that set up torch, trimesh or a tokenizer holds hundreds of thousands of objects
    that live as long as it does; every full collection the items trigger would traverse them
    all again. Frozen, they are never collected (they never were garbage), and what items
    allocate is collected as before.
    """
    gc.collect()
    gc.freeze()


def _prefetch(verifiers: dict[str, Verifier], records: list[Record]) -> None:
    """Let each set-up verifier prepare what its items of this chunk share (``prefetch``).

    A chunk of one item has nothing to share. A failing ``prefetch`` changes nothing: its
    items are verified one by one as always.
    """
    if len(records) < 2:
        return
    by_domain: dict[str, list[Record]] = {}
    for record in records:
        by_domain.setdefault(record.domain, []).append(record)
    for domain, group in by_domain.items():
        verifier = verifiers.get(domain)
        if verifier is not None and len(group) > 1:
            try:
                verifier.prefetch(group)
            except Exception:  # boundary: a failed preparation only loses the shortcut
                continue


def worker_registry(specs: dict[str, str]) -> Registry:
    """The worker's verifiers by canonical name, each module imported at its domain's first item.

    The parent resolved every record's domain to its canonical name, so a worker that scores
    only code imports only the code verifier (importing every domain cost ~1 s per worker).
    """
    registry = Registry()
    for name, spec in specs.items():
        registry.register_lazy(name, spec)
    return registry


def setup_failure(record: Record, exc: BaseException) -> Result:
    """The result for an item whose verifier could not be set up in this worker."""
    message = f"verifier {record.domain!r} failed to set up: {type(exc).__name__}: {exc}"
    return Result(
        record.id, record.domain, Verdict.error(message), "", 0.0, record.group, record.meta
    )
