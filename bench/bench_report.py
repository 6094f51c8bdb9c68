"""`selfdx report` over logs of 24,750 items x 5 models: wall time and peak memory against the
time needed only to read the same logs.

    python bench/bench_report.py                  # 3 interleaved repetitions (~50 min)
    python bench/bench_report.py --runs 1 --logs-dir /tmp/other-logs

1. Logs: five real `inspect_ai.eval()` runs of `selfdx/mentalbench` over the GitHub resources/
   folder (24,744 items: the task leaves the 6 truncated generations out), with the recommended
   throughput settings (max_connections 100, max_samples 200, no realtime log, no score display,
   display none, no latency), about 5.5 min each here. No log is derived from another. The five
   report rows come from three offline models and two prompt styles: `selfdx/first-option` and
   `selfdx/kg-overlap` with the default prompts, `selfdx/faults` wrapping kg-overlap with 5%
   empty replies, and first-option and kg-overlap again with the `multiple` prompt and shuffled
   options. The logs are made once into `--logs-dir` (one folder per configuration) and reused
   while each folder holds one finished log of that configuration with every sample.
2. Measurements, each in a fresh Python process started through a small launcher (so its peak
   RSS is its own), all kinds interleaved within each repetition:
   - `stock-all`, `stock-narrow`: `read_eval_log_samples`, all fields, and with the
     `exclude_fields` the report used before (messages, events, store, attachments). It reads
     each sample with a new zip reader that parses the whole zip directory again (about 0.1 s a
     sample in these logs, so hours for all five): timed over the first `--stock-prefix` samples
     of each log and extrapolated to every sample (the cost of a sample does not depend on its
     position).
   - `batched-all`, `batched-narrow`: `read_eval_log_samples_by_id` over every sample, 1,000 at a
     time (the zip directory parsed once per call), all fields and narrow. `batched-all` is what
     `selfdx report` now reads, and the fastest complete streaming read through Inspect's API
     measured here: the baseline of the 2x target.
   - `full`: `read_eval_log(path)` of each log, all five kept in memory (holding every sample).
   - `report`: `selfdx report LOG_DIR --out DIR`, the real command (progress bar included).
   Wall times are those of the whole process (interpreter start and imports included, as for the
   report); the read loop alone is printed too.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import REPO_ROOT, machine, median, say, spread, table

RESOURCES = REPO_ROOT.parent / "shared" / "mentalbench" / "resources"
KG = RESOURCES / "knowledge_graph" / "EN"
DEFAULT_LOGS = Path("/tmp/selfdx-bench-report-logs")
THROUGHPUT = {
    "max_samples": 200,
    "log_realtime": False,
    "score_display": False,
    "display": "none",
}
CONNECTIONS = 100


@dataclass(frozen=True)
class Config:
    """One evaluation whose log the report reads: a row of its tables."""

    name: str
    model: str
    model_args: dict[str, Any] = field(default_factory=dict)
    task_args: dict[str, Any] = field(default_factory=dict)


def configs(kg: Path) -> list[Config]:
    kg_args = {"kg": str(kg)}
    shuffled = {"prompt_style": "multiple", "shuffle_choices": True}
    return [
        Config("first-option", "selfdx/first-option"),
        Config("kg-overlap", "selfdx/kg-overlap", kg_args),
        Config(
            "faults-kg-overlap",
            "selfdx/faults",
            {"policy": "kg-overlap", "empty": 0.05, "seed": 7, **kg_args},
        ),
        Config("first-option-multiple", "selfdx/first-option", {}, {**shuffled, "seed": 1}),
        Config("kg-overlap-multiple", "selfdx/kg-overlap", kg_args, {**shuffled, "seed": 2}),
    ]


def finished_log(folder: Path, config: Config, resources: Path, limit: int | None) -> Path | None:
    """The folder's one log, if it is a finished run of `config` with every planned sample."""
    from inspect_ai.log import read_eval_log

    logs = sorted(folder.glob("*.eval")) if folder.is_dir() else []
    if len(logs) != 1:
        return None
    header = read_eval_log(str(logs[0]), header_only=True)
    results = header.results
    task_args = header.eval.task_args
    if (
        header.status != "success"
        or header.eval.model != config.model
        or Path(str(task_args.get("data", ""))).resolve() != resources.resolve()
        or any(task_args.get(key) != value for key, value in config.task_args.items())
        or results is None
        or results.completed_samples != results.total_samples
        or header.eval.config.limit != limit
    ):
        return None
    return logs[0]


def make_logs(logs_dir: Path, resources: Path, limit: int | None) -> list[Path]:
    """One finished log per configuration under `logs_dir`, run now where missing."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import GenerateConfig, get_model

    paths = []
    for config in configs(resources / "knowledge_graph" / "EN"):
        folder = logs_dir / config.name
        path = finished_log(folder, config, resources, limit)
        if path is None:
            shutil.rmtree(folder, ignore_errors=True)
            model = get_model(
                config.model,
                config=GenerateConfig(max_connections=CONNECTIONS),
                memoize=False,
                **config.model_args,
            )
            start = time.perf_counter()
            log = inspect_eval(
                "selfdx/mentalbench",
                task_args={"data": str(resources), **config.task_args},
                model=model,
                limit=limit,
                log_dir=str(folder),
                **THROUGHPUT,
            )[0]
            if log.status != "success":
                sys.exit(f"eval of {config.name} failed: {log.error}")
            path = finished_log(folder, config, resources, limit)
            assert path is not None, f"no finished log in {folder}"
            samples = log.results.completed_samples if log.results else 0
            say(
                f"  made log {config.name}: {samples} samples in "
                f"{time.perf_counter() - start:.0f} s"
            )
        else:
            say(f"  reusing {path}")
        paths.append(path)
    return paths


# A fresh process reads the logs one way and prints what it read and how long the loop took.
READ_SCRIPT = """
import itertools, json, sys, time
start = time.perf_counter()
from inspect_ai.log import read_eval_log, read_eval_log_samples, read_eval_log_samples_by_id
imported = time.perf_counter()
kind, prefix, paths = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
exclude = {"messages", "events", "store", "attachments"} if kind.endswith("narrow") else None
read = total = 0
held = []
for path in paths:
    header = read_eval_log(path, header_only=True)
    keys = [(i, e) for i in header.eval.dataset.sample_ids
            for e in range(1, (header.eval.config.epochs or 1) + 1)]
    total += len(keys)
    if kind == "full":
        held.append(read_eval_log(path))
        read += len(held[-1].samples)
    elif kind.startswith("stock"):
        samples = read_eval_log_samples(path, all_samples_required=False, exclude_fields=exclude)
        read += sum(1 for _ in itertools.islice(samples, prefix))
    else:
        for first in range(0, len(keys), 1000):
            batch = read_eval_log_samples_by_id(path, keys[first:first + 1000],
                                                exclude_fields=exclude)
            read += len(batch)
            del batch
done = time.perf_counter()
print(json.dumps({"read": read, "total": total, "imports": imported - start,
                  "loop": done - imported}))
"""

# Runs the command given as its arguments and prints the child's wall time and peak RSS. The
# bench process itself is large (Inspect imported, evals run), and Linux carries a parent's
# high-water RSS into its child's ru_maxrss across fork and exec; this small launcher, exec'd
# afresh, forks from a small heap, so the figure it gets from wait4 is the command's own.
LAUNCHER = """
import json, os, subprocess, sys, time
start = time.perf_counter()
child = subprocess.Popen(sys.argv[1:])
_, status, usage = os.wait4(child.pid, 0)
print(json.dumps({"wall": time.perf_counter() - start, "rss_mb": usage.ru_maxrss / 1024,
                  "code": os.waitstatus_to_exitcode(status)}), file=sys.stderr)
"""

KINDS = ("stock-all", "stock-narrow", "batched-all", "batched-narrow", "full", "report")
BASELINE = "batched-all"
LABELS = {
    "stock-all": "read_eval_log_samples, all fields (extrapolated)",
    "stock-narrow": "read_eval_log_samples, exclude_fields (extrapolated; the old report's read)",
    "batched-all": "read_eval_log_samples_by_id x 1,000, all fields (baseline)",
    "batched-narrow": "read_eval_log_samples_by_id x 1,000, exclude_fields",
    "full": "read_eval_log, all five logs held in memory",
    "report": "selfdx report LOG_DIR --out DIR",
}


def run_child(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MiB) and stdout of `command`, run through the launcher."""
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *command], capture_output=True, text=True
    )
    launcher = json.loads(done.stderr.strip().splitlines()[-1])
    if launcher["code"] != 0:
        sys.exit(f"{' '.join(command[:4])} failed:\n{done.stderr[-3000:]}")
    return launcher["wall"], launcher["rss_mb"], done.stdout


def measure(kind: str, logs_dir: Path, paths: list[Path], prefix: int) -> dict[str, float]:
    """One measurement in a fresh process: wall seconds, peak RSS and, for reads, the loop.

    For the stock reads, `wall` and `loop` are extrapolated from the prefix to every sample.
    """
    if kind != "report":
        command = [sys.executable, "-c", READ_SCRIPT, kind, str(prefix), *map(str, paths)]
        wall, rss, stdout = run_child(command)
        result = json.loads(stdout.strip().splitlines()[-1])
        loop = result["loop"]
        if kind.startswith("stock"):
            loop *= result["total"] / result["read"]
            wall += loop - result["loop"]
        return {"wall": wall, "rss_mb": rss, **result, "loop": loop}
    out = Path(tempfile.mkdtemp(prefix="selfdx-bench-report-out-"))
    try:
        selfdx = Path(sys.executable).parent / "selfdx"
        wall, rss, _ = run_child([str(selfdx), "report", str(logs_dir), "--out", str(out)])
        if not (out / "report.html").is_file():
            sys.exit("selfdx report wrote no report.html")
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return {"wall": wall, "rss_mb": rss}


def within(results: list[dict[str, float]], base: list[dict[str, float]], key: str) -> list[float]:
    """Ratios of `key` within each repetition."""
    return [r[key] / b[key] for r, b in zip(results, base, strict=True)]


def mib(values: list[float]) -> str:
    """'median (min-max)' of memory figures, in MiB."""
    if len(values) == 1:
        return f"{values[0]:.0f}"
    return f"{median(values):.0f} ({min(values):.0f}-{max(values):.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="interleaved repetitions")
    parser.add_argument("--logs-dir", type=Path, default=DEFAULT_LOGS, help="cache of the logs")
    parser.add_argument("--resources", type=Path, default=RESOURCES)
    parser.add_argument("--limit", type=int, default=None, help="only the first N items (tries)")
    parser.add_argument(
        "--stock-prefix", type=int, default=100, help="samples per log timed for the stock reads"
    )
    args = parser.parse_args()
    if not args.resources.is_dir():
        sys.exit(f"no MentalBench resources/ folder at {args.resources}")
    say(f"machine: {machine()}")

    paths = make_logs(args.logs_dir, args.resources.resolve(), args.limit)
    sizes = [path.stat().st_size / 2**20 for path in paths]
    say(
        f"logs: {len(paths)} in {args.logs_dir}, {sum(sizes):.0f} MiB on disk "
        f"({', '.join(f'{s:.0f}' for s in sizes)} MiB)"
    )

    measure("stock-all", args.logs_dir, paths, 20)  # warm-up: page cache, bytecode
    results: dict[str, list[dict[str, float]]] = {kind: [] for kind in KINDS}
    for run in range(args.runs):
        shift = run % len(KINDS)
        for kind in KINDS[shift:] + KINDS[:shift]:
            result = measure(kind, args.logs_dir, paths, args.stock_prefix)
            results[kind].append(result)
            detail = ""
            if "loop" in result:
                detail = f", read loop {result['loop']:.2f} s, {result['read']:.0f} samples read"
            say(
                f"  run {run + 1} {kind}: {result['wall']:.2f} s{detail}, "
                f"peak RSS {result['rss_mb']:.0f} MiB"
            )

    base, full = results[BASELINE], results["full"]
    rows = []
    for kind in KINDS:
        loops = [r["loop"] for r in results[kind] if "loop" in r]
        rows.append(
            [
                LABELS[kind],
                spread([r["wall"] for r in results[kind]]),
                spread(loops) if loops else "",
                mib([r["rss_mb"] for r in results[kind]])
                + (" (prefix)" if kind.startswith("stock") else ""),
                spread(within(results[kind], base, "wall")),
                spread(within(results[kind], full, "rss_mb")),
            ]
        )
    total = int(base[0]["total"])
    say()
    say(f"machine: {machine()}")
    say(
        f"{len(paths)} logs, {total} samples, {sum(sizes):.0f} MiB on disk; "
        f"{args.runs} repetitions, medians (min-max); stock reads timed over the first "
        f"{args.stock_prefix} samples of each log"
    )
    header = ["fresh process", "wall s", "read loop s", "peak RSS MiB", "x baseline", "x full RSS"]
    say(table(rows, header))
    report = results["report"]
    strict = [r["wall"] / b["loop"] for r, b in zip(report, base, strict=True)]
    say(
        f"report / baseline read: {spread(within(report, base, 'wall'))} (target <= 2); "
        f"against the baseline's read loop alone: {spread(strict)}; "
        f"peak RSS {spread(within(report, full, 'rss_mb'))} of the full in-memory read"
    )


if __name__ == "__main__":
    main()
