"""Re-run a recorded code verdict: ``python -m assay.domains.code.replay FILE [FILE ...]``.

Each FILE is a replay record written under ``ASSAY_REPLAY_DIR``. The record's response and
reference are verified again with the installed verifier; the command prints the recorded and
the new status and score, and exits 1 when any of them differ.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from assay.domains.code.verifier import CodeVerifier

from assay.boundary import run_verifier
from assay.types import Record


def replay(path: Path, verifier: CodeVerifier) -> bool:
    """Verify the recorded item again; True when status and score are the same."""
    saved = json.loads(path.read_text(encoding="utf-8"))
    item = saved["record"]
    steps = tuple(item.get("steps") or ())  # a terminal task's trajectory, a command history
    record = Record(str(item["id"]), "code", item["response"], item["reference"], steps=steps)
    result = run_verifier(verifier, record)
    before = saved["verdict"]
    same = bool(before["status"] == result.status.value and before["score"] == result.score)
    print(
        f"{path.name}: recorded {before['status']} {before['score']:.3f} ({saved['verifier']}), "
        f"now {result.status.value} {result.score:.3f} ({result.verifier})"
        + ("" if same else "  <- differs")
    )
    return same


def main(argv: list[str] | None = None) -> int:
    paths = [Path(p) for p in (sys.argv[1:] if argv is None else argv)]
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    verifier = CodeVerifier()
    verifier.setup()
    results = [replay(path, verifier) for path in paths]
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
