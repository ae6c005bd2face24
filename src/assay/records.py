"""Raw input rows to :class:`~assay.types.Record`, or to a typed verdict when the row is bad.

Accepts assay's own record shape, verl's parquet rows (``data_source``,
``reward_model.ground_truth``, ``extra_info``) and BFCL rows (a question row's ``question`` and
``function`` joined by id with the possible-answer row's ``ground_truth`` and a model's
``result``; domain ``agent`` unless the row names one, see docs/agent.md). Bad input is data:
every problem becomes a :class:`~assay.types.Result` with status ``error`` (the row cannot be
scored) or ``unparsable`` (the model's response cannot be read), carrying a message that says
what to fix.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assay.errors import UnknownDomainError
from assay.registry import Registry
from assay.safejson import MAX_DEPTH, clean_text, json_safe, nested_deeper_than
from assay.safejson import loads as json_loads
from assay.types import JSON, Record, Result, Verdict

DEFAULT_MAX_RESPONSE_CHARS = 1_000_000

_ID_IN_RAW_LINE = re.compile(r'"id"\s*:\s*"((?:[^"\\]|\\.){1,200})"')


@dataclass(frozen=True, slots=True)
class RawRow:
    """One row as read from the input, before validation.

    Attributes:
        position: 1-based line (JSONL) or row number (Parquet, datasets).
        data: The decoded row, or ``None`` when it could not be decoded.
        problem: Why it could not be decoded.
        raw_text: The undecodable line, to salvage an id from.
    """

    position: int
    data: Any = None
    problem: str | None = None
    raw_text: str | None = None


def fallback_id(row: RawRow) -> str:
    """An id for a row that names none: its salvaged ``"id"`` or ``line-<n>``."""
    if row.raw_text is not None:
        match = _ID_IN_RAW_LINE.search(row.raw_text)
        if match:
            return match.group(1)
    return f"line-{row.position}"


def bad_row(row_id: str, domain: str, message: str, *, unparsable: bool = False) -> Result:
    """A result for a row that cannot be scored."""
    verdict = Verdict.unparsable(message) if unparsable else Verdict.error(message)
    return Result(id=row_id, domain=domain, verdict=verdict, verifier="", elapsed_ms=0.0)


class RecordBuilder:
    """Validates raw rows against the contract (docs/formats.md).

    Args:
        registry: Resolves domains, aliases and verl ``data_source`` values.
        default_domain: Domain for rows that name none (the CLI's ``--domain``).
        max_response_chars: Longer responses are ``unparsable`` rather than verified.
    """

    def __init__(
        self,
        registry: Registry,
        default_domain: str | None = None,
        max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS,
    ) -> None:
        self.registry = registry
        self.default_domain = default_domain
        self.max_response_chars = max_response_chars
        self._seen: set[str] = set()

    def build(self, row: RawRow) -> Record | Result:
        """A record ready to verify, or the result that explains why it is not."""
        if row.data is None:
            return bad_row(fallback_id(row), "", f"line {row.position}: {row.problem}")
        if not isinstance(row.data, Mapping):
            kind = type(row.data).__name__
            return bad_row(
                fallback_id(row), "", f"row {row.position}: expected an object, got {kind}"
            )
        data: Mapping[str, Any] = _bfcl_row(row.data)
        row_id = clean_text(_row_id(data, row))
        if row_id in self._seen:
            return bad_row(row_id, str(data.get("domain") or ""), f"duplicate id {row_id!r}")
        self._seen.add(row_id)
        domain = self._domain(data)
        if isinstance(domain, Result):
            return _with_id(domain, row_id)
        meta = data.get("meta")
        meta = dict(meta) if isinstance(meta, Mapping) else {}
        if "extra_info" in data and isinstance(data["extra_info"], Mapping):
            meta.setdefault("extra_info", dict(data["extra_info"]))
        meta = json_safe(meta)  # passed through to the output: plain JSON data from here on
        group = data.get("group")
        if group is not None and not isinstance(group, str | int):
            return bad_row(row_id, domain, "field 'group' must be a string")
        reference = _reference(data)
        if reference is _MISSING:
            return bad_row(
                row_id,
                domain,
                "missing field 'reference' (or verl's reward_model.ground_truth)",
            )
        if nested_deeper_than(reference):
            return bad_row(
                row_id, domain, f"field 'reference' nests deeper than {MAX_DEPTH} levels"
            )
        response = _response(data)
        if response is _MISSING:
            return bad_row(row_id, domain, "missing field 'response'")
        if not isinstance(response, str):
            message = f"response must be a string, got {type(response).__name__}"
            return _with_meta(bad_row(row_id, domain, message, unparsable=True), group, meta)
        if len(response) > self.max_response_chars:
            message = (
                f"response is {len(response):,} characters, over the limit of "
                f"{self.max_response_chars:,}"
            )
            return _with_meta(bad_row(row_id, domain, message, unparsable=True), group, meta)
        steps = data.get("steps") or ()
        if not isinstance(steps, list | tuple) or not all(isinstance(s, Mapping) for s in steps):
            return bad_row(row_id, domain, "field 'steps' must be a list of chat messages")
        if nested_deeper_than(steps):  # the trajectory is the model's output: its fault
            message = f"field 'steps' nests deeper than {MAX_DEPTH} levels"
            return _with_meta(bad_row(row_id, domain, message, unparsable=True), group, meta)
        return Record(
            id=row_id,
            domain=domain,
            response=clean_text(response),
            reference=reference,
            group=None if group is None else clean_text(str(group)),
            prompt=json_safe(data.get("prompt")),
            steps=tuple(dict(s) for s in steps),
            meta=meta,
        )

    def _domain(self, data: Mapping[str, Any]) -> str | Result:
        named = data.get("domain") or data.get("data_source") or self.default_domain
        if not named:
            known = ", ".join(self.registry.names())
            return bad_row(
                "", "", f"missing field 'domain' (or verl's data_source); known: {known}"
            )
        if not isinstance(named, str):
            return bad_row("", "", "field 'domain' must be a string")
        try:
            return self.registry.resolve(named)
        except UnknownDomainError as exc:
            return bad_row("", named, str(exc))


def _bfcl_row(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """A BFCL row (``function`` + ``result``, no ``reference``/``response``) in record shape."""
    if "function" not in data or "result" not in data or "reference" in data:
        return data
    if any(key in data for key in ("response", "solution_str", "completion")):
        return data
    reference: dict[str, Any] = {"function": data["function"]}
    if "ground_truth" in data:
        reference["ground_truth"] = data["ground_truth"]
    if isinstance(data.get("id"), str):
        reference["bfcl_id"] = data["id"]
    result = data["result"]
    if not isinstance(result, str):  # BFCL score files hold decoded results: a list of calls
        try:
            result = json.dumps(result)
        except (TypeError, ValueError):
            result = repr(result)
    row = {k: v for k, v in data.items() if k not in ("function", "ground_truth", "result")}
    row.update(reference=reference, response=result)
    row.setdefault("domain", "agent")
    if "question" in data and "prompt" not in data:
        row["prompt"] = data["question"]
    return row


class _Missing:
    pass


_MISSING: Any = _Missing()


def _row_id(data: Mapping[str, Any], row: RawRow) -> str:
    value = data.get("id")
    if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
        return str(value)
    extra = data.get("extra_info")
    if isinstance(extra, Mapping) and isinstance(extra.get("index"), str | int):
        split = extra.get("split")
        prefix = f"{split}-" if isinstance(split, str) else ""
        return f"{prefix}{extra['index']}"
    return fallback_id(row)


def _reference(data: Mapping[str, Any]) -> JSON:
    if "reference" in data and data["reference"] is not None:
        reference = data["reference"]
        return _maybe_json(reference) if isinstance(reference, str) else reference
    reward_model = data.get("reward_model")
    if isinstance(reward_model, Mapping) and "ground_truth" in reward_model:
        truth = reward_model["ground_truth"]
        if isinstance(truth, str):
            return _maybe_json(truth)
        return truth
    if "ground_truth" in data:
        return data["ground_truth"]
    return _MISSING


def _maybe_json(text: str) -> JSON:
    """Decode a JSON object stored as a string (verl's code ground truth, Parquet columns)."""
    stripped = text.strip()
    if stripped.startswith("{") and stripped.endswith("}"):
        try:
            return json_loads(stripped)
        except ValueError:  # not JSON, or nested too deeply to parse: the text as it is
            return text
    return text


def _response(data: Mapping[str, Any]) -> Any:
    for key in ("response", "solution_str", "completion"):
        if key in data:
            return data[key]
    return _MISSING


def _with_id(result: Result, row_id: str) -> Result:
    return Result(row_id, result.domain, result.verdict, result.verifier, result.elapsed_ms)


def _with_meta(result: Result, group: Any, meta: dict[str, JSON]) -> Result:
    return Result(
        result.id,
        result.domain,
        result.verdict,
        result.verifier,
        result.elapsed_ms,
        None if group is None else str(group),
        meta,
    )
