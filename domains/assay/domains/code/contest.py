"""Contest-set test fields read as they are: APPS and CodeContests.

- APPS / TACO ``input_output``: an object or a JSON string ``{"inputs", "outputs", "fn_name"?}``
  (then read like the bare ``inputs``/``outputs`` form: stdio, or call-based with ``fn_name``).
- CodeContests ``public_tests`` / ``private_tests`` / ``generated_tests``:
  ``{"input": [...], "output": [...]}``, all stdio, concatenated in that order, compared as
  DeepMind's harness compares (``stdout_match`` ``codecontests``).

LiveCodeBench's ``public_test_cases`` / ``private_test_cases`` are read earlier, by
:func:`assay.domains.code.formats.from_native` (one reader of them, for every language).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from assay.errors import MalformedTaskError

CODECONTESTS = ("public_tests", "private_tests", "generated_tests")
LIVECODEBENCH = ("public_test_cases", "private_test_cases")


def from_contest_formats(reference: Mapping[str, Any], modes: tuple[str, ...]) -> Mapping[str, Any]:
    """``reference`` with any contest-set test fields turned into ``stdio`` / ``test_cases``."""
    if any(reference.get(m) not in (None, "", []) for m in modes):
        return reference
    if "input_output" in reference:
        return _apps(reference)
    if any(k in reference for k in CODECONTESTS):
        return _codecontests(reference)
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
    if rest.get("stdout_match") is None:  # DeepMind's harness: words, case, numbers within 1e-5
        rest["stdout_match"] = "codecontests"
    return rest | {"stdio": cases}
