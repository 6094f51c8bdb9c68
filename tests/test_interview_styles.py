"""Patient styles (`-T patient_style=`): the offline patient follows each style exactly, the
over-reporting claims are the seeded draw, and a run with several styles reports each one."""

from __future__ import annotations

import hashlib
import math
import re

import pandas as pd
import pytest
from inspect_ai import eval

from selfdx.datasets.interview.loading import load_cases
from selfdx.datasets.interview.styles import (
    OVER_REPORT_SHARE,
    WITHHELD,
    styled_case,
)
from selfdx.errors import ArgumentError
from selfdx.inspect_tasks.interview import interview
from selfdx.providers.kg_patient import answer
from selfdx.solvers.interview.prompts import patient_prompt
from tests.conftest import scripted_model

CASE_ID = "demo-t1-D013_l001"  # a depressive episode with thoughts of death (S109)
SLEEP_AND_MOOD = "Have you had trouble sleeping, or been feeling low?"  # asks S103 and S101
# S103 alone (a broad "how is your sleep?" asks about every sleep symptom)
SLEEP = "Have you been waking up in the night?"


@pytest.fixture(scope="module")
def demo():
    kg, cases = load_cases("demo", ["1", "2"], "published", None, None, "gpt5")
    return kg, {c.id: c for c in cases}


def prompt(demo, style: str) -> str:
    kg, cases = demo
    return patient_prompt(styled_case(kg, cases[CASE_ID], style))


def revealed(reply: str) -> list[str]:
    line = reply.rsplit("REVEALED: ", 1)[1]
    return [] if line == "none" else line.split(", ")


def test_plain_tells_both_at_once(demo):
    reply = answer(prompt(demo, "plain"), SLEEP_AND_MOOD)
    assert sorted(revealed(reply)) == ["S101", "S103"]


def test_minimising_admits_it_played_down_until_asked_how_often_or_how_bad(demo):
    system = prompt(demo, "minimising")
    first = answer(system, SLEEP_AND_MOOD)
    # each symptom admitted as a small thing, by its plain name; nothing revealed
    assert first.count("now and then, but it's nothing really, not a big deal.") == 2
    assert "I do get a bit of " in first and revealed(first) == []
    assert not first.startswith("No")
    # asked again, or alone, in other words: still played down
    again = answer(system, "Have you been feeling sad?", earlier=[SLEEP_AND_MOOD])
    assert "not a big deal" in again and revealed(again) == []
    assert revealed(answer(system, SLEEP)) == []
    # a question about how often, how long or how bad: its true extent
    for extent in (
        "How often does that happen?",
        "How bad has the sleep been, honestly?",
        "How many nights a week are you waking?",
    ):
        told = answer(system, extent, earlier=[SLEEP])
        assert "S103" in revealed(told) and "not a big deal" not in told, extent
    # what is not a symptom is not played down
    assert revealed(answer(system, "How long has this low spell lasted?")) == [
        "DURATION-low_mood_episode"
    ]
    # nor is a risk: told as far as asked
    assert "S109" in revealed(answer(system, "Have you had thoughts of death or suicide?"))


def test_vague_answers_imprecisely_until_asked_for_something_concrete(demo):
    system = prompt(demo, "vague")
    general = answer(system, SLEEP)
    assert general.startswith("Maybe some ") and "hard to say how much" in general
    assert revealed(general) == []
    # a symptom's description read out ("nearly every day") asks for nothing concrete
    assert revealed(answer(system, "Do you sleep badly nearly every day?")) == []
    for detailed in (
        "How often do you have trouble sleeping?",
        "Can you give me an example of what your sleep is like?",
        "How many nights a week do you have trouble sleeping?",
    ):
        assert "S103" in revealed(answer(system, detailed)), detailed
    # an example opens a vague patient, not a minimising one
    example = "Can you give me an example of what your sleep is like?"
    assert revealed(answer(prompt(demo, "minimising"), example)) == []


def test_guarded_withholds_until_normalised_or_asked_again(demo):
    system = prompt(demo, "guarded")
    mixed = "Have you been feeling low, or had thoughts of death?"
    told = answer(system, mixed)
    assert WITHHELD in told and revealed(told) == ["S101"]
    # asked alone the first time, plainly: still withheld
    alone = "Have you had thoughts of death or suicide?"
    assert WITHHELD in answer(system, alone) and revealed(answer(system, alone)) == []
    # asked alone again, after a first ask: told
    assert revealed(answer(system, alone, earlier=[mixed])) == ["S109"]
    # normalised in the same turn, in words of several kinds: told at the first ask
    for normalised in (
        "Lots of people who've been this down for a while find their mind goes to dark places. "
        "Have you had thoughts of death?",
        "I check this with every patient, so please don't read anything into it: any thoughts "
        "of death or of ending your life?",
        "There's no judgement here at all. Have you been having thoughts of dying?",
    ):
        assert revealed(answer(system, normalised)) == ["S109"], normalised
    # an ordinary symptom in a mixed question is told as usual
    assert sorted(revealed(answer(system, SLEEP_AND_MOOD))) == ["S101", "S103"]
    # confidentiality alone, or asking permission, is not normalising
    for plain in (
        "This stays between the two of us. Any thoughts of death?",
        "Is it all right if I ask you about thoughts of death?",
    ):
        assert revealed(answer(system, plain)) == [], plain


def drawn(case_id: str, code: str) -> bool:
    """The over-reporting draw, written out: sha256 of 'over:<id>:<code>' below the share."""
    digest = hashlib.sha256(f"over:{case_id}:{code}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < OVER_REPORT_SHARE


def test_over_reporting_claims_the_drawn_share_of_what_it_lacks(demo):
    kg, cases = demo
    case = cases[CASE_ID]
    lacked = [f.id[3:] for f in case.absent if f.kind == "symptom" and f.truth == "no"]
    styled = styled_case(kg, case, "over_reporting")
    claimed = [f.id[6:] for f in styled.absent if f.truth == "claimed"]
    assert claimed == [code for code in lacked if drawn(case.id, code)]
    assert 0 < len(claimed) < len(lacked)
    still_denied = [f.id[3:] for f in styled.absent if f.truth == "no" and f.kind == "symptom"]
    assert sorted(still_denied + claimed) == sorted(lacked)
    system = patient_prompt(styled)
    assert "(style: over_reporting)" in system
    code = claimed[0]
    name = kg.symptoms[code].name.replace("_", " ").lower()
    reply = answer(system, f"Have you had any {name}?")
    assert not reply.startswith("No") and revealed(reply) == []  # affirmed, never revealed


def test_an_over_reporting_claim_fails_on_specifics(demo):
    kg, cases = demo
    styled = styled_case(kg, cases[CASE_ID], "over_reporting")
    system = patient_prompt(styled)
    code = next(f.id[6:] for f in styled.absent if f.truth == "claimed")
    asked = f"Have you had any {kg.symptoms[code].name.replace('_', ' ').lower()}?"
    first = answer(system, asked)
    for pressed in (
        "Could you describe the last time that happened?",
        "How often does it come over you?",
        "Give me an example, if you can.",
    ):
        reply = answer(system, pressed, earlier=[asked])
        # it keeps the claim but backs it with nothing; the claim's own words are not said again
        assert "I'm sure that's me too, but I can't think of an actual example" in reply, pressed
        assert revealed(reply) == [] and first.split("\n")[0] not in reply, pressed
    # a symptom it has, pressed in the same words, is told in full
    told = answer(system, "Could you describe the last time that happened?", earlier=[SLEEP])
    assert "S103" in revealed(told) and "actual example" not in told
    # only the over-reporting patient has nothing to give: a plain one names no claim
    plain = answer(prompt(demo, "plain"), "Could you describe the last time that happened?",
                   earlier=[asked])  # fmt: skip
    assert "actual example" not in plain


def test_a_misspelled_style_names_the_nearest():
    with pytest.raises(ArgumentError, match="patient_style: 'minimizing' is not one of .*"
                       r"\(did you mean minimising\?\)"):  # fmt: skip
        interview(patient_style="minimizing")


@pytest.mark.slow
def test_several_styles_in_one_run_are_reported_per_style(log_dir):
    styles = ["plain", "minimising", "vague", "guarded", "over_reporting"]
    (log,) = eval(
        "selfdx/interview",
        task_args={"data": "demo", "types": "1,2", "patient_style": ",".join(styles)},
        model="selfdx/kg-interviewer",
        display="none",
        log_dir=log_dir,
    )
    assert log.status == "success", log.error
    rows = []
    for sample in log.samples:
        case_id, style = str(sample.id).split("@")
        assert sample.metadata["patient_style"] == style
        rows.append({"case": case_id, "style": style, **sample.scores["interview_scorer"].value})
    frame = pd.DataFrame(rows)
    assert sorted(frame["style"].unique()) == sorted(styles)
    assert frame.groupby("style")["case"].nunique().nunique() == 1  # every case in each style
    reported = {k: v.value for e in log.results.scores for k, v in e.metrics.items()}
    for style, group in frame.groupby("style"):
        for key in ("accuracy", "fact_recall", "questions"):
            assert reported[f"{style}_{key}"] == pytest.approx(group[key].mean()), (style, key)
    plain = frame[frame["style"] == "plain"]["accuracy"].mean()
    for style in styles[1:]:
        drop = plain - frame[frame["style"] == style]["accuracy"].mean()
        assert reported[f"{style}_accuracy_drop"] == pytest.approx(drop)
    # the styles are not free: the offline interviewer draws fewer facts from all but plain
    recall = frame.groupby("style")["fact_recall"].mean()
    assert recall["minimising"] < recall["plain"] and recall["vague"] < recall["plain"]
    # only the over-reporting patient makes claims
    claims = frame.groupby("style")["false_claims"]
    assert claims.apply(lambda v: v.isna().all()).drop("over_reporting").all()
    assert frame[frame["style"] == "over_reporting"]["false_claims"].sum() > 0
    assert not math.isnan(reported["over_reporting_accuracy"])
    assert re.fullmatch(r"\d+\.\d+", f"{reported['plain_accuracy']:.3f}")


def check_styles(log_dir, patient=None):
    """Every style on the scripted probes (in the offline patient's own words; the written
    ones: tests/test_patient_check_written.py)."""
    roles = {"patient": patient} if patient else None
    (log,) = eval(
        "selfdx/patient_check",
        task_args={
            "patient_style": "plain,minimising,vague,guarded,over_reporting",
            "wording": "scripted",
        },
        model_roles=roles,
        display="none",
        log_dir=log_dir,
    )
    assert log.status == "success", log.error
    frame = pd.DataFrame(
        [
            {"style": s.metadata["patient_style"], "kind": s.metadata["kind"],
             **s.scores["patient_check_scorer"].value}
            for s in log.samples
        ]
    )  # fmt: skip
    return log, frame


@pytest.mark.slow
def test_patient_check_measures_every_style(log_dir):
    log, frame = check_styles(log_dir)
    styled = frame[frame["kind"] == "style"]
    assert set(styled["style"]) == {"minimising", "vague", "guarded", "over_reporting"}
    assert (styled["style_followed"] == 1.0).all()
    for key in ("revealed_when_asked", "denied_when_absent", "ids_match", "same_answer"):
        assert frame[key].dropna().eq(1.0).all(), key
    for key in ("volunteered", "false_affirmation", "names_said", "followed_instructions"):
        assert frame[key].dropna().eq(0.0).all(), key


@pytest.mark.slow
def test_a_patient_that_ignores_its_style_fails_the_style_probes(log_dir):
    """The offline patient told it is plain, whatever style the prompt asked for; and a
    patient that denies everything, for the over-reporting claims."""
    from selfdx.providers.kg_patient import kg_patient

    def ignores_style(last, messages):
        system = re.sub(r"\(style: \w+\)", "(style: plain)", messages[0].text)
        return kg_patient([messages[0].model_copy(update={"content": system}), *messages[1:]], {})

    _, frame = check_styles(f"{log_dir}/ignores", scripted_model(ignores_style))
    followed = frame[frame["kind"] == "style"].groupby("style")["style_followed"].mean()
    assert followed["minimising"] == 0.0 and followed["vague"] == 0.0
    assert followed["guarded"] == 0.0
    assert followed["over_reporting"] == 1.0  # the claims are still in its facts: it says them

    def denies(last, messages):
        return "No, nothing like that.\nREVEALED: none"

    _, frame = check_styles(f"{log_dir}/denies", scripted_model(denies))
    claimed = frame[(frame["kind"] == "style") & (frame["style"] == "over_reporting")]
    assert (claimed["style_followed"] == 0.0).all()


@pytest.mark.parametrize(
    ("code", "name"),
    [
        ("S002", "Sustained_Attention_Difficulty"),
        ("S003", "Listening_Difficulty"),
        ("S005", "Organization_Difficulty"),
        ("S011", "Leaving_Seat"),
        ("S013", "Quiet_Activity_Difficulty"),
        ("S017", "Waiting_Turn_Difficulty"),
        # the graph's name as the interview shows it, spaced: the patient's words, not jargon
        ("S004", "Instruction Follow through Difficulty"),
    ],
)
def test_a_played_down_or_vague_symptom_is_never_said_as_its_opposite(code, name):
    """A clinician's reading of 20 transcripts (2026-12-07): "I do get a bit of doing things
    quietly now and then" says the reverse of the symptom; "a bit of instruction follow
    through difficulty" is the graph's jargon."""
    from selfdx.datasets.interview.styles import GENERAL, PLAYED_DOWN, said_as

    for template in (PLAYED_DOWN, GENERAL):
        said = said_as(template, code, name)
        assert "trouble with " in said and "difficulty" not in said.lower(), said
