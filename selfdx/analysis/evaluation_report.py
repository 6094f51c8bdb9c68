"""The machine-readable evaluation report block that an inspect_evals register entry takes
(`evaluation_report`: commit, timestamp, results with task, model, provider, metrics and time,
notes), one per task, from the runs a report reads: `evaluation_reports/<task>.yaml`.

`python -m selfdx.listing` puts each block into the register entry of its task.
"""

from __future__ import annotations

import math
from datetime import datetime
from pathlib import Path

import yaml

from selfdx.analysis.logs import Run
from selfdx.run_facts import BENCHMARKS, CHECKS


def _duration(run: Run) -> str:
    try:
        seconds = (
            datetime.fromisoformat(run.completed) - datetime.fromisoformat(run.started)
        ).total_seconds()
    except ValueError:
        return ""
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m {rest}s"


def report_blocks(runs: list[Run]) -> dict[str, dict]:
    """Per selfdx task, its evaluation report block over the finished runs of that task."""
    blocks: dict[str, dict] = {}
    for run in runs:
        if run.status != "success" or run.benchmark not in (*BENCHMARKS, *CHECKS):
            continue
        block = blocks.setdefault(
            run.benchmark, {"commit": "", "timestamp": "", "results": [], "notes": []}
        )
        block["commit"] = block["commit"] or run.commit or "unknown (not run from a git checkout)"
        date = run.completed[:10]
        block["timestamp"] = max(block["timestamp"], date)
        metrics = [
            {"key": name, "value": round(float(value), 6)}
            for name, value in run.metrics.items()
            if isinstance(value, float) and not math.isnan(value)
        ]
        if not metrics:
            continue
        block["results"].append(
            {
                "task": run.benchmark,
                "model": run.model,
                "provider": run.model.split("/", 1)[0],
                "metrics": metrics,
                "time": _duration(run),
                "date": date,
            }
        )
        block["notes"].append(
            f"{run.model}: {run.variant}; data {run.dataset} ({run.completed_samples} samples)"
            + (f"; judge {run.judge}" if run.judge else "")
        )
    return {task: block for task, block in blocks.items() if block["results"]}


def write_report_blocks(out: Path, runs: list[Run]) -> list[Path]:
    """Write `evaluation_reports/<task>.yaml` for each task with finished runs."""
    written = []
    folder = out / "evaluation_reports"
    for task, block in report_blocks(runs).items():
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{task}.yaml"
        header = (
            f"# The evaluation report block of selfdx/{task} for an inspect_evals register entry\n"
            "# (written by selfdx report; python -m selfdx.listing puts it in the entry)\n"
        )
        path.write_text(header + yaml.safe_dump(block, sort_keys=False), encoding="utf-8")
        written.append(path)
    return written
