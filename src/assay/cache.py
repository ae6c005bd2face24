"""A verdict cache keyed on (verifier@version, domain, response, reference).

Rescoring identical work is free: the key changes when the verifier's version, the response or
the reference changes, and only then. ``timeout`` and ``error`` verdicts are not cached (they
describe a run, not the answer). Stored in SQLite (WAL), safe for one writer and many readers.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from assay.safejson import json_safe
from assay.types import JSON, Check, Record, StepResult, Verdict

_SCHEMA = "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, verdict TEXT NOT NULL)"


def cache_key(verifier_id: str, record: Record) -> str:
    """A stable digest of everything a verdict depends on."""
    reference = json.dumps(record.reference, sort_keys=True, ensure_ascii=False, default=str)
    digest = hashlib.sha256()
    for part in (verifier_id, record.domain, record.response, reference):
        digest.update(part.encode("utf-8", errors="surrogatepass"))
        digest.update(b"\x00")
    if record.steps:
        steps = json.dumps(record.steps, sort_keys=True, ensure_ascii=False, default=str)
        digest.update(steps.encode("utf-8", errors="surrogatepass"))
    return digest.hexdigest()


class VerdictCache:
    """Verdicts on disk under ``directory/verdicts.sqlite3``."""

    def __init__(self, directory: str | Path) -> None:
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path / "verdicts.sqlite3", check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)
        self._pending = 0
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> Verdict | None:
        row = self._db.execute("SELECT verdict FROM verdicts WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return _decode(json.loads(row[0]))

    def put(self, key: str, verdict: Verdict) -> None:
        if verdict.status.is_infrastructure:
            return
        self._db.execute(
            "INSERT OR REPLACE INTO verdicts (key, verdict) VALUES (?, ?)",
            (key, json.dumps(_encode(verdict), ensure_ascii=False, allow_nan=False)),
        )
        self._pending += 1
        if self._pending >= 256:
            self.flush()

    def flush(self) -> None:
        self._db.commit()
        self._pending = 0

    def close(self) -> None:
        self.flush()
        self._db.close()


def _encode(verdict: Verdict) -> dict[str, JSON]:
    """Plain JSON data (``to_dict`` cleans checks and steps), storable as SQLite text."""
    return {
        "status": verdict.status.value,
        "score": verdict.score,
        "checks": [c.to_dict() for c in verdict.checks],
        "steps": [s.to_dict() for s in verdict.steps],
        "message": json_safe(verdict.message),
    }


def _decode(data: dict[str, JSON]) -> Verdict:
    return Verdict(
        status=data["status"],
        score=float(data["score"]),
        checks=tuple(Check.from_dict(c) for c in data["checks"]),
        steps=tuple(StepResult.from_dict(s) for s in data["steps"]),
        message=data.get("message"),
    )
