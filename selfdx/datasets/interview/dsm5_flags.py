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
- `irritable_mood_below_four`: keyed to a disorder whose required episode is manic or hypomanic
  (D006, D008, D009, D010), rated "criteria met", while the profile shows its mood symptom
  (S033) only as irritable and holds fewer than four of the episode's other symptoms
  (S035-S041). DSM-5's criterion B of both episodes asks for four when the mood is only
  irritable; MentalKG's groups ask for three whatever the mood.
- `acute_stress_below_nine`: keyed to Acute Stress Disorder (D019), rated "criteria met", with
  fewer than nine of its symptoms. DSM-5's criterion B asks for nine of fourteen; MentalKG's
  group for six of its ten (each a distinct DSM-5 item, one expression each in a profile).
- `schizoaffective_without_depressed_mood`: keyed to Schizoaffective Disorder, Depressive Type
  (D007), rated "criteria met", while the profile's depressive episode lacks depressed mood
  (S024). DSM-5's criterion A of schizoaffective disorder requires the major depressive
  episode to include depressed mood; MentalKG's group takes loss of interest instead.
"""

from __future__ import annotations

from collections.abc import Iterable

from selfdx.datasets.mentalkg.entities import MentalKG

PSYCHOTIC_SYMPTOMS = ("S019", "S020")
NON_PSYCHOTIC_MOOD = ("D008", "D009", "D013")
BULIMIA, CRITERION_D = "D022", "S046"
ELEVATED_KEYS = ("D006", "D008", "D009", "D010")  # a manic or hypomanic episode is required
MOOD, IRRITABLE = "S033", "irritable mood"  # the symptom and its subtype's name, lower case
ELEVATED_B = ("S035", "S036", "S037", "S038", "S039", "S040", "S041")  # criterion B's items
ACUTE_STRESS, ACUTE_STRESS_MINIMUM = "D019", 9
ACUTE_STRESS_SYMPTOMS = (
    *("S069", "S076", "S082", "S071", "S070"),
    *("S027", "S031", "S077", "S079", "S080"),
)
SCHIZOAFFECTIVE_DEPRESSIVE, DEPRESSED_MOOD = "D007", "S024"
FLAGS = (
    "psychosis_in_non_psychotic_key",
    "bulimia_without_criterion_d",
    "irritable_mood_below_four",
    "acute_stress_below_nine",
    "schizoaffective_without_depressed_mood",
)
UNFLAGGED = "no DSM-5 flag"  # the report's group of the cases whose profile has no flag


def shown_as(kg: MentalKG, shown: Iterable[tuple[str, str]], code: str, word: str) -> bool:
    """Whether the profile's (symptom code, expression) pairs show symptom `code` as a KG
    subtype whose name holds `word` (the expression given by the subtype's text, or by its
    name, as the published features give it)."""
    symptom = kg.symptoms.get(code)
    subtypes = [pair for pair in (symptom.subtypes if symptom else ()) if word in pair[0].lower()]
    return any(c == code and any(text in pair for pair in subtypes) for c, text in shown)


def psychotic_feature(kg: MentalKG, shown: Iterable[tuple[str, str]]) -> bool:
    """Whether the profile's (symptom code, expression) pairs hold a psychotic feature: a
    delusion or hallucination, or a symptom shown as a KG subtype named delusional (given by
    the subtype's text, or by its name, as the published features give it)."""
    shown = list(shown)
    if any(code in PSYCHOTIC_SYMPTOMS for code, _ in shown):
        return True
    return any(shown_as(kg, shown, code, "delusion") for code in {code for code, _ in shown})


def irritable_mood(kg: MentalKG, shown: Iterable[tuple[str, str]]) -> bool:
    """Whether the profile shows its elevated-or-irritable mood (S033) as irritable only."""
    return shown_as(kg, shown, MOOD, IRRITABLE)


def dsm5_flags(
    keyed: list[str], psychotic: bool, symptoms: set[str], met: bool, irritable: bool = False
) -> list[str]:
    """The flags of a profile keyed to `keyed` (the first is the disorder `met` is about), with
    these symptom codes, criteria call and mood shown as irritable only (`irritable_mood`)."""
    flags = []
    if psychotic and any(code in NON_PSYCHOTIC_MOOD for code in keyed):
        flags.append(FLAGS[0])
    gold = keyed[0] if met else None  # `met` is the first key's rating, so only its rules apply
    if gold == BULIMIA and CRITERION_D not in symptoms:
        flags.append(FLAGS[1])
    if gold in ELEVATED_KEYS and irritable and len(symptoms & set(ELEVATED_B)) < 4:
        flags.append(FLAGS[2])
    if gold == ACUTE_STRESS and len(symptoms & set(ACUTE_STRESS_SYMPTOMS)) < ACUTE_STRESS_MINIMUM:
        flags.append(FLAGS[3])
    if gold == SCHIZOAFFECTIVE_DEPRESSIVE and DEPRESSED_MOOD not in symptoms:
        flags.append(FLAGS[4])
    return flags
