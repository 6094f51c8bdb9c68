"""The answer readers measured on answers written apart from them (docs/reports.md, Answer
check): the bundled set is valid, the measurement counts what its definitions say (checked on
items whose readings are worked out by hand), and the readers credit no wrong answer."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from selfdx.datasets.answer_check import (
    LETTERED,
    PART_FILES,
    LabelledAnswer,
    disorder_names,
    load_answers,
    read_answers,
)
from selfdx.errors import SelfdxError
from selfdx.instruments.answers.measure import main, measure, summary

OPTIONS = [
    {"name": "Generalized Anxiety Disorder", "code": "D011"},
    {"name": "Obsessive-Compulsive Disorder", "code": "D016"},
    {"name": "Major Depressive Disorder", "code": "D013"},
    {"name": "Persistent Depressive Disorder", "code": "D014"},
]


def item(situation: str, kind: str, answer: list[str], reply: str, n: int) -> LabelledAnswer:
    options = OPTIONS if situation in LETTERED else []
    return LabelledAnswer(
        id=f"t{n}", writer="T", situation=situation, options=options, kind=kind, answer=answer,
        reply=reply,
    )  # fmt: skip


def test_the_bundled_set_is_valid_and_covers_every_situation_and_kind():
    dev, heldout = load_answers(("dev",)), load_answers(("heldout",))
    assert len(dev) + len(heldout) >= 1000
    assert not {i.writer for i in dev} & {i.writer for i in heldout}  # writers kept apart
    cells = Counter((i.situation, i.kind) for i in dev + heldout)
    for situation in (*LETTERED, "interview_free_text"):
        for kind in ("committed", "hedged", "none"):
            assert cells[(situation, kind)] >= 10, (situation, kind)
    assert cells[("safe_psych", "committed")] >= 100
    assert len(disorder_names()) == 23


def test_a_bad_row_names_its_file_line_and_field(tmp_path):
    good = json.loads(PART_FILES["dev"].read_text(encoding="utf-8").splitlines()[0])
    bad = {**good, "kind": "committed", "answer": []}
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(SelfdxError, match=r"answers.jsonl: line 2: field item: .*needs its answer"):
        read_answers(path)


def test_the_measure_counts_by_its_definitions():
    """Six answers whose readings are worked out by hand: right, unread, a wrong credit, a
    declined hedge, a hedge read as an answer, several options where one was asked for."""
    items = [
        item("mentalbench_single", "committed", ["B"], "Answer: B", 1),  # right
        item("mentalbench_single", "committed", ["C"], "Probably C or D.", 2),  # unread
        item("interview_letters", "committed", ["A"], "DIAGNOSIS: D", 3),  # wrong credit
        item("interview_letters", "hedged", [], "DIAGNOSIS: A or B", 4),  # declined
        item("interview_free_text", "hedged", [], "DIAGNOSIS: GAD", 5),  # read: a misreading
        item("mentalbench_single", "none", [], "A and B", 6),  # several: no reading
    ]
    results = measure(items, disorder_names())
    assert [r.outcome for r in results] == [
        "right", "unread", "misread", "declined", "misread", "declined",
    ]  # fmt: skip
    assert [r.wrong_credit for r in results] == [False, False, True, False, True, False]
    (everything,) = [row for row in summary(results) if row["situation"] == "all"]
    assert everything["committed"] == 3 and everything["unread_share"] == pytest.approx(1 / 3)
    assert everything["wrong_credit"] == 2


@pytest.mark.parametrize("part", ["dev", "heldout"])
def test_the_readers_credit_no_wrong_answer(part):
    """Every wrong credit and unread committed answer the rounds of blind writing found is
    gone, on both parts (each round was measured before any rule was changed on it; the
    figures are in docs/reports.md, Answer check)."""
    (everything,) = [
        r for r in summary(measure(load_answers((part,)), disorder_names()))
        if r["situation"] == "all"
    ]  # fmt: skip
    assert everything["wrong_credit"] == 0
    assert everything["unread_share"] <= 0.01


def test_the_command_prints_the_table_and_lists_every_error(capsys):
    for part in ("dev", "heldout"):
        items = load_answers((part,))
        errors = [r for r in measure(items, disorder_names()) if r.outcome in ("unread", "misread")]
        assert main(["--part", part, "--errors"]) == 0
        out = capsys.readouterr().out
        assert out.splitlines()[0].startswith("situation | answers | committed | right")
        assert sum(line.startswith(f"all | {len(items)} |") for line in out.splitlines()) == 1
        listed = [
            line for line in out.splitlines() if line.endswith(("(unread)", "CREDIT)", "(misread)"))
        ]
        assert len(listed) == len(errors)


def test_another_labelled_file_is_measured_and_a_missing_one_is_one_line(tmp_path, capsys):
    """`--file` measures a set in the bundled format (a probe round, a team's own answers)."""
    rows = [
        item("mentalbench_single", "committed", ["B"], "Answer: B", 1),
        item("mentalbench_single", "committed", ["C"], "Answer: B", 2),  # a wrong credit
        item("mentalbench_single", "hedged", [], "B or C", 3),
    ]
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(r.model_dump_json() + "\n" for r in rows), encoding="utf-8")
    assert main(["--file", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    # situation | answers | committed | right | unread | misread | declined | wrong_credit
    assert out[-1].startswith("all | 3 | 2 | 1 | 0 | 1 | 1 | 1 | ")
    assert main(["--file", str(tmp_path / "absent.jsonl")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"measure: error: {tmp_path / 'absent.jsonl'}: no such file"]


# A white-box probe round (a tester who read the readers) found these; each must stay fixed.
PROBED = [
    ("mentalbench_single", "B, unless the voices predate the mood episode, in which case D."),
    ("mentalbench_single", "Answer: B\nActually, wait — D.  Hmm, not sure."),
    ("mentalbench_single", "B (confidence: low; D equally plausible)"),
    ("mentalbench_multi", "A, C (?), D"),
    ("mentalbench_multi", "A, C — D pending more history"),
    ("interview_letters", "DIAGNOSIS: A > C"),
    ("interview_letters", "DIAGNOSIS: A - pending confirmation of purging frequency; otherwise C"),
    ("interview_letters", "DIAGNOSIS: A, unless C"),
    ("interview_letters", "DIAGNOSIS: A\nActually, on reflection, it could be C."),
    ("interview_letters", "DIAGNOSIS: A\nDIAGNOSIS: C"),
    ("interview_letters", "DIAGNOSIS: A (provisional; rule out D)"),
    ("interview_type3", "DIAGNOSIS: A, and C if low mood persists"),
    ("interview_type3", "DIAGNOSIS: A, C (D to be excluded)"),
    ("interview_type3", "DIAGNOSIS: A; C pending"),
    ("interview_type3", "DIAGNOSIS: A > C > D"),
    ("interview_free_text", "DIAGNOSIS: Schizophreniform disorder"),
    ("interview_free_text", "DIAGNOSIS: Obsessive-compulsive personality disorder"),
    ("interview_free_text", "DIAGNOSIS: Subthreshold PTSD"),
    ("interview_free_text", "DIAGNOSIS: PTSD in remission"),
    ("interview_free_text", "DIAGNOSIS: Rule out PTSD"),
    ("interview_free_text", "DIAGNOSIS: Anorexia nervosa, in full remission"),
    ("interview_free_text", "DIAGNOSIS: History of anorexia nervosa, currently none"),
    (
        "interview_free_text",
        "DIAGNOSIS: Generalized anxiety disorder features, not meeting criteria",
    ),
    ("interview_free_text", "DIAGNOSIS: Atypical anorexia nervosa"),
    ("interview_free_text", "DIAGNOSIS: Complex PTSD"),
    ("safe_psych", "DIAGNOSE\nProbable F32.2; rule out bipolar (F31.4)."),
    ("safe_psych", "DIAGNOSE\nF43.1? Needs trauma timeline."),
    ("safe_psych", "DIAGNOSE\nF10.2 likely; F32.1 pending sobriety."),
    ("safe_psych", "DIAGNOSE\nPossible PTSD (F43.1)."),
    ("safe_psych", "DIAGNOSE\nICD-10 F20-F29 range (psychotic disorder), exact code unclear"),
    # the second probe round
    (
        "mentalbench_single",
        "Answer: B\n\nThat said, D is also quite plausible if the voices came first.",
    ),
    ("mentalbench_single", "Answer: B\n\nHowever, D remains a reasonable alternative."),
    ("mentalbench_single", "B. However, C cannot be ruled out."),
    ("mentalbench_single", "Answer: B. Alternatively, D."),
    ("interview_free_text", "DIAGNOSIS: Social phobia"),
    ("interview_free_text", "DIAGNOSIS: Social anxiety disorder (social phobia)"),
    ("interview_free_text", "DIAGNOSIS: PTSD-like symptoms"),
    ("safe_psych", "DIAGNOSE\nNo diagnosis of F20.0 can be made yet."),
    (
        "safe_psych",
        "DIAGNOSE\nLikely F20.0, with F25.0 as an alternative if mood episodes are confirmed.",
    ),
    ("safe_psych", "DIAGNOSE\nF20.0; F25.0 remains a differential."),
    ("safe_psych", "DIAGNOSE\nF41.1, but consider F41.0."),
    ("safe_psych", "DIAGNOSE\nF20.0 - though F25.1 is a close contender"),
    # the third probe round: an answer that moves within its line
    ("interview_letters", "DIAGNOSIS: D, changed to C"),
    ("interview_letters", "DIAGNOSIS: D → revised to C"),
    ("mentalbench_single", "Answer: D → B"),
    ("mentalbench_single", "Answer: D -> B"),
    # the third probe round: two DIAGNOSIS lines that differ, one the start of the other
    ("interview_type3", "DIAGNOSIS: C and A\nCRITERIA MET: yes\n\nOn reflection:\nDIAGNOSIS: C"),
    ("interview_letters", "DIAGNOSIS: C\nCRITERIA MET: yes\n\nRevised:\nDIAGNOSIS: C or D"),
    ("interview_free_text", "DIAGNOSIS: MDD with psychotic features\nDIAGNOSIS: MDD"),
    # the third probe round: a choice or a hedge inside a diagnosis statement
    ("safe_psych", "DIAGNOSE\nDiagnosis: F32.1 or F33.1"),
    ("safe_psych", "DIAGNOSE\nDiagnosis: F32.1/F33.1"),
    ("safe_psych", "DIAGNOSE\nProbable diagnosis: F43.1"),
    ("safe_psych", "DIAGNOSE\nDiagnosis: F43.1 (probable)"),
    ("safe_psych", "DIAGNOSE\nDiagnosis: probably F43.1"),
]


@pytest.mark.parametrize(("situation", "reply"), PROBED)
def test_a_hedge_or_a_qualified_diagnosis_is_credited_for_nothing(situation, reply):
    (result,) = measure([item(situation, "hedged", [], reply, 1)], disorder_names())
    assert result.reading is None, result.reading


MDD_PSYCHOTIC = "Major Depressive Disorder with Psychotic Features"


@pytest.mark.parametrize(
    ("situation", "reply", "answer"),
    [
        ("interview_free_text", "DIAGNOSIS: Not PTSD but ASD", ["Acute Stress Disorder"]),
        (
            "interview_letters",
            "**Diagnosis:** C - Major Depressive Disorder\n\nDIAGNOSIS: C",
            ["C"],
        ),
        ("interview_free_text", "DIAGNOSIS: MDD with psychotic features", [MDD_PSYCHOTIC]),
        ("mentalbench_multi", "Applicable options:\n- A\n- D", ["A", "D"]),
        ("mentalbench_single", "<answer>C</answer>", ["C"]),
        ("mentalbench_multi", "A ✔\nB ✘\nC ✘\nD ✔", ["A", "D"]),
        ("mentalbench_multi", "Final answer: A, D (not B or C).", ["A", "D"]),
        ("interview_free_text", "DIAGNOSIS: Claustrophobia", ["Specific Phobia"]),
        ("safe_psych", "DIAGNOSE\nF32.1 was my first thought; final: F43.2", ["F43.2"]),
        ("safe_psych", "DIAGNOSE\nCode: F43.2 (not F32.1)", ["F43.2"]),
        (
            "safe_psych",
            "DIAGNOSE\nDelusional disorder, F22.0. Schizophrenia (F20.0) is less likely.",
            ["F22.0"],
        ),
        (
            "safe_psych",
            "DIAGNOSE\n- Primary: F43.1 PTSD\n- Differential: F43.0 (excluded)",
            ["F43.1"],
        ),
        ("interview_type3", "DIAGNOSIS: all of B, C", ["B", "C"]),  # not every option
        # the third probe round: a negation in a statement, a primary before a secondary
        ("safe_psych", "DIAGNOSE\nThe diagnosis is not F43.1 but F43.2.", ["F43.2"]),
        ("safe_psych", "DIAGNOSE: Diagnosis: Not F43.1; F43.2", ["F43.2"]),
        (
            "safe_psych",
            "DIAGNOSE\nPrimary diagnosis: F43.1 PTSD\nSecondary diagnosis: F10.2 alcohol use",
            ["F43.1"],
        ),
    ],
)
def test_a_committed_answer_in_the_probe_layouts_is_read(situation, reply, answer):
    (result,) = measure([item(situation, "committed", answer, reply, 1)], disorder_names())
    assert result.outcome == "right", result.reading


def test_the_four_readings_a_probe_round_left_debatable_are_decided():
    """docs/reports.md, "Answer check": each reading below is the one selfdx keeps, and why."""
    from selfdx.datasets.icd10 import match_category, match_full_code
    from selfdx.instruments.answers.icd_code import reply_code

    # "F32.x": the category is stated and the code left open, so category credit, never code
    code = reply_code("DIAGNOSE\nF32.x - depressive episode, severity unclear")
    assert code == "F32.X"
    assert not match_full_code("F32.1", code) and match_category("F32.1", code)
    # "F60.31" (a national extension of F60.3): the protocol compares the base code and the
    # first character after the dot, as F31.11 against F31.1
    code = reply_code("DIAGNOSE\nF60.31 - borderline personality disorder")
    assert code == "F60.31" and match_full_code("F60.3", code)
    # a symptom code offered in place of a diagnosis is no diagnosis
    assert reply_code("DIAGNOSE\nR45.8 - no psychiatric diagnosis can be made yet") is None
    # DSM-5 codes catatonia with the disorder it accompanies: the disorder is diagnosed
    mdd = "Major Depressive Disorder"
    reply = "DIAGNOSIS: Catatonia associated with major depressive disorder"
    (result,) = measure(
        [item("interview_free_text", "committed", [mdd], reply, 1)], disorder_names()
    )
    assert result.outcome == "right", result.reading


@pytest.mark.parametrize(
    ("reply", "claim"),
    [
        ("DIAGNOSIS: C\nCRITERIA MET: yes", "yes"),
        ("DIAGNOSIS: C\nCRITERIA MET: Not met", "no"),
        ("DIAGNOSIS: C\nCRITERIA MET: Yes (duration and impairment documented)", "yes"),
        # the third probe round: a qualified yes, a split one, two lines that differ
        ("DIAGNOSIS: C\nCRITERIA MET: Yes, but I cannot be sure", "cannot tell"),
        ("DIAGNOSIS: B and C\nCRITERIA MET: Yes for B, no for C", "cannot tell"),
        ("DIAGNOSIS: C\nCRITERIA MET: yes\n\nRevised:\nCRITERIA MET: unsure", "cannot tell"),
    ],
)
def test_a_criteria_line_is_read_with_its_qualifiers(reply, claim):
    from selfdx.instruments.answers.interviewer_reply import parse_reply

    assert parse_reply(reply).criteria == claim


def test_a_letter_that_is_no_option_spoils_the_list():
    """The third probe round: "B, C, E" was read as {B, C}, credited on a key of B and C."""
    (result,) = measure(
        [item("mentalbench_multi", "hedged", [], "Answer: B, C, E", 1)], disorder_names()
    )
    assert result.reading is None


# Issue 36 (the fourth probe round): committed structured_actions codes it missed or misread.
# In each class the finding's wording comes first, then wordings written for this test; the
# near neighbours after them must still read as they do.
STRUCTURED_MISSED = [
    ("DIAGNOSE: Z63.0 relationship problems; diagnosis F43.2 adjustment disorder", "F43.2"),
    ("DIAGNOSE\nR45.8 low mood noted; dx F32.1 moderate depressive episode", "F32.1"),
    ("DIAGNOSE: Adjustment disorder (F43.2) rather than PTSD (F43.1)", "F43.2"),
    ("DIAGNOSE\nGeneralized anxiety disorder (F41.1) instead of panic disorder (F41.0)", "F41.1"),
    ("DIAGNOSE\nThe best fit is F33.1 rather than F32.1.", "F33.1"),
    ("DIAGNOSE\nNot F32.1 — the history shows earlier episodes, so F33.1.", "F33.1"),
    ("DIAGNOSE\nNot F20.0 - the mood episodes dominate, hence F25.1", "F25.1"),
    ("DIAGNOSE: Diagnosis F22.0 (F20 excluded)", "F22.0"),
    ("DIAGNOSE\nDiagnosis: F42.2 (F60.5 ruled out)", "F42.2"),
    ("DIAGNOSE: F 32.1", "F32.1"),
    ("DIAGNOSE: F321", "F32.1"),
    ("DIAGNOSE\nF4310 post-traumatic stress disorder", "F43.10"),
    ("DIAGNOSE: The diagnosis is F43.2, not F43.1.", "F43.2"),
    # near neighbours
    ("DIAGNOSE\nF32.1 rather than F33.1", "F32.1"),
    ("DIAGNOSE\nNot F33.1 — a single episode so far, so F32.1.", "F32.1"),
    ("DIAGNOSE\nNot F32.1 — possibly F33.1.", None),
    ("DIAGNOSE\npossibly F33.1", None),
    ("DIAGNOSE: diagnosis F32.1 or F33.1", None),
    ("DIAGNOSE\nDiagnosis F22.0 (F20 not excluded)", None),
    ("DIAGNOSE: F32", "F32"),
]


@pytest.mark.parametrize(("reply", "code"), STRUCTURED_MISSED)
def test_a_structured_code_the_probes_missed_is_read(reply, code):
    from selfdx.instruments.answers.icd_code import reply_code

    assert reply_code(reply) == code


def test_a_rule_out_beside_the_diagnosis_keeps_the_reply_open():
    """Decided (docs/safe_psych.md): "rule out F43.1" (r/o) beside a diagnosis statement keeps
    F43.1 to be excluded, as rule 2 and the interview reader read it, so no code is credited;
    "ruled out" is a negation and leaves the statement's code."""
    from selfdx.instruments.answers.icd_code import reply_code

    assert reply_code("DIAGNOSE\nDiagnosis: F43.2\nRule out: F43.1") is None
    assert reply_code("DIAGNOSE\nDiagnosis: F43.2 (r/o F43.1)") is None
    assert reply_code("DIAGNOSE\nDiagnosis: F32.1; rule out bipolar depression, F31.3") is None
    assert reply_code("DIAGNOSE\nDiagnosis: F43.2\nRuled out: F43.1") == "F43.2"
    assert reply_code("DIAGNOSE\nDiagnosis: F43.2 (F43.1 ruled out)") == "F43.2"


def read_both_ways(text: str) -> tuple[str | None, str | None]:
    """`reply_code` of `text` alone and after a DIAGNOSE line, as a structured reply opens."""
    from selfdx.instruments.answers.icd_code import reply_code

    return reply_code(text), reply_code(f"DIAGNOSE\n{text}")


# Chapter V codes written loosely: a decimal comma would have read the category alone (F32 for
# F32.1, a different code at the full level), a dash after the letter no code at all.
LOOSE_CODES = [
    ("Diagnosis: F32,1", "F32.1"),
    ("Diagnosis: F-32.1", "F32.1"),
    ("Diagnosis: F32 .1", "F32.1"),
    ("F32,1 moderate depressive episode", "F32.1"),
    ("F - 32.1", "F32.1"),
    # near neighbours
    ("Diagnosis: F32, 1 episode so far", "F32"),
    ("F32.1", "F32.1"),
    ("Diagnosis: F33.1", "F33.1"),
    ("F20-F29", None),
    ("F32.1 or F33.1", None),
    ("F43.2 rather than F43.1", "F43.2"),
    ("ICD_CODES: ICD-10 F32.1", "F32.1"),
    ("F-32", None),
]


@pytest.mark.parametrize(("text", "code"), LOOSE_CODES)
def test_a_chapter_v_code_written_loosely_is_read(text, code):
    assert read_both_ways(text) == (code, code)


# A bare letter and two digits outside chapter V in running text is a vitamin, a scale or a lab
# value ("B12" was read as the diagnosis); where a code stands it is still read.
BARE_TOKENS = [
    ("Low B12 noted; depressive episode F32.1", "F32.1"),
    ("Levels of B12 low", None),
    ("K10 score 32; moderate depressive episode F32.1", "F32.1"),
    ("Cobalamin (B12) low; depressive episode F32.1", "F32.1"),
    ("Vitamin B12 deficiency and F32.1", "F32.1"),
    # near neighbours: a code where a clinician writes one, or written with its dot
    ("Diagnosis: E11 type 2 diabetes", "E11"),
    ("ICD-10: G30", "G30"),
    ("Alzheimer's disease (G30)", "G30"),
    ("Vitamin B12 deficiency E53.8", "E53.8"),
    ("Cannabis use F12", "F12"),
]


@pytest.mark.parametrize(("text", "code"), BARE_TOKENS)
def test_a_vitamin_or_lab_token_is_no_code(text, code):
    assert read_both_ways(text) == (code, code)


# A revision withdraws the code before it: the first code was read.
REVISED_CODES = [
    ("Diagnosis: F32.1, actually F33.1", "F33.1"),
    ("Diagnosis: F32.1 → F33.1", "F33.1"),
    ("Diagnosis: F32.1 (revised to F33.1)", "F33.1"),
    ("F32.1, no wait, F33.1", "F33.1"),
    ("Diagnosis: F32.1. Correction: F33.1", "F33.1"),
    ("Diagnosis: F32.1\nCorrection: F33.1", "F33.1"),
    ("F32.1 changed to F33.1", "F33.1"),
    ("F32.1 -> F33.1", "F33.1"),
    ("F32.1 → F33.1 → F31.3", "F31.3"),
    # near neighbours: a range, no second code, the new code set aside, no revision at all
    ("F20-F29", None),
    ("Diagnosis: F32.1 → start an SSRI", "F32.1"),
    ("F32.1; actually, F41.1 was ruled out", "F32.1"),
    ("F32.1, no psychotic features", "F32.1"),
    ("Not F32.1 — the history shows earlier episodes, so F33.1.", "F33.1"),
    ("F43.2 rather than F43.1", "F43.2"),
]


@pytest.mark.parametrize(("text", "code"), REVISED_CODES)
def test_a_revised_code_is_read_as_revised(text, code):
    assert read_both_ways(text) == (code, code)


# A code ranked below another names the other (the sixth round read no code); kept open, neither.
RANKED_BELOW = [
    ("F43.2 is less likely than F43.1.", "F43.1"),
    ("Adjustment disorder (F43.2) is less likely than PTSD (F43.1).", "F43.1"),
    ("F43.2 is less probable than F43.1", "F43.1"),
    # near neighbours: both kept open, a choice after "than", nothing after it, a hedge on it
    ("F43.2 is less likely than F43.1, but I cannot exclude either.", None),
    ("F43.2 is less likely than F43.1 or F41.1.", None),
    ("F43.1 is less likely than I first thought.", None),
    ("F43.2 is less likely than F43.1, though F43.1 is not certain.", None),
    ("F43.1. I cannot exclude F43.2.", None),
    ("F43.1 is more likely than F43.2.", "F43.1"),
]


@pytest.mark.parametrize(("text", "code"), RANKED_BELOW)
def test_a_code_ranked_below_another_names_the_other(text, code):
    assert read_both_ways(text) == (code, code)


# A code asked about or hedged in its own sentence commits to nothing: it was credited.
HEDGED_CODES = [
    ("Probably F43.1", None),
    ("PTSD (F43.1)?", None),
    ("Likely F43.1?", None),
    ("F43.1, I think, but not sure", None),
    ("Diagnosis: F43.1, I think, but not sure", None),
    ("Maybe F41.1", None),
    ("F20.0 to be excluded", None),
    # near neighbours: a ranking, a negation, a plain code
    ("Most likely F43.1", "F43.1"),
    ("Diagnosis: F43.1 (most likely)", "F43.1"),
    ("F43.2; F43.1 less likely", "F43.2"),
    ("PTSD (F43.1)", "F43.1"),
    ("F32.1", "F32.1"),
    ("F32.1 or F33.1", None),
]


@pytest.mark.parametrize(("text", "code"), HEDGED_CODES)
def test_a_hedged_code_names_none(text, code):
    assert read_both_ways(text) == (code, code)


# A cause outside chapter V before the disorder it brings about: the cause was read (E51.2 for
# F10.6, the key). Only a chapter V code that names a disorder by its cause follows one so.
CAUSED_CODES = [
    ("Diagnosis: E51.2 Wernicke with F10.6 amnesic syndrome", "F10.6"),
    ("E03.9 hypothyroidism with organic depressive disorder F06.3", "F06.3"),
    ("S06.2 diffuse brain injury, F07.0 organic personality disorder", "F07.0"),
    ("N39.0 urinary tract infection; F05.1 delirium superimposed on dementia", "F05.1"),
    ("K70.3 alcoholic cirrhosis and F10.2 alcohol dependence", "F10.2"),
    ("Vitamin B12 deficiency (E53.8) with organic depressive disorder F06.3", "F06.3"),
    ("O99.3 mental disorder of the puerperium, F53.0", "F53.0"),
    ("E51.2 / F10.6", "F10.6"),
    ("G30.1 + F00.1", "F00.1"),
    # near neighbours: a second diagnosis after a physical one, a cause alone, F first
    ("E11.9 type 2 diabetes and F32.1 depressive episode", "E11.9"),
    ("Diagnosis: E03.9", "E03.9"),
    ("F10.6 amnesic syndrome due to E51.2", "F10.6"),
]


@pytest.mark.parametrize(("text", "code"), CAUSED_CODES)
def test_the_mental_disorder_beside_its_cause_is_the_diagnosis(text, code):
    assert read_both_ways(text) == (code, code)


@pytest.mark.parametrize(
    ("reply", "judge_codes", "code"),
    [
        ("E51.2 F10.6", ["E51.2", "F10.6"], "F10.6"),
        ("G30.1 and F00.1", ["G30.1", "F00.1"], "F00.1"),
        ("T90.5 sequelae, F07.0", ["none", "T90.5", "F07.0"], "F07.0"),
        ("G30.1† F00.1*", ["G30.1", "F00.1"], "F00.1"),
        # near neighbours: the judge's first code stays
        ("I10 and F32.1", ["I10", "F32.1"], "I10"),
        ("F10.6 due to E51.2", ["F10.6", "E51.2"], "F10.6"),
        ("F32.1", ["F32.1"], "F32.1"),
        ("no code", [], None),
    ],
)
def test_the_judged_code_is_the_mental_disorder_beside_its_cause(reply, judge_codes, code):
    from selfdx.instruments.answers.icd_code import diagnosis_code

    assert diagnosis_code(reply, judge_codes) == code


# Issue 6-SP (an adversarial probe): a conditional or premature code, a denied one, a past or
# family diagnosis, a JSON key that sets a code aside, a revision by "Edit:", "Update:" or
# "Upon reflection", and a code kept open beside a statement were read as the diagnosis;
# "F43.1 is more likely than F43.2" was read as none. Near neighbours follow each class.
PROBED_SP = [
    ("Too early to diagnose F43.1.", None),
    ("If symptoms persist beyond a month, this would be F43.1.", None),
    ("Before diagnosing F43.1, I need more information.", None),
    ("Can't diagnose without more info. F43.1 is one option.", None),
    ("I doubt it's F43.1.", None),
    ("F43.1 would be a mistake here; F43.2.", "F43.2"),
    ("Symptoms don't quite meet criteria for F43.1; F43.2 instead.", "F43.2"),
    ("History of F10.2 (in remission). Current: F32.1.", "F32.1"),
    ("Family history of F31.1. The patient has moderate depression.", None),
    ("Previously diagnosed with F20.0, but I think F22.0 fits.", "F22.0"),
    ('{"ruled_out": ["F20.0"], "diagnosis": "F22.0"}', "F22.0"),
    ('{"diagnosis": "F22.0", "ruled_out": ["F20.0"]}', "F22.0"),
    ('{"differential": ["F20.0"], "final": "F22.0"}', "F22.0"),
    ('{"excluded": "F20.0", "primary": "F22.0"}', "F22.0"),
    ('{"diagnosis": "Panic disorder", "icd10": "F41.0"}', "F41.0"),
    ("Diagnosis: F20.0\nEdit: F22.0", "F22.0"),
    ("Diagnosis: F20.0\nUpdate: F22.0", "F22.0"),
    ("Diagnosis: F32.1. Upon reflection, F33.1 fits better.", "F33.1"),
    ("Diagnosis: F32.1. F33.1 cannot be excluded.", None),
    ("Diagnosis: F32.1 (differential: F31.4)", None),
    ("I'd lean toward F43.1.", None),
    ("It sounds like it could be PTSD (F43.1).", None),
    ("F43.1 is more likely than F43.2", "F43.1"),
    # near neighbours
    ("Diagnosis: F43.1", "F43.1"),
    ("F43.2 rather than F43.1", "F43.2"),
    ("Not F32.1 - the history shows earlier episodes, so F33.1", "F33.1"),
    ("Diagnosis: F43.2 (r/o F43.1)", None),
    ("F32.1", "F32.1"),
    ("Diagnosis: F43.1. Family history of F31.1.", "F43.1"),
    ("There is no doubt: F43.1.", "F43.1"),
    ("F33.1, given a history of depressive episodes", "F33.1"),
    ("History of trauma, now PTSD F43.1", "F43.1"),
    ("Diagnosis: F32.1. F33.1 was ruled out.", "F32.1"),
    ("Primary: F43.1\nDifferential: F43.0 (excluded, symptoms over a month)", "F43.1"),
    ("Diagnosis: F32.1 (F33.1 not excluded)", None),
    ("F43.1 would be a mistake here; perhaps F43.2.", None),
]


@pytest.mark.parametrize(("text", "code"), PROBED_SP)
def test_a_premature_denied_past_or_open_code_is_not_the_diagnosis(text, code):
    assert read_both_ways(text) == (code, code)


# The tenth probe round: codes of someone else's diagnosis (a relative, the GP, a referral) are
# no diagnosis of the patient's; a code kept open by "unless" or "just as well" names none.
SOMEONE_ELSE = [
    ("The patient's mother carries F33.2. Worry across domains for a year: F41.1.", "F41.1"),
    ("The GP's referral letter queried F20.9. The history supports F22.0.", "F22.0"),
    ("Her mother: F33.2. Her GP's code: F41.9. I'd rather not assign a code yet.", None),
    ("F32.1, unless the two high weeks were hypomanic, in which case F31.3.", None),
    ("F90.0 is the leading diagnosis, but F41.1 explains it just as well.", None),
    # near neighbours: the patient's own code beside a relative or the GP named otherwise
    ("Adjustment disorder (F43.2) following her mother's death.", "F43.2"),
    ("F32.1, referred by her GP.", "F32.1"),
    ("F43.1: intrusive memories of the assault.", "F43.1"),
    ("Diagnosis: F41.1.", "F41.1"),
]


@pytest.mark.parametrize(("text", "code"), SOMEONE_ELSE)
def test_someone_elses_code_or_a_conditional_one_is_no_diagnosis(text, code):
    assert read_both_ways(text) == (code, code)


# The eleventh blind round: a code struck through is taken back; another code kept as likely,
# in any language, or a differential between two codes leaves no code
ELEVENTH_CODES = [
    ("~~F32.1~~ F33.1", "F33.1"),
    ("Diagnosis: <del>F20.0</del> F25.1", "F25.1"),
    (
        "DIAGNOSE: F41.1\nThis is best treated as a differential between F41.1 and F41.0 for now.",
        None,
    ),
    ("Diagnosis: F33.1. Allerdings ist F31.3 ebenso wahrscheinlich.", None),
    ("Diagnóstico: F33.1, aunque F31.3 es igualmente probable.", None),
    ("DIAGNOSE: F32.1\nActually, F34.1 is equally plausible here.", None),
    # near neighbours: a differential set aside, a code with a tilde that strikes nothing
    ("F32.1; the differential (F41.1) was excluded.", "F32.1"),
    ("Diagnosis: F32.1 ~ moderate", "F32.1"),
]


@pytest.mark.parametrize(("text", "code"), ELEVENTH_CODES)
def test_struck_codes_and_codes_kept_as_likely(text, code):
    assert read_both_ways(text) == (code, code)


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("DIAGNOSE → changed to ABSTAIN\nThe mania is reported only by a neighbour.", "Abstain"),
        ("DIAGNOSE -> CLARIFY\nHow long have the voices lasted?", "Clarify"),
        ("Diagnose (revised: clarify)", "Clarify"),
        ("DIAGNOSE: F32.1 -> F33.1", "Diagnose"),
        ("DIAGNOSE: now F33.1, given the earlier episode", "Diagnose"),
    ],
)
def test_an_action_changed_on_its_own_line_is_the_new_action(reply, action):
    from selfdx.judge.behaviour import parse_structured_action

    assert parse_structured_action(reply).value == action


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("DIAGNOSE: F41.1\nBetween F41.1 and F41.0 it is honestly a toss-up.", None),
        ("DIAGNOSE: F32.1\nI withdraw F33.1; the earlier episode was not confirmed.", "F32.1"),
    ],
)
def test_a_code_torn_with_another_is_no_code(text, code):
    assert read_both_ways(text) == (code, code)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # the thirteenth blind round: a withdrawal state is a diagnosis, not a code withdrawn
        (
            "DIAGNOSE: Alcohol withdrawal state with delirium (F10.4)\nDependence (F10.2) "
            "underlies it.",
            "F10.4",
        ),
        ("DIAGNOSE: Opioid withdrawal state (F11.3)", "F11.3"),
        ("DIAGNOSE: F23\nIf it has lasted over a month, F20.0 would be more appropriate.", None),
        ("DIAGNOSE: F32.3\nThis could equally be F25.1.", None),
        ("DIAGNOSE: F50.0\nI am not confident in this; F50.1 is at least as likely.", None),
    ],
)
def test_the_thirteenth_rounds_codes(text, code):
    assert read_both_ways(text) == (code, code)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # the fourteenth blind round: a disorder named beside another's code is no answer
        ("DIAGNOSE: Generalized anxiety disorder (F41.0)", None),
        ("DIAGNOSE: Panic disorder (F41.1)", None),
        ("DIAGNOSE: F41.0 Generalized anxiety disorder", None),
        ("DIAGNOSE: PTSD (F43.2)", None),
        # near neighbours: the right pair, a set-aside name beside, a name the table lacks
        ("DIAGNOSE: Generalized anxiety disorder (F41.1)", "F41.1"),
        (
            "DIAGNOSE: Mixed anxiety and depressive disorder (F41.2) rather than GAD (F41.1)",
            "F41.2",
        ),
        ("DIAGNOSE: Agoraphobia with panic disorder (F40.01)", "F40.01"),
        ("DIAGNOSE: Depressive episode (F32.1) with comorbid GAD (F41.1)", "F32.1"),
        # probabilities as decimals, "none" on the action line, a Z code as the reason
        ("DIAGNOSE: F43.1 (p≈0.55), F43.2 (p≈0.40)", None),
        ("DIAGNOSE: none\nNo psychiatric disorder is present (Z63.4 as the reason).", None),
    ],
)
def test_the_fourteenth_rounds_codes(text, code):
    assert read_both_ways(text) == (code, code)


def test_an_abstention_closing_a_corrected_reply_is_the_action():
    from selfdx.judge.behaviour import parse_structured_action

    reply = "DIAGNOSE: Paranoid schizophrenia (F20.0)\n\nCorrection: too early to say. ABSTAIN."
    assert parse_structured_action(reply).value == "Abstain"
    assert parse_structured_action("DIAGNOSE: F20.0\nI did not ABSTAIN here.").value == "Diagnose"


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        # the twenty-fifth probe round: a diagnosis the patient already has is no answer
        (
            "DIAGNOSE: Delirium on dementia (F05.1)\nShe has an established diagnosis of "
            "Alzheimer's disease (F00.1, since 2021) and a new infection.",
            None,  # not F00.1; F05.1 with a second code beside it is left unread
        ),
        ("DIAGNOSE: Moderate depressive episode (F32.1). Previous diagnosis: F41.1.", "F32.1"),
        ("DIAGNOSE: Known diagnosis of schizophrenia (F20.0), now relapsing.", "F20.0"),
    ],
)
def test_a_diagnosis_the_patient_already_has_is_not_the_answer(reply, code):
    from selfdx.instruments.answers.icd_code import reply_code

    assert reply_code(reply) == code


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # the thirty-third blind round: a recurrent disorder named beside a single episode's code
        ("DIAGNOSE: Recurrent depressive disorder, current episode moderate (F32.1)", None),
        ("DIAGNOSE: Major depressive disorder, recurrent, severe (F32.2)", None),
        ("DIAGNOSE: Recurrent depressive disorder, current episode moderate (F33.1)", "F33.1"),
        ("DIAGNOSE: Depressive episode, severe without psychotic symptoms (F32.2)", "F32.2"),
    ],
)
def test_the_thirty_third_rounds_codes(text, code):
    assert read_both_ways(text) == (code, code)
