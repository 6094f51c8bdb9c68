"""Case generation pieces: diagnosis-name detection, the grader parser, prompts, task arguments
and the offline case writer."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import list_tasks
from inspect_ai.model import ChatMessageSystem, ChatMessageUser

from selfdx.datasets.mentalkg.diagnosis_names import find_diagnosis_names
from selfdx.datasets.mentalkg.profiles import sample_profiles
from selfdx.datasets.mentalkg.reader import load_kg
from selfdx.inspect_tasks.mentalbench_generate import mentalbench_generate
from selfdx.judge.grader_calls import GraderParseError
from selfdx.providers.case_writer import case_writer
from selfdx.scorers.mentalbench.generate_scorer import length_bounds
from selfdx.scorers.rubrics.case_grader import grader_prompt, parse_verdict
from selfdx.solvers.mentalbench.generate_prompts import (
    render_profile,
    style_for,
    system_prompt,
    user_prompt,
)

REPO = Path(__file__).resolve().parents[1]
KG = REPO.parent / "shared/mentalbench/resources/knowledge_graph/EN"
needs_kg = pytest.mark.skipif(not KG.is_dir(), reason=f"MentalKG is not at {KG}")


# ------------------------------------------------------------------ diagnosis names


@pytest.mark.parametrize(
    ("text", "found", "codes"),
    [
        ("Her GP wondered about PTSD after the crash.", ["PTSD"], {"D018"}),
        ("He was told it was post-traumatic stress disorder.", ["post-traumatic stress"], {"D018"}),
        ("She reads in bed and cannot add up bills.", [], set()),
        ("I am not BED, I just eat at night.", ["BED"], {"D023"}),
        ("Reduced appetite (anorexia) and weight loss of 4 kg.", [], set()),
        ("Someone called me anorexic once.", ["anorexic"], {"D021"}),
        ("Obsessive thoughts about germs; he is depressed and feels manic at times.", [], set()),
        ("Generalised Anxiety Disorder was ruled out.", ["Generalised Anxiety Disorder"], {"D011"}),
        ("My sister has bipolar, and I fear I do too.", ["bipolar"], {"D008", "D009", "D010"}),
        ("a phobia of lifts", ["phobia"], {"D012"}),
        ("I wonder if it's ADHD or just stress.", ["ADHD"], {"D001", "D002", "D003"}),
    ],
)
def test_diagnosis_names(text, found, codes):
    mentions = find_diagnosis_names(text)
    assert [m.text for m in mentions] == found
    assert {code for m in mentions for code in m.codes} == codes


def test_overlapping_names_are_one_mention():
    [mention] = find_diagnosis_names("Generalised Anxiety Disorder")  # two phrases overlap
    assert (mention.text, mention.codes) == ("Generalised Anxiety Disorder", ("D011",))
    first, second = find_diagnosis_names("no major depressive disorder with psychotic features")
    assert (first.text, first.codes) == ("major depressive disorder", ("D013", "D015"))
    assert (second.text, second.codes) == ("with psychotic features", ("D010", "D015"))


# ----------------------------------------------------------------------- grader parser


def test_grader_verdicts():
    verdict = parse_verdict("COHERENT: YES\nDISCRIMINATES: no\nREASON: The timeline is unclear.")
    assert (verdict.coherent, verdict.discriminates) == (True, False)
    assert verdict.reason == "The timeline is unclear."
    assert parse_verdict("\nREASON: fine\nDISCRIMINATES: Yes.\nCOHERENT: no\n").coherent is False


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Sure! COHERENT: YES\nDISCRIMINATES: YES\nREASON: ok", "unexpected line"),
        ("COHERENT: YES\nDISCRIMINATES: YES", "REASON is missing"),
        ("COHERENT: YES\nCOHERENT: NO\nDISCRIMINATES: YES\nREASON: x", "COHERENT is given twice"),
        ("COHERENT: YES/NO\nDISCRIMINATES: YES\nREASON: x", "not YES or NO"),
        ("COHERENT: yes, mostly\nDISCRIMINATES: YES\nREASON: x", "not YES or NO"),
        ("**COHERENT:** YES\nDISCRIMINATES: YES\nREASON: x", "unexpected line"),
        ("COHERENT: YES\nDISCRIMINATES: YES\nREASON:", "REASON is empty"),
        ("", "COHERENT is missing"),
    ],
)
def test_grader_parse_failures(text, message):
    with pytest.raises(GraderParseError, match=message):
        parse_verdict(text)


# ---------------------------------------------------------------------- prompts


@pytest.fixture(scope="module")
def kg():
    return load_kg(KG)


@pytest.fixture(scope="module")
def cases(kg):
    return {p.variant: p for p in sample_profiles(kg, ["1", "2", "3", "4a", "4b"], 1, seed=2)}


@needs_kg
def test_prompts_carry_the_profile(cases):
    one = cases["1"]
    assert style_for(None, "1") == "chart" and style_for(None, "4b") == "self-report"
    assert style_for("self_report", "1") == "self-report"
    chart = system_prompt("chart", 150, 200)
    assert "Third person" in chart and "about 150-200 words" in chart
    text = user_prompt(one)
    for symptom in one.symptoms:
        assert symptom.expression in text
    assert f"Age: {one.persona.age}" in text and one.disorder_name in text
    if one.criteria.duration:
        assert f"Duration of illness: {one.criteria.duration}" in text
    ambiguous = user_prompt(cases["3"])
    pair = cases["3"].pair
    assert "undecided" in ambiguous
    assert f"Rule for condition A: {pair.rule_main}" in ambiguous
    assert f"Rule for condition B: {pair.rule_sub}" in ambiguous
    clear = render_profile(cases["4b"])
    assert f"Rule for the target: {pair.rule_sub}" in clear
    assert f"Rule for the alternative: {pair.rule_main}" in clear
    assert "Duration of illness" not in clear  # criteria are removed for Types 3-4


@needs_kg
def test_grader_prompt_states_the_intent(cases):
    prompt = grader_prompt(cases["4a"], "I feel odd.", "self-report")
    names = {o.code: o.name for o in cases["4a"].options}
    pair = cases["4a"].pair
    assert f"{names[pair.main]} is clearly preferred over {names[pair.sub]}" in prompt
    assert pair.rule_main in prompt and "I feel odd." in prompt
    assert prompt.rstrip().endswith("REASON: one short sentence")


# -------------------------------------------------------------------- task arguments


@needs_kg
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "kg: pass -T kg=PATH"),
        ({"kg": str(KG), "style": "poem"}, "style: expected one of chart, self-report, got 'poem'"),
        ({"kg": str(KG), "grade": "maybe"}, "grade: expected auto, true or false"),
        ({"kg": str(KG), "n": 0}, "n: expected a whole number >= 1, got 0"),
        ({"kg": str(KG), "types": 6}, "types: '6'"),
        ({"kg": str(KG), "variants_per_seed": 9}, "variants_per_seed: expected 1 to 5"),
        ({"kg": str(KG), "min_words": 250}, r"min_words \(250\) is larger than max_words"),
        ({"kg": str(KG), "disorders": "D099"}, "disorders: 'D099' is neither"),
        ({"kg": str(KG), "seed": "1"}, "seed: expected an integer"),
        ({"kg": str(REPO)}, "no MentalKG there"),
    ],
)
def test_bad_task_arguments(arguments, message):
    with pytest.raises(ValueError, match=message):
        mentalbench_generate(**arguments)


def test_length_bounds():
    assert length_bounds(150, 200, 0.15) == (127, 230)
    assert length_bounds(100, 100, 0.0) == (100, 100)


@needs_kg
def test_task_samples(kg):
    task = mentalbench_generate(kg=str(KG), types="2,4", n=3, seed=5)
    ids = [sample.id for sample in task.dataset]
    assert len(ids) == 9 and ids[0].startswith("t2-") and ids[-1].startswith("t4b-")
    sample = task.dataset[0]
    assert sample.metadata["profile"]["variant"] == "2"
    assert sample.target == list(sample_profiles(kg, ["2"], 1, seed=5)[0].answer_letters)


def test_the_folder_scan_leaves_the_generation_task_out():
    """`inspect eval selfdx` runs the decorated tasks of the package folder; generation is
    reachable as selfdx/mentalbench_generate only."""
    names = {info.name for info in list_tasks("selfdx", root_dir=REPO)}
    assert "mentalbench" in names and "mentalbench_generate" not in names


# ------------------------------------------------------------------- offline writer


@needs_kg
def test_case_writer_writes_every_profile_within_bounds(kg):
    profiles = sample_profiles(kg, ["1", "2"], 23 * 5, seed=9)
    profiles += sample_profiles(kg, ["3", "4a", "4b"], 87, seed=9)
    low, high = length_bounds(150, 200, 0.15)
    for profile in profiles:
        style = style_for(None, profile.variant)
        messages = [
            ChatMessageSystem(content=system_prompt(style, 150, 200)),
            ChatMessageUser(content=user_prompt(profile)),
        ]
        text = case_writer(messages, {})
        assert low <= len(text.split()) <= high, profile.sample_id
        assert find_diagnosis_names(text) == [], profile.sample_id
        opening = (
            f"A {profile.persona.age}-year-old"
            if style == "chart"
            else f"I'm {profile.persona.age}"
        )
        assert text.startswith(opening)


def test_case_writer_needs_a_profile():
    with pytest.raises(ValueError, match="no profile block"):
        case_writer(
            [ChatMessageSystem(content="Third person."), ChatMessageUser(content="hello")], {}
        )
