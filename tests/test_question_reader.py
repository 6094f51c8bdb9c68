"""The question reader's rules, each on questions written for this file (not taken from the
labelled set of `selfdx/question_check`), against hand-built topics or demo profiles."""

from __future__ import annotations

from selfdx.instruments.question_reader import asked_about, risk_asked
from selfdx.instruments.topics import Topic


def symptom(code: str, name: str, text: str, cues: tuple[str, ...], truth: str = "no") -> Topic:
    prefix = {"no": "NO-", "yes": ""}[truth]
    return Topic(f"{prefix}{code}", "symptom", text, name, cues, truth=truth)


LOW = symptom(
    "S024", "Depressed Mood", "A state where a sad, empty, or hopeless mood persists.",
    ("mood", "mood been", "how is your mood", "empty inside"),
)  # fmt: skip
CROSS = symptom(
    "S060", "Irritability", "A state of reacting sensitively or sharply to minor stimuli.",
    ("irritable", "snappy"),
)  # fmt: skip


def test_a_cue_that_only_restates_the_areas_word_does_not_narrow_the_area() -> None:
    # "mood been" and "how is your mood" say no more than "mood": the whole area is asked
    for question in ("How is your mood these days?", "What has your mood been like?"):
        assert asked_about(question, [LOW, CROSS]) == ["NO-S024", "NO-S060"], question
    # a cue that names more than the area's word still narrows it
    assert asked_about("Has your mood left you empty inside?", [LOW, CROSS]) == ["NO-S024"]


APART = symptom(
    "S075", "Social Detachment", "Feelings of detachment or estrangement from others.",
    ("withdraw from", "distant from people"),
)  # fmt: skip
WEARY = symptom("S104", "Tiredness", "Feeling tired or lacking energy.", ("tired",))


def test_an_idiom_that_looks_like_self_harm_is_read_in_its_plain_words() -> None:
    # "cut yourself off" and "burn yourself out" are no screens to take out of the clause:
    # they ask about withdrawing from people and about tiredness
    assert asked_about("Would you say you've cut yourself off from your neighbours?", [APART]) == [
        "NO-S075"
    ]
    assert asked_about("Are you burning yourself out at the office?", [WEARY]) == ["NO-S104"]
    # the act itself is still a screen and asks about neither
    assert risk_asked("Have you ever cut yourself on purpose?") == ["self"]
    assert risk_asked("Would you say you've cut yourself off from your neighbours?") == []


BROKEN = symptom(
    "S027", "Sleep Disturbance", "A change in the quantity or quality of sleep.", ("sleep",),
    truth="yes",
)  # fmt: skip
SHORT = symptom("S036", "Decreased Sleep", "Decreased need for sleep.", ("four hours",))


def test_the_areas_bare_word_beside_a_symptom_named_more_specifically_asks_only_that() -> None:
    question = "Do you manage on four hours' sleep and still wake up raring to go?"
    assert asked_about(question, [BROKEN, SHORT]) == ["NO-S036"]
    # the bare word alone still asks about the area
    assert asked_about("Is your sleep any good?", [BROKEN, SHORT]) == ["S027"]


LASTED = Topic("DURATION", "duration", "how long it has lasted, since when")
TENSE = symptom("S058", "Tension", "Feeling keyed up or tense.", ("tension", "tense"), "yes")


def test_duration_in_other_words_and_timing_that_is_no_duration() -> None:
    topics = [LASTED, TENSE]
    for question in (
        "How old were you when all of this started?",
        "Has the tension been with you for several months now?",
        "How soon after the move did the tension start?",
    ):
        assert asked_about(question, topics) == ["DURATION"], question
    # whether it is there on most days asks about the symptom too
    assert asked_about("Have you felt tense on more days than not?", topics) == [
        "DURATION", "S058"
    ]  # fmt: skip
    # how long a thing takes, or how many days a week, is no duration of the illness
    for question in (
        "How long does it take you to calm down when you're tense?",
        "How many days a week are you tense?",
    ):
        assert asked_about(question, topics) == ["S058"], question


EVENT_CAME_FIRST = Topic("CONTEXT", "context", "A stressful event came before the symptoms")
EVENT = Topic("STRESSOR", "stressor", "an event, trauma, accident, loss or life change")


def test_what_happened_asks_about_the_event_a_differential_turns_on() -> None:
    # no stressor fact: the differential's context that an event came first is what it asks
    assert asked_about("Was anybody injured in the pile-up?", [EVENT_CAME_FIRST]) == ["CONTEXT"]
    assert asked_about("Was anybody injured in the pile-up?", [EVENT]) == ["STRESSOR"]
    # a screen that names the event only to set the time asks about no stressor
    question = "Since the accident, have you had urges to hurt someone?"
    assert risk_asked(question) == ["others"]
    assert asked_about(question, [EVENT]) == []


FLAT = symptom("S023", "Negative Symptoms", "Flat affect and lack of drive.", ("lost interest",))
ANHEDONIA = symptom(
    "S025", "Loss of Interest", "A marked decrease in interest or pleasure.",
    ("lost interest", "interest in things"),
)  # fmt: skip


def test_a_symptom_whose_every_match_another_symptom_matches_and_more_is_not_asked() -> None:
    # "lost interest in things" says both of loss of interest's cues, and only one of the
    # negative symptoms': it asks about loss of interest
    question = "Have you lost interest in things you used to do on weekends?"
    assert asked_about(question, [FLAT, ANHEDONIA]) == ["NO-S025"]
    # the same words for both, and nothing more: both are asked
    assert asked_about("Have you lost interest lately?", [FLAT, ANHEDONIA]) == [
        "NO-S023",
        "NO-S025",
    ]


GLUM = symptom("S101", "Persistent Sadness", "Feels sad, empty or low.", ("low", "sad"))


def test_an_idiom_for_tiredness_says_nothing_of_low_mood() -> None:
    question = "Would you say you're wiped out by the end of most days?"
    assert asked_about(question, [WEARY, GLUM]) == ["NO-S104"]


def test_a_follow_up_of_a_question_about_the_event_asks_about_the_event() -> None:
    before = ["Did something upsetting take place before all this began?"]
    assert asked_about(before[0], [EVENT, TENSE]) == ["STRESSOR"]
    assert asked_about("Who was with you when that took place?", [EVENT, TENSE], None, before) == [
        "STRESSOR"
    ]


HOLDS_BACK = Topic("IMPAIRMENT", "impairment", "effect on work, school, home life")


def test_impairment_and_events_in_more_of_a_clinicians_words() -> None:
    topics = [HOLDS_BACK, EVENT]
    assert asked_about("Has the tension got in the way of your studies?", topics) == ["IMPAIRMENT"]
    assert asked_about("Are you managing your household all right?", topics) == ["IMPAIRMENT"]
    for question in (
        "What was going on in your life before the panic set in?",
        "Tell me about the months before you started feeling so tense.",
    ):
        assert asked_about(question, topics) == ["STRESSOR"], question


def test_a_screen_asks_about_the_risk_not_the_symptoms_that_set_its_scene() -> None:
    question = "When you feel tense at night, do you ever think about killing yourself?"
    assert risk_asked(question) == ["self"]
    assert asked_about(question, [TENSE, EVENT]) == []
    assert asked_about("When you feel tense at night, what goes through your mind?", [TENSE]) == [
        "S058"
    ]


EARLY = symptom("S027", "Sleep Disturbance", "A change in sleep.", ("wake up early", "sleep"))


def test_rising_early_on_purpose_is_no_early_waking() -> None:
    assert asked_about("Do you wake up early to get a run in before work?", [EARLY]) == []
    assert asked_about("Do you wake up early and can't get back off?", [EARLY]) == ["NO-S027"]
    assert asked_about("Do you wake up early without meaning to?", [EARLY]) == ["NO-S027"]


def test_the_patients_words_quoted_back_ask_about_the_fact_they_quote_only() -> None:
    wound = Topic("S058", "symptom", "Feeling keyed up.", "Tension", ("tense",),
                  said="I'm wound up and tense all day.")  # fmt: skip
    question = 'You told me you are "tired, wound up and tense all day" - when is it worst?'
    assert asked_about(question, [wound, WEARY]) == ["S058"]
    # a term in quotation marks that the patient never said is read like any other words
    assert asked_about("Do you often feel 'tired out' by evening?", [wound, WEARY]) == ["NO-S104"]


def test_a_screen_that_asks_about_a_symptom_too_still_asks_about_it() -> None:
    question = "Have you been feeling tense, or had thoughts of ending your life?"
    assert risk_asked(question) == ["self"]
    assert asked_about(question, [TENSE]) == ["S058"]


MAJORITY = Topic(
    "REQ-2", "requirement",
    "depressive_episode is present for the majority of the total duration of the illness",
)  # fmt: skip


def test_most_days_asks_how_often_not_what_share_of_the_illness() -> None:
    assert asked_about("Is your mood low most mornings?", [MAJORITY, LOW]) == ["NO-S024"]
    assert asked_about("Were you down for most of the time you were ill?", [MAJORITY, LOW]) == [
        "REQ-2"
    ]


LASTED = Topic(
    "DURATION", "duration", "how long it has lasted, since when, duration of the illness"
)


def test_a_question_about_the_impact_after_one_about_the_duration_asks_no_duration() -> None:
    """A clinician's reading of 20 transcripts (2026-12-07): on a profile with no impairment
    fact, "How has this affected your work ...?" after "How long has all of this been going
    on?" was read as its follow-up and answered with the duration."""
    before = ["How long has all of this been going on?"]
    assert asked_about(before[0], [LASTED]) == ["DURATION"]
    question = "How has that affected your work, home life or relationships?"
    assert asked_about(question, [LASTED], None, before) == []
    assert asked_about(question, [LASTED, HOLDS_BACK], None, before) == ["IMPAIRMENT"]
    # a follow-up that asks for no kind of its own still points back to the duration
    assert asked_about("And before that?", [LASTED], None, before) == ["DURATION"]
