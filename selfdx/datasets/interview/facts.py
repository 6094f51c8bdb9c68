"""The facts a simulated patient can tell, each with the id it is reported by.

A case profile (a published `features/` record or a freshly sampled `CaseProfile`) becomes a
list of `Fact`s:

- `S001` ... one per sampled symptom (the one expression the profile shows);
- `DURATION` (how long the illness has lasted), `DURATION-<group>` (a group's duration);
- `IMPAIRMENT` (disorder-level functional impairment), `IMPAIRMENT-<group>`;
- `STRESSOR` (the traumatic or psychosocial event), `REQ-1`, `REQ-2` ... (additional
  requirements of the KG, e.g. onset before age 12);
- high tier only: `CONTEXT` (the differential's triggering condition) and `RULE` (the rule
  that points to the keyed member of the pair);
- `RISK-SELF`: a risk the KG's symptoms do not carry, given to a seeded share of profiles, and
  `NO-RISK-SELF` / `NO-RISK-OTHERS`, the risks a profile lacks (see `risk`).

A case also lists what the patient does not have (`truth="no"`: the KG symptoms and
requirements of its options it lacks, id `NO-<code>`) and what it cannot say for sure
(`truth="unsure"`, id `UNSURE-<...>`), and requirements that follow from its facts without
being one (`truth="implied"`, id `ALSO-<...>`: said when asked, never revealed). Statements
are the patient's own words (`patient_words`); `cues` are the phrases by which a doctor asks
about a fact (`questions`).
Whether facts meet a disorder's criteria is `criteria.criteria_check`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from selfdx.datasets.interview.patient_words import (
    DOMAINS,
    GROUPS,
    NOT_SO,
    RequirementWords,
    requirement_words,
    spoken_duration,
    stressor_statement,
    words_for,
)
from selfdx.datasets.mentalkg.entities import MentalKG

# "absent" is read from logs written before absent facts carried `truth`.
FactKind = Literal[
    "symptom", "duration", "impairment", "stressor", "requirement", "context", "rule", "absent",
    "risk",
]  # fmt: skip
# yes: a fact of the profile; no: denied; unsure: cannot say; implied: true of the patient (it
# follows from a fact they have), said when asked, but no fact of the profile
# claimed: not true of the patient, but an over-reporting patient says it is (`styles`)
Truth = Literal["yes", "no", "unsure", "implied", "claimed"]
PREFIXES: dict[str, str] = {
    "no": "NO-", "unsure": "UNSURE-", "implied": "ALSO-", "claimed": "CLAIM-",
}  # fmt: skip
UNSURE = "I'm honestly not sure about that."

IRREGULAR = {"is": "am", "has": "have", "does": "do", "was": "was", "goes": "go"}
ADVERBS = frozenset(
    "often frequently usually repeatedly constantly sometimes always easily persistently "
    "regularly rarely markedly excessively".split()
)


class Fact(BaseModel):
    """One thing the patient knows (or denies, or cannot say) about themself."""

    model_config = ConfigDict(frozen=True)

    id: str
    kind: FactKind
    statement: str  # what the patient says when asked, first person
    topic: str  # what the fact is about (a symptom: its name and KG description)
    group: str | None = None
    value: str | bool | None = None  # duration text, impairment flag, stressor kind, requirement
    cues: tuple[str, ...] = ()  # phrases by which a doctor asks about it
    truth: Truth = "yes"


def first_person(text: str) -> str:
    """A KG expression written about the patient ("Loses focus ...", "Feeling sad ...") as
    the patient would say it ("I lose focus ...", "I've been feeling sad ..."). Used only for
    symptoms of a graph that `patient_words` has no wording for."""
    text = " ".join(str(text).split()).rstrip()
    if not text:
        return text
    words = text.split(" ")
    lead: list[str] = []
    while words and words[0].lower().strip(",") in ADVERBS and len(words) > 1:
        lead.append(words.pop(0).lower())
    verb, rest = words[0], words[1:]
    low = verb.lower()
    if low.endswith("ing"):
        return " ".join(["I've been", *lead, low, *rest])
    if low in IRREGULAR:
        verb = IRREGULAR[low]
    elif low.endswith("ies") and len(low) > 4:
        verb = low[:-3] + "y"
    elif re.fullmatch(r"[a-z]+(ches|shes|sses|xes|zes)", low):
        verb = low[:-2]
    elif low.endswith("s") and not low.endswith("ss") and len(low) > 3:
        verb = low[:-1]
    elif low in {"the", "a", "an", "feelings", "guilt"} or not low.isalpha():
        return f"I notice this: {text[0].lower()}{text[1:]}"
    else:
        verb = low
    return " ".join(["I", *lead, verb, *rest])


def label(name: str) -> str:
    return name.replace("_", " ").strip()


def expression_index(kg: MentalKG, code: str, expression: str) -> int | None:
    """Which of the symptom's KG subtypes (or examples) `expression` is."""
    symptom = kg.symptoms[code]
    texts = [text for _, text in symptom.subtypes] or list(symptom.examples)
    wanted = " ".join(expression.split())
    for index, text in enumerate(texts):
        if " ".join(text.split()) == wanted:
            return index
    return None


def symptom_topic(kg: MentalKG, code: str) -> str:
    symptom = kg.symptoms[code]
    return f"{label(symptom.name)}: {symptom.description}"


def symptom_fact(kg: MentalKG, code: str, expression: str, group: str | None) -> Fact:
    """A symptom the patient has, in the patient's words for the expression the profile shows."""
    symptom = kg.symptoms[code]
    words = words_for(code, symptom.name)
    index = expression_index(kg, code, expression) if words else None
    statement = words.say[index] if words and index is not None else first_person(expression)
    return Fact(
        id=code,
        kind="symptom",
        statement=statement,
        topic=symptom_topic(kg, code),
        group=group,
        value=True,
        cues=(*words.cues, words.lay) if words else (),
    )


def absent_fact(kg: MentalKG, code: str) -> Fact:
    """A KG symptom the patient does not have (and denies when asked)."""
    symptom = kg.symptoms[code]
    words = words_for(code, symptom.name)
    return Fact(
        id=f"NO-{code}",
        kind="symptom",
        statement=words.deny if words else f"No, I haven't had {label(symptom.name).lower()}.",
        topic=symptom_topic(kg, code),
        value=False,
        cues=(*words.cues, words.lay) if words else (),
        truth="no",
    )


def duration_fact(duration: str, group: str | None = None, since_childhood: bool = False) -> Fact:
    """How long the illness (or a group's symptoms) has lasted. Of a disorder whose criteria ask
    for an onset in childhood (ADHD), the duration is said as a least, "for at least the last 1
    year and 5 months", which an onset before twelve does not contradict."""
    if group is None:
        said = spoken_duration(duration)
        return Fact(
            id="DURATION",
            kind="duration",
            statement=(
                f"I've been this way for at least the last {said}."
                if since_childhood
                else f"I've been like this for about {said} now."
            ),
            topic="how long it has lasted, since when, duration of the illness",
            value=duration,
        )
    words = GROUPS.get(group)
    said = spoken_duration(duration)
    statement = (
        words.duration.format(duration=said)
        if words
        else f"The {label(group)} part of it has lasted about {said}."
    )
    return Fact(
        id=f"DURATION-{group}",
        kind="duration",
        statement=statement,
        topic=f"how long the {label(group)} symptoms have lasted, duration",
        group=group,
        value=duration,
        cues=words.cues if words else (),
    )


def impairment_fact(flag: bool, domains: Iterable[str] = (), group: str | None = None) -> Fact:
    words = GROUPS.get(group) if group else None
    if words is not None:
        text = words.impaired if flag else words.not_impaired
    elif flag:
        where = [DOMAINS.get(d.lower(), d.lower().replace("_", " ")) for d in domains]
        text = "It gets in the way of my work, my home life and seeing people"
        text += f", especially {' and '.join(where)}." if where else "."
    else:
        text = "Honestly it has not stopped me from working or managing day to day."
    if group is not None and words is None:
        text = f"During the {label(group)} times: {text[0].lower()}{text[1:]}"
    return Fact(
        id="IMPAIRMENT" if group is None else f"IMPAIRMENT-{group}",
        kind="impairment",
        statement=text,
        topic="effect on work, school, home life, relationships, daily functioning",
        group=group,
        value=flag,
        cues=words.cues if words else (),
    )


def stressor_fact(kind: str, stressor: dict[str, Any] | None = None) -> Fact:
    return Fact(
        id="STRESSOR",
        kind="stressor",
        statement=stressor_statement(kind, stressor),
        topic="an event, trauma, accident, loss or life change before it started",
        value=kind,
    )


def requirement_cues(words: RequirementWords) -> tuple[str, ...]:
    """The phrases that ask about a requirement: its cues and its KG wording."""
    return tuple(dict.fromkeys([*words.cues, words.match]))


def requirement_fact(index: int, text: str) -> Fact:
    """An additional requirement the patient meets (its KG text is the fact's value)."""
    found = requirement_words(text)
    if found is None:
        statement, cues = f"Yes, that is true for me: {label(text)}.", ()
    else:
        _, words = found
        statement, cues = words.yes, requirement_cues(words)
    return Fact(
        id=f"REQ-{index}",
        kind="requirement",
        statement=statement,
        topic=text,
        value=text,
        cues=cues,
    )


def missing_requirement_fact(text: str, truth: Truth, key: str) -> Fact:
    """A requirement of an option that is not a fact of the profile: denied, not sure of, or
    affirmed in its own words where it follows from the patient's facts."""
    found = requirement_words(text)
    said = {
        "no": found[1].no if found else NOT_SO,
        "unsure": UNSURE,
        "implied": found[1].yes if found else UNSURE,
    }
    cues = requirement_cues(found[1]) if found else ()
    return Fact(
        id=f"{PREFIXES[truth]}{key.replace('/', '-')}",
        kind="requirement",
        statement=said[truth],
        topic=text,
        value=text,
        cues=cues,
        truth=truth,
    )
