"""Contest-set test fields read as they are: APPS, CodeContests, LiveCodeBench.

- APPS / TACO ``input_output``: an object or a JSON string ``{"inputs", "outputs", "fn_name"?}``
  (then read like the bare ``inputs``/``outputs`` form: stdio, or call-based with ``fn_name``).
- CodeContests ``public_tests`` / ``private_tests`` / ``generated_tests``:
  ``{"input": [...], "output": [...]}``, all stdio, concatenated in that order.
- LiveCodeBench ``public_test_cases`` / ``private_test_cases``: a list (or its JSON string)
  of ``{"input", "output", "testtype"}``; ``private_test_cases`` may be LiveCodeBench's
  compressed form (base64 of zlib of a pickled JSON string), read with an unpickler that
  builds nothing but strings. ``testtype`` ``"stdin"`` is a stdio case; ``"functional"`` is a
  call (each input line one JSON argument, the output JSON) of ``metadata.func_name``.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import pickle
import zlib
from collections.abc import Mapping
from typing import Any

from assay.errors import MalformedTaskError

CODECONTESTS = ("public_tests", "private_tests", "generated_tests")
LIVECODEBENCH = ("public_test_cases", "private_test_cases")
_MAX_DECOMPRESSED = 256 * 1024 * 1024


def from_contest_formats(reference: Mapping[str, Any], modes: tuple[str, ...]) -> Mapping[str, Any]:
    """``reference`` with any contest-set test fields turned into ``stdio`` / ``test_cases``."""
    if any(reference.get(m) not in (None, "", []) for m in modes):
        return reference
    if "input_output" in reference:
        return _apps(reference)
    if any(k in reference for k in CODECONTESTS):
        return _codecontests(reference)
    if any(k in reference for k in LIVECODEBENCH):
        return _livecodebench(reference)
    return reference


def _json(value: Any, key: str) -> Any:
    if isinstance(value, str | bytes):
        try:
            return json.loads(value)
        except (ValueError, RecursionError) as exc:
            raise MalformedTaskError(f"{key} is not valid JSON: {exc}") from None
    return value


def _apps(reference: Mapping[str, Any]) -> Mapping[str, Any]:
    value = _json(reference["input_output"], "input_output")
    if not isinstance(value, Mapping):
        raise MalformedTaskError("input_output must be an object {inputs, outputs, fn_name?}")
    rest = {k: v for k, v in reference.items() if k != "input_output"}
    return rest | {k: value[k] for k in ("inputs", "outputs", "fn_name") if k in value}


def _codecontests(reference: Mapping[str, Any]) -> Mapping[str, Any]:
    cases: list[dict[str, str]] = []
    for key in CODECONTESTS:
        block = reference.get(key)
        if block in (None, "", []):
            continue
        if not isinstance(block, Mapping):
            raise MalformedTaskError(f"{key} must be an object {{input: [...], output: [...]}}")
        inputs, outputs = block.get("input", []), block.get("output", [])
        if (not isinstance(inputs, list) or not isinstance(outputs, list)
                or len(inputs) != len(outputs)
                or not all(isinstance(x, str) for x in (*inputs, *outputs))):  # fmt: skip
            raise MalformedTaskError(f"{key}: input and output must be string lists of one length")
        cases += [{"stdin": i, "stdout": o} for i, o in zip(inputs, outputs, strict=True)]
    rest = {k: v for k, v in reference.items() if k not in CODECONTESTS}
    return rest | {"stdio": cases}


class _StringsOnly(pickle.Unpickler):
    """An unpickler that builds plain values only: any class or function is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise MalformedTaskError(f"private_test_cases pickles {module}.{name}: refused")


def _lcb_cases(value: Any, key: str) -> list[Any]:
    if isinstance(value, str) and value.strip() and value.strip()[0] not in "[{":
        try:
            raw = zlib.decompressobj().decompress(base64.b64decode(value), _MAX_DECOMPRESSED)
            value = _StringsOnly(io.BytesIO(raw)).load()
        except (binascii.Error, zlib.error, pickle.UnpicklingError, EOFError, ValueError) as exc:
            raise MalformedTaskError(f"{key} is neither JSON nor LiveCodeBench's compressed form: "
                                     f"{exc}") from None  # fmt: skip
    value = _json(value, key)
    if not isinstance(value, list) or not all(isinstance(c, Mapping) for c in value):
        raise MalformedTaskError(f"{key} must be a list of {{input, output, testtype}}")
    return value


def _livecodebench(reference: Mapping[str, Any]) -> Mapping[str, Any]:
    cases = [c for k in LIVECODEBENCH if reference.get(k) not in (None, "", [])
             for c in _lcb_cases(reference[k], k)]  # fmt: skip
    rest: dict[str, Any] = {k: v for k, v in reference.items() if k not in LIVECODEBENCH}
    kinds = {str(c.get("testtype", "stdin")) for c in cases}
    if kinds - {"stdin", "functional"} or len(kinds) > 1:
        raise MalformedTaskError(f"test cases mix or name unknown testtypes: {sorted(kinds)}")
    for case in cases:
        if not isinstance(case.get("input"), str) or not isinstance(case.get("output"), str):
            raise MalformedTaskError("every LiveCodeBench case needs string input and output")
    if kinds == {"functional"}:
        metadata = _json(reference.get("metadata") or {}, "metadata")
        name = metadata.get("func_name") if isinstance(metadata, Mapping) else None
        if not isinstance(name, str) or not name:
            raise MalformedTaskError("functional test cases need metadata.func_name")
        calls = []
        for case in cases:
            args = [_json(line, "input") for line in case["input"].splitlines() if line.strip()]
            calls.append({"args": args, "expected": _json(case["output"], "output")})
        return rest | {"entry_point": rest.get("entry_point") or name, "test_cases": calls}
    return rest | {"stdio": [{"stdin": c["input"], "stdout": c["output"]} for c in cases]}
