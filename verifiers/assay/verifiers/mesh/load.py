"""Reading a mesh out of a model's response: inline text, base64, a data-root path, or code.

:func:`parse_response` decides what the response holds without loading anything heavy;
:func:`decode_mesh` turns mesh bytes into a :class:`trimesh.Trimesh` *without* processing it
(no vertex merging, no NaN removal), so that validity checks see the file as written.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import trimesh

__all__ = [
    "FORMATS",
    "MeshLoadError",
    "MeshSource",
    "decode_mesh",
    "parse_response",
    "resolve_under",
]

FORMATS = ("obj", "stl", "ply", "off", "glb")
"""File types a response may hold (``glb`` and binary STL/PLY come base64-encoded)."""

_FENCE = re.compile(r"```([^\n`]*)\n(.*?)(?:```|\Z)", re.DOTALL)
"""A fence: its info string (no backtick, as in CommonMark) and its body. No two quantifiers
compete for the same characters, so a hostile response cannot make the scan quadratic."""
_LANG = re.compile(r"[ \t]*([A-Za-z0-9_+-]*)")
_CODE_LANGS = {"python", "py", "python3"}
_B64 = re.compile(r"[A-Za-z0-9+/=\s]+")
_PATH_MAX = 4096
_IMPORTS = re.compile(r"^[ \t]*(?:import|from)[ \t]+(?:trimesh|manifold3d|numpy)\b", re.MULTILINE)
"""An import at the start of a line. Blanks are spaces and tabs, not any whitespace: a
whitespace run after ``^`` would rescan every following blank line from each line start
(quadratic on a response of newlines)."""


class MeshLoadError(ValueError):
    """Bytes that do not decode to a triangle mesh (the answer is unparsable)."""


@dataclass(frozen=True, slots=True)
class MeshSource:
    """What a response holds.

    Attributes:
        kind: ``mesh`` (``data`` + ``file_type``), ``program`` (``code``) or ``path``.
        file_type: One of :data:`FORMATS` for ``mesh`` and ``path``.
        data: The mesh file's bytes.
        code: Python source that writes the mesh.
        path: The path as written in the response.
        encoding: ``text``, ``base64`` or ``file``: how the mesh came.
    """

    kind: Literal["mesh", "program", "path"]
    file_type: str = ""
    data: bytes = b""
    code: str = ""
    path: str = ""
    encoding: str = "text"


def parse_response(text: str) -> MeshSource | None:
    """Find the mesh (or the program) in a response; ``None`` when there is none.

    The last fenced block wins (its language tag names the format: ``obj``, ``stl``, ``ply``,
    ``off``, ``python``, ``base64``/``glb``), leaving out blocks tagged as a shell session or
    prose (``bash``, ``console``, ``text``...: how to run or view it, not the answer);
    without a fence the whole text is read.
    """
    blocks = _FENCE.findall(text)
    if blocks:
        tagged = []
        for info, body in blocks:
            language = _LANG.match(info)
            tagged.append((language.group(1).lower() if language else "", body))
        answers = [(lang, body) for lang, body in tagged if lang not in _NOT_ANSWERS] or tagged
        lang, body = answers[-1]
        return _classify(body, lang)
    return _classify(text, "")


_NOT_ANSWERS = frozenset(
    ("bash", "sh", "shell", "zsh", "console", "shell-session", "text", "plaintext", "txt",
     "markdown", "md", "output")
)  # fmt: skip


def _classify(body: str, lang: str) -> MeshSource | None:
    stripped = body.strip()
    if not stripped:
        return None
    if lang in _CODE_LANGS or (lang == "" and _IMPORTS.search(stripped)):
        return MeshSource("program", code=body)
    if lang in FORMATS and lang != "glb":
        return MeshSource("mesh", lang, stripped.encode("utf-8"))
    sniffed = sniff_text(stripped)
    if sniffed is not None:
        return MeshSource("mesh", sniffed, stripped.encode("utf-8"))
    if len(stripped) <= _PATH_MAX and "\n" not in stripped and _suffix(stripped) in FORMATS:
        return MeshSource("path", _suffix(stripped), path=stripped)
    return _from_base64(stripped)


def _suffix(path: str) -> str:
    return Path(path).suffix.lower().lstrip(".")


def sniff_text(text: str) -> str | None:
    """The format of a text mesh from its first lines, or ``None``."""
    head = text.lstrip()[:512]
    first = head.split(None, 1)[0].lower() if head.split() else ""
    if first == "solid" and "facet" in text[:4096]:
        return "stl"
    if first == "ply":
        return "ply"
    if first in ("off", "coff", "noff"):
        return "off"
    if re.search(r"^v\s", text, re.MULTILINE) and re.search(r"^f\s", text, re.MULTILINE):
        return "obj"
    return None


def _from_base64(text: str) -> MeshSource | None:
    if not _B64.fullmatch(text):
        return None
    try:
        data = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        return None
    file_type = sniff_bytes(data)
    return None if file_type is None else MeshSource("mesh", file_type, data, encoding="base64")


def sniff_bytes(data: bytes) -> str | None:
    """The format of mesh bytes (GLB, PLY, binary or ASCII STL, OFF, OBJ), or ``None``."""
    if data[:4] == b"glTF":
        return "glb"
    if data[:3] == b"ply":
        return "ply"
    if len(data) >= 84:
        (count,) = struct.unpack("<I", data[80:84])
        if len(data) == 84 + 50 * count:
            return "stl"
    try:
        return sniff_text(data[:65536].decode("utf-8"))
    except UnicodeDecodeError:
        return None


def decode_mesh(data: bytes, file_type: str) -> trimesh.Trimesh:
    """Load mesh bytes as they are (no merging, no cleaning).

    Raises:
        MeshLoadError: the bytes are not a mesh of that type, or hold no triangles.
    """
    if file_type not in FORMATS:
        raise MeshLoadError(f"unknown mesh format {file_type!r}; expected one of {FORMATS}")
    try:
        loaded = trimesh.load(
            io.BytesIO(data), file_type=file_type, process=False, force="mesh", maintain_order=True
        )
    except Exception as exc:  # trimesh raises anything from a bad file: it is model output
        raise MeshLoadError(f"cannot read {file_type}: {type(exc).__name__}: {exc}") from None
    if not isinstance(loaded, trimesh.Trimesh) or len(loaded.faces) == 0:
        raise MeshLoadError(f"the {file_type} data holds no triangles")
    vertices = np.asarray(loaded.vertices, dtype=np.float64)
    faces = np.asarray(loaded.faces, dtype=np.int64)
    if faces.min() < 0 or faces.max() >= len(vertices):
        raise MeshLoadError("a face refers to a vertex that does not exist")
    return trimesh.Trimesh(vertices, faces, process=False, validate=False)


def resolve_under(path: str, roots: list[Path]) -> Path | None:
    """``path`` resolved, if it is a file under one of ``roots`` (symlinks followed first).

    A path the OS cannot even look up (a NUL byte, a name over 255 bytes) is no file: ``None``.
    """
    candidate = Path(path)
    options = [candidate] if candidate.is_absolute() else [root / candidate for root in roots]
    for option in options:
        try:
            resolved = option.resolve()
            if resolved.is_file() and any(resolved.is_relative_to(r.resolve()) for r in roots):
                return resolved
        except (OSError, ValueError):
            continue
    return None
