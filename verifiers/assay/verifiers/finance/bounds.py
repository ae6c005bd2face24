"""Bounds on what pdfminer does with a hostile PDF: reference chains, decoded stream sizes.

A PDF of a few hundred bytes can hold pdfminer forever or exhaust memory:

- an indirect object whose value is a reference to itself (``2 0 obj 2 0 R endobj``), or a
  cycle of them: ``pdfminer.pdftypes.resolve1`` follows references in a ``while`` loop and
  never ends (the catalog, the page tree, a page's ``/Contents``, ``/MediaBox`` or
  ``/Resources`` all go through it);
- a content stream that inflates to gigabytes (FlateDecode of zeros compresses about 1000:1;
  LZW and RunLength expand too), decoded whole into memory and then parsed.

:func:`install` (idempotent, called before every open) makes two changes, both inside
pdfminer/pdfplumber's own module namespaces, nothing else:

1. ``pdfplumber.pdf.PDFDocument`` becomes :class:`BoundedDocument`, whose ``getobj`` follows an
   object that is itself a reference to its end, at most :data:`MAX_REFERENCE_CHAIN` links,
   and raises ``PDFSyntaxError`` on a cycle: ``resolve1`` then always ends.
2. The Flate, LZW and RunLength decoders pdfminer's ``PDFStream.decode`` calls stop at
   :data:`MAX_DECODED_BYTES` per stream and raise :class:`StreamTooLarge`.

Page-tree size and a time budget between pages are checked in
:mod:`assay.verifiers.finance.document`.
"""

from __future__ import annotations

import zlib
from io import BytesIO
from typing import Any

__all__ = [
    "MAX_DECODED_BYTES",
    "MAX_REFERENCE_CHAIN",
    "BoundedDocument",
    "StreamTooLarge",
    "install",
]

MAX_REFERENCE_CHAIN = 32
"""Links followed from an object whose value is a reference (a real file needs one or two)."""
MAX_DECODED_BYTES = 32 * 1024 * 1024
"""Most bytes one stream may decode to (a statement page's content stream is a few KB)."""


class StreamTooLarge(Exception):  # noqa: N818 - pdfminer's errors are named the same way
    """A stream decodes to more than :data:`MAX_DECODED_BYTES`."""


def _check(size: int) -> None:
    if size > MAX_DECODED_BYTES:
        raise StreamTooLarge(f"a stream decodes to more than {MAX_DECODED_BYTES} bytes")


class _Inflater:
    """``zlib.decompressobj()`` with a running cap on its output."""

    def __init__(self) -> None:
        self._inner = zlib.decompressobj()
        self._size = 0

    def decompress(self, data: bytes, max_length: int = 0) -> bytes:
        out = self._inner.decompress(data, MAX_DECODED_BYTES + 1 - self._size)
        self._size += len(out)
        _check(self._size)
        return out

    def flush(self, length: int = zlib.DEF_BUF_SIZE) -> bytes:
        out = self._inner.flush(length)
        self._size += len(out)
        _check(self._size)
        return out


class _BoundedZlib:
    """What ``pdfminer.pdftypes`` uses of :mod:`zlib`, with decoded sizes capped."""

    error = zlib.error

    @staticmethod
    def decompress(data: bytes) -> bytes:
        inflater = zlib.decompressobj()
        out = inflater.decompress(data, MAX_DECODED_BYTES + 1)
        _check(len(out))
        if not inflater.eof:  # as zlib.decompress: pdfminer then tries its lenient decoder
            raise zlib.error("Error -5 while decompressing data: incomplete or truncated stream")
        return out

    @staticmethod
    def decompressobj() -> _Inflater:
        return _Inflater()


def bounded_lzwdecode(data: bytes) -> bytes:
    """pdfminer's LZW decoder, stopped at :data:`MAX_DECODED_BYTES`."""
    from pdfminer.lzw import LZWDecoder

    parts: list[bytes] = []
    size = 0
    for part in LZWDecoder(BytesIO(data)).run():
        size += len(part)
        _check(size)
        parts.append(part)
    return b"".join(parts)


def bounded_rldecode(data: bytes) -> bytes:
    """RunLengthDecode (PDF 1.7, 7.4.5), stopped at :data:`MAX_DECODED_BYTES`."""
    out = bytearray()
    position = 0
    while position < len(data):
        length = data[position]
        position += 1
        if length == 128:
            break
        if length < 128:
            out += data[position : position + length + 1]
            position += length + 1
        elif position < len(data):
            out += bytes([data[position]]) * (257 - length)
            position += 1
        _check(len(out))
    return bytes(out)


def _document_class() -> type[Any]:
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfparser import PDFSyntaxError
    from pdfminer.pdftypes import PDFObjRef

    class BoundedDocument(PDFDocument):
        """A ``PDFDocument`` whose objects never resolve in a cycle."""

        def getobj(self, objid: int) -> object:
            value = super().getobj(objid)
            seen = {objid}
            while isinstance(value, PDFObjRef):
                if value.objid in seen or len(seen) > MAX_REFERENCE_CHAIN:
                    raise PDFSyntaxError(f"object {objid} resolves in a cycle of references")
                seen.add(value.objid)
                value = super().getobj(value.objid)
            return value

    return BoundedDocument


BoundedDocument: type[Any] | None = None
"""The bounded ``PDFDocument`` class, once :func:`install` has run."""


def install() -> None:
    """Put the bounds in place in pdfplumber's and pdfminer's namespaces (idempotent)."""
    global BoundedDocument
    import pdfminer.pdftypes
    import pdfplumber.pdf

    if BoundedDocument is None:
        BoundedDocument = _document_class()
    replacements: list[tuple[object, str, object]] = [
        (pdfplumber.pdf, "PDFDocument", BoundedDocument),
        (pdfminer.pdftypes, "zlib", _BoundedZlib),
        (pdfminer.pdftypes, "lzwdecode", bounded_lzwdecode),
        (pdfminer.pdftypes, "rldecode", bounded_rldecode),
    ]
    for module, name, value in replacements:
        setattr(module, name, value)
