"""The consistency check (`selfdx.scorers.interview.consistency`): a patient that denies what it
told, or tells what presupposes a matter it withheld, is counted (`patient_contradictions`); the
offline patient of every style is not."""

from __future__ import annotations

import pytest
from conftest import SHARED

from selfdx.datasets.interview.loading import load_cases
from selfdx.datasets.interview.styles import STYLES, styled_case
from selfdx.instruments.patient_reply import split_revealed
from selfdx.providers.kg_patient import answer
from selfdx.scorers.interview.consistency import inconsistencies
from selfdx.solvers.interview.prompts import patient_prompt
from selfdx.solvers.interview.trace import InterviewRecord, InterviewTurn, PatientReply

RESOURCES = SHARED / "mentalbench" / "resources"
needs_data = pytest.mark.skipif(not RESOURCES.is_dir(), reason=f"no MentalBench at {RESOURCES}")
# a depressive episode with delusions and hallucinations (S019, S020)
PSYCHOTIC_DEPRESSION = "t1-D015_l001"
BELIEFS_AND_PERCEPTIONS = (
    "Have you noticed any of the following? Fixed beliefs that do not change easily, even in "
    "the face of contradictory evidence; Perception-like experiences that occur without an "
    "external stimulus and are as vivid and clear as normal perception."
)
TOGETHER = "Is this true for you: psychotic_symptoms and depressive_episode occur concurrently?"


def record(case, replies: list[tuple[str, str]]) -> InterviewRecord:
    """A trace of `(question, reply with its REVEALED line)` pairs."""
    turns = []
    for number, (question, raw) in enumerate(replies, start=1):
        text, ids, _ = split_revealed(raw)
        patient = PatientReply(model="m", raw=raw, shown=text, revealed=ids)
        asking = f"QUESTION: {question}"
        turns.append(InterviewTurn(index=number, interviewer=asking, action="question",
                                   question=question, patient=patient))  # fmt: skip
    return InterviewRecord(case_id=case.id, turns=turns, questions=len(turns))


def offline(case, kg, style: str, questions: list[str]) -> InterviewRecord:
    system = patient_prompt(styled_case(kg, case, style))
    return record(case, [(q, answer(system, q, questions[:k])) for k, q in enumerate(questions)])


@pytest.fixture(scope="module")
def demo():
    kg, cases = load_cases("demo", ["1", "2"])
    return kg, next(c for c in cases if c.id == "demo-t1-D013_l001")


def test_a_fact_denied_after_it_was_told_is_counted(demo):
    kg, case = demo
    told = record(case, [
        ("Have you been waking up in the night?", "Yes, I wake at 4 every night.\nREVEALED: S103"),
        ("Any trouble with your sleep at all?", "No, I sleep fine.\nREVEALED: none"),
    ])  # fmt: skip
    assert inconsistencies(case, told, kg) == ["turn 2: denied S103, revealed in turn 1"]
    # a denial of something it never told, or a question about several things, is no contradiction
    fine = record(case, [
        ("Have you been waking up in the night?", "Yes, I wake at 4 every night.\nREVEALED: S103"),
        ("Have you been feeling low, or waking at night?", "Not really.\nREVEALED: none"),
    ])  # fmt: skip
    assert inconsistencies(case, fine, kg) == []
    # the offline patient, asked the same, stays consistent
    questions = ["Have you been waking up in the night?", "Any trouble with your sleep at all?"]
    for style in STYLES:
        assert inconsistencies(case, offline(case, kg, style, questions), kg) == [], style


def test_a_fact_told_again_in_negative_words_is_no_denial(demo):
    """A follow-up that points to what the patient just told, answered with the same fact in
    words that open with a negation ("I don't sleep past four: ..."), affirms it."""
    kg, case = demo
    said = "I wake up at four in the morning and can't get back to sleep."
    told = record(case, [
        ("Anything else you've noticed?", f"{said}\nREVEALED: S103"),
        ("How often does that happen?", f"I don't sleep past four: {said}\nREVEALED: S103"),
    ])  # fmt: skip
    assert inconsistencies(case, told, kg) == []
    # a plain denial of it is still counted
    denied = record(case, [
        ("Anything else you've noticed?", f"{said}\nREVEALED: S103"),
        ("How often does that happen?", "No, that doesn't happen.\nREVEALED: none"),
    ])  # fmt: skip
    assert inconsistencies(case, denied, kg) == ["turn 2: denied S103, revealed in turn 1"]


@needs_data
def test_a_guarded_patient_leaks_nothing_it_withheld():
    kg, cases = load_cases(str(RESOURCES), ["1"])
    case = next(c for c in cases if c.id == PSYCHOTIC_DEPRESSION)
    # a patient that keeps its voices back, then says yes to what presupposes them: a leak
    leaky = record(case, [
        (BELIEFS_AND_PERCEPTIONS, "I'd rather not go into that.\nREVEALED: none"),
        (TOGETHER, "Yes, the strange experiences came with the low spells.\nREVEALED: none"),
    ])  # fmt: skip
    found = inconsistencies(case, leaky, kg)
    assert len(found) == 1 and "presupposes psychotic_symptoms" in found[0]
    # the offline guarded patient keeps the presupposing fact back too, however often it is
    # asked, until the matter itself is told (asked again alone: S020's hallucinations)
    alone = "Have you been hearing or seeing things that other people can't?"
    asked = [BELIEFS_AND_PERCEPTIONS, TOGETHER, TOGETHER, alone, TOGETHER]
    guarded = offline(case, kg, "guarded", asked)
    shown = [t.patient.shown for t in guarded.turns]
    assert shown[0] == shown[1] == shown[2] == "I'd rather not go into that."
    assert "S020" in guarded.turns[3].patient.revealed and shown[4].startswith("Yes")
    assert inconsistencies(case, guarded, kg) == []
    # once the matter is told (normalised), what presupposes it is told at once
    normalised = "I ask everyone this, and there is no judgement here: " + BELIEFS_AND_PERCEPTIONS
    told = offline(case, kg, "guarded", [normalised, TOGETHER])
    assert told.turns[1].patient.shown.startswith("Yes")
    assert inconsistencies(case, told, kg) == []
    # a plain patient tells both, in any order
    assert inconsistencies(case, offline(case, kg, "plain", [TOGETHER, BELIEFS_AND_PERCEPTIONS]),
                           kg) == []  # fmt: skip


@needs_data
def test_not_sure_about_what_presupposes_a_withheld_matter_is_kept_back_too():
    """Found in the 9-A style run (10 of 500 guarded cases): a bipolar I patient with psychotic
    features that kept its strange beliefs back said "I'm honestly not sure about that." to
    whether they came with the low spells, which accepts that they came at all; and a patient
    whose opening complaint is a symptom of a group was counted as leaking that group."""
    kg, cases = load_cases(str(RESOURCES), ["2"])
    case = next(c for c in cases if c.id == "t2-D010_m001")
    unsure = "Is this true for you: psychotic_symptoms and depressive_episode occur concurrently?"
    guarded = offline(case, kg, "guarded", [BELIEFS_AND_PERCEPTIONS, unsure])
    assert [t.patient.shown for t in guarded.turns] == ["I'd rather not go into that."] * 2
    assert inconsistencies(case, guarded, kg) == []
    plain = offline(case, kg, "plain", [unsure])
    assert plain.turns[0].patient.shown == "I'm honestly not sure about that."
    # the opening complaint tells its group: a psychotic depression opening with low mood
    # (S024) that keeps its guilt (S030) back may still say how long the low spell has lasted
    cases = load_cases(str(RESOURCES), ["2"])[1]
    case = next(c for c in cases if c.id == "t2-D015_m006")
    assert case.complaint == "S024"
    guilt = "Have you been feeling worthless, or guilty about things?"
    told = record(case, [
        (guilt, "I'd rather not go into that.\nREVEALED: none"),
        ("How long has the low mood been going on?",
         "About five months.\nREVEALED: DURATION-depressive_episode"),
    ])  # fmt: skip
    assert inconsistencies(case, told, kg) == []


@needs_data
def test_a_matter_told_on_a_normalised_ask_is_out():
    """Found in the 9-A style run (the careful interviewer, 49 of 500 guarded cases): a guarded
    patient that kept its voices back told, on a normalised ask, that they come only in its low
    spells, and was counted as leaking; then, asked plainly whether they came with the low
    spells, it kept that back, though the matter was out."""
    kg, cases = load_cases(str(RESOURCES), ["1"])
    case = next(c for c in cases if c.id == PSYCHOTIC_DEPRESSION)
    only_then = (
        "I ask everyone this, and there is no judgement here: Is this true for you: "
        "delusions_and_hallucinations occur exclusively during the major depressive episode?"
    )
    guarded = offline(case, kg, "guarded", [BELIEFS_AND_PERCEPTIONS, only_then, TOGETHER])
    shown = [t.patient.shown for t in guarded.turns]
    assert shown[0] == "I'd rather not go into that."
    assert shown[1].startswith("Yes") and shown[2].startswith("Yes")
    assert inconsistencies(case, guarded, kg) == []
    # told so to a plain question, it is a leak, counted once however often it is said again
    leaky = record(case, [
        (BELIEFS_AND_PERCEPTIONS, "I'd rather not go into that.\nREVEALED: none"),
        (only_then.split(": ", 1)[1], "Yes, only in a bad patch.\nREVEALED: none"),
        (TOGETHER, "Yes, they came together.\nREVEALED: none"),
    ])  # fmt: skip
    found = inconsistencies(case, leaky, kg)
    assert found and all(line.startswith("turn 2:") for line in found), found


def test_a_childhood_onset_disorder_says_its_duration_as_a_least():
    """A clinician's reading of 20 ADHD transcripts (2026-12-07): "I've been like this for
    about 1 year and 5 months now" beside "it goes back to my childhood ... before I was
    twelve" is an inconsistent history. Where the criteria ask for an onset in childhood the
    duration is said as "at least the last ...", and the offline interviewer still reads it."""
    from selfdx.datasets.interview.cases import group_facts
    from selfdx.providers.interview_policies import ILLNESS_DURATION

    onset = {
        "duration": "1 year 5 months",
        "additional_requirements": ["Several symptoms were present prior to age 12."],
    }
    (said,) = [f.statement for f in group_facts({}, onset) if f.id == "DURATION"]
    assert said == "I've been this way for at least the last 1 year and 5 months."
    assert ILLNESS_DURATION.search(said).group(1) == "1 year and 5 months"
    (plain,) = [
        f.statement for f in group_facts({}, {"duration": "6 months"}) if f.id == "DURATION"
    ]
    assert plain == "I've been like this for about 6 months now."
