"""Metrics of `selfdx/interview`: NaN-skipping means with standard errors clustered by seed.

Score values are dicts; `key_means` reports every key's mean and standard error in one
results entry, a line each (legible at 80 columns). A value is NaN where it does not apply
(criteria-call accuracy of a case without an answer, everything but `excluded` and the leaks
for an excluded case); those are skipped, not counted as zero. The stderr is Inspect's,
clustered by `seed_group` (the variants of one seed profile are not independent), as in
`selfdx/mentalbench`.
"""

from __future__ import annotations

from inspect_ai.scorer import Metric

from selfdx.scorers.key_metrics import key_means
from selfdx.scorers.mentalbench.metrics import CLUSTER_KEY

# Score keys in display order: (key, description). The first few are the headline.
KEYS: tuple[tuple[str, str], ...] = (
    ("accuracy", "diagnosis equals the key (declines, invalid and no answers count as wrong)"),
    ("criteria_call", "a yes/no CRITERIA MET claim agrees with the rule check on the profile"),
    ("criteria_unsure", "CRITERIA MET: cannot tell, of the answers naming a disorder"),
    ("questions", "questions asked"),
    ("fact_recall", "share of the profile's facts elicited (asked for) by the answer"),
    ("critical_recall", "share of the facts the key's criteria need, elicited by the answer"),
    ("premature", "criteria claimed met while the facts heard do not meet them"),
    ("invalid_answer", "an answer that names no single option (hedged, several, unreadable)"),
    ("no_answer", "no answer or decline within the budget"),
    ("declined", "declined to diagnose"),
    ("patient_leaks", "patient leak events (diagnosis named, fact not in the profile)"),
    ("patient_volunteered", "facts the patient revealed without being asked"),
    ("excluded", "case excluded (the patient failed)"),
)
SCORE_KEYS: tuple[str, ...] = tuple(key for key, _ in KEYS)
# Counts per case (0 and up), not rates: their intervals are not cut to [0, 1].
COUNT_KEYS: tuple[str, ...] = ("questions", "patient_leaks", "patient_volunteered")


def interview_metrics() -> list[Metric]:
    """Every score key's mean and seed-clustered stderr, in one results entry."""
    return [key_means(SCORE_KEYS, cluster=CLUSTER_KEY)]
