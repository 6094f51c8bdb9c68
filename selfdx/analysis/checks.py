"""The report's sections for the checks (judge_check, patient_check, question_check,
mentalbench_generate).

A check's metrics are not all means over samples (a kappa, a macro-F1, a pair consistency), so
the report shows them as the task computed them, read from each log's header: one column per
run, one row per metric, `value ± standard error` where the task gives one. Runs are not pooled.
"""

from __future__ import annotations

import math

import pandas as pd

from selfdx.analysis.logs import Run
from selfdx.analysis.viewer_links import link
from selfdx.run_facts import CHECKED_ROLE

WHAT = {
    "judge_check": (
        "The judge's answers against the labelled replies: agreement, unparsed and echoed "
        "answers, biases and pair consistency (see docs/judge_check.md). Model: the judge."
    ),
    "patient_check": (
        "The simulated patient's answers to scripted probes and to probes written apart from "
        "its cue words: facts revealed when asked, denied when absent, kept consistent, no "
        "diagnosis said, per style and wording (see docs/patient_check.md). Model: the patient."
    ),
    "question_check": (
        "The question reader against doctor turns labelled blind: topic and risk precision, "
        "recall and F1, by part of the set and form of turn (see docs/question_check.md). "
        "Model: the reader (offline, or the reader role)."
    ),
    "risk_response_check": (
        "The risk-response grader against interviewer replies labelled blind: agreement, "
        "kappa, per-label precision and recall, the explores and names-help flags, by part of "
        "the set (see docs/risk_response_check.md). Model: the grader (offline, or the grader "
        "role)."
    ),
    "mentalbench_generate": (
        "Checks on the generated cases: length, diagnosis names left out, and the grader's "
        "review where one was bound (see docs/generation.md). Model: the case writer."
    ),
}


def run_label(run: Run, runs: list[Run]) -> str:
    """A column heading: the model (the judge, patient or writer), with what sets this run
    apart from the check's other runs (its variant, judge, dataset, seed)."""
    label = run.key.label([r.key for r in runs], variant=True)
    if len([r for r in runs if r.key == run.key]) > 1:
        label += f" · seed {run.seed}"
    return label


def long_metrics(check: str, runs: list[Run]) -> pd.DataFrame:
    """One row per run and metric: the CSV `<check>_metrics.csv`."""
    rows = []
    for run in runs:
        for name, value in run.metrics.items():
            if name.endswith("_stderr"):
                continue
            rows.append(
                {
                    "benchmark": check,
                    **run.key.columns(),
                    "role": CHECKED_ROLE.get(check, "model"),
                    "seed": pd.NA if run.seed is None else run.seed,
                    "log": run.path.removeprefix("file://").rsplit("/", 1)[-1],
                    "metric": name,
                    "value": value,
                    "stderr": run.metrics.get(f"{name}_stderr", math.nan),
                    "samples": run.completed_samples,
                }
            )
    return pd.DataFrame(rows)


def metric_text(value: float, stderr: float) -> str:
    """`0.912 ± 0.010`, `0.912` without a standard error, `–` for none."""
    if math.isnan(value):
        return "–"
    if value != int(value) or abs(value) < 1000:
        text = f"{value:.3f}"
    else:
        text = f"{value:,.0f}"
    return text if math.isnan(stderr) else f"{text} ± {stderr:.3f}"


def wide_metrics(
    long: pd.DataFrame, runs: list[Run], urls: dict[str, str] | None = None
) -> pd.DataFrame:
    """Rows: metrics in the task's order; columns: runs (`run_label`); given `urls`, a first
    row `view` links each run to its log in `inspect view`."""
    labels = {
        run.path.removeprefix("file://").rsplit("/", 1)[-1]: run_label(run, runs) for run in runs
    }
    names = list(dict.fromkeys(long["metric"]))
    table: dict[str, dict[str, str]] = {name: {} for name in names}
    for row in long.itertuples(index=False):
        table[row.metric][labels[row.log]] = metric_text(row.value, row.stderr)
    columns = list(dict.fromkeys(labels.values()))
    rows = [{"metric": name, **{c: table[name].get(c, "–") for c in columns}} for name in names]
    if urls is not None:
        view = {run_label(run, runs): link("log", urls.get(run.path)) for run in runs}
        rows.insert(0, {"metric": "view", **{c: view.get(c, "–") for c in columns}})
    return pd.DataFrame(rows, columns=["metric", *columns])
