"""Running a non-Python solution's test units: stdio cases for every language, and
function-call cases for JavaScript, each a command in the sandbox on the item's one budget.

The compile step (:func:`assay.domains.code.languages.compile_source`) has run before; its
artifacts are the run's files. Nothing expected is ever inside the sandbox: a program's stdout,
or the value a JavaScript call returned (written by a trusted driver to a result file), is
compared here. Exit codes and anything printed besides decide nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from assay.domains.code.languages import (
    Language,
    artifact_files,
    run_argv,
    run_limits,
    source_name,
)
from assay.domains.code.modes import (
    Run,
    _output_tails,
    _short,
    _stdio_unit,
    program_fault,
    returns_expected,
)
from assay.verifiers.code.compare import REL_TOL
from assay.verifiers.code.units import Unit
from assay.verifiers.sandbox import CommandOutcome, ProgramStatus

IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
RESULT_FILE = ".assay-result.json"
CASE_FILE = ".assay-case.json"
DRIVER_FILE = ".assay-call.js"
_DEFAULT_OUTPUT = 64 * 1024

_MEMORY_SIGNS = (
    "std::bad_alloc", "memory allocation of", "fatal error: runtime: out of memory",
    "java.lang.OutOfMemoryError", "JavaScript heap out of memory", "Cannot allocate memory",
    "Fatal process out of memory", "Fatal process OOM", "xrealloc: cannot allocate",
    "xmalloc: cannot allocate", ": memory exhausted",
)  # fmt: skip
"""What each runtime prints when an allocation fails at the address-space limit."""
_PROCESS_SIGNS = (
    "fork: Resource temporarily unavailable", "fork: retry: Resource temporarily unavailable",
    "failed to create new OS thread", "unable to create native thread",
    "Resource temporarily unavailable (os error 11)", "pthread_create failed", "newosproc",
)  # fmt: skip
"""What each runtime prints when ``fork`` or a thread start fails on the process limit."""

DRIVER = r"""'use strict';
// Trusted: loads the solution, calls one function with one case's arguments, writes the
// result (or the exception) as JSON to the result file. Bound before candidate code runs.
const fs = require('fs'), path = require('path'), Module = require('module');
const [, , source, casePath, resultPath, name] = process.argv;
const writeFile = fs.writeFileSync, stringify = JSON.stringify, exit = process.exit;
const spec = JSON.parse(fs.readFileSync(casePath, 'utf8'));
function report(outcome) {
  let text;
  try { text = stringify(outcome); } catch (e) { text = '{"status":"unencodable"}'; }
  if (text === undefined) text = '{"status":"unencodable"}';
  writeFile(resultPath, text);
}
function failed(e) {
  const named = e && e.constructor && typeof e.constructor.name === 'string';
  const type = named ? e.constructor.name : typeof e;
  const message = e && e.message !== undefined ? e.message : e;
  report({status: 'exception', type: String(type), message: String(message)});
}
(async () => {
  const file = path.resolve(source);
  const mod = new Module(file, null);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  const code = fs.readFileSync(file, 'utf8') + `\n;try { if (typeof ${name} === 'function'` +
    ` && typeof module.exports.${name} !== 'function') module.exports.${name} = ${name};` +
    ` } catch (e) {}\n`;
  let fn;
  try {
    mod._compile(code, file);
    const exported = mod.exports;
    fn = (exported && typeof exported[name] === 'function') ? exported[name]
       : (typeof exported === 'function' ? exported : undefined);
  } catch (e) { failed(e); return; }
  if (typeof fn !== 'function') { report({status: 'missing'}); return; }
  try {
    let value = fn(...spec.args);
    if (value && typeof value.then === 'function') value = await value;
    report({status: 'ok', value: value === undefined ? null : value});
  } catch (e) { failed(e); }
})().catch(failed);
"""


def fault_of(outcome: CommandOutcome, output_is_answer: bool = True) -> tuple[str, str] | None:
    """The limit a run exceeded, as (cause, message): the sandbox's view, then the runtime's."""
    fault = program_fault(outcome, output_is_answer)
    if fault is not None:
        return fault
    if outcome.status in (ProgramStatus.OK, ProgramStatus.CRASHED):
        return None
    text = outcome.stderr
    tail = text if len(text) <= 8000 else text[:4000] + text[-4000:]  # Go's dump ends in registers
    if any(sign in tail for sign in _PROCESS_SIGNS):  # before memory: Java's says OutOfMemory
        return "processes", "exceeded the process limit (fork or thread start failed)"
    if any(sign in tail for sign in _MEMORY_SIGNS):
        return "memory", "exceeded the memory limit (an allocation failed)"
    return None


def _files(language: Language, code: str, artifacts: Mapping[str, bytes]) -> dict[str, bytes]:
    files = artifact_files(artifacts)
    if not language.compiled:
        files[source_name(language, code)] = code.encode("utf-8", "surrogatepass")
    return files


def run_stdio(
    run: Run, language: Language, code: str, artifacts: Mapping[str, bytes]
) -> list[Unit]:
    """One command per stdio case: the program's stdout against the expected text."""
    task = run.task
    files = _files(language, code, artifacts)
    argv = run_argv(language, code, task.memory_mb)
    units = []
    for index, case in enumerate(task.spec):
        name = f"case[{index}]"
        expected = len(case["stdout"].encode("utf-8", "surrogatepass"))
        base = run.limits(output_bytes=2 * expected + 4096) if run.fault is None else None
        if base is None:
            units.append(run.not_run(name))
            continue
        limits = run_limits(language, base.timeout_s, base.memory_mb, base.max_output_bytes)
        outcome = run.pool.run_command(
            argv, files=files, limits=limits, stdin=case.get("stdin", "")
        )
        fault = fault_of(outcome)
        if fault is not None:
            run.blame(*fault, unit=name)
        units.append(_stdio_unit(index, outcome, case["stdout"], task))
    return units


def run_calls(
    run: Run, language: Language, code: str, artifacts: Mapping[str, bytes]
) -> list[Unit]:
    """JavaScript function-call cases: one command per case, the value compared here."""
    task = run.task
    entry = task.entry_point or ""
    rel_tol = task.float_tolerance or REL_TOL
    files = _files(language, code, artifacts)
    source = source_name(language, code)
    units = []
    for index, case in enumerate(task.spec):
        name = f"case[{index}]"
        base = run.limits() if run.fault is None else None
        if base is None:
            units.append(run.not_run(name))
            continue
        limits = run_limits(language, base.timeout_s, base.memory_mb, _DEFAULT_OUTPUT)
        spec = json.dumps({"args": list(case.get("args", []))})
        argv = ["/usr/bin/node", f"--max-old-space-size={task.memory_mb}", DRIVER_FILE, source,
                CASE_FILE, RESULT_FILE, entry]  # fmt: skip
        outcome = run.pool.run_command(
            argv,
            files=files,
            readonly_files={DRIVER_FILE: DRIVER, CASE_FILE: spec},
            limits=limits,
            collect=[RESULT_FILE],
        )
        fault = fault_of(outcome, output_is_answer=False)
        if fault is not None:
            run.blame(*fault, unit=name)
        units.append(_call_unit(index, outcome, case, rel_tol, task.value_match))
    return units


def _call_unit(
    index: int, outcome: CommandOutcome, case: Mapping[str, Any], rel_tol: float, match: str
) -> Unit:
    usage = outcome.usage
    expected = case["expected"]
    raw = outcome.collected.get(RESULT_FILE)
    result: Any = None
    if raw is not None and RESULT_FILE not in outcome.collected_truncated:
        try:
            result = json.loads(raw.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            result = None
    status = result.get("status") if isinstance(result, dict) else None
    if status == "ok" and isinstance(result, dict):
        passed = returns_expected(result.get("value"), case, rel_tol, match)
        message = (
            "" if passed else f"returned {_short(result.get('value'))}, expected {_short(expected)}"
        )
    elif status == "exception" and isinstance(result, dict):
        passed = False
        message = f"raised {str(result.get('type'))[:80]}: {str(result.get('message'))[:200]}"
    elif status == "missing":
        passed, message = False, "the solution defines no such function"
    elif status == "unencodable":
        passed, message = False, "returned a value JSON cannot hold"
    else:
        passed = False
        message = (
            f"{outcome.status.value} (exit {outcome.exit_code}, signal {outcome.signal}): no result"
        )
    return Unit(
        f"case[{index}]", passed, message, usage.wall_s, usage.cpu_s, usage.peak_rss_bytes,
        evidence=_output_tails(outcome.stdout, outcome.stderr),
    )  # fmt: skip
