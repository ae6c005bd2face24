"""Terminal output: a progress line with rate and ETA, and the end-of-run summary table."""

from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TextIO

from assay.types import Result, Status

STATUS_ORDER = [s.value for s in Status]


class Progress:
    """A single self-rewriting line on a terminal: done/total, rate, ETA."""

    def __init__(self, total: int | None, stream: TextIO = sys.stderr, enabled: bool = True):
        self.total = total
        self.stream = stream
        self.enabled = enabled
        self.done = 0
        self._start = time.monotonic()
        self._last = 0.0

    def update(self, count: int = 1) -> None:
        self.done += count
        now = time.monotonic()
        if self.enabled and now - self._last >= 0.2:
            self._last = now
            self._draw(now)

    def close(self) -> None:
        if self.enabled:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, now: float) -> None:
        elapsed = max(now - self._start, 1e-9)
        rate = self.done / elapsed
        if self.total:
            left = max(self.total - self.done, 0)
            eta = _clock(left / rate) if rate > 0 else "--:--"
            width = 24
            filled = int(width * min(self.done / self.total, 1.0))
            bar = "#" * filled + "." * (width - filled)
            text = f"[{bar}] {self.done}/{self.total} {rate:7.1f} it/s ETA {eta}"
        else:
            text = f"{self.done} scored {rate:7.1f} it/s elapsed {_clock(elapsed)}"
        self.stream.write("\r" + text)
        self.stream.flush()


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:d}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


@dataclass
class Summary:
    """Per-domain counts, mean score and status counts of a run."""

    counts: Counter[str] = field(default_factory=Counter)
    score_sums: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    statuses: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))

    def add(self, result: Result) -> None:
        domain = result.domain or "?"
        self.counts[domain] += 1
        self.score_sums[domain] += result.score
        self.statuses[domain][result.status.value] += 1

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def status_total(self, status: str) -> int:
        return sum(c[status] for c in self.statuses.values())

    def table(self) -> str:
        header = ["domain", "count", "mean score", *STATUS_ORDER]
        rows = []
        for domain in sorted(self.counts):
            n = self.counts[domain]
            rows.append(
                [domain, str(n), f"{self.score_sums[domain] / n:.3f}"]
                + [str(self.statuses[domain][s]) for s in STATUS_ORDER]
            )
        if len(rows) > 1:
            n = self.total
            mean = sum(self.score_sums.values()) / n
            rows.append(
                ["all", str(n), f"{mean:.3f}"] + [str(self.status_total(s)) for s in STATUS_ORDER]
            )
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        lines = [
            "  ".join(
                cell.ljust(w) if i == 0 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            )
            for row in [header, *rows]
        ]
        rule = "-" * len(lines[0])
        return "\n".join([lines[0], rule, *lines[1:]])
