"""PDF documents read with pdfplumber: size and page caps, typed failures, a per-process cache.

A :class:`DocumentCache` opens each document once per process (keyed by its resolved path, size
and modification time, so an edited file is read again) and extracts a page's text, tables and
figures the first time a page is asked for. A batch of 1,000 questions over one filing thus
parses the file once and each cited page once. Worker processes each hold their own cache
(:func:`default_cache` notices a fork and starts empty).

Any failure to read a file is a :class:`DocumentError` with a :class:`Problem`: missing, empty,
too large (bytes, pages, a stream that inflates past its cap), too costly (its pages took more
than the document's time budget), encrypted, corrupt (references in a cycle included).
Callers turn it into a verdict; it is never a crash, and never a worker held for the item's
whole limit: a hostile file of a few hundred bytes is refused in well under a second
(:mod:`assay.verifiers.finance.bounds` bounds pdfminer's reference chains and decoded stream
sizes; the page tree is walked, bounded, before pdfplumber builds a page; extraction time is
checked between pages).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from assay.verifiers.finance.bounds import StreamTooLarge
from assay.verifiers.finance.bounds import install as install_bounds
from assay.verifiers.finance.pages import PageContent, read_page

from assay.errors import VerifierError

if TYPE_CHECKING:
    from pdfplumber.pdf import PDF


class Problem(StrEnum):
    """Why a document cannot be used."""

    MISSING = "missing"
    EMPTY = "empty"
    TOO_LARGE = "too_large"
    TOO_MANY_PAGES = "too_many_pages"
    TOO_COSTLY = "too_costly"
    ENCRYPTED = "encrypted"
    CORRUPT = "corrupt"


class DocumentError(VerifierError):
    """A document that cannot be read; ``problem`` says why."""

    def __init__(self, problem: Problem, path: Path, detail: str) -> None:
        super().__init__(f"{problem.value} document {path.name}: {detail}")
        self.problem = problem
        self.path = path
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps on what is opened.

    Attributes:
        max_bytes: File size.
        max_pages: Pages (the page tree is walked before any page is built).
        max_tree_nodes: Nodes of the page tree visited, repeats included (a ``/Kids`` list
            naming one page 200,000 times is refused here).
        max_seconds: Time spent extracting a document's pages, checked before each new
            page: an honest page takes well under a second.
    """

    max_bytes: int = 64 * 1024 * 1024
    max_pages: int = 1000
    max_tree_nodes: int = 4000
    max_seconds: float = 30.0


@dataclass(slots=True)
class CacheStats:
    """What a cache did: documents opened, cache hits, pages extracted."""

    opened: int = 0
    hits: int = 0
    pages_read: int = 0


class Document:
    """One open PDF; pages are extracted on first use and kept.

    Not for direct construction: use :meth:`DocumentCache.open`.
    """

    def __init__(
        self, path: Path, pdf: PDF, page_count: int, stats: CacheStats, limits: Limits
    ) -> None:
        self.path = path
        self.page_count = page_count
        self._pdf = pdf
        self._pages: dict[int, PageContent] = {}
        self._stats = stats
        self._limits = limits
        self._spent = 0.0
        self._failure: DocumentError | None = None
        self._lock = threading.Lock()

    def page(self, number: int) -> PageContent | None:
        """The content of page ``number`` (1-based), or ``None`` when there is no such page.

        Raises:
            DocumentError: the page's content cannot be parsed (``corrupt``), a stream on it
                inflates past its cap (``too_large``), or the document's pages have taken
                more than ``max_seconds`` (``too_costly``; the document stays refused).
        """
        if not 1 <= number <= self.page_count:
            return None
        with self._lock:
            content = self._pages.get(number)
            if content is None:
                if self._failure is not None:
                    raise self._failure
                if self._spent > self._limits.max_seconds:
                    self._failure = DocumentError(
                        Problem.TOO_COSTLY,
                        self.path,
                        f"its pages took {self._spent:.1f} s to read, over the budget of "
                        f"{self._limits.max_seconds} s",
                    )
                    raise self._failure
                start = time.perf_counter()
                try:
                    content = read_page(self._pdf.pages[number - 1], number)
                except StreamTooLarge as exc:
                    raise DocumentError(
                        Problem.TOO_LARGE, self.path, f"page {number}: {exc}"
                    ) from exc
                except Exception as exc:  # pdfminer raises many types on a damaged stream
                    cause = _cause(exc)
                    if isinstance(cause, StreamTooLarge):
                        raise DocumentError(
                            Problem.TOO_LARGE, self.path, f"page {number}: {cause}"
                        ) from exc
                    raise DocumentError(
                        Problem.CORRUPT, self.path, f"page {number}: {type(exc).__name__}: {exc}"
                    ) from exc
                finally:
                    self._spent += time.perf_counter() - start
                self._pages[number] = content
                self._stats.pages_read += 1
            return content

    def close(self) -> None:
        _close(self._pdf)


def _cause(exc: BaseException) -> BaseException:
    """The error pdfplumber wrapped (``PdfminerException(original)``), else ``exc``."""
    inner = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else exc
    return inner.__cause__ if isinstance(inner.__cause__, StreamTooLarge) else inner


def _close(pdf: PDF) -> None:
    """Close the file only: ``PDF.close`` builds every page first (a hostile page tree again)."""
    pdf.stream.close()


def _open_pdf(path: Path, limits: Limits, stats: CacheStats) -> Document:
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect

    try:
        size = path.stat().st_size
    except OSError as exc:
        raise DocumentError(Problem.MISSING, path, exc.strerror or str(exc)) from exc
    if not path.is_file():
        raise DocumentError(Problem.MISSING, path, "not a regular file")
    if size == 0:
        raise DocumentError(Problem.EMPTY, path, "the file has no bytes")
    if size > limits.max_bytes:
        raise DocumentError(
            Problem.TOO_LARGE, path, f"{size} bytes is over the cap of {limits.max_bytes}"
        )
    install_bounds()
    try:
        pdf = pdfplumber.open(path)
    except Exception as exc:  # pdfplumber wraps pdfminer's errors; a hostile file raises others
        cause = _cause(exc)
        if isinstance(cause, PDFPasswordIncorrect | PDFEncryptionError):
            raise DocumentError(Problem.ENCRYPTED, path, "password-protected") from exc
        if isinstance(cause, StreamTooLarge):
            raise DocumentError(Problem.TOO_LARGE, path, str(cause)) from exc
        raise DocumentError(Problem.CORRUPT, path, f"{type(cause).__name__}: {cause}") from exc
    try:
        count = _page_count(pdf, path, limits)
    except DocumentError:
        _close(pdf)
        raise
    except Exception as exc:  # a damaged page tree
        _close(pdf)
        cause = _cause(exc)
        if isinstance(cause, StreamTooLarge):
            raise DocumentError(Problem.TOO_LARGE, path, str(cause)) from exc
        raise DocumentError(Problem.CORRUPT, path, f"{type(cause).__name__}: {cause}") from exc
    if count == 0:
        _close(pdf)
        raise DocumentError(Problem.EMPTY, path, "the document has no pages")
    stats.opened += 1
    return Document(path, pdf, count, stats, limits)


def _page_count(pdf: PDF, path: Path, limits: Limits) -> int:
    """The page count, refusing a document over the cap before its pages are built."""
    from pdfminer.pdftypes import resolve1

    root = resolve1(pdf.doc.catalog.get("Pages"))
    _walk_page_tree(root, path, limits)
    declared = resolve1(root.get("Count")) if isinstance(root, dict) else None
    if isinstance(declared, int) and declared > limits.max_pages:
        raise DocumentError(
            Problem.TOO_MANY_PAGES,
            path,
            f"{declared} pages is over the cap of {limits.max_pages}",
        )
    count = len(pdf.pages)
    if count > limits.max_pages:
        raise DocumentError(
            Problem.TOO_MANY_PAGES,
            path,
            f"{count} pages is over the cap of {limits.max_pages}",
        )
    return count


def _walk_page_tree(root: object, path: Path, limits: Limits) -> None:
    """Visit the page tree (each ``/Kids`` entry, repeats included) and refuse one with more
    than ``max_tree_nodes`` entries or ``max_pages`` leaves, before pdfminer walks it."""
    from pdfminer.pdftypes import PDFObjRef, resolve1

    stack: list[object] = [root]
    visited: set[int] = set()
    entries = 0
    leaves = 0
    while stack:
        node = stack.pop()
        if isinstance(node, PDFObjRef):
            if node.objid in visited:
                continue
            visited.add(node.objid)
        value = resolve1(node)
        if not isinstance(value, dict):
            continue
        kids = resolve1(value.get("Kids"))
        if not isinstance(kids, list):
            leaves += 1
            continue
        entries += len(kids)
        if entries > limits.max_tree_nodes or leaves > limits.max_pages:
            raise DocumentError(
                Problem.TOO_MANY_PAGES,
                path,
                f"the page tree has over {limits.max_tree_nodes} entries "
                f"(or {limits.max_pages} pages)",
            )
        stack.extend(reversed(kids))


@dataclass(slots=True)
class DocumentCache:
    """Open documents of one process, least recently used first out.

    Attributes:
        capacity: Documents kept open (at least one).
        limits: Size and page caps.
        stats: Counters (documents opened, hits, pages read).
    """

    capacity: int = 8
    limits: Limits = field(default_factory=Limits)
    stats: CacheStats = field(default_factory=CacheStats)
    _entries: OrderedDict[tuple[str, int, int], Document | DocumentError] = field(
        default_factory=OrderedDict
    )
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def open(self, path: Path) -> Document:
        """The document at ``path``, opened once per (path, size, mtime).

        Raises:
            DocumentError: the file is missing, empty, too large, encrypted or corrupt.
        """
        resolved = path.resolve()
        try:
            info = resolved.stat()
        except OSError as exc:
            raise DocumentError(Problem.MISSING, resolved, exc.strerror or str(exc)) from exc
        key = (str(resolved), info.st_size, info.st_mtime_ns)
        with self._lock:
            cached = self._entries.get(key)
            if cached is not None:
                self._entries.move_to_end(key)
                self.stats.hits += 1
            else:
                try:
                    cached = _open_pdf(resolved, self.limits, self.stats)
                except DocumentError as exc:
                    cached = exc
                self._store(key, cached)
        if isinstance(cached, DocumentError):
            raise cached
        return cached

    def _store(self, key: tuple[str, int, int], entry: Document | DocumentError) -> None:
        self._entries[key] = entry
        while len(self._entries) > max(self.capacity, 1):
            _, evicted = self._entries.popitem(last=False)
            if isinstance(evicted, Document):
                evicted.close()

    def clear(self) -> None:
        """Close and forget every document."""
        with self._lock:
            for entry in self._entries.values():
                if isinstance(entry, Document):
                    entry.close()
            self._entries.clear()


_default: DocumentCache | None = None
_default_pid = -1
_default_lock = threading.Lock()


def default_cache() -> DocumentCache:
    """The cache of this process (a forked child gets a fresh one, not its parent's handles)."""
    global _default, _default_pid
    with _default_lock:
        if _default is None or _default_pid != os.getpid():
            _default = DocumentCache()
            _default_pid = os.getpid()
        return _default
