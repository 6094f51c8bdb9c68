"""What a doctor's question asks about: the one definition the patient and the scorer share.

`asked_about(question, topics)` returns the ids of the topics (a case's facts, and what the
patient does not have or cannot say) that the question asks about. The offline patient answers
exactly those; the scorer counts a fact as elicited only when the question that revealed it
asked about it, so facts a patient volunteers do not raise recall.

The question is read clause by clause (split at `? . ! ;` and line breaks):

- a **symptom**, a **duration**, **impairment** or **stressor** fact and a **requirement** (and
  the context and rule of a differential) are asked about as `question_clauses` reads a clause;
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

from selfdx.instruments.question_clauses import clause_hits, without_names
from selfdx.instruments.question_forms import (
    DIAGNOSIS_QUESTION,
    OPEN_QUESTION,
    OTHERS,
    QUOTED,
    TRIGGERS,
)
from selfdx.instruments.risk_questions import acts_only, risk_domains, self_harm_asked
from selfdx.instruments.topics import Topic, risk_domain
from selfdx.instruments.words import clauses, content_words


@dataclass(frozen=True)
class Reading:
    """What one doctor's turn asks about: topic ids, whether it is an open invitation, and the
    risk domains it screens the patient for."""

    asks: list[str] = field(default_factory=list)
    risk: list[str] = field(default_factory=list)
    open: bool = False


QUOTE_SHARE = 0.75
TOLD_SHARE = 0.6
SELF_DESTRUCTIVE = re.compile(r"self[\s_-]?destruct", re.IGNORECASE)


def asked_about(
    question: str,
    topics: Iterable[Topic],
    opening: str | None = None,
    previous: Sequence[str] = (),
    reply: str = "",
) -> list[str]:
    """The ids of `topics` that `question` asks about, in the order of `topics`; `opening` is
    the id of the complaint the patient opened with (asked about by an open question);
    `previous` are the doctor's earlier turns, the last of which a follow-up may point back to,
    and `reply` the patient's answer to that last turn, which "that" may point to."""
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
        hit |= followed_up(question, previous[-1], by_subject, reply)
    elif previous and hit and not risk_asked(question):
        hit = scoped_by_context(question, hit, topics, previous[-1], by_subject, reply)
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


def told_in(reply: str, symptoms: Sequence[Topic]) -> list[Topic]:
    """The symptoms whose statement the patient's reply holds (most of its content words), so
    that a follow-up's "that" points to what the patient just told."""
    words = content_words(reply)
    shares = [
        (len(said & words) / len(said), t)
        for t in symptoms
        if t.truth in ("yes", "claimed") and (said := content_words(t.said))
    ]
    return [t for share, t in shares if share >= TOLD_SHARE]


# Words that take in the whole illness, not the episode just spoken of.
WHOLE = re.compile(
    r"\ball\s+(?:of\s+)?(?:this|that|these|those|it)\b|\beverything\b|\boverall\b"
    r"|\baltogether\b|\bin\s+total\b|\bthe\s+whole\b",
    re.IGNORECASE,
)


def scoped_by_context(
    question: str,
    hit: set[str],
    topics: Sequence[Topic],
    before: str,
    by_subject: dict[str, list[Topic]],
    reply: str,
) -> set[str]:
    """A turn that asks only how long or how much it affects life, of every episode ("how long
    did the last one last?"), asks it of the episode the turn before and the reply point to
    (the high spell's duration after a question about highs), where they point to one."""
    asked = [t for t in topics if t.id in hit]
    if not asked or any(t.subject not in ("duration", "impairment") for t in asked):
        return hit
    if WHOLE.search(question):  # "how long has all of this been going on?": every episode
        return hit
    if len({t.group for t in asked}) < 2:
        return hit
    return (followed_up(question, before, by_subject, reply) & hit) or hit


def followed_up(
    question: str, before: str, by_subject: dict[str, list[Topic]], reply: str = ""
) -> set[str]:
    """What a follow-up that points back ("how often does that happen?") asks about: the
    symptoms the turn before asked about; its duration or its impairment when it asks how long
    or how it affects life. Of several, those the patient has (what "that" points to). Where
    the turn before asked about no symptom, the event, impairment or duration it asked about
    ("what was that change?" after "did anything happen before all this?")."""
    earlier = clause_hits(before, by_subject)
    symptoms = [t for t in by_subject.get("symptom", []) if t.id in earlier]
    symptoms = told_in(reply, by_subject.get("symptom", [])) or symptoms
    if not symptoms:  # the event, the impairment or the duration the turn before asked about
        # of the kind this question asks for, where it asks for one: "How has this affected your
        # work?" after "How long has all of this been going on?" asks no duration
        kinds = [k for k in ("duration", "impairment") if TRIGGERS[k].search(question)]
        return {
            t.id
            for kind in kinds or ("stressor", "impairment", "duration")
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


def is_diagnosis_question(question: str) -> bool:
    return bool(DIAGNOSIS_QUESTION.search(question))


def read_question(
    question: str,
    topics: Sequence[Topic],
    opening: str | None = None,
    previous: Sequence[str] = (),
    reply: str = "",
) -> Reading:
    """The offline reading of one doctor's turn (`previous`: the doctor's earlier turns;
    `reply`: the patient's answer to the last of them)."""
    return Reading(
        asks=asked_about(question, topics, opening, previous, reply),
        risk=risk_asked(question, previous),
        open=is_open(question, {"symptom": [t for t in topics if t.subject == "symptom"]}),
    )
