"""Attacks on the trusted/untrusted boundary of the function-call modes, as a policy would try.

The candidate's process answers requests; the trusted process runs the tests. A hostile
candidate tries to (1) make the trusted side's predicates (``in``, truth, ordering, hashing,
protocol probes) answer in its favour, (2) forge a handle out of plain data, (3) speak the
sandbox protocol itself (frames on its control socket, patched serving code), (4) make
decoding what it sends cost without bound. Every attack must earn what an honest wrong answer
earns: a failed test (``False``, an exception, a ``crashed`` call), never a pass, never a
``timeout``, and the next session must be clean.
"""

from __future__ import annotations

import math
import operator
import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from assay.verifiers.code.remote import CallLog, CandidateFailure, RemoteFunction, RemoteModule
from assay.verifiers.sandbox import CallStatus, Limits, SandboxPool, decode, encode
from assay.verifiers.sandbox._inside import codec
from sandbox_helpers import FAST, call

P = 2**61 - 1  # CPython hashes ints modulo this prime: k * P all hash to 0

CHILD = "next(m for n, m in __import__('sys').modules.items() if n.endswith('inside.child'))"
"""How candidate code reaches the serving code that shares its process."""
CODEC = "next(m for n, m in __import__('sys').modules.items() if n.endswith('inside.codec'))"


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    """Two workers: a test may hold one session open while it opens another."""
    with SandboxPool(size=2, limits=FAST) as shared:
        yield shared


@contextmanager
def module(pool: SandboxPool, source: str) -> Iterator[tuple[RemoteModule, CallLog]]:
    """The candidate as pytest-mode tests see it: ``solution`` bound to a stand-in module."""
    with pool.call_session({}, source) as session:
        log = CallLog()
        yield RemoteModule("solution", session, log), log


def _still_clean(pool: SandboxPool) -> None:
    """The next session of the pool answers honestly: nothing the attack did survived."""
    outcome = call(pool, "def attack():\n    return 41 + 1\n")
    assert outcome.status is CallStatus.OK and outcome.value == 42, outcome


# -- 1. predicates the trusted side evaluates are never the candidate's ----------------------

LIAR = """
class Liar:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __lt__(self, other): return True
    def __le__(self, other): return True
    def __gt__(self, other): return True
    def __ge__(self, other): return True
    def __bool__(self): return True
    def __len__(self): return 3
    def __contains__(self, item): return True
    def __iter__(self): return iter([])
    def __hash__(self): return 0
    def __float__(self): return 0.5
    def __index__(self): return 3
    def __getattr__(self, name): return True  # answers every probe a library makes
    def __format__(self, spec): return "needle"

def make():
    return Liar()
"""


def _raises(expression: Callable[[Any], object]) -> Callable[[Any], bool]:
    def attempt(obj: Any) -> bool:
        try:
            expression(obj)
        except (TypeError, ValueError, AttributeError, CandidateFailure):
            return True
        return False

    return attempt


PREDICATES: list[tuple[str, Callable[[Any], object], object]] = [
    # (what a test evaluates, the trusted result an honest wrong answer such as [] gets)
    ("in", lambda o: "needle" in o, False),
    ("in-number", lambda o: 42 in o, False),
    ("not-in", lambda o: "needle" not in o, True),
    ("eq", lambda o: o == "needle", False),
    ("eq-reflected", lambda o: [1, 2] == o, False),  # noqa: SIM300
    ("eq-dict-reflected", lambda o: {"a": 1} == o, False),  # noqa: SIM300
    ("ne", lambda o: o != "needle", True),
    ("in-list-of-expected", lambda o: o in ["needle", 42], False),
    ("list-count", [1, 2].count, 0),
    ("is-true", lambda o: o is True, False),
    ("bool", _raises(bool), True),
    ("not", _raises(operator.not_), True),
    ("and", _raises(lambda o: o and 1), True),
    ("if", _raises(lambda o: 1 if o else 0), True),
    ("all", _raises(lambda o: all([o])), True),
    ("any", _raises(lambda o: any([o])), True),
    ("filter", _raises(lambda o: list(filter(None, [o]))), True),
    ("lt", _raises(lambda o: o < 1), True),
    ("gt-reflected", _raises(lambda o: 1 > o), True),  # noqa: SIM300
    ("ge", _raises(lambda o: o >= 0), True),
    ("le-str", _raises(lambda o: o <= "z"), True),
    ("sorted", _raises(lambda o: sorted([o, o])), True),
    ("max", _raises(lambda o: max(o, 1)), True),
    ("min-list", _raises(lambda o: min([1, o])), True),
    ("float", _raises(float), True),
    ("int", _raises(int), True),
    ("index", _raises(operator.index), True),
    ("isclose", _raises(lambda o: math.isclose(o, 0.5)), True),
    ("abs", _raises(abs), True),
    ("sub", _raises(lambda o: o - 0.5), True),
    ("neg", _raises(operator.neg), True),
    ("round", _raises(round), True),
    ("format-spec", _raises(lambda o: format(o, ">10")), True),
    ("list-index", _raises([1, 2].index), True),
    ("probe-array", lambda o: getattr(o, "__array__", None), None),
    ("probe-dataclass", lambda o: getattr(o, "__dataclass_fields__", None), None),
    ("probe-wrapped", lambda o: hasattr(o, "__wrapped__"), False),
    ("probe-dict", lambda o: hasattr(o, "__dict__"), False),
    ("probe-len-dunder", lambda o: hasattr(o, "__length_hint__"), False),
    ("iter-items", list, []),
    ("set-of-two", lambda o: len({o, o}), 1),
]


@pytest.fixture
def liar(pool: SandboxPool) -> Iterator[tuple[RemoteModule, CallLog]]:
    with module(pool, LIAR) as found:
        yield found


@pytest.mark.parametrize(
    ("expression", "honest"), [(e, h) for _, e, h in PREDICATES], ids=[n for n, _, _ in PREDICATES]
)
def test_candidate_objects_do_not_decide_predicates(
    liar: tuple[RemoteModule, CallLog], expression: Callable[[Any], object], honest: object
) -> None:
    solution, _ = liar
    obj = solution.make()
    assert expression(obj) == honest


@pytest.mark.parametrize(
    "probe",
    [
        hash,
        lambda o: {o: 1},
        lambda o: getattr(o, "__array__", None),
        lambda o: getattr(o, "__array_interface__", None),
        lambda o: getattr(o, "__dataclass_fields__", None),
        lambda o: getattr(o, "__attrs_attrs__", None),
        lambda o: hasattr(o, "__wrapped__"),
        lambda o: o == 1,
        lambda o: o != 1,
        lambda o: o is None,
    ],
    ids=["hash", "dict-key", "array", "array-interface", "dataclass", "attrs", "wrapped",
         "eq", "ne", "is"],
)  # fmt: skip
def test_trusted_side_decisions_never_reach_the_candidate(
    liar: tuple[RemoteModule, CallLog], probe: Callable[[Any], object]
) -> None:
    solution, log = liar
    obj = solution.make()
    before = len(log.outcomes)
    probe(obj)
    assert len(log.outcomes) == before  # decided here: no request was made


def test_membership_looks_at_the_items_not_at_the_candidates_answer(pool: SandboxPool) -> None:
    source = (
        "class Bag:\n"
        "    def __iter__(self): return iter(['a', 'b'])\n"
        "    def __contains__(self, item): return True\n"
        "def make():\n    return Bag()\n"
    )
    with module(pool, source) as (solution, _):
        bag = solution.make()
        assert "a" in bag and "b" in bag  # honest membership still works on the items
        assert "needle" not in bag  # the candidate's yes is not asked for


def test_endless_iteration_fails_membership_instead_of_passing(pool: SandboxPool) -> None:
    source = (
        "import itertools\n"
        "class Endless:\n"
        "    def __iter__(self): return itertools.count()\n"
        "    def __contains__(self, item): return True\n"
        "def make():\n    return Endless()\n"
    )
    with module(pool, source) as (solution, _):
        obj = solution.make()
        with pytest.raises(CandidateFailure):
            _ = -1 in obj
    _still_clean(pool)


PATCHED_SERVING = [
    # the candidate rewrites what the serving code answers for the operations a proxy asks
    ("iter-gives-text", "_OPS['iter'] = lambda obj: 'needle'", lambda o: "needle" in o),
    ("iter-gives-dict", "_OPS['iter'] = lambda obj: {'needle': 1}", list),
    ("len-negative", "_OPS['len'] = lambda obj: -5", len),
    ("len-bool", "_OPS['len'] = lambda obj: True", len),
    ("len-float", "_OPS['len'] = lambda obj: 3.0", len),
    ("bool-op-restored", "_OPS['bool'] = lambda obj: True", bool),
    ("contains-op-restored", "_OPS['contains'] = lambda obj, x: True", lambda o: "x" in o),
]


@pytest.mark.parametrize(
    ("patch", "expression"),
    [(p, e) for _, p, e in PATCHED_SERVING],
    ids=[n for n, _, _ in PATCHED_SERVING],
)
def test_patched_serving_code_cannot_answer_for_the_trusted_side(
    pool: SandboxPool, patch: str, expression: Callable[[Any], object]
) -> None:
    source = (
        f"child = {CHILD}\nchild.{patch}\nclass Thing:\n    pass\ndef make():\n    return Thing()\n"
    )
    with module(pool, source) as (solution, _):
        obj = solution.make()
        try:
            result = expression(obj)
        except (TypeError, CandidateFailure):
            return
        assert result in (False, [])  # what an honest empty answer gets
    _still_clean(pool)


# -- 2. plain data never turns into a proxy -------------------------------------------------

FORGED_HANDLES = [
    # the markers the protocol once used, returned as plain data, with the serving code's
    # handle table primed to point at an always-yes object
    (
        "old-marker-primed",
        f"child = {CHILD}\n"
        "class Yes:\n    def __contains__(self, x): return True\n    def __bool__(self): return True\n"
        "child._handles[1] = Yes()\nchild._handles[b'1' * 16] = Yes()\n"
        "def attack():\n    return {'\\x00h': 1, '\\x00t': 'list'}\n",
    ),
    ("token-marker", "def attack():\n    return {'\\x00h': b'1' * 16, '\\x00t': 'list'}\n"),
    ("exception-marker", "def attack():\n    return {'\\x00e': ['ValueError']}\n"),
    ("nested-marker", "def attack():\n    return [[{'\\x00h': 1, '\\x00t': 'Yes'}]]\n"),
    ("handle-number", "def attack():\n    return 1\n"),
]


@pytest.mark.parametrize(
    "source", [s for _, s in FORGED_HANDLES], ids=[n for n, _ in FORGED_HANDLES]
)
def test_plain_values_never_become_proxies(pool: SandboxPool, source: str) -> None:
    # through every path a test reaches the candidate: a plain call (test_cases and
    # HumanEval) and a call through the stand-in module (pytest)
    with pool.call_session({}, source) as session:
        value = RemoteFunction(session, "attack", CallLog())()
    with module(pool, source) as (solution, _):
        via_module = solution.attack()
    for found in (value, via_module):
        assert type(found) in (dict, list, int), found  # plain data, never a RemoteObject
        assert "needle" not in (found if type(found) is not int else [found])


HANDLE_OUTSIDE_A_HANDLE_REPLY = [
    # a real codec handle in the value of a plain call: refused by the serving code's
    # encoder, and when the candidate patches the encoder, by the trusted side's decoder
    ("made-handle", f"c = {CODEC}\ndef attack():\n    return c.Handle(b'x' * 16, 'list')\n"),
    (
        "patched-encoder",
        f"c = {CODEC}\nreal = c.encode\n"
        "def forced(value, **kwargs):\n    kwargs['handles'] = True\n    return real(value, **kwargs)\n"
        "c.encode = forced\n"
        "def attack():\n    return [c.Handle(b'x' * 16, 'list')]\n",
    ),
    (
        "exception-class",
        f"c = {CODEC}\nreal = c.encode\n"
        "def forced(value, **kwargs):\n    kwargs['handles'] = True\n    return real(value, **kwargs)\n"
        "c.encode = forced\n"
        "def attack():\n    return c.ExceptionClass(('ValueError',))\n",
    ),
]


@pytest.mark.parametrize(
    "source",
    [s for _, s in HANDLE_OUTSIDE_A_HANDLE_REPLY],
    ids=[n for n, _ in HANDLE_OUTSIDE_A_HANDLE_REPLY],
)
def test_handles_in_plain_replies_are_refused(pool: SandboxPool, source: str) -> None:
    outcome = call(pool, source)
    assert outcome.status in (CallStatus.UNENCODABLE, CallStatus.CRASHED), outcome
    assert outcome.value is None
    with pool.call_session({}, source) as session, pytest.raises(CandidateFailure):
        RemoteFunction(session, "attack", CallLog())()
    _still_clean(pool)


def test_handles_are_random_and_bound_to_their_session(pool: SandboxPool) -> None:
    source = "class Thing:\n    pass\nt = Thing()\ndef same():\n    return t\ndef keep(x):\n    return 1\n"
    with module(pool, source) as (first, _):
        a, b = first.same(), first.same()
        tokens = [object.__getattribute__(h, "_handle") for h in (a, b)]
        assert tokens[0] != tokens[1] and all(len(t) == 16 for t in tokens)
        assert first.keep(a) == 1  # a handle goes back to the session that issued it
        with module(pool, source) as (second, _), pytest.raises(CandidateFailure):
            second.keep(a)  # never to another one (where it could name another object)


def test_a_handle_from_before_a_restart_names_nothing_after_it(pool: SandboxPool) -> None:
    # the tests' session re-opens after a crash; the new process's first handle must not be
    # reachable through a stale proxy of the old one (a counter would make them the same)
    from assay.domains.code.modes import Budget, RestartingSession, Run
    from assay.domains.code.task import CodeTask

    source = (
        "import os\n"
        "class Tagged:\n    def __init__(self, tag):\n        self.tag = tag\n"
        "def make(tag):\n    return Tagged(tag)\n"
        "def tag_of(obj):\n    return obj.tag\n"
        "def crash():\n    os._exit(3)\n"
    )
    task = CodeTask("test_cases", [], timeout_s=FAST.timeout_s, memory_mb=FAST.memory_mb)
    run = Run(pool, task, Budget(total_s=30.0))
    with RestartingSession(run, source) as session:
        solution = RemoteModule("solution", session, CallLog())
        first = solution.make("first")
        assert solution.tag_of(first) == "first"
        with pytest.raises(CandidateFailure):
            solution.crash()
        second = solution.make("second")
        assert solution.tag_of(second) == "second"
        with pytest.raises((KeyError, CandidateFailure)):
            solution.tag_of(first)


def test_plain_data_that_looks_like_a_handle_decodes_as_data() -> None:
    # the old marker shape and the handle tag: data stays data, a tag needs handles=True
    data = {"\x00h": 1, "\x00t": "list"}
    assert decode(encode(data)) == data
    tagged = encode(codec.Handle(b"t" * 16, "list"), handles=True)
    with pytest.raises(codec.DecodeError):
        decode(tagged)
    with pytest.raises(codec.UnencodableError):
        encode(codec.Handle(b"t" * 16, "list"))
    back = decode(tagged, handles=True)
    assert type(back) is codec.Handle and back.token == b"t" * 16
    with pytest.raises(codec.DecodeError):  # a handle is never a set item (nor a dict key)
        decode(b"S\x00\x00\x00\x01" + tagged, handles=True)


# -- 3. the candidate cannot speak the protocol for the trusted side ------------------------

FORGE = """
import os, struct, sys
c = {codec}

def _seq():
    frame = sys._getframe()
    while frame is not None:
        request = frame.f_locals.get("request")
        if type(request) is dict and "seq" in request:
            return request["seq"]
        frame = frame.f_back
    return None

def _send(message):
    payload = c.encode(message)
    os.write(3, struct.pack(">I", len(payload)) + payload)

def attack():
    message = {{"seq": _seq()}}
    message.update({fields})
    _send(message)
    return "honest answer"
"""

FORGED_REPLIES: list[tuple[str, str]] = [
    ("status-timeout", "{'status': 'timeout'}"),
    ("status-error", "{'status': 'error', 'error': 'verifier bug'}"),
    ("status-crashed", "{'status': 'crashed'}"),
    ("no-status", "{}"),
    ("extra-control-keys", "{'status': 'ok', 'value': c.encode(1), 'clean': False, "
     "'unusual': True, 'error': 'x', 'wall': 1e12, 'cpu': -1.0, 'rss': -1}"),
    ("value-not-bytes", "{'status': 'ok', 'value': [1, 2]}"),
    ("value-with-handle", "{'status': 'ok', 'value': c.encode(c.Handle(b'x' * 16, 'list'), "
     "handles=True)}"),
    ("value-truncated", "{'status': 'ok', 'value': b'l\\x00\\x00\\x00\\x05N'}"),
    ("value-colliding-set", "{'status': 'ok', 'value': b'S' + struct.pack('>I', 20000) + "
     "b''.join(b'i\\x00\\x00\\x00\\x10' + (k * (2**61 - 1)).to_bytes(16, 'big') "
     "for k in range(1, 20001))}"),
    ("value-none-bomb", "{'status': 'ok', 'value': b'l' + struct.pack('>I', 3_000_000) + "
     "b'N' * 3_000_000}"),
    ("value-set-bomb", "{'status': 'ok', 'value': b'l' + struct.pack('>I', 400_000) + "
     "b'S\\x00\\x00\\x00\\x00' * 400_000}"),
    ("exception-odd-fields", "{'status': 'exception', 'etype': 10**50, 'emsg': [1], "
     "'ebases': [None, 'ValueError'], 'tb': {}}"),
    ("exception-odd-name", "{'status': 'exception', 'etype': 'not a name\\x00', 'emsg': 'x', "
     "'ebases': ['ValueError']}"),
    ("exception-systemexit", "{'status': 'exception', 'etype': 'SystemExit', 'emsg': '0'}"),
    ("wrong-seq", "{'status': 'ok', 'value': c.encode(1), 'seq': -1}"),
]  # fmt: skip


@pytest.mark.parametrize(
    "fields", [f for _, f in FORGED_REPLIES], ids=[n for n, _ in FORGED_REPLIES]
)
def test_forged_replies_are_the_candidates_own_failure(pool: SandboxPool, fields: str) -> None:
    source = FORGE.format(codec=CODEC, fields=fields)
    with pool.call_session({}, source) as session:
        first = session.call("attack")
        second = session.call("attack")
        function = RemoteFunction(session, "attack", CallLog())
        try:
            via_proxy: object = function()
        except Exception as exc:  # any failure of the call fails the test unit
            via_proxy = exc
    for outcome in (first, second):
        # never a masked status, never a forged measurement
        assert outcome.status is not CallStatus.TIMEOUT, outcome
        assert outcome.usage.wall_s < 100 and outcome.usage.cpu_s >= 0
        if outcome.status is CallStatus.OK:  # at best the candidate's own plain answer
            assert type(outcome.value) in (int, str), outcome.value
    if not isinstance(via_proxy, Exception):
        assert type(via_proxy) in (int, str)
    elif not isinstance(via_proxy, CandidateFailure):
        assert type(via_proxy).__module__ in ("builtins", "solution")  # a stand-in class
    _still_clean(pool)


@pytest.mark.parametrize(
    "name", ["value-with-handle", "value-truncated", "value-colliding-set", "value-none-bomb",
             "value-set-bomb"],
)  # fmt: skip
def test_forged_values_are_refused_by_the_trusted_decoder(pool: SandboxPool, name: str) -> None:
    fields = dict(FORGED_REPLIES)[name]
    outcome = call(pool, FORGE.format(codec=CODEC, fields=fields), limits=Limits(timeout_s=10))
    assert outcome.status is CallStatus.CRASHED, outcome
    assert "undecodable" in outcome.detail
    _still_clean(pool)


def test_forged_frames_in_a_batch_do_not_crash_the_trusted_side(pool: SandboxPool) -> None:
    # HumanEval prefetch: the candidate answers the batch's calls itself, with items of odd
    # types (the zygote joins the items it gets; the trusted side decodes each strictly)
    source = (
        FORGE.format(codec=CODEC, fields="{}").split("def attack")[0] + f"child = {CHILD}\n"
        "FAKE = [{'status': 'exception', 'etype': 10**5000, 'emsg': [[1]], 'ebases': 7},\n"
        "        {'status': ['ok'], 'value': 1}, 'not a dict', {'status': 'ok', 'value': 3}]\n"
        "def fake_item(module, name, args, kwargs, limits):\n"
        "    return c.encode(FAKE[args[0] - 1]), False\n"
        "child._item_call = fake_item\n"
        "def add(a, b):\n    return a + b\n"
    )
    with pool.call_session({}, source) as session:
        function = RemoteFunction(session, "add", CallLog())
        function.prefetch([((1, 2), {}), ((2, 2), {}), ((3, 3), {}), ((4, 4), {})])
        results: list[object] = []
        for args in ((1, 2), (2, 2), (3, 3), (4, 4)):
            try:
                results.append(function(*args))
            except Exception as exc:  # a failed unit
                results.append(type(exc))
    assert results[0] is not int and results[3] in (3, 8)
    _still_clean(pool)


def test_colliding_outer_message_is_refused_not_decoded_forever(pool: SandboxPool) -> None:
    # the frame the candidate writes is decoded by the zygote first: a dict of 150,000 keys
    # that all hash to 0 would take hours to build; it must end the call at once instead
    source = (
        "import os, struct\n"
        "def attack():\n"
        "    count = 150_000\n"
        "    body = b''.join(b'i' + struct.pack('>I', 16) + (k * (2**61 - 1)).to_bytes(16, 'big')"
        " + b'N' for k in range(1, count + 1))\n"
        "    payload = b'd' + struct.pack('>I', count) + body\n"
        "    os.write(3, struct.pack('>I', len(payload)) + payload)\n"
        "    return 1\n"
    )
    outcome = call(pool, source, limits=Limits(timeout_s=30))
    assert outcome.status is CallStatus.CRASHED, outcome
    _still_clean(pool)


@pytest.mark.parametrize(
    "target",
    ["/proc/1/fd/{fd}", "/proc/2/fd/{fd}", "/proc/{ppid}/fd/{fd}", "/dev/fd/{fd}"],
    ids=["zygote", "template", "parent", "dev-fd"],
)
def test_the_trusted_sides_channel_is_out_of_reach(bwrap_pool: SandboxPool, target: str) -> None:
    # every descriptor of the sandbox's other processes: none can be opened to write a reply
    source = (
        "import os\n"
        "def attack():\n"
        "    opened = []\n"
        "    for fd in range(0, 64):\n"
        f"        path = {target!r}.format(fd=fd, ppid=os.getppid())\n"
        "        if path.startswith('/dev/fd/') and fd <= 4:\n"
        "            continue  # this process's own stdio, control socket and listing\n"
        "        try:\n"
        "            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))\n"
        "            opened.append(path)\n"
        "        except OSError:\n"
        "            pass\n"
        "    return opened\n"
    )
    outcome = call(bwrap_pool, source)
    assert outcome.status is CallStatus.OK and outcome.value == [], outcome


def test_frames_on_stdout_are_only_output(pool: SandboxPool) -> None:
    # a reply frame printed on stdout or stderr is captured text, never read as protocol
    source = (
        FORGE.format(codec=CODEC, fields="{}")
        .replace("os.write(3, ", "os.write(1, ")
        .replace('return "honest answer"', "return 'honest answer'")
    )
    source = source.replace("message.update({})", "message.update({'status': 'ok', "
                            "'value': c.encode(7)})")  # fmt: skip
    outcome = call(pool, source)
    assert outcome.status is CallStatus.OK and outcome.value == "honest answer"


# -- 4. decoding has a bounded cost ----------------------------------------------------------


def colliding_pairs(count: int) -> list[tuple[int, int]]:
    """Pairs of ints below 2**61 whose tuple hashes are all equal, found as an attacker would.

    CPython's tuple hash (xxHash-style, not randomised for ints) is invertible in its last
    item: for any first item ``a`` there is one last-item hash that lands on a chosen value,
    and about a quarter of the time it is the hash of an int below 2**61 in magnitude.
    """
    mod, prime1, prime2, prime5 = (
        2**64,
        11400714785074694791,
        14029467366897019727,
        2870177450012600261,
    )

    def first_lane(a: int) -> int:
        acc = (prime5 + (hash(a) % mod) * prime2) % mod
        return (((acc << 31) | (acc >> 33)) % mod) * prime1 % mod

    target, inverse = first_lane(0), pow(prime2, -1, mod)
    pairs, a = [(0, 0)], 1
    while len(pairs) < count:
        lane = (target - first_lane(a)) * inverse % mod
        if lane < P:
            pairs.append((a, lane))
        elif mod - lane < P and mod - lane != 1:
            pairs.append((a, lane - mod))
        a += 1
    if len({hash(pair) for pair in pairs}) != 1:  # the interpreter hashes tuples differently
        raise AssertionError("colliding_pairs needs CPython's 3.8+ tuple hash")
    return pairs


def test_crafted_tuple_collisions_are_real() -> None:
    pairs = colliding_pairs(100)
    assert len(set(pairs)) == 100 and len({hash(p) for p in pairs}) == 1


DECODE_BOMBS: list[tuple[str, bytes]] = [
    ("colliding-tuples", encode(set(colliding_pairs(300)))),  # small ints, crafted tuples
    ("colliding-tuples-frozen", encode(frozenset(colliding_pairs(300)))),
    ("colliding-nested", encode({(pair,) for pair in colliding_pairs(300)})),
    ("colliding-dict", encode({k * P: None for k in range(1, 5000)})),
    ("colliding-negative", encode({-k * P: None for k in range(1, 5000)})),
    ("colliding-set", encode({k * P for k in range(1, 5000)})),
    ("colliding-frozenset", encode(frozenset(k * P for k in range(1, 5000)))),
    ("colliding-list", encode([k * P for k in range(1, 5000)])),  # tests may set() it
    ("colliding-tuples-in-a-list", encode(colliding_pairs(300))),  # set(result) in a test
    ("colliding-tuples-in-a-tuple", encode(tuple(colliding_pairs(300)))),
    ("colliding-rows", encode([list(pair) for pair in colliding_pairs(300)])),  # tuple(row)
    ("colliding-repeated", encode(colliding_pairs(300) * 3)),
    ("colliding-in-tuples", encode({(k * P,) for k in range(1, 5000)})),
    ("none-bomb", b"l" + struct.pack(">I", 3_000_000) + b"N" * 3_000_000),
    ("empty-set-bomb", b"l" + struct.pack(">I", 300_000) + b"S\x00\x00\x00\x00" * 300_000),
    ("empty-dict-bomb", b"l" + struct.pack(">I", 600_000) + b"d\x00\x00\x00\x00" * 600_000),
    ("int-of-8-megabytes", encode(1 << (8 * 8 * 1024 * 1024))),  # a test may square it
    ("int-past-a-million-bits", encode(-(1 << (1 << 20)))),
    ("deep", b"l\x00\x00\x00\x01" * 5000 + b"N"),
    ("deep-tuple", b"t\x00\x00\x00\x01" * 5000 + b"N"),
    ("deep-dict", b"d\x00\x00\x00\x01s\x00\x00\x00\x00" * 5000 + b"N"),
    ("handle-tag", b"Hb\x00\x00\x00\x01xs\x00\x00\x00\x01y"),
    ("exception-tag", b"E\x00\x00\x00\x01s\x00\x00\x00\x01y"),
]


@pytest.mark.parametrize("data", [d for _, d in DECODE_BOMBS], ids=[n for n, _ in DECODE_BOMBS])
def test_decode_bombs_are_refused(data: bytes) -> None:
    with pytest.raises(codec.DecodeError):
        decode(data)


@pytest.mark.parametrize(
    "value",
    [
        {k: None for k in range(100_000)},  # many keys, distinct hashes
        set(range(-1000, 1000)),  # -1 and -2 share a hash: a pair is no attack
        [2**64 + k for k in range(100_000)],  # big ints with distinct hashes
        {str(k): [k, float(k)] for k in range(50_000)},
        [(k, k + 1) for k in range(50_000)],
        [(0, 0)] * 50_000,  # repeats share a hash honestly
        [10**18] * 1000 + [2**63 - 1] * 50 + [-(2**63)] * 50,  # INF sentinels of a DP table
        {"dist": [[0, 10**18, 10**18]] * 40},
        colliding_pairs(8) * 1000,  # eight distinct colliders, however often repeated
        [[k, -k] for k in range(50_000)] + [[1, 2]] * 500,
        [frozenset({k}) for k in range(5000)] + [(1, [2])] * 100,  # unhashable items skipped
    ],
    ids=[
        "many-keys",
        "small-ints",
        "big-ints",
        "records",
        "pairs",
        "repeats",
        "big-repeats",
        "big-rows",
        "few-colliders",
        "rows",
        "frozensets",
    ],
)
def test_honest_large_values_still_decode(value: object) -> None:
    assert decode(encode(value)) == value


def test_a_honest_value_the_candidate_returns_crosses_intact(pool: SandboxPool) -> None:
    source = (
        "def attack():\n    return {'rows': [(k, k * 0.5) for k in range(20000)], 'n': 2**70}\n"
    )
    outcome = call(pool, source)
    assert outcome.status is CallStatus.OK
    assert isinstance(outcome.value, dict) and outcome.value["n"] == 2**70


def test_many_honest_repeats_of_colliding_hashes_decode_in_linear_time() -> None:
    # 4000 distinct hash values, each held by nine repeats of one tuple, all hash values equal
    # modulo 2**61 - 1 (so they would collide as the keys of a dict or set of hash values):
    # the check groups by sorting, so this decodes (and the repeats are not an attack)
    mod, prime1, prime2, prime5 = (
        2**64,
        11400714785074694791,
        14029467366897019727,
        2870177450012600261,
    )

    def lane(a: int) -> int:
        acc = (prime5 + a * prime2) % mod
        return (((acc << 31) | (acc >> 33)) % mod) * prime1 % mod

    inverse, items, target, a = pow(prime2, -1, mod), [], 0, 0
    while len(items) < 4000 * 9:
        a += 1
        b = (target - lane(a)) * inverse % mod
        if b < P:
            items += [(a, b)] * 9
            target += P  # the next tuple's hash differs from this one's by 2**61 - 1
    value = decode(encode(items))
    assert value == items
