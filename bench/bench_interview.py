"""`selfdx/interview` throughput at a simulated API latency, against the limit its question
chains set.

    python bench/bench_interview.py                      # C = 20, 3 runs
    python bench/bench_interview.py --connections 5,20 --runs 1

Workload: fresh profiles sampled from the bundled demo graph (Types 1 and 2, `--per-type`
each, seed 0), interviewed by `selfdx/kg-interviewer` with `selfdx/kg-patient` as the patient
role; both wait `--latency` seconds per call and share one connection pool of C
(`max_connections`), so at most C calls are in flight, as with one API key.

A case is a chain of calls that cannot overlap: interviewer, patient, interviewer, ... A dry run
without latency counts each case's calls (the same calls are made with latency: both policies
are deterministic). No schedule can beat limit = max(total calls x L / C, longest chain x L);
efficiency = limit / measured wall time (from the `eval()` call to its return, log written).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time

from _common import machine, say, spread, table
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig, get_model

from selfdx.datasets.interview_cases import case_to_sample, sampled_cases
from selfdx.datasets.interview_kg import demo_kg
from selfdx.providers import simulated_latency
from selfdx.scorers.interview_scorer import interview_scorer
from selfdx.solvers.interview import interview

VARIANTS = ("1", "2")
RECOMMENDED = {"log_realtime": False, "score_display": False}


def workload(per_type: int) -> Task:
    cases = sampled_cases(demo_kg(), VARIANTS, per_type, seed=0, source="demo")
    return Task(
        dataset=MemoryDataset([case_to_sample(c) for c in cases], name="bench_interview"),
        solver=interview("demo", "interview", 12, "letters", "profile"),
        scorer=interview_scorer("demo"),
        message_limit=30,
    )


def run(per_type: int, latency: float, connections: int) -> tuple[float, int, list[int], int]:
    """(seconds, calls, calls per case, peak calls in flight) of one eval."""
    config = GenerateConfig(max_connections=connections)
    model = get_model(
        "selfdx/kg-interviewer", config=config, memoize=False, latency=latency, pool="default"
    )
    patient = get_model(
        "selfdx/kg-patient", config=config, memoize=False, latency=latency, pool="default"
    )
    simulated_latency.reset_stats()
    log_dir = tempfile.mkdtemp(prefix="selfdx-bench-interview-")
    try:
        start = time.perf_counter()
        (log,) = eval(
            workload(per_type),
            model=model,
            model_roles={"patient": patient},
            max_samples=2 * connections,
            display="none",
            log_dir=log_dir,
            **RECOMMENDED,
        )
        seconds = time.perf_counter() - start
        if log.status != "success":
            raise RuntimeError(f"eval failed: {log.error}")
        chains = [
            len(s.store["InterviewTrace:turns"])
            + sum(
                t["patient"]["attempts"]
                for t in s.store["InterviewTrace:turns"]
                if t.get("patient")
            )
            for s in log.samples
        ]
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    peak = max((s.peak_in_flight for s in simulated_latency.STATS.values()), default=0)
    return seconds, simulated_latency.total_calls(), chains, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-type", type=int, default=100, help="cases per type (Types 1 and 2)")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per call")
    parser.add_argument("--connections", default="20", help="pool sizes C, comma-separated")
    parser.add_argument("--runs", type=int, default=3, help="runs per pool size")
    args = parser.parse_args()
    say(f"machine: {machine()}")
    _, calls, chains, _ = run(args.per_type, 0.0, 50)
    if calls != sum(chains):
        raise RuntimeError(f"{calls} calls made, the chains hold {sum(chains)}")
    longest = max(chains)
    say(
        f"workload: {len(chains)} cases, {calls} calls (interviewer + patient), chains "
        f"{min(chains)}-{longest} calls (mean {calls / len(chains):.1f}), "
        f"latency {args.latency * 1000:.0f} ms"
    )
    rows = []
    for connections in (int(c) for c in args.connections.split(",")):
        limit = max(calls * args.latency / connections, longest * args.latency)
        seconds, peaks = [], []
        for repetition in range(args.runs):
            took, made, _, peak = run(args.per_type, args.latency, connections)
            if made != calls:
                raise RuntimeError(f"run made {made} calls, the dry run {calls}")
            seconds.append(took)
            peaks.append(peak)
            say(
                f"  C={connections} run {repetition + 1}: {took:.2f} s, efficiency "
                f"{limit / took:.2f}, peak in flight {peak}"
            )
        rows.append(
            [
                str(connections),
                f"{limit:.2f}",
                spread(seconds),
                spread([limit / s for s in seconds]),
                str(max(peaks)),
            ]
        )
    say()
    say(table(rows, ["C", "limit s", "measured s", "efficiency", "peak in flight"]))


if __name__ == "__main__":
    main()
