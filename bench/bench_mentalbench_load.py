"""MentalBench loading time: all 24,750 items from the GitHub resources/ folder and from a CSV.

    python bench/bench_mentalbench_load.py                 # 5 runs per stage
    python bench/bench_mentalbench_load.py --runs 9 --data PATH

Stages, each timed separately (median, min-max over the runs):
1. read and validate every item of the resources/ folder (`load_items`);
2. the same plus filtering and conversion to Inspect samples (`mentalbench_samples`);
3. building the whole `mentalbench` task (what `inspect eval` does before the first call);
4. read and validate the same items from a CSV in the Hugging Face schema (written once to a
   temporary file from the folder's items).
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import inspect_ai
import pandas as pd

from selfdx.datasets.mentalbench.dataset import load_items, mentalbench_samples
from selfdx.datasets.mentalbench.schema import MentalBenchItem
from selfdx.inspect_tasks.mentalbench import mentalbench

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "mentalbench" / "resources"


def timed(action: Callable[[], object], runs: int) -> tuple[list[float], object]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return times, result


def summary(times: list[float]) -> str:
    return f"{statistics.median(times):6.2f} s  ({min(times):.2f}-{max(times):.2f}, n={len(times)})"


def hf_rows(items: list[MentalBenchItem]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "type": f"type{item.type}",
            "code": item.code.replace("-", "_"),
            "model": item.generator,
            "id": item.number,
            "question": item.question,
            "option": "\n"
            + "".join(f"    {x}. {n}\n" for x, n in zip("ABCD", item.options, strict=True))
            + "    ",
            "answer": item.answer,
        }
        for item in items
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    logging.getLogger("selfdx").setLevel(logging.ERROR)  # the truncated-items notice, each run

    load = load_items(args.data)  # warm the file cache once; not timed
    print(
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}, Python "
        f"{platform.python_version()}, inspect-ai {inspect_ai.__version__}; data {args.data}"
    )
    rows = []
    times, items = timed(lambda: load_items(args.data), args.runs)
    rows.append(("read + validate folder", times, len(items)))  # type: ignore[arg-type]
    times, samples = timed(
        lambda: mentalbench_samples(args.data, include_truncated=True), args.runs
    )
    rows.append(("folder -> Inspect samples", times, len(samples)))  # type: ignore[arg-type]
    times, task = timed(lambda: mentalbench(data=str(args.data)), args.runs)
    rows.append(("build the task (6 truncated left out)", times, len(task.dataset)))  # type: ignore[attr-defined]
    with tempfile.TemporaryDirectory() as folder:
        csv_path = Path(folder) / "mentalbench.csv"
        hf_rows(load).to_csv(csv_path, index=False)
        times, from_csv = timed(lambda: load_items(csv_path), args.runs)
        rows.append(("read + validate HF-schema CSV", times, len(from_csv)))  # type: ignore[arg-type]
    for name, stage_times, count in rows:
        print(f"{name:40s} {summary(stage_times)}   {count:6d} items")


if __name__ == "__main__":
    main()
