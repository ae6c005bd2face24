"""Agent: 20-step tool-calling trajectories verified per second, against a naive replay.

Workload: a retail environment at tau-bench scale (500 users, 1,000 orders, 50 products), the
task "look up each of ten users, then give each $5 of store credit" (20 calls; the gold is the
ten ``issue_credit`` calls), sampled GRPO-style: groups of 8 trajectories per task, 6 exact and
2 with a corrected bad call (21 calls) or a wrong amount (goal missed).

- assay: ``AgentVerifier.verify`` (trajectory parsing, strict schema checks, replay on a fresh
  environment, canonical state hash, BFCL-style matching is off, facts, step results). The
  gold replay of a task is cached, so a group pays for it once.
- assay, cold: the same with the task cache cleared before every trajectory (gold replayed
  each time), to show what the cache is worth.
- baseline (a), naive replay: what a straightforward implementation does per trajectory:
  ``copy.deepcopy`` of the initial data, replay of the gold calls, ``json.dumps(sort_keys=True)``
  + sha256 of the state; ``copy.deepcopy`` again, each call's arguments checked by a
  precompiled ``jsonschema`` validator, replay, hash, compare. It computes only the outcome (no
  step results, no facts, no int/float or list-order canonicalisation), so the comparison
  favours it.
- baseline (b): the same with the whole state copied by a pickle round trip (C speed) instead
  of ``copy.deepcopy``: what is left is the cost of copying and hashing the whole state.

The methods take turns on chunks of 40 trajectories, so the load of other jobs on a shared
machine falls on all of them alike. Run: ``python bench/agent_bench.py [--trajectories 400]``.
Prints trajectories/s and ratios.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import pickle
import time
from typing import Any

from assay.domains.agent.envs import env_registry
from assay.domains.agent.envs.retail import RetailEnv
from assay.domains.agent.task import _cache
from assay.domains.agent.verifier import AgentVerifier
from assay.verifiers.agent.environment import ToolError

from assay.types import Record

GROUP = 8
CHUNK = 40
FULL = "assay AgentVerifier.verify"
COLD = "assay, task cache cleared each time"
DEEP = "baseline (a): deepcopy + jsonschema + json hash"
FAST = "baseline (b): pickle copy + jsonschema + json hash"


class LargeRetailEnv(RetailEnv):
    """The retail environment with tau-bench-sized data."""

    name = "retail_large"

    @classmethod
    def initial_state(cls) -> dict[str, Any]:
        products = {f"p{i}": {"name": f"item {i}", "price": 1.5 + i, "stock": 100}
                    for i in range(50)}  # fmt: skip
        users, orders = {}, {}
        for u in range(500):
            address = {"street": f"{u} Main St", "city": "Springfield", "zip": f"{10000 + u}"}
            ids = []
            for k in range(2):
                order_id = f"W{100000 + 2 * u + k}"
                items = [{"product_id": f"p{(u + j) % 50}", "quantity": 1 + j,
                          "price": 1.5 + (u + j) % 50} for j in range(3)]  # fmt: skip
                total = round(sum(i["price"] * i["quantity"] for i in items), 2)
                orders[order_id] = {"user_id": f"u{u}", "status": "pending" if k else "delivered",
                                    "address": dict(address), "items": items, "total": total,
                                    "refund": 0, "returned": []}  # fmt: skip
                ids.append(order_id)
            users[f"u{u}"] = {"name": f"User {u}", "email": f"user{u}@example.com",
                              "address": address, "orders": ids, "credit": 0}  # fmt: skip
        return {"users": users, "products": products, "orders": orders, "next_order": 200000}


def _call(k: int, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{k}", "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments)}}]},
        {"role": "tool", "tool_call_id": f"c{k}", "content": '{"ok": true}'},
    ]  # fmt: skip


def make_records(count: int) -> list[Record]:
    records = []
    for n in range(count):
        task, sample = divmod(n, GROUP)
        users = [f"u{(task * 10 + j) % 500}" for j in range(10)]
        reference = {
            "env": "retail_large", "facts": [5],
            "goal": {"calls": [{"name": "issue_credit", "arguments": {"user_id": u, "amount": 5}}
                               for u in users]},
            "gold_steps": 20,
        }  # fmt: skip
        steps: list[dict[str, Any]] = [{"role": "user", "content": "Give each $5 credit."}]
        for j, user in enumerate(users):
            steps += _call(2 * j, "get_user", {"user_id": user})
            amount: Any = 5 if sample != 7 or j != 9 else 50
            if sample == 6 and j == 0:
                steps += _call(100, "issue_credit", {"user_id": user, "amount": "5"})
            steps += _call(2 * j + 1, "issue_credit", {"user_id": user, "amount": amount})
        steps.append({"role": "assistant", "content": "Each now has $5 of credit."})
        records.append(Record(f"t{n}", "agent", "", reference, steps=tuple(steps)))
    return records


def run_assay(records: list[Record], cold: bool) -> tuple[float, list[str]]:
    verifier = AgentVerifier()
    statuses = []
    start = time.perf_counter()
    for record in records:
        if cold:
            _cache.clear()
        statuses.append(verifier.verify(record).status.value)
    return time.perf_counter() - start, statuses


def _naive_hash(state: Any) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


def run_baseline(records: list[Record], fast_copy: bool) -> tuple[float, list[str]]:
    import jsonschema

    initial = LargeRetailEnv.initial_state()
    blob = pickle.dumps(initial)
    validators = {
        name: jsonschema.Draft202012Validator(d.spec.parameters)
        for name, d in LargeRetailEnv.tools.items()
    }

    def fresh() -> dict[str, Any]:
        return pickle.loads(blob) if fast_copy else copy.deepcopy(initial)

    statuses = []
    start = time.perf_counter()
    for record in records:
        gold = LargeRetailEnv()
        gold.state = fresh()  # plain dicts, copied whole
        for call in record.reference["goal"]["calls"]:
            gold.call(call["name"], call["arguments"])
        env = LargeRetailEnv()
        env.state = fresh()
        for message in record.steps:
            for call in message.get("tool_calls") or []:
                name, arguments = (
                    call["function"]["name"],
                    json.loads(call["function"]["arguments"]),
                )
                if not validators[name].is_valid(arguments):
                    continue
                try:
                    env.call(name, arguments)
                except ToolError:
                    continue
        ok = _naive_hash(env.state) == _naive_hash(gold.state)
        statuses.append("reached" if ok else "missed")
    return time.perf_counter() - start, statuses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=400)
    args = parser.parse_args()
    if "retail_large" not in env_registry().names():
        env_registry().register(LargeRetailEnv)
    records = make_records(args.trajectories)
    calls = sum(len(m.get("tool_calls") or []) for m in records[0].steps)
    run_assay(records[:GROUP], cold=False)  # imports, the environment's prepared state
    _cache.clear()
    # the methods take turns chunk by chunk, so load from other jobs hits all of them alike
    timings = dict.fromkeys([FULL, COLD, DEEP, FAST], 0.0)
    statuses, outcomes = [], []
    for first in range(0, len(records), CHUNK):
        chunk = records[first : first + CHUNK]
        seconds, got = run_assay(chunk, cold=False)
        timings[FULL] += seconds
        statuses += got
        timings[COLD] += run_assay(chunk, cold=True)[0]
        seconds, reached_chunk = run_baseline(chunk, fast_copy=False)
        timings[DEEP] += seconds
        outcomes += reached_chunk
        timings[FAST] += run_baseline(chunk, fast_copy=True)[0]
    reached = [s != "missed" for s in outcomes]
    agree = sum((s in ("correct", "partial")) == r for s, r in zip(statuses, reached, strict=True))
    n = len(records)
    print(f"{n} trajectories of {calls} calls (state: 500 users, 1,000 orders), groups of {GROUP}")
    print(f"  statuses: { {s: statuses.count(s) for s in sorted(set(statuses))} }; "
          f"goal-state agreement with the baseline {agree}/{n}")  # fmt: skip
    for label, seconds in timings.items():
        print(f"  {label:<46}{n / seconds:9.1f} traj/s  ({seconds:.2f} s)")
    for base in (DEEP, FAST):
        for label in (FULL, COLD):
            ratio = timings[base] / timings[label]
            print(f"  {label} vs {base.split(':')[0]}: {ratio:.1f}x")


if __name__ == "__main__":
    main()
