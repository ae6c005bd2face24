"""OpenRLHF 0.11.2's own remote-reward client against a real ``assay serve`` on loopback.

OpenRLHF's ``SingleTurnAgentExecutor`` (what ``--reward.remote_url`` sets up) decodes prompt and
response with ``skip_special_tokens=False`` and posts ``{"query", "prompts", "labels"}`` with
aiohttp, with no way to add an ``Authorization`` header: the token travels as the secret path
segment ``/t/<token>/get_reward``. The server is the one of docs/integrations.md's OpenRLHF
recipe, started from the page's own lines. Only the model's generation is stood in for (vLLM needs a
GPU): the executor is handed the token ids a policy wrote, and everything after that is
OpenRLHF's code. The tokenizer is a real Hugging Face tokenizer built on the spot.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from docs_recipes import OpenRLHFRecipe, openrlhf_recipe
from openrlhf.utils.agent import SingleTurnAgentExecutor
from trainer_tokenizer import build_tokenizer
from transformers import AutoTokenizer

PROMPT = "Natalia sold 48 clips in April and half as many in May. How many in all?"


@dataclass
class _Served:
    port: int
    token: str
    recipe: OpenRLHFRecipe

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path.format(token=self.token)}"


@pytest.fixture(scope="module")
def served() -> Iterator[_Served]:
    # the server of docs/integrations.md's OpenRLHF recipe, started as written there (its
    # token from its export line; port 0 and 1 worker for this machine)
    recipe = openrlhf_recipe()
    assert recipe.serve[:2] == ["assay", "serve"] and "--token" not in recipe.serve
    process = subprocess.Popen(
        [sys.executable, "-m", "assay.cli", *recipe.serve[1:]],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "ASSAY_TOKEN": recipe.token},  # the recipe's export line
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert "listening on http://127.0.0.1:" in line, line
        # the token is not in the process list (as --token TOKEN was)
        assert recipe.token not in Path(f"/proc/{process.pid}/cmdline").read_text()
        yield _Served(int(line.rsplit(":", 1)[1]), recipe.token, recipe)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return AutoTokenizer.from_pretrained(str(build_tokenizer(tmp_path_factory.mktemp("tok"))))


@dataclass
class _Policy:
    """Stands in for vLLM's engine: returns the token ids of a written answer."""

    tokenizer: Any
    text: str
    calls: list[list[int]] = field(default_factory=list)

    async def generate(
        self, prompt_ids: list[int], params: Any, multi_modal_data: Any = None
    ) -> Any:
        self.calls.append(prompt_ids)
        ids = self.tokenizer.encode(self.text, add_special_tokens=False)
        out = SimpleNamespace(token_ids=ids, text=self.text, finish_reason="stop", logprobs=None)
        return SimpleNamespace(outputs=[out])


def _run_executor(url: str, tokenizer: Any, response: str, label: str) -> dict[str, Any]:
    executor = SingleTurnAgentExecutor(remote_rm_url=url)
    params = SimpleNamespace(max_tokens=64, logprobs=None)
    policy = _Policy(tokenizer, response)
    out: dict[str, Any] = asyncio.run(
        executor.execute(PROMPT, label, params, 512, tokenizer, policy)
    )
    assert len(policy.calls) == 1
    return out


# (what the policy wrote, label, reward): the turn ends with the chat template's end token,
# which OpenRLHF's decode keeps in the text it posts
CASES = [
    ("48 + 24 = 72. #### 72<|im_end|>", "72", 1.0),
    ("48 + 24 = 72. The answer is \\boxed{72}.<|im_end|><|endoftext|>", "72", 1.0),
    ("48 + 24 = 71. #### 71<|im_end|>", "72", 0.0),
    # an end token glued inside the number must not turn 7 into 72 (or the reverse)
    ("#### 7<|im_end|>2", "72", 0.0),
]


@pytest.mark.parametrize(("response", "label", "reward"), CASES)
def test_openrlhf_client_with_special_tokens_kept(
    served: _Served, tokenizer: Any, response: str, label: str, reward: float
) -> None:
    out = _run_executor(served.url("/t/{token}/get_reward"), tokenizer, response, label)
    # OpenRLHF keeps the lists of a one-query request as they are
    assert out["reward"] == [reward]
    assert out["scores"] == [reward]
    assert out["extra_logs"]["masked"] == [0.0]


SQ = {
    "language": "python",
    "entry_point": "sq",
    "tests": "def check(candidate):\n    assert candidate(3) == 9\n    assert candidate(-2) == 4\n",
}
UNTAG = {
    "language": "python",
    "entry_point": "untag",
    "tests": "def check(candidate):\n    assert candidate('a</s>b') == 'ab'\n",
}
CALLS = next(
    json.loads(line)
    for line in (Path(__file__).parents[2] / "fixtures/agent/cases.jsonl").open()
    if '"agent-game-python-calls"' in line
)
END_TOKENS = ["<|im_end|>", "</s>", "<|eot_id|>", "<end_of_turn>", "<|endoftext|>",
              "<|im_end|>\n<|endoftext|><|endoftext|>"]  # fmt: skip


def _routed(domain: str, reference: Any) -> str:
    return json.dumps({"domain": domain, "reference": reference})


# (what the policy wrote before its end token, label, reward): every reader, not only the
# sentence reader of math, must see the answer without the token glued to it (a closing fence
# followed by <|im_end|> was no fence, a program ending in </s> no Python: 'unparsable', 0.0)
ANSWERS = [
    ("```python\ndef sq(x):\n    return x * x\n```", _routed("code", SQ), 1.0),
    ("def sq(x):\n    return x * x", _routed("code", SQ), 1.0),
    ("Here it is:\n```python\ndef sq(x):\n    return x + x\n```", _routed("code", SQ), 0.0),
    # a token inside the code is the code's own: only the ends are taken off
    (
        "```python\ndef untag(s):\n    return s.replace('</s>', '')\n```",
        _routed("code", UNTAG),
        1.0,
    ),
    ("```python\ndef untag(s):\n    return s\n```", _routed("code", UNTAG), 0.0),
    (CALLS["response"], _routed("agent", CALLS["reference"]), 1.0),
    ("[get_weather(city='Tokyo')]", _routed("agent", CALLS["reference"]), 0.0),
]


@pytest.mark.parametrize("end", END_TOKENS, ids=range(len(END_TOKENS)))
@pytest.mark.parametrize("case", ANSWERS, ids=range(len(ANSWERS)))
def test_every_domain_reads_past_the_end_token(
    served: _Served, tokenizer: Any, case: tuple[str, str, float], end: str
) -> None:
    answer, label, reward = case
    out = _run_executor(served.url("/t/{token}/get_reward"), tokenizer, answer + end, label)
    assert out["reward"] == [reward], out["extra_logs"]
    assert out["extra_logs"]["masked"] == [0.0]


LONG_PROMPT = (
    "Read the examples, then answer the last question. "
    + "Filler sentence about clips and apples that pads the prompt. " * 40
    + "Example: 40 + 32 clips in all. #### 72\n"
    + "Question: Natalia sold 48 clips in April and half as many in May. How many in all?\n"
)


@pytest.mark.parametrize(
    ("response", "reward"),
    [
        ("48 + 24 = 72. #### 72<|im_end|>", 1.0),
        # no answer of its own: the worked example's #### 72 is the prompt's, not the response's
        ("I am not sure.<|im_end|>", 0.0),
        ("#### 71<|im_end|>", 0.0),
    ],
)
def test_a_prompt_cut_from_the_left_is_still_taken_off(
    served: _Served, tokenizer: Any, response: str, reward: float
) -> None:
    # OpenRLHF keeps the last max_length - max_tokens prompt tokens and posts the decode of
    # those plus the response as the query, with the whole prompt in prompts[i]
    executor = SingleTurnAgentExecutor(remote_rm_url=served.url("/t/{token}/get_reward"))
    params = SimpleNamespace(max_tokens=64, logprobs=None)
    policy = _Policy(tokenizer, response)
    prompt_ids = tokenizer(text=LONG_PROMPT, add_special_tokens=False)["input_ids"]
    assert len(prompt_ids) > 256 - 64  # the premise: the executor cuts it
    out = asyncio.run(executor.execute(LONG_PROMPT, "72", params, 256, tokenizer, policy))
    assert len(policy.calls[0]) == 256 - 64
    query = tokenizer.decode(out["observation_tokens"], skip_special_tokens=False)
    assert not query.startswith(LONG_PROMPT) and "#### 72" in query
    assert out["reward"] == [reward]


COUNT = 160


def test_as_many_samples_at_once_as_a_rollout_sends_all_get_rewards(
    served: _Served, tokenizer: Any
) -> None:
    # OpenRLHF posts one request per finished sample, as they finish, and gives up on one after
    # 5 tries a second apart (a None reward then stops training): the server as the recipe
    # starts it must take a rollout's samples at once (with the old default --queue 64, 31 of
    # these 160 were lost)
    url = served.url("/t/{token}/get_reward")
    executor = SingleTurnAgentExecutor(remote_rm_url=url)

    # each answer takes 50 ms of its own (1 worker: 8 s for all), longer than OpenRLHF's tries
    label = _routed(
        "code", {**SQ, "tests": "def check(candidate):\n    assert candidate(3) == 9\n"}
    )
    slow = "import time\n\n\ndef sq(x):\n    time.sleep(0.05)\n    return x {} x\n"
    codes = [slow.format("*"), slow.format("+")]

    async def all_at_once(count: int) -> list[Any]:
        calls = [
            executor._fetch_rewards_via_http([PROMPT + codes[k % 2]], [PROMPT], [label])
            for k in range(count)
        ]
        return list(await asyncio.gather(*calls, return_exceptions=True))

    answers = asyncio.run(all_at_once(COUNT))
    lost = [a for a in answers if isinstance(a, BaseException)]
    assert not lost, f"{len(lost)} of {COUNT} lost: {lost[0]!r}"
    assert [a[0]["rewards"] for a in answers] == [[1.0 - k % 2] for k in range(COUNT)]


def test_decoded_query_keeps_the_special_tokens(tokenizer: Any) -> None:
    # the premise: what OpenRLHF's executor decodes (skip_special_tokens=False) ends in the token
    ids = tokenizer.encode(PROMPT + CASES[0][0], add_special_tokens=False)
    assert tokenizer.decode(ids, skip_special_tokens=False).endswith("#### 72<|im_end|>")


def _post(served: _Served, path: str, headers: dict[str, str] | None = None) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    body = json.dumps({"query": [PROMPT + "#### 72"], "prompts": [PROMPT], "labels": ["72"]})
    headers = {k: v.format(token=served.token) for k, v in (headers or {}).items()}
    connection.request("POST", path.format(token=served.token), body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    return response.status


@pytest.mark.parametrize(
    ("path", "headers", "status"),
    [
        ("/t/{token}/get_reward", None, 200),
        ("/t/{token}/", None, 200),
        ("/get_reward", {"Authorization": "Bearer {token}"}, 200),
        ("/get_reward", None, 401),
        ("/t/{token}x/get_reward", None, 401),
        ("/t/x{token}/get_reward", None, 401),
        ("/t//get_reward", None, 404),
        ("/t/nope/get_reward", {"Authorization": "Bearer {token}"}, 401),
        ("/get_reward?token={token}", None, 401),
        ("/t/{token}/elsewhere", None, 404),
    ],
)
def test_token_in_the_path(
    served: _Served, path: str, headers: dict[str, str] | None, status: int
) -> None:
    assert _post(served, path, headers) == status


def test_recipe_flags_and_url_reach_the_server(served: _Served) -> None:
    # docs/integrations.md's launch line: its flags exist in OpenRLHF's own parser (read from
    # its source: importing it needs GPUs), and its --reward.remote_url is where the client
    # posts, with the recipe's token and this server's port
    import openrlhf

    flags = served.recipe.train_flags
    parser_source = (Path(openrlhf.__file__).parent / "cli" / "train_ppo_ray.py").read_text()
    for flag in (f for f in flags if f.startswith("--")):
        assert f'"{flag}"' in parser_source, flag
    template = flags[flags.index("--reward.remote_url") + 1]
    url = template.replace("$ASSAY_TOKEN", served.token).replace(":8000/", f":{served.port}/")
    executor = SingleTurnAgentExecutor(remote_rm_url=url)
    answers = asyncio.run(executor._fetch_rewards_via_http([PROMPT + "#### 72"], [PROMPT], ["72"]))
    assert answers[0]["rewards"] == [1.0]
