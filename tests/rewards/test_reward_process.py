"""Process rewards: step ends from offsets, placement on tokens, discounted returns."""

from __future__ import annotations

import pytest
import torch
from assay.rewards.process import (
    discounted_returns,
    place_step_rewards,
    step_end_tokens_from_offsets,
    step_scores,
)

from assay.errors import ConfigError
from assay.types import StepResult


@pytest.mark.parametrize(
    ("offsets", "ends", "expected"),
    [
        # "Step one.\nStep two." as tokens [Step][ one][.][\n][Step][ two][.]
        ([(0, 4), (4, 8), (8, 9), (9, 10), (10, 14), (14, 18), (18, 19)], [9, 19], [2, 6]),
        # a step ending inside a token maps to that token
        ([(0, 3), (3, 5), (5, 9)], [4, 9], [1, 2]),
        # a special token with (0, 0) at the start does not confuse the search
        ([(0, 0), (0, 3), (3, 6)], [3, 6], [1, 2]),
        # an end past the text maps to the last token
        ([(0, 3), (3, 6)], [100], [1]),
    ],
    ids=["newline-steps", "inside-token", "special-token", "past-end"],
)
def test_step_end_tokens(
    offsets: list[tuple[int, int]], ends: list[int], expected: list[int]
) -> None:
    assert step_end_tokens_from_offsets(offsets, ends) == expected


def test_place_steps_and_outcome() -> None:
    # step rewards on their end tokens, outcome on the last response token (row 0 ends at 3);
    # a step index past the response moves onto its last token
    mask = torch.tensor([[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]])
    got = place_step_rewards(
        [[0.5, 0.25], [1.0]], [[1, 9], [0]], mask, outcome=torch.tensor([1.0, 2.0])
    )
    expected = torch.tensor([[0, 0.5, 0, 1.25, 0], [1.0, 0, 0, 0, 2.0]])
    torch.testing.assert_close(got, expected)


def test_discounted_returns() -> None:
    # G_t = r_t + gamma * G_{t+1}: token rewards [1, 0, 2, 0], gamma 0.5 -> [1.5, 1, 2, 0]
    got = place_step_rewards([[1.0, 2.0]], [[0, 2]], torch.ones(1, 4, dtype=torch.long), gamma=0.5)
    torch.testing.assert_close(got, torch.tensor([[1.5, 1.0, 2.0, 0.0]]))
    torch.testing.assert_close(
        discounted_returns(torch.tensor([[0.0, 0.0, 1.0]]), 1.0), torch.ones(1, 3)
    )


def test_mismatched_steps() -> None:
    # a step count that differs from its ends is a caller error
    with pytest.raises(ConfigError):
        place_step_rewards([[1.0, 2.0]], [[0]], torch.ones(1, 3))


def test_step_scores_in_index_order() -> None:
    # verdict steps may arrive out of order; rewards follow the step index
    steps = (StepResult(1, "b", True, 1.0), StepResult(0, "a", False, 0.0))
    assert step_scores(steps) == [0.0, 1.0]
