"""The facts a simulated patient can tell, and the DSM rule check over any subset of them.

A case profile (a published `features/` record or a freshly sampled `CaseProfile`) becomes a
list of `Fact`s, each with a stable id the patient reports when it reveals it:

- `S001` ... one per sampled symptom (the one expression the profile shows);
- `DURATION` (how long the illness has lasted), `DURATION-<group>` (a group's duration);
- `IMPAIRMENT` (disorder-level functional impairment), `IMPAIRMENT-<group>`;
- `STRESSOR` (the traumatic or psychosocial event), `REQ-1`, `REQ-2` ... (additional
  requirements of the KG, e.g. onset before age 12);
- high tier only: `CONTEXT` (the differential's triggering condition) and `RULE` (the rule
  that points to the keyed member of the pair).

`criteria_check(kg, code, facts)` says whether the given facts satisfy disorder `code`'s
criteria in MentalKG (thresholds, mandatory symptoms, durations, impairment, stressor,
additional requirements) and lists what is missing. It is used three ways: on the whole
profile (the gold "criteria met"), on the facts elicited at the answer (premature claims),
and to name the facts a diagnosis needs (critical facts).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from selfdx.datasets.mentalkg.model import MentalKG, duration_days

FactKind = Literal[
    "symptom", "duration", "impairment", "stressor", "requirement", "context", "rule", "absent"
]

IRREGULAR = {"is": "am", "has": "have", "does": "do", "was": "was", "goes": "go"}
ADVERBS = frozenset(
    "often frequently usually repeatedly constantly sometimes always easily persistently "
    "regularly rarely markedly excessively".split()
)


class Fact(BaseModel):
    """One thing the patient knows about themself, with the id it is reported by."""

    model_config = ConfigDict(frozen=True)

    id: str
    kind: FactKind
    statement: str  # what the patient would say, first person
    topic: str  # what the fact is about, in plain words (matched against questions)
    group: str | None = None
    value: str | bool | None = None  # duration text, impairment flag, stressor kind, requirement


def first_person(text: str) -> str:
    """A KG expression written about the patient ("Loses focus ...", "Feeling sad ...") as
    the patient would say it ("I lose focus ...", "I've been feeling sad ...")."""
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


def symptom_fact(kg: MentalKG, code: str, expression: str, group: str | None) -> Fact:
    symptom = kg.symptoms[code]
    return Fact(
        id=code,
        kind="symptom",
        statement=first_person(expression),
        topic=f"{label(symptom.name)}: {symptom.description}",
        group=group,
        value=True,
    )


def absent_fact(kg: MentalKG, code: str) -> Fact:
    """A KG symptom the patient does not have (and denies when asked)."""
    symptom = kg.symptoms[code]
    return Fact(
        id=code,
        kind="absent",
        statement=f"No, I have not had that ({label(symptom.name).lower()}).",
        topic=f"{label(symptom.name)}: {symptom.description}",
        value=False,
    )


def duration_fact(duration: str, group: str | None = None) -> Fact:
    if group is None:
        return Fact(
            id="DURATION",
            kind="duration",
            statement=f"All of this has been going on for about {duration}.",
            topic="how long it has lasted, since when, duration of the illness",
            value=duration,
        )
    return Fact(
        id=f"DURATION-{group}",
        kind="duration",
        statement=f"The {label(group)} part of it has lasted {duration}.",
        topic=f"how long the {label(group)} symptoms have lasted, duration",
        group=group,
        value=duration,
    )


def impairment_fact(flag: bool, domains: Iterable[str] = (), group: str | None = None) -> Fact:
    where = ", ".join(d.lower() for d in domains)
    if flag:
        text = "It gets in the way of my work, my home life and seeing people"
        text += f", especially my {where}." if where else "."
    else:
        text = "Honestly it has not stopped me from working or managing day to day."
    if group is not None:
        text = f"During the {label(group)} times: {text[0].lower()}{text[1:]}"
    return Fact(
        id="IMPAIRMENT" if group is None else f"IMPAIRMENT-{group}",
        kind="impairment",
        statement=text,
        topic="effect on work, school, home life, relationships, daily functioning",
        group=group,
        value=flag,
    )


def stressor_fact(kind: str, event: str | None = None, exposure: str | None = None) -> Fact:
    if kind == "traumatic":
        text = "Before this started, I went through something terrifying where a life was in danger"
    else:
        text = "It started after a hard change in my life"
    details = "; ".join(part.rstrip(".") for part in (event, exposure) if part)
    text += f": {details}." if details else "."
    return Fact(
        id="STRESSOR",
        kind="stressor",
        statement=text,
        topic="an event, trauma, accident, loss or life change before it started",
        value=kind,
    )


def requirement_fact(index: int, text: str) -> Fact:
    return Fact(
        id=f"REQ-{index}",
        kind="requirement",
        statement=f"Yes, this is true for me: {text[0].lower()}{text[1:]}.",
        topic=text,
        value=text,
    )


def stated_days(text: str | None) -> int | None:
    try:
        return duration_days(text) if text else None
    except ValueError:
        return None


def criteria_check(kg: MentalKG, code: str, facts: Iterable[Fact]) -> tuple[bool, list[str]]:
    """Whether `facts` satisfy disorder `code`'s MentalKG criteria, and what falls short."""
    by_id = {fact.id: fact for fact in facts if fact.kind != "absent"}
    symptoms = {fid for fid, fact in by_id.items() if fact.kind == "symptom"}
    disorder = kg.disorder(code)
    missing: list[str] = []
    for name in disorder.required_groups:
        group = kg.groups[name]
        have = symptoms & set(group.pool)
        if len(have) < group.min_count:
            missing.append(f"{name}: {len(have)} of {group.min_count} symptoms")
        lacking = [s for s in group.must_include_all if s not in symptoms]
        if lacking:
            missing.append(f"{name}: mandatory {', '.join(lacking)} not established")
        if group.must_include_one_of and not set(group.must_include_one_of) & symptoms:
            missing.append(f"{name}: none of {', '.join(group.must_include_one_of)}")
        if group.min_days is not None:
            days = stated_days(getattr(by_id.get(f"DURATION-{name}"), "value", None))
            if days is None or days < group.min_days:
                missing.append(f"{name}: duration of {group.min_duration} not established")
        if group.functional_impairment_required is not None:
            fact = by_id.get(f"IMPAIRMENT-{name}")
            if fact is None or fact.value != group.functional_impairment_required:
                missing.append(f"{name}: impairment not established")
    criteria = disorder.criteria
    if criteria.min_days is not None or criteria.max_days is not None:
        days = stated_days(getattr(by_id.get("DURATION"), "value", None))
        low, high = criteria.min_days or 0, criteria.max_days
        if days is None or days < low or (high is not None and days > high):
            missing.append("illness duration not established within the KG limits")
    if criteria.functional_impairment_required is not None:
        fact = by_id.get("IMPAIRMENT")
        if fact is None or fact.value != criteria.functional_impairment_required:
            missing.append("functional impairment not established")
    for kind, needed in (
        ("traumatic", criteria.traumatic_stressor_required),
        ("psychosocial", criteria.psychosocial_stressor_required),
    ):
        if needed and getattr(by_id.get("STRESSOR"), "value", None) != kind:
            missing.append(f"{kind} stressor not established")
    stated = {fact.value for fact in by_id.values() if fact.kind == "requirement"}
    for text in criteria.additional_requirements:
        if text not in stated:
            missing.append(f"requirement not established: {text}")
    return not missing, missing


def needed_fact_ids(kg: MentalKG, code: str, facts: Iterable[Fact]) -> list[str]:
    """The ids of the profile's facts that disorder `code`'s criteria look at."""
    disorder = kg.disorder(code)
    pools = {s for name in disorder.required_groups for s in kg.groups[name].pool}
    criteria = disorder.criteria
    wanted = {f"DURATION-{g}" for g in disorder.required_groups}
    wanted |= {f"IMPAIRMENT-{g}" for g in disorder.required_groups}
    if criteria.min_days is not None or criteria.max_days is not None:
        wanted.add("DURATION")
    if criteria.functional_impairment_required is not None:
        wanted.add("IMPAIRMENT")
    if criteria.traumatic_stressor_required or criteria.psychosocial_stressor_required:
        wanted.add("STRESSOR")
    required_texts = set(criteria.additional_requirements)
    return [
        fact.id
        for fact in facts
        if (fact.kind == "symptom" and fact.id in pools)
        or fact.id in wanted
        or (fact.kind == "requirement" and fact.value in required_texts)
    ]
