"""Whether the patient stayed consistent over one interview: the contradictions and leaks in a
transcript, for any patient model (`patient_contradictions`, one count per case).

- **Denied what it told**: a profile fact revealed (REVEALED line) in one reply, and denied
  (`reply_stance.stance`, read by meaning) in another reply to a question that asked about
  that fact alone.
- **Leaked what it withheld**: a stigmatised symptom (`styles.fact_is_stigmatised`) asked
  about and kept back (a reply with a sentence that evades, and that does not reveal it), then,
  before any symptom of its criterion group is revealed (the opening complaint counts), a
  question about a fact that presupposes that group (its duration or impairment, or a
  requirement that names the group) answered with a yes, unless the question normalises the
  matter (`styles.normalises`: asked so, telling is what a guarded patient should do); once
  said, the matter is out and a later yes is no new leak.

Which facts a question asked about is the question reader's (`asked_about`, measured by
`selfdx/question_check`); a reply's stance is the stance reader's (docs/patient_check.md).
Both readers are independent of the patient's own rules of style.
"""

from __future__ import annotations

import re

from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.interview.styles import fact_is_stigmatised, normalises
from selfdx.datasets.mentalkg.entities import MentalKG
from selfdx.instruments.question_reader import asked_about, told_in
from selfdx.instruments.reply_stance import stance
from selfdx.instruments.topics import topic_of
from selfdx.solvers.interview.trace import InterviewRecord

SENTENCE = re.compile(r"(?<=[.!?])\s+")


def presupposed_groups(kg: MentalKG, case: InterviewCase) -> dict[str, set[str]]:
    """Fact id -> the criterion groups the fact presupposes: a duration's or impairment's own
    group, the groups a requirement names (by their KG name, "psychotic_symptoms")."""
    groups = set(kg.groups)
    found: dict[str, set[str]] = {}
    for fact in [*case.facts, *case.absent]:
        if fact.kind in ("duration", "impairment") and fact.group in groups:
            found[fact.id] = {fact.group}
        elif fact.kind == "requirement":
            text = str(fact.value or fact.topic)
            named = {g for g in groups if g in text}
            if named:
                found[fact.id] = named
    return found


def inconsistencies(case: InterviewCase, trace: InterviewRecord, kg: MentalKG) -> list[str]:
    """Each contradiction or leak in the transcript, as a line naming the turn and the fact."""
    topics = [topic_of(f) for f in [*case.facts, *case.absent]]
    by_id = {t.id: [t] for t in topics}
    facts = {f.id: f for f in case.facts}
    turns = [t for t in trace.turns if t.patient is not None and t.question is not None]
    revealed_at: dict[str, int] = {case.complaint: -1}  # the opening complaint, told unasked
    for number, turn in enumerate(turns):
        for fact_id in turn.patient.revealed:  # type: ignore[union-attr]
            revealed_at.setdefault(fact_id, number)
    presupposes = presupposed_groups(kg, case)
    found: list[str] = []
    held: dict[str, int] = {}  # stigmatised group -> turn it was first kept back
    out: set[str] = set()  # groups a yes to a presupposing fact has already said
    questions: list[str] = []
    before = ""  # the patient's words to the question before
    for number, turn in enumerate(turns):
        reply = turn.patient
        assert reply is not None and turn.question is not None
        asked = asked_about(turn.question, topics, case.complaint, questions, before)
        questions.append(turn.question)
        before = reply.shown
        said = stance(reply.shown)
        alone = asked[0] if len(asked) == 1 else None
        if alone in facts and said == "denies" and told_in(reply.shown, by_id[alone]):
            said = "affirms"  # its own statement, worded as a negation ("I don't start anything")
        if alone in facts and said == "denies" and revealed_at.get(alone, number) != number:
            found.append(f"turn {number + 1}: denied {alone}, revealed in turn "
                         f"{revealed_at[alone] + 1}")  # fmt: skip
        if alone in presupposes and said == "affirms":
            for group in presupposes[alone]:
                told = any(revealed_at.get(s, number) < number for s in kg.groups[group].pool)
                if (
                    group in held
                    and group not in out
                    and not told
                    and not normalises(turn.question)
                ):
                    found.append(f"turn {number + 1}: told {alone}, which presupposes {group} "
                                 f"kept back in turn {held[group] + 1}")  # fmt: skip
                # said now: the matter is out, under every group of the same symptoms
                members = set(kg.groups[group].pool)
                out |= {g for g, other in kg.groups.items() if members & set(other.pool)}
        if any(stance(part) == "evades" for part in SENTENCE.split(reply.shown)):
            for fact_id in asked:
                fact = facts.get(fact_id)
                if fact is None or fact.kind != "symptom" or fact_id in reply.revealed:
                    continue
                if fact_is_stigmatised(fact):
                    for group, members in kg.groups.items():
                        if fact_id in members.pool:
                            held.setdefault(group, number)
    return found
