"""`selfdx/interview` throughput at a simulated API latency, against the limit its question
chains set.

    python bench/bench_interview.py                      # 400 cases, C = 20, 3 runs
    python bench/bench_interview.py --connections 5,20 --runs 1

Workload: fresh profiles sampled from the bundled demo graph (Types 1 and 2, `--per-type`
each, seed 0), interviewed by `selfdx/kg-interviewer` with `selfdx/kg-patient` as the patient
role; both wait `--latency` seconds per call and share one connection pool of C
(`max_connections`), so at most C calls are in flight, as with one API key.

A case is a chain of calls that cannot overlap: interviewer, patient, interviewer, ... A dry run
without latency counts each case's calls (the same calls are made with latency: both policies
are deterministic). No schedule can beat limit = max(total calls x L / C, longest chain x L);
efficiency = limit / measured wall time (from the `eval()` call to its return, log written).

Inspect's floor makes the same calls (every message list of the dry run, to the same two models
with the same latency) from the thinnest task: no case model, parsing, store, leak checks or
scoring. Its efficiency is what Inspect itself allows on this machine; the two alternate.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time

from _common import machine, say, spread, table
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.event import ModelEvent
from inspect_ai.model import ChatMessage, GenerateConfig, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_floor import constant
from pydantic import TypeAdapter

from selfdx.datasets.interview.cases import case_to_sample
from selfdx.datasets.interview.demo_graph import demo_kg
from selfdx.datasets.interview.loading import sampled_cases
from selfdx.providers import simulated_latency
from selfdx.scorers.interview.scorer import interview_scorer
from selfdx.solvers.interview.solver import interview

VARIANTS = ("1", "2")
MESSAGE: TypeAdapter[ChatMessage] = TypeAdapter(ChatMessage)
RECOMMENDED = {"log_realtime": False, "score_display": False}


def workload(per_type: int) -> Task:
    cases = sampled_cases(demo_kg(), VARIANTS, per_type, seed=0, source="demo")
    return Task(
        dataset=MemoryDataset([case_to_sample(c) for c in cases], name="bench_interview"),
        solver=interview("demo", "interview", 12, "letters", "profile"),
        scorer=interview_scorer("demo"),
        message_limit=30,
    )


def planned_calls(log) -> list[Sample]:
    """Per case, every model call of its interview in order: (role, the messages sent)."""
    samples = []
    for sample in log.samples:
        calls = [
            {"role": event.role or "interviewer", "input": [m.model_dump() for m in event.input]}
            for event in sample.events
            if isinstance(event, ModelEvent)
        ]
        samples.append(Sample(id=sample.id, input="", metadata={"calls": calls}))
    return samples


@solver
def calls_only() -> Solver:
    """Inspect's floor: the same calls with the same messages, and nothing else."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        patient = get_model(role="patient", required=True)
        for call in state.metadata["calls"]:
            messages = [MESSAGE.validate_python(m) for m in call["input"]]
            if call["role"] == "patient":
                await patient.generate(messages)
            else:
                state.messages = messages
                state = await generate(state)
        return state

    return solve


def floor_task(samples: list[Sample]) -> Task:
    return Task(dataset=samples, solver=calls_only(), scorer=constant(), name="interview_floor")


def run(
    per_type: int, latency: float, connections: int, task: Task | None = None, keep: bool = False
) -> tuple[float, int, list[int], int, list[Sample]]:
    """(seconds, calls, calls per case, peak calls in flight, planned calls if `keep`) of one
    eval of the workload, or of `task` (the floor)."""
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
            task or workload(per_type),
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
        if task is None:
            chains = [
                len(s.store["InterviewTrace:turns"])
                + sum(
                    t["patient"]["attempts"]
                    for t in s.store["InterviewTrace:turns"]
                    if t.get("patient")
                )
                for s in log.samples
            ]
        else:
            chains = [len(s.metadata["calls"]) for s in log.samples]
        plan = planned_calls(log) if keep else []
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    peak = max((s.peak_in_flight for s in simulated_latency.STATS.values()), default=0)
    return seconds, simulated_latency.total_calls(), chains, peak, plan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-type", type=int, default=200, help="cases per type (Types 1 and 2)")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per call")
    parser.add_argument("--connections", default="20", help="pool sizes C, comma-separated")
    parser.add_argument("--runs", type=int, default=3, help="runs per pool size")
    args = parser.parse_args()
    say(f"machine: {machine()}")
    _, calls, chains, _, plan = run(args.per_type, 0.0, 50, keep=True)
    floor = floor_task(plan)
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
        timed: dict[str, list[float]] = {"selfdx": [], "Inspect's floor": []}
        for repetition in range(args.runs):
            # selfdx and the floor alternate, so that load from other processes hits both
            for label, task in (("selfdx", None), ("Inspect's floor", floor)):
                took, made, _, peak, _ = run(args.per_type, args.latency, connections, task)
                if made != calls:
                    raise RuntimeError(f"{label} made {made} calls, the dry run {calls}")
                timed[label].append(took)
                say(
                    f"  C={connections} {label} run {repetition + 1}: {took:.2f} s, efficiency "
                    f"{limit / took:.2f}, peak in flight {peak}"
                )
        for label, seconds in timed.items():
            rows.append(
                [
                    f"{connections}",
                    label,
                    f"{limit:.2f}",
                    spread(seconds),
                    spread([limit / s for s in seconds]),
                ]
            )
        ratios = [a / b for a, b in zip(timed["selfdx"], timed["Inspect's floor"], strict=True)]
        say(f"  selfdx / floor wall time, per repetition: {spread(ratios)}")
    say()
    say(table(rows, ["C", "task", "limit s", "measured s", "efficiency"]))
    say(f"machine after: {machine()}")


if __name__ == "__main__":
    main()
