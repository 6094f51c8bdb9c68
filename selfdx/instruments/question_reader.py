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
  contained in another symptom's longer match is dropped ("need less sleep" asks about
  decreased need for sleep, not about sleep problems), and a symptom the patient lacks is not
  denied when a word of its match also matched a symptom it has (no reply affirms and denies
  the same thing);
- **duration**, **impairment** and **stressor** facts are asked about by the usual wording for
  them ("how long", "affected your work", "anything happen"); impairment and stressor wording
  counts only in clauses that ask about no symptom (a symptom's description may mention work or
  a traumatic event). A clause that names a group's phrase ("the low spells") asks about that
  group's duration or impairment only, else about all of them;
- a **requirement** (and the context and rule of a differential) is asked about when a clause
  holds one of its cue phrases or 60% of its content words; of several, the best-covered wins,
  and such a clause asks about nothing else (a question whether the voices come only in the
  low spells asks about that, not whether there are voices or low spells);
- a clause that asks for the diagnosis itself ("what is it called?", "is it a disorder?") or
  about someone else ("family history", "your father") asks about no fact, and diagnosis names
  in a clause count as no words of it (`is_diagnosis_question`, `without_names`);
- an open question ("what brings you in?", "tell me more") asks about the complaint the patient
  opened with, when the caller passes its id (`asked_about(..., opening=...)`).

Words are read as `words` reads them (clauses, Snowball stems, cue phrases).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from selfdx.datasets.mentalkg.diagnosis_names import find_diagnosis_names
from selfdx.instruments.risk_questions import IDEATION, risk_domains
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
TRIGGERS: dict[str, re.Pattern[str]] = {
    "duration": re.compile(
        r"how long|since when|when did|when (it|this|these|they|that|the \w+) (start|began|begin)"
        r"|duration|how many (days|weeks|months|years)|\blasted\b"
        r"|\blast(ed|s)? (for|a|an|more than|at least|longer than|over)\b"
        r"|going on for|how far back|first (start|notice|began)",
        re.IGNORECASE,
    ),
    "impairment": re.compile(
        r"\b(affect|impact|interfer|disrupt|hold(ing)? you back)|get(s|ting)? in the way"
        r"|(able|hard|harder) to (work|do your job|study|look after)"
        r"|stop(ped|ping)? you (from|doing)|keep(ing)? up with|\bfunction|day[- ]to[- ]day"
        r"|daily life|everyday life|manage (at|your|with|things|day)|cop(e|ing) (at|with) "
        r"(work|school|home|daily|life|things)|how (is|are|has|have|'s)\b[^?]{0,40}\b(work|job"
        r"|school|stud|home|relationship|family|friend)",
        re.IGNORECASE,
    ),
    "stressor": re.compile(
        r"what happened|(anything|something) (\w+ )?happen|did (it|this|that) happen"
        r"|happened (to you|before|just before|then)|\bevents?\b|trauma|accident|assault"
        r"|\bloss\b|bereave|divorce|life change|\bstress|frighten|terrif|go(ne)? through"
        r"|before (this|it|all this|all of this|these|the \w+) (started|began|start|begin)"
        r"|trigger|set (it|this) off",
        re.IGNORECASE,
    ),
}
# Questions about other people's health ("family history", "did your father drink?") ask about
# no fact of the patient; "are you worried about your kids?" still asks about the patient.
RELATIVE = (
    r"\b(father|mother|dad|mum|mom|parents?|sisters?|brothers?|siblings?|relatives?"
    r"|grandparents?|family members?|(anyone (else )?)?in (your|the) family(?! life))\b"
)
ILLNESS = (
    r"\b(ill|illness|problems?|history|diagnos\w*|drink\w*|drugs?|depress\w*|anxi\w*|mental"
    r"|psychiatr\w*|suicid\w*|conditions?|disorders?|treat\w*|medication)\b"
)
OTHERS = re.compile(rf"family history|{RELATIVE}.*{ILLNESS}|{ILLNESS}.*{RELATIVE}", re.I)
# Open questions: the patient says again what brought them.
OPEN_QUESTION = re.compile(
    r"what brings you|what brought you|tell me (more|about (it|this|what|yourself|why))"
    r"|anything else|how can i help|what('s| is| has)( been)? (going on|bothering you"
    r"|troubling you|the (problem|matter|trouble))|what seems to be|why (are you|have you come"
    r"|did you come)|in your own words",
    re.IGNORECASE,
)
DIAGNOSIS_QUESTION = re.compile(
    r"diagnos|what (do you think )?(it|this) is called|what (condition|disorder|illness)"
    r"|name of (it|your|the)|\bdisorder\b|what do you (think|believe) you have",
    re.IGNORECASE,
)


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


def text_share(topic: Topic, clause: tuple[str, ...], content: frozenset[str]) -> float:
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
    return common / len(wanted)


def symptoms_in_clause(
    symptoms: Sequence[Topic], clause: tuple[str, ...], content: frozenset[str]
) -> list[Topic]:
    """The symptoms one clause asks about (see the module for the two tie rules)."""
    matches = [(t, m) for t in symptoms if (m := symptom_matches(t, clause, content))]
    # every way it was asked about is part of another symptom's longer match: not this one
    matches = [
        (topic, mine)
        for topic, mine in matches
        if not all(any(m < w for t, ws in matches if t.id != topic.id for w in ws) for m in mine)
    ]
    had = [w for t, ws in matches if t.truth == "yes" for w in ws]
    kept = []
    for topic, mine in matches:
        if topic.truth != "yes" and any(m & w for m in mine for w in had):
            continue  # the same words asked about a symptom the patient has
        kept.append(topic)
    return kept


def scoped(topics: Sequence[Topic], clause: tuple[str, ...]) -> list[Topic]:
    """Duration or impairment topics a clause asks about: those of the groups it names, else
    all of them."""
    named = [t for t in topics if t.group and t.cues_said(clause)]
    return named or list(topics)


def asked_about(question: str, topics: Iterable[Topic], opening: str | None = None) -> list[str]:
    """The ids of `topics` that `question` asks about, in the order of `topics`; `opening` is
    the id of the complaint the patient opened with (asked about by an open question)."""
    topics = list(topics)
    by_subject: dict[str, list[Topic]] = {}
    for topic in topics:
        by_subject.setdefault(topic.subject, []).append(topic)
    hit: set[str] = set()
    if opening is not None and OPEN_QUESTION.search(question):
        hit.add(opening)
    for clause in clauses(question):
        if DIAGNOSIS_QUESTION.search(clause) or OTHERS.search(clause):
            continue  # about the diagnosis, or about someone else: no fact of the patient
        clause = without_names(clause)
        said, content = tokens(clause), content_words(clause)
        domains = risk_domains(clause)
        if domains:  # the risk facts and risk symptoms of those domains, had or lacked; for
            # risk to self, an act of self-harm asked about reaches only the risk denial
            thoughts = bool(IDEATION.search(clause))
            hit |= {
                t.id
                for t in topics
                if risk_domain(t) in domains
                and (thoughts or risk_domain(t) != "self" or (t.subject, t.truth) == ("risk", "no"))
            }
        shares = [
            (text_share(t, said, content), t)
            for subject in ("requirement", "context", "rule")
            for t in by_subject.get(subject, [])
        ]
        best = max((share for share, _ in shares), default=0.0)
        if best >= TEXT_SHARE:  # the clause asks about a requirement: nothing else
            hit |= {t.id for share, t in shares if share == best}
            continue
        found = symptoms_in_clause(by_subject.get("symptom", []), said, content)
        hit |= {t.id for t in found}
        if TRIGGERS["duration"].search(clause) and by_subject.get("duration"):
            hit |= {t.id for t in scoped(by_subject["duration"], said)}
        if found:
            continue
        if TRIGGERS["impairment"].search(clause) and by_subject.get("impairment"):
            hit |= {t.id for t in scoped(by_subject["impairment"], said)}
        if TRIGGERS["stressor"].search(clause):
            hit |= {t.id for t in by_subject.get("stressor", [])}
    # a risk the patient has is not also denied through a lacked symptom of the same domain
    had = {risk_domain(t) for t in topics if t.id in hit and t.truth == "yes"} - {None}
    hit -= {t.id for t in topics if t.truth != "yes" and risk_domain(t) in had}
    return [t.id for t in topics if t.id in hit]


def risk_asked(question: str) -> list[str]:
    """The risk domains (`self`, `others`) a question asks the patient about: clause by clause,
    as `asked_about` reads it (a question about a relative's suicide asks about no risk of the
    patient's)."""
    found: set[str] = set()
    for clause in clauses(question):
        if not (DIAGNOSIS_QUESTION.search(clause) or OTHERS.search(clause)):
            found |= set(risk_domains(without_names(clause)))
    return [domain for domain in ("self", "others") if domain in found]


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
        asks=asked_about(question, topics, opening),
        risk=risk_asked(question),
        open=bool(OPEN_QUESTION.search(question)),
    )
