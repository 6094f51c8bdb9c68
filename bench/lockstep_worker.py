"""One lock-step batch in a fresh process, as the reference's per-step workers run.

Usage: lockstep_worker.py IN.jsonl OUT.jsonl CONCURRENCY LATENCY DIST SPREAD

Like the reference's API workers, it starts a Python process, imports the provider SDK, reads
the batch, makes the calls with bounded concurrency (here: waits the simulated latency), saves
progress every 25 rows and writes the results.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import openai  # noqa: F401  (an API worker of the reference imports its provider SDK at start)

from selfdx.providers.simulated_latency import LatencyProfile

SAVE_EVERY = 25


async def run(source: Path, target: Path, concurrency: int, profile: LatencyProfile) -> None:
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line]
    semaphore = asyncio.Semaphore(concurrency)

    async def call(row: dict) -> dict:
        async with semaphore:
            await asyncio.sleep(profile.draw())
        return {"sample_id": row["sample_id"], "model_output": ""}

    outputs: list[dict] = []
    for finished in asyncio.as_completed([call(row) for row in rows]):
        outputs.append(await finished)
        if len(outputs) % SAVE_EVERY == 0:
            target.write_text("".join(json.dumps(o) + "\n" for o in outputs), encoding="utf-8")
    target.write_text("".join(json.dumps(o) + "\n" for o in outputs), encoding="utf-8")


def main() -> None:
    source, target, concurrency, latency, dist, spread = sys.argv[1:7]
    profile = LatencyProfile(mean=float(latency), dist=dist, spread=float(spread))
    asyncio.run(run(Path(source), Path(target), int(concurrency), profile))


if __name__ == "__main__":
    main()
