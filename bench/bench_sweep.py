"""A CPU-bound sweep in one process against `selfdx sweep --processes 2`.

    python bench/bench_sweep.py                # 3 runs of each, 750 items per type and model
    python bench/bench_sweep.py --runs 1 --limit 200

Workload: MentalBench Types 1-4 over the GitHub resources/ folder (`--limit` items of each type)
for two offline models, `selfdx/first-option` and `selfdx/kg-overlap`, every call waiting a
simulated latency L, each model with C connections and every task running at once. At these
latencies one Inspect process is bound by its event loop's CPU (see the README's Performance
section); `processes=2` runs each model's eval-set in its own process.

One process: `run_sweep` in this process, after a warm-up sweep (imports done). Two processes:
the same call with `processes=2`, whose workers start fresh (their imports, about 3 s, are
included). Runs alternate; speed-up = one-process seconds / two-process seconds, per repetition.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO_ROOT, machine, say, spread, table
from inspect_ai.log import list_eval_logs, read_eval_log

from selfdx.sweep import run_sweep

RESOURCES = REPO_ROOT.parent / "shared" / "mentalbench" / "resources"
MODELS = ["selfdx/first-option", "selfdx/kg-overlap"]
TYPES = [1, 2, 3, 4]


def timed_sweep(
    resources: Path, processes: int, limit: int, latency: float, connections: int
) -> tuple[float, int]:
    """Seconds for the sweep and the samples it logged."""
    log_dir = tempfile.mkdtemp(prefix="selfdx-bench-sweep-")
    try:
        start = time.perf_counter()
        ok = run_sweep(
            models=MODELS,
            log_dir=log_dir,
            benchmark="mentalbench",
            variants=TYPES,
            data=str(resources),
            max_connections=connections,
            processes=processes,
            model_args={"latency": latency, "kg": str(resources / "knowledge_graph" / "EN")},
            limit=limit,
            max_tasks=len(MODELS) * len(TYPES),
            max_samples=2 * connections,
            log_realtime=False,
            score_display=False,
            display="none",
        )
        seconds = time.perf_counter() - start
        if not ok:
            raise RuntimeError(f"the sweep did not finish: see {log_dir}")
        samples = 0
        for info in list_eval_logs(log_dir, recursive=True):
            header = read_eval_log(info, header_only=True)
            samples += header.results.completed_samples if header.results else 0
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    return seconds, samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--resources", type=Path, default=RESOURCES)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--limit", type=int, default=750, help="items per type and model")
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--connections", type=int, default=100, help="per model")
    args = parser.parse_args()
    if not args.resources.is_dir():
        sys.exit(f"no MentalBench resources/ folder at {args.resources}")
    say(f"machine: {machine()}")
    planned = args.limit * len(TYPES) * len(MODELS)
    say(
        f"workload: {len(MODELS)} models x Types {TYPES} x {args.limit} items = {planned} "
        f"calls, latency {args.latency * 1000:.0f} ms, {args.connections} connections per model"
    )
    warm, _ = timed_sweep(args.resources, 1, 5, 0.0, args.connections)
    say(f"warm-up sweep (5 items per task, first in this process): {warm:.2f} s")

    seconds: dict[int, list[float]] = {1: [], 2: []}
    for repetition in range(1, args.runs + 1):
        say(f"-- repetition {repetition}/{args.runs}")
        for processes in (1, 2):
            took, samples = timed_sweep(
                args.resources, processes, args.limit, args.latency, args.connections
            )
            if samples != planned:
                raise RuntimeError(f"{samples} samples logged, {planned} planned")
            seconds[processes].append(took)
            say(f"  processes={processes}: {took:.2f} s, {samples / took:.0f} items/s")
    speedup = [one / two for one, two in zip(seconds[1], seconds[2], strict=True)]
    say()
    say(f"machine: {machine()}")
    rows = [
        [
            f"processes={n}",
            spread(seconds[n]),
            spread([planned / s for s in seconds[n]]),
        ]
        for n in (1, 2)
    ]
    say(table(rows, [f"sweep of {planned} items", "seconds", "items/s"]))
    say(f"speed-up with two processes: {spread(speedup)} (each ratio within one repetition)")


if __name__ == "__main__":
    main()
