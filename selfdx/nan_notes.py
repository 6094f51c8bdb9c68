"""Why a metric is NaN: one reason per metric, said under the console summary and the report's
tables, so that a `nan` is never left to be read as a failure or a zero.

A selfdx metric is NaN when none of the run's cases is one it counts (its denominator is empty);
its standard error is NaN also when a single case (or cluster) counts. `WHAT_IT_COUNTS` says,
per metric, which cases it counts, so the note can say why none did.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping

from inspect_ai.hooks import Hooks, TaskEnd

logger = logging.getLogger(__name__)

# a model risk grader's unread grade leaves a case out of the risk values (risk_cases_unread)
READ = " (and, with risk_grader=model, whose grades were all read)"
WHAT_IT_COUNTS = {
    "safe_psych": {
        "under_abstention": "insufficient cases",
        "over_abstention": "sufficient cases",
        "premature": "sufficient cases of a sequential strategy",
        "on_time": "sufficient cases of a sequential strategy",
        "late": "sufficient cases of a sequential strategy",
        "never": "sufficient cases of a sequential strategy",
        "stage1_clarification": "cases whose stage-1 gold action is CLARIFY",
        "accuracy_code": "sufficient cases the model diagnosed",
        "accuracy_category": "sufficient cases the model diagnosed",
        "accuracy_group": "sufficient cases the model diagnosed",
    },
    "interview": {
        "criteria_call": "answers with a yes/no CRITERIA MET claim",
        "criteria_unsure": "answers naming a disorder",
        "fact_recall": "interview-mode cases with facts to elicit",
        "critical_recall": "interview-mode cases whose key has criteria facts",
        "premature": "answers claiming the criteria met",
        "risk_asked": "interview-mode cases where questions were allowed",
        "risk_found": "cases whose profile has a risk fact",
        "risk_level_found": "interview-mode cases whose profile has a risk fact",
        "risk_responded": f"cases where the patient disclosed risk{READ}",
        "risk_handled": f"interview-mode cases whose profile has a risk fact{READ}",
        "risk_not_alarmed": f"cases whose profile has no risk fact{READ}",
        "accuracy_with_risk": "cases whose profile has a risk fact",
        "accuracy_without_risk": "cases whose profile has no risk fact",
        "met_on_claims": "single-answer cases with an over_reporting patient",
        "false_claims": "cases with an over_reporting patient",
        "claims_checked": "cases whose over_reporting patient was asked about a claim",
    },
    "patient_check": {
        "style_followed": "probes of a patient style other than plain",
        "same_answer": "probes that repeat a question",
        "revealed_when_asked": "probes asking about a fact the patient has",
        "denied_when_absent": "probes asking about a fact the patient lacks",
        "words_match_ids": "replies about a fact that carry a REVEALED line",
    },
}


def reason(benchmark: str, metric: str) -> str:
    """Why `metric` of `benchmark` is NaN, in a phrase: it counts only some cases, and the run
    (or the row) had none of them."""
    counts = WHAT_IT_COUNTS.get(benchmark, {}).get(metric)
    timing = next((t for t in ("premature", "on_time", "late") if metric.endswith(t)), None)
    if counts is None and benchmark == "safe_psych" and timing and metric.startswith("accuracy_"):
        counts = f"sufficient cases the model diagnosed {timing.replace('_', ' ')}"
    if counts is None:
        return "it counts only some cases, and there were none"
    excluded = " (an excluded case counts nowhere)" if benchmark != "patient_check" else ""
    return f"it counts only {counts}, and there were none{excluded}"


def nan_lines(benchmark: str, metrics: Mapping[str, float]) -> list[str]:
    """One line per NaN metric of a results entry (a standard error only when its mean is a
    number: then a single case counted)."""
    lines = []
    for name, value in metrics.items():
        if value is None or not isinstance(value, float) or not math.isnan(value):
            continue
        if name.endswith("_stderr"):
            mean = metrics.get(name.removesuffix("_stderr"))
            if isinstance(mean, float) and not math.isnan(mean):
                lines.append(f"{name} is nan: a single case (or cluster) has no standard error")
            continue
        lines.append(f"{name} is nan: {reason(benchmark, name)}")
    return lines


class NanNotes(Hooks):
    """At the end of a selfdx task, say under its results why each NaN metric is NaN."""

    async def on_task_end(self, data: TaskEnd) -> None:
        log = data.log
        if log is None or log.results is None:
            return
        task = log.eval.task_registry_name or log.eval.task or ""
        if not task.startswith("selfdx/"):
            return
        metrics = {
            name: metric.value
            for entry in log.results.scores
            for name, metric in entry.metrics.items()
        }
        numbers = {k: float(v) if v is not None else math.nan for k, v in metrics.items()}
        lines = nan_lines(task.split("/", 1)[1], numbers)
        if lines:
            logger.warning("selfdx: " + "; ".join(lines))
