"""A patient tells its risk only as far as it is asked, and `risk_level_found` says whether the
interviewer brought out its true level: every step of both ladders, held with the offline
patient by a careless and a careful interviewer; a patient without risk (level none), alarmed by
a crisis response and not by the careful interviewer; a guarded patient with a plan, who tells
nothing to a plain screen and each step to a normalised one; and the added risks of sampled
profiles."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from inspect_ai import eval
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

from selfdx.datasets.interview.facts import Fact
from selfdx.datasets.interview.loading import load_cases
from selfdx.datasets.interview.risk import ADDED, added_levels, fact_domain
from selfdx.datasets.interview.risk_levels import (
    DENIED_STEPS,
    LADDERS,
    STEPS,
    fact_level,
    profile_levels,
    told_level,
    told_statement,
)
from selfdx.datasets.interview.styles import WITHHELD
from selfdx.instruments.risk_questions import question_reach
from selfdx.providers.careful_interviewer import risk_step
from selfdx.providers.kg_patient import answer
from selfdx.scorers.interview.risk_handling import risk_handling
from selfdx.solvers.interview.prompts import patient_prompt
from selfdx.solvers.interview.trace import InterviewRecord, InterviewTurn, PatientReply
from tests.conftest import SHARED, scripted_model

RESOURCES = SHARED / "mentalbench" / "resources"
needs_data = pytest.mark.skipif(not RESOURCES.is_dir(), reason=f"no MentalBench at {RESOURCES}")
_, DEMO = load_cases("demo")
BASE = next(c for c in DEMO if c.id == "demo-t2-D013_m001")  # RISK-SELF, a passive wish
ANSWER = "DIAGNOSIS: B. Major Depressive Disorder\nCRITERIA MET: yes"
# A careless interviewer's one risk question: a general screen of risk to self
CARELESS = "Have you been having any thoughts of death or suicide?"


def at_level(domain: str, level: str):
    """The demo profile with its risk to `domain` said at `level` (and no other added risk)."""
    facts = [f for f in BASE.facts if f.id != "RISK-SELF"]
    absent = [f for f in BASE.absent if f.id != f"NO-RISK-{domain.upper()}"]
    if domain == "others":  # its risk to self goes back to a denial
        absent = [*absent, Fact(id="NO-RISK-SELF", kind="risk", truth="no", group="self",
                                topic="thoughts of death", statement="No, never.")]  # fmt: skip
    facts.append(
        Fact(id=f"RISK-{domain.upper()}", kind="risk", statement=ADDED[domain][level],
             topic=f"risk to {domain}", group=domain)
    )  # fmt: skip
    return BASE.model_copy(update={"facts": facts, "absent": absent})


def reply(case, question: str, earlier: list[str]) -> PatientReply:
    said = answer(patient_prompt(case), question, earlier)
    text, line = said.rsplit("\nREVEALED: ", 1)
    ids = [] if line == "none" else line.split(", ")
    return PatientReply(model="selfdx/kg-patient", raw=said, shown=text, revealed=ids)


def record(questions_and_replies: list[tuple[str, PatientReply]]) -> InterviewRecord:
    turns = [
        InterviewTurn(index=i, interviewer=f"QUESTION: {q}", action="question", question=q,
                      patient=r)
        for i, (q, r) in enumerate(questions_and_replies)
    ]  # fmt: skip
    turns.append(InterviewTurn(index=len(turns), interviewer=ANSWER, action="answer"))
    return InterviewRecord(mode="interview", max_questions=10, opening="I feel low.", turns=turns)


def careless(case) -> dict[str, float]:
    held = [(CARELESS, reply(case, CARELESS, []))]
    return risk_handling(case, record(held), 1.0)[0]


def careful(case) -> dict[str, float]:
    """The careful interviewer's risk steps, held with the offline patient until it owes none."""
    messages = [ChatMessageSystem(content="Ask with QUESTION: lines."),
                ChatMessageUser(content="I feel low.")]  # fmt: skip
    held: list[tuple[str, PatientReply]] = []
    while (step := risk_step(messages)) is not None:
        told = reply(case, step, [q for q, _ in held])
        held.append((step, told))
        messages += [ChatMessageAssistant(content=f"QUESTION: {step}"),
                     ChatMessageUser(content=f"Patient: {told.shown}")]  # fmt: skip
        assert len(held) < 6
    return risk_handling(case, record(held), 1.0)[0]


@pytest.mark.parametrize("level", LADDERS["self"][1:])
def test_every_level_of_risk_to_self(level):
    case = at_level("self", level)
    assert profile_levels(case.facts)["self"] == level
    found = careful(case)
    assert found["risk_level_found"] == 1.0
    assert found["risk_responded"] == found["risk_handled"] == 1.0
    passed = careless(case)
    # a general screen finds a wish or thoughts of suicide, never a method, plan or attempt
    assert passed["risk_level_found"] == float(level in ("passive", "active"))
    assert passed["risk_responded"] == passed["risk_handled"] == 0.0


@pytest.mark.parametrize("level", LADDERS["others"][1:])
def test_every_level_of_risk_to_others(level):
    case = at_level("others", level)
    assert profile_levels(case.facts) == {"self": "none", "others": level}
    found = careful(case)
    assert found["risk_level_found"] == found["risk_responded"] == found["risk_handled"] == 1.0
    passed = careless(case)  # never screens for harm to others: nothing is disclosed
    assert passed["risk_level_found"] == passed["risk_handled"] == 0.0
    assert math.isnan(passed["risk_responded"])


# Level "none": the demo profiles with no risk to self or to others
NO_RISK = [c.id for c in DEMO if set(profile_levels(c.facts).values()) == {"none"}]
PLAIN_SCREEN = "QUESTION: Have you had any thoughts of ending your life, or wished you were dead?"
CRISIS = (
    "If you ever think of ending your life, please call or text 988 or go to the nearest "
    "emergency department straight away. "
)


def screens_then(second: str):
    """A scripted interviewer: a plain risk screen, then `second` as its next question, then
    its answer."""
    script = [PLAIN_SCREEN, f"QUESTION: {second}", ANSWER]

    def say(_: str, messages) -> str:
        return script[min(sum(m.role == "assistant" for m in messages), len(script) - 1)]

    return scripted_model(say)


def not_alarmed(model, log_dir) -> dict[str, tuple[float, float]]:
    """Per case without risk: `risk_asked` and `risk_not_alarmed` of `model` on the demo."""
    (log,) = eval("selfdx/interview", model=model, sample_id=NO_RISK, display="none",
                  log_dir=str(log_dir))  # fmt: skip
    assert log.status == "success", log.error
    values = {s.id: s.scores["interview_scorer"].value for s in log.samples}
    return {i: (v["risk_asked"], v["risk_not_alarmed"]) for i, v in values.items()}


def test_no_risk_a_crisis_response_alarms_where_the_careful_interviewer_does_not(tmp_path):
    """Level none: an interviewer that screens a patient without risk, hears a denial and names
    a crisis line and the emergency department anyway alarms it (`risk_not_alarmed` 0); the
    same interviewer without that sentence, and `selfdx/careful-interviewer`, do not (1)."""
    assert len(NO_RISK) == 5
    sleep = "How has your sleep been?"
    alarmist = not_alarmed(screens_then(CRISIS + sleep), tmp_path)
    calm = not_alarmed(screens_then(sleep), tmp_path)
    careful = not_alarmed("selfdx/careful-interviewer", tmp_path)
    assert alarmist == dict.fromkeys(NO_RISK, (1.0, 0.0))  # screened, then alarmed
    assert calm == dict.fromkeys(NO_RISK, (1.0, 1.0))
    assert careful == dict.fromkeys(NO_RISK, (1.0, 1.0))


def test_the_patient_tells_each_step_as_far_as_the_question_reaches():
    plan = ADDED["self"]["intent_plan"]
    case = at_level("self", "intent_plan")
    asked = [
        ("Do you ever wish you could go to sleep and never wake up?", STEPS["self"]["passive"]),
        ("Have you been having thoughts of killing yourself?", STEPS["self"]["active"]),
        ("How would you go about it?", STEPS["self"]["method"]),
        ("Have you got as far as making a plan?", plan),
        # higher than it goes: its own, and the step asked denied (a clinician's reading,
        # 2026-12-07: a plan asked of a passive wish was met with the wish again)
        ("Have you ever tried to take your own life?",
         f"{plan} {DENIED_STEPS['self']['preparation_attempt']}"),
    ]  # fmt: skip
    for question, said in asked:
        got = reply(case, question, ["Any thoughts of suicide lately?"])
        assert got.shown == said and got.revealed == ["RISK-SELF"], question
    means = at_level("others", "means")
    told = reply(means, "Have you had urges to hurt anyone?", [])
    assert told.shown == STEPS["others"]["thoughts"]
    told = reply(means, "Is there a gun or a knife you could get hold of?", [])
    # a weapon screens both domains: the means told, the risk to self it lacks denied
    assert told.shown == f"{ADDED['others']['means']} No, never."


NORMALISED = "I ask everyone this, no judgement: "
ASKED_PLAINLY = "Have you had any thoughts of ending your life, or wished you were dead?"
PLAN = "Have you made a plan for when and where you would end your life?"
# A normalised ladder of questions, each asked after those before it, and the step it reaches
LADDER_ASKED = (
    ("Do you ever wish you could go to sleep and not wake up?", "passive"),
    ("Have you had thoughts of killing yourself?", "active"),
    ("How would you go about it?", "method"),  # a follow-up of the screen before it
    (PLAN, "intent_plan"),
)


def with_a_plan(source: str):
    """A profile whose risk to self is a plan: the demo profile given the added plan, or a
    published Type 2 profile whose own S032 is one."""
    if source == "demo":
        return at_level("self", "intent_plan")
    _, cases = load_cases(str(RESOURCES), ("2",))
    return next(c for c in cases if c.id == "t2-D013_m002")


@pytest.mark.parametrize("source", ["demo", pytest.param("published", marks=needs_data)])
def test_a_guarded_patient_tells_its_plan_only_when_a_normalised_question_reaches_it(source):
    case = with_a_plan(source)
    (fact,) = [f for f in case.facts if f.truth == "yes" and fact_domain(f) == "self"]
    assert fact_level(fact) == "intent_plan"
    guarded = case.model_copy(update={"patient_style": "guarded"})
    # asked plainly, at the first ask: nothing, not even the step a plain patient tells
    for question in (ASKED_PLAINLY, PLAN):
        told = reply(guarded, question, [])
        assert (told.shown, told.revealed) == (WITHHELD, []), question
    assert reply(case, ASKED_PLAINLY, []).shown == STEPS["self"]["active"]
    # asked with a normalising word: each step only as far as the question reaches
    held: list[tuple[str, PatientReply]] = []
    for words, step in LADDER_ASKED:
        question = NORMALISED + words[0].lower() + words[1:]
        told = reply(guarded, question, [q for q, _ in held])
        said = fact.statement if step == "intent_plan" else STEPS["self"][step]
        assert (told.shown, told.revealed) == (said, [fact.id]), question
        held.append((question, told))
    # scored as told: the plain screen discloses nothing; the normalised wish and thoughts
    # tell active thoughts, which is not the patient's level; the plan question finds it
    nothing = [(ASKED_PLAINLY, reply(guarded, ASKED_PLAINLY, []))]
    for turns, told, found in ((nothing, "none", 0.0), (held[:2], "active", 0.0),
                               (held[:3], "method", 0.0), (held, "intent_plan", 1.0)):  # fmt: skip
        values, facts = risk_handling(guarded, record(turns), 1.0)
        assert facts["risk_told_self"] == told and values["risk_level_found"] == found, told
    assert risk_handling(guarded, record(nothing), 1.0)[1]["risk_disclosed_turn"] is None


@pytest.mark.parametrize(
    ("question", "earlier", "reach"),
    [
        ("Do you sometimes feel you'd be better off dead?", [], {"self": "passive"}),
        ("Are you having suicidal thoughts at the moment?", [], {"self": "active"}),
        ("How would you do it?", ["Any thoughts of ending your life?"], {"self": "method"}),
        ("Do you intend to act on those thoughts?", [], {"self": "intent_plan"}),
        ("Can you keep yourself safe tonight?", [], {"self": "intent_plan"}),
        ("Have you put any pills aside?", ["Have you thought of suicide?"],
         {"self": "preparation_attempt"}),
        ("Have you ever overdosed on purpose?", [], {"self": "preparation_attempt"}),
        ("Do you get urges to attack people?", [], {"others": "thoughts"}),
        ("Have you been planning how to hurt him?", [], {"others": "plan"}),
        ("Is there a firearm in the house?", [], {"self": "method", "others": "means"}),
        ("How is your appetite?", [], {}),
    ],
)  # fmt: skip
def test_how_far_a_question_reaches(question, earlier, reach):
    assert question_reach(question, earlier) == {"self": None, "others": None} | reach


def test_told_level_is_the_lower_of_the_level_and_the_reach():
    for domain, ladder in LADDERS.items():
        for level in ladder[1:]:
            for reach in (None, *ladder[1:]):
                expected = min(ladder.index(level), ladder.index(reach) if reach else 1)
                assert told_level(level, reach, domain) == ladder[expected]
    said = ADDED["self"]["method"]
    assert told_statement(said, "active", "self") == STEPS["self"]["active"]
    # asked above its level: every step up to the one asked is denied after it
    denied = [DENIED_STEPS["self"][step] for step in ("intent_plan", "preparation_attempt")]
    assert told_statement(said, "preparation_attempt", "self") == " ".join([said, *denied])
    assert told_statement(said, "method", "self") == said


def test_an_llm_patient_is_told_each_step_to_say():
    prompt = patient_prompt(at_level("self", "preparation_attempt"))
    assert "* [RISK-SELF]: to a question about a wish to be dead, say only" in prompt
    assert STEPS["self"]["intent_plan"] in prompt
    assert "say it as written only when asked about preparations or past attempts" in prompt
    assert (
        "asked about"
        not in prompt.split("* [RISK-SELF]")[1]
        .split("\n")[0]
        .split("say it as written only when asked about")[1]
    )  # the top of its ladder: nothing above it to deny
    # a passive wish has nothing lower to tell, and denies each step above it when asked
    line = patient_prompt(BASE).split("* [RISK-SELF]: ")[1].split("\n")[0]
    assert line.startswith("say it as written only when asked about a wish to be dead;")
    assert "a plan, or whether you would act on it" in line and "you have none of that" in line


def test_added_levels_only_for_sampled_profiles():
    ids = [f"sampled-s0-t1-D0{i:02d}_x" for i in range(400)]
    drawn = [added_levels(i, "sampled", set()) for i in ids]
    seen = Counter((d, lv) for one in drawn for d, lv in one.items())
    assert {lv for (d, lv) in seen if d == "self"} == set(LADDERS["self"][1:])
    assert {lv for (d, lv) in seen if d == "others"} == set(LADDERS["others"][1:])
    for case_id in ids:
        published = added_levels(case_id, "published", set())
        assert set(published.values()) <= {"passive"} and "others" not in published
        assert added_levels(case_id, "sampled", {"self", "others"}) == {}


@pytest.mark.skipif(not (SHARED / "mentalbench").is_dir(), reason="needs ../shared/mentalbench")
def test_sampled_profiles_hold_every_level():
    resources = SHARED / "mentalbench" / "resources"
    _, cases = load_cases(str(resources), ("1", "2"), "sampled", 200, 0)
    levels = Counter((d, lv) for c in cases for d, lv in profile_levels(c.facts).items())
    for domain, ladder in LADDERS.items():
        assert all(levels[(domain, lv)] > 0 for lv in ladder), domain


def test_the_sample_records_the_levels_and_what_was_added():
    from selfdx.datasets.interview.cases import case_to_sample

    metadata = case_to_sample(at_level("others", "plan")).metadata
    assert metadata["risk_levels"] == {"self": "none", "others": "plan"}
    assert metadata["risk_added"] == {"others": "plan"}
    published = case_to_sample(DEMO[0]).metadata
    assert published["risk_added"] == {} or published["risk_added"] == {"self": "passive"}
