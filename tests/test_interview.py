"""Units of `selfdx/interview`: facts, the rule check, cases, reply parsing, the offline patient."""

from __future__ import annotations

import json

import pytest
from conftest import SHARED

from selfdx.datasets.answer_check import disorder_names
from selfdx.datasets.interview.cases import InterviewCase, demographics_from, seed_group_of
from selfdx.datasets.interview.criteria import criteria_check
from selfdx.datasets.interview.demo_graph import demo_kg
from selfdx.datasets.interview.facts import (
    duration_fact,
    first_person,
    impairment_fact,
    requirement_fact,
    stressor_fact,
    symptom_fact,
)
from selfdx.datasets.interview.loading import features_files, load_cases
from selfdx.datasets.mentalbench.sources import find_dataset_dir
from selfdx.errors import ArgumentError
from selfdx.inspect_tasks.interview import interview, normalise_types
from selfdx.instruments.answers.interview_answer import read_answer
from selfdx.instruments.answers.interviewer_reply import parse_reply
from selfdx.instruments.patient_reply import split_revealed, withhold_names
from selfdx.providers.kg_patient import answer as patient_answer
from selfdx.solvers.interview.prompts import patient_prompt, system_prompt

RESOURCES = SHARED / "mentalbench" / "resources"
needs_data = pytest.mark.skipif(not RESOURCES.is_dir(), reason=f"no MentalBench at {RESOURCES}")


@pytest.mark.parametrize(
    ("text", "spoken"),
    [
        ("Loses focus while watching movies.", "I lose focus while watching movies."),
        ("Often fails to finish chores", "I often fail to finish chores"),
        ("Feeling sad most of the day", "I've been feeling sad most of the day"),
        ("Is easily distracted", "I am easily distracted"),
        ("Worries about money", "I worry about money"),
        ("Catches every cold", "I catch every cold"),
        ("Cries daily", "I cry daily"),
        ("The feeling of being useless", "I notice this: the feeling of being useless"),
    ],
)
def test_first_person(text, spoken):
    assert first_person(text) == spoken


def mdd_facts(symptoms, weeks=3, fi=True):
    kg = demo_kg()
    facts = [symptom_fact(kg, s, "x", "low_mood_episode") for s in symptoms]
    facts.append(duration_fact(f"{weeks} weeks", "low_mood_episode"))
    facts.append(impairment_fact(fi, group="low_mood_episode"))
    return facts


def test_rule_check_counts_thresholds_mandatory_duration_and_impairment():
    kg = demo_kg()
    five = ["S101", "S103", "S104", "S105", "S107"]
    assert criteria_check(kg, "D013", mdd_facts(five)) == (True, [])
    met, missing = criteria_check(kg, "D013", mdd_facts(five[:4]))
    assert not met and missing == ["low_mood_episode: 4 of 5 symptoms"]
    met, missing = criteria_check(kg, "D013", mdd_facts(["S103", "S104", "S105", "S106", "S107"]))
    assert missing == ["low_mood_episode: none of S101, S102"]
    assert criteria_check(kg, "D013", mdd_facts(five, weeks=1))[1] == [
        "low_mood_episode: duration of 2 weeks not established"
    ]
    assert criteria_check(kg, "D013", mdd_facts(five, fi=False))[1] == [
        "low_mood_episode: impairment not established"
    ]
    # Persistent depressive disorder needs two years of its own group: not met by these facts.
    assert not criteria_check(kg, "D014", mdd_facts(five))[0]


def test_rule_check_disorder_level_criteria():
    kg = demo_kg()
    requirement = "The symptoms began within 3 months of the stressful change"
    base = [symptom_fact(kg, "S141", "x", "stress_reaction"), impairment_fact(True)]
    full = [*base, stressor_fact("psychosocial"), requirement_fact(1, requirement)]
    assert criteria_check(kg, "D020", [*full, duration_fact("2 months")]) == (True, [])
    assert criteria_check(kg, "D020", [*full, duration_fact("7 months")])[1] == [
        "illness duration not established within the KG limits"
    ]
    assert criteria_check(kg, "D020", [*base, stressor_fact("traumatic")])[1] == [
        "illness duration not established within the KG limits",
        "psychosocial stressor not established",
        f"requirement not established: {requirement}",
    ]


def test_demo_cases():
    kg, cases = load_cases("demo", ("1", "2", "4a", "4b"))
    assert len(cases) == 16 and kg.folder.name == "interview_demo.json"
    assert {c.variant for c in cases} == {"1", "2", "4a", "4b"}
    by_id = {c.id: c for c in cases}
    assert len(by_id) == 16
    for case in cases:
        assert case.gold in case.option_codes and len(set(case.option_codes)) == 4
        ids = [f.id for f in case.facts]
        assert len(ids) == len(set(ids)) and case.complaint in ids
        assert set(case.critical) <= set(ids)
        assert not {f.id for f in case.absent} & set(ids)
        assert case.criteria_met == (case.variant == "1"), case.id
        if case.variant.startswith("4"):
            assert "RULE" in case.critical
    # Type 1 demo cases meet every criterion by construction; recompute one by hand.
    gad = next(c for c in cases if c.variant == "1" and c.gold == "D011")
    symptoms = {f.id for f in gad.facts if f.kind == "symptom"}
    assert {"S121", "S122"} <= symptoms and len(symptoms) >= 4
    assert gad.fact("IMPAIRMENT").value is True and gad.fact("DURATION").value


def test_seed_groups_and_demographics():
    assert seed_group_of("D005", "l007") == "D005-l02"
    assert seed_group_of("D001-D005", "h005") == "D001-m01"
    text = "A 34-year-old married male chef presents with a year of trouble."
    assert demographics_from(text) == "a 34-year-old married male chef"
    assert demographics_from("I have been struggling.") == "an adult patient"


@needs_data
def test_published_profiles_are_the_same_for_every_generator():
    dataset = find_dataset_dir(RESOURCES)
    for variant in ("1", "2", "4a"):
        first = features_files(dataset, variant, "gpt5")[0]
        ours = json.loads(first.read_text())
        for generator in ("gemini", "qwen235"):
            other = json.loads(first.with_name(f"main_{generator}.json").read_text())
            assert {k: v["features"] for k, v in ours.items()} == {
                k: v["features"] for k, v in other.items()
            }


@pytest.mark.slow
@needs_data
def test_published_cases_and_rule_check():
    kg, cases = load_cases(str(RESOURCES), ("1", "2", "4a", "4b"), "published")
    counts = {v: sum(c.variant == v for c in cases) for v in ("1", "2", "4a", "4b")}
    assert counts == {"1": 575, "2": 1150, "4a": 2175, "4b": 2175}
    # Every published Type 1 profile meets the criteria (the paper's "full chart").
    assert all(c.criteria_met for c in cases if c.variant == "1")
    # A Type 2 profile with a required group below its threshold cannot meet them: count
    # that shortfall directly from the symptom facts.
    short = 0
    for case in (c for c in cases if c.variant == "2"):
        have = {f.id for f in case.facts if f.kind == "symptom"}
        below = any(
            len(have & set(kg.groups[g].pool)) < kg.groups[g].min_count
            for g in kg.disorder(case.gold).required_groups
        )
        if below:
            short += 1
            assert not case.criteria_met, case.id
    assert short > 0


@needs_data
def test_sampled_cases_are_reproducible():
    _, first = load_cases(str(RESOURCES), ("1", "4b"), "sampled", n_sampled=3, seed=7)
    _, again = load_cases(str(RESOURCES), ("1", "4b"), "sampled", n_sampled=3, seed=7)
    _, other = load_cases(str(RESOURCES), ("1", "4b"), "sampled", n_sampled=3, seed=8)
    assert [c.model_dump() for c in first] == [c.model_dump() for c in again]
    assert [c.id for c in first] != [c.id for c in other] or first != other
    assert all(c.id.startswith("sampled-s7-") for c in first)
    assert all(c.criteria_met for c in first if c.variant == "1")


@pytest.mark.parametrize(
    ("reply", "action", "diagnosis", "criteria"),
    [
        ("QUESTION: How is your sleep?", "question", None, None),
        ("How long has this lasted?", "question", None, None),
        (
            "DIAGNOSIS: B. Major Depressive Disorder\nCRITERIA MET: yes",
            "answer",
            "B. Major Depressive Disorder",
            "yes",
        ),
        ("**DIAGNOSIS:** C\n**CRITERIA MET:** No, not yet.", "answer", "C", "no"),
        ("DIAGNOSIS: C\nCRITERIA MET: cannot tell", "answer", "C", "cannot tell"),
        ("DIAGNOSIS: C\nCRITERIA MET: **Can't tell** from this", "answer", "C", "cannot tell"),
        ("DIAGNOSIS: C\nCRITERIA MET: unsure", "answer", "C", "cannot tell"),
        ("DIAGNOSIS: C\nCRITERIA MET: not met", "answer", "C", "no"),
        ("DIAGNOSIS: C\nCRITERIA MET: perhaps", "answer", "C", None),
        ("DIAGNOSIS: A", "answer", "A", None),
        ("DECLINE: not enough information", "decline", None, None),
        ("I think it is depression.", "unparsed", None, None),
        ("Thinking...\nDIAGNOSIS: D\nCRITERIA MET: yes\nQUESTION: more?", "answer", "D", "yes"),
    ],
)
def test_parse_reply(reply, action, diagnosis, criteria):
    parsed = parse_reply(reply)
    assert (parsed.action, parsed.diagnosis, parsed.criteria) == (action, diagnosis, criteria)


@pytest.mark.parametrize(
    "reply",
    [
        # a DECLINE after the answer withdraws it
        "DIAGNOSIS: C\n\nI need to take that back.\nDECLINE: the timeline never became clear.",
        "DIAGNOSIS: ~~Bulimia Nervosa~~\nDECLINE: only her mother ever reported the purging.",
    ],
)
def test_a_decline_after_the_answer_withdraws_it(reply):
    assert parse_reply(reply).action == "decline"


def test_an_empty_decline_field_withdraws_nothing():
    parsed = parse_reply("DIAGNOSIS: D\nCRITERIA MET: yes\nDECLINE: N/A")
    assert (parsed.action, parsed.diagnosis) == ("answer", "D")


@pytest.mark.parametrize(
    "reply",
    [
        "DIAGNOSIS: D\nCRITERIA MET: cannot tell\nHonestly C is just as likely on what I heard.",
        "DIAGNOSIS: A\nCRITERIA MET: yes\nPanic disorder is equally plausible, though.",
        "DIAGNOSIS: B\nCRITERIA MET: no\nIt is either D or B; the dates were muddled.",
        "DIAGNOSIS: B\nCRITERIA MET: no\nI think it is D or B; the dates were muddled.",
        "DIAGNOSIS: C & A\nCRITERIA MET: yes\n(A might equally be B here.)",
        "DIAGNOSIS: A\nCRITERIA MET: cannot tell\nD remains a possibility until we know more.",
    ],
)
def test_doubt_after_the_answer_line_leaves_it_unread(reply):
    codes = ["D013", "D009", "D012", "D014"]
    names = [disorder_names()[c] for c in codes]
    case = InterviewCase.model_construct(option_names=names, option_codes=codes, answers=[])
    parsed = parse_reply(reply)
    assert parsed.action == "answer"
    reading = read_answer(parsed.diagnosis, case, disorder_names(), "letters")
    assert reading.status != "named", (reply, reading)


def test_revealed_line_and_withheld_names():
    _, cases = load_cases("demo", ("1",))
    case = cases[0]
    text, ids, found = split_revealed("I worry a lot.\nREVEALED: S121, S999")
    assert (text, ids, found) == ("I worry a lot.", ["S121", "S999"], True)
    assert split_revealed("Fine.\nREVEALED: none") == ("Fine.", [], True)
    assert split_revealed("Fine.") == ("Fine.", [], False)
    shown, names = withhold_names("My sister says it is PTSD or an anxiety disorder.", case)
    assert names == ["PTSD", "anxiety disorder"]
    assert shown == (
        "My sister says it is [diagnosis name withheld] or an [diagnosis name withheld]."
    )


def test_kg_patient_answers_from_its_facts():
    _, cases = load_cases("demo", ("1",))
    case = next(c for c in cases if c.gold == "D011")
    system = patient_prompt(case)
    present = case.fact("S121")
    reply = patient_answer(system, "Do you worry too much about many everyday matters?")
    assert reply == f"{present.statement}\nREVEALED: S121"
    reply = patient_answer(system, "Do you have unwanted, vivid memories of a frightening event?")
    assert reply == "No, I don't get unwanted memories like that.\nREVEALED: none"
    reply = patient_answer(system, "How long has this been going on?")
    assert reply == f"{case.fact('DURATION').statement}\nREVEALED: DURATION"
    reply = patient_answer(system, "What diagnosis do you think you have?")
    assert reply.startswith("I don't know what it is called.")
    assert patient_answer(system, "Any pets?").endswith("REVEALED: none")


def test_argument_errors():
    for args, name in (
        ({"mode": "chat"}, "mode"),
        ({"max_questions": -1}, "max_questions"),
        ({"max_questions": True}, "max_questions"),
        ({"answer_format": "words"}, "answer_format"),
        ({"types": "5"}, "types"),
        ({"cases": "all"}, "cases"),
        ({"data": "/no/such/folder"}, "data"),
        ({"generator": "gpt4"}, "generator"),
        ({"n_sampled": 0}, "n_sampled"),
    ):
        with pytest.raises(ArgumentError, match=f"^{name}: "):
            interview(**args)
    assert normalise_types("high,1") == ["1", "4a", "4b"]
    assert normalise_types([2]) == ["2"]


def test_store_model_has_every_field_of_the_record():
    from selfdx.solvers.interview.trace import InterviewRecord, InterviewTrace

    record = set(InterviewRecord.model_fields)
    assert record == set(InterviewTrace.model_fields) - {"store", "instance"}


def test_kg_patient_understands_plain_questions():
    _, cases = load_cases("demo", ("1", "2"))
    case = next(c for c in cases if c.gold == "D013" and c.variant == "1")
    system = patient_prompt(case)
    present = {f.id for f in case.facts}
    reply = patient_answer(system, "How has your sleep been lately?")
    assert ("S103" in present) == reply.endswith("REVEALED: S103")
    assert ("S103" in present) != reply.startswith("No, I've been sleeping about as usual.")
    # "feel" alone names no symptom: a question about feeling sad is about sadness only.
    reply = patient_answer(system, "Do you feel sad?")
    assert "restless" not in reply.lower()


@needs_data
def test_kg_interviewer_reads_the_graph_of_the_run():
    """Without `-M kg`, the offline interviewer reads the graph of the task's own data, which
    the solver puts in the sample store; outside a sample, with options the demo graph does
    not have, it says to pass the graph."""
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser
    from inspect_ai.util._store import Store, _subtask_store

    from selfdx.datasets.interview.cases import DATA_STORE_KEY
    from selfdx.providers.interview_policies import kg_interviewer

    _, cases = load_cases(str(RESOURCES), ("1",), "sampled", n_sampled=1)
    case = next(c for c in cases if not set(c.option_codes) <= set(demo_kg().disorders))
    messages = [
        ChatMessageSystem(content=system_prompt(case, "interview", "letters", 12)),
        ChatMessageUser(content="A new patient."),
    ]
    with pytest.raises(ValueError, match="pass -M kg=PATH"):
        kg_interviewer(messages, {})
    assert kg_interviewer(messages, {"kg": str(RESOURCES)}).startswith(("QUESTION:", "DIAGNOSIS:"))
    store = Store()
    store.set(DATA_STORE_KEY, str(RESOURCES))
    token = _subtask_store.set(store)  # as inside a sample of the run
    try:
        assert kg_interviewer(messages, {}).startswith(("QUESTION:", "DIAGNOSIS:"))
    finally:
        _subtask_store.reset(token)


def test_task_records_its_data_identity():
    """Two runs pool in the report only when their cases are the same: the task records the
    data source and a hash of its samples, which changes with the cases drawn."""
    import hashlib

    first = interview(data="demo", seed=1, types="1")
    again = interview(data="demo", seed=1, types="1")
    other = interview(data="demo", seed=1, types="2")
    assert first.metadata["data_source"] == "demo"
    assert first.metadata["data_sha256"] == again.metadata["data_sha256"]
    assert first.metadata["data_sha256"] != other.metadata["data_sha256"]
    assert len(first.metadata["data_sha256"]) == len(hashlib.sha256().hexdigest())


def _read(reply: str, answer_format: str = "letters", type3: bool = False):
    codes = ["D013", "D009", "D012", "D014"]
    names = [disorder_names()[c] for c in codes]
    case = InterviewCase.model_construct(
        option_names=names, option_codes=codes, answers=codes[:2] if type3 else []
    )
    return read_answer(parse_reply(reply).diagnosis, case, disorder_names(), answer_format)


@pytest.mark.parametrize(
    ("reply", "type3", "named"),
    [
        # the eleventh blind round: a member of the set, or the answer, kept open on its line
        ("DIAGNOSIS: C, A (A only if the low spells last a fortnight; unknown)", True, False),
        ("DIAGNOSIS: D + B (B subthreshold for now)", True, False),
        ("DIAGNOSIS: A; B is less likely than D", True, False),
        ("DIAGNOSIS: D, though C remains possible if the highs were longer", False, False),
        # near neighbours that stay answers
        ("DIAGNOSIS: C, A", True, True),
        ("DIAGNOSIS: A; B is less likely", False, True),
        ("DIAGNOSIS: D (C was considered and set aside)", False, True),
    ],
)
def test_doubt_on_the_answer_line_of_letters(reply, type3, named):
    assert (_read(reply, type3=type3).status == "named") is named


@pytest.mark.parametrize(
    ("reply", "named"),
    [
        ("DIAGNOSIS: Panic disorder vs GAD", False),
        ("DIAGNOSIS: Social anxiety disorder or generalized anxiety disorder", False),
        ("DIAGNOSIS: MDD or, in full, Major Depressive Disorder", True),
        ("DIAGNOSIS: Major depressive disorder (no manic or hypomanic episodes)", True),
    ],
)
def test_a_choice_with_a_disorder_outside_mentalkg_is_no_answer(reply, named):
    assert (_read(reply, "free_text").status == "named") is named


@pytest.mark.parametrize(
    ("reply", "answer_format", "type3", "named"),
    [
        # the twelfth blind round: torn between two answers on a later line, or withdrawn
        ("DIAGNOSIS: C\nCRITERIA MET: no\nIt's a coin flip between that and B.", "letters", 0, 0),
        (
            "DIAGNOSIS: A & C\nCRITERIA MET: no\nD may replace C; I'd weight them equally.",
            "letters",
            1,
            0,
        ),
        ("DIAGNOSIS: A\nCRITERIA MET: no\nAnd maybe D as well?", "letters", 1, 0),
        (
            "DIAGNOSIS: A & B\nCRITERIA MET: yes\nWithdrawn. The history was led by my questions.",
            "letters",
            1,
            0,
        ),
        (
            "DIAGNOSIS: Major depressive disorder\nCRITERIA MET: no\nEven odds with PDD.",
            "free_text",
            0,
            0,
        ),
        (
            "DIAGNOSIS: Bipolar II disorder\nCRITERIA MET: no\nOr bipolar I; I'm unsure which.",
            "free_text",
            0,
            0,
        ),
        # names that hold another: a class of disorders, an abbreviation with a suffix
        (
            "DIAGNOSIS: Skin picking, an obsessive-compulsive and related disorder",
            "free_text",
            0,
            0,
        ),
        ("DIAGNOSIS: PDD-NOS", "free_text", 0, 0),
        # near neighbours that stay answers
        ("DIAGNOSIS: Obsessive-compulsive disorder\nCRITERIA MET: yes", "free_text", 0, 1),
        ("DIAGNOSIS: PDD (dysthymia)\nCRITERIA MET: yes", "free_text", 0, 1),
        ("DIAGNOSIS: C\nCRITERIA MET: yes\nShe has withdrawn from her friends.", "letters", 0, 1),
    ],
)
def test_the_twelfth_rounds_torn_and_withdrawn_answers(reply, answer_format, type3, named):
    assert (_read(reply, answer_format, type3=bool(type3)).status == "named") is bool(named)


@pytest.mark.parametrize(
    ("reply", "answer_format", "type3", "named"),
    [
        # the thirteenth blind round: doubt on the CRITERIA MET line or a later one
        ("DIAGNOSIS: D\nCRITERIA MET: cannot tell - this could equally be C.", "letters", 0, 0),
        ("DIAGNOSIS: A & B\nCRITERIA MET: no\nI'm not confident about B at all.", "letters", 1, 0),
        ("DIAGNOSIS: A - and I suspect D as well.\nCRITERIA MET: no", "letters", 1, 0),
        ("DIAGNOSIS: A, B (D is a real possibility instead of B)", "letters", 1, 0),
        (
            "DIAGNOSIS: Major depressive disorder\nCRITERIA MET: no - adjustment disorder fits "
            "at least as well.",
            "free_text",
            0,
            0,
        ),
        (
            "DIAGNOSIS: Bulimia nervosa\nCRITERIA MET: yes\nIf her BMI is low this would be "
            "anorexia instead; I can't choose between them.",
            "free_text",
            0,
            0,
        ),
        # near neighbours that stay answers
        (
            "DIAGNOSIS: D\nCRITERIA MET: no - the low mood has lasted only ten days.",
            "letters",
            0,
            1,
        ),
    ],
)
def test_the_thirteenth_rounds_doubt_after_the_answer(reply, answer_format, type3, named):
    assert (_read(reply, answer_format, type3=bool(type3)).status == "named") is bool(named)


@pytest.mark.parametrize(
    ("reply", "answer_format", "type3", "named"),
    [
        # the fourteenth blind round: understatement, "leaning", "can't be sure without",
        # "+/-", probabilities on a line of their own
        ("DIAGNOSIS: C would not be unreasonable\nCRITERIA MET: no", "letters", 0, 0),
        ("DIAGNOSIS: A & D, leaning\nCRITERIA MET: no", "letters", 1, 0),
        ("DIAGNOSIS: B\nCRITERIA MET: no\nNB can't be sure without collateral.", "letters", 0, 0),
        ("DIAGNOSIS: A (+/- D)\nCRITERIA MET: no", "letters", 1, 0),
        ("DIAGNOSIS: A, C\nConfidence: A 0.8, C 0.55, D 0.5\nCRITERIA MET: no", "letters", 1, 0),
        ("DIAGNOSIS: Bulimia nervosa wouldn't be an unreasonable label", "free_text", 0, 0),
        # near neighbours that stay answers
        ("DIAGNOSIS: A & D\nCRITERIA MET: yes\nConfidence: high.", "letters", 1, 1),
    ],
)
def test_the_fourteenth_rounds_doubt_in_other_words(reply, answer_format, type3, named):
    assert (_read(reply, answer_format, type3=bool(type3)).status == "named") is bool(named)


@pytest.mark.parametrize(
    ("reply", "answer_format", "type3", "named"),
    [
        # the fifteenth blind round: an option argued against on the answer line, a set split
        # over two lines, a second diagnosis named by description
        ("DIAGNOSIS: C would need a full week of mania; there was none. A.", "letters", 0, 0),
        ("DIAGNOSIS: B\nCRITERIA MET: yes\nB alone explains the picture.", "letters", 0, 1),
        ("DIAGNOSIS: A & D\nD alone might be enough, though.", "letters", 1, 0),
        ("DIAGNOSIS: the low mood, plus the worry disorder\nCRITERIA MET: yes", "letters", 1, 0),
    ],
)
def test_the_fifteenth_rounds_answer_lines(reply, answer_format, type3, named):
    assert (_read(reply, answer_format, type3=bool(type3)).status == "named") is bool(named)


def test_an_answer_continued_on_the_next_line_is_read_whole():
    assert parse_reply("DIAGNOSIS: A\n& C\nCRITERIA MET: yes").diagnosis == "A & C"
