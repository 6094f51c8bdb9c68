"""What a run stands for in the report, from its task and arguments: the variant (a table row's
label), whether it asks a grader, and which tasks are benchmarks and which are checks."""

from __future__ import annotations

import json
from typing import Any

from selfdx.datasets.interview.styles import normalise_styles
from selfdx.datasets.strategies import DEFAULT_STRATEGY, asks_judge

BENCHMARKS = ("safe_psych", "mentalbench", "interview")
# Tasks that measure a grader, a simulator or a case writer: the report shows their metrics as
# the task computed them (from the log's header), one column per run.
CHECKS = ("judge_check", "patient_check", "mentalbench_generate")
# The model role a check measures (the judge, the patient); the writer is the run's model.
CHECKED_ROLE = {"judge_check": "grader", "patient_check": "patient"}


def variant_of(benchmark: str, task_args: dict[str, Any]) -> str:
    """The configuration a row of the report stands for: the strategy, or the types run."""
    if benchmark == "safe_psych":
        return str(task_args.get("strategy", DEFAULT_STRATEGY))
    if benchmark == "interview":
        return interview_variant(task_args)
    if benchmark in CHECKS:
        shown = {k: v for k, v in task_args.items() if k not in ("data", "kg", "seed")}
        return ", ".join(f"{k}={setting_text(v)}" for k, v in sorted(shown.items())) or "defaults"
    types = task_args.get("types")
    style = task_args.get("prompt_style")
    label = "all types" if types in (None, "", [1, 2, 3, 4]) else f"types {types}"
    if style:
        label += f", {style} prompt"
    if task_args.get("answer_format") == "free_text":
        label += ", free text"
    return label


def asks_grader(benchmark: str, task_args: dict[str, Any]) -> bool:
    """Whether a run of this configuration calls the `grader` role at all: a grader bound for a
    whole sweep is not the judge of a run that never asks it."""
    if benchmark == "safe_psych":
        return asks_judge(
            str(task_args.get("strategy", DEFAULT_STRATEGY)), task_args.get("scorers")
        )
    if benchmark == "mentalbench":
        return task_args.get("answer_format") == "free_text"
    return benchmark not in CHECKED_ROLE  # a check's own grader is the model it measures


def interview_variant(task_args: dict[str, Any], with_style: bool = True) -> str:
    """The row label of a run: mode, types, and what differs from the defaults (the patient
    styles among them, so that runs with other patients are never pooled as repeats)."""
    mode = task_args.get("mode", "interview")
    types = task_args.get("types", "1,2")
    if isinstance(types, list | tuple):
        types = ",".join(str(t) for t in types)
    label = f"{mode}, types {types}"
    if mode == "interview" and task_args.get("max_questions", 12) != 12:
        label += f", {task_args['max_questions']} questions"
    if task_args.get("answer_format") == "free_text":
        label += ", free text"
    if task_args.get("cases", "published") != "published" and task_args.get("data") != "demo":
        label += f", {task_args['cases']} cases"
    styles = styles_of(task_args)
    if with_style and styles != ["plain"]:
        label += f", patient {'+'.join(styles)}"
    return label


def styles_of(task_args: dict[str, Any]) -> list[str]:
    """The patient styles a run's arguments name (`plain` when none)."""
    return normalise_styles(task_args.get("patient_style", "plain"))


def setting_text(value: Any) -> str:
    """A setting's value as a label shows it: text as is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, default=str)
