"""Profiles whose facts meet DSM-5 criteria that MentalKG does not encode, flagged per case
(`InterviewCase.dsm5_flags`, in each sample's metadata) so that a figure can be given with and
without them. The key is MentalBench's; the flag says a clinician would dispute it:

- `psychosis_in_non_psychotic_key`: keyed to Bipolar I, Bipolar II or Major Depressive Disorder
  (D008, D009, D013) while the profile holds delusions or hallucinations (S019, S020) or a
  symptom shown in its delusional form (delusional guilt, grandiose delusions). DSM-5 calls that
  "with psychotic features" (MentalBench keys those as D010 and D015), and psychosis rules out
  Bipolar II.
- `bulimia_without_criterion_d`: keyed to Bulimia Nervosa and rated "criteria met" by MentalKG's
  rule while the profile lacks the undue influence of shape and weight on self-evaluation
  (S046), DSM-5's criterion D, which MentalKG's rule does not require.
"""

from __future__ import annotations

from collections.abc import Iterable

from selfdx.datasets.mentalkg.entities import MentalKG

PSYCHOTIC_SYMPTOMS = ("S019", "S020")
NON_PSYCHOTIC_MOOD = ("D008", "D009", "D013")
BULIMIA, CRITERION_D = "D022", "S046"
FLAGS = ("psychosis_in_non_psychotic_key", "bulimia_without_criterion_d")
UNFLAGGED = "no DSM-5 flag"  # the report's group of the cases whose profile has no flag


def psychotic_feature(kg: MentalKG, shown: Iterable[tuple[str, str]]) -> bool:
    """Whether the profile's (symptom code, expression) pairs hold a psychotic feature: a
    delusion or hallucination, or a symptom shown as a KG subtype named delusional (given by
    the subtype's text, or by its name, as the published features give it)."""
    for code, expression in shown:
        if code in PSYCHOTIC_SYMPTOMS:
            return True
        symptom = kg.symptoms.get(code)
        subtypes = symptom.subtypes if symptom is not None else ()
        delusional = [(name, text) for name, text in subtypes if "delusion" in name.lower()]
        if any(expression in pair for pair in delusional):
            return True
    return False


def dsm5_flags(keyed: list[str], psychotic: bool, symptoms: set[str], met: bool) -> list[str]:
    """The flags of a profile keyed to `keyed`, with these symptom codes and criteria call."""
    flags = []
    if psychotic and any(code in NON_PSYCHOTIC_MOOD for code in keyed):
        flags.append(FLAGS[0])
    if BULIMIA in keyed and met and CRITERION_D not in symptoms:
        flags.append(FLAGS[1])
    return flags
