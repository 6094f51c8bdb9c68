"""Safe-Psych throughput: selfdx against the physical limit and against the lock-step schedule.

    python bench/bench_safe_psych.py              # everything, 3 runs per configuration
    python bench/bench_safe_psych.py --runs 1 --connections 20 --skip-reference

Workload: `sequential_info_abstention_aware` on synthetic cases in the published CSV schema,
generated here (synthetic_safe_psych.py); subject `selfdx/keyword`, judge `selfdx/rules-judge`;
every call waits a simulated API latency L (selfdx/providers/simulated_latency.py).

1. One connection pool of C shared by model and judge: both offline models have the same
   connection key (pool "default") and the same `max_connections=C`, so Inspect gives them
   one semaphore. efficiency = limit / measured, where
   limit = max(total calls x L / C, longest trajectory x 2 x L).
2. The reference's limits, as separate pools (5 model connections, 10 judge connections): the
   lock-step schedule (lockstep.py), with and without its per-step worker processes, against
   selfdx under the same limits; speed-up = lock-step seconds / selfdx seconds, per repetition.

Every eval is timed from the `eval()` call to its return (task construction, dataset loading,
scoring and writing the log included) in a process whose imports are already done: a small
warm-up eval runs first, and its time is printed separately. Runs of the configurations are
interleaved so that load from other processes spreads over all of them.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from _common import machine, median, say, spread, table
from inspect_ai import Task, eval
from inspect_ai.model import GenerateConfig, get_model
from inspect_floor import floor_task
from lockstep import plan, run_lockstep
from synthetic_safe_psych import write_cases

from selfdx.datasets.safe_psych import load_cases
from selfdx.providers import simulated_latency
from selfdx.providers.simulated_latency import LatencyProfile

STRATEGY = "sequential_info_abstention_aware"
SUBJECT = "keyword"
JUDGE = "rules-judge"

SELFDX_ARGS = {"strategy": STRATEGY, "judge_cache": False}

# Eval options of the two settings compared (samples are logged in both).
RECOMMENDED = {"log_realtime": False, "score_display": False}
DEFAULTS: dict[str, object] = {}


@dataclass
class Run:
    seconds: float
    cpu_seconds: float
    calls: int
    peaks: dict[str, int]
    late_ms: float
    log_bytes: int


def run_selfdx(
    data: Path,
    latency: float,
    model_connections: int,
    judge_connections: int | None,
    max_samples: int | None,
    task: Task | None = None,
    **eval_options: object,
) -> Run:
    """One `selfdx/safe_psych` eval over the cases in `data` (or `task`, the Inspect floor);
    judge_connections None means one pool shared with the model."""
    shared = judge_connections is None
    model = get_model(
        f"selfdx/{SUBJECT}",
        config=GenerateConfig(max_connections=model_connections),
        memoize=False,
        latency=latency,
        pool="default" if shared else "model",
    )
    grader = get_model(
        f"selfdx/{JUDGE}",
        config=GenerateConfig(max_connections=judge_connections or model_connections),
        memoize=False,
        latency=latency,
        pool="default" if shared else "judge",
    )
    simulated_latency.reset_stats()
    log_dir = tempfile.mkdtemp(prefix="selfdx-bench-logs-")
    try:
        start, cpu_start = time.perf_counter(), time.process_time()
        logs = eval(
            task or "selfdx/safe_psych",
            task_args={}
            if task
            else {"data": str(data), "strategy": STRATEGY, "judge_cache": False},
            model=model,
            model_roles={"grader": grader},
            max_samples=max_samples,
            display="none",
            log_dir=log_dir,
            **eval_options,
        )
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        if logs[0].status != "success":
            raise RuntimeError(f"eval failed: {logs[0].error}")
        log_bytes = sum(p.stat().st_size for p in Path(log_dir).rglob("*") if p.is_file())
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    stats = simulated_latency.STATS
    calls = simulated_latency.total_calls()
    late_ms = 1000 * sum(s.late for s in stats.values()) / max(1, calls)
    peaks = {pool: s.peak_in_flight for pool, s in stats.items()}
    return Run(seconds, cpu, calls, peaks, late_ms, log_bytes)


def check_calls(run: Run, planned: int) -> None:
    if run.calls != planned:
        raise RuntimeError(f"selfdx made {run.calls} calls, the plan has {planned}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=1048)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per call")
    parser.add_argument("--connections", default="5,20,100", help="shared-pool sizes C")
    parser.add_argument("--runs", type=int, default=3, help="runs per configuration")
    parser.add_argument(
        "--samples-per-connection",
        type=float,
        default=2.0,
        help="max_samples = this x connections with the recommended settings",
    )
    parser.add_argument(
        "--defaults-at",
        default="20,100",
        help="shared-pool sizes also timed with Inspect's defaults ('' for none)",
    )
    parser.add_argument(
        "--floor-at",
        default="20,100",
        help="shared-pool sizes also timed as Inspect's floor: the same calls from a task with "
        "no selfdx code ('' for none)",
    )
    parser.add_argument("--skip-reference", action="store_true", help="skip the 5/10 comparison")
    parser.add_argument(
        "--no-log-samples", action="store_true", help="also time without logging samples"
    )
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="selfdx-bench-"))
    csv_path = write_cases(workdir / "cases.csv", args.cases)
    cases = load_cases(str(csv_path))
    turns = plan(cases, STRATEGY, SUBJECT, JUDGE)
    total_calls = 2 * sum(turns.values())
    longest = max(turns.values())
    latency = args.latency
    say(f"machine: {machine()}")
    say(
        f"workload: {len(cases)} cases, {sum(turns.values())} turns, {total_calls} calls "
        f"(model + judge), longest trajectory {longest} turns, latency {latency * 1000:.0f} ms"
    )
    warm = write_cases(workdir / "warm.csv", 30, seed=1)
    began = time.perf_counter()
    run_selfdx(warm, 0.01, 10, None, None)
    say(f"warm-up eval (30 cases, first in this process): {time.perf_counter() - began:.2f} s")

    floor = floor_task(cases, turns)
    # (label, C, limit, max_samples, options, task: None for selfdx/safe_psych)
    configs: list[tuple[str, int, float, int | None, dict[str, object], Task | None]] = []
    defaults_at = {int(c) for c in args.defaults_at.split(",") if c}
    floor_at = {int(c) for c in args.floor_at.split(",") if c}
    for connections in [int(c) for c in args.connections.split(",")]:
        limit = max(total_calls * latency / connections, longest * 2 * latency)
        max_samples = max(1, round(args.samples_per_connection * connections))
        recommended = f"C={connections}, recommended"
        configs.append((recommended, connections, limit, max_samples, RECOMMENDED, None))
        if connections in floor_at:
            label = f"C={connections}, Inspect floor (same calls, no selfdx code)"
            configs.append((label, connections, limit, max_samples, RECOMMENDED, floor))
        if args.no_log_samples:
            options = {**RECOMMENDED, "log_samples": False}
            label = f"C={connections}, recommended, no samples logged"
            configs.append((label, connections, limit, max_samples, options, None))
        if connections in defaults_at:
            label = f"C={connections}, Inspect defaults"
            configs.append((label, connections, limit, None, {}, None))

    results: dict[str, list[Run]] = {label: [] for label, *_ in configs}
    lock_workers: list[float] = []
    lock_plain: list[float] = []
    ours: list[Run] = []
    profile = LatencyProfile(mean=latency)
    for repetition in range(1, args.runs + 1):
        say(f"-- repetition {repetition}/{args.runs}")
        for label, connections, limit, max_samples, options, task in configs:
            run = run_selfdx(csv_path, latency, connections, None, max_samples, task, **options)
            check_calls(run, total_calls)
            results[label].append(run)
            say(
                f"  {label}: {run.seconds:.2f} s (efficiency {limit / run.seconds:.2f}), "
                f"cpu {run.cpu_seconds:.1f} s, peak in flight {run.peaks}, "
                f"loop lag {run.late_ms:.1f} ms/call, log {run.log_bytes / 1e6:.1f} MB"
            )
        if args.skip_reference:
            continue
        result = asyncio.run(run_lockstep(cases, STRATEGY, profile, 5, 10, workers=True))
        if result.turns != turns:
            raise RuntimeError("the lock-step simulation diverged from the planned trajectories")
        lock_workers.append(result.seconds)
        say(
            f"  lock-step, worker per step: {result.seconds:.2f} s ({result.steps} steps, "
            f"{result.model_calls + result.judge_calls} calls)"
        )
        result = asyncio.run(run_lockstep(cases, STRATEGY, profile, 5, 10, workers=False))
        lock_plain.append(result.seconds)
        say(f"  lock-step, schedule only: {result.seconds:.2f} s")
        max_samples = round(args.samples_per_connection * 15)
        run = run_selfdx(csv_path, latency, 5, 10, max_samples, **RECOMMENDED)
        check_calls(run, total_calls)
        ours.append(run)
        say(f"  selfdx, pools 5 (model) + 10 (judge): {run.seconds:.2f} s, peaks {run.peaks}")

    rows = []
    for label, connections, limit, max_samples, *_ in configs:
        seconds = [r.seconds for r in results[label]]
        rows.append(
            [
                label,
                str(max_samples or f"{connections} (default)"),
                f"{limit:.2f}",
                spread(seconds),
                spread([limit / s for s in seconds]),
                f"{median([r.cpu_seconds for r in results[label]]):.1f}",
            ]
        )
    say()
    say(f"machine: {machine()}")
    say(
        table(
            rows,
            [
                "one pool shared by model and judge",
                "max_samples",
                "limit s",
                "measured s",
                "efficiency",
                "cpu s",
            ],
        )
    )
    for connections in sorted(floor_at & {c for _, c, *_ in configs}):
        ours_label = f"C={connections}, recommended"
        floor_label = f"C={connections}, Inspect floor (same calls, no selfdx code)"
        ratios = [
            o.seconds / f.seconds
            for o, f in zip(results[ours_label], results[floor_label], strict=True)
        ]
        cpu = [
            o.cpu_seconds / f.cpu_seconds
            for o, f in zip(results[ours_label], results[floor_label], strict=True)
        ]
        say(
            f"C={connections}: selfdx takes {spread(ratios)}x the wall time of Inspect's floor "
            f"and {spread(cpu)}x its CPU time (each ratio within one repetition)"
        )
    if args.skip_reference:
        shutil.rmtree(workdir, ignore_errors=True)
        return
    model_limit = max(total_calls / 2 * latency / 5, longest * 2 * latency)
    ours_seconds = [r.seconds for r in ours]
    say()
    say(
        table(
            [
                ["lock-step, a worker process per step (as the reference)", spread(lock_workers)],
                ["lock-step schedule only (no worker processes)", spread(lock_plain)],
                ["selfdx (per-case pipeline in Inspect)", spread(ours_seconds)],
                ["limit for the 5 model connections", f"{model_limit:.2f}"],
            ],
            ["limits 5 model + 10 judge connections", "seconds"],
        )
    )
    speedup = [w / o for w, o in zip(lock_workers, ours_seconds, strict=True)]
    speedup_plain = [p / o for p, o in zip(lock_plain, ours_seconds, strict=True)]
    say(
        f"speed-up over the lock-step rollout: {spread(speedup)}; over its schedule alone: "
        f"{spread(speedup_plain)}; selfdx efficiency against its limit: "
        f"{spread([model_limit / s for s in ours_seconds])}"
    )
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
