"""Terminal output: a progress line with rate and ETA, and the end-of-run summary table."""

from __future__ import annotations

import difflib
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from assay.records import RESPONSE_KEYS, RawRow
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
    errors: Counter[str] = field(default_factory=Counter)

    def add(self, result: Result) -> None:
        domain = result.domain or "?"
        self.counts[domain] += 1
        self.score_sums[domain] += result.score
        self.statuses[domain][result.status.value] += 1
        if result.status is Status.ERROR:
            self.errors[_error_kind(result.verdict.message or "")] += 1

    def top_errors(self, n: int) -> list[tuple[str, int]]:
        """The ``n`` most frequent error messages (line numbers left out) with their counts."""
        return self.errors.most_common(n)

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


_POSITION = re.compile(r"^(line|row) \d+: ")
_MISSING_FIELD = re.compile(r"^missing field '([^']+)'")


def _error_kind(message: str) -> str:
    """An error message without the line it was about, so equal causes count together."""
    return _POSITION.sub("", message)[:300]


_ANSWERISH = ("respon", "complet", "answer", "output", "generat", "pred", "text", "solution")
_REFERENCEISH = ("ground_truth", "answer", "solution", "gold", "target", "label", "expected",
                 "truth", "test")  # fmt: skip
"""Parts of the names of the columns sets keep their references in (``final_answer``,
``expected_answer``, ``test_list``)."""
FIELD_OPTIONS = {
    "response": "--response-field",
    "reference": "--reference-field",
    "id": "--id-field",
}
"""The option that names each field a record needs."""


class ColumnCounter:
    """Passes rows through, counting the top-level columns they have (for "did you mean")."""

    def __init__(self, rows: Iterable[RawRow], most: int = 200) -> None:
        self._rows = rows
        self._most = most
        self.columns: Counter[str] = Counter()
        self.paths: Counter[str] = Counter()
        """Dotted paths into nested columns (``data.ans``), for a dotted field that is missing."""
        self.texts: Counter[str] = Counter()
        """The columns and paths whose value is text (what a response can be read from)."""
        self.objects: set[str] = set()
        """The columns and paths whose value is an object (a struct column)."""

    def __iter__(self) -> Iterator[RawRow]:
        for row in self._rows:
            if isinstance(row.data, Mapping):
                self._count(row.data, "", 2)
            yield row

    def _count(self, data: Mapping[Any, Any], prefix: str, depth: int) -> None:
        """Count the keys of ``data`` (columns at the top, dotted paths below), ``depth`` down."""
        counter = self.paths if prefix else self.columns
        for key, value in data.items():
            if not isinstance(key, str):
                continue
            name = prefix + key
            if name in counter or len(counter) < self._most:
                counter[name] += 1
                if isinstance(value, str) and (name in self.texts or len(self.texts) < self._most):
                    self.texts[name] += 1
                if isinstance(value, Mapping):
                    self.objects.add(name)
            if depth and isinstance(value, Mapping):
                self._count(value, name + ".", depth - 1)

    def _text_under(self, name: str) -> list[str]:
        """``name`` if it holds text, else the text paths inside it (``output`` -> ``output.text``),
        most frequent first: a response field must name text, not an object."""
        if name in self.texts or name not in self.objects:
            return [name]
        inside = [p for p in self.texts if p.startswith(name + ".")]
        return sorted(inside, key=lambda p: -self.texts[p])

    def hint(self, summary: Summary) -> str | None:
        """For a field missing from every record: the columns that are there, nearest first."""
        for message, count in summary.top_errors(3):
            match = _MISSING_FIELD.match(message)
            if match is None or count < summary.total:
                continue
            missing = match.group(1)
            names = sorted(self.columns, key=lambda k: -self.columns[k])
            close = []
            if "." in missing:  # a path into a nested column: the paths that are there first
                paths = sorted(self.paths, key=lambda k: -self.paths[k])
                close = difflib.get_close_matches(missing, paths, n=3, cutoff=0.4)
            close += difflib.get_close_matches(missing, names, n=3, cutoff=0.4)
            if missing == "response":
                close += [n for n in names if n in RESPONSE_KEYS or any(w in n for w in _ANSWERISH)]
                close = [t for n in close for t in self._text_under(n)]
            if missing == "reference":  # a set's own answer column first, never the response
                close = [n for n in names if any(w in n.lower() for w in _REFERENCEISH)] + close
                close = [n for n in close if n not in RESPONSE_KEYS]
            close = list(dict.fromkeys(close))
            option = FIELD_OPTIONS.get(missing) or next(
                (o for o in FIELD_OPTIONS.values() if o in message), None
            )
            there = ", ".join(names[:20]) or "none"
            guess = f" Did you mean {option} {close[0]}?" if close and option else ""
            return f"assay: field {missing!r} is missing in every record.{guess} Columns: {there}"
        return None
