"""A bounded cache of parsed tasks, keyed by the reference's canonical JSON.

A GRPO group sends the same reference many times: the task (and the replay of its gold calls)
is built once per worker.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Generic, TypeVar

from assay.errors import MalformedTaskError
from assay.types import JSON

T = TypeVar("T")


class TaskCache(Generic[T]):
    """Least-recently-used tasks, at most ``size`` of them; safe to share between threads."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._tasks: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, reference: Mapping[str, JSON], build: Callable[[Mapping[str, JSON]], T]) -> T:
        """The cached task of ``reference``, built with ``build`` the first time.

        Raises:
            MalformedTaskError: the reference is not JSON (or ``build`` rejects it).
        """
        try:
            key = json.dumps(reference, sort_keys=True, default=repr)
        except (TypeError, ValueError) as exc:
            raise MalformedTaskError(f"agent reference is not JSON: {exc}") from exc
        with self._lock:
            task = self._tasks.get(key)
            if task is not None:
                self._tasks.move_to_end(key)
                return task
        task = build(reference)
        with self._lock:
            self._tasks[key] = task
            if len(self._tasks) > self._size:
                self._tasks.popitem(last=False)
        return task
