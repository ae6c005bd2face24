"""Reading rows (JSONL, Parquet, Hugging Face datasets) and writing results (JSONL, Parquet).

Readers never raise for a bad row: an undecodable line (not UTF-8, not JSON, nested too deeply
to parse) becomes a :class:`RawRow` with a ``problem``, so the batch goes on and the line still
appears in the output. Writers never raise for a bad value: every result is written through
:meth:`~assay.types.Result.to_dict`, whose values are plain JSON data (:mod:`assay.safejson`), as
UTF-8 bytes, so every output line is valid UTF-8 JSON whatever a response or a verifier put in it.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Protocol, TextIO

from assay import safejson
from assay.errors import InputError
from assay.records import RawRow
from assay.types import JSON, Result

PARQUET_SUFFIXES = (".parquet", ".pq")
_JSON_COLUMNS = ("checks", "steps", "meta")


def read_rows(source: str | Path | Any, split: str | None = None) -> Iterator[RawRow]:
    """Rows from a JSONL file, a Parquet file, a saved dataset directory or a ``Dataset``.

    Raises:
        InputError: The source itself cannot be opened (missing file, unknown format).
    """
    if not isinstance(source, str | Path):
        return _dataset_rows(source, split)
    path = Path(source)
    if str(source) == "-":
        return _jsonl_lines(_stdin_lines())
    if path.is_dir():
        return _dataset_rows(_load_dataset_dir(path), split)
    if not path.exists():
        raise InputError(f"input {str(path)!r} does not exist")
    if path.suffix.lower() in PARQUET_SUFFIXES:
        return _parquet_rows(path)
    inner = _inner_suffix(path)
    if inner in TABLE_SUFFIXES:
        return _table_rows(path, "\t" if inner == ".tsv" else ",")
    if inner == ".json":
        return _json_rows(path)
    return _jsonl_lines(_file_lines(path))


TABLE_SUFFIXES = (".csv", ".tsv")
_COMPRESSED = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "lzma"}
_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")


def _inner_suffix(path: Path) -> str:
    """The format suffix of ``data.csv.gz`` (``.csv``), or of ``data.csv``."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSED_SUFFIXES:
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def _open_input(path: Path) -> BinaryIO:
    """The file's bytes, decompressed when it is gzip, bzip2 or xz (by its first bytes).

    Raises:
        InputError: It cannot be opened.
    """
    try:
        handle = path.open("rb")
        head = handle.peek(8)[:8] if hasattr(handle, "peek") else b""
    except OSError as exc:
        raise InputError(f"cannot read {str(path)!r}: {exc.strerror}") from exc
    for magic, module in _COMPRESSED.items():
        if head.startswith(magic):
            import importlib

            opener: Any = importlib.import_module(module)
            stream: BinaryIO = opener.open(handle, "rb")
            return stream
    return handle


def _stdin_lines() -> Iterator[bytes]:
    import sys

    yield from sys.stdin.buffer


def _file_lines(path: Path) -> Iterator[bytes]:
    handle = _open_input(path)
    with handle:
        try:
            yield from handle
        except (OSError, EOFError) as exc:  # a cut or corrupt compressed file
            raise InputError(f"cannot read {str(path)!r}: {exc}") from exc


def _json_rows(path: Path) -> Iterator[RawRow]:
    """A ``.json`` file: a JSON list of records (SWE-bench's ``predictions.json``), else JSON
    lines (what many ``.json`` datasets hold, and what a one-object file is)."""
    handle = _open_input(path)
    with handle:
        try:
            data = handle.read()
        except (OSError, EOFError) as exc:
            raise InputError(f"cannot read {str(path)!r}: {exc}") from exc
    if data.lstrip()[:1] == b"[":
        try:
            rows = safejson.loads_rows(data.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            rows = None  # not one list: read as lines, each line's problem its own verdict
        if isinstance(rows, list):
            return (RawRow(number, data=row) for number, row in enumerate(rows, start=1))
    return _jsonl_lines(data.splitlines(keepends=True))


def _table_rows(path: Path, delimiter: str) -> Iterator[RawRow]:
    """CSV / TSV with a header line: one record per row, every value a string; an empty
    cell is a field the row does not have (as an Arrow null is)."""
    import csv
    import io

    csv.field_size_limit(64 * 1024 * 1024)
    handle = _open_input(path)
    with handle:
        text = io.TextIOWrapper(handle, encoding="utf-8-sig", errors="strict", newline="")
        reader = csv.DictReader(text, delimiter=delimiter)
        number = 0
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except UnicodeDecodeError as exc:
                raise InputError(f"cannot read {str(path)!r}: not UTF-8 ({exc.reason})") from exc
            except csv.Error as exc:
                number += 1
                yield RawRow(number, problem=f"malformed {path.suffix} row: {exc}")
                continue
            number += 1
            extra = row.pop(None, None)
            if extra:
                yield RawRow(number, problem=f"{len(extra)} more cells than the header names")
                continue
            yield RawRow(number, data={k: v for k, v in row.items() if k and v not in ("", None)})


def _jsonl_lines(lines: Iterable[bytes]) -> Iterator[RawRow]:
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue  # blank lines hold no record
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield RawRow(
                number,
                problem=f"not UTF-8 ({exc.reason} at byte {exc.start})",
                raw_text=raw.decode("utf-8", errors="replace"),
            )
            continue
        try:
            yield RawRow(number, data=safejson.loads_rows(text))
        except ValueError as exc:
            yield RawRow(number, problem=f"malformed JSON: {exc}", raw_text=text[:10_000])


def _parquet_rows(path: Path) -> Iterator[RawRow]:
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises many types; the file as a whole is unreadable
        raise InputError(f"cannot read Parquet file {str(path)!r}: {exc}") from exc
    number = 0
    for batch in parquet.iter_batches(batch_size=1024):
        for row in batch.to_pylist():
            number += 1
            yield RawRow(number, data=without_nulls(row))


def _load_dataset_dir(path: Path) -> Any:
    try:
        import datasets
    except ImportError as exc:
        raise InputError("reading a saved dataset needs the 'datasets' package") from exc
    try:
        return datasets.load_from_disk(str(path))
    except Exception as exc:  # not a saved dataset: say so with the path
        raise InputError(f"{str(path)!r} is not a saved Hugging Face dataset: {exc}") from exc


def _dataset_rows(dataset: Any, split: str | None) -> Iterator[RawRow]:
    if isinstance(dataset, dict):
        splits = list(dataset.keys())
        if split is None and len(splits) == 1:
            split = splits[0]
        if split is None:
            raise InputError(f"choose a split with --split; the dataset has {', '.join(splits)}")
        if split not in splits:
            raise InputError(f"the dataset has no split {split!r}; it has {', '.join(splits)}")
        dataset = dataset[split]
    if not hasattr(dataset, "column_names"):
        raise InputError(f"cannot read rows from {type(dataset).__name__}")
    for number, row in enumerate(dataset, start=1):
        yield RawRow(number, data=without_nulls(row))


def without_nulls(row: Any, depth: int = 0) -> Any:
    """An Arrow row without the nulls Arrow leaves for the fields a row does not have.

    Parquet and datasets give every row every column, and every object in a struct column
    every key any row's object has: a column another row has is ``None`` here and counts as
    absent (a null ``response`` is a missing response, not an empty one), and so is a null
    inside a stored object (a tool call's ``arguments`` gain each argument name the other
    calls use, a chat message every key of every other message). List items are kept where
    they are, nulls included. A real null inside an object survives only in a column stored
    as a JSON string (as verl stores code ground truth).

    numpy values (what pandas and batches built from it hold: an ``int64`` answer, an object
    array of answers, a ``str_``) become the Python values they hold, as Arrow's own rows are.
    """
    if depth > safejson.MAX_DEPTH:  # left as it is: the record's depth check refuses it
        return row
    if type(row).__module__ == "numpy" and hasattr(row, "tolist"):
        row = row.tolist()  # an array gives a list (its objects as they are), a scalar its value
    if isinstance(row, dict):
        return {k: without_nulls(v, depth + 1) for k, v in row.items() if v is not None}
    if isinstance(row, list):
        return [without_nulls(v, depth + 1) for v in row]
    return row


class ResultWriter(Protocol):
    def write(self, result: Result) -> None: ...

    def close(self) -> None: ...


def result_line(result: Result) -> bytes:
    """One output line: the result's JSON as UTF-8 bytes, newline included."""
    text = json.dumps(result.to_dict(), ensure_ascii=False, allow_nan=False)
    return text.encode("utf-8") + b"\n"


class JsonlWriter:
    """Appends one JSON line per result, flushed so a killed run can be resumed.

    Lines are written as UTF-8 bytes whatever the encoding of ``sys.stdout``.
    """

    def __init__(self, path: str | Path | None, append: bool = False) -> None:
        import sys

        self._own = path is not None and str(path) != "-"
        self._handle: BinaryIO | _TextSink
        if self._own:
            self._handle = Path(str(path)).open("ab" if append else "wb")  # noqa: SIM115
        elif hasattr(sys.stdout, "buffer"):
            sys.stdout.flush()  # text already printed goes before the first line
            self._handle = sys.stdout.buffer
        else:  # a text stream without bytes underneath (io.StringIO)
            self._handle = _TextSink(sys.stdout)
        self._pending = 0

    def write(self, result: Result) -> None:
        self._handle.write(result_line(result))
        self._pending += 1
        if self._pending >= 64:
            self._handle.flush()
            self._pending = 0

    def close(self) -> None:
        self._handle.flush()
        if self._own:
            if stat.S_ISREG(os.fstat(self._handle.fileno()).st_mode):  # not /dev/null, a FIFO
                os.fsync(self._handle.fileno())
            self._handle.close()


class _TextSink:
    """Bytes written to a text stream that has no binary buffer."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, data: bytes) -> None:
        self._stream.write(data.decode("utf-8"))

    def flush(self) -> None:
        self._stream.flush()

    def fileno(self) -> int:
        return self._stream.fileno()

    def close(self) -> None:  # the stream is not ours: flushed, left open
        self._stream.flush()


class ParquetWriter:
    """Collects results and writes one Parquet file; nested fields are JSON strings."""

    def __init__(self, path: str | Path, keep: list[dict[str, JSON]] | None = None) -> None:
        self._path = Path(path)
        self._rows: list[dict[str, JSON]] = list(keep or [])

    def write(self, result: Result) -> None:
        row = result.to_dict()  # plain JSON data: pyarrow and json.dumps both take it
        for key in _JSON_COLUMNS:
            row[key] = json.dumps(row.get(key), ensure_ascii=False, allow_nan=False)
        row.setdefault("group", None)
        self._rows.append(row)

    def close(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(self._rows), self._path)


def is_parquet(path: str | Path) -> bool:
    return Path(str(path)).suffix.lower() in PARQUET_SUFFIXES


def read_results(path: str | Path) -> list[dict[str, JSON]]:
    """Rows already in an output file (for ``--resume``); a torn last JSONL line is dropped."""
    target = Path(str(path))
    if not target.exists():
        return []
    if is_parquet(target):
        import pyarrow.parquet as pq

        rows: list[dict[str, JSON]] = pq.read_table(target).to_pylist()
        return rows
    out: list[dict[str, JSON]] = []
    with target.open("rb") as handle:
        for raw in handle:
            try:
                row = safejson.loads(raw)
            except ValueError:
                continue  # the torn line of a killed run: it is scored again
            if isinstance(row, dict) and "id" in row:
                out.append(row)
    return out


def truncate_torn_tail(path: str | Path) -> None:
    """Cut a JSONL file after its last newline, so appending does not glue onto a torn line."""
    target = Path(str(path))
    if not target.exists() or is_parquet(target):
        return
    data = target.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        with target.open("r+b") as handle:
            handle.truncate(cut)


def open_writer(path: str | Path | None, resume: bool) -> tuple[ResultWriter, set[str]]:
    """A writer for ``path`` and the ids it already holds (when resuming)."""
    done: set[str] = set()
    if path is None or str(path) == "-":
        return JsonlWriter(None), done
    if resume:
        existing = read_results(path)
        done = {str(row["id"]) for row in existing}
        if is_parquet(path):
            return ParquetWriter(path, keep=existing), done
        truncate_torn_tail(path)
        return JsonlWriter(path, append=True), done
    if is_parquet(path):
        return ParquetWriter(path), done
    return JsonlWriter(path), done
