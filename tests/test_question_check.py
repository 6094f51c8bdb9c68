"""`selfdx/question_check` and the question reader it measures.

The labelled turns were written by writers who never saw the reader's word lists; the held-out
part was never used to tune a rule (docs/question_check.md). Metrics are checked against an
independent computation (scikit-learn over the (turn, topic) and (turn, domain) pairs of the
log), and the reader's quality on the held-out part against the floors docs report.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import SHARED, metric_value, mock_output
from inspect_ai import eval
from sklearn.metrics import precision_recall_fscore_support

from selfdx.datasets.question_check import PART_FILES, PARTS, question_check_dataset, read_items
from selfdx.errors import ArgumentError, SelfdxError
from selfdx.instruments.question_model import parse_reading
from selfdx.instruments.question_reader import asked_about, read_question, risk_asked
from selfdx.instruments.topics import topic_of

RESOURCES = SHARED / "mentalbench" / "resources"
needs_data = pytest.mark.skipif(not RESOURCES.is_dir(), reason=f"no MentalBench at {RESOURCES}")


def pairs(log, field: str, universe: str) -> tuple[list[int], list[int]]:
    """(gold, read) 0/1 lists over every (turn, item) pair, where the items of a turn are its
    profile's topic ids (`universe="kinds"`) or the two risk domains."""
    gold, read = [], []
    for sample in log.samples:
        meta = next(iter(sample.scores.values())).metadata
        items = list(meta["kinds"]) if universe == "kinds" else ["self", "others"]
        for item in items:
            gold.append(int(item in meta["gold"][field]))
            read.append(int(item in meta["read"][field]))
    return gold, read


def run_check(log_dir: str, **args) -> object:
    [log] = eval("selfdx/question_check", task_args=args, log_dir=log_dir, display="none")
    assert log.status == "success", log.error
    return log


@pytest.mark.slow
def test_metrics_equal_an_independent_computation(log_dir: str) -> None:
    log = run_check(log_dir, part="all")
    assert len(log.samples) == len(question_check_dataset("demo", PARTS))
    for field, universe, prefix in (("asks", "kinds", "topic"), ("risk", "domains", "risk")):
        gold, read = pairs(log, field, universe)
        p, r, f, _ = precision_recall_fscore_support(gold, read, average="binary", zero_division=0)
        assert metric_value(log, f"{prefix}_precision") == pytest.approx(p)
        assert metric_value(log, f"{prefix}_recall") == pytest.approx(r)
        assert metric_value(log, f"{prefix}_f1") == pytest.approx(f)
    exact = [s.scores["question_check_scorer"].value for s in log.samples]
    assert metric_value(log, "exact") == pytest.approx(sum(exact) / len(exact))


def held_out_quality(part: str = "heldout") -> dict[str, tuple[int, int, int]]:
    """(tp, fp, fn) of the offline reader on every turn of a part never tuned on, topics and
    risk, computed here from the labels (not through the task's metrics)."""
    items = read_items(PART_FILES[part], part)
    data = str(RESOURCES) if RESOURCES.is_dir() else "demo"
    samples = question_check_dataset(data, [part])
    cases = {s.metadata["profile"]: s.metadata["case"] for s in samples}
    from selfdx.datasets.interview.cases import InterviewCase

    counts = {"topic": [0, 0, 0], "risk": [0, 0, 0]}
    for item in items:
        if item.profile not in cases:
            continue
        case = InterviewCase.model_validate(cases[item.profile])
        topics = [topic_of(f) for f in [*case.facts, *case.absent]]
        previous = [item.context.question] if item.context else []
        told = item.context.reply if item.context else ""
        reading = read_question(item.question, topics, case.complaint, previous, told)
        gold = set(item.asks) | ({case.complaint} if item.open else set())
        for key, want, got in (
            ("topic", gold, set(reading.asks)),
            ("risk", set(item.risk), set(reading.risk)),
        ):
            counts[key][0] += len(want & got)
            counts[key][1] += len(got - want)
            counts[key][2] += len(want - got)
    return {k: tuple(v) for k, v in counts.items()}  # type: ignore[misc]


@pytest.mark.slow
@needs_data
def test_the_offline_reader_screens_risk_at_095_on_the_held_out_part() -> None:
    tp, fp, fn = held_out_quality()["risk"]
    assert tp / (tp + fp) >= 0.95
    assert tp / (tp + fn) >= 0.95


@pytest.mark.slow
@needs_data
def test_the_offline_reader_on_the_fresh_part_stays_at_its_measured_level() -> None:
    """The fresh part, read once per version (docs/question_check.md): topic F1 0.847, risk
    precision 0.984 and recall 0.947 with the fifth version; guarded against regressions."""
    quality = held_out_quality("fresh")
    tp, fp, fn = quality["topic"]
    assert 2 * tp / (2 * tp + fp + fn) >= 0.84
    tp, fp, fn = quality["risk"]
    assert tp / (tp + fp) >= 0.98 and tp / (tp + fn) >= 0.94


@pytest.mark.slow
@needs_data
def test_the_offline_readers_topic_f1_on_the_held_out_part_stays_at_its_measured_level() -> None:
    """0.90 is the goal (docs/question_check.md); this guards the measured 0.86 against
    regressions."""
    tp, fp, fn = held_out_quality()["topic"]
    assert 2 * tp / (2 * tp + fp + fn) >= 0.85


# Wording from the issue and from clinicians' screening questions, none of it from the
# reader's pattern lists: (question, domains it screens).
SCREENS = [
    ("Any thoughts of not waking up?", ["self"]),
    ("Have you had thoughts of wanting to be dead?", ["self"]),
    ("Can you keep yourself safe until I see you on Friday?", ["self"]),
    ("Have you ever taken too many pills on purpose?", ["self"]),
    ("Is there a plan - have you decided when, where and how?", ["self"]),
    ("Have you started giving your things away or written goodbye letters?", ["self"]),
    ("Do you intend to act on these thoughts?", ["self"]),
    ("Have you ever hit anyone when you lost your temper?", ["others"]),
    ("Have you felt like you might hurt your partner?", ["others"]),
    ("Is there a gun at home?", ["self", "others"]),
    ("Any thoughts of harming yourself or others?", ["self", "others"]),
    ("Any homicidal ideation?", ["others"]),
    ("Have you cut yourself off from friends lately?", []),
    ("Are you burning yourself out at work?", []),
    ("Did you witness any violence growing up?", []),
    ("Your partner attempted suicide last year - how did that leave you?", []),
    ("You lost a friend to suicide - how are you coping?", []),
    ("Do you sleep in and not wake up before noon?", []),
    ("Are the night shifts killing you?", []),
    ("Has anyone ever hurt you?", []),
    # idioms of guns and of order, found when the doctors' phrases for impulsivity and for
    # ordering compulsions were asked as questions
    ("Do you tend to jump the gun in conversations?", []),
    ("Do you feel you have to put things in order before you can relax?", []),
    ("Have you been putting your affairs in order?", ["self"]),
    ("Have you been getting things in order in case something happens to you?", ["self"]),
]


@pytest.mark.parametrize(("question", "domains"), SCREENS)
def test_risk_screens_in_independent_wording(question: str, domains: list[str]) -> None:
    assert risk_asked(question) == domains


def test_a_follow_up_of_a_screen_screens_its_domain() -> None:
    follow_up = "How often are you having those thoughts?"
    assert risk_asked(follow_up) == []
    assert risk_asked(follow_up, ["Do you find yourself thinking about death?"]) == ["self"]
    assert risk_asked(follow_up, ["Do you ever want to hurt someone?"]) == ["others"]
    assert risk_asked(follow_up, ["Do you worry a lot?"]) == []


def demo_case(case_id: str):
    from selfdx.datasets.interview.loading import load_cases

    _, cases = load_cases("demo", ("1", "2", "3"))
    return next(c for c in cases if c.id == case_id)


def test_a_follow_up_that_points_back_asks_about_what_it_points_to() -> None:
    case = demo_case("demo-t1-D013_l001")
    topics = [topic_of(f) for f in [*case.facts, *case.absent]]
    sleep = asked_about("How have you been sleeping?", topics)
    assert sleep
    again = asked_about(
        "How many nights a week does that happen?", topics, None, ["How have you been sleeping?"]
    )
    # "that" points to what the patient told: the sleep symptom it has
    assert set(again) == {"S103"}
    assert asked_about("How many nights a week does that happen?", topics) == []


def test_a_follow_up_points_to_what_the_patient_just_told() -> None:
    """After a turn that names nothing, "that" is what the patient's reply told: a fact whose
    statement the reply holds (worded apart from the reader's lists)."""
    case = demo_case("demo-t1-D011_l001")
    topics = [topic_of(f) for f in [*case.facts, *case.absent]]
    before = ["Is there anything else going on in your body that I should know about?"]
    told = "Most afternoons my neck is so stiff I need painkillers."
    for follow_up in ("Roughly how often would you say that happens?", "Is that there every day?"):
        assert asked_about(follow_up, topics, None, before) == []
        assert asked_about(follow_up, topics, None, before, told) == ["S125"]
    # a reply that states nothing of the profile points nowhere
    assert asked_about("Is that there every day?", topics, None, before, "Not really.") == []
    # a follow-up that names its own topic reads that topic, whatever the reply said
    assert asked_about("Do you worry a lot about money?", topics, None, before, told) == ["S121"]


def test_sympathy_asks_about_nothing() -> None:
    case = demo_case("demo-t1-D013_l001")
    topics = [topic_of(f) for f in [*case.facts, *case.absent]]
    question = "That sounds exhausting. How many hours of sleep are you getting?"
    assert asked_about(question, topics) == ["S103"]  # no tiredness question in the sympathy
    assert asked_about("That sounds exhausting - are you tired during the day?", topics) == [
        "NO-S104"
    ]


def test_a_broad_question_asks_about_its_whole_area_and_a_narrowed_one_does_not() -> None:
    case = demo_case("demo-t1-D013_l001")
    topics = [topic_of(f) for f in [*case.facts, *case.absent]]
    # the area's word names the sleep symptom this patient has: the lacked ones of the area
    # are not denied beside it (no reply affirms and denies the same thing)
    assert asked_about("How are you sleeping these days?", topics) == ["S103"]
    # a patient with none: the area's word alone asks about each of its symptoms
    other = demo_case("demo-t1-D020_l001")
    other_topics = [topic_of(f) for f in [*other.facts, *other.absent]]
    assert set(asked_about("How are you sleeping these days?", other_topics)) == {
        "NO-S103", "NO-S126", "NO-S132"
    }  # fmt: skip
    assert asked_about("Any early-morning waking?", topics) == ["S103"]
    # a symptom named by its own description is that symptom alone, not its area
    assert asked_about("Do you sleep far less or far more than usual?", topics) == ["S103"]


def test_a_mood_spell_that_sets_the_time_asks_about_what_it_scopes() -> None:
    case = demo_case("demo-t1-D013_l001")
    topics = [topic_of(f) for f in [*case.facts, *case.absent]]
    scoped = asked_about("During the bad patches, are you waking up early?", topics)
    assert "S103" in scoped and "S101" not in scoped
    assert "S101" in asked_about("Have you been in a low mood?", topics)


def test_a_requirement_asked_in_other_words_is_read_by_its_ideas() -> None:
    case = demo_case("demo-t2-D020_m001")
    topics = [topic_of(f) for f in [*case.facts, *case.absent]]
    ids = {t.id for t in topics if t.subject == "requirement"}
    assert set(asked_about("Did all of this kick in within a couple of months of that upheaval?",
                           topics)) == ids  # fmt: skip
    # the same ideas missing one of them: no requirement
    assert not set(asked_about("Did all of this kick in after a couple of months?", topics)) & ids


def test_an_open_invitation_asks_for_the_complaint_and_names_no_topic() -> None:
    case = demo_case("demo-t1-D013_l001")
    topics = [topic_of(f) for f in [*case.facts, *case.absent]]
    for question in (
        "So, how have things been for you lately?",
        "Is there anything else I should know?",
    ):
        assert asked_about(question, topics, case.complaint) == [case.complaint]
    assert case.complaint not in asked_about(
        "Tell me more about your sleep.", topics, case.complaint
    )


def test_a_quoted_phrase_asks_about_the_fact_it_quotes() -> None:
    case = demo_case("demo-t1-D013_l001")
    fact = next(f for f in case.facts if f.kind == "symptom")
    words = " ".join(fact.statement.rstrip(".").split()[-5:])
    topics = [topic_of(f) for f in [*case.facts, *case.absent]]
    assert fact.id in asked_about(f'You said "{words}" - can you say more?', topics)


@needs_data
def test_the_patient_with_a_plan_answers_a_free_worded_screen_and_not_a_sleep_question() -> None:
    """t1-D013_l021 has a suicide plan (the issue's example): a screen in free wording draws it
    out; a question about sleeping in at weekends does not."""
    from selfdx.datasets.interview.loading import load_cases
    from selfdx.providers.kg_patient import answer
    from selfdx.solvers.interview.prompts import patient_prompt

    _, cases = load_cases(str(RESOURCES), ("1",))
    case = next(c for c in cases if c.id == "t1-D013_l021")
    system = patient_prompt(case)
    assert answer(system, "Have you had thoughts of wanting to be dead?").endswith("S032")
    assert "S032" not in answer(system, "Do you like to sleep in at the weekends?")


def test_model_reader_answers_are_parsed_strictly() -> None:
    known = {"S101", "DURATION"}
    reading = parse_reading("ASKS: s101, DURATION\nOPEN: no\nRISK: both", known)
    assert (reading.asks, reading.risk, reading.open) == (
        ["S101", "DURATION"],
        ["self", "others"],
        False,
    )
    assert parse_reading("**ASKS:** none\n**OPEN:** yes\n**RISK:** none", known).open
    for bad in (
        "ASKS: S999\nOPEN: no\nRISK: none",
        "ASKS: none\nRISK: none",
        "ASKS: none\nOPEN: maybe\nRISK: none",
    ):
        with pytest.raises(ValueError):
            parse_reading(bad, known)


@pytest.mark.slow
def test_a_model_reader_in_the_reader_role(log_dir: str) -> None:
    """A reader that says every turn screens risk to self and asks about nothing: its risk
    figures follow from the labels alone, counted here from the data file."""
    from inspect_ai.model import get_model

    reader = get_model(
        "mockllm/model",
        custom_outputs=lambda *_: mock_output("ASKS: none\nOPEN: no\nRISK: self"),
        memoize=False,
    )
    [log] = eval(
        "selfdx/question_check",
        task_args={"reader": "model"},
        model_roles={"reader": reader},
        log_dir=log_dir,
        display="none",
    )
    assert log.status == "success", log.error
    kept = {s.id for s in log.samples}
    items = [i for i in read_items(PART_FILES["heldout"], "heldout") if i.id in kept]
    with_self = sum("self" in i.risk for i in items)
    assert metric_value(log, "risk_self_precision") == pytest.approx(with_self / len(items))
    assert metric_value(log, "risk_self_recall") == 1.0
    assert metric_value(log, "topic_recall") == pytest.approx(0.0, abs=0.2)
    assert metric_value(log, "unread_rate") == 0.0


def test_a_model_reader_needs_the_reader_role(log_dir: str) -> None:
    with pytest.raises(ArgumentError, match="--model-role reader="):
        eval(
            "selfdx/question_check", task_args={"reader": "model"}, log_dir=log_dir, display="none"
        )


def test_bad_labelled_files_name_the_line_and_field(tmp_path: Path) -> None:
    good = json.loads(PART_FILES["dev"].read_text(encoding="utf-8").splitlines()[0])
    cases = [
        ({**good, "form": "closedd"}, "line 1: field form"),
        ({**good, "risk": ["self"], "risk_kind": []}, "line 1: field risk_kind"),
        ({**good, "extra": 1}, "line 1: field extra"),
    ]
    for record, message in cases:
        path = tmp_path / "set.jsonl"
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")
        with pytest.raises(SelfdxError, match=message):
            read_items(path, "dev")
    path.write_text(json.dumps(good) + "\n" + json.dumps(good) + "\n", encoding="utf-8")
    with pytest.raises(SelfdxError, match="line 2: field id"):
        read_items(path, "dev")


def test_every_class_of_question_is_in_the_held_out_part() -> None:
    items = read_items(PART_FILES["heldout"], "heldout")
    forms = {i.form for i in items}
    assert {
        "open",
        "closed",
        "multi_part",
        "follow_up",
        "quote",
        "tempting",
        "risk_direct",
        "risk_indirect",
        "risk_others",
        "timing",
        "impact",
    } <= forms
    kinds = {k for i in items for k in i.risk_kind}
    assert {
        "wish_dead",
        "active_thoughts",
        "method",
        "intent",
        "plan",
        "preparation",
        "attempt",
        "self_harm",
        "safety",
        "harm_thoughts",
        "violence",
        "means_access",
    } <= kinds
    assert not {i.id for i in items} & {i.id for i in read_items(PART_FILES["dev"], "dev")}
    assert (
        math.isfinite(len(items)) and len(items) + len(read_items(PART_FILES["dev"], "dev")) >= 1500
    )


def test_every_labelled_question_on_a_demo_profile_finds_its_profile() -> None:
    """The labels were written on the demo's profiles as they were then; since 9-A a sampled
    Type 3 interview case shows another profile (both disorders' criteria), so the question
    check keeps the profiles the labels name (67 dev items ask of demo-t3-D018-D020_h001)."""
    dataset = question_check_dataset("demo", PARTS)
    profiles = {sample.metadata["profile"] for sample in dataset}
    assert "demo:demo-t3-D018-D020_h001" in profiles
    asked_of_it = [s for s in dataset if s.metadata["profile"] == "demo:demo-t3-D018-D020_h001"]
    assert len(asked_of_it) == 67


def test_how_long_the_last_one_lasted_asks_the_episode_pointed_to() -> None:
    """Rule 3 of the writers' instructions: a "how long" that names no episode, after a turn
    about one episode's symptoms, asks that episode's duration row; "all of this" asks every
    duration row."""
    from selfdx.datasets.interview.loading import load_cases

    _, cases = load_cases("demo", ("3",))
    case = next(c for c in cases if c.id == "demo-t3-D013-D014_h001")
    topics = [topic_of(f) for f in [*case.facts, *case.absent]]
    before = "Have you stopped doing things you used to enjoy, like sport or music?"
    reply = "I've stopped going to my weekly football game, and my guitar just sits there."
    durations = {"DURATION-low_mood_episode", "DURATION-chronic_low_mood"}
    read = set(asked_about("How long did that last?", topics, None, [before], reply))
    assert read & durations == {"DURATION-low_mood_episode"}
    read = set(
        asked_about("How long has all of this been going on?", topics, None, [before], reply)
    )
    assert read & durations == durations
    assert set(asked_about("How long did that last?", topics)) & durations == durations
