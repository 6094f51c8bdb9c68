"""What a repeated judge prompt costs: a call, a hit of Inspect's on-disk cache, and a hit of
selfdx's memory of answers (`selfdx.judge.grader_calls`), in CPU per ask.

Each mode runs in a fresh process: one Inspect eval of three samples, each asking the `grader`
role (`selfdx/rules-judge`, offline) the same judge prompt `--asks` times, the log written. A
mode's cost per ask is its process CPU minus that of the same eval asking nothing, divided by
the asks; modes alternate over `--runs` repetitions and the medians are reported.

    python bench/bench_judge_memory.py                 # 3 runs of 3 x 1,000 asks (~1 min)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time

from _common import REPO_ROOT, machine, median, table

MODES = {
    "nothing": "no ask (the baseline subtracted from the others)",
    "call": "a call (Inspect's cache off)",
    "inspect_cache": "a hit of Inspect's on-disk cache",
    "memory": "a hit of selfdx's memory (ask_grader, judge_cache on)",
}

WORKER = """
import json, sys, time
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import CachePolicy, GenerateConfig, get_model
from inspect_ai.scorer import Score, mean, scorer
from inspect_ai.solver import solver
import selfdx._registry  # noqa: F401  (the selfdx/... models)
from selfdx.judge.behaviour import judge_prompt, parse_judge_output
from selfdx.judge.grader_calls import GRADER_SEED, ask_grader

MODE, ASKS = sys.argv[1], int(sys.argv[2])
REPLY = "The notes point to a moderate depressive episode: F32.1."
PROMPT = judge_prompt(REPLY)

@solver
def asks():
    async def solve(state, generate):
        grader = get_model(role="grader", required=True)
        config = GenerateConfig(temperature=0.0, max_tokens=128, seed=GRADER_SEED)
        for _ in range(ASKS):
            if MODE == "memory":
                await ask_grader(PROMPT, lambda a: parse_judge_output(a, reply=REPLY))
            elif MODE != "nothing":
                cache = CachePolicy(expiry=None) if MODE == "inspect_cache" else False
                output = await grader.generate(PROMPT, config=config, cache=cache)
                parse_judge_output(output.completion, reply=REPLY)
        return state
    return solve

@scorer(metrics=[mean()])
def constant():
    async def score(state, target):
        return Score(value=1.0)
    return score

task = Task(dataset=[Sample(input="x", id=i) for i in range(3)], solver=asks(), scorer=constant())
start = time.process_time()
(log,) = eval(task, model="selfdx/keyword", model_roles={"grader": "selfdx/rules-judge"},
              display="none", log_dir=sys.argv[3])
assert log.status == "success", log.error
print(json.dumps({"cpu": time.process_time() - start}))
"""


def run(mode: str, asks: int, cache_dir: str) -> float:
    with tempfile.TemporaryDirectory() as logs:
        done = subprocess.run(
            [sys.executable, "-c", WORKER, mode, str(asks), logs],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            env={**__import__("os").environ, "INSPECT_CACHE_DIR": cache_dir},
            timeout=600,
            check=True,
        )
    return json.loads(done.stdout.strip().splitlines()[-1])["cpu"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--asks", type=int, default=1000, help="asks per sample (3 samples)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    total = 3 * args.asks
    print(f"{time.strftime('%Y-%m-%d %H:%M')} | {machine()} | {total} asks per mode")
    cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory() as cache_dir:
        run("inspect_cache", 1, cache_dir)  # the one answer the cache serves from then on
        for _ in range(args.runs):
            for mode in MODES:
                cpu[mode].append(run(mode, args.asks, cache_dir))
    base = median(cpu["nothing"])
    per_ask = {mode: (median(cpu[mode]) - base) / total * 1000 for mode in MODES}
    rows = [
        [
            text,
            f"{median(cpu[mode]):.2f} s",
            "" if mode == "nothing" else f"{per_ask[mode]:.3f} ms",
            "" if mode == "nothing" else f"{per_ask[mode] / per_ask['call']:.2f}×",
        ]
        for mode, text in MODES.items()
    ]
    print(table(rows, ["each ask is", "process CPU (median)", "CPU per ask", "of a call"]))


if __name__ == "__main__":
    main()
