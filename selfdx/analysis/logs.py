"""Reading selfdx runs from Inspect logs: one header per run, compact rows per sample.

Samples are streamed (`read_eval_log_samples`) without their messages, events and store, and
reduced to the few values the report needs, so memory grows with the number of samples times a
small row, never with whole transcripts.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, EvalSample, list_eval_logs, read_eval_log, read_eval_log_samples
from tqdm import tqdm

BENCHMARKS = ("safe_psych", "mentalbench")
SAMPLE_EXCLUDE = {"messages", "events", "store", "attachments"}


@dataclass
class Run:
    """One evaluation log of a selfdx benchmark, described by its header."""

    path: str
    benchmark: str
    task: str
    model: str
    judge: str | None
    variant: str
    seed: int | None
    epochs: int
    status: str
    task_args: dict[str, Any] = field(default_factory=dict)
    scorers: list[str] = field(default_factory=list)
    total_samples: int = 0
    completed_samples: int = 0

    @property
    def key(self) -> tuple[str, str, str, str]:
        """Runs sharing this key are repeats (seeds) of one configuration."""
        return (self.benchmark, self.model, self.variant, self.judge or "")


def benchmark_of(task: str) -> str | None:
    """`selfdx/safe_psych` -> `safe_psych`; None for a task that is not a selfdx benchmark."""
    name = task.split("/")[-1]
    return name if name in BENCHMARKS else None


def variant_of(benchmark: str, task_args: dict[str, Any]) -> str:
    """The configuration a row of the report stands for: the strategy, or the types run."""
    if benchmark == "safe_psych":
        return str(task_args.get("strategy", "sequential_info_abstention_aware"))
    types = task_args.get("types")
    style = task_args.get("prompt_style")
    label = "all types" if types in (None, "", [1, 2, 3, 4]) else f"types {types}"
    if style:
        label += f", {style} prompt"
    if task_args.get("answer_format") == "free_text":
        label += ", free text"
    return label


def run_from_header(path: str, log: EvalLog) -> Run | None:
    """Describe a log, or None if it is not a selfdx benchmark run."""
    benchmark = benchmark_of(log.eval.task)
    if benchmark is None:
        return None
    roles = log.eval.model_roles or {}
    grader = roles.get("grader")
    seed = log.eval.model_generate_config.seed if log.eval.model_generate_config else None
    scorers = [score.name for score in (log.results.scores if log.results else [])]
    return Run(
        path=path,
        benchmark=benchmark,
        task=log.eval.task,
        model=log.eval.model,
        judge=grader.model if grader else None,
        variant=variant_of(benchmark, log.eval.task_args),
        seed=seed,
        epochs=log.eval.config.epochs or 1,
        status=log.status,
        task_args=dict(log.eval.task_args),
        scorers=sorted({s.split("/")[0] for s in scorers}),
        total_samples=log.results.total_samples if log.results else 0,
        completed_samples=log.results.completed_samples if log.results else 0,
    )


def find_runs(log_dir: str | Path) -> tuple[list[Run], list[tuple[str, str]]]:
    """Every selfdx run under `log_dir`, plus (path, reason) for each log left out."""
    runs: list[Run] = []
    skipped: list[tuple[str, str]] = []
    for info in list_eval_logs(str(log_dir), recursive=True, descending=False):
        header = read_eval_log(info.name, header_only=True)
        run = run_from_header(info.name, header)
        if run is None:
            skipped.append((info.name, f"task {header.eval.task} is not a selfdx benchmark"))
        elif header.status != "success":
            skipped.append((info.name, f"status {header.status}: rerun or `inspect eval-retry` it"))
        else:
            runs.append(run)
    return runs, skipped


def score_values(sample: EvalSample, scorer: str) -> dict[str, float]:
    """The dict-valued score of `scorer` as floats (NaN for not applicable)."""
    score = (sample.scores or {}).get(scorer)
    if score is None or not isinstance(score.value, dict):
        return {}
    values: dict[str, float] = {}
    for key, value in score.value.items():
        try:
            values[key] = float(value) if value is not None else math.nan
        except (TypeError, ValueError):
            values[key] = math.nan
    return values


def stream_samples(runs: list[Run], progress: bool = True) -> Iterator[tuple[Run, EvalSample]]:
    """Yield (run, sample) for every sample of every run, with a progress bar per run."""
    for run in tqdm(runs, desc="reading logs", unit="log", disable=not progress):
        yield from (
            (run, sample)
            for sample in read_eval_log_samples(
                run.path, all_samples_required=False, exclude_fields=SAMPLE_EXCLUDE
            )
        )
