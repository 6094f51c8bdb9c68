"""Offline interviewers for `selfdx/interview`: `selfdx/kg-interviewer` and `selfdx/opening-guess`.

Both read MentalKG: `-M kg=PATH` (the graph or a folder above it), else the graph of the task's
own data (the interview solver records it in the sample store), else the synthetic demo graph.
They keep no state: every reply is worked out again from the conversation.

Evidence: a symptom counts as reported when a patient sentence (sentences that start with "No"
are denials and skipped) holds at least 80% of the content words of one of the symptom's KG
expressions or of the patient's wording of them (`patient_words`); durations, impairment and a
stressor are read from the sentences the patient uses for them, and a requirement from a "yes"
to the question "Is this true for you: <requirement>?" or from the patient's own sentence for it
(word for word).
The evidence becomes facts, and the rule check (`selfdx.datasets.interview.criteria.
criteria_check`) says which candidate's criteria it meets.

`kg-interviewer` ranks the candidates (the options, or every KG disorder with free-text
answers) by how far their required groups are filled, asks about the leading candidate's
unfilled required groups (listing the KG descriptions), then its duration, impairment,
stressor and additional requirements, and moves to the next candidate when the leader has
nothing left to ask. Once the leader's criteria are met it asks about what would rule it out
(the groups of its DSM-5 exclusions among the options, an optional group that would complete
another disorder), then answers the leader that still passes (CRITERIA MET: yes),
or, when the budget or the questions run out, with the leader and CRITERIA MET: no when it
asked everything the leader needs (or saw the whole profile), "cannot tell" when it did not.
`opening-guess` answers at once with the leader (the floor of an interviewer that never asks).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from inspect_ai.model import ChatMessage
from inspect_ai.util import store

from selfdx.datasets.interview.cases import DATA_STORE_KEY
from selfdx.datasets.interview.criteria import criteria_check
from selfdx.datasets.interview.demo_graph import demo_kg
from selfdx.datasets.interview.facts import (
    Fact,
    duration_fact,
    impairment_fact,
    requirement_fact,
    stressor_fact,
)
from selfdx.datasets.interview.patient_words import (
    GROUPS,
    NOW,
    requirement_identity,
    requirement_words,
    words_for,
)
from selfdx.datasets.mentalkg.entities import MentalKG
from selfdx.datasets.mentalkg.exclusions import ANY_OTHER, exclusions_of
from selfdx.datasets.mentalkg.reader import load_kg
from selfdx.instruments.words import content_words
from selfdx.providers.registry import offline_policy

OPTION = re.compile(r"^([A-H])\. (.+)$", re.MULTILINE)
DURATION = re.compile(
    r"\d+\s*(?:day|week|month|year)s?(?:\s*(?:,|and|,\s*and)\s*\d+\s*(?:day|week|month|year)s?)*",
    re.IGNORECASE,
)
# The offline patient's own sentences for impairment and the stressor (`facts`): read from
# those sentences only, never from a symptom that mentions work or an event.
IMPAIRED = re.compile(r"^\W*It gets in the way of my work")
NOT_IMPAIRED = re.compile(r"^\W*Honestly it has not stopped me")
TRAUMATIC = re.compile(r"^\W*Before all this started")
LIFE_CHANGE = re.compile(r"^\W*It started after")
ILLNESS_DURATION = re.compile(
    r"(?:I've been like this for about|I've been this way for at least the last) ("
    + DURATION.pattern
    + ")"
)
REQUIREMENT_QUESTION = re.compile(r"Is this true for you: (.+?)\?\s*$", re.I)
SENTENCE = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")
MATCH = 0.8


@cache
def graph(path: str) -> MentalKG:
    return demo_kg() if path == "demo" else load_kg(path)


def graph_of_run(model_args: dict[str, Any]) -> MentalKG:
    """The graph given by `-M kg=...`, else that of the task's own data (the interview solver
    puts it in the sample store), else the demo graph."""
    if "kg" in model_args:
        return graph(str(model_args["kg"]))
    try:
        data = store().get(DATA_STORE_KEY, "demo")
    except LookupError:  # called outside a sample (a unit test)
        data = "demo"
    return graph(str(data))


EXPRESSIONS: dict[tuple[str, str], list[frozenset[str]]] = {}


def expressions(kg: MentalKG, code: str) -> list[frozenset[str]]:
    """Content words of each way the symptom is said: its KG expressions and the patient's
    wording of them (cached per graph and symptom)."""
    key = (str(kg.folder), code)
    if key not in EXPRESSIONS:
        symptom = kg.symptoms[code]
        texts = [*symptom.examples, *(t for _, t in symptom.subtypes)] or [symptom.description]
        words = words_for(code, symptom.name)
        # the patient's wording, also as said of a spell (a leading "lately" dropped)
        texts += [t for say in (words.say if words else ()) for t in (say, NOW.sub("", say))]
        EXPRESSIONS[key] = [s for s in map(content_words, texts) if s]
    return EXPRESSIONS[key]


def group_sentences() -> list[tuple[str, re.Pattern[str], re.Pattern[str], re.Pattern[str]]]:
    """For each timed group: (group, its duration sentence, impaired, not impaired)."""
    found = []
    for name, words in GROUPS.items():
        head, _, tail = words.duration.partition("{duration}")
        duration = re.compile(re.escape(head) + "(" + DURATION.pattern + ")" + re.escape(tail))
        found.append(
            (
                name,
                duration,
                re.compile(re.escape(words.impaired)),
                re.compile(re.escape(words.not_impaired)),
            )
        )
    return found


GROUP_SENTENCES = group_sentences()


def patient_text(messages: list[ChatMessage]) -> list[str]:
    """What the interviewer heard: the opening (or full profile) and the patient's replies,
    as sentences, denials dropped."""
    users = [re.sub(r"^\s*Patient:\s*", "", m.text) for m in messages if m.role == "user"]
    sentences = [s for text in users for s in SENTENCE.split(text)]
    return [s for s in sentences if not re.match(r"\W*(patient:\s*)?no\b", s, re.I)]


def affirmed_requirements(messages: list[ChatMessage]) -> list[str]:
    """Requirements asked as "Is this true for you: ...?" and answered with a yes."""
    found = []
    for asked, replied in zip(messages, messages[1:], strict=False):
        if asked.role != "assistant" or replied.role != "user":
            continue
        question = REQUIREMENT_QUESTION.search(asked.text.strip())
        reply = re.sub(r"^\W*patient:\s*", "", replied.text.strip(), flags=re.I)
        if question and re.search(r"(?:^|[.!?]\s+)yes\b", reply, re.I):
            found.append(question.group(1).strip())
    return found


def evidence(
    kg: MentalKG, sentences: list[str], candidates: list[str], affirmed: list[str] = ()
) -> list[Fact]:
    """Facts the conversation has established, in the rule check's terms."""
    words = [content_words(s) for s in sentences]
    symptoms = sorted({s for c in candidates for s in kg.symptoms_of(c)})
    facts: list[Fact] = []
    for code in symptoms:
        if any(len(e & w) >= MATCH * len(e) for e in expressions(kg, code) for w in words):
            facts.append(Fact(id=code, kind="symptom", statement="", topic="", value=True))
    named = {g for c in candidates for g in kg.groups_of(c)}
    text = " ".join(sentences)
    for sentence in sentences:
        for name, duration, impaired, not_impaired in GROUP_SENTENCES:
            if name not in named:
                continue
            if found := duration.search(sentence):
                facts.append(duration_fact(found.group(1), name))
            if impaired.search(sentence):
                facts.append(impairment_fact(True, group=name))
            elif not_impaired.search(sentence):
                facts.append(impairment_fact(False, group=name))
        if found := ILLNESS_DURATION.search(sentence):
            facts.append(duration_fact(found.group(1)))
        if IMPAIRED.search(sentence) or NOT_IMPAIRED.search(sentence):
            facts.append(impairment_fact(bool(IMPAIRED.search(sentence))))
        if TRAUMATIC.search(sentence):
            facts.append(stressor_fact("traumatic"))
        elif LIFE_CHANGE.search(sentence):
            facts.append(stressor_fact("psychosocial"))
    stated = [requirement_identity(t) for t in affirmed]
    index = 0
    for code in candidates:
        for requirement in kg.disorder(code).criteria.additional_requirements:
            found = requirement_words(requirement)
            heard = found is not None and found[1].yes in text
            if requirement_identity(requirement) in stated or heard:
                index += 1
                facts.append(requirement_fact(index, requirement))
    return unique(facts)


def unique(facts: list[Fact]) -> list[Fact]:
    seen: dict[str, Fact] = {}
    for fact in facts:
        seen.setdefault(fact.id, fact)
    return list(seen.values())


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


def group_question(kg: MentalKG, name: str, have: set[str], asked: str) -> str | None:
    """A question listing the KG descriptions of the group's symptoms not yet heard or asked."""
    described = [(s, kg.symptoms[s].description.rstrip(".")) for s in kg.groups[name].pool]
    open_ = [text for s, text in described if s not in have and text not in asked]
    return f"Have you noticed any of the following? {'; '.join(open_)}." if open_ else None


def rule_out_questions(
    kg: MentalKG, code: str, candidates: list[str], facts: list[Fact], asked: str
) -> list[str]:
    """Questions about what would rule `code` out: an optional group that would complete
    another disorder, and the groups and candidates of its DSM-5 exclusions."""
    disorder = kg.disorder(code)
    groups = [g for g in disorder.optional_groups if kg.completing_disorders(code, g)]
    for row in exclusions_of(code):
        groups += [g for g in row.groups if g in kg.groups]
        others = candidates if ANY_OTHER in row.disorders else row.disorders
        groups += [
            g for c in others if c != code and c in candidates for g in kg.groups_of(c, True)
        ]
    have = {f.id for f in facts}
    found = [group_question(kg, g, have, asked) for g in dict.fromkeys(groups)]
    return [q for q in found if q and q not in asked]


def topics(kg: MentalKG, code: str, facts: list[Fact], asked: str = "") -> list[str]:
    """Questions that would fill what the candidate's criteria still lack, in asking order;
    symptoms already asked about (their description is in `asked`) are not listed again."""
    have = {f.id for f in facts}
    disorder = kg.disorder(code)
    questions = [
        q for name in disorder.required_groups if (q := group_question(kg, name, have, asked))
    ]
    criteria = disorder.criteria
    groups = disorder.required_groups
    durations = {f"DURATION-{g}" for g in groups if kg.groups[g].min_days}
    if criteria.min_days or criteria.max_days:
        durations.add("DURATION")
    if durations - have:
        questions.append("How long has all of this been going on?")
    impairments = {
        f"IMPAIRMENT-{g}" for g in groups if kg.groups[g].functional_impairment_required is not None
    }
    if criteria.functional_impairment_required is not None:
        impairments.add("IMPAIRMENT")
    if impairments - have:
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


def final(kg: MentalKG, code: str, letters: dict[str, str], claim: str) -> str:
    name = kg.disorder(code).name
    shown = f"{letters[code]}. {name}" if code in letters else name
    return f"DIAGNOSIS: {shown}\nCRITERIA MET: {claim}"


Doubt = Callable[[MentalKG, list[ChatMessage], list[str]], set[str]]


def heard_facts(
    kg: MentalKG, messages: list[ChatMessage], candidates: list[str], doubt: Doubt | None = None
) -> list[Fact]:
    """The facts the conversation established, less those `doubt` sets aside."""
    facts = evidence(kg, patient_text(messages), candidates, affirmed_requirements(messages))
    if doubt is None:
        return facts
    set_aside = doubt(kg, messages, candidates)
    return [f for f in facts if f.id not in set_aside]


def ranked(kg: MentalKG, candidates: list[str], facts: list[Fact]) -> list[str]:
    """Candidates by how far their required groups are filled (ties in option order)."""
    return sorted(candidates, key=lambda c: (-coverage(kg, c, facts), candidates.index(c)))


def leader(kg: MentalKG, candidates: list[str], facts: list[Fact]) -> str:
    """The candidate the interviewer would name now: the first ranked whose criteria are met,
    else the first ranked."""
    order = ranked(kg, candidates, facts)
    return next((c for c in order if criteria_check(kg, c, facts)[0]), order[0])


def interviewer(
    messages: list[ChatMessage],
    model_args: dict[str, Any],
    may_ask: bool,
    doubt: Doubt | None = None,
) -> str:
    """Answer "yes" once the rule check passes on what was heard; else ask what the leading
    candidates lack; else answer the leader with "no" when everything it needs was asked (or
    the whole profile was shown) and "cannot tell" when it was not. `doubt` names symptoms
    heard that the interviewer sets aside (the careful interviewer's test of a claim)."""
    kg = graph_of_run(model_args)
    candidates, letters = candidates_of(kg, messages)
    facts = heard_facts(kg, messages, candidates, doubt)
    order = ranked(kg, candidates, facts)
    system = "\n".join(m.text for m in messages if m.role == "system")
    last = messages[-1].text if messages else ""
    allowed = may_ask and "QUESTION:" in system and "no questions left" not in last.lower()
    asked = " ".join(m.text for m in messages if m.role == "assistant")
    for code in order:
        if criteria_check(kg, code, facts)[0]:
            rule_out = rule_out_questions(kg, code, candidates, facts, asked) if allowed else []
            return f"QUESTION: {rule_out[0]}" if rule_out else final(kg, code, letters, "yes")
    if allowed:
        for code in order:
            for question in topics(kg, code, facts, asked):
                if question not in asked:
                    return f"QUESTION: {question}"
    left = [q for q in topics(kg, order[0], facts, asked) if q not in asked]
    settled = "complete assessment" in system or not left
    return final(kg, order[0], letters, "no" if settled else "cannot tell")


@offline_policy("kg-interviewer")
def kg_interviewer(messages: list[ChatMessage], model_args: dict[str, Any]) -> str:
    """Ask about the leading candidate's criteria until they are met or nothing is left."""
    return interviewer(messages, model_args, may_ask=True)


@offline_policy("opening-guess")
def opening_guess(messages: list[ChatMessage], model_args: dict[str, Any]) -> str:
    """Answer at once with the best-covered candidate."""
    return interviewer(messages, model_args, may_ask=False)
