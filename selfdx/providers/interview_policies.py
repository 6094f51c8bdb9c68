"""Offline interviewers for `selfdx/interview`: `selfdx/kg-interviewer` and `selfdx/opening-guess`.

Both read MentalKG (`-M kg=PATH` to the graph or a folder above it; default: the synthetic
demo graph) and keep no state: every reply is worked out again from the conversation.

Evidence: a symptom counts as reported when a patient message (sentences that start with "No"
are denials and skipped) holds at least 80% of the content words of one of the symptom's KG
expressions; durations, impairment, a stressor and the additional requirements are read from
the wording the patient uses for them. The evidence becomes facts, and the rule check
(`interview_facts.criteria_check`) says which candidate's criteria it meets.

`kg-interviewer` ranks the candidates (the options, or every KG disorder with free-text
answers) by how far their required groups are filled, asks about the leading candidate's
unfilled required groups (listing the KG descriptions), then its duration, impairment,
stressor and additional requirements, and moves to the next candidate when the leader has
nothing left to ask. It answers as soon as the leader's criteria are met (CRITERIA MET: yes),
or, when the budget or the questions run out, with the leader and CRITERIA MET: no.
`opening-guess` answers at once with the leader (the floor of an interviewer that never asks).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from inspect_ai.model import ChatMessage

from selfdx.datasets.interview.demo_graph import demo_kg
from selfdx.datasets.interview.facts import (
    Fact,
    criteria_check,
    duration_fact,
    impairment_fact,
    requirement_fact,
    stressor_fact,
)
from selfdx.datasets.mentalkg.model import MentalKG, load_kg
from selfdx.providers.kg_patient import stems
from selfdx.providers.offline import offline_policy

OPTION = re.compile(r"^([A-H])\. (.+)$", re.MULTILINE)
DURATION = re.compile(
    r"\d+\s*(?:day|week|month|year)s?(?:\s*(?:,|and|,\s*and)\s*\d+\s*(?:day|week|month|year)s?)*",
    re.IGNORECASE,
)
GROUP_DURATION = re.compile(r"The (.+?) part of it has lasted (" + DURATION.pattern + ")", re.I)
NO_IMPAIRMENT = re.compile(r"not (stopped|affected|got in the way)|no effect|manage fine", re.I)
IMPAIRMENT = re.compile(
    r"get(s|ting)? in the way|struggl\w* (at|with) work|affect\w* my|can't work|cannot work"
    r"|missed work|relationships",
    re.I,
)
TRAUMA = re.compile(
    r"terrif|life was in danger|accident|assault|attack|\bfire\b|combat|crash|violence", re.I
)
LIFE_CHANGE = re.compile(
    r"hard change|lost my job|redundan|divorce|separat|moved|break[- ]?up|bereave", re.I
)
SENTENCE = re.compile(r"(?<=[.!?])\s+")
MATCH = 0.8


@cache
def graph(path: str) -> MentalKG:
    return demo_kg() if path == "demo" else load_kg(path)


EXPRESSIONS: dict[tuple[str, str], list[frozenset[str]]] = {}


def expressions(kg: MentalKG, code: str) -> list[frozenset[str]]:
    """Content-word stems of each KG expression of a symptom (cached per graph and symptom)."""
    key = (str(kg.folder), code)
    if key not in EXPRESSIONS:
        symptom = kg.symptoms[code]
        texts = [*symptom.examples, *(t for _, t in symptom.subtypes)] or [symptom.description]
        EXPRESSIONS[key] = [s for s in (stems(t) for t in texts) if s]
    return EXPRESSIONS[key]


def patient_text(messages: list[ChatMessage]) -> list[str]:
    """What the interviewer heard: the opening (or full profile) and the patient's replies,
    as sentences, denials dropped."""
    users = [m.text for m in messages if m.role == "user"]
    sentences = [s for text in users for s in SENTENCE.split(text)]
    return [s for s in sentences if not re.match(r"\W*(patient:\s*)?no\b", s, re.I)]


def evidence(kg: MentalKG, sentences: list[str], candidates: list[str]) -> list[Fact]:
    """Facts the conversation has established, in the rule check's terms."""
    words = [stems(s) for s in sentences]
    symptoms = sorted({s for c in candidates for s in kg.symptoms_of(c)})
    facts: list[Fact] = []
    for code in symptoms:
        if any(len(e & w) >= MATCH * len(e) for e in expressions(kg, code) for w in words):
            facts.append(Fact(id=code, kind="symptom", statement="", topic="", value=True))
    text = " ".join(sentences)
    spans = [m.group(0) for m in DURATION.finditer(text)]
    group_spans = {m.group(1).lower(): m.group(2) for m in GROUP_DURATION.finditer(text)}
    if spans:
        facts.append(duration_fact(max(spans, key=days_of)))
    for name in {g for c in candidates for g in kg.groups_of(c)}:
        label = name.replace("_", " ").lower()
        if label in group_spans:
            facts.append(duration_fact(group_spans[label], name))
        elif spans:
            facts.append(duration_fact(max(spans, key=days_of), name))
    flag = None
    if NO_IMPAIRMENT.search(text):
        flag = False
    elif IMPAIRMENT.search(text):
        flag = True
    if flag is not None:
        facts.append(impairment_fact(flag))
        facts += [impairment_fact(flag, group=g) for c in candidates for g in kg.groups_of(c)]
    if TRAUMA.search(text):
        facts.append(stressor_fact("traumatic"))
    elif LIFE_CHANGE.search(text):
        facts.append(stressor_fact("psychosocial"))
    index = 0
    for code in candidates:
        for requirement in kg.disorder(code).criteria.additional_requirements:
            want = stems(requirement)
            if want and any(len(want & w) >= MATCH * len(want) for w in words):
                index += 1
                facts.append(requirement_fact(index, requirement))
    return unique(facts)


def unique(facts: list[Fact]) -> list[Fact]:
    seen: dict[str, Fact] = {}
    for fact in facts:
        seen.setdefault(fact.id, fact)
    return list(seen.values())


def days_of(text: str) -> int:
    from selfdx.datasets.mentalkg.model import duration_days

    try:
        return duration_days(text)
    except ValueError:
        return 0


def coverage(kg: MentalKG, code: str, facts: list[Fact]) -> float:
    """How far the candidate's required groups are filled (mean over groups, each capped at 1)."""
    have = {f.id for f in facts if f.kind == "symptom"}
    groups = kg.disorder(code).required_groups
    if not groups:
        return 0.0
    return sum(
        min(1.0, len(have & set(kg.groups[g].pool)) / max(1, kg.groups[g].min_count))
        for g in groups
    ) / len(groups)


def topics(kg: MentalKG, code: str, facts: list[Fact], asked: str = "") -> list[str]:
    """Questions that would fill what the candidate's criteria still lack, in asking order;
    symptoms already asked about (their description is in `asked`) are not listed again."""
    have = {f.id for f in facts}
    disorder = kg.disorder(code)
    questions = []
    for name in disorder.required_groups:
        described = [(s, kg.symptoms[s].description.rstrip(".")) for s in kg.groups[name].pool]
        open_ = [text for s, text in described if s not in have and text not in asked]
        if open_:
            questions.append(f"Have you noticed any of the following? {'; '.join(open_)}.")
    criteria = disorder.criteria
    groups_timed = any(kg.groups[g].min_days for g in disorder.required_groups)
    if (criteria.min_days or criteria.max_days or groups_timed) and "DURATION" not in have:
        questions.append("How long has all of this been going on?")
    needs_fi = criteria.functional_impairment_required is not None or any(
        kg.groups[g].functional_impairment_required is not None for g in disorder.required_groups
    )
    if needs_fi and "IMPAIRMENT" not in have:
        questions.append("How has this affected your work, home life or relationships?")
    if (
        criteria.traumatic_stressor_required or criteria.psychosocial_stressor_required
    ) and "STRESSOR" not in have:
        questions.append("Did anything stressful or frightening happen before this started?")
    stated = {f.value for f in facts if f.kind == "requirement"}
    for requirement in criteria.additional_requirements:
        if requirement not in stated:
            questions.append(f"Is this true for you: {requirement}?")
    return questions


def candidates_of(kg: MentalKG, messages: list[ChatMessage]) -> tuple[list[str], dict[str, str]]:
    """Candidate codes, and the letter of each when options are shown."""
    system = "\n".join(m.text for m in messages if m.role == "system")
    letters = {}
    for letter, name in OPTION.findall(system):
        code = kg.codes_by_name.get(name.strip())
        if code is None:
            raise ValueError(
                f"option {letter} ({name.strip()}) is not a disorder of the MentalKG at "
                f"{kg.folder}; pass -M kg=PATH with the graph of the cases"
            )
        letters[code] = letter
    return (list(letters) or list(kg.disorders)), letters


def final(kg: MentalKG, code: str, letters: dict[str, str], met: bool) -> str:
    name = kg.disorder(code).name
    shown = f"{letters[code]}. {name}" if code in letters else name
    return f"DIAGNOSIS: {shown}\nCRITERIA MET: {'yes' if met else 'no'}"


def interviewer(messages: list[ChatMessage], model_args: dict[str, Any], may_ask: bool) -> str:
    kg = graph(str(model_args.get("kg", "demo")))
    candidates, letters = candidates_of(kg, messages)
    facts = evidence(kg, patient_text(messages), candidates)
    ranked = sorted(candidates, key=lambda c: (-coverage(kg, c, facts), candidates.index(c)))
    for code in ranked:
        if criteria_check(kg, code, facts)[0]:
            return final(kg, code, letters, True)
    system = "\n".join(m.text for m in messages if m.role == "system")
    last = messages[-1].text if messages else ""
    allowed = may_ask and "QUESTION:" in system and "no questions left" not in last.lower()
    if allowed:
        asked = " ".join(m.text for m in messages if m.role == "assistant")
        for code in ranked:
            for question in topics(kg, code, facts, asked):
                if question not in asked:
                    return f"QUESTION: {question}"
    return final(kg, ranked[0], letters, False)


@offline_policy("kg-interviewer")
def kg_interviewer(messages: list[ChatMessage], model_args: dict[str, Any]) -> str:
    """Ask about the leading candidate's criteria until they are met or nothing is left."""
    return interviewer(messages, model_args, may_ask=True)


@offline_policy("opening-guess")
def opening_guess(messages: list[ChatMessage], model_args: dict[str, Any]) -> str:
    """Answer at once with the best-covered candidate."""
    return interviewer(messages, model_args, may_ask=False)
