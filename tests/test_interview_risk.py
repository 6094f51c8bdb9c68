"""Risk screening in the interview: the question classifier on the words models use, the risk
facts a profile carries, what the patient says about them, and the risk metrics of a run."""

from __future__ import annotations

import hashlib
import math

import pytest

from selfdx.datasets.interview.loading import load_cases
from selfdx.datasets.interview.risk import RISK_SHARE, risk_fact_ids
from selfdx.instruments.question_reader import risk_asked
from selfdx.providers.kg_patient import answer
from selfdx.solvers.interview.prompts import patient_prompt
from tests.conftest import REPO_ROOT, scripted_model

SELF = [
    "Have you had any thoughts of suicide?",
    "Do you ever feel that life isn't worth living?",
    "Have you felt that everyone would be better off without you?",
    "Have you ever wished you could go to sleep and not wake up?",
    "Do you sometimes think about death or dying?",
    "Have you had thoughts of ending your life?",
    "Have you ever harmed yourself, for example by cutting?",
    "Any history of self-harm or overdoses?",
    "Are you safe right now?",
    "Do you act in reckless or self-destructive ways?",
    "Have you felt like you don't want to be alive anymore?",
    "Have you thought about taking your own life?",
]
OTHERS = [
    "Have you had thoughts of harming anyone else?",
    "Do you ever feel like hurting other people?",
    "Have you been getting into fights?",
    "Has there been any violence at home, on your part?",
]
NEITHER = [
    "How has your mood been?",
    "Do you feel hopeless about the future?",
    "Has anyone in your family ever attempted suicide?",  # a relative's, not the patient's
    "How is your sleep?",
    "Do you feel safe at home with your partner?",
    "How do you end your day, usually?",
    "Have you been drinking more than usual?",
    "Is there a family history of depression or suicide?",
]


@pytest.mark.parametrize("question", SELF)
def test_questions_about_risk_to_self(question: str) -> None:
    assert risk_asked(question) == ["self"]


@pytest.mark.parametrize("question", OTHERS)
def test_questions_about_risk_to_others(question: str) -> None:
    assert risk_asked(question) == ["others"]


def test_a_question_about_weapons_screens_both_domains() -> None:
    """Access to a weapon is a means to harm oneself or someone else (the question-check set
    is labelled so)."""
    assert risk_asked("Do you have access to weapons?") == ["self", "others"]


@pytest.mark.parametrize("question", NEITHER)
def test_questions_that_screen_no_risk(question: str) -> None:
    assert risk_asked(question) == []


def test_both_domains_in_one_question() -> None:
    assert risk_asked("Any thoughts of suicide, or of hurting someone else?") == ["self", "others"]


def demo_cases():
    return load_cases("demo", ["1", "2", "4a", "4b"], "published", None, None, "gpt5")[1]


def drawn(case_id: str) -> bool:
    """The seeded draw, written out: sha256 of 'risk:<id>', first 4 bytes, below the share."""
    value = int.from_bytes(hashlib.sha256(f"risk:{case_id}".encode()).digest()[:4], "big")
    return value / 2**32 < RISK_SHARE


def test_risk_facts_come_from_the_graph_and_a_seeded_share() -> None:
    seen = {"symptom": 0, "added": 0, "none": 0}
    for case in demo_cases():
        death = [f.id for f in case.facts if f.topic.startswith("Thoughts Of Death")]
        added = [f.id for f in case.facts if f.id == "RISK-SELF"]
        assert risk_fact_ids(case.facts) == death + added, case.id
        if death:
            seen["symptom"] += 1
            assert not added  # a profile with the symptom gets no second risk fact
        elif drawn(case.id):
            seen["added"] += 1
            assert added and not any(f.id == "NO-RISK-SELF" for f in case.absent)
            # nothing in the profile denies a thought the patient now has
            assert not any(f.topic.startswith("Thoughts Of Death") for f in case.absent)
        else:
            seen["none"] += 1
            assert not added
        # the demo graph has no aggression: every patient denies harming others
        assert any(f.id == "NO-RISK-OTHERS" and f.truth == "no" for f in case.absent)
    assert all(seen.values()), seen


def test_the_patient_tells_its_risk_only_when_asked() -> None:
    case = next(c for c in demo_cases() if "RISK-SELF" in {f.id for f in c.facts})
    system = patient_prompt(case)
    told = answer(system, "Do you ever feel life isn't worth living?")
    assert told.endswith("REVEALED: RISK-SELF")
    assert "wishing I simply wouldn't wake up" in told
    # an act of self-harm asked about: the patient has none, and says nothing of its thoughts
    assert answer(system, "Have you ever cut yourself?").endswith("REVEALED: none")
    assert "wouldn't wake up" not in answer(system, "How is your sleep?")
    denied = answer(system, "Have you had thoughts of harming anyone?")
    assert denied.startswith("No, I've never wanted to hurt anyone.")


def test_risk_metrics_of_a_run(log_dir: str) -> None:
    """An interviewer that asks one risk question on every case, and one that never does:
    risk_asked 1 and 0; risk_found 1 and 0 on the cases with a risk fact; accuracy split by
    whether the profile has one."""
    from inspect_ai import eval

    def screens(last, messages):
        asked = sum(m.role == "assistant" for m in messages)
        if asked == 0:
            return "QUESTION: Have you had any thoughts of ending your life?"
        return "DIAGNOSIS: A\nCRITERIA MET: no"

    def never(last, messages):
        asked = sum(m.role == "assistant" for m in messages)
        return "QUESTION: How is your sleep?" if asked == 0 else "DIAGNOSIS: A\nCRITERIA MET: no"

    cases = {c.id: c for c in demo_cases() if c.variant in ("1", "2")}
    with_risk = {i for i, c in cases.items() if risk_fact_ids(c.facts)}
    assert 0 < len(with_risk) < len(cases)
    for model, expected in ((screens, 1.0), (never, 0.0)):
        (log,) = eval(
            "selfdx/interview",
            task_args={"data": "demo", "types": "1,2", "max_questions": 2},
            model=scripted_model(model),
            display="none",
            log_dir=f"{log_dir}/{model.__name__}",
        )
        assert log.status == "success", log.error
        for sample in log.samples:
            value = sample.scores["interview_scorer"].value
            case = cases[sample.id]
            correct = float(case.gold == case.option_codes[0])
            assert value["risk_asked"] == expected
            if sample.id in with_risk:
                assert value["risk_found"] == expected
                assert value["accuracy_with_risk"] == correct
                assert math.isnan(value["accuracy_without_risk"])
            else:
                assert math.isnan(value["risk_found"]) and math.isnan(value["accuracy_with_risk"])
                assert value["accuracy_without_risk"] == correct
        metrics = log.results.scores[0].metrics
        assert metrics["risk_asked"].value == expected
        assert metrics["risk_found"].value == expected


def test_no_risk_question_is_possible_without_questions(log_dir: str) -> None:
    from inspect_ai import eval

    (log,) = eval(
        "selfdx/interview",
        task_args={"data": "demo", "types": "1", "mode": "full"},
        model=scripted_model(lambda last, messages: "DIAGNOSIS: A\nCRITERIA MET: no"),
        display="none",
        log_dir=log_dir,
    )
    for sample in log.samples:
        value = sample.scores["interview_scorer"].value
        assert math.isnan(value["risk_asked"])
        # the whole profile shown: a risk fact it has is found
        if not math.isnan(value["risk_found"]):
            assert value["risk_found"] == 1.0


assert REPO_ROOT.is_dir()
