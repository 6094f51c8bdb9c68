"""What one clause of a doctor's question asks about (`clause_hits`), risk aside; the rules below
are those `question_reader` reads a question by, clause by clause:

- a **symptom** is asked about when a clause says one of its cue phrases (its words in order,
  at most two other words between them)
  (plain or clinical words a doctor would use: "sleep", "hear voices"), or 60% of the content
  words of its KG description (or, for a symptom selfdx has no wording for, every telling word
  of its KG name). Where one clause matches several symptoms, a symptom whose every match is
  contained in another symptom's matches, which say more, is dropped ("need less sleep" asks
  about decreased need for sleep, not about sleep problems; "lost interest in things" about
  loss of interest, not the negative symptoms whose cue "lost interest" it says too); so is a
  symptom an area's bare word names beside one of the area's symptoms the clause names more
  specifically (`question_areas.beside_specific`); a symptom the patient lacks is not
  denied when a word of its match also matched a symptom it has (no reply affirms and denies
  the same thing);
- **duration**, **impairment** and **stressor** facts are asked about by the usual wording for
  them ("how long", "affected your work", "anything happen"). A clause that asks how something
  affects work, home or relationships asks about the impairment of what it names, not about
  that symptom again; stressor wording counts only in clauses that ask about no symptom. A
  clause that names a group's phrase ("the low spells"), or a symptom of one, asks about that
  group's duration or impairment only, else about all of them;
- a **requirement** (and the context and rule of a differential) is asked about when a clause
  holds one of its cue phrases or 60% of its content words; of several, the best-covered wins,
  and such a clause asks about nothing else (a question whether the voices come only in the
  low spells asks about that, not whether there are voices or low spells).

A clause that asks for the diagnosis itself or about someone else asks about no fact, and
diagnosis names in a clause count as no words of it (`without_names`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from selfdx.datasets.interview.patient_words import requirement_identity
from selfdx.datasets.mentalkg.diagnosis_names import find_diagnosis_names
from selfdx.instruments.paraphrase import plain_words
from selfdx.instruments.question_areas import (
    AREAS,
    area_symptoms,
    area_words,
    beside_specific,
    code_of,
)
from selfdx.instruments.question_forms import (
    DIAGNOSIS_QUESTION,
    LIFE_AREA,
    MORE_DAYS_THAN_NOT,
    OTHERS,
    SCOPE,
    TIME_SCOPE,
    TRIGGERS,
)
from selfdx.instruments.requirement_concepts import names_requirement
from selfdx.instruments.risk_questions import risk_domains, without_risk
from selfdx.instruments.topics import Topic
from selfdx.instruments.words import clauses, content_words, stem, tokens

DESCRIPTION_SHARE = 0.6
TEXT_SHARE = 0.6
VERBATIM = 0.8
CONCEPT_SHARE = 1.0


GENERIC_NAME = frozenset(
    stem(w)
    for w in "difficulty behavior behaviour activity activities negative related response "
    "symptoms symptom disturbance increased decreased excessive change changes loss feeling feel "
    "persistent self with eating".split()
)


def symptom_matches(
    topic: Topic, clause: tuple[str, ...], content: frozenset[str]
) -> list[frozenset[str]]:
    """The words by which a clause asks about a symptom, one set per way it does: each of its
    cue phrases the clause says, the share of its description the clause restates, and (for a
    symptom without cues, from a graph selfdx has no wording for) its KG name."""
    found = topic.cues_said(clause)
    described = content_words(topic.text)
    if len(described) >= 2 and len(described & content) >= DESCRIPTION_SHARE * len(described):
        found.append(described & content)
    if not topic.cue_tokens:
        name = content_words(topic.name) - GENERIC_NAME
        if name and name <= content:
            found.append(name)
    return found


def text_share(
    topic: Topic, clause: tuple[str, ...], content: frozenset[str], text: str = ""
) -> float:
    """How well a clause asks about a requirement, context or rule: above 2 when it restates
    the text (80% of the words of both in common), above 1 for a cue phrase (longer cues
    higher), else the share of the text's content words the clause holds."""
    wanted = content_words(topic.text)
    if not wanted:
        return 0.0
    common = len(wanted & content)
    if common >= VERBATIM * len(wanted | content):
        return 2.0 + common / len(wanted | content)
    cues = topic.cues_said(clause)
    if cues:
        return 1.0 + max(map(len, cues)) / 100
    if names_requirement(requirement_identity(topic.text), text):
        return CONCEPT_SHARE
    return common / len(wanted)


def bare(words: frozenset[str]) -> frozenset[str]:
    """A match without its one- and two-letter words ("amount of food" is inside "eating large
    amounts of food when not hungry", whose description match keeps no "of")."""
    return frozenset(w for w in words if len(w) > 2)


def covers(theirs: Sequence[frozenset[str]], mine: Sequence[frozenset[str]]) -> bool:
    """Whether another symptom's matches hold every one of mine and say more: each of mine
    lies in one of theirs, and one of theirs is longer or lies in none of mine ("lost
    interest in things" asks about loss of interest, not about the negative symptoms whose
    cue "lost interest" it also says)."""
    inside = all(any(bare(m) <= w for w in theirs) for m in mine)
    more = any(not any(bare(w) <= m for m in mine) for w in theirs)
    return inside and more


def symptoms_in_clause(
    symptoms: Sequence[Topic], clause: tuple[str, ...], content: frozenset[str]
) -> list[Topic]:
    """The symptoms one clause asks about (see the module for the two tie rules)."""
    matches = [(t, m) for t in symptoms if (m := symptom_matches(t, clause, content))]
    # every way it was asked about is part of another symptom's longer match: not this one
    matches = [
        (topic, mine)
        for topic, mine in matches
        if not any(covers(ws, mine) for t, ws in matches if t.id != topic.id)
    ]
    had = [w for t, ws in matches if t.truth == "yes" for w in ws]
    kept = []
    for topic, mine in matches:
        if topic.truth != "yes" and any(m & w for m in mine for w in had):
            continue  # the same words asked about a symptom the patient has
        kept.append(topic)
    return kept


def symptoms_named(symptoms: Sequence[Topic], clause: str) -> list[Topic]:
    """The symptoms a clause asks about; a mood spell that only sets the time ("during the
    highs, did you spend a lot?") is left out; named otherwise ("in a low mood"), it counts
    when the clause asks about nothing else."""
    scopes = list(SCOPE.finditer(clause))
    if scopes:
        bare = SCOPE.sub(" ", clause)
        found = symptoms_in_clause(symptoms, tokens(bare), content_words(bare))
        if found or any(TIME_SCOPE.match(m.group()) for m in scopes):
            return found
    return symptoms_in_clause(symptoms, tokens(clause), content_words(clause))


def of_groups(
    topics: Sequence[Topic], clause: tuple[str, ...], symptoms: Sequence[Topic]
) -> list[Topic]:
    """Duration or impairment topics a clause asks about: those of the groups it names (by a
    group's phrase, else through the symptoms it names), else all of them."""
    named = [t for t in topics if t.group and t.cues_said(clause)]
    groups = {s.episode for s in symptoms if s.episode}
    return named or [t for t in topics if t.group in groups] or list(topics)


def scoped(topics: Sequence[Topic], clause: tuple[str, ...]) -> list[Topic]:
    """Duration or impairment topics a clause asks about: those of the groups it names, else
    all of them."""
    named = [t for t in topics if t.group and t.cues_said(clause)]
    return named or list(topics)


# The part of a risk screen that only sets its scene: a "when", "while", "whether" or "if"
# phrase up to a comma, and "so ... that" ("so worn down by it that you'd rather not be here").
SCENE = re.compile(
    r"\b(?:when(?:ever)?|while|whether|if)\b[^,?;]*|\bso\b[^,?;]*?\bthat\b", re.IGNORECASE
)


# The doctor's sympathy, which asks nothing: "That sounds exhausting", "It must be frightening".
SYMPATHY = re.compile(
    r"^\W*(?:that|it|this|which)(?:'s|\s+(?:sounds|must\s+(?:be|have\s+been)|seems|is))"
    r"(?:\s+(?:like\s+it(?:'s|\s+is|\s+was)|really|so|very|incredibly|pretty|quite|truly|such))*"
    r"\s+(?:an?\s+)?(?:exhausting|hard|difficult|frightening|tough|awful|scary|distressing"
    r"|upsetting|horrible|draining|painful|rough|overwhelming|terrifying|a\s+lot|lonely"
    r"|isolating|worrying|stressful)\W*$",
    re.IGNORECASE,
)


def clause_hits(question: str, by_subject: dict[str, list[Topic]]) -> set[str]:
    """The ids the clauses of `question` ask about, risk aside (see the module)."""
    hit: set[str] = set()
    for clause in clauses(question):
        if DIAGNOSIS_QUESTION.search(clause) or OTHERS.search(clause) or SYMPATHY.match(clause):
            continue  # about the diagnosis, or about someone else, or sympathy: no fact asked
        # idioms first: "cut yourself off" is no screen to take out, but withdrawing
        original = clause
        clause = without_risk(plain_words(without_names(clause)))
        said, content = tokens(clause), content_words(clause)
        shares = [
            (text_share(t, said, content, clause), t)
            for subject in ("requirement", "context", "rule")
            for t in by_subject.get(subject, [])
        ]
        best = max((share for share, _ in shares), default=0.0)
        if best >= TEXT_SHARE:  # the clause asks about a requirement: nothing else
            hit |= {t.id for share, t in shares if share == best}
            if best != CONCEPT_SHARE:
                continue
        symptoms = by_subject.get("symptom", [])
        screen = bool(risk_domains(original))
        if screen:  # what sets a screen's scene ("when you're lying awake at 4am, do you
            # think of ending things?") asks about nothing of its own
            clause = SCENE.sub(" ", clause)
        found = beside_specific(clause, symptoms_named(symptoms, clause))
        added = [t for t in area_symptoms(clause, symptoms, found) if t not in found]
        # a symptom of the area the patient has, asked by the area's word: a lacked one of the
        # same area is not denied beside it
        areas = [codes for _, codes in AREAS.values() if any(
            code_of(t) in codes for t in added if t.truth == "yes")]  # fmt: skip
        words = area_words(clause) if areas else set()
        found = [
            t
            for t in found
            if t.truth == "yes"
            or not (
                any(code_of(t) in c for c in areas)
                or any(m & words for m in t.cues_said(tokens(clause)))
            )
        ]
        found += added
        if best == CONCEPT_SHARE:  # the mood the requirement names is not asked again
            found = [t for t in found if code_of(t) not in AREAS["mood"][1]]
        impaired = TRIGGERS["impairment"].search(clause) and by_subject.get("impairment")
        if impaired and (LIFE_AREA.search(clause) or not found):
            # how what it names affects life: its impairment, not the symptoms named again
            hit |= {t.id for t in of_groups(by_subject["impairment"], said, found)}
            continue
        if TRIGGERS["duration"].search(clause) and by_subject.get("duration"):
            # how long what it names has lasted: its duration, not the symptoms named again
            hit |= {t.id for t in of_groups(by_subject["duration"], said, found)}
            if MORE_DAYS_THAN_NOT.search(clause):  # whether it is there most days, too
                hit |= {t.id for t in found}
        else:
            hit |= {t.id for t in found}
        if found:
            continue
        if TRIGGERS["stressor"].search(clause) and not screen:
            # what happened: the stressor, or where the profile has none, the differential's
            # context that a stressful event came first (a screen's "since the accident" is no
            # question about the event)
            hit |= {t.id for t in by_subject.get("stressor", []) or event_contexts(by_subject)}
    return hit


EVENT = re.compile(r"\bstress|\bevent\b|\btrauma", re.IGNORECASE)


def event_contexts(by_subject: dict[str, list[Topic]]) -> list[Topic]:
    """The differential's contexts that say a stressful event came first."""
    return [t for t in by_subject.get("context", []) if EVENT.search(t.text)]


@lru_cache(maxsize=65536)
def without_names(clause: str) -> str:
    """The clause with diagnosis names taken out: "posttraumatic stress disorder" does not ask
    about a stressor, nor "major depressive disorder" about low mood."""
    for mention in reversed(find_diagnosis_names(clause)):
        clause = clause[: mention.start] + " " + clause[mention.start + len(mention.text) :]
    return clause
