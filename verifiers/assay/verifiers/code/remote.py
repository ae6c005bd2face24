"""Trusted-side stand-ins for the candidate's functions: calls cross into the sandbox as data.

Test code (HumanEval ``check``, a pytest file) runs in the trusted process, where the
candidate's code never runs. Each call of a candidate function is sent to the sandbox session
with plain-data arguments; the result comes back as plain data (the sandbox's codec rebuilds
builtin types only), so an object whose ``__eq__`` always returns ``True``, a ``str`` subclass
or a patched builtin never reaches the comparison. Exceptions come back by type name and are
raised here as the builtin exception of that name, so ``pytest.raises(ValueError)`` works.

Nothing the tests evaluate here is decided by candidate code: ``==`` on a
:class:`RemoteObject` is identity, membership is decided here on the object's items (fetched
as data), truth value and ordering are refused, hashing is by handle. docs/code.md lists every
operation. A :class:`RemoteObject` is made only from a :class:`~assay.verifiers.sandbox._inside.
codec.Handle` that came back in a reply to a request that may return one, so a plain value the
candidate returns never turns into a proxy.
"""

from __future__ import annotations

import builtins
import marshal
import math
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from assay.verifiers.code.units import Unit
from assay.verifiers.sandbox import CallOutcome, CallStatus, ResourceUsage
from assay.verifiers.sandbox._inside.codec import ExceptionClass, Handle
from assay.verifiers.sandbox._inside.markers import (
    BUILTIN_KEY,
    FUNCTION_KEY,
    HANDLE_KEY,
    ITERATOR_KEY,
)

from assay.errors import ConfigError


class CandidateFailure(Exception):  # noqa: N818 - reads as what happened in a test report
    """The candidate's call returned no value: it crashed, timed out, or returned an object."""


class Session(Protocol):
    """A sandbox session the stand-ins call into.

    One that can also ``restart(calls)`` (end its child, start a fresh one and make ``calls``
    there, results unused) lets :meth:`RemoteFunction.prefetch` leave a batch without the
    batch's extra calls showing in later results (``RestartingSession`` in the code domain).
    """

    def call(
        self, name: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> CallOutcome: ...


@dataclass
class CallLog:
    """Every call made through the proxies of one run, for resource checks and audits."""

    outcomes: list[CallOutcome] = field(default_factory=list)

    def unit(self, name: str, passed: bool, message: str, start: int, end: int | None) -> Unit:
        """A test unit with the resources of the calls logged in ``[start:end]``."""
        calls = self.outcomes[start:end]
        return Unit(
            name,
            passed,
            message,
            wall_s=sum(c.usage.wall_s for c in calls),
            cpu_s=sum(c.usage.cpu_s for c in calls),
            peak_rss_bytes=max((c.usage.peak_rss_bytes for c in calls), default=0),
            evidence={"calls": len(calls)},
        )


_BUILTIN_CALLABLES = (
    types.BuiltinFunctionType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.ClassMethodDescriptorType,
    type,
)
_NOT_REBUILT = (AssertionError, StopIteration, SystemExit, KeyboardInterrupt, GeneratorExit)
_MAX_NAME = 200
_MAX_MESSAGE = 4000
_PLAIN_DUNDERS = frozenset({"__name__", "__qualname__"})
"""Dunder attributes a proxy still asks for: names, which are data. Every other ``__x__`` is
a protocol a trusted library probes (``__array__``, ``__dataclass_fields__``, ``__eq__``,
``__wrapped__``, ...) and must not be answered by candidate code."""


def _name(value: object, default: str) -> str:
    """A candidate-supplied class name fit to name a trusted stand-in class."""
    if type(value) is not str or not value or len(value) > _MAX_NAME:
        return default
    return value if value.isidentifier() else default


def _text(value: object, limit: int) -> str:
    return value[:limit] if type(value) is str else ""


class _ExceptionClasses:
    """Trusted stand-ins for the candidate's exception classes, one per name.

    ``pytest.raises(solution.InsufficientFunds)`` and ``pytest.raises(ValueError)`` both work:
    the stand-in has the candidate's class name and derives from the nearest builtin exception
    class the candidate's class derives from; a raise in the sandbox is re-raised here as it.
    """

    def __init__(self) -> None:
        self._classes: dict[str, type[Exception]] = {}

    def get(self, name: str, bases: tuple[str, ...]) -> type[Exception]:
        name = _name(name, "CandidateException")
        builtin = getattr(builtins, name, None)
        if (
            isinstance(builtin, type)
            and issubclass(builtin, Exception)
            and builtin not in _NOT_REBUILT
        ):
            return builtin
        if name not in self._classes:
            base: type[Exception] = Exception
            for candidate in bases:
                kind = getattr(builtins, candidate, None)
                if (
                    isinstance(kind, type)
                    and issubclass(kind, Exception)
                    and kind not in _NOT_REBUILT
                ):
                    base = kind
                    break
            self._classes[name] = type(name, (base,), {"__module__": "solution"})
        return self._classes[name]

    def rebuild(self, outcome: CallOutcome) -> BaseException:
        name = outcome.exception_type or "Exception"
        message = outcome.exception_message or ""
        builtin = getattr(builtins, name, None)
        if isinstance(builtin, type) and builtin in _NOT_REBUILT:
            return CandidateFailure(f"the candidate raised {name}: {message}")
        kind = self.get(name.rsplit(".", 1)[-1], outcome.exception_bases)
        try:
            return kind(message)
        except Exception:  # a builtin exception with an unusual constructor
            return CandidateFailure(f"{name}: {message}")


class _Channel:
    """Requests by handle to one sandbox session, with every outcome logged."""

    def __init__(self, session: Session, log: CallLog) -> None:
        self.session = session
        self.log = log
        self.exceptions = _ExceptionClasses()
        self.issued: set[bytes] = set()
        """Tokens of the handles this channel received; only these go back to the sandbox."""

    def request(self, op: str, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> Any:
        try:
            outcome = self.session.call(op, _wrap(args, self), _wrap(kwargs or {}, self))
        except (TypeError, ValueError, ConfigError) as exc:  # arguments that are not plain data
            raise CandidateFailure(f"cannot send these arguments to the candidate: {exc}") from None
        return self.settle(outcome, handles=op.startswith("\x00"))

    def settle(self, outcome: CallOutcome, handles: bool = False) -> Any:
        """The value of an outcome, or the exception it stands for (logged either way).

        Only a reply to a handle request (``handles``) is searched for handles; the session
        decoded any other reply as plain data, where a handle is a protocol violation.
        """
        self.log.outcomes.append(outcome)
        if outcome.status is CallStatus.OK:
            return self.rebuild(outcome.value) if handles else outcome.value
        if outcome.status is CallStatus.EXCEPTION:
            raise self.exceptions.rebuild(outcome)
        detail = outcome.detail or outcome.exception_message or ""
        raise CandidateFailure(f"{outcome.status.value} {detail}".strip())

    def rebuild(self, value: Any) -> Any:
        """Turn the codec's handles into :class:`RemoteObject` stand-ins (depth is bounded by
        the codec)."""
        kind = type(value)
        if kind is Handle:
            self.issued.add(value.token)
            return RemoteObject(self, value.token, _text(value.type_name, _MAX_NAME) or "?")
        if kind is ExceptionClass:
            names = value.names
            return self.exceptions.get(names[0], tuple(_text(n, _MAX_NAME) for n in names[1:]))
        if kind is dict:
            return {k: self.rebuild(v) for k, v in value.items()}
        if kind is list:
            return [self.rebuild(v) for v in value]
        if kind is tuple:
            return tuple([self.rebuild(v) for v in value])
        return value


def _wrap(value: Any, channel: _Channel, depth: int = 0) -> Any:
    """Replace stand-ins in outgoing arguments by their handle markers."""
    if isinstance(value, RemoteObject):
        token = object.__getattribute__(value, "_handle")
        if object.__getattribute__(value, "_channel") is not channel or token not in channel.issued:
            raise TypeError("a candidate object of another session")
        return {HANDLE_KEY: token}
    if isinstance(value, _BUILTIN_CALLABLES):
        name = _builtin_name(value)
        if name is not None:
            return {BUILTIN_KEY: name}
    if isinstance(value, Iterator) and not isinstance(value, str | bytes):
        items = [_wrap(v, channel, depth + 1) for v in value]  # a test's iterator, drained
        return {ITERATOR_KEY: items}
    if isinstance(value, types.FunctionType) and not value.__closure__:
        # a plain function of the trusted tests (a key= or callback) travels as its code
        return {FUNCTION_KEY: marshal.dumps(value.__code__)}
    kind = type(value)
    if kind in (list, tuple) and depth < 50:
        return kind(_wrap(v, channel, depth + 1) for v in value)
    if kind is dict and depth < 50:
        return {k: _wrap(v, channel, depth + 1) for k, v in value.items()}
    return value


def _builtin_name(value: Any) -> str | None:
    """``"str.lower"`` for a builtin callable that the sandbox can look up by that name."""
    name = getattr(value, "__qualname__", None)
    if not isinstance(name, str):
        return None
    found: Any = builtins
    for part in name.split("."):
        found = getattr(found, part, None)
    return name if found is value else None


class RemoteObject:
    """A candidate object that stays in the sandbox; attribute reads and calls are requests.

    Only what is data crosses: attributes, call results, ``len``, the items of ``iter``,
    ``str``, ``repr``, ``obj[key]``. Everything the trusted side decides is decided here, on
    data: ``==`` is identity (an object whose ``__eq__`` always returns ``True`` must not pass
    a test), ``x in obj`` looks for ``x`` among the items ``iter`` returned, ``hash`` is the
    handle's. A truth value and an ordering would be the candidate's verdict, not data, so
    ``bool(obj)``, ``obj < x`` and friends raise ``TypeError`` (the test fails). See
    docs/code.md for the whole table.
    """

    __slots__ = ("_channel", "_handle", "_type")

    def __init__(self, channel: _Channel, handle: bytes, type_name: str) -> None:
        object.__setattr__(self, "_channel", channel)
        object.__setattr__(self, "_handle", handle)
        object.__setattr__(self, "_type", type_name)

    def _op(self, name: str, *args: Any) -> Any:
        channel: _Channel = object.__getattribute__(self, "_channel")
        return channel.request("\x00op", (object.__getattribute__(self, "_handle"), name, *args))

    def _items(self) -> list[Any]:
        items = self._op("iter")
        if type(items) is not list:
            raise TypeError("iterating a candidate object did not give a list of items")
        return items

    def _refuse(self, what: str) -> TypeError:
        kind = object.__getattribute__(self, "_type")
        return TypeError(
            f"{what} of a candidate object ({kind}) is not asked of candidate code: "
            "compare its data (a value, an attribute, len(), list())"
        )

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__") and attr not in _PLAIN_DUNDERS:
            raise AttributeError(attr)
        channel: _Channel = object.__getattribute__(self, "_channel")
        return channel.request("\x00get", (object.__getattribute__(self, "_handle"), attr))

    def __setattr__(self, attr: str, value: Any) -> None:
        self._op("setattr", attr, value)

    def __delattr__(self, attr: str) -> None:
        self._op("delattr", attr)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        channel: _Channel = object.__getattribute__(self, "_channel")
        return channel.request(
            "\x00call", (object.__getattribute__(self, "_handle"), *args), kwargs
        )

    def __len__(self) -> int:
        value = self._op("len")
        if type(value) is not int or value < 0:
            raise TypeError("len() of a candidate object did not return a non-negative int")
        return value

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items())

    def __contains__(self, item: Any) -> bool:
        # decided here on the items as data: the candidate never sees what the test looks for
        return item in self._items()

    def __getitem__(self, key: Any) -> Any:
        return self._op("getitem", key)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._op("setitem", key, value)

    def __delitem__(self, key: Any) -> None:
        self._op("delitem", key)

    def __bool__(self) -> bool:
        raise self._refuse("the truth value")

    def __lt__(self, other: object) -> bool:
        raise self._refuse("ordering")

    def __le__(self, other: object) -> bool:
        raise self._refuse("ordering")

    def __gt__(self, other: object) -> bool:
        raise self._refuse("ordering")

    def __ge__(self, other: object) -> bool:
        raise self._refuse("ordering")

    def __str__(self) -> str:
        text = self._op("str")
        return text if type(text) is str else "<candidate object>"

    def __repr__(self) -> str:
        text = self._op("repr")
        return text if type(text) is str else "<candidate object>"

    def __format__(self, spec: str) -> str:
        if spec:
            raise self._refuse("formatting")
        return str(self)

    def __eq__(self, other: object) -> bool:
        return other is self

    def __ne__(self, other: object) -> bool:
        return other is not self

    def __hash__(self) -> int:
        return hash(("remote", object.__getattribute__(self, "_handle")))


def _split_outcome(raw: dict[str, Any], batch: CallOutcome, share: int) -> CallOutcome:
    """One call's outcome out of a batch reply (resources split evenly across the batch)."""
    # the batch reply is the candidate's data (its process wrote it): exact types only, capped
    status = _text(raw.get("status"), 20)
    usage = ResourceUsage(
        batch.usage.wall_s / share, batch.usage.cpu_s / share, batch.usage.peak_rss_bytes
    )
    if status == "ok":
        return CallOutcome(CallStatus.OK, value=raw.get("value"), usage=usage)
    if status == "exception":
        bases = raw.get("ebases")
        return CallOutcome(
            CallStatus.EXCEPTION,
            exception_type=_text(raw.get("etype"), _MAX_NAME) or "Exception",
            exception_message=_text(raw.get("emsg"), _MAX_MESSAGE),
            exception_bases=tuple(_text(b, _MAX_NAME) for b in bases[:8])
            if type(bases) is list
            else (),
            usage=usage,
        )
    return CallOutcome(
        CallStatus.UNENCODABLE, detail=_text(raw.get("emsg"), _MAX_MESSAGE), usage=usage
    )


def same_data(a: Any, b: Any, depth: int = 0) -> bool:
    """``a == b`` with exact types, as the sandbox's codec tells them apart (``1``, ``True``
    and ``1.0`` differ; a NaN equals a NaN)."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is float:
        return bool(a == b or (math.isnan(a) and math.isnan(b)))
    if depth > 50:
        return False
    if kind in (list, tuple):
        return len(a) == len(b) and all(
            same_data(x, y, depth + 1) for x, y in zip(a, b, strict=True)
        )
    if kind is dict:
        return a.keys() == b.keys() and all(same_data(a[k], b[k], depth + 1) for k in a)
    try:
        return bool(a == b)
    except Exception:  # a trusted object that cannot say: not the same call
        return False


class RemoteFunction:
    """Calls ``name`` of the candidate's module inside the sandbox (HumanEval's candidate)."""

    def __init__(self, session: Session, name: str, log: CallLog) -> None:
        self._channel = _Channel(session, log)
        self._name = name
        self._prefetched: list[tuple[tuple[Any, ...], dict[str, Any], CallOutcome]] = []
        self._replayed: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self.__name__ = name

    def prefetch(
        self, calls: list[tuple[tuple[Any, ...], dict[str, Any]]], limits: int | None = None
    ) -> None:
        """Run ``calls`` in the sandbox now, in one round trip; later calls replay them in order.

        ``limits``: how many per-call limits the batch may take in all (default: one per
        call); past that the batch hands no new call, and the calls left run live on the
        same process (in the code domain's session). A later call whose arguments differ
        from the next prefetched one leaves the batch for good: the candidate
        restarts (if the session can) with the calls replayed so far made again, so every
        later call sees the state live calls would have left, and goes to the sandbox live.
        """
        batch = [(self._name, args, kwargs) for args, kwargs in calls]
        request: tuple[Any, ...] = (batch,) if limits is None else (batch, limits)
        try:
            outcome = self._channel.session.call("\x00batch", request, {})
        except (TypeError, ValueError, ConfigError):
            return
        if outcome.status is not CallStatus.OK or type(outcome.value) is not list:
            return
        share = len(outcome.value) or 1
        for (args, kwargs), raw in zip(calls, outcome.value, strict=False):
            if type(raw) is not dict:
                return
            self._prefetched.append((args, kwargs, _split_outcome(raw, outcome, share)))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._prefetched:
            want_args, want_kwargs, outcome = self._prefetched.pop(0)
            if same_data(want_args, args) and same_data(want_kwargs, kwargs):
                self._replayed.append((self._name, want_args, want_kwargs))
                return self._channel.settle(outcome)
            self._leave_batch()
        # a plain call by name: the result must be plain data, or the call fails
        return self._channel.request(self._name, args, kwargs)

    def _leave_batch(self) -> None:
        """The tests went another way than the batch: the child ran calls they never made."""
        self._prefetched.clear()
        replayed, self._replayed = self._replayed, []
        restart = getattr(self._channel.session, "restart", None)
        if restart is not None:
            restart(replayed)

    def __repr__(self) -> str:
        return f"<candidate function {self._name}>"


class RemoteModule(types.ModuleType):
    """The candidate's module as seen by trusted test code: every attribute is a request.

    ``star_names`` are the names ``from <module> import *`` may bind: its ``__all__`` is those
    of them the candidate's module has (asked one by one). The runner gives the test file's
    free names, so a star import never replaces a name the test module binds itself (its
    ``pytest``, its reference helpers), whatever the candidate defines or puts in its own
    ``__all__``.
    """

    def __init__(
        self, name: str, session: Session, log: CallLog, star_names: tuple[str, ...] = ()
    ) -> None:
        super().__init__(name)
        self._channel = _Channel(session, log)
        self._star_names = star_names
        self._star: list[str] | None = None

    def __getattr__(self, attr: str) -> Any:
        if attr == "__all__":
            return self._exported()
        if attr.startswith("__") or attr in ("_channel", "_star_names", "_star"):
            raise AttributeError(attr)
        try:
            return self._channel.request("\x00get", (None, attr))
        except AttributeError:
            raise
        except CandidateFailure as exc:
            raise ImportError(f"cannot import {attr!r} from the candidate: {exc}") from None

    def _exported(self) -> list[str]:
        if self._star is None:
            found = []
            for name in self._star_names:
                try:
                    self._channel.request("\x00get", (None, name))
                except (AttributeError, CandidateFailure):
                    continue  # not defined there: the tests that use it fail on their own
                found.append(name)
            self._star = found
        return list(self._star)
