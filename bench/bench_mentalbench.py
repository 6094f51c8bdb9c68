"""MentalBench: load time of all 24,750 items, and items per second against the limit.

    python bench/bench_mentalbench.py                 # 5 load runs, 3 throughput runs
    python bench/bench_mentalbench.py --throughput-runs 1 --limit 5000

1. Load: building the `selfdx/mentalbench` task over the GitHub resources/ folder (reading,
   validating and converting every item to a Sample), in a fresh process per run, imports
   timed separately.
2. Throughput: the whole task with the offline baseline `selfdx/first-option`, every call
   waiting a simulated latency L with C connections (one call per item):
   limit = items x L / C, items per second = items / measured seconds.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO_ROOT, machine, median, say, spread, table
from inspect_ai import Task
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

RESOURCES = REPO_ROOT.parent / "shared" / "mentalbench" / "resources"
RECOMMENDED = {"log_realtime": False, "score_display": False}

LOAD_SCRIPT = """
import json, sys, time
start = time.perf_counter()
from selfdx.inspect_tasks.mentalbench import mentalbench
imported = time.perf_counter()
task = mentalbench(data=sys.argv[1], include_truncated=True)
loaded = time.perf_counter()
print(json.dumps({"imports": imported - start, "load": loaded - imported,
                  "items": len(task.dataset)}))
"""


def time_load(resources: Path) -> dict[str, float]:
    """Build the task in a fresh Python process; seconds for imports and for the load."""
    out = subprocess.run(
        [sys.executable, "-c", LOAD_SCRIPT, str(resources)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def floor_task(resources: Path) -> Task:
    """Inspect's floor: the same samples and prompts (selfdx's prompt step, then Inspect's
    `generate()`), and a constant score instead of parsing and scoring the replies."""
    from selfdx.inspect_tasks.mentalbench import mentalbench

    @scorer(metrics=[mean()])
    def constant() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=1.0)

        return score

    task = mentalbench(data=str(resources), include_truncated=True)
    return Task(dataset=task.dataset, solver=task.solver, scorer=constant(), name="inspect_floor")


def time_eval(
    resources: Path,
    latency: float,
    connections: int,
    max_samples: int,
    limit: int | None,
    floor: bool = False,
) -> tuple[float, int]:
    """Seconds for one eval of the task (or of Inspect's floor), and the calls made."""
    from inspect_ai import eval
    from inspect_ai.model import GenerateConfig, get_model

    from selfdx.providers import simulated_latency

    model = get_model(
        "selfdx/first-option",
        config=GenerateConfig(max_connections=connections),
        memoize=False,
        latency=latency,
    )
    simulated_latency.reset_stats()
    log_dir = tempfile.mkdtemp(prefix="selfdx-bench-mb-")
    try:
        start = time.perf_counter()
        logs = eval(
            floor_task(resources) if floor else "selfdx/mentalbench",
            task_args={} if floor else {"data": str(resources), "include_truncated": True},
            model=model,
            max_samples=max_samples,
            limit=limit,
            display="none",
            log_dir=log_dir,
            **RECOMMENDED,
        )
        seconds = time.perf_counter() - start
        if logs[0].status != "success":
            raise RuntimeError(f"eval failed: {logs[0].error}")
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    return seconds, simulated_latency.total_calls()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--resources", type=Path, default=RESOURCES)
    parser.add_argument("--load-runs", type=int, default=5)
    parser.add_argument("--throughput-runs", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--connections", type=int, default=100)
    parser.add_argument("--max-samples", type=int, default=None, help="default 2 x connections")
    parser.add_argument("--limit", type=int, default=None, help="only the first N items")
    parser.add_argument(
        "--no-floor",
        dest="floor",
        action="store_false",
        help="skip Inspect's floor (the same prompts and calls, a constant score)",
    )
    args = parser.parse_args()
    if not args.resources.is_dir():
        sys.exit(f"no MentalBench resources/ folder at {args.resources}")
    say(f"machine: {machine()}")

    loads = []
    for _ in range(args.load_runs):
        result = time_load(args.resources)
        loads.append(result)
        say(
            f"  load: {result['load']:.2f} s for {result['items']} items "
            f"(imports {result['imports']:.2f} s)"
        )

    max_samples = args.max_samples or 2 * args.connections
    from inspect_ai import eval as inspect_eval  # warm the imports before timing
    from inspect_ai.model import get_model

    del inspect_eval, get_model
    time_eval(args.resources, 0.0, args.connections, max_samples, 20)  # warm-up
    runs = []
    floors: list[float] = []
    for _ in range(args.throughput_runs):
        seconds, calls = time_eval(
            args.resources, args.latency, args.connections, max_samples, args.limit
        )
        limit = calls * args.latency / args.connections
        runs.append((seconds, calls, limit))
        say(
            f"  eval: {calls} items in {seconds:.2f} s, {calls / seconds:.0f} items/s "
            f"(limit {calls / limit:.0f} items/s, efficiency {limit / seconds:.2f})"
        )
        if args.floor:
            took, floor_calls = time_eval(
                args.resources, args.latency, args.connections, max_samples, args.limit, True
            )
            if floor_calls != calls:
                raise RuntimeError(f"the floor made {floor_calls} calls, selfdx {calls}")
            floors.append(took)
            say(f"  Inspect floor (same prompts and calls, constant score): {took:.2f} s")

    say()
    say(f"machine: {machine()}")
    rows = []
    if loads:
        rows.append(
            [
                f"load {loads[0]['items']} items (task construction)",
                spread([r["load"] for r in loads]),
                "10 s target",
                "",
            ]
        )
        rows.append(["imports before the load", spread([r["imports"] for r in loads]), "", ""])
    if runs:
        seconds = [r[0] for r in runs]
        calls, limit = runs[0][1], runs[0][2]
        rows.append(
            [
                f"eval {calls} items, C={args.connections}, L={args.latency * 1000:.0f} ms, "
                f"max_samples={max_samples}",
                spread(seconds),
                f"{limit:.2f} s limit",
                f"{median([calls / s for s in seconds]):.0f} items/s of {calls / limit:.0f}; "
                f"efficiency {spread([limit / s for s in seconds])}",
            ]
        )
    if floors:
        calls, limit = runs[0][1], runs[0][2]
        rows.append(
            [
                "Inspect floor: the same prompts and calls, a constant score",
                spread(floors),
                f"{limit:.2f} s limit",
                f"{median([calls / s for s in floors]):.0f} items/s; selfdx/floor "
                f"{spread([r[0] / f for r, f in zip(runs, floors, strict=True)])}",
            ]
        )
    say(table(rows, ["MentalBench", "seconds", "limit", "rate"]))


if __name__ == "__main__":
    main()
