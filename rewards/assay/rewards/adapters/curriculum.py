"""Trainer glue for :class:`~assay.rewards.sampling.TaskSampler`: torch samplers and feedback.

- :class:`StatefulTaskSampler`: a torch ``Sampler`` of dataset positions, a batch at a time,
  with ``state_dict`` / ``load_state_dict`` that torchdata's ``StatefulDataLoader`` (verl's
  train dataloader) saves in its checkpoint. Pass it as verl's ``train_sampler``.
- :func:`feed_verl_batch` and :class:`VerlSamplerFeedback`: give the sampler the verdicts of a
  verl step, read from the ``DataProto`` after the reward (``status`` / ``masked`` from
  :class:`~assay.rewards.adapters.verl.AssayRewardManager`, the score from the token-level
  scores). The mixin does it in ``RayPPOTrainer._update_actor``.
- :class:`GroupRepeatSampler`: TRL's ``RepeatSampler`` layout (each prompt ``num_generations``
  times, each chunk ``repeat_count`` times) with the prompts chosen by the task sampler; see
  :mod:`assay.rewards.adapters.trl_curriculum` for the ``GRPOTrainer`` subclass.
- :func:`with_feedback`: wraps a TRL reward function so its rewards feed the sampler.

A loader that reads ahead draws its next batch before the current one is scored: torchdata's
loader with ``num_workers=0`` (verl's default) draws at the start of each step, so step ``t``'s
verdicts shape step ``t + 1``; accelerate's loader (TRL) reads one batch ahead, so they shape
step ``t + 2``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from assay.rewards.sampling import Outcome, TaskSampler, task_info
from torch.utils.data import Sampler

from assay.errors import ConfigError

_ROW_FIELDS = ("id", "index", "extra_info", "meta", "data_source", "domain", "level")


class StatefulTaskSampler(Sampler[int]):
    """Dataset positions, ``batch_size`` at a time, chosen by ``sampler``; resumable.

    Args:
        sampler: The task sampler (its tasks are the dataset's rows, in order).
        batch_size: Prompts per batch (verl's ``data.train_batch_size``).
        num_batches: Batches per epoch; default ``len(tasks) // batch_size`` (what verl's
            ``len(train_dataloader)`` and its step count assume).
    """

    def __init__(self, sampler: TaskSampler, batch_size: int, num_batches: int | None = None):
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.num_batches = (
            max(1, len(sampler.tasks) // batch_size) if num_batches is None else num_batches
        )
        self._drawn = 0
        self._pending: list[int] = []
        self._resumed = False

    def __iter__(self) -> Iterator[int]:
        if not self._resumed:
            self._drawn, self._pending = 0, []
        self._resumed = False
        while True:
            while self._pending:
                yield self._pending.pop(0)
            if self._drawn >= self.num_batches:
                return
            self._pending = self.sampler.sample(self.batch_size)
            self._drawn += 1

    def __len__(self) -> int:
        return self.num_batches * self.batch_size

    def state_dict(self) -> dict[str, Any]:
        """The task sampler's state and where this epoch is."""
        return {
            "sampler": self.sampler.state_dict(),
            "drawn": self._drawn,
            "pending": list(self._pending),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore :meth:`state_dict`; the next ``iter()`` continues the saved epoch."""
        self.sampler.load_state_dict(state["sampler"])
        self._drawn = int(state["drawn"])
        self._pending = [int(i) for i in state["pending"]]
        self._resumed = True


class GroupRepeatSampler(Sampler[int]):
    """TRL's ``RepeatSampler`` order with the prompts chosen by a task sampler.

    Each chunk of ``batch_size`` distinct prompts is drawn when its first index is read, then
    yielded ``repeat_count`` times, each index ``mini_repeat_count`` times in a row.

    Resumable: :meth:`state_dict` holds the task sampler's state, the epoch (``set_epoch``,
    which accelerate's loader calls) and the chunks this epoch has drawn so far. After
    :meth:`load_state_dict`, the next ``iter()`` in the same epoch yields those chunks again
    without drawing (the batches a resumed trainer skips, and the ones its loader had read
    ahead), then draws on from the restored state: the indices are those of the uninterrupted
    run. In another epoch the replay is dropped (the saved epoch was finished).

    Args:
        sampler: The task sampler.
        mini_repeat_count: Answers per prompt (``num_generations``).
        batch_size: Distinct prompts per generation batch.
        repeat_count: ``num_iterations * steps_per_generation``.
        num_batches: Chunks per epoch; default ``len(tasks) // batch_size``.
    """

    def __init__(
        self,
        sampler: TaskSampler,
        *,
        mini_repeat_count: int,
        batch_size: int,
        repeat_count: int = 1,
        num_batches: int | None = None,
    ) -> None:
        if min(mini_repeat_count, batch_size, repeat_count) < 1:
            raise ConfigError("mini_repeat_count, batch_size and repeat_count must be >= 1")
        self.sampler = sampler
        self.mini_repeat_count = mini_repeat_count
        self.batch_size = batch_size
        self.repeat_count = repeat_count
        self.num_batches = (
            max(1, len(sampler.tasks) // batch_size) if num_batches is None else num_batches
        )
        self.epoch = 0
        self._chunks: list[list[int]] = []  # drawn in this epoch's iteration
        self._replay: tuple[int, list[list[int]]] | None = None

    def set_epoch(self, epoch: int) -> None:
        """The epoch the next ``iter()`` runs (accelerate's loader sets it)."""
        self.epoch = epoch

    def __iter__(self) -> Iterator[int]:
        replay: list[list[int]] = []
        if self._replay is not None and self._replay[0] == self.epoch:
            replay = self._replay[1]
        self._replay = None
        self._chunks = []
        for number in range(self.num_batches):
            replayed = number < len(replay)
            chunk = replay[number] if replayed else self.sampler.sample(self.batch_size)
            self._chunks.append(chunk)
            for _ in range(self.repeat_count):
                for index in chunk:
                    yield from [index] * self.mini_repeat_count

    def __len__(self) -> int:
        return self.num_batches * self.batch_size * self.mini_repeat_count * self.repeat_count

    def state_dict(self) -> dict[str, Any]:
        """The task sampler's state, the epoch and its chunks drawn so far (JSON-able)."""
        return {
            "sampler": self.sampler.state_dict(),
            "epoch": self.epoch,
            "chunks": [list(chunk) for chunk in self._chunks],
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore :meth:`state_dict`; the next ``iter()`` in its epoch replays its chunks.

        Raises:
            ConfigError: The state belongs to another task list, or its chunks do not fit
                this sampler (another ``batch_size``, positions out of range, too many).
        """
        try:
            epoch = int(state["epoch"])
            chunks = [[int(i) for i in chunk] for chunk in state["chunks"]]
            inner = state["sampler"]
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"GroupRepeatSampler state is malformed: {exc!r}") from exc
        size = len(self.sampler.tasks)
        if len(chunks) > self.num_batches or any(
            len(chunk) != self.batch_size or not all(0 <= i < size for i in chunk)
            for chunk in chunks
        ):
            raise ConfigError(
                f"GroupRepeatSampler state does not fit: {len(chunks)} chunks for "
                f"{self.num_batches} of {self.batch_size} positions below {size}"
            )
        self.sampler.load_state_dict(inner)
        self.epoch = epoch
        self._chunks = chunks
        self._replay = (epoch, chunks)


def with_feedback(
    reward_func: Callable[..., list[float | None]], sampler: TaskSampler, *, id_column: str = "id"
) -> Callable[..., list[float | None]]:
    """A TRL reward function that also feeds its rewards to ``sampler`` (``None``: masked).

    The dataset needs a column naming each row's task (``id_column``; the ids the sampler was
    built with). The wrapper keeps the wrapped function's ``__name__``, which TRL logs under.

    Raises:
        ConfigError: (when called) TRL passed no ``id_column`` column.
    """

    def assay_feedback(
        prompts: Sequence[Any] | None, completions: Sequence[Any], *args: Any, **columns: Any
    ) -> list[float | None]:
        rewards = reward_func(prompts, completions, *args, **columns)
        ids = columns.get(id_column)
        if not isinstance(ids, Sequence) or len(ids) != len(rewards):
            raise ConfigError(
                f"with_feedback: the dataset needs a {id_column!r} column naming each row's task"
            )
        sampler.update([str(i) for i in ids], list(rewards))
        return rewards

    name = getattr(reward_func, "__name__", "assay")
    assay_feedback.__name__ = assay_feedback.__qualname__ = name
    return assay_feedback


def feed_verl_batch(sampler: TaskSampler, batch: Any) -> int:
    """Feed the verdicts of one verl step (a ``DataProto`` after the reward) to ``sampler``.

    Each row's task is read from its non-tensor fields the way the sampler read the dataset
    (:func:`~assay.rewards.sampling.task_info`: ``extra_info.id``/``index``...). Its outcome is
    ``status`` / ``masked`` when the reward manager returned them, and the sum of
    ``token_level_scores`` (else ``rm_scores``) as the score. Returns the number of rows fed.

    Raises:
        ConfigError: A row's task is not one of the sampler's.
    """
    extra = batch.non_tensor_batch
    scores_tensor = batch.batch[
        "token_level_scores" if "token_level_scores" in batch.batch else "rm_scores"
    ]
    scores = scores_tensor.sum(dim=-1).tolist()
    size = len(scores)
    tasks: list[str] = []
    outcomes: list[Outcome] = []
    for i in range(size):
        row = {key: extra[key][i] for key in _ROW_FIELDS if key in extra}
        tasks.append(task_info(row, i).id)
        outcome: dict[str, Any] = {"score": float(scores[i])}
        for key in ("status", "masked"):
            if key in extra:
                outcome[key] = (
                    extra[key][i].item() if hasattr(extra[key][i], "item") else extra[key][i]
                )
        outcomes.append(outcome)
    sampler.update(tasks, outcomes)
    return size


class VerlSamplerFeedback:
    """Mixin for verl's ``RayPPOTrainer``: feeds each step's verdicts to its train sampler.

    ``class Trainer(VerlSamplerFeedback, RayPPOTrainer)``, built with
    ``train_sampler=StatefulTaskSampler(...)``. verl calls ``_update_actor(batch)`` once a step,
    after the reward and its extra info (``status``, ``masked``) are in the batch and before the
    checkpoint, so a saved sampler state includes the step's verdicts. Steps inside
    ``trainer.critic_warmup`` skip the actor update and are not fed.
    """

    train_dataloader: Any

    def _update_actor(self, batch: Any) -> Any:
        sampler = getattr(self.train_dataloader, "sampler", None)
        if not isinstance(sampler, StatefulTaskSampler):
            raise ConfigError("VerlSamplerFeedback needs train_sampler=StatefulTaskSampler(...)")
        feed_verl_batch(sampler.sampler, batch)
        return super()._update_actor(batch)  # type: ignore[misc]
