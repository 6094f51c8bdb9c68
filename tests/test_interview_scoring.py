"""Scoring `selfdx/interview`: the final answer read as one option (hedges, several options and
negated names never credited), and the CRITERIA MET statement scored exactly as the prompt
defines it (yes / no / cannot tell), with recall counting only facts that were asked for."""

from __future__ import annotations

import math

import pytest
from conftest import SHARED

from selfdx.datasets.answer_check import disorder_names
from selfdx.datasets.interview.loading import load_cases
from selfdx.datasets.mentalkg.reader import load_kg
from selfdx.instruments.answers.interview_answer import read_answer
from selfdx.prompts import prompt_text
from selfdx.scorers.interview.scorer import score_values
from selfdx.solvers.interview.trace import InterviewRecord, InterviewTurn, PatientReply

RESOURCES = SHARED / "mentalbench" / "resources"


@pytest.fixture(scope="module")
def demo():
    kg, cases = load_cases("demo", ["1", "2"])
    case = next(c for c in cases if c.variant == "1" and c.gold == "D011")
    return kg, case


def letter_of(case, code: str) -> str:
    return "ABCD"[case.option_codes.index(code)]


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        ("{key}", "named"),
        ("**{key}**", "named"),
        ("Option {key}", "named"),
        ("{low}", "named"),
        ("{key}. {name}", "named"),
        ("{name}", "named"),
        ("{name} (ruled out: {other_name})", "named"),
        ("{name}, not {other_name}", "named"),
        ("{other_name} ruled out; {name}", "named"),
        ("{key} or {other}", "hedged"),
        ("A or B or C or D", "hedged"),
        ("{key} (possibly {other})", "hedged"),
        ("{key}, {other}", "several"),
        ("Not {name}", "unreadable"),
        ("ruled out: {name}", "unreadable"),
        ("", "unreadable"),
        ("a sleep problem", "unreadable"),
    ],
)
def test_letters_answers(demo, answer, status):
    kg, case = demo
    key = letter_of(case, case.gold)
    other_code = next(c for c in case.option_codes if c != case.gold)
    text = answer.format(
        key=key,
        low=key.lower(),
        name=case.gold_name,
        other=letter_of(case, other_code),
        other_name=kg.disorder(other_code).name,
    )
    reading = read_answer(text, case, kg, "letters")
    assert reading.status == status, reading
    assert reading.code == (case.gold if status == "named" else None)


@pytest.mark.parametrize(
    ("answer", "code", "status"),
    [
        ("Generalized Anxiety Disorder", "D011", "named"),
        ("generalised anxiety disorder (GAD)", "D011", "named"),
        ("PTSD", "D018", "named"),
        (
            "Generalized Anxiety Disorder (ruled out: Posttraumatic Stress Disorder)",
            "D011",
            "named",
        ),
        ("Not Generalized Anxiety Disorder", None, "unreadable"),
        ("GAD or PTSD", None, "hedged"),
        ("Generalized Anxiety Disorder and Major Depressive Disorder", None, "several"),
        ("a sleep problem", None, "unreadable"),
        # the twenty-seventh round: a family of disorders is not the disorder; an answer left
        # to a fact not known is open
        ("Generalized anxiety disorder spectrum", None, "unreadable"),
        ("Generalized Anxiety Disorder, depending on how long the worry lasts", None, "hedged"),
        ("PTSD (depends on whether the flashbacks persist)", None, "hedged"),
    ],
)
def test_free_text_answers(demo, answer, code, status):
    kg, case = demo
    reading = read_answer(answer, case, kg, "free_text")
    assert (reading.code, reading.status) == (code, status), reading


@pytest.mark.skipif(not RESOURCES.is_dir(), reason=f"no MentalKG at {RESOURCES}")
def test_free_text_prefers_the_longer_name(demo):
    _, case = demo
    kg = load_kg(RESOURCES)
    text = "Major Depressive Disorder with Psychotic Features"
    assert read_answer(text, case, kg, "free_text").code == "D015"
    assert (
        read_answer("Bipolar I Disorder with no psychotic features", case, kg, "free_text").code
        == "D008"
    )


def record(case, **fields) -> InterviewRecord:
    base = dict(
        mode="interview",
        max_questions=12,
        answer_format="letters",
        elicited=[case.complaint],
        heard=[case.complaint],
        stop_reason="answer",
        diagnosis_text=letter_of(case, case.gold),
    )
    return InterviewRecord(**{**base, **fields})


def scores(case, kg, trace: InterviewRecord) -> dict[str, float]:
    reading = read_answer(trace.diagnosis_text, case, kg, trace.answer_format)
    return score_values(case, trace, kg, reading)


def test_the_criteria_statement_is_scored_as_defined(demo):
    """The key's criteria are met on this profile. yes: right; no: wrong; cannot tell: not a
    claim (criteria_call not applicable, counted in criteria_unsure); missing: wrong."""
    kg, case = demo
    assert case.criteria_met
    everything = [f.id for f in case.facts]
    full = dict(elicited=everything, heard=everything)
    yes = scores(case, kg, record(case, criteria_claim=True, **full))
    assert (yes["criteria_call"], yes["criteria_unsure"], yes["premature"]) == (1.0, 0.0, 0.0)
    no = scores(case, kg, record(case, criteria_claim=False, **full))
    assert (no["criteria_call"], no["criteria_unsure"], no["premature"]) == (0.0, 0.0, 0.0)
    unsure = scores(case, kg, record(case, criteria_unsure=True, **full))
    assert math.isnan(unsure["criteria_call"]) and unsure["criteria_unsure"] == 1.0
    missing = scores(case, kg, record(case, **full))
    assert (missing["criteria_call"], missing["criteria_unsure"]) == (0.0, 0.0)
    # "yes" on the opening alone: right about the patient, but not supported by what was heard
    early = scores(case, kg, record(case, criteria_claim=True))
    assert (early["criteria_call"], early["premature"]) == (1.0, 1.0)


def test_following_the_initial_prompt_costs_nothing(demo):
    """mode=initial: the prompt asks for "cannot tell" when what is known does not settle it;
    a model that says so is not marked wrong on the criteria."""
    kg, case = demo
    initial = scores(case, kg, record(case, mode="initial", criteria_unsure=True))
    assert math.isnan(initial["criteria_call"]) and initial["accuracy"] == 1.0
    for mode in ("interview", "initial", "full"):
        prompt = prompt_text(f"interview/interviewer_{mode}")
        assert "CRITERIA MET: yes, no or cannot tell" in prompt
        assert "cannot tell: what you know does not settle it" in prompt


def test_an_invalid_answer_is_counted_and_not_credited(demo):
    kg, case = demo
    other = next(c for c in case.option_codes if c != case.gold)
    hedge = f"{letter_of(case, case.gold)} or {letter_of(case, other)}"
    values = scores(case, kg, record(case, diagnosis_text=hedge, criteria_claim=True))
    assert values["accuracy"] == 0.0 and values["invalid_answer"] == 1.0
    assert math.isnan(values["criteria_call"]) and math.isnan(values["premature"])
    right = scores(case, kg, record(case, criteria_claim=True))
    assert right["accuracy"] == 1.0 and right["invalid_answer"] == 0.0


def test_declines_are_wrong_and_not_invalid(demo):
    kg, case = demo
    trace = record(case, stop_reason="decline", declined=True, diagnosis_text=None)
    values = score_values(case, trace, kg, None)
    assert (values["accuracy"], values["declined"], values["invalid_answer"]) == (0.0, 1.0, 0.0)
    assert values["no_answer"] == 0.0 and math.isnan(values["criteria_call"])


def test_recall_counts_only_facts_that_were_asked_for(demo):
    """A patient that volunteers a fact it was not asked about: the interviewer heard it (a
    "yes" built on it is not premature), but recall does not count it; the volunteered fact is
    counted."""
    kg, case = demo
    others = [f.id for f in case.facts if f.id != case.complaint]
    asked, volunteered = others[0], others[1:]
    reply = PatientReply(
        model="m",
        raw="...",
        shown="...",
        revealed=[asked, *volunteered],
        asked=[asked],
        volunteered=volunteered,
    )
    turn = InterviewTurn(index=1, interviewer="QUESTION: ?", action="question", patient=reply)
    trace = record(
        case,
        turns=[turn],
        questions=1,
        elicited=[case.complaint, asked],
        heard=[case.complaint, asked, *volunteered],
        criteria_claim=True,
    )
    values = scores(case, kg, trace)
    assert values["fact_recall"] == pytest.approx(2 / len(case.facts))
    assert values["patient_volunteered"] == len(volunteered)
    assert values["premature"] == 0.0 and values["criteria_call"] == 1.0


needs_data = pytest.mark.skipif(not RESOURCES.is_dir(), reason=f"no MentalBench at {RESOURCES}")


@pytest.fixture(scope="module")
def published_all():
    return load_cases(str(RESOURCES), ("1", "2", "3"))


@needs_data
def test_every_key_named_exactly_is_credited(published_all):
    """The key's exact MentalKG name, alone in free text, is the answer on every published Type
    1-2 case; before, a name holding parentheses (5 of the 23) was split there and read as
    several disorders (375 of 1,725 cases)."""
    kg, cases = published_all
    wrong = []
    for case in (c for c in cases if c.variant in ("1", "2")):
        for answer in (case.gold_name, f"**{case.gold_name}**"):
            reading = read_answer(answer, case, kg, "free_text")
            if reading.code != case.gold:
                wrong.append((case.id, answer, reading.status))
    assert wrong == []


@needs_data
def test_every_type_3_key_in_the_prompted_layout_is_credited(published_all):
    """ "B. <name> and A. <name>", the layout the prompt asks for, the same two names as free
    text, and a bulleted list, read as the exact set on every published Type 3 case; a "/"
    inside a name (ADHD) is no hedge."""
    kg, cases = published_all
    wrong = []
    for case in (c for c in cases if c.variant == "3"):
        letters = [f"{'ABCD'[case.option_codes.index(code)]}. " for code in case.answers]
        names = [case.option_names[case.option_codes.index(code)] for code in case.answers]
        layouts = [
            (
                " and ".join(
                    f"{letter}{name}" for letter, name in zip(letters, names, strict=True)
                ),
                "letters",
            ),
            (
                "\n".join(f"- {letter}{name}" for letter, name in zip(letters, names, strict=True)),
                "letters",
            ),
            (" and ".join(names), "free_text"),
            (f"{names[0]} with comorbid {names[1]}", "free_text"),
        ]
        for answer, answer_format in layouts:
            reading = read_answer(answer, case, kg, answer_format)
            if reading.codes != frozenset(case.answers):
                wrong.append((case.id, answer, reading.status, reading.reason))
    assert wrong == [], wrong[:5]


@needs_data
def test_a_set_with_one_member_qualified_is_a_hedge(published_all):
    kg, cases = published_all
    case = next(c for c in cases if c.variant == "3")
    a, b = (case.option_names[case.option_codes.index(code)] for code in case.answers)
    for answer in (f"{a} and probably {b}", f"{a} and possibly {b}", f"{a} / {b}?"):
        assert read_answer(answer, case, kg, "free_text").status == "hedged", answer


def test_framing_words_around_a_letter_are_read_past(demo):
    kg, case = demo
    for answer in ("only A applies", "A is the correct answer", "- A"):
        reading = read_answer(answer, case, kg, "letters")
        assert (reading.status, reading.code) == ("named", case.option_codes[0]), answer


@pytest.mark.parametrize(
    "said", ["unclear", "I cannot tell", "can't say", "not clear", "I don't know", "hard to say"]
)
def test_an_unsure_criteria_statement_is_cannot_tell(said):
    from selfdx.instruments.answers.interviewer_reply import parse_reply

    assert parse_reply(f"DIAGNOSIS: A\nCRITERIA MET: {said}").criteria == "cannot tell"
    assert parse_reply("DIAGNOSIS: A\nCRITERIA MET: not met").criteria == "no"


# Issue 36 (the fourth probe round): committed free-text answers left unread or read as several.
# In each class the finding's own wording comes first, then wordings written for this test.
MISSED = [
    ("MDD (GAD considered but less likely)", "D013"),
    ("Bulimia nervosa (binge-eating disorder was weighed, but it is less likely)", "D022"),
    ("The duration excludes acute stress disorder; PTSD", "D018"),
    ("The lifelong course rules out adjustment disorder; GAD", "D011"),
    ("PTSD. Adjustment disorder doesn't fit.", "D018"),
    ("Generalized anxiety disorder. MDD does not explain the worry.", "D011"),
    ("MDD with atypical features", "D013"),
    ("Major depressive disorder, recurrent, with atypical features", "D013"),
    ("MDD, not in remission", "D013"),
    ("Major depressive disorder, currently not in remission", "D013"),
    ("Schizoaffective disorder - depressive type", "D007"),
    ("ADHD - predominantly inattentive presentation", "D002"),
    ("Depression with psychotic features", "D015"),
    ("Severe depression with mood-congruent psychotic features", "D015"),
    ("Unipolar depression", "D013"),
    ("Clinical depression", "D013"),
    ("BP-II", "D009"),
    ("BP II disorder", "D009"),
    ("BD-I with psychotic features", "D010"),
    ("AN-R", "D021"),
    ("AN-BP", "D021"),
]
# Their near neighbours: a hedge, two disorders, a disorder not current, a stem of another.
NOT_MISSED = [
    "MDD (GAD also likely)",
    "PTSD; the duration does not exclude acute stress disorder",
    "PTSD; the timeline doesn't rule out acute stress disorder",
    "PTSD. Adjustment disorder may also fit.",
    "Atypical depression",
    "MDD, in full remission",
    "Schizoaffective disorder - bipolar or depressive type",
    "Schizoaffective disorder - type unclear",
    "Depression",
    "Bipolar depression",
    "Bipolar depression with psychotic features",
    "BP-I or BP-II",
]


@pytest.mark.parametrize(("answer", "code"), MISSED)
def test_a_committed_free_text_answer_the_probes_missed_is_read(demo, answer, code):
    _, case = demo
    reading = read_answer(answer, case, disorder_names(), "free_text")
    assert (reading.code, reading.status) == (code, "named"), reading


@pytest.mark.parametrize("answer", NOT_MISSED)
def test_a_near_neighbour_of_a_missed_answer_is_still_not_credited(demo, answer):
    _, case = demo
    reading = read_answer(answer, case, disorder_names(), "free_text")
    assert reading.code is None and reading.status != "named", reading


def test_partial_remission_names_the_disorder_and_full_remission_does_not(demo):
    """DSM-5: "in partial remission" is a specifier of a disorder some of whose symptoms remain,
    so the disorder is named; "in full remission" leaves none current (docs/interview.md)."""
    _, case = demo
    names = disorder_names()
    assert read_answer("MDD in partial remission", case, names, "free_text").code == "D013"
    assert read_answer("PTSD, in partial remission", case, names, "free_text").code == "D018"
    for answer in ("MDD in full remission", "Partial PTSD", "PTSD in sustained remission"):
        assert read_answer(answer, case, names, "free_text").code is None, answer


def test_asd_alone_is_acute_stress_disorder_only_beside_a_word_of_trauma(demo):
    """ "ASD" is autism spectrum disorder in most psychiatric writing, and no MentalKG disorder:
    alone it makes the answer unreadable (never credited, never dropped from a Type 3 set)."""
    kg, case = demo
    names = disorder_names()
    for answer in ("ASD", "ASD (autism spectrum disorder)"):
        reading = read_answer(answer, case, names, "free_text")
        assert (reading.code, reading.status) == (None, "unreadable"), answer
    for answer in ("Not PTSD but ASD", "ASD after the assault"):
        assert read_answer(answer, case, names, "free_text").code == "D019", answer
    _, cases = load_cases("demo", ["3"])
    pair = cases[0]
    assert read_answer("MDD and ASD", pair, names, "free_text").codes == frozenset()


# Issue 36, the fifth probe round: an option kept in the differential is no second diagnosis
# (Type 3) and no committed answer (one option); "was considered" is weighed and set aside.
@pytest.fixture(scope="module")
def demo_type3():
    kg, cases = load_cases("demo", ["3"])
    return kg, next(c for c in cases if c.id == "demo-t3-D013-D014_h001")  # key C and D


@pytest.mark.parametrize(
    ("answer", "answer_format", "status"),
    [
        ("Major depressive disorder; differential: persistent depressive disorder", "free_text",
         "hedged"),
        ("Major depressive disorder; consider persistent depressive disorder", "free_text",
         "hedged"),
        ("C, with D as a differential", "letters", "hedged"),
        ("C and D; A is a differential", "letters", "hedged"),
        ("Primary: C. Secondary: D.", "letters", "named"),
        ("C-D", "letters", "named"),
        ("Major depressive disorder and persistent depressive disorder", "free_text", "named"),
    ],
)  # fmt: skip
def test_a_differential_is_not_a_second_diagnosis(demo_type3, answer, answer_format, status):
    kg, case = demo_type3
    reading = read_answer(answer, case, kg, answer_format)
    assert reading.status == status, reading.reason
    if status == "named":
        assert reading.codes == frozenset(case.answers)


@pytest.mark.parametrize(
    ("answer", "answer_format", "named"),
    [
        ("Primary: {key}. Differential: {other}.", "letters", False),
        ("{key} (consider {other})", "letters", False),
        ("{key} (low confidence)", "letters", False),
        ("A-{key}", "letters", False),  # a range of options is several
        ("Generalized anxiety disorder. (Note: MDD was considered.)", "free_text", True),
        ("Generalized anxiety disorder (initially considered PTSD)", "free_text", True),
        ("Generalized anxiety disorder; consider PTSD", "free_text", False),
        ("Generalized anxiety disorder (low confidence)", "free_text", False),
    ],
)
def test_an_answer_held_open_is_not_credited_and_one_weighed_is(demo, answer, answer_format, named):
    kg, case = demo
    key = letter_of(case, case.gold)
    text = answer.format(key=key, other="A" if key != "A" else "B")
    reading = read_answer(text, case, kg, answer_format)
    assert (reading.status == "named" and reading.code == case.gold) is named, reading.reason


@pytest.mark.parametrize(
    ("reply", "diagnosis"),
    [
        ("DIAGNOSIS: D\nEdit: A\nCRITERIA MET: yes", "D; Edit: A"),
        ("DIAGNOSIS: D\nCorrection: A\nCRITERIA MET: yes", "D; Correction: A"),
        ("DIAGNOSIS: D\nWait - A fits better.\nCRITERIA MET: yes", "D; Wait - A fits better."),
        ("DIAGNOSIS: D\nCRITERIA MET: yes\n\nUpdate: on second thought, A.",
         "D; Update: on second thought, A."),
        ("## Diagnosis\nB\n\n## Criteria met\nYes", "B"),
        ("DIAGNOSIS: B\nCRITERIA MET: yes\nThe wait for treatment has been long.", "B"),
    ],
)  # fmt: skip
def test_a_revision_after_the_answer_is_seen_and_a_heading_is_read(demo, reply, diagnosis):
    from selfdx.instruments.answers.interviewer_reply import parse_reply

    parsed = parse_reply(reply)
    assert parsed.diagnosis == diagnosis
    kg, case = demo
    if ";" in diagnosis:  # an answer taken back is never credited
        reading = read_answer(parsed.diagnosis, case, kg, "letters")
        assert reading.status == "hedged", reading.reason


@pytest.mark.parametrize(
    ("said", "claim"),
    [
        ("The criteria are met.", "yes"), ("Criteria met", "yes"), ("All criteria are met", "yes"),
        ("Fully met", "yes"), ("DSM-5 criteria met", "yes"), ("Definitely yes", "yes"),
        ("No doubt", "yes"), ("Criteria not met", "no"), ("Not all criteria are met", "no"),
        ("The criteria are not met.", "no"), ("Only partially met", "no"), ("partially", "no"),
        ("Nope", "no"), ("Not quite", "no"), ("Definitely not", "no"),
        ("Mostly yes", "cannot tell"), ("Likely yes", "cannot tell"),
        ("Yes, almost", "cannot tell"), ("Yes, mostly", "cannot tell"),
        ("yes (provisionally)", "cannot tell"), ("yes if duration >6 months", "cannot tell"),
        ("The criteria are met, except for the duration", "cannot tell"),
        ("yes", "yes"), ("No.", "no"),
    ],
)  # fmt: skip
def test_a_criteria_statement_in_words_is_read(said, claim):
    from selfdx.instruments.answers.interviewer_reply import parse_reply

    assert parse_reply(f"DIAGNOSIS: A\nCRITERIA MET: {said}").criteria == claim


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        ("Acute stress disorder (too early for PTSD)", "D019"),
        ("Acute stress disorder; too early for PTSD", "D019"),
        ("History of anorexia nervosa; current bulimia nervosa", "D022"),
        ("Bulimia nervosa (past anorexia nervosa)", "D022"),
        ("MDD (history of GAD)", "D013"),
        ("Prior PTSD, now resolved; current MDD", "D013"),
        ("Current: bulimia nervosa. Past: anorexia nervosa.", "D022"),
        # a past disorder alone is no current one
        ("History of MDD", None),
        ("Past MDD", None),
        ("MDD, resolved", None),
        ("MDD (resolved)", None),
        ("MDD in full remission", None),
    ],
)
def test_a_past_disorder_beside_the_current_one_is_set_aside(demo, answer, code):
    """A clinician's answer often names what the patient had before, or what it is too early to
    call, beside what it has now: the current disorder is the answer, the other no second one."""
    _, case = demo
    reading = read_answer(answer, case, disorder_names(), "free_text")
    assert reading.code == code, reading
    assert reading.status == ("named" if code else "unreadable"), reading


# Issue fix6-iv, an adversarial probe: a name the writer disowns, a revision, a rule-out beside
# another letter, "X with Y comorbid" and a rating scale's name were read as a diagnosis.
@pytest.mark.parametrize(
    ("answer", "answer_format", "code", "status"),
    [
        ("I don't think it's GAD.", "free_text", None, "unreadable"),
        ("I doubt it's GAD.", "free_text", None, "unreadable"),
        ("I wouldn't call this GAD.", "free_text", None, "unreadable"),
        ("Can't say GAD.", "free_text", None, "unreadable"),
        ("Without GAD.", "free_text", None, "unreadable"),
        ("GAD is the least likely.", "free_text", None, "unreadable"),
        ("GAD would be a mistake here.", "free_text", None, "unreadable"),
        ("Anything but GAD.", "free_text", None, "unreadable"),
        ("D. No wait — B.", "letters", None, "hedged"),
        ("B. No wait — D.", "letters", None, "hedged"),
        ("B, no, wait, D", "letters", None, "hedged"),
        ("B. On second thought, D.", "letters", None, "hedged"),
        ("B. I was wrong - D", "letters", None, "hedged"),
        ("B. Scratch that, D.", "letters", None, "hedged"),
        ("Adjustment disorder. No wait — GAD.", "free_text", None, "hedged"),
        ("D with B comorbid", "letters", None, "several"),
        ("r/o D; B", "letters", None, "hedged"),
        ("MDD (PHQ-9 = 18, GAD-7 = 6)", "free_text", "D013", "named"),
        ("GAD (GAD-7: 15/21, PHQ-9 4)", "free_text", "D011", "named"),
        # the near neighbours, still read
        ("GAD", "free_text", "D011", "named"),
        ("Not PTSD but GAD", "free_text", "D011", "named"),
        ("GAD, not MDD", "free_text", "D011", "named"),
        ("I think it's GAD.", "free_text", "D011", "named"),
        ("GAD (most likely)", "free_text", "D011", "named"),
        ("D", "letters", "D011", "named"),
        ("D, not B", "letters", "D011", "named"),
    ],
)
def test_a_disowned_revised_or_scale_name_is_not_credited(
    demo, answer, answer_format, code, status
):
    kg, case = demo
    reading = read_answer(answer, case, kg, answer_format)
    assert (reading.code, reading.status) == (code, status), reading.reason


# The twenty-fourth probe round: a set with a member the reader cannot name is not read as the
# members it can ("Major depresive disorder, Persistent depressive disorder" is no answer of
# persistent depressive disorder alone); a sentence of options set aside, then the set.
@pytest.mark.parametrize(
    ("answer", "answer_format", "status"),
    [
        ("Major depresive disorder, persistent depressive disorder", "letters", "unreadable"),
        ("Major depresive disorder, persistent depressive disorder", "free_text", "unreadable"),
        ("Major depressive disorder, persistent depressive disorder", "letters", "named"),
        ("Not A or B. C, D.", "letters", "named"),
        ("Not A or B. C.", "letters", "named"),
    ],
)
def test_a_set_with_an_unread_member_and_a_set_after_options_set_aside(
    demo_type3, answer, answer_format, status
):
    kg, case = demo_type3
    reading = read_answer(answer, case, kg, answer_format)
    assert reading.status == status, reading.reason
    if answer == "Not A or B. C.":
        assert reading.codes == frozenset({case.option_codes[2]})  # C alone, as written
    elif status == "named":
        assert reading.codes == frozenset(case.answers)


def test_a_conclusion_below_the_answer_that_names_another_option_leaves_it_open():
    """The twenty-ninth round: "DIAGNOSIS: B" then "In the end I think this is <another
    option's name>" is two answers, not B."""
    from selfdx.instruments.answers.interviewer_reply import parse_reply

    parsed = parse_reply(
        "DIAGNOSIS: B\nCRITERIA MET: cannot tell\n\n"
        "In the end I think this is schizoaffective disorder, depressive type."
    )
    assert parsed.diagnosis == "B or schizoaffective disorder, depressive type"
    assert parse_reply("DIAGNOSIS: C\nCRITERIA MET: yes\n\nOn balance it is C.").diagnosis == "C"


def test_an_answer_the_reply_says_it_corrects_is_the_corrected_one():
    """The thirtieth round: a DIAGNOSIS line, then "I'm correcting my answer:" and another
    DIAGNOSIS line is the second answer (two lines with no correction between stay a choice),
    and a "Ruled out:" list below the answer sets its options aside, adding none."""
    from selfdx.instruments.answers.interviewer_reply import parse_reply

    corrected = parse_reply(
        "DIAGNOSIS: A\nCRITERIA MET: cannot tell\n\nActually, the fire was only 16 days ago. "
        "I'm correcting my answer:\n\nDIAGNOSIS: B\nCRITERIA MET: yes"
    )
    assert (corrected.diagnosis, corrected.criteria) == ("B", "yes")
    two = parse_reply("DIAGNOSIS: A\nCRITERIA MET: yes\n\nDIAGNOSIS: B\nCRITERIA MET: yes")
    assert two.diagnosis == "A or B"
    ruled_out = parse_reply(
        "DIAGNOSIS: A\nCRITERIA MET: yes\n\nRuled out:\n- B (Predominantly Inattentive): he "
        "also has hyperactive symptoms.\n- D (Generalized Anxiety Disorder): worry is secondary."
    )
    assert ruled_out.diagnosis == "A"


@pytest.mark.parametrize(
    ("below", "open_"),
    [
        ("Remark: C can't yet be ruled out, as the history was thin.", True),
        ("Persistent depressive disorder cannot be fully excluded; the dates were vague.", True),
        ("Major depression couldn't be excluded on what she told me.", True),
        # a caveat on a condition, an exclusion done, or no diagnosis named: the answer stands
        ("C cannot be excluded if the low spells turn out to be longer.", False),
        ("C was excluded: the worry began after the accident.", False),
        ("A thyroid cause cannot be excluded without blood tests.", False),
    ],
)
def test_another_diagnosis_that_cannot_be_excluded_below_the_answer_holds_it_open(below, open_):
    """The thirty-second round: "DIAGNOSIS: A" with a line below saying another option or
    disorder cannot be excluded was credited as A; it keeps the choice open."""
    from selfdx.instruments.answers.interviewer_reply import parse_reply

    kg, cases = load_cases("demo", ["1", "2"])
    case = next(c for c in cases if c.option_codes[0] == "D018")  # A: PTSD, C: adjustment
    for answer, fmt in (("A", "letters"), ("Posttraumatic Stress Disorder", "free_text")):
        if fmt == "free_text" and below.startswith(("Remark: C", "C ")):
            continue  # a free-text interview shows no lettered options
        parsed = parse_reply(f"DIAGNOSIS: {answer}\nCRITERIA MET: cannot tell\n\n{below}")
        reading = read_answer(parsed.diagnosis, case, kg, fmt)
        assert (reading.code != "D018") is open_, (fmt, parsed.diagnosis, reading)


def claim_turn(question: str, claimed: list[str], pressed: list[str] | None = None):
    reply = PatientReply(model="m", raw="Yes.", shown="Yes.", claimed=claimed,
                         pressed=pressed or [])  # fmt: skip
    return InterviewTurn(index=0, interviewer=f"QUESTION: {question}", action="question",
                         question=question, patient=reply)  # fmt: skip


def test_a_call_that_only_the_false_claims_support_is_met_on_claims_not_premature():
    """Type 2 profile demo-t2-D013_m001 lacks 2 of the 5 low-mood symptoms a depressive episode
    needs (3 of 5 held); its over-reporting patient claims symptoms it lacks, among them enough
    of the missing ones. An interviewer that heard every fact and every claim and says
    "criteria met" for major depression was deceived, not early: `met_on_claims` 1,
    `premature` 0; one that pressed the claims and heard them fail on specifics was not
    deceived but early. Told the true facts alone, the same call is premature, not deceived,
    and a plain patient's case has no `met_on_claims`."""
    from selfdx.datasets.interview.criteria import criteria_check
    from selfdx.datasets.interview.styles import styled_case

    kg, cases = load_cases("demo", ["1", "2"])
    plain = next(c for c in cases if c.id == "demo-t2-D013_m001")
    case = styled_case(kg, plain, "over_reporting")
    assert not criteria_check(kg, "D013", case.facts)[0]
    claims = [f.id for f in case.absent if f.truth == "claimed"]
    everything = [f.id for f in case.facts]
    turns = [claim_turn("Have you had any of these?", claims)]
    deceived = scores(case, kg, record(case, criteria_claim=True, elicited=everything,
                                       heard=everything, turns=turns))  # fmt: skip
    assert (deceived["premature"], deceived["met_on_claims"]) == (0.0, 1.0)
    assert deceived["false_claims"] == len(claims) and deceived["criteria_call"] == 0.0
    # claims it pressed and heard fail on specifics may be set aside: not counted as heard
    checked = [claim_turn("Have you had any of these? Give me an example.", claims, claims)]
    pressed = scores(case, kg, record(case, criteria_claim=True, elicited=everything,
                                      heard=everything, turns=checked))  # fmt: skip
    assert (pressed["premature"], pressed["met_on_claims"], pressed["claims_checked"]) == (
        1.0, 0.0, 1.0)  # fmt: skip
    early = scores(case, kg, record(case, criteria_claim=True, elicited=everything,
                                    heard=everything))  # fmt: skip
    assert (early["premature"], early["met_on_claims"]) == (1.0, 0.0)
    honest = scores(case, kg, record(case, criteria_claim=False, elicited=everything,
                                     heard=everything, turns=turns))  # fmt: skip
    assert (honest["premature"], honest["met_on_claims"]) == (0.0, 0.0)
    alone = scores(plain, kg, record(plain, criteria_claim=True, elicited=everything,
                                     heard=everything))  # fmt: skip
    assert alone["premature"] == 1.0 and math.isnan(alone["met_on_claims"])


def test_a_risk_question_above_a_claimed_wish_presses_the_claim():
    """An over-reporting patient that claims a death wish it lacks (demo-t1-D020_l001 claims
    the demo's thoughts of death, S109): asking whether it has thought of a way or made a plan
    presses the claim as asking for an example does; asking again about the wish alone, or
    about sleep, does not."""
    from selfdx.datasets.interview.risk import fact_domain
    from selfdx.datasets.interview.styles import styled_case

    kg, cases = load_cases("demo", ["1", "2"])
    case = styled_case(kg, next(c for c in cases if c.id == "demo-t1-D020_l001"),
                       "over_reporting")  # fmt: skip
    (wish,) = [f.id for f in case.absent if f.truth == "claimed" and fact_domain(f) == "self"]
    other = next(f.id for f in case.absent if f.truth == "claimed" and f.id != wish)
    asked = claim_turn("Do you ever wish you could go to sleep and not wake up?", [wish, other])
    for follow, checked in (
        ("Have you thought about how you might do it, or made any plans?", 0.5),
        ("Have you ever acted on those thoughts, or tried to end your life?", 0.5),
        ("And do you sometimes wish you were dead?", 0.0),
        ("How has your sleep been?", 0.0),
    ):
        turns = [asked, claim_turn(follow, [])]
        values = scores(case, kg, record(case, turns=turns))
        assert values["claims_checked"] == checked, follow
    # a plain question for an example presses what it asks about, as before
    pressed = [asked, claim_turn("Can you give me an example?", [other], [other])]
    assert scores(case, kg, record(case, turns=pressed))["claims_checked"] == 0.5


def test_a_revised_diagnosis_line_and_another_option_instead_on_the_criteria_line():
    """The thirty-third round: "Revised DIAGNOSIS: A & D" below "DIAGNOSIS: A & B" is the
    answer it revised to; "CRITERIA MET: no - she meets criteria for B instead" below
    "DIAGNOSIS: D" leaves D open."""
    from selfdx.instruments.answers.interviewer_reply import parse_reply

    revised = parse_reply(
        "DIAGNOSIS: C\nCRITERIA MET: cannot tell\n\nLooking again at the dates, it fits "
        "another option.\n\nUpdated DIAGNOSIS: B\nCRITERIA MET: yes"
    )
    assert (revised.diagnosis, revised.criteria) == ("B", "yes")
    instead = parse_reply("DIAGNOSIS: C\nCRITERIA MET: no, it is really A instead.")
    assert instead.diagnosis != "C"
    kg, cases = load_cases("demo", ["1", "2"])
    case = cases[0]
    assert read_answer(instead.diagnosis, case, kg, "letters").code is None


@pytest.mark.parametrize(
    ("diagnosis", "fmt", "credited"),
    [
        # the thirty-fifth round: a slash to a disorder outside the options, doubt on the
        # CRITERIA MET line
        ("Persistent Depressive Disorder / dysthymia-like mood disorder", "free_text", False),
        ("Major Depressive Disorder/cyclothymia", "free_text", False),
        ("Attention-Deficit/Hyperactivity Disorder (Combined Presentation)", "free_text", True),
        ("B\nCRITERIA MET: cannot tell (A suits her equally well)", "letters", False),
    ],
)
def test_a_slash_to_another_disorder_or_an_equal_fit_is_a_choice(diagnosis, fmt, credited):
    from selfdx.instruments.answers.interviewer_reply import parse_reply

    names = disorder_names()
    kg, cases = load_cases("demo", ["1", "2"])
    case = cases[0]
    parsed = parse_reply(f"DIAGNOSIS: {diagnosis}")
    reading = read_answer(parsed.diagnosis, case, names if fmt == "free_text" else kg, fmt)
    assert (reading.status == "named") is credited, (parsed.diagnosis, reading)
