"""Load test of ``assay serve``: 64 concurrent OpenRLHF clients against 127.0.0.1.

Starts ``assay serve --port 0`` in a subprocess. Baseline, same run: one client alone for a few
seconds (``--baseline``, default 5 s). Then N client threads (default 64) post batches of math
items (the cases of fixtures/math/cases.jsonl) to ``/get_reward`` for a fixed duration (default
60 s) or until a request cap, whichever comes first. Reports p50 / p99 latency and their ratio
to the lone client's p50, requests and items per second against the lone client's, dropped
requests (any answer but a complete 200: must be 0), the CPU time per request of the server
process and of its workers under load, and the resident memory of the server and its workers:
after warm-up, sampled every half second under load (peak), and after. The run fails when a
request was dropped, the server did not exit cleanly, or memory grew by more than
``--max-rss-growth`` (default 1.5x) between warm-up and the end of the load.

Run: ``python bench/serve_bench.py [--duration 60] [--clients 64] [--batch 8] [--workers 2]``.
Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "fixtures" / "math" / "cases.jsonl"
HOST = "127.0.0.1"


def load_items() -> list[tuple[str, str]]:
    """(response, reference answer) pairs from the math fixtures."""
    items = []
    with CASES.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                case = json.loads(line)
                reference = case["reference"]
                answer = reference["answer"] if isinstance(reference, dict) else reference
                items.append((str(case["response"]), str(answer)))
    return items


def rss_kb(pid: int) -> int:
    """Resident memory of a process, in kB (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return 0
    return 0


def children(pid: int) -> list[int]:
    """Child processes of any thread of ``pid`` (workers are started by a server thread)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used, all its threads (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory(pid: int) -> dict[str, float]:
    workers = children(pid)
    return {
        "server_rss_mb": round(rss_kb(pid) / 1024, 1),
        "workers": len(workers),
        "workers_rss_mb": round(sum(rss_kb(p) for p in workers) / 1024, 1),
    }


def total_rss_mb(pid: int) -> float:
    return total_rss_mb_of(memory(pid))


class RssSampler:
    """Samples the server's and its workers' resident memory every half second."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_mb = total_rss_mb(pid)
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            self.peak_mb = max(self.peak_mb, total_rss_mb(self.pid))
            self.samples += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def run_load(
    port: int, bodies: list[tuple[bytes, int]], clients: int, duration: float, cap: int
) -> tuple[Load, float]:
    load = Load(port, bodies, time.monotonic() + duration, cap)
    threads = [threading.Thread(target=load.client, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return load, time.perf_counter() - started


def post(port: int, body: bytes) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection(HOST, port, timeout=120)
    try:
        connection.request("POST", "/get_reward", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


class Load:
    """Client threads sharing a deadline, a request budget and the tallies."""

    def __init__(self, port: int, bodies: list[tuple[bytes, int]], deadline: float, cap: int):
        self.port, self.bodies, self.deadline = port, bodies, deadline
        self.remaining = cap
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.items = 0
        self.dropped: list[str] = []

    def take(self) -> bool:
        with self.lock:
            if self.remaining <= 0 or time.monotonic() >= self.deadline:
                return False
            self.remaining -= 1
            return True

    def client(self, index: int) -> None:
        turn = index
        while self.take():
            body, size = self.bodies[turn % len(self.bodies)]
            turn += 1
            started = time.perf_counter()
            try:
                status, payload = post(self.port, body)
                ok = status == 200 and len(payload.get("rewards", ())) == size
                problem = "" if ok else f"HTTP {status}: {str(payload)[:200]}"
            except (OSError, ValueError, http.client.HTTPException) as exc:
                problem = f"{type(exc).__name__}: {exc}"
            elapsed = time.perf_counter() - started
            with self.lock:
                if problem:
                    self.dropped.append(problem)
                else:
                    self.latencies.append(elapsed)
                    self.items += size


def start_server(workers: int) -> tuple[subprocess.Popen[str], int]:
    command = [sys.executable, "-m", "assay.cli", "serve", "--host", HOST, "--port", "0"]
    command += ["--workers", str(workers), "--queue", "256"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    line = process.stderr.readline() if process.stderr is not None else ""
    if "listening on" not in line:
        process.kill()
        raise SystemExit(f"server did not start: {line}")
    # keep draining the server's stderr, so warnings under load never fill the pipe and block it
    stream = process.stderr
    threading.Thread(target=lambda: stream and stream.read(), daemon=True).start()
    return process, int(line.rsplit(":", 1)[1])


def total_rss_mb_of(usage: dict[str, float]) -> float:
    return float(usage["server_rss_mb"] + usage["workers_rss_mb"])


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load (60)")
    parser.add_argument("--clients", type=int, default=64, help="concurrent clients (64)")
    parser.add_argument("--batch", type=int, default=8, help="items per request (8)")
    parser.add_argument("--workers", type=int, default=2, help="server worker processes (2)")
    parser.add_argument("--max-requests", type=int, default=200_000, help="request cap")
    parser.add_argument("--baseline", type=float, default=5.0, help="seconds of one client (5)")
    parser.add_argument(
        "--max-rss-growth", type=float, default=1.5, help="fail above this memory growth (1.5x)"
    )
    args = parser.parse_args()

    items = load_items()
    bodies = []
    for start in range(0, len(items), args.batch):
        chunk = items[start : start + args.batch]
        payload = {"query": [r for r, _ in chunk], "labels": [a for _, a in chunk]}
        bodies.append((json.dumps(payload).encode(), len(chunk)))
    process, port = start_server(args.workers)
    try:
        for body, _ in bodies:  # warm-up: one pass over the cases, workers started
            post(port, body)
        alone, alone_wall = run_load(port, bodies, 1, args.baseline, args.max_requests)
        before = memory(process.pid)
        workers = children(process.pid)
        cpu_before = cpu_s(process.pid), sum(cpu_s(p) for p in workers)
        sampler = RssSampler(process.pid)
        load, wall = run_load(port, bodies, args.clients, args.duration, args.max_requests)
        sampler.stop()
        cpu_after = cpu_s(process.pid), sum(cpu_s(p) for p in workers)
        after = memory(process.pid)
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=120)
    report = {
        "clients": args.clients,
        "batch": args.batch,
        "workers": args.workers,
        "duration_s": round(wall, 1),
        "requests": len(load.latencies),
        "items": load.items,
        "requests_per_s": round(len(load.latencies) / wall, 1),
        "items_per_s": round(load.items / wall, 1),
        "p50_ms": round(1000 * percentile(load.latencies, 0.50), 1),
        "p99_ms": round(1000 * percentile(load.latencies, 0.99), 1),
        "mean_ms": round(1000 * statistics.fmean(load.latencies), 1) if load.latencies else None,
        # CPU per request under load: what the server (HTTP, parsing, batching) and the workers
        # (verifying) spend, which a busy machine's queueing does not inflate as it does latency
        "server_cpu_ms_per_request": round(
            1000 * (cpu_after[0] - cpu_before[0]) / max(len(load.latencies), 1), 2
        ),
        "workers_cpu_ms_per_request": round(
            1000 * (cpu_after[1] - cpu_before[1]) / max(len(load.latencies), 1), 2
        ),
        "dropped": len(load.dropped) + len(alone.dropped),
        "baseline_one_client": {
            "requests": len(alone.latencies),
            "items_per_s": round(alone.items / alone_wall, 1),
            "p50_ms": round(1000 * percentile(alone.latencies, 0.50), 1),
        },
        "p50_vs_one_client": round(
            percentile(load.latencies, 0.50) / percentile(alone.latencies, 0.50), 2
        ),
        "p99_vs_one_client": round(
            percentile(load.latencies, 0.99) / percentile(alone.latencies, 0.50), 2
        ),
        "throughput_vs_one_client": round(
            (load.items / wall) / max(alone.items / alone_wall, 1e-9), 2
        ),
        "memory_before": before,
        "memory_peak_mb": round(sampler.peak_mb, 1),
        "memory_after": after,
        "memory_growth": round(total_rss_mb_of(after) / max(total_rss_mb_of(before), 1e-9), 3),
        "memory_samples": sampler.samples,
        "server_exit_code": code,
    }
    print(json.dumps(report, indent=2))
    for problem in (alone.dropped + load.dropped)[:5]:
        print("dropped:", problem, file=sys.stderr)
    if report["memory_growth"] > args.max_rss_growth:
        print(f"memory grew {report['memory_growth']}x under load", file=sys.stderr)
    if load.dropped or alone.dropped or code != 0 or report["memory_growth"] > args.max_rss_growth:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
