"""MentalBench reply parsers: the released extraction (row by row) and the strict reader."""

from __future__ import annotations

import pytest

from selfdx.instruments.answers.parsers import get_parser
from selfdx.instruments.answers.reference_parser import parse_reference, reference_gold
from selfdx.instruments.answers.strict_parser import parse_strict

# Options used throughout: option C is Schizophrenia, as in the "C) Schizophrenia" row.
PSYCHOSIS = (
    "Delusional Disorder",
    "Schizoaffective Disorder (Bipolar Type)",
    "Schizophrenia",
    "Schizoaffective Disorder (Depressive Type)",
)
MOOD = (
    "Major Depressive Disorder with Psychotic Features",
    "Bipolar I Disorder",
    "Major Depressive Disorder",
    "Attention-Deficit/Hyperactivity Disorder (Combined Presentation)",
)


def letters(parsed) -> str | None:
    return None if parsed.letters is None else "".join(sorted(parsed.letters))


# The released extraction row by row: (model output, letters it reads; None = empty set).
REFERENCE_TABLE = [
    ("A.", "A"),
    ("C) Schizophrenia", "C"),
    ("(B)", "B"),
    ("Answer: C", "C"),
    ("The answer is D", "D"),
    ("Selection: A & D", "AD"),
    ("A & B", "AB"),
    ("A, C", "AC"),
    ("A&B&C", "ABC"),
    ("A and B", "A"),  # the `and` separator never matches
    ("A, B and C", "AB"),
    ("A/B", "A"),  # `/` is not a separator
    ("**Answer:** C", "A"),  # prefix not stripped: the A of ANSWER
    ("The most likely diagnosis is C", "D"),  # the D of DIAGNOSIS
    ("Based on the symptoms, A", "B"),  # the B of BASED
    ("None of the above", "A"),  # the A of ABOVE
    ("E", None),
    ("", None),
    ("<think>\n</think>\n\nB", "B"),  # the empty think block holds no A-D letter
]


@pytest.mark.parametrize(("output", "expected"), REFERENCE_TABLE)
def test_reference_parser_reproduces_every_row_of_spec_3(output: str, expected: str | None):
    parsed = parse_reference(output)
    assert letters(parsed) == expected
    assert parsed.parsed == (expected is not None)


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("   answer - b   ", "B"),  # stripped and upper-cased before the prefix goes
        ("OUTPUT: D", "D"),
        ("THE ANSWER IS: A,B", "AB"),
        ("C & D and A", "CD"),
        ("I think it is B", "B"),  # I THINK IT IS holds no A-D letter
        ("I believe it is C", "B"),  # ... but BELIEVE does
        ("Definitely B", "D"),  # the D of DEFINITELY comes first
    ],
)
def test_reference_parser_other_quirks(output: str, expected: str | None):
    assert letters(parse_reference(output)) == expected


def test_reference_parser_treats_non_text_as_empty():
    assert parse_reference(None).letters is None


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("C. Schizophrenia", {"C"}),
        (
            "B & A. Attention-Deficit/Hyperactivity Disorder (Combined Presentation) "
            "& Schizophrenia",
            {"A", "B"},
        ),
        ("A) Major Depressive Disorder", {"A"}),
        ("d. Bulimia Nervosa", {"D"}),
    ],
)
def test_reference_gold_takes_the_letters_before_the_first_dot(answer, expected):
    assert reference_gold(answer) == expected


# (model output, options, letters a careful reader takes; None = unparsed, "" = none of them)
STRICT_TABLE = [
    # bare letters and letter sets
    ("A.", PSYCHOSIS, "A"),
    ("C", PSYCHOSIS, "C"),
    ("(B)", PSYCHOSIS, "B"),
    ("[D]", PSYCHOSIS, "D"),
    ("b", PSYCHOSIS, "B"),
    ("A & B", PSYCHOSIS, "AB"),
    ("B & A.", PSYCHOSIS, "AB"),
    ("A, C", PSYCHOSIS, "AC"),
    ("A&B&C", PSYCHOSIS, "ABC"),
    ("A and B", PSYCHOSIS, "AB"),
    ("A, B and C", PSYCHOSIS, "ABC"),
    ("A, B, and C", PSYCHOSIS, "ABC"),
    ("A/B", PSYCHOSIS, None),  # a choice between two, as "A or B" (writers of the answer check)
    ("AC", PSYCHOSIS, "AC"),
    ("Both A and C", PSYCHOSIS, "AC"),
    ("Options B and D", PSYCHOSIS, "BD"),
    ("answer: b & d", PSYCHOSIS, "BD"),
    # answer statements
    ("Answer: C", PSYCHOSIS, "C"),
    ("The answer is D", PSYCHOSIS, "D"),
    ("Selection: A & D", PSYCHOSIS, "AD"),
    ("Answer - D.", PSYCHOSIS, "D"),
    ("**Answer:** C", PSYCHOSIS, "C"),
    ("**Final Answer: C**", PSYCHOSIS, "C"),
    ("## Answer\nB", PSYCHOSIS, "B"),
    ("Final answer: \\boxed{C}", PSYCHOSIS, "C"),
    ("The final answer is $\\boxed{A}$.", PSYCHOSIS, "A"),
    ("The most likely diagnosis is C", PSYCHOSIS, "C"),
    ("The most likely diagnosis is C. Schizophrenia.", PSYCHOSIS, "C"),
    ("Most likely C.", PSYCHOSIS, "C"),
    ("I would choose B.", PSYCHOSIS, "B"),
    ("I'd go with option C", PSYCHOSIS, "C"),
    ("The correct options are A and C.", PSYCHOSIS, "AC"),
    ("The correct answers are B & D.", PSYCHOSIS, "BD"),
    ("Answer:\n- B. Schizoaffective Disorder (Bipolar Type)\n- C. Schizophrenia", PSYCHOSIS, "BC"),
    ("The answer is A, not B.", PSYCHOSIS, "A"),
    ("A 34-year-old man with fixed false beliefs. The answer is A.", PSYCHOSIS, "A"),
    # letters with names, names alone
    ("C) Schizophrenia", PSYCHOSIS, "C"),
    ("C. Schizophrenia", PSYCHOSIS, "C"),
    ("C (Schizophrenia)", PSYCHOSIS, "C"),
    ("Schizophrenia (C)", PSYCHOSIS, "C"),
    ("**C. Schizophrenia**", PSYCHOSIS, "C"),
    ("Schizophrenia", PSYCHOSIS, "C"),
    ("schizophrenia.", PSYCHOSIS, "C"),
    ("Schizoaffective Disorder, Bipolar Type", PSYCHOSIS, "B"),
    ("Schizoaffective disorder (depressive type)", PSYCHOSIS, "D"),
    ("Delusional Disorder and Schizophrenia", PSYCHOSIS, "AC"),
    ("Major Depressive Disorder", MOOD, "C"),
    ("Major depressive disorder with psychotic features", MOOD, "A"),
    ("ADHD", MOOD, "D"),
    ("D) ADHD, combined type", MOOD, "D"),
    ("Bipolar I Disorder and ADHD", MOOD, "BD"),
    ("D. Attention-Deficit/Hyperactivity Disorder (Combined Presentation)", MOOD, "D"),
    ("A & C. Delusional Disorder & Schizophrenia", PSYCHOSIS, "AC"),  # the published format
    ("C & A. Schizophrenia & Delusional Disorder", PSYCHOSIS, "AC"),
    ("Answer: A & C (Delusional Disorder & Schizophrenia)", PSYCHOSIS, "AC"),
    ("A. Delusional Disorder, C. Schizophrenia", PSYCHOSIS, "AC"),
    ("A) Delusional Disorder and C) Schizophrenia", PSYCHOSIS, "AC"),
    ("Schizophrenia (C) and Delusional Disorder (A)", PSYCHOSIS, "AC"),
    ("Both Schizophrenia and Delusional Disorder are consistent with the case.", PSYCHOSIS, "AC"),
    ("**Diagnosis:** Schizophrenia (Option C)", PSYCHOSIS, "C"),
    ("C: Schizophrenia, because the voices persist.", PSYCHOSIS, "C"),
    ("C is the most likely diagnosis.", MOOD, "C"),
    ("B & D are both consistent with the presentation.", MOOD, "BD"),
    # a verbose reply, a reasoning block or an explanation around an unambiguous answer
    ("Based on the symptoms, A", PSYCHOSIS, "A"),
    ("Therefore, C.", PSYCHOSIS, "C"),
    ("<think>\n</think>\n\nB", PSYCHOSIS, "B"),
    (
        "<think>Voices for eight months, no mood episode: A or C? Bizarre delusions and "
        "disorganised speech point to C.</think>\n\n**C. Schizophrenia**",
        PSYCHOSIS,
        "C",
    ),
    ("Reasoning about B and D...\n</think>\nAnswer: A", PSYCHOSIS, "A"),
    (
        "Based on the presentation (hallucinations, disorganised speech, eight months, no mood "
        "episode), the most likely diagnosis is **C. Schizophrenia**.",
        PSYCHOSIS,
        "C",
    ),
    (
        "The patient reports auditory hallucinations and thought broadcasting for over six "
        "months with declining function and no mood episodes.\n\nAnswer: C",
        PSYCHOSIS,
        "C",
    ),
    (
        "C\n\nThe patient meets the criteria: two psychotic symptoms for over six months.",
        PSYCHOSIS,
        "C",
    ),
    ("C. Schizophrenia\n\nA is less likely because the delusions are bizarre.", PSYCHOSIS, "C"),
    ("C. Schizophrenia. A is less likely because of the hallucinations.", PSYCHOSIS, "C"),
    (
        "Diagnosis: C\n\nRationale: psychotic symptoms for eight months. The diagnosis is "
        "supported by the absence of a mood episode.",
        PSYCHOSIS,
        "C",
    ),
    (
        "The most likely diagnosis is Major Depressive Disorder (C), rather than Bipolar I "
        "Disorder (B), since no manic episode is described.",
        MOOD,
        "C",
    ),
    (
        "A. Delusional Disorder\nB. Schizoaffective Disorder (Bipolar Type)\nC. Schizophrenia\n"
        "D. Schizoaffective Disorder (Depressive Type)\n\nAnswer: C",
        PSYCHOSIS,
        "C",
    ),
    # the forms SmolLM2-135M-Instruct used (scripts/smollm2_findings.py); read since the fix
    ("The answer to this case is B. Bipolar I Disorder", MOOD, "B"),
    ("The answer for this patient would be C.", PSYCHOSIS, "C"),
    ("The presentation supports the diagnosis of Major Depressive Disorder.", MOOD, "C"),
    (
        "The presentation supports the diagnosis of Schizophrenia, as it mentions voices.",
        PSYCHOSIS,
        "C",
    ),
    ("The answer to this case is B. Major Depressive Disorder", MOOD, None),  # B is Bipolar I
    ("The answer to your question is:", PSYCHOSIS, None),
    ("The answer to this question is not clear.", PSYCHOSIS, None),
    ("The presentation supports a single diagnosis.", PSYCHOSIS, None),
    ("The presentation supports the diagnosis of A or C.", PSYCHOSIS, None),
    (
        "The presentation is a misdiagnosis of Schizophrenia with an undiagnosed condition.",
        PSYCHOSIS,
        None,
    ),
    ("B. Schizoaffective Disorder (Depressive Type)", PSYCHOSIS, None),  # D's name after B
    # none / all
    ("None of the above", PSYCHOSIS, ""),
    ("None of these options.", PSYCHOSIS, ""),
    ("All of the above", PSYCHOSIS, "ABCD"),
    # ambiguity, contradictions, refusals: unparsed, never guessed
    ("A or B", PSYCHOSIS, None),
    ("Either A or C.", PSYCHOSIS, None),
    ("Answer: C or possibly A", PSYCHOSIS, None),
    ("The answer is A, but B is also possible.", PSYCHOSIS, None),
    ("C (could also be D)", PSYCHOSIS, None),
    ("A. Schizophrenia", PSYCHOSIS, None),  # letter A is Delusional Disorder: contradiction
    ("C) Delusional Disorder", PSYCHOSIS, None),
    ("C (Delusional Disorder)", PSYCHOSIS, None),
    ("A & C. Schizophrenia & Schizoaffective Disorder (Bipolar Type)", PSYCHOSIS, None),
    ("Schizoaffective disorder", PSYCHOSIS, None),  # fits B and D alike
    ("The symptoms could fit B or C.", PSYCHOSIS, None),
    ("C\nActually, on reflection, B.", PSYCHOSIS, None),
    ("C is unlikely.", PSYCHOSIS, None),
    (
        "A. Delusional Disorder\nB. Schizoaffective Disorder (Bipolar Type)\nC. Schizophrenia\n"
        "D. Schizoaffective Disorder (Depressive Type)",
        PSYCHOSIS,
        None,  # the options echoed back, no answer
    ),
    ("E", PSYCHOSIS, None),
    ("", PSYCHOSIS, None),
    ("   \n ", PSYCHOSIS, None),
    ("<think>The voices suggest C, but the mood", PSYCHOSIS, None),  # reasoning never ended
    (
        "I'm sorry, but I can't provide a diagnosis. Please consult a licensed mental health "
        "professional.",
        PSYCHOSIS,
        None,
    ),
    ("The presentation is complex and needs a full clinical assessment.", PSYCHOSIS, None),
]


@pytest.mark.parametrize(("output", "options", "expected"), STRICT_TABLE)
def test_strict_parser(output: str, options: tuple[str, ...], expected: str | None):
    parsed = parse_strict(output, options)
    assert letters(parsed) == expected, parsed.reason


# Issue 36 (the fourth probe round): a second option joined as a comorbidity, and an "or" that
# lists what a negation rules out, were missed. The finding's wording comes first in each group.
JOINED = [
    ("Answer: B; comorbid C", "BC"),
    ("Answer: A, co-occurring D", "AD"),
    ("Answer: D + coexisting B", "BD"),
    ("Answer: B (and C as a comorbidity)", "BC"),
    ("Answer: C (plus A as a co-occurring disorder)", "AC"),
    ("Answer: A (with comorbid C)", "AC"),
    ("Answer: B and C, not A or D", "BC"),
    ("Final answer: A and C — not B or D.", "AC"),
    ("Answer: C and D, neither A nor B", "CD"),
    ("Answer: B; C less likely", "B"),
    ("Answer: C (most likely)", "C"),
    ("Answer: B, comorbid C unlikely", "B"),
]
# Their near neighbours hold an option open, and stay unread.
NOT_JOINED = [
    "Answer: B (and possibly C)",
    "Answer: B (or C as a comorbidity)",
    "Answer: B; possibly comorbid C",
    "Answer: B; comorbid C?",
    "Answer: B (and C if the low mood persists)",
    "Answer: B and C, not A or maybe D",
    "Answer: B or C, not A",
    "Answer: B and probably C",
    "Answer: B, and likely C",
    # qualified on the answer's own line (the fourth probe round's last wrong credits)
    "Answer: B and C; A is also plausible",
    "Answer: B (MDD), probably",
    "Answer: B, with features of C",
    "Answer: B and most likely C",
    "Answer: D, perhaps",
]


@pytest.mark.parametrize(("output", "expected"), JOINED)
def test_an_option_joined_as_a_comorbidity_or_beside_a_negated_list_is_read(output, expected):
    assert letters(parse_strict(output, MOOD)) == expected


@pytest.mark.parametrize("output", NOT_JOINED)
def test_an_option_held_open_beside_the_answer_is_no_answer(output):
    parsed = parse_strict(output, MOOD)
    assert parsed.letters is None and parsed.status == "ambiguous", parsed


@pytest.mark.parametrize(
    ("output", "status"),
    [
        ("A or B", "ambiguous"),
        ("I cannot provide a diagnosis; please consult a qualified professional.", "refusal"),
        ("", "empty"),
        ("<think>only thinking", "empty"),
        ("E", "unparsed"),
        ("None of the above.", "none"),
        ("Answer: B", "answered"),
    ],
)
def test_strict_parser_says_why(output: str, status: str):
    assert parse_strict(output, PSYCHOSIS).status == status


def test_get_parser_names_the_choices():
    assert get_parser("strict") is parse_strict
    assert get_parser("reference") is parse_reference
    with pytest.raises(ValueError, match="parser: expected one of strict, reference, got 'loose'"):
        get_parser("loose")


# Issue 36, the fifth probe round: layouts read as the wrong option (the finding's wording first,
# then others written for this test), and the near neighbours that keep their reading.
FIFTH_ROUND = [
    # a verdict on each option in turn: the options said yes, not the first letter
    ("A: no. B: no. C: yes. D: no.", MOOD, "C"),
    ("A: No, B: No, C: Yes, D: No", MOOD, "C"),
    ("A: Yes. B: No. C: Yes. D: No.", PSYCHOSIS, "AC"),
    ("- A: unlikely\n- B: unlikely\n- C: most likely\n- D: unlikely", MOOD, "C"),
    ("A) false\nB) true\nC) false\nD) false", MOOD, "B"),
    ("A: no\nB: no\nC: no\nD: no", MOOD, None),
    ("A: yes\nB: no\nC: no\nA: no", MOOD, None),  # one option given two verdicts
    # an option kept in the differential: a hedge, not a second diagnosis
    ("Answer: C, with A as a differential", MOOD, None),
    ("Answer: C; A remains in the differential", MOOD, None),
    ("Answer: C, with A to be considered", MOOD, None),
    ("Answer: C, with A as a possibility", MOOD, None),
    ("Answer: C, A to be excluded", MOOD, None),
    ("Answer: C; r/o A", MOOD, None),
    ("Answer: C (consider A)", MOOD, None),
    ("Answer: B (low confidence)", MOOD, None),
    ("Primary: A. Differential: C.", MOOD, None),
    ("Primary diagnosis: B\nDifferential diagnosis: D", MOOD, None),
    # roles: primary and secondary (or comorbid) are both diagnoses
    ("Primary diagnosis: A\nSecondary diagnosis: C", PSYCHOSIS, "AC"),
    ("Answer: A (primary)\nComorbid: C", PSYCHOSIS, "AC"),
    ("Main diagnosis: B", MOOD, "B"),
    # a range of options, every option in it
    ("Answer: A-C", MOOD, "ABC"),
    ("Answer: A–C", MOOD, "ABC"),
    ("Answer: A to C", MOOD, "ABC"),
    ("Answer: B-D", MOOD, "BCD"),
    # an answer continued on the next line
    ("Answers: A\nC", PSYCHOSIS, "AC"),
    ("Answer: A\nand C", PSYCHOSIS, "AC"),
    ("Answer: B, with comorbid C", PSYCHOSIS, "BC"),
    # a revision written as a label: the revised answer
    ("Answer: B\n\nEdit: C", MOOD, "C"),
    ("Answer: D\nCorrection: B", MOOD, "B"),
    # neighbours that keep their reading
    ("Answer: C\nA is ruled out because there are no psychotic features.", MOOD, "C"),
    ("The answer is C, given the recurrent course and no psychosis.", MOOD, "C"),
    ("Answer: C (most likely)", MOOD, "C"),
    ("Answer: B or C", MOOD, None),
    ("C. Major Depressive Disorder", MOOD, "C"),
    ("Answer: B\nC is incorrect.", MOOD, "B"),
    ("Answer: A and C", PSYCHOSIS, "AC"),
    # a none that is qualified ("no option fits perfectly") is no answer of none
    ("None of the options is a perfect fit, but C is the best answer", MOOD, "C"),
    ("None fits perfectly; C is closest.", MOOD, "C"),
    ("None of the options is a perfect fit, though C comes closest.", MOOD, "C"),
    ("None of these fits perfectly. C is the closest match.", MOOD, "C"),
    ("None of the options is a perfect fit.", MOOD, None),
    ("None is a perfect fit, but C or D comes close.", MOOD, None),
    ("None of the above.", MOOD, ""),
    ("None of them apply.", MOOD, ""),
    # a conclusion after the other options are set aside
    ("Not A, not B, not D. So C.", MOOD, "C"),
    ("Not A. Not B. Not D. Therefore C.", MOOD, "C"),
    ("A and B are unlikely, so C.", MOOD, "C"),
    ("So, C or D.", MOOD, None),
    ("C comes to mind, but D fits better", MOOD, None),
]


@pytest.mark.parametrize(("output", "options", "expected"), FIFTH_ROUND)
def test_the_fifth_probe_rounds_layouts_are_read_as_a_reader_would(output, options, expected):
    assert letters(parse_strict(output, options)) == expected


ANXIETY = (
    "Panic Disorder",
    "Social Anxiety Disorder",
    "Major Depressive Disorder",
    "Generalized Anxiety Disorder",
)

SIXTH_ROUND = [
    # options set aside by a label or a sentence are no answer
    ("Least likely: B", MOOD, None),
    ("B is the least likely diagnosis.", MOOD, None),
    ("B would be the wrong answer.", MOOD, None),
    ("Most likely: C\nLeast likely: B", MOOD, "C"),
    ("Answer: Least likely option: D", MOOD, None),
    ("Answer: Worst fit: D", MOOD, None),
    ("Answer: D is the worst fit.", MOOD, None),
    ("Ruled out: A, B, D", MOOD, None),
    ("Excluded: A, B, D", MOOD, None),
    ("Differential: A, B, D", MOOD, None),
    # a conclusion after options are set aside in the answer's own line
    ("Answer: A and D don't fit, so C", MOOD, "C"),
    ("Answer: A, B, C and D are all ruled out. None.", MOOD, ""),
    # a rating scale is no option's name
    ("Answer: GAD-7 score elevated; diagnosis C", ANXIETY, "C"),
    ("C. The GAD-7 is 15.", ANXIETY, "C"),
    # a revision or an option kept open after the answer
    # (since the twenty-third round "it's A" is read, and "I was wrong" revises: A)
    ("Answer: C\n\nI was wrong. It's A.", MOOD, "A"),
    ("Answer: C. Then again, A.", MOOD, None),
    ("Answer: C\n\nI cannot exclude A.", MOOD, None),
    ("Answer: C\nA should still be considered.", MOOD, None),
    ("### Final Answer\nC\n\n### Differential\nA", MOOD, None),
    ("Answer: C\nRule out: Bipolar I (B)", MOOD, None),
    # none, then the option that comes closest
    ("Answer: None. C is the closest match though.", MOOD, "C"),
    ("None of the above. If forced, C.", MOOD, "C"),
    ("Answer: None of A-D; closest is C", MOOD, "C"),
    # options given probabilities are no set
    ("Answer: C (80%), A (20%)", MOOD, None),
    # near neighbours keep their reading
    ("Most likely: C", MOOD, "C"),
    ("C is the most likely", MOOD, "C"),
    ("Answer: C", MOOD, "C"),
    ("None of the above.", MOOD, ""),
    ("Primary: C\nDifferential: A", MOOD, None),
    ("C, with comorbid D", MOOD, "CD"),
    ("Answer: C (80% confident)", MOOD, "C"),
    ("A: no. B: no. C: yes. D: no.", MOOD, "C"),
]


@pytest.mark.parametrize(("output", "options", "expected"), SIXTH_ROUND)
def test_the_sixth_probe_rounds_set_asides_and_revisions_are_read_as_a_reader_would(
    output, options, expected
):
    assert letters(parse_strict(output, options)) == expected


# What the sixth round left: an option joined to the answer by a word or a later sentence, the
# last line of a list read alone, a ranked list read as a set, an option before "most likely".
SIXTH_ROUND_LEFT = [
    # a second option joined in the answer's own sentence: both
    ("Answer: C with D", MOOD, "CD"),
    ("C with D", MOOD, "CD"),
    ("Answer: C alongside D", MOOD, "CD"),
    ("Answer: C as well as D", MOOD, "CD"),
    ("Answer: C together with D", MOOD, "CD"),
    ("C and D co-occurring", MOOD, "CD"),
    ("C co-occurring with D", MOOD, "CD"),
    ("C, and also D", MOOD, "CD"),
    ("C (D is comorbid)", MOOD, "CD"),
    # ... or in a later sentence that says the option is present too
    ("C. The patient also meets criteria for D.", MOOD, "CD"),
    ("Answer: C. D is also present.", MOOD, "CD"),
    ("Answer: C. D also applies.", MOOD, "CD"),
    ("Answer: C. In addition, D.", MOOD, "CD"),
    # near neighbours: a specifier, traits or features, a question, a hedge, a denial, a remark
    # about patients in general: the answer alone or nothing, never the other option
    ("Answer: C with anxious distress", MOOD, "C"),
    ("Answer: C with D traits", MOOD, None),
    ("Answer: C with features of D", MOOD, None),
    ("Answer: C with D as a differential", MOOD, None),
    ("C (D is comorbid?)", MOOD, None),
    ("Answer: C. D may also be present.", MOOD, None),
    ("Answer: C. D is also possible.", MOOD, None),
    ("Answer: C. Symptoms of D are also present.", MOOD, "C"),
    ("Answer: C. No comorbid D.", MOOD, "C"),
    ("Answer: C. B and D are also ruled out.", MOOD, "C"),
    ("C. Also, D is unlikely.", MOOD, "C"),
    ("Answer: C. Patients with C also often show D.", MOOD, "C"),
    # a list that ends the reply: a set under a heading that does not rank it ...
    ("1. C\n2. A", MOOD, "AC"),
    ("Diagnoses that apply:\n1. C\n2. A", MOOD, "AC"),
    ("Diagnoses that apply:\n- C\n- D", MOOD, "CD"),
    # ... no answer under one that ranks it or keeps it open, or with a qualified item
    ("Differential (most to least likely):\n1. C\n2. A", MOOD, None),
    ("In order of likelihood:\n1. C\n2. A", MOOD, None),
    ("Possible diagnoses:\n- C\n- D", MOOD, None),
    ("Differential diagnoses:\n- C\n- D", MOOD, None),
    ("1. C (most likely)\n2. A", MOOD, None),
    # near neighbours: one option on the line closing prose, an option before "most likely"
    ("Having weighed the history:\n\nC", MOOD, "C"),
    ("C (most likely)", MOOD, "C"),
    ("Most likely diagnosis:\nC", MOOD, "C"),
    ("Other diagnoses: D\nAnswer: C", MOOD, "C"),
]


@pytest.mark.parametrize(("output", "options", "expected"), SIXTH_ROUND_LEFT)
def test_an_option_joined_to_the_answer_and_a_closing_list_are_read_whole(
    output, options, expected
):
    assert letters(parse_strict(output, options)) == expected


# The eighth round's layouts (tests/probes/answers_round8.jsonl) and their near neighbours.
EIGHTH_ROUND = [
    ("The best answer here is option A.", MOOD, "A"),
    ("I'll go with A. The history fits it.", MOOD, "A"),
    ("A would be my pick.", MOOD, "A"),
    ("Almost certainly A.", MOOD, "A"),
    ("Definitely C. Also D. Nothing else.", MOOD, "CD"),
    ("C it is.", MOOD, "C"),
    # a second choice left open after the answer, or an open secondary role: no answer
    ("Definitely C. The second one is either B or D.", MOOD, None),
    ("Definitely C. B or A may also apply - can't tell which.", MOOD, None),
    ("Primary: C. Secondary: unclear (D vs B).", MOOD, None),
    ("Answer: C\nComorbid: ?", MOOD, None),
    ("Definitely not C.", MOOD, None),
    ("It is certainly A or C.", MOOD, None),
    # near neighbours keep their reading
    ("Primary: C. Secondary: D.", MOOD, "CD"),
    ("Answer: D & C. A is less likely than either.", MOOD, "CD"),
]


@pytest.mark.parametrize(("output", "options", "expected"), EIGHTH_ROUND)
def test_the_eighth_rounds_layouts_are_read_and_open_choices_are_not(output, options, expected):
    assert letters(parse_strict(output, options)) == expected


TENTH_ROUND = [
    ("I'd pick A. Although... the checking might make it C. A or C.", MOOD, None),
    ("B and C for sure; A maybe.", MOOD, None),
    ("Not B alone. C, D.", MOOD, "CD"),
    ("A, B, and D all apply. C doesn't.", MOOD, "ABD"),
    ("A & B. Or C & B. Depends on timing.", MOOD, None),
    ("Selected options:\n1. A\n2. B\n\nC was considered but the checking is brief.", MOOD, "AB"),
    # near neighbours
    ("A, B and D.", MOOD, "ABD"),
    ("Answer: A. B or C would need a longer history, which is absent.", MOOD, "A"),
]


@pytest.mark.parametrize(("output", "options", "expected"), TENTH_ROUND)
def test_the_tenth_rounds_choices_left_open_and_lists_read_whole(output, options, expected):
    assert letters(parse_strict(output, options)) == expected


# The eleventh blind round (tests/probes): doubt kept beside the answer, wherever it is said
ELEVENTH_ROUND = [
    ("C (if the low mood started first), else A.", MOOD, None),
    ("D. If the spells were longer, B would be right instead.", MOOD, None),
    ("Answer: C\n\n(To be fair, A is every bit as likely.)", MOOD, None),
    ("Answer: C. D is equally plausible on this history.", MOOD, None),
    ("B & D (D possibly)", MOOD, None),
    ('{"answer": ["C"], "differential": ["A"]}', MOOD, None),
    ("Bipolar I (B), not MDD (C), given the admission; with ADHD (D). → B & D", MOOD, "BD"),
    # near neighbours that stay answers
    ("Answer: C. D is less likely: the spells are far too short.", MOOD, "C"),
    ("B & D (D: treat first)", MOOD, "BD"),
    ('{"answer": ["C"]}', MOOD, "C"),
    ("Answer: D -> B", MOOD, None),
]


@pytest.mark.parametrize(("output", "options", "expected"), ELEVENTH_ROUND)
def test_the_eleventh_rounds_doubt_beside_the_answer(output, options, expected):
    assert letters(parse_strict(output, options)) == expected


# The twelfth blind round: an answer withdrawn, sets joined in other languages, a JSON object
# with options set aside, another option offered as possible, a reply torn between two
TWELFTH_ROUND = [
    ("B, at first. Having thought again, I withdraw that answer: no answer.", MOOD, None),
    ("Answer: A et C (trouble dépressif caractérisé)", MOOD, "AC"),
    ("Antwort: B und D", MOOD, "BD"),
    (
        '{"diagnoses": [{"option": "D", "status": "primary"}], "excluded": [{"option": "A"}]}',
        MOOD,
        "D",
    ),
    ("B, with C perhaps too.", MOOD, None),
    ("B\n\nAnd possibly A?", MOOD, None),
    ("Answer: C. Honestly a toss-up with A.", MOOD, None),
    # near neighbours that stay answers
    ("She has withdrawn from her friends and sleeps badly; the answer is C.", MOOD, "C"),
    ("B, with C perhaps considered but ruled out.", MOOD, "B"),
    ('{"answer": "C", "reasoning": "no psychosis"}', MOOD, "C"),
]


@pytest.mark.parametrize(("output", "options", "expected"), TWELFTH_ROUND)
def test_the_twelfth_rounds_withdrawals_joins_and_json(output, options, expected):
    assert letters(parse_strict(output, options)) == expected


# The thirteenth blind round: a member of the set doubted, another option as good
THIRTEENTH_ROUND = [
    ("B & D. D might just be grief, though.", MOOD, None),
    ("B & C\n\nThough honestly A fits as well as C here.", MOOD, None),
    ("C. That said, A is at least as likely.", MOOD, None),
    # near neighbours that stay answers
    ("B & D. D is clearly more than grief.", MOOD, "BD"),
    ("C. She says she would be better off dead, which needs a safety plan.", MOOD, "C"),
]


@pytest.mark.parametrize(("output", "options", "expected"), THIRTEENTH_ROUND)
def test_the_thirteenth_rounds_doubt_on_a_member_or_another_option(output, options, expected):
    assert letters(parse_strict(output, options)) == expected


# The fourteenth blind round: doubt in idioms and understatement, probabilities as decimals,
# options said not to apply
FOURTEENTH_ROUND = [
    ("C, but I'd want to rule out A first.", MOOD, None),
    ("B (0.91), D (0.88); A (0.05), C (0.02)", MOOD, None),
    ("A & B do not apply.", MOOD, None),
    ("B and C, though I wouldn't bet the farm on C.", MOOD, None),
    ("Honestly it's six of one and half a dozen of the other: B or C.", MOOD, None),
    # near neighbours that stay answers
    ("C. I'd want to rule out a thyroid cause before treating.", MOOD, "C"),
    ("B and C; A does not apply.", MOOD, "BC"),
]


@pytest.mark.parametrize(("output", "options", "expected"), FOURTEENTH_ROUND)
def test_the_fourteenth_rounds_idioms_decimals_and_negated_sets(output, options, expected):
    assert letters(parse_strict(output, options)) == expected


# The twenty-third round (tests/probes): an exception to "all" or "none", a part of the set
# kept as likely alone, a count of options still to choose; and, read now, "best match",
# "it's B" and the Italian "e". Worded here, not copied from the round.
TWENTY_THIRD_ROUND = [
    ("Every option fits except B and D.", MOOD, "AC"),
    ("All of them apply apart from C.", MOOD, "ABD"),
    ("None except D.", MOOD, "D"),
    ("All of the above.", MOOD, "ABCD"),
    ("B & C, although B on its own is equally reasonable.", MOOD, None),
    ("B & C; B alone is not as reasonable.", MOOD, "BC"),
    ("Answer: one of the following: A, C", MOOD, None),
    ("Answer: two of these: A, B, D", MOOD, None),
    ("Answer: two of these: A and D", MOOD, "AD"),
    ("Reading the vignette, the best match is D.", MOOD, "D"),
    ("Not A - it's C.", MOOD, "C"),
    ("Risposta: B e D", MOOD, "BD"),
]


@pytest.mark.parametrize(("output", "options", "expected"), TWENTY_THIRD_ROUND)
def test_the_twenty_third_rounds_exceptions_parts_and_counts(output, options, expected):
    assert letters(parse_strict(output, options)) == expected


# The twenty-fifth round: a conclusion label after a bullet per option, and a bullet whose
# verdict is "neither applies".
TWENTY_FIFTH_ROUND = [
    (
        "- A would need a depressive episode. Neither applies.\n- B fits the timeline.\n"
        "- C would need mania; neither applies.\n- D needs hallucinations. Neither applies.\n\n"
        "Conclusion: B",
        MOOD,
        "B",
    ),
    ("Conclusion: C.", MOOD, "C"),
    ("Conclusion: A is likely, but D cannot be excluded.", MOOD, None),
]


@pytest.mark.parametrize(("output", "options", "expected"), TWENTY_FIFTH_ROUND)
def test_the_twenty_fifth_rounds_conclusion_and_options_that_do_not_apply(
    output, options, expected
):
    assert letters(parse_strict(output, options)) == expected


EATING = ("Anorexia Nervosa", "Obsessive-Compulsive Disorder", "Bulimia Nervosa", "Panic Disorder")
# The twenty-seventh round (tests/probes), and what its fixes showed beside it
TWENTY_SEVENTH_ROUND = [
    # options called distractors are set aside, not joined to the answer
    ("The answer is A & C; B and D are distractors.", MOOD, "AC"),
    ("A & C (B and D are red herrings)", MOOD, "AC"),
    # a set with a misspelt member is not read as its other member
    ("Anorexia nervosa and obsesive compulsive disoder", EATING, None),
    ("Anorexia nervosa and obsessive compulsive disorder", EATING, "AB"),
    ("A, since the mood disorder came first", MOOD, "A"),
    ("A, with anxious distress", MOOD, "A"),
    # the ideographic comma joins a set
    ("答案：B、C", MOOD, "BC"),
    ("Answer: B、C", MOOD, "BC"),
    # an answer statement that opens its own sentence on the line of another is read, so two
    # that disagree leave the reply open ("Answer: B. My answer is D" was read as B)
    ("Answer: B. My answer is D", MOOD, None),
    ("Answer: B. I would go with D.", MOOD, None),
    ("Answer: B. The best fit is D.", MOOD, None),
    ("Answer: B. The most likely diagnosis is B.", MOOD, "B"),
    ("Answer: B. Correction: D", MOOD, "D"),
    ("Answer: I would go with D", MOOD, "D"),
    ("Answer: I'd say B and C", MOOD, "BC"),
    # an answer left to a fact not known
    ("C, depending on how long the symptoms last", MOOD, None),
]


@pytest.mark.parametrize(("output", "options", "expected"), TWENTY_SEVENTH_ROUND)
def test_the_twenty_seventh_rounds_distractors_misspelt_members_and_second_statements(
    output, options, expected
):
    assert letters(parse_strict(output, options)) == expected


MIXED = (
    "Persistent Depressive Disorder", "Adjustment Disorder", "Generalized Anxiety Disorder",
    "Specific Phobia",
)  # fmt: skip
# The twenty-eighth round (tests/probes)
TWENTY_EIGHTH_ROUND = [
    # a refusal that echoes the options in order, on one line, picks none
    (
        "I am sorry, but as an AI language model I can not choose options. A. Persistent "
        "Depressive Disorder B. Adjustment Disorder C. Generalized Anxiety Disorder D. Specific "
        "Phobia",
        MIXED,
        None,
    ),
    # fewer options by letter and name one after another are a set
    ("Answer: A. Persistent Depressive Disorder B. Adjustment Disorder", MIXED, "AB"),
    # "A&P:" heads a clinical note's assessment and plan: no option A
    (
        "A&P:\n- GAD (C): 9 mo, multiple domains.\n- Specific phobia, blood type (D): faints.\n"
        "No adjustment dx (B): sx predate job change. PDD (A) not met.",
        MIXED,
        None,
    ),
]


@pytest.mark.parametrize(("output", "options", "expected"), TWENTY_EIGHTH_ROUND)
def test_the_twenty_eighth_rounds_echoed_options_pairs_and_note_headings(output, options, expected):
    assert letters(parse_strict(output, options)) == expected


def test_a_code_typed_with_a_small_l_for_one_is_read_as_the_code():
    from selfdx.datasets.icd10 import extract_codes

    assert extract_codes("Generalised anxiety disorder (F41.l)") == ["F41.1"]
    assert extract_codes("F32.A (ICD-10-CM)") == ["F32.A"]


BINGE = (
    "Binge-Eating Disorder", "Major Depressive Disorder", "Bulimia Nervosa",
    "Persistent Depressive Disorder",
)  # fmt: skip
# The twenty-ninth round (tests/probes)
TWENTY_NINTH_ROUND = [
    # the prompt's instruction copied back is no answer
    ("Choose exactly one option from A, B, C, D.", BINGE, None),
    ("Select every option that applies, from A, B, C, D.", BINGE, None),
    ("Choose exactly one option from A, B, C, D.\n\nB", BINGE, "B"),
    # an option joined to the answer past a negation, or a closing set that differs
    (
        "Binge-eating disorder, not bulimia (there is no purging), with comorbid major "
        "depression: A & B.",
        BINGE,
        None,
    ),
    ("A, not C, and B.", BINGE, None),
    ("A & B, not C.", BINGE, "AB"),
    # a member doubted as part of another
    (
        "B & D — though D might be better seen as a feature of B than as a separate disorder.",
        BINGE,
        None,
    ),  # fmt: skip
    ("A & D\n\nHonestly, D may not be a separate disorder.", BINGE, None),
]


@pytest.mark.parametrize(("output", "options", "expected"), TWENTY_NINTH_ROUND)
def test_the_twenty_ninth_rounds_echoed_instruction_negation_scope_and_doubted_members(
    output, options, expected
):
    assert letters(parse_strict(output, options)) == expected


# The thirtieth round (tests/probes): long replies of reasoning models and chatty assistants
THIRTIETH_ROUND = [
    # an answer statement inside a condition left open; a forced choice is an answer
    ("If the low mood has lasted two years, the answer is B. If it began recently, it's A.",
     BINGE, None),
    ("If the low mood has lasted two years, the answer is B.", BINGE, None),
    ("If I had to pick, the answer is B.", BINGE, "B"),
    # a choice left between two options
    ("So A and either B or D — I can't tell which.", BINGE, None),
    # a member the reply doubts after the answer
    ("Answer: A & B\n\nThe rituals may be part of the eating disorder, in which case B may not "
     "be warranted at all.", BINGE, None),
    # options weighed with approximate probabilities, and the set those weights decide
    ("- A. x: ~80%\n- B. y: ~55%\n- C. z: ~5%\n- D. w: ~40%", BINGE, None),
    ("A (90%), B (85%), C (10%), D (5%) → A & B", BINGE, "AB"),
    # a walk through the options cut off before any choice
    ("Let me consider each option.\n\nA. One — she has it.\n\nB. Two — maybe.\n\nC. Three — "
     "her mood is described as", BINGE, None),
    # boxed options joined into one set
    ("Both apply.\n\n$$\\boxed{A} \\text{ and } \\boxed{D}$$", BINGE, "AD"),
    # an answer label in another language: read when it gives letters plainly and no word of
    # doubt of those languages follows
    ("Respuesta: A y B.", BINGE, "AB"),
    ("Réponse : C et D.", BINGE, "CD"),
    ("答案：A 和 B。", BINGE, "AB"),
    ("Réponse : C, et peut-être B ou D ; difficile de trancher.", BINGE, None),
    ("Antwort: C. Vielleicht auch B.", BINGE, None),
    ("AとBの可能性が高いですが、Cも否定できません。", BINGE, None),
]  # fmt: skip


@pytest.mark.parametrize(("output", "options", "expected"), THIRTIETH_ROUND)
def test_the_thirtieth_rounds_conditions_open_choices_weights_and_labels(output, options, expected):
    assert letters(parse_strict(output, options)) == expected


# The thirty-first round (tests/probes): replies of deployed models behind wrappers and templates
THIRTY_FIRST_ROUND = [
    # options marked before their letter, or one after another on a line
    ("✔ A. Binge-Eating Disorder\n✘ B. Major Depressive Disorder\n✔ C. Bulimia Nervosa\n"
     "✘ D. Persistent Depressive Disorder", BINGE, "AC"),
    ("A ✓ B ✗ C ✓ D ✗", BINGE, "AC"),
    # a label that sets options aside is no answer statement
    ("Applicable options: A, B\nNon-applicable: C, D", BINGE, "AB"),
    ("Non-applicable: C, D", BINGE, None),
    # one line closed by a tick
    ("A & C ✓", BINGE, "AC"),
    ("**B. Major Depressive Disorder** ✅", BINGE, "B"),
    ("A or B ✓", BINGE, None),
    # "could equally be" keeps another open
    ("B. It could equally be D, though.", BINGE, None),
]  # fmt: skip


@pytest.mark.parametrize(("output", "options", "expected"), THIRTY_FIRST_ROUND)
def test_the_thirty_first_rounds_marks_set_aside_labels_and_ticks(output, options, expected):
    assert letters(parse_strict(output, options)) == expected


# The thirty-third round (tests/probes): subtle credits a careless reader would give
THIRTY_THIRD_ROUND = [
    # another option said to be about as likely, or to fit better, after the answer
    ("Answer: C\n\nTo be fair, B is roughly as likely.", BINGE, None),
    ("Answer: C\n\nA might suit her better, though, given the vomiting.", BINGE, None),
    ("Answer: C. It's B instead if the bingeing is weekly.", BINGE, None),
    ("Answer: C rather than B; choosing C instead of B.", BINGE, "C"),
    # a member held back from the set by its label
    ("Confirmed: B. Pending: D.", BINGE, None),
    ("Answer: A\nStill to be confirmed: C", BINGE, None),
    ("Primary: A. Confirmed: A.", BINGE, "A"),
    # a table row left open, against a degree of fit beside a decision
    ("| Option | Present? |\n|---|---|\n| A | yes |\n| B | maybe |\n| C | yes |\n| D | no |",
     BINGE, None),
    ("| Option | Present? |\n|---|---|\n| A | yes |\n| B | no |\n| C | yes |\n| D | no |",
     BINGE, "AC"),
    ("| Option | Fit |\n|---|---|\n| A | Partial: no binges |\n| B | ✅ Best fit |\n| C | No |"
     "\n| D | No |\n\n**B**", BINGE, "B"),
]  # fmt: skip


@pytest.mark.parametrize(("output", "options", "expected"), THIRTY_THIRD_ROUND)
def test_the_thirty_third_rounds_likelihoods_held_members_and_open_rows(output, options, expected):
    assert letters(parse_strict(output, options)) == expected


# The thirty-fourth round (tests/probes): ordinary house styles and hard cases of the writer's own
THIRTY_FOURTH_ROUND = [
    # "too" after a letter keeps it an option
    ("Answer: B and D too", BINGE, "BD"),
    ("Final answer: A, C too.", BINGE, "AC"),
    # options set equal, or a tie said, are a choice
    ("Answer: A = D", BINGE, None),
    ("Answer: B ≈ C", BINGE, None),
    ("Answer: B. Honestly it's a tie with C.", BINGE, None),
    ("Answer: B\n\nThe bingeing is tied to her low moods.", BINGE, "B"),
    # a smaller set offered after the answer
    ("Answer: A, B and D\n\nor just A and D", BINGE, None),
]  # fmt: skip


@pytest.mark.parametrize(("output", "options", "expected"), THIRTY_FOURTH_ROUND)
def test_the_thirty_fourth_rounds_joiners_ties_and_smaller_sets(output, options, expected):
    assert letters(parse_strict(output, options)) == expected


# The thirty-fifth round (tests/probes), written as an adversarial user would
THIRTY_FIFTH_ROUND = [
    # a member of the set marked, then called a maybe in its footnote
    ("B, D*\n\n*D is a maybe for now.", BINGE, None),
    ("A & C†\n\n† C is more of a maybe until we have the dates.", BINGE, None),
    # another option said to fit equally well
    ("Answer: C. A fits equally well, to be honest.", BINGE, None),
]  # fmt: skip


@pytest.mark.parametrize(("output", "options", "expected"), THIRTY_FIFTH_ROUND)
def test_the_thirty_fifth_rounds_footnoted_members_and_equal_fits(output, options, expected):
    assert letters(parse_strict(output, options)) == expected
