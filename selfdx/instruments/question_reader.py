"""What a doctor's question asks about: the one definition the patient and the scorer share.

`asked_about(question, topics)` returns the ids of the topics (a case's facts, and what the
patient does not have or cannot say) that the question asks about. The offline patient answers
exactly those; the scorer counts a fact as elicited only when the question that revealed it
asked about it, so facts a patient volunteers do not raise recall.

The question is read clause by clause (split at `? . ! ;` and line breaks):

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
  low spells asks about that, not whether there are voices or low spells);
- a clause that asks for the diagnosis itself ("what is it called?", "is it a disorder?") or
  about someone else ("family history", "your father") asks about no fact, and diagnosis names
  in a clause count as no words of it (`is_diagnosis_question`, `without_names`);
- an open invitation that names nothing ("what brings you in?", "how have things been?", "is
  there anything else?") asks about the complaint the patient opened with, when the caller
  passes its id (`asked_about(..., opening=...)`); a quotation of the patient's own words asks
  about the fact it quotes (`quoted`), and its words about nothing else (the clauses are read
  without the quotations found in the patient's words); a turn that names nothing itself
  asks what the turn before it asked (`followed_up`: its symptoms, or their duration or
  impairment; else its event, impairment or duration);
- **risk** is read by `risk_questions` (Columbia-scale kinds, idioms and harm suffered set
  aside): a screen asks about every risk fact of its domain, had or lacked, and a question
  about self-harm also about a self-destructive-behaviour symptom; what a screen's clause says
  to set its scene ("when you're lying awake at night, ...") and the event it names are not
  asked. `told_about` then keeps a question about acts of self-harm alone from drawing out
  thoughts of death.

Words are read as `words` reads them (clauses, Snowball stems, cue phrases), idioms in plain
words first (`paraphrase`). The reader's measured quality: `selfdx/question_check`
(docs/question_check.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
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
    OPEN_QUESTION,
    OTHERS,
    QUOTED,
    SCOPE,
    TIME_SCOPE,
    TRIGGERS,
)
from selfdx.instruments.requirement_concepts import names_requirement
from selfdx.instruments.risk_questions import (
    acts_only,
    risk_domains,
    self_harm_asked,
    without_risk,
)
from selfdx.instruments.topics import Topic, risk_domain
from selfdx.instruments.words import clauses, content_words, stem, tokens


@dataclass(frozen=True)
class Reading:
    """What one doctor's turn asks about: topic ids, whether it is an open invitation, and the
    risk domains it screens the patient for."""

    asks: list[str] = field(default_factory=list)
    risk: list[str] = field(default_factory=list)
    open: bool = False


DESCRIPTION_SHARE = 0.6
TEXT_SHARE = 0.6
VERBATIM = 0.8
QUOTE_SHARE = 0.75
CONCEPT_SHARE = 1.0
SELF_DESTRUCTIVE = re.compile(r"self[\s_-]?destruct", re.IGNORECASE)


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


def asked_about(
    question: str,
    topics: Iterable[Topic],
    opening: str | None = None,
    previous: Sequence[str] = (),
) -> list[str]:
    """The ids of `topics` that `question` asks about, in the order of `topics`; `opening` is
    the id of the complaint the patient opened with (asked about by an open question);
    `previous` are the doctor's earlier turns, the last of which a follow-up may point back to."""
    topics = list(topics)
    by_subject: dict[str, list[Topic]] = {}
    for topic in topics:
        if topic.subject == "symptom" and risk_domain(topic) == "self":
            continue  # thoughts of death or suicide are asked about by a risk screen only
        by_subject.setdefault(topic.subject, []).append(topic)
    said, unquoted = quotations(question, topics)
    hit = clause_hits(unquoted, by_subject) | said
    if opening is not None and is_open(question, by_subject):
        hit.add(opening)
    if previous and not hit and not risk_asked(question):
        hit |= followed_up(question, previous[-1], by_subject)
    domains = risk_asked(question, previous)
    hit |= {t.id for t in topics if risk_domain(t) in domains}
    if "self" in domains and self_harm_asked(question):
        hit |= {t.id for t in by_subject.get("symptom", []) if SELF_DESTRUCTIVE.search(t.name)}
    # a risk the patient has is not also denied through a lacked symptom of the same domain
    had = {risk_domain(t) for t in topics if t.id in hit and t.truth == "yes"} - {None}
    hit -= {t.id for t in topics if t.truth != "yes" and risk_domain(t) in had}
    return [t.id for t in topics if t.id in hit]


def told_about(question: str, asked: Sequence[str], topics: Sequence[Topic]) -> list[str]:
    """Of the ids `question` asks about, those a patient answers: all of them, except that a
    question about acts of self-harm alone ("have you ever cut yourself?") does not draw out
    the thoughts of death the patient has (it answers the act, and denies one it has not done)."""
    if not acts_only(question):
        return list(asked)
    had = {t.id for t in topics if risk_domain(t) == "self" and t.truth == "yes"}
    return [i for i in asked if i not in had]


# The part of a risk screen that only sets its scene: a "when", "while", "whether" or "if"
# phrase up to a comma, and "so ... that" ("so worn down by it that you'd rather not be here").
SCENE = re.compile(
    r"\b(?:when(?:ever)?|while|whether|if)\b[^,?;]*|\bso\b[^,?;]*?\bthat\b", re.IGNORECASE
)


def clause_hits(question: str, by_subject: dict[str, list[Topic]]) -> set[str]:
    """The ids the clauses of `question` ask about, risk aside (see the module)."""
    hit: set[str] = set()
    for clause in clauses(question):
        if DIAGNOSIS_QUESTION.search(clause) or OTHERS.search(clause):
            continue  # about the diagnosis, or about someone else: no fact of the patient
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


def quoted(question: str, topics: Sequence[Topic]) -> set[str]:
    """The topics whose patient's words the doctor quotes back ("you said 'nothing can stop
    it'"): for each quotation, the topics whose statement holds the most of its content words,
    at least `QUOTE_SHARE` of them."""
    return quotations(question, topics)[0]


def quotations(question: str, topics: Sequence[Topic]) -> tuple[set[str], str]:
    """`quoted`'s topics, and the question without the quotations it found in the patient's
    words (a term in quotation marks that the patient never said, "'driven by a motor'",
    stays)."""
    hit: set[str] = set()
    rest = question
    for match in QUOTED.finditer(question):
        words = content_words(match.group(1) or match.group(2))
        if not words:
            continue
        shares = [(len(words & content_words(t.said)) / len(words), t.id) for t in topics if t.said]
        best = max((share for share, _ in shares), default=0.0)
        if best >= QUOTE_SHARE:
            hit |= {i for share, i in shares if share == best}
            rest = rest.replace(match.group(), " ")
    return hit, rest


def is_open(question: str, by_subject: dict[str, list[Topic]]) -> bool:
    """Whether `question` holds an open invitation: a clause that `OPEN_QUESTION` finds and
    that asks about no topic itself ("tell me more about the worry" is not open)."""
    return any(
        OPEN_QUESTION.search(clause.replace("’", "'")) and not clause_hits(clause, by_subject)
        for clause in clauses(question)
    )


def followed_up(question: str, before: str, by_subject: dict[str, list[Topic]]) -> set[str]:
    """What a follow-up that points back ("how often does that happen?") asks about: the
    symptoms the turn before asked about; its duration or its impairment when it asks how long
    or how it affects life. Of several, those the patient has (what "that" points to). Where
    the turn before asked about no symptom, the event, impairment or duration it asked about
    ("what was that change?" after "did anything happen before all this?")."""
    earlier = clause_hits(before, by_subject)
    symptoms = [t for t in by_subject.get("symptom", []) if t.id in earlier]
    if not symptoms:  # the event, the impairment or the duration the turn before asked about
        return {
            t.id
            for kind in ("stressor", "impairment", "duration")
            for t in by_subject.get(kind, [])
            if t.id in earlier
        }
    # "that" points to what the patient told: the symptoms it has or claims, where it has any
    symptoms = [t for t in symptoms if t.truth in ("yes", "claimed")] or symptoms
    for kind in ("duration", "impairment"):
        if TRIGGERS[kind].search(question) and by_subject.get(kind):
            groups = {t.episode for t in symptoms if t.episode}
            chosen = [t for t in by_subject[kind] if t.group in groups]
            return {t.id for t in chosen or by_subject[kind]}
    return {t.id for t in symptoms}


def risk_asked(question: str, previous: Sequence[str] = ()) -> list[str]:
    """The risk domains (`self`, `others`) a question screens the patient for, clause by
    clause (`risk_questions`); a follow-up of a screen in the last of `previous` screens its
    domains; a clause about the diagnosis or a relative's illness screens nothing."""
    found: set[str] = set()
    kept = [
        without_names(c)
        for c in clauses(question)
        if not (DIAGNOSIS_QUESTION.search(c) or OTHERS.search(c))
    ]
    for clause in kept:
        found |= set(risk_domains(clause))
    if not found and kept and previous:
        found |= set(risk_domains(" ".join(kept), previous))
    return [domain for domain in ("self", "others") if domain in found]


@lru_cache(maxsize=65536)
def without_names(clause: str) -> str:
    """The clause with diagnosis names taken out: "posttraumatic stress disorder" does not ask
    about a stressor, nor "major depressive disorder" about low mood."""
    for mention in reversed(find_diagnosis_names(clause)):
        clause = clause[: mention.start] + " " + clause[mention.start + len(mention.text) :]
    return clause


def is_diagnosis_question(question: str) -> bool:
    return bool(DIAGNOSIS_QUESTION.search(question))


def read_question(
    question: str,
    topics: Sequence[Topic],
    opening: str | None = None,
    previous: Sequence[str] = (),
) -> Reading:
    """The offline reading of one doctor's turn (`previous`: the doctor's earlier turns)."""
    return Reading(
        asks=asked_about(question, topics, opening, previous),
        risk=risk_asked(question, previous),
        open=is_open(question, {"symptom": [t for t in topics if t.subject == "symptom"]}),
    )
