"""Metrics of `selfdx/patient_check`: one results entry, a line per measure.

Each probe scores 1 or 0 on the measures that apply to its kind and NaN on the others (see
`scorer.probe_values`); a measure's mean is over the probes it applies to, its standard error
clustered by case (the probes of one profile share its patient). Higher is better for the
first five (`revealed_when_asked` … `same_answer`) and `style_followed`; lower is better
for the rest.

A run of several patient styles also gives, per style, the oversharing rate and whether the
style asked for is the style shown (`volunteered_<style>`, `style_followed_<style>`); a run of
both wordings gives the fidelity measures per wording (`revealed_when_asked_written`, ...): the
scripted probes ask in the offline patient's own cue words, the written ones do not, so the
written figures are the ones to quote for it.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, Value, metric

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


GROUPED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("patient_style", ("volunteered", "style_followed")),
    ("wording", ("revealed_when_asked", "denied_when_absent", "false_affirmation")),
    ("wording", ("words_match_ids",)),
)


@metric
def by_group() -> Metric:
    """`<key>_<group>` and its clustered standard error, for each sample-metadata field of
    `GROUPED` that takes two or more values in the run (a key no probe of a group applies to
    is left out)."""

    def compute(scores: list[SampleScore]) -> Value:
        result: dict[str, float] = {}
        for field, keys in GROUPED:
            groups = sorted({str((s.sample_metadata or {}).get(field)) for s in scores})
            if len(groups) < 2:
                continue
            means = key_means(keys, cluster=CLUSTER)
            for group in groups:
                part = [s for s in scores if str((s.sample_metadata or {}).get(field)) == group]
                found = means(part)  # type: ignore[misc]
                for key in keys:
                    if not math.isnan(found.get(key, math.nan)):  # type: ignore[union-attr]
                        result[f"{key}_{group}"] = found[key]  # type: ignore[index]
                        result[f"{key}_{group}_stderr"] = found[f"{key}_stderr"]  # type: ignore[index]
        return result

    return compute


# Only in a run whose replies a model reads (`reader="model"`): left out of the others' results.
READER_KEYS = ("reader_unread",)


def patient_check_metrics() -> list[Metric]:
    return [key_means((*SCORE_KEYS, *READER_KEYS), cluster=CLUSTER), by_group()]
