"""The reference rollout's schedule, simulated against the same latency model.

All live cases advance together, stage by stage: every live case generates (at most
`gen_concurrency` calls at once), then every reply is judged (at most `judge_concurrency`), then
the cases that reached Diagnose or Abstain drop out. With `workers=True`, each of these batches
runs in a fresh Python process, as in the reference (`generate_batch` / `judge_batch_parallel`
subprocesses): process start, importing the provider SDK, JSONL in and out. The replies are the
offline policies' (`selfdx/keyword` and `selfdx/rules-judge`), so the trajectories, and the
number of calls, are the same as in an Inspect run with those models.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

from selfdx.datasets.behaviour_labels import derive_action
from selfdx.datasets.safe_psych import Case
from selfdx.judge.behaviour import judge_prompt, parse_judge_output
from selfdx.providers.offline import POLICIES, _load_policies
from selfdx.providers.simulated_latency import LatencyProfile
from selfdx.solvers.safe_psych.prompts import system_prompt, turn_prompt

WORKER = Path(__file__).with_name("lockstep_worker.py")


@dataclass
class Trajectory:
    """One case's conversation and where it stands."""

    case: Case
    messages: list[ChatMessage] = field(default_factory=list)
    turns: int = 0
    action: str | None = None

    @property
    def done(self) -> bool:
        return self.action in ("Diagnose", "Abstain") or self.turns >= self.case.num_stages


@dataclass
class LockstepResult:
    seconds: float
    model_calls: int
    judge_calls: int
    steps: int
    worker_seconds: float = 0.0
    turns: dict[str, int] = field(default_factory=dict)


def _policy(name: str):
    _load_policies()
    return POLICIES[name]


def advance(trajectories: list[Trajectory], strategy: str, stage: int) -> None:
    """Add the user turn of `stage` to each trajectory."""
    for t in trajectories:
        if not t.messages:
            t.messages.append(ChatMessageSystem(content=system_prompt()))
        prompt = turn_prompt(strategy, list(t.case.sections), stage)
        t.messages.append(ChatMessageUser(content=prompt))


def answer(trajectories: list[Trajectory], subject: str) -> list[str]:
    """The subject policy's replies, appended to each conversation."""
    policy = _policy(subject)
    replies = []
    for t in trajectories:
        reply = policy(t.messages, {}).strip()
        t.messages.append(ChatMessageAssistant(content=reply))
        t.turns += 1
        replies.append(reply)
    return replies


def judge(trajectories: list[Trajectory], replies: list[str], judge_name: str) -> None:
    """The judge policy's verdicts, turned into actions as the solver does."""
    policy = _policy(judge_name)
    for t, reply in zip(trajectories, replies, strict=True):
        verdict = policy([ChatMessageUser(content=judge_prompt(reply))], {})
        features = parse_judge_output(verdict)
        is_last = t.turns == t.case.num_stages
        t.action = derive_action(features.primary_answer, features.info_request, is_last)


def plan(cases: list[Case], strategy: str, subject: str, judge_name: str) -> dict[str, int]:
    """Turns per case id, without any latency (the workload both schedules must reproduce)."""
    trajectories = [Trajectory(case) for case in cases]
    stage = 1
    while live := [t for t in trajectories if not t.done]:
        advance(live, strategy, stage)
        judge(live, answer(live, subject), judge_name)
        stage += 1
    return {t.case.id: t.turns for t in trajectories}


async def _calls_in_process(count: int, concurrency: int, profile: LatencyProfile) -> None:
    semaphore = asyncio.Semaphore(concurrency)

    async def call() -> None:
        async with semaphore:
            await asyncio.sleep(profile.draw())

    await asyncio.gather(*(call() for _ in range(count)))


async def _calls_in_worker(
    rows: list[dict], concurrency: int, profile: LatencyProfile, kind: str, workdir: Path
) -> None:
    """Run one batch of calls in a fresh worker process, via JSONL files."""
    source = workdir / f"{kind}_in.jsonl"
    target = workdir / f"{kind}_out.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(WORKER),
        str(source),
        str(target),
        str(concurrency),
        str(profile.mean),
        profile.dist,
        str(profile.spread),
    )
    if await process.wait() != 0:
        raise RuntimeError(f"lock-step {kind} worker failed")
    done = sum(1 for line in target.read_text(encoding="utf-8").splitlines() if line.strip())
    if done != len(rows):
        raise RuntimeError(f"lock-step {kind} worker answered {done} of {len(rows)} rows")


async def run_lockstep(
    cases: list[Case],
    strategy: str,
    latency: LatencyProfile,
    gen_concurrency: int = 5,
    judge_concurrency: int = 10,
    workers: bool = True,
    subject: str = "keyword",
    judge_name: str = "rules-judge",
) -> LockstepResult:
    """Time the reference's lock-step rollout of `cases` (a sequential strategy)."""
    trajectories = [Trajectory(case) for case in cases]
    model_calls = judge_calls = steps = 0
    worker_seconds = 0.0
    with tempfile.TemporaryDirectory(prefix="selfdx-lockstep-") as tmp:
        workdir = Path(tmp)
        start = time.perf_counter()
        stage = 1
        while live := [t for t in trajectories if not t.done]:
            steps += 1
            advance(live, strategy, stage)
            if workers:
                rows = [
                    {
                        "sample_id": t.case.id,
                        "conversation": [{"role": m.role, "content": m.text} for m in t.messages],
                    }
                    for t in live
                ]
                began = time.perf_counter()
                await _calls_in_worker(rows, gen_concurrency, latency, "generate", workdir)
                worker_seconds += time.perf_counter() - began
            else:
                await _calls_in_process(len(live), gen_concurrency, latency)
            model_calls += len(live)
            replies = answer(live, subject)
            if workers:
                rows = [
                    {"sample_id": t.case.id, "step_index": stage, "model_output_raw": reply}
                    for t, reply in zip(live, replies, strict=True)
                ]
                began = time.perf_counter()
                await _calls_in_worker(rows, judge_concurrency, latency, "judge", workdir)
                worker_seconds += time.perf_counter() - began
            else:
                await _calls_in_process(len(live), judge_concurrency, latency)
            judge_calls += len(live)
            judge(live, replies, judge_name)
            stage += 1
        seconds = time.perf_counter() - start
    return LockstepResult(
        seconds=seconds,
        model_calls=model_calls,
        judge_calls=judge_calls,
        steps=steps,
        worker_seconds=worker_seconds,
        turns={t.case.id: t.turns for t in trajectories},
    )
