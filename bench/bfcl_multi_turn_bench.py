"""BFCL multi-turn: assay's replay against BFCL's own checker, on BFCL's data.

For every entry of the chosen categories (bfcl-eval's ``BFCL_v4_multi_turn_*`` rows with their
possible answers), four trajectories in BFCL's result form (per turn, one step of call texts):

- ``gold``: the ground truth itself: must be correct;
- ``skip``: one gold call left out (the entry's ``k``-th call, ``k`` = entry number mod calls);
- ``wrong_arg``: one argument of one gold call changed (a string gets ``_x``, a number +1, a
  boolean flipped, a list loses its last item);
- ``extra``: one state-changing call added at the end of the first non-empty turn (a file
  created, a tweet posted, a fuel top-up...; from :data:`EXTRA_CALLS`, first involved class
  that has one).

Each is judged by assay (:func:`assay.domains.agent.bfcl_multi_turn.verify_multi_turn`: BFCL's
classes, safe dispatch, no eval) and by BFCL's own ``multi_turn_checker`` (its harness, which
``eval``s the call texts: fine here, the texts are the bench's own). Prints per category and
kind: the count, how many assay calls correct, how many BFCL calls valid, the agreement (and
the seconds each spent, side by side in the same loop), and
for every perturbed trajectory still judged correct, why (the skipped call's result is also
returned by another call, the changed argument gives the gold result, the extra call was
refused). Run: ``python bench/bfcl_multi_turn_bench.py [--categories base,miss_func,...]
[--limit N]``.
"""

from __future__ import annotations

import argparse
import copy
import importlib.resources
import itertools
import json
import time
from collections import Counter
from typing import Any

from assay.domains.agent.bfcl_multi_turn import verify_multi_turn
from assay.domains.agent.envs.bfcl import BfclWorld, Scenario, is_error_result, parse_call_text
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

from assay.types import Record

EXTRA_CALLS = {
    "GorillaFileSystem": "touch(file_name='assay_extra.txt')",
    "TwitterAPI": "post_tweet(content='assay extra', tags=[], mentions=[])",
    "MessageAPI": "add_contact(user_name='assay_extra')",
    "TicketAPI": "create_ticket(title='assay extra', description='', priority=1)",
    "TradingBot": "fund_account(amount=1.0)",
    "VehicleControlAPI": "fillFuelTank(fuelAmount=1.0)",
    "TravelAPI": "set_budget_limit(access_token='abc', budget_limit=1.0)",
}
KINDS = ("gold", "skip", "wrong_arg", "extra")
_RUN = itertools.count()


def load(category: str) -> list[dict[str, Any]]:
    data = importlib.resources.files("bfcl_eval") / "data"
    rows = (data / f"BFCL_v4_multi_turn_{category}.json").read_text().splitlines()
    answers = (data / "possible_answer" / f"BFCL_v4_multi_turn_{category}.json").read_text()
    gold = {a["id"]: a["ground_truth"] for a in map(json.loads, answers.splitlines())}
    out = []
    for row in map(json.loads, rows):
        out.append({
            "id": row["id"], "involved_classes": row["involved_classes"],
            "initial_config": row["initial_config"], "ground_truth": gold[row["id"]],
        })  # fmt: skip
    return out


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "_x"
    if isinstance(value, list) and value:
        return value[:-1]
    return None


def perturb(entry: dict[str, Any], number: int) -> dict[str, tuple[list[list[str]], str]]:
    """The four trajectories of an entry, each with a note of what was changed."""
    turns: list[list[str]] = entry["ground_truth"]
    flat = [(t, i) for t, calls in enumerate(turns) for i in range(len(calls))]
    out = {"gold": (copy.deepcopy(turns), "")}
    t, i = flat[number % len(flat)]
    skipped = copy.deepcopy(turns)
    out["skip"] = (skipped, skipped[t].pop(i))
    for t, i in flat[number % len(flat) :] + flat[: number % len(flat)]:
        call = parse_call_text(turns[t][i])
        values = [*((k, v) for k, v in enumerate(call.args)), *call.kwargs.items()]
        options = [(k, _changed(v)) for k, v in values if _changed(v) is not None]
        if options:
            key, new = options[number % len(options)]
            args, kwargs = list(call.args), dict(call.kwargs)
            if isinstance(key, int):
                args[key] = new
            else:
                kwargs[key] = new
            changed = copy.deepcopy(turns)
            changed[t][i] = type(call)(call.name, tuple(args), kwargs).text()
            out["wrong_arg"] = (changed, f"{turns[t][i]} -> {changed[t][i]}")
            break
    extra = next((EXTRA_CALLS[c] for c in entry["involved_classes"] if c in EXTRA_CALLS), None)
    if extra is not None:
        first = next(t for t, calls in enumerate(turns) if calls)
        added = copy.deepcopy(turns)
        added[first].append(extra)
        out["extra"] = (added, extra)
    return out


def bfcl_valid(entry: dict[str, Any], turns: list[list[str]]) -> bool:
    decoded = [[calls] if calls else [] for calls in turns]
    model = f"assay_bench_{next(_RUN)}"  # BFCL keeps instances in globals by model name
    test_entry = {k: entry[k] for k in ("id", "involved_classes", "initial_config")}
    result = multi_turn_checker(decoded, entry["ground_truth"], test_entry, "multi_turn", model)
    return bool(result["valid"])


def assay_correct(entry: dict[str, Any], turns: list[list[str]]) -> tuple[bool, str]:
    response = json.dumps([[calls] if calls else [] for calls in turns])
    verdict = verify_multi_turn(Record(entry["id"], "agent", response, entry))
    return verdict.status.value == "correct", verdict.message or ""


def why_still_correct(entry: dict[str, Any], kind: str, note: str, turns: list[list[str]]) -> str:
    """Why a perturbed trajectory still passes, read off a replay of it and of the gold."""
    gold = _results(entry, entry["ground_truth"])
    if kind == "skip":
        result = gold[note][0]
        if is_error_result(result):
            return "the skipped call fails in the gold too (error result, no state change)"
        others = [r for call, rs in gold.items() for r in rs if call != note] + gold[note][1:]
        if result in others:
            return "the skipped call's result is also returned by another gold call"
        return "other (look at the entry)"
    target = note.rsplit(" -> ", maxsplit=1)[-1]
    result = _results(entry, turns)[target][0]
    if is_error_result(result):
        return f"the {kind} call is refused (error result, state unchanged): {result[:70]}"
    if kind == "wrong_arg" and result == gold.get(note.split(" -> ", maxsplit=1)[0], [None])[0]:
        return "the changed argument gives the gold call's result and state"
    return f"the {kind} call is accepted but changes no compared state: {result[:70]}"


def _results(entry: dict[str, Any], turns: list[list[str]]) -> dict[str, list[str]]:
    world = BfclWorld(Scenario.from_reference(entry))
    out: dict[str, list[str]] = {}
    for calls in turns:
        for call in calls:
            out.setdefault(call, []).append(world.run(parse_call_text(call)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--categories", default="base,miss_func,miss_param,long_context")
    parser.add_argument("--limit", type=int, default=0, help="entries per category (0: all)")
    args = parser.parse_args()
    total = Counter[str]()
    seconds_spent: Counter[str] = Counter()
    for category in args.categories.split(","):
        entries = load(category)
        if args.limit:
            entries = entries[: args.limit]
        counts: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
        reasons: Counter[tuple[str, str]] = Counter()
        disagreements: list[str] = []
        started = time.perf_counter()
        for number, entry in enumerate(entries):
            for kind, (turns, note) in perturb(entry, number).items():
                tick = time.perf_counter()
                ours, message = assay_correct(entry, turns)
                tock = time.perf_counter()
                theirs = bfcl_valid(entry, turns)
                seconds_spent["assay"] += tock - tick
                seconds_spent["bfcl"] += time.perf_counter() - tock
                row = counts[kind]
                row["n"] += 1
                row["assay_correct"] += ours
                row["bfcl_valid"] += theirs
                row["agree"] += ours == theirs
                if ours != theirs:
                    disagreements.append(f"{entry['id']} {kind} {note!r}: assay {ours} ({message})")
                elif ours and kind != "gold":
                    reasons[(kind, why_still_correct(entry, kind, note, turns))] += 1
        seconds = time.perf_counter() - started
        print(f"\n== multi_turn_{category}: {len(entries)} entries, {seconds:.1f} s")
        print(f"{'kind':<10} {'n':>5} {'assay ok':>9} {'BFCL ok':>8} {'agree':>6}")
        for kind in KINDS:
            row = counts[kind]
            print(f"{kind:<10} {row['n']:>5} {row['assay_correct']:>9} {row['bfcl_valid']:>8} "
                  f"{row['agree']:>6}")  # fmt: skip
            total.update({f"{kind}:{k}": v for k, v in row.items()})
        for (kind, reason), count in sorted(reasons.items()):
            print(f"  still correct, {kind}: {count} x {reason}")
        for line in disagreements[:20]:
            print(f"  DISAGREE {line}")
        print(f"  disagreements: {len(disagreements)}")
    print(f"\n== time: assay {seconds_spent['assay']:.1f} s, BFCL's checker "
          f"{seconds_spent['bfcl']:.1f} s (BFCL / assay = "
          f"{seconds_spent['bfcl'] / max(seconds_spent['assay'], 1e-9):.2f}; assay replays a "
          "task's gold once for its four trajectories, BFCL for each)")  # fmt: skip
    print("\n== all categories")
    for kind in KINDS:
        n, agree = total[f"{kind}:n"], total[f"{kind}:agree"]
        ours, theirs = total[f"{kind}:assay_correct"], total[f"{kind}:bfcl_valid"]
        print(f"{kind:<10} n={n} assay correct={ours} BFCL valid={theirs} "
              f"agreement={agree / max(n, 1):.1%}")  # fmt: skip


if __name__ == "__main__":
    main()
