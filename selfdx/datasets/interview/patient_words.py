"""What the simulated patient says, in plain first-person words written for selfdx.

MentalKG describes symptoms, durations and requirements in clinical shorthand ("Often unable
to play or engage in leisure activities quietly", "manic_episode is present for the majority
of the total duration ..."). A patient says neither. This module holds the patient's wording:

- `patient_words.json` (and the demo graph's `patient_words`): for every MentalKG symptom (and
  every symptom of the demo graph) a sentence per subtype or example, a denial, a plain name
  and the cue phrases by which a doctor asks about it; keyed by symptom code and checked
  against the symptom's KG name, so that a graph with other content under the same code falls
  back to `facts.first_person`;
- `GROUPS`: the groups that carry a duration or an impairment flag, as the patient names them;
- `REQUIREMENTS`: each additional requirement of MentalKG (and the demo graph) as the patient
  affirms or denies it, the cue phrases that ask about it, and when a patient who lacks it can
  only say they are not sure (it is close to something they have);
- `TRAUMA_EVENTS`, `TRAUMA_EXPOSURES`, `LIFE_CHANGES`, `DOMAINS`: stressors and impaired areas
  of life in the patient's words.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from selfdx.datasets.interview.demo_graph import demo_raw
from selfdx.datasets.mentalkg.entities import DURATION_PART
from selfdx.datasets.mentalkg.exclusions import ELEVATED_EPISODES

WORDS_FILE = Path(__file__).with_name("patient_words.json")
CRITERION_NOTE = re.compile(r"\(criterion [a-z]\)", re.IGNORECASE)


@dataclass(frozen=True)
class SymptomWords:
    """A symptom in the patient's words."""

    name: str  # the KG name the entry was written for (checked before use)
    lay: str
    deny: str
    cues: tuple[str, ...]
    say: tuple[str, ...]  # one per KG subtype, or per KG example, in KG order


@cache
def symptom_words() -> dict[str, SymptomWords]:
    """MentalKG's symptoms (`patient_words.json`) and the demo graph's (its `patient_words`)."""
    raw = json.loads(WORDS_FILE.read_text(encoding="utf-8"))["symptoms"]
    raw |= demo_raw()["patient_words"]
    return {
        code: SymptomWords(
            name=entry["name"],
            lay=entry["lay"],
            deny=entry["deny"],
            cues=tuple(entry["cues"]),
            say=tuple(entry["say"]),
        )
        for code, entry in raw.items()
    }


def words_for(code: str, kg_name: str) -> SymptomWords | None:
    """The wording of symptom `code`, if it was written for a symptom of this name."""
    entry = symptom_words().get(code)
    return entry if entry is not None and entry.name == kg_name else None


@dataclass(frozen=True)
class GroupWords:
    """A group with a duration or an impairment flag, as the patient speaks of it."""

    cues: tuple[str, ...]
    duration: str  # with {duration}
    impaired: str
    not_impaired: str


DEPRESSIVE_CUES = (
    "low spell", "low period", "low patch", "bad patch", "depressed", "depression", "low mood",
    "lows",
)  # fmt: skip
ELEVATED_CUES = (
    "high spell", "high period", "high phase", "up spell", "highs", "manic", "mania",
    "elevated", "euphoric", "high mood", "hypomanic",
)  # fmt: skip
PSYCHOTIC_CUES = (
    "strange experiences", "voices", "hearing things", "seeing things", "psychotic",
    "unusual beliefs", "strange beliefs",
)  # fmt: skip
CHRONIC_LOW_CUES = ("low mood", "depressed", "depression", "gloomy", "low all the time")

GROUPS: dict[str, GroupWords] = {
    "psychotic_symptoms": GroupWords(
        PSYCHOTIC_CUES,
        "I've had these strange experiences for about {duration}.",
        "These strange experiences get in the way of my work and of being with people.",
        "These strange experiences haven't stopped me from working or managing day to day.",
    ),
    "manic_episode": GroupWords(
        ELEVATED_CUES,
        "My last high spell went on for about {duration}.",
        "When I'm in a high spell my life falls apart: I can't hold things together at work "
        "or at home.",
        "Even in a high spell I keep my work and home life going.",
    ),
    "hypomanic_episode": GroupWords(
        ELEVATED_CUES,
        "My last up spell, when I'm full of energy, lasted about {duration}.",
        "When I'm in an up spell it causes real trouble at work and at home.",
        "When I'm in an up spell I still get on with my work; it doesn't cause me real trouble.",
    ),
    "depressive_episode": GroupWords(
        DEPRESSIVE_CUES,
        "I've been going through this bad patch for about {duration}.",
        "In my bad patches I struggle to work and to keep up with things at home.",
        "Even in my bad patches I manage my work and home life.",
    ),
    "dysthymic_symptoms": GroupWords(
        CHRONIC_LOW_CUES,
        "My mood has been low like this for about {duration}.",
        "Being low all the time drags down my work and my home life.",
        "Being low hasn't stopped me from working or managing day to day.",
    ),
}
# The demo graph's two timed groups speak as MentalKG's depressive groups do.
GROUPS["low_mood_episode"] = GROUPS["depressive_episode"]
GROUPS["chronic_low_mood"] = GROUPS["dysthymic_symptoms"]

PSYCHOTIC_GROUPS = ["psychotic_symptoms", "delusions", "delusions_and_hallucinations"]
LOW_GROUPS = ["depressive_episode", "dysthymic_symptoms", "low_mood_episode", "chronic_low_mood"]
NOT_SO = "No, that isn't how it has been for me."


# When a profile has both a high and a low group (bipolar disorders, schizoaffective bipolar
# type), each group's symptoms are said of its own spells, so that "I sleep three hours" and
# "I sleep twelve hours" are not both said of the present.
SPELLS: dict[str, str] = {
    "manic_episode": "In my high spells",
    "hypomanic_episode": "In my up spells",
    "depressive_episode": "In my bad patches",
}


NOW = re.compile(r"^(lately|right now|these days|at the moment|recently|nowadays),?\s+", re.I)


def in_spell(statement: str, group: str | None, groups: set[str]) -> str:
    """`statement`, said of the group's spells when the profile has both kinds of spell (a
    leading "lately" or "right now" dropped)."""
    both = groups & set(ELEVATED_EPISODES) and "depressive_episode" in groups
    if group not in SPELLS or not both:
        return statement
    statement = NOW.sub("", statement)
    first = statement if re.match(r"I\b", statement) else statement[:1].lower() + statement[1:]
    return f"{SPELLS[group]}, {first}"


def spoken_duration(text: str) -> str:
    """A KG duration as a patient says it: "1 year and 1 months" -> "1 year and 1 month",
    "2 years and 0 months" -> "2 years" (a text it cannot read is kept as it is)."""
    parts = [(int(n), unit.lower()) for n, unit in DURATION_PART.findall(text) if int(n)]
    if not parts:
        return text
    said = [f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in parts]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


@dataclass(frozen=True)
class RequirementWords:
    """An additional requirement as the patient affirms or denies it.

    What a patient who lacks the requirement says of it (`cases.requirement_truth`), first
    that applies: no, when it has one of the `no_if` requirements; yes, in this requirement's
    own words but revealing no fact, when a requirement it has `implies` this one, or when
    `yes_if` holds and none of the `yes_unless` groups is in its profile; not sure, when
    `unsure_if` holds; no otherwise. A condition is a list of lists: every inner list names
    groups of which the profile has at least one (or `"STRESSOR"` for a stated stressor,
    `"IMPAIRMENT-FREE"` for no stated impairment).
    """

    match: str  # a phrase of the requirement's identity (see `requirement_identity`)
    yes: str
    cues: tuple[str, ...]
    no: str = NOT_SO
    unsure_if: tuple[tuple[str, ...], ...] = ()
    no_if: tuple[str, ...] = ()
    implies: tuple[str, ...] = ()
    yes_if: tuple[tuple[str, ...], ...] = ()
    yes_unless: tuple[str, ...] = ()


REQUIREMENTS: dict[str, RequirementWords] = {
    "D001/1": RequirementWords(
        "age 12",
        "Yes, it goes back to my childhood; teachers were already complaining about it before "
        "I was twelve.",
        ("before 12", "age 12", "before twelve", "as a child", "childhood", "when you were young",
         "when you were little", "as a kid", "how old were you", "what age", "at what age"),
        no="No, I was fine as a child; this only started when I was grown up.",
    ),
    "D004/1": RequirementWords(
        "not markedly impaired",
        "Yes, apart from this one thing I'm sure of and what it has led to, I manage my work and "
        "the rest of my life fine.",
        ("apart from", "rest of your life", "otherwise manage", "otherwise function",
         "otherwise cope"),
        unsure_if=(("IMPAIRMENT-FREE",),),
    ),
    "D006/1": RequirementWords(
        "psychotic symptoms and manic episode occur concurrently",
        "Yes, for me the strange experiences and the high spells have come at the same time.",
        ("voices during the high", "strange experiences during the high", "voices while high",
         "same time as the high", "same time as your high", "same time as the manic",
         "psychotic during manic"),
        unsure_if=(ELEVATED_EPISODES, tuple(PSYCHOTIC_GROUPS)),
    ),
    "D006/2": RequirementWords(
        "manic episode is present for the majority",
        "Yes, the high spells have taken up most of the time I've been unwell.",
        ("most of the time high", "majority of the time high", "most of the time manic",
         "majority manic", "high for most of the time"),
        unsure_if=(ELEVATED_EPISODES,),
    ),
    "D006/3": RequirementWords(
        "2 or more weeks in the absence of a major mood episode",
        "Yes, there have been stretches of two weeks or more when I had those strange beliefs "
        "or heard things while my mood was normal.",
        ("mood was normal", "mood normal", "mood was fine", "without mood", "apart from mood",
         "outside mood", "two weeks without", "absence of mood", "when your mood was ok"),
        unsure_if=(tuple(PSYCHOTIC_GROUPS),),
        no_if=("D010/1", "D015/1"),
        yes_if=(tuple(PSYCHOTIC_GROUPS),),
        yes_unless=(*ELEVATED_EPISODES, *LOW_GROUPS),
    ),
    "D007/1": RequirementWords(
        "psychotic symptoms and depressive episode occur concurrently",
        "Yes, for me the strange experiences and the bad patches have come at the same time.",
        ("voices during the low", "strange experiences during the low", "voices while low",
         "same time as the low", "same time as your low", "same time as the depress",
         "psychotic during depress"),
        unsure_if=(tuple(LOW_GROUPS), tuple(PSYCHOTIC_GROUPS)),
    ),
    "D007/2": RequirementWords(
        "depressive episode is present for the majority",
        "Yes, the bad patches have taken up most of the time I've been unwell.",
        ("most of the time low", "majority of the time low", "most of the time depress",
         "majority depress", "low for most of the time"),
        unsure_if=(tuple(LOW_GROUPS),),
    ),
    "D010/1": RequirementWords(
        "exclusively during the manic episode",
        "Yes, I only have those strange beliefs or hear things when I'm in a high spell, never "
        "otherwise.",
        ("only during high", "only when high", "only while high", "only during manic",
         "only when manic", "exclusively manic", "never outside high", "only in high"),
        implies=("D006/1",),
    ),
    "D015/1": RequirementWords(
        "exclusively during the major depressive episode",
        "Yes, I only have those strange beliefs or hear things in a bad patch, never "
        "otherwise.",
        ("only during low", "only when low", "only while low", "only during depress",
         "only when depress", "exclusively depress", "never outside low", "only in low"),
        implies=("D007/1",),
    ),
    "D020/1": RequirementWords(
        "within 3 months of the onset of the stressor",
        "Yes, it all started within three months of that change in my life.",
        ("within three months", "within 3 months", "soon after", "how soon", "shortly after"),
        unsure_if=(("STRESSOR",),),
    ),
    "D020/2": RequirementWords(
        "6 months of the termination",
        "Yes, my troubles haven't dragged on for more than six months after that situation was "
        "over.",
        ("six months after", "6 months after", "after it ended", "after it was over",
         "once the situation", "since it ended", "stress ended"),
        unsure_if=(("STRESSOR",),),
    ),
    "D022/1": RequirementWords(
        "compensatory behaviors both occur",
        "Yes, for the past three months I've binged and then made up for it at least once a "
        "week.",
        ("once a week make up", "weekly make up", "every week make up", "once a week vomit",
         "once a week compensat", "how often make up", "how often vomit"),
        implies=("D023/1",),
    ),
    "D023/1": RequirementWords(
        "binge eating occurs",
        "Yes, for the past three months I've had a binge at least once a week.",
        ("once a week binge", "weekly binge", "every week binge", "binge once a week",
         "how often binge", "binge every week"),
    ),
    "demo-D020/1": RequirementWords(
        "within 3 months of the stressful change",
        "Yes, my troubles all started within three months of that change.",
        ("within three months", "within 3 months", "soon after", "how soon", "shortly after"),
        unsure_if=(("STRESSOR",),),
    ),
}  # fmt: skip


def requirement_identity(text: str) -> str:
    """A requirement's text with its criterion note, case and underscores ignored: the same
    requirement stated by two disorders (D006 and D007, the three ADHD presentations) is one."""
    text = CRITERION_NOTE.sub("", text).replace("_", " ").lower()
    return " ".join(text.split()).rstrip(".")


def requirement_words(text: str) -> tuple[str, RequirementWords] | None:
    """The key and wording of a requirement text, or None for one written nowhere here."""
    identity = requirement_identity(text)
    for key, words in REQUIREMENTS.items():
        if words.match in identity:
            return key, words
    return None


TRAUMA_EVENTS: dict[str, str] = {
    "Combat and War": "I was caught up in fighting during a war",
    "Physical Violence": "there was a violent attack",
    "Sexual Violence": "there was a sexual assault",
    "Accidents": "there was a terrible accident where people could have died",
    "Natural Disasters": "there was a disaster where I thought we would all die",
    "Medical Trauma": "there was a medical emergency where someone nearly died",
}
TRAUMA_EXPOSURES: dict[str, str] = {
    "Direct Exposure": "It happened to me.",
    "Witnessing": "I saw it happen to someone else, right in front of me.",
    "Indirect Exposure (Learning)": "It happened to someone very close to me, and I found out "
    "afterwards.",
    "Repeated Exposure to Aversive Details": "Through my job I have to deal with the details "
    "of events like that again and again.",
}
TRAUMA_ANY = (
    "Before all this started, I went through something terrifying where a life was in danger."
)
LIFE_CHANGES: dict[str, str] = {
    "Relational": "It started after things fell apart in my closest relationship.",
    "Occupational": "It started after I ran into serious trouble at work.",
    "Academic": "It started after things went badly wrong with my studies.",
    "Economic": "It started after my family got into serious money trouble.",
    "Health": "It started after I was told I had a serious health problem.",
    "Developmental": "It started after a big change in my stage of life.",
}
LIFE_CHANGE_ANY = "It started after a hard change in my life."
# event.json's impairment domains, by key and by label
DOMAINS: dict[str, str] = {
    "social": "seeing friends",
    "social functioning": "seeing friends",
    "academic": "my studies",
    "academic functioning": "my studies",
    "occupational": "my job",
    "occupational functioning": "my job",
    "interpersonal": "my relationships",
    "interpersonal relationships": "my relationships",
    "daily_living": "everyday things like cooking and keeping the house",
    "activities of daily living": "everyday things like cooking and keeping the house",
}


def stressor_statement(kind: str, stressor: dict[str, Any] | None) -> str:
    """The patient's account of the stressor (its class and exposure where the profile has
    them; published profiles only say that one was required)."""
    stressor = stressor or {}
    if kind == "traumatic":
        event = TRAUMA_EVENTS.get(str(stressor.get("event_class")))
        if event is None:
            return TRAUMA_ANY
        exposure = TRAUMA_EXPOSURES.get(str(stressor.get("exposure")), "")
        return f"Before all this started, {event}. {exposure}".strip()
    return LIFE_CHANGES.get(str(stressor.get("event_class")), LIFE_CHANGE_ANY)
