"""The DSM-5 exclusions that tell MentalKG's nearest disorders apart, where the KG lacks them.

MentalKG encodes each disorder's inclusion criteria (groups, thresholds, durations, impairment,
stressors, free-text requirements) but few of the rules that rule a disorder *out*. Without
them a check of the criteria is looser than DSM-5: every schizoaffective profile with a full
psychotic group also "meets" schizophrenia, every bipolar II profile "meets" major depressive
disorder. This table is the one place those rules live; each row names the DSM-5 criterion it
encodes. One rule is read from the KG itself, not from here: an optional group that would
complete another disorder (ADHD's other domain) must stay below its threshold
(`MentalKG.completing_disorders`).

A row rules its disorder out when any of its `groups` is complete in the facts (threshold,
mandatory symptoms, duration and impairment as the KG defines the group), or any of its
`disorders` has its criteria met (`"*"`: any other disorder of the graph); `longer_than_minimum`
makes the disorder's minimum duration strict. Rows naming groups or disorders a graph does not
have are skipped for that graph (the synthetic demo graph has other groups).
"""

from __future__ import annotations

from dataclasses import dataclass

ANY_OTHER = "*"


@dataclass(frozen=True)
class Exclusion:
    """One DSM-5 rule that rules `disorder` out."""

    disorder: str
    dsm5: str  # the criterion this row encodes, in plain words
    groups: tuple[str, ...] = ()
    disorders: tuple[str, ...] = ()
    longer_than_minimum: bool = False


MOOD_EPISODES = ("manic_episode", "depressive_episode")
ELEVATED_EPISODES = ("manic_episode", "hypomanic_episode")
PSYCHOTIC_DISORDERS = ("D004", "D005", "D006", "D007")

EXCLUSIONS: tuple[Exclusion, ...] = (
    Exclusion(
        "D004",
        "Delusional disorder B: criterion A of schizophrenia has never been met",
        groups=("psychotic_symptoms",),
    ),
    Exclusion(
        "D004",
        "Delusional disorder E: not better explained by body dysmorphic or obsessive-compulsive "
        "disorder",
        disorders=("D016", "D017"),
    ),
    Exclusion(
        "D005",
        "Schizophrenia D: schizoaffective disorder and mood disorders with psychotic features "
        "ruled out; a full manic or major depressive episode alongside the psychosis rules "
        "schizophrenia out (MentalKG's profiles never state such an episode was brief)",
        groups=MOOD_EPISODES,
    ),
    Exclusion(
        "D007",
        "Schizoaffective disorder, depressive type: only major depressive episodes are part of "
        "the presentation (a manic episode makes it the bipolar type)",
        groups=("manic_episode",),
    ),
    Exclusion(
        "D008",
        "Bipolar I with psychotic features is its own disorder in MentalKG (D010): delusions or "
        "hallucinations rule out D008",
        groups=("delusions_and_hallucinations",),
    ),
    Exclusion(
        "D008",
        "Bipolar I B: the episodes are not better explained by schizoaffective disorder",
        disorders=("D006",),
    ),
    Exclusion(
        "D009",
        "Bipolar II B: there has never been a manic episode",
        groups=("manic_episode",),
    ),
    Exclusion(
        "D009",
        "Bipolar II C: the episodes are not better explained by schizoaffective disorder",
        disorders=("D006", "D007"),
    ),
    Exclusion(
        "D010",
        "Bipolar I B: the episodes are not better explained by schizoaffective disorder",
        disorders=("D006",),
    ),
    Exclusion(
        "D013",
        "Major depressive disorder E: there has never been a manic or hypomanic episode",
        groups=ELEVATED_EPISODES,
    ),
    Exclusion(
        "D013",
        "Major depressive disorder with psychotic features is its own disorder in MentalKG "
        "(D015): delusions or hallucinations rule out D013",
        groups=("delusions_and_hallucinations",),
    ),
    Exclusion(
        "D013",
        "Major depressive disorder D: not better explained by schizoaffective disorder, "
        "schizophrenia or delusional disorder",
        disorders=PSYCHOTIC_DISORDERS,
    ),
    Exclusion(
        "D014",
        "Persistent depressive disorder E: there has never been a manic or hypomanic episode",
        groups=ELEVATED_EPISODES,
    ),
    Exclusion(
        "D014",
        "Persistent depressive disorder F: not better explained by a persistent psychotic "
        "disorder (schizoaffective disorder, schizophrenia, delusional disorder)",
        disorders=PSYCHOTIC_DISORDERS,
    ),
    Exclusion(
        "D015",
        "Major depressive disorder E: there has never been a manic or hypomanic episode",
        groups=ELEVATED_EPISODES,
    ),
    Exclusion(
        "D015",
        "Major depressive disorder D: not better explained by schizoaffective disorder, "
        "schizophrenia or delusional disorder",
        disorders=PSYCHOTIC_DISORDERS,
    ),
    Exclusion(
        "D018",
        "Posttraumatic stress disorder F: the disturbance has lasted more than 1 month (up to "
        "1 month it is acute stress disorder)",
        longer_than_minimum=True,
    ),
    Exclusion(
        "D020",
        "Adjustment disorder C: the disturbance does not meet the criteria for another mental "
        "disorder",
        disorders=(ANY_OTHER,),
    ),
    Exclusion(
        "D022",
        "Bulimia nervosa E: the disturbance does not occur only during anorexia nervosa",
        disorders=("D021",),
    ),
    Exclusion(
        "D023",
        "Binge-eating disorder E: no recurrent compensatory behaviour as in bulimia nervosa, "
        "and not only during bulimia or anorexia nervosa",
        groups=("compensatory_behavior",),
        disorders=("D021", "D022"),
    ),
)


def exclusions_of(code: str) -> tuple[Exclusion, ...]:
    """The rows that can rule `code` out, in table order."""
    return tuple(row for row in EXCLUSIONS if row.disorder == code)
