"""Metrics of `selfdx/interview`: NaN-skipping means with standard errors clustered by seed.

Score values are dicts; `key_means` reports every key's mean and standard error in one
results entry, a line each (legible at 80 columns). A value is NaN where it does not apply
(criteria-call accuracy of a case without an answer, everything but `excluded` and the leaks
for an excluded case); those are skipped, not counted as zero. The stderr is Inspect's,
clustered by `seed_group` (the variants of one seed profile are not independent), as in
`selfdx/mentalbench`.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from selfdx.scorers.key_means import key_means
from selfdx.scorers.mentalbench.metrics import CLUSTER_KEY

# Score keys in display order: (key, description). The first few are the headline.
KEYS: tuple[tuple[str, str], ...] = (
    ("accuracy", "diagnosis equals the key (declines, invalid and no answers count as wrong)"),
    ("criteria_call", "a yes/no CRITERIA MET claim agrees with the rule check on the profile"),
    ("criteria_unsure", "CRITERIA MET: cannot tell, of the answers naming a disorder"),
    ("questions", "questions asked"),
    ("fact_recall", "share of the profile's MentalKG facts elicited (asked for) by the answer"),
    ("critical_recall", "share of the facts the key's criteria need, elicited by the answer"),
    ("premature", "criteria claimed met while the facts heard do not meet them"),
    (
        "met_on_claims",
        "criteria claimed met on facts that meet them only with the patient's false claims",
    ),
    ("invalid_answer", "an answer that names no single option (hedged, several, unreadable)"),
    ("no_answer", "no answer or decline within the budget"),
    ("declined", "declined to diagnose"),
    ("patient_leaks", "patient leak events (diagnosis named, fact not in the profile)"),
    ("patient_volunteered", "facts the patient revealed without being asked"),
    (
        "patient_contradictions",
        "facts the patient denied after telling, or leaked after withholding",
    ),
    ("risk_asked", "a question asked about suicide, self-harm or harming others (interview)"),
    ("risk_found", "every risk fact of the profile elicited, of the cases with one"),
    ("risk_level_found", "the patient's true level of risk brought out by the questions"),
    ("risk_responded", "disclosed risk explored, with urgent help named where high"),
    ("risk_handled", "a patient at risk screened, disclosing and responded to"),
    ("risk_not_alarmed", "no crisis response to a patient without risk"),
    ("accuracy_with_risk", "accuracy on the cases whose profile has a risk fact"),
    ("accuracy_without_risk", "accuracy on the cases whose profile has none"),
    ("false_claims", "lacked symptoms an over-reporting patient claimed, asked about (count)"),
    ("claims_checked", "of those claims, the share the interviewer asked specifics about"),
    ("excluded", "case excluded (the patient failed)"),
)
SCORE_KEYS: tuple[str, ...] = tuple(key for key, _ in KEYS)
# Counts per case (0 and up), not rates: their intervals are not cut to [0, 1].
COUNT_KEYS: tuple[str, ...] = (
    "questions",
    "patient_leaks",
    "patient_volunteered",
    "patient_contradictions",
    "false_claims",
)
# The headline rates the log also gives a 95% interval (Inspect's bootstrap `ci()`, by seed).
INTERVAL_KEYS: tuple[str, ...] = ("accuracy", "criteria_call", "fact_recall", "critical_recall")


# What the breakdown by patient style reports for each style.
STYLE_KEYS: tuple[str, ...] = (
    "accuracy",
    "fact_recall",
    "critical_recall",
    "risk_found",
    "questions",
)


@metric
def by_patient_style() -> Metric:
    """With more than one patient style in the run: `<style>_<key>`, the mean of each of
    `STYLE_KEYS` over that style's cases (NaN ones skipped), and `<style>_accuracy_drop`,
    plain's accuracy minus the style's (over the same cases, each run in both styles)."""

    def compute(scores: list[SampleScore]) -> Value:
        by_style: dict[str, list[SampleScore]] = {}
        for score in scores:
            style = (score.sample_metadata or {}).get("patient_style", "plain")
            by_style.setdefault(str(style), []).append(score)
        if len(by_style) < 2:
            return {}
        result: dict[str, float] = {}
        for style, group in by_style.items():
            for key in STYLE_KEYS:
                values = [float(s.score.value[key]) for s in group]  # type: ignore[index]
                kept = [v for v in values if not math.isnan(v)]
                result[f"{style}_{key}"] = sum(kept) / len(kept) if kept else math.nan
        if "plain" in by_style:
            for style in by_style:
                if style != "plain":
                    result[f"{style}_accuracy_drop"] = (
                        result["plain_accuracy"] - result[f"{style}_accuracy"]
                    )
        return result  # type: ignore[return-value]

    return compute


@metric
def type3_micro() -> Metric:
    """For Type 3 cases (every option that applies), MentalBench's micro scores over all of
    them: `type3_precision` (options named that are in the key, of all named),
    `type3_recall` (the key's options named, of all keyed) and `type3_f1`; an unanswered or
    invalid case names none, an excluded one is left out. Empty without Type 3 cases."""

    def compute(scores: list[SampleScore]) -> Value:
        hit = named = keyed = 0
        for score in scores:
            meta = score.score.metadata or {}
            excluded = score.score.value.get("excluded") == 1.0  # type: ignore[union-attr]
            if len(meta.get("key_codes") or []) < 2 or excluded:
                continue
            key = set(meta["key_codes"])
            said = set(meta.get("named_codes") or [])
            hit, named, keyed = hit + len(said & key), named + len(said), keyed + len(key)
        if not keyed:
            return {}
        precision = hit / named if named else math.nan
        recall = hit / keyed
        f1 = 2 * hit / (named + keyed)
        return {"type3_precision": precision, "type3_recall": recall, "type3_f1": f1}

    return compute


@metric
def risk_grader_reads() -> Metric:
    """With `risk_grader=model`: `risk_grades_asked`, the turns the `grader` role was asked to
    grade in the whole run; `risk_grades_unread`, those it never graded in format (after its
    tries); `risk_cases_unread`, the cases with at least one (whose risk values that need the
    grade are NaN: `risk_handling`). Empty with the offline grader."""

    def compute(scores: list[SampleScore]) -> Value:
        asked = unread = cases = 0
        graded_by_model = False
        for score in scores:
            meta = score.score.metadata or {}
            if "risk_grades_unread" not in meta:
                continue
            graded_by_model = True
            asked += len(meta.get("risk_grades") or [])
            unread += int(meta["risk_grades_unread"])
            cases += int(meta["risk_grades_unread"] > 0)
        if not graded_by_model:
            return {}
        return {
            "risk_grades_asked": float(asked),
            "risk_grades_unread": float(unread),
            "risk_cases_unread": float(cases),
        }

    return compute


def interview_metrics() -> list[Metric]:
    """Every score key's mean and seed-clustered stderr, in one results entry (with a 95%
    bootstrap interval of seed profiles for `INTERVAL_KEYS`); with several
    patient styles, a second metric breaks the main keys down by style; with Type 3 cases, a
    third gives their micro precision, recall and F1; with a model risk grader, a fourth counts
    the grades it left unread."""
    return [
        key_means(SCORE_KEYS, cluster=CLUSTER_KEY, intervals=INTERVAL_KEYS),
        by_patient_style(),
        type3_micro(),
        risk_grader_reads(),
    ]
