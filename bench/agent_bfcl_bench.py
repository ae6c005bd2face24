"""Agent: assay against BFCL's own AST checker on BFCL v4's single-turn categories.

Reads the question and possible-answer files that ``bfcl-eval`` ships (``pip install --no-deps
bfcl-eval==2026.3.23``), builds for every row the ground-truth answer and systematic
perturbations of it, and judges each with BFCL's checker (``ast_checker``; for irrelevance,
BFCL's rule: no decoded call, via its ``is_empty_output``) and with assay (the row as BFCL
writes it, ``result`` as Python-call text, through assay's record reader and the agent
verifier). Reports agreement per category and per perturbation, and lists every disagreement
grouped by its reason.

BFCL's checker module imports ``bfcl_eval.constants.model_config``, the registry of its model
handlers, which imports every provider SDK (anthropic, openai, cohere, boto3, google-genai,
mistralai, qwen-agent...). The checker only reads one flag from it (``underscore_to_dot``, for
function names with dots, which the OpenAI API cannot carry): this script registers that module
with one entry, ``assay``, whose flag is false (names are compared as BFCL writes them). The
checker's code runs unchanged.

Perturbations: ``ground_truth`` (the first allowed value of every argument, optional ones
included), ``ground_truth_json`` (the same as a JSON list of calls), ``omit_optional`` (every
argument that may be left out, left out), ``string_variant`` (a string argument upper-cased and
padded with spaces: both tolerate it), ``wrong_value``, ``wrong_type``, ``missing_arg`` (a
required argument dropped), ``extra_arg`` (an undeclared argument), ``missing_call``,
``extra_call``, ``duplicate_call``, ``wrong_function``. Irrelevance rows: ``no_call`` (prose),
``empty_list`` (``[]``), ``call`` (a call of the irrelevant function with schema-typed values).

Run: ``python bench/agent_bfcl_bench.py [--limit N] [--categories simple_python,...]``.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import sys
import types
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CATEGORIES = (
    "simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
    "live_irrelevance",
)  # fmt: skip
MODEL = "assay"


def data_dir() -> Path:
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or spec.origin is None:
        raise SystemExit("bfcl-eval is not installed: pip install --no-deps bfcl-eval==2026.3.23")
    return Path(spec.origin).parent / "data"


def load(category: str, limit: int | None = None) -> list[dict[str, Any]]:
    """Question rows joined by id with their possible answers (none for irrelevance)."""
    folder = data_dir()
    questions = _jsonl(folder / f"BFCL_v4_{category}.json", limit)
    answer_file = folder / "possible_answer" / f"BFCL_v4_{category}.json"
    if answer_file.exists():
        answers = {a["id"]: a for a in _jsonl(answer_file, None)}
        for row in questions:
            row["ground_truth"] = answers[row["id"]]["ground_truth"]
    return questions


def _jsonl(path: Path, limit: int | None) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                rows.append(json.loads(line))
            if limit is not None and len(rows) >= limit:
                break
    return rows


def bfcl_checker() -> tuple[Callable[..., dict[str, Any]], Any, Callable[[Any], bool]]:
    """BFCL's ``ast_checker``, ``Language`` and ``is_empty_output`` (see the module docstring)."""
    name = "bfcl_eval.constants.model_config"
    if name not in sys.modules:
        registry = types.ModuleType(name)
        registry.MODEL_CONFIG_MAPPING = {  # type: ignore[attr-defined]
            MODEL: types.SimpleNamespace(underscore_to_dot=False)
        }
        sys.modules[name] = registry
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
    from bfcl_eval.utils import is_empty_output

    return ast_checker, Language, is_empty_output


# --- answers and perturbations -------------------------------------------------------------


def _first(options: list[Any]) -> tuple[bool, Any]:
    for option in options:
        if option != "":
            return True, concrete(option)
    return False, None


def concrete(value: Any) -> Any:
    """A concrete value of a BFCL allowed value (nested objects map keys to allowed values)."""
    if isinstance(value, dict) and value and all(isinstance(v, list) for v in value.values()):
        out = {}
        for key, options in value.items():
            present, chosen = _first(options)
            if present:
                out[key] = chosen
        return out
    if isinstance(value, list):
        return [concrete(v) for v in value]
    return value


def gold_calls(truth: list[dict[str, Any]], keep_optional: bool = True) -> list[dict[str, Any]]:
    calls = []
    for entry in truth:
        ((name, args),) = entry.items()
        out = {}
        for arg, options in args.items():
            if not keep_optional and "" in options:
                continue
            present, chosen = _first(options)
            if present:
                out[arg] = chosen
        calls.append({name: out})
    return calls


def _wrong_value(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 7
    if isinstance(value, float):
        return value + 7.5
    if isinstance(value, str):
        return value + " zzz"
    if isinstance(value, list):
        return [*value, copy.deepcopy(value[0])] if value else ["zzz"]
    if isinstance(value, dict):
        return {**value, "zzz": 1}
    return "zzz"


def _wrong_type(value: Any) -> Any:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return 12345
    return json.dumps(value)


def _declared(row: dict[str, Any], name: str) -> dict[str, Any]:
    return next((f for f in row["function"] if f["name"] == name), {})


def _edit_first_arg(
    calls: list[dict[str, Any]], edit: Callable[[Any], Any], want: type | None = None
) -> list[dict[str, Any]] | None:
    out = copy.deepcopy(calls)
    for call in out:
        ((_, args),) = call.items()
        for arg, value in args.items():
            if want is None or isinstance(value, want):
                args[arg] = edit(value)
                return out
    return None


def perturbations(row: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """``(kind, calls)`` pairs; calls are a list of ``{name: args}``, or text for prose."""
    if "ground_truth" not in row:
        yield "no_call", "None of the available functions can do this."
        yield "empty_list", []
        if not row["function"]:
            return
        function = row["function"][0]
        props = function.get("parameters", {}).get("properties", {})
        samples = {"integer": 1, "float": 1.5, "number": 1.5, "boolean": True, "array": ["a"],
                   "dict": {"a": "b"}, "tuple": ["a"]}  # fmt: skip
        args = {k: samples.get(v.get("type"), "a") for k, v in props.items()}
        yield "call", [{function["name"]: args}]
        return
    gold = gold_calls(row["ground_truth"])
    yield "ground_truth", gold
    yield "ground_truth_json", ("json", gold)
    optional = gold_calls(row["ground_truth"], keep_optional=False)
    if optional != gold:
        yield "omit_optional", optional
    variant = _edit_first_arg(gold, lambda s: f"  {s.upper()} ", str)
    if variant is not None:
        yield "string_variant", variant
    wrong = _edit_first_arg(gold, _wrong_value)
    if wrong is not None:
        yield "wrong_value", wrong
    typed = _edit_first_arg(gold, _wrong_type)
    if typed is not None:
        yield "wrong_type", typed
    ((name, args),) = gold[0].items()
    required = _declared(row, name).get("parameters", {}).get("required", [])
    drop = next((a for a in required if a in args), None)
    if drop is not None:
        yield "missing_arg", [{name: {k: v for k, v in args.items() if k != drop}}, *gold[1:]]
    yield "extra_arg", [{name: {**args, "zz_unexpected": 1}}, *gold[1:]]
    yield "missing_call", gold[:-1]
    if wrong is not None:
        yield "extra_call", [*gold, wrong[0]]
    yield "duplicate_call", [*gold, copy.deepcopy(gold[0])]
    others = [f["name"] for f in row["function"] if f["name"] != name]
    yield "wrong_function", [{(others[0] if others else name + "_v2"): args}, *gold[1:]]


def python_text(calls: list[dict[str, Any]]) -> str:
    parts = []
    for call in calls:
        ((name, args),) = call.items()
        parts.append(f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})")
    return "[" + ", ".join(parts) + "]"


# --- the two judges -------------------------------------------------------------------------


@dataclass
class Judged:
    category: str
    row_id: str
    kind: str
    bfcl: bool
    assay: bool
    bfcl_why: str
    assay_status: str
    assay_why: str


def judge_all(categories: list[str], limit: int | None) -> list[Judged]:
    from assay.domains.agent.verifier import AgentVerifier

    from assay.boundary import run_verifier
    from assay.records import RawRow, RecordBuilder
    from assay.registry import Registry
    from assay.types import Record

    ast_checker, language, is_empty_output = bfcl_checker()
    verifier = AgentVerifier()
    registry = Registry()  # the agent verifier alone: the rows name no other domain
    registry.register(AgentVerifier)
    builder = RecordBuilder(registry)
    out: list[Judged] = []
    position = 0
    for category in categories:
        for row in load(category, limit):
            for kind, calls in perturbations(row):
                position += 1
                if isinstance(calls, tuple):  # ("json", calls): JSON list form
                    result, decoded = json.dumps(calls[1]), calls[1]
                elif isinstance(calls, str):
                    result, decoded = calls, None
                else:
                    result, decoded = python_text(calls), calls
                bfcl_ok, bfcl_why = _bfcl(
                    ast_checker,
                    language,
                    is_empty_output,
                    row,
                    category=category,
                    decoded=decoded,
                )
                line = {k: row[k] for k in ("question", "function", "ground_truth") if k in row}
                line.update(id=f"{row['id']}#{kind}", result=result)
                record = builder.build(RawRow(position, line))
                if not isinstance(record, Record):
                    status, why = record.status.value, record.verdict.message or ""
                else:
                    verdict = run_verifier(verifier, record).verdict
                    status, why = verdict.status.value, verdict.message or ""
                out.append(Judged(category, row["id"], kind, bfcl_ok, status == "correct",
                                  bfcl_why, status, why))  # fmt: skip
    return out


def _bfcl(
    ast_checker: Callable[..., dict[str, Any]], language: Any,
    is_empty_output: Callable[[Any], bool], row: dict[str, Any], *, category: str,
    decoded: list[dict[str, Any]] | None,
) -> tuple[bool, str]:  # fmt: skip
    if "ground_truth" not in row:  # irrelevance: correct when no call is decoded
        has_call = decoded is not None and not is_empty_output(decoded)
        return (not has_call), ("a call was decoded" if has_call else "")
    if decoded is None:
        return False, "no call decoded"
    checked = ast_checker(row["function"], decoded, row["ground_truth"], language.PYTHON,
                          category, MODEL)  # fmt: skip
    return bool(checked["valid"]), str(checked.get("error_type", ""))


def report(judged: list[Judged], examples: int = 1) -> dict[str, float]:
    by_category: dict[str, list[Judged]] = defaultdict(list)
    for item in judged:
        by_category[item.category].append(item)
    print(f"{'category':<24} {'items':>6} {'agree':>8}  bfcl-correct  assay-correct")
    agreement = {}
    for category, items in by_category.items():
        agree = sum(i.bfcl == i.assay for i in items)
        agreement[category] = agree / len(items)
        print(f"{category:<24} {len(items):>6} {agree / len(items):>8.4f}  "
              f"{sum(i.bfcl for i in items):>12}  {sum(i.assay for i in items):>13}")  # fmt: skip
    total = sum(i.bfcl == i.assay for i in judged)
    print(f"{'all':<24} {len(judged):>6} {total / max(len(judged), 1):>8.4f}")
    kinds: Counter[str] = Counter(i.kind for i in judged)
    kind_agree: Counter[str] = Counter(i.kind for i in judged if i.bfcl == i.assay)
    print("\nper perturbation: " + ", ".join(
        f"{k} {kind_agree[k]}/{n}" for k, n in sorted(kinds.items())))  # fmt: skip
    groups: dict[tuple[str, str, bool, str], list[Judged]] = defaultdict(list)
    for item in judged:
        if item.bfcl != item.assay:
            reason = item.assay_why.split(":")[0][:70] if not item.assay else item.bfcl_why
            groups[(item.category, item.kind, item.bfcl, reason)].append(item)
    causes: Counter[str] = Counter()
    for item in judged:
        if item.bfcl != item.assay:
            enum = "is not one of" in item.assay_why or "matches none of" in item.assay_why
            causes[f"{item.kind}: " + ("enum value not exact" if enum else "other")] += 1
    print(f"\ndisagreements: {sum(len(g) for g in groups.values())} "
          f"({', '.join(f'{k} x{n}' for k, n in sorted(causes.items())) or 'none'})")  # fmt: skip
    for (category, kind, bfcl_ok, reason), items in sorted(groups.items()):
        side = "BFCL correct, assay not" if bfcl_ok else "assay correct, BFCL not"
        print(f"  [{category} / {kind}] {side} x{len(items)}: {reason}")
        for item in items[:examples]:
            print(f"      e.g. {item.row_id}: assay {item.assay_status} ({item.assay_why[:160]}); "
                  f"bfcl {item.bfcl_why}")  # fmt: skip
    return agreement


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="rows per category")
    parser.add_argument("--categories", default=",".join(CATEGORIES))
    parser.add_argument("--examples", type=int, default=1)
    args = parser.parse_args()
    judged = judge_all(args.categories.split(","), args.limit)
    report(judged, args.examples)


if __name__ == "__main__":
    main()
