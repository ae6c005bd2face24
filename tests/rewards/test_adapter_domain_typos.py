"""A misspelt default domain fails where the user names it, in every adapter (not only verl).

TRL's reward function and the reward server take a domain for rows or labels that name none;
a typo there made every sample a masked ``error`` (``None`` to TRL, ``null`` to OpenRLHF): a
run with no reward and no message.
"""

from __future__ import annotations

import pytest
from assay.rewards.adapters.serve import ServeConfig, ServeCore
from assay.rewards.adapters.trl import async_reward_function, reward_function

from assay.errors import UnknownDomainError

TYPOS = [("maths", "math"), ("agnet", "agent"), ("finanse", "finance"), ("mesch", "mesh")]
GOOD = ["math", "code", "agent", "finance", "mesh", "openai/gsm8k", "Code "]


@pytest.mark.parametrize(("typo", "suggested"), TYPOS)
@pytest.mark.parametrize("make", [reward_function, async_reward_function])
def test_trl_reward_function_refuses_a_typo(typo: str, suggested: str | None, make: object) -> None:
    with pytest.raises(UnknownDomainError) as raised:
        make(typo)  # type: ignore[operator]
    if suggested is not None:
        assert f"'{suggested}'" in str(raised.value)


@pytest.mark.parametrize("domain", [*GOOD, None])
def test_trl_reward_function_takes_known_names(domain: str | None) -> None:
    assert callable(reward_function(domain))


@pytest.mark.parametrize(("typo", "suggested"), TYPOS)
def test_the_server_refuses_a_typo_before_it_listens(typo: str, suggested: str | None) -> None:
    with pytest.raises(UnknownDomainError) as raised:
        ServeCore(ServeConfig(port=0, domain=typo))
    if suggested is not None:
        assert f"'{suggested}'" in str(raised.value)
