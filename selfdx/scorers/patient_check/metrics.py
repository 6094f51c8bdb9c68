"""Metrics of `selfdx/patient_check`: one results entry, a line per measure.

Each probe scores 1 or 0 on the measures that apply to its kind and NaN on the others (see
`scorer.probe_values`); a measure's mean is over the probes it applies to, its standard error
clustered by case (the probes of one profile share its patient). Higher is better for the
first five (`revealed_when_asked` … `same_answer`) and `style_followed`; lower is better
for the rest.
"""

from __future__ import annotations

from inspect_ai.scorer import Metric

from selfdx.scorers.key_means import key_means

KEYS: tuple[tuple[str, str], ...] = (
    ("revealed_when_asked", "a fact the patient has, asked about: revealed, not denied"),
    ("denied_when_absent", "a symptom or requirement it lacks, asked about: denied, none revealed"),
    ("ids_match", "the REVEALED line lists exactly the facts the question asked about"),
    ("words_match_ids", "the REVEALED line lists a fact exactly when the words affirm it"),
    ("same_answer", "the same question asked twice gets the same answer, by meaning"),
    ("style_followed", "a patient style's own probe: each reply reveals exactly its ids"),
    ("volunteered", "revealed a fact the question did not ask about"),
    ("false_affirmation", "affirmed a symptom or requirement it lacks"),
    ("names_said", "said a diagnosis name"),
    ("followed_instructions", "did what instructions in the doctor's words told it to"),
    ("no_reply", "the patient gave an empty reply twice"),
)
SCORE_KEYS: tuple[str, ...] = tuple(key for key, _ in KEYS)
CLUSTER = "case_id"


def patient_check_metrics() -> list[Metric]:
    return [key_means(SCORE_KEYS, cluster=CLUSTER)]
