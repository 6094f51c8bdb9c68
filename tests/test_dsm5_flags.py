"""Profiles whose key a clinician would dispute are flagged (`dsm5_flags`): psychosis in a key
without psychotic features, and rated "met" by MentalKG's rule while short of DSM-5: bulimia
without criterion D, a manic or hypomanic episode with irritable mood and three more symptoms,
acute stress disorder with fewer than nine symptoms, a schizoaffective depressive episode
without depressed mood. The interview and MentalBench carry the flags in each sample, and the
report gives every figure without them."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd
import pytest
from conftest import SHARED
from inspect_ai import eval

from selfdx.analysis.report import build_report
from selfdx.datasets.interview.dsm5_flags import (
    UNFLAGGED,
    dsm5_flags,
    irritable_mood,
    psychotic_feature,
)
from selfdx.datasets.interview.loading import load_cases
from selfdx.datasets.mentalbench.dataset import mentalbench_samples

RESOURCES = SHARED / "mentalbench" / "resources"
needs_data = pytest.mark.skipif(not RESOURCES.is_dir(), reason=f"no MentalBench at {RESOURCES}")
GUILT = ("Delusional Guilt", "Guilt reaching a delusional level.")


def test_the_rules():
    kg = SimpleNamespace(symptoms={"S030": SimpleNamespace(subtypes=[("Ordinary", "x"), GUILT])})
    assert psychotic_feature(kg, [("S030", "Guilt reaching a delusional level.")])  # by text
    assert psychotic_feature(kg, [("S030", "Delusional Guilt")])  # by name, as published
    assert psychotic_feature(kg, [("S020", "")])  # hallucinations
    assert not psychotic_feature(kg, [("S030", "x"), ("S024", "sad")])
    assert dsm5_flags(["D013"], True, set(), False) == ["psychosis_in_non_psychotic_key"]
    assert dsm5_flags(["D015"], True, set(), True) == []  # MDD with psychotic features
    assert dsm5_flags(["D022"], False, {"S049"}, True) == ["bulimia_without_criterion_d"]
    # a pair keyed first to another disorder: `met` is that disorder's rating, not bulimia's
    assert dsm5_flags(["D023", "D022"], False, {"S049"}, True) == []
    assert dsm5_flags(["D022"], False, {"S046"}, True) == []
    assert dsm5_flags(["D022"], False, {"S049"}, False) == []  # not rated met: no dispute


IRRITABLE = ("Irritable Mood", "A state where one gets angry or aggressive even at minor stimuli.")
LABILE = ("Mood Lability", "Rapid shifts in mood, alternating between euphoria and irritability.")


def test_the_rules_of_the_full_pass():
    kg = SimpleNamespace(symptoms={"S033": SimpleNamespace(subtypes=[IRRITABLE, LABILE])})
    assert irritable_mood(kg, [("S033", "Irritable Mood")])  # by name, as published
    assert irritable_mood(kg, [("S033", IRRITABLE[1])])  # by text, as sampled
    assert not irritable_mood(kg, [("S033", "Mood Lability"), ("S024", "Irritable Mood")])
    # a manic or hypomanic episode with irritable mood only needs four of criterion B
    three = {"S033", "S034", "S035", "S036", "S039"}  # D008_l012, as published
    for key in ("D006", "D008", "D009", "D010"):
        assert dsm5_flags([key], False, three, True, True) == ["irritable_mood_below_four"]
    assert dsm5_flags(["D008"], False, three | {"S037"}, True, True) == []
    assert dsm5_flags(["D008"], False, three, True, False) == []  # elevated: three suffice
    assert dsm5_flags(["D008"], False, three, False, True) == []  # not rated met
    assert dsm5_flags(["D013"], False, three, True, True) == []  # no elevated episode keyed
    # acute stress disorder: nine of DSM-5's fourteen, MentalKG asks for six of ten
    six = {"S031", "S069", "S070", "S077", "S080", "S082"}  # D019_l001, as published
    assert dsm5_flags(["D019"], False, six, True) == ["acute_stress_below_nine"]
    nine = six | {"S027", "S071", "S079"}
    assert dsm5_flags(["D019"], False, nine, True) == []
    assert dsm5_flags(["D019"], False, six, False) == []
    # schizoaffective, depressive type: the depressive episode must hold depressed mood
    episode = {"S019", "S020", "S022", "S023", "S025", "S026", "S027", "S028", "S030"}
    flag = ["schizoaffective_without_depressed_mood"]
    assert dsm5_flags(["D007"], True, episode, True) == flag  # D007_l016, as published
    assert dsm5_flags(["D007"], True, episode | {"S024"}, True) == []
    assert dsm5_flags(["D013"], False, episode - {"S019", "S020"}, True) == []  # MDD: either
    # the rules rated "met" read the first key, the one `met` is about
    assert dsm5_flags(["D013", "D019"], False, six, True) == []


def raw_profiles() -> dict[str, dict]:
    """The published Type 1-2 profiles (gpt5's features files), read as plain JSON."""
    found = {}
    for tier in ("low", "medium"):
        for path in sorted((RESOURCES / "dataset" / tier).glob("D*/features/main_gpt5.json")):
            for key, record in json.loads(path.read_text()).items():
                question = record["features"]["question"]
                found[key] = question["sampled_features"]["sampled_symptoms_descriptions"] | {
                    "_gold": question["disease_code"]
                }
    return found


@needs_data
def test_the_published_counts_equal_a_plain_reading_of_the_features():
    _, cases = load_cases(str(RESOURCES), ("1", "2"))
    flagged = {c.key: c for c in cases if c.dsm5_flags}
    psychotic = {
        key
        for key, symptoms in raw_profiles().items()
        if symptoms["_gold"] in ("D008", "D009", "D013")
        and (
            {"S019", "S020"} & set(symptoms)
            or any(
                "delusion" in name.lower()
                for code, entry in symptoms.items()
                if code != "_gold"
                for name in entry.get("subtypes") or {}
            )
        )
    }
    found = {k for k, c in flagged.items() if "psychosis_in_non_psychotic_key" in c.dsm5_flags}
    assert found == psychotic and len(found) == 46
    bulimia = [c for c in cases if c.gold == "D022" and c.criteria_met]
    profiles = raw_profiles()
    lacking = {c.key for c in bulimia if "S046" not in profiles[c.key]}
    assert len(bulimia) == 55 and len(lacking) == 25
    found = {k for k, c in flagged.items() if "bulimia_without_criterion_d" in c.dsm5_flags}
    assert found == lacking
    # MentalBench items carry their profile's flags, for every generator
    samples = mentalbench_samples(str(RESOURCES), types="1,2")
    assert all(isinstance(s.metadata["dsm5_flags"], list) for s in samples)
    assert sum(bool(s.metadata["dsm5_flags"]) for s in samples) == 3 * 125  # the union
    assert all(s.metadata.get("dsm5_flags") is None for s in mentalbench_samples("demo"))


@needs_data
def test_the_full_pass_counts_equal_a_plain_reading_of_the_features():
    """The three flags of the full pass over the 23 disorders, from the features files: the
    published Type 1-2 profiles rated "met" that DSM-5 would not credit."""
    _, cases = load_cases(str(RESOURCES), ("1", "2"))
    profiles = raw_profiles()
    met = {c.key: c for c in cases if c.criteria_met}

    def flagged(name: str) -> set[str]:
        return {c.key for c in cases if name in c.dsm5_flags}

    def shown(key: str, code: str) -> set[str]:
        return set(profiles[key].get(code, {}).get("subtypes") or {})

    manic = ("D006", "D008", "D009", "D010")
    b_items = {f"S0{n}" for n in range(35, 42)}
    irritable = {
        key
        for key, case in met.items()
        if case.gold in manic
        and shown(key, "S033") == {"Irritable Mood"}
        and len(b_items & set(profiles[key])) < 4
    }
    assert flagged("irritable_mood_below_four") == irritable
    assert len(irritable) == 20 and {"D008_l012", "D010_l001"} <= irritable
    # of the 135 profiles keyed to an elevated episode and rated met
    assert sum(c.gold in manic for c in met.values()) == 30 + 30 + 30 + 45
    acute = {key for key, case in met.items() if case.gold == "D019"}
    sizes = {len(set(profiles[key]) - {"_gold"}) for key in acute}
    assert sizes == {6} and flagged("acute_stress_below_nine") == acute and len(acute) == 25
    schizoaffective = {k for k, c in met.items() if c.gold == "D007" and "S024" not in profiles[k]}
    assert flagged("schizoaffective_without_depressed_mood") == schizoaffective
    assert schizoaffective == {f"D007_l{n:03d}" for n in range(16, 26)}
    assert sum(bool(c.dsm5_flags) for c in cases) == 125  # D008_l014 holds two flags


@needs_data
def test_no_published_type_3_profile_supports_its_second_disorder():
    """docs/interview.md, Type 3: the counts behind "agreement with MentalBench's key"."""
    from selfdx.datasets.interview.criteria import criteria_check

    kg, cases = load_cases(str(RESOURCES), ("3",))
    met = without = 0
    for case in cases:
        second = kg.disorder(case.answers[1])
        met += criteria_check(kg, second.code, case.facts)[0]
        pool = {s for name in second.required_groups for s in kg.groups[name].pool}
        without += not any(f.kind == "symptom" and f.id in pool for f in case.facts)
    assert (len(cases), met, without) == (2175, 0, 1450)


@pytest.mark.slow
@needs_data
def test_the_report_gives_the_interview_without_the_flagged_profiles(tmp_path):
    (log,) = eval(
        "selfdx/interview",
        task_args={"data": str(RESOURCES)},
        model="selfdx/kg-interviewer",
        limit=30,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success", log.error
    flagged = [s for s in log.samples if s.metadata["dsm5_flags"]]
    assert flagged  # the first 30 cases hold some (interleaved across disorders)
    out = build_report(tmp_path / "logs", tmp_path / "report", progress=False)
    table = pd.read_csv(out / "interview_metrics.csv")
    rows = table[(table["metric"] == "accuracy") & table["variant"].str.endswith(UNFLAGGED)]
    (n_cases,) = rows["n_cases"]
    assert n_cases == 30 - len(flagged)
    kept = [s.scores["interview_scorer"].value["accuracy"] for s in log.samples if s not in flagged]
    assert rows["value"].iloc[0] == pytest.approx(sum(kept) / len(kept))


@needs_data
def test_the_patient_does_not_deny_what_its_context_line_asserts():
    """A Type 3 profile keyed to ADHD and Bipolar I holds no manic symptom but a CONTEXT line
    "Presence of Manic Symptoms": asked about each, the patient is not sure, never denies."""
    from selfdx.instruments.reply_stance import stance
    from selfdx.providers.kg_patient import answer
    from selfdx.solvers.interview.prompts import patient_prompt

    _, cases = load_cases(str(RESOURCES), ("3",))
    (case,) = [c for c in cases if c.id == "t3-D001-D008_h001"]
    assert any(f.id == "CONTEXT" and "Manic" in f.topic for f in case.facts)
    system = patient_prompt(case)
    for question in (
        "Have you had a decreased need for sleep, feeling rested after only a few hours?",
        "Have you been more talkative than usual, feeling pressure to keep talking?",
    ):
        said = answer(system, question)
        assert said.endswith("REVEALED: none") and stance(said.rpartition("\n")[0]) != "denies"
    # an event named in the line asserts no symptom: those stay denied
    (trauma,) = [c for c in cases if any("Traumatic Event" in f.topic for f in c.facts)][:1]
    assert not any(f.id.startswith("UNSURE-S") for f in trauma.absent)
