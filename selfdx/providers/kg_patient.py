"""`selfdx/kg-patient`: an offline, deterministic simulated patient for `selfdx/interview`.

It reads its facts back from the patient prompt (one line per fact, see
`selfdx.instruments.topics.fact_line`) and answers the doctor's last question with
exactly the facts the question asks about (`asked_about`, the definition the scorer uses too):

- a fact it has: its statement, in the patient's words; its id goes on the REVEALED line; a
  risk only as far up its ladder as the question reaches (`risk_levels.told_statement`: "I have
  had thoughts of killing myself" to a general screen, its plan only to a question about one);
- a symptom or requirement it lacks: its denial ("No, ..."); when a list of symptoms asks
  about three or more it lacks, one sentence says that none of them (or none of the others)
  apply;
- a requirement it cannot be sure of: "I'm honestly not sure about that."; one that follows
  from its facts without being one: its own "yes" (not revealed);
- an open question ("what brings you in?"): the complaint it opened with;
- nothing asked about: "I don't know what it is called" to a question about the diagnosis, a
  plain "not sure" to a question about how long, how it affects life or what happened (when
  the profile does not say), else a request to ask another way (never a denial: a question it
  could not place may be about something it has).

The last line lists the ids revealed (`REVEALED: S024, DURATION` or `REVEALED: none`). The same
question always gets the same answer, but for a minimising patient, whose answer depends on what
was asked before. A patient style named in the prompt (`(style: vague)`) is followed exactly as
`selfdx.datasets.interview.styles` defines it; a claimed symptom is said when asked, never
revealed, and backed by nothing concrete when a question asks for specifics (`UNBACKED`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from inspect_ai.model import ChatMessage

from selfdx.datasets.interview.facts import UNSURE
from selfdx.datasets.interview.risk_levels import told_statement
from selfdx.datasets.interview.styles import (
    CLAIM_PREFIX,
    DETAIL,
    FREQUENCY,
    GENERAL,
    PLAYED_DOWN,
    WITHHELD,
    is_stigmatised,
    matters_in,
    normalises,
    said_as,
    unbacked,
)
from selfdx.instruments.question_forms import TRIGGERS
from selfdx.instruments.question_reader import (
    asked_about,
    is_diagnosis_question,
    told_about,
)
from selfdx.instruments.risk_questions import question_reach
from selfdx.instruments.topics import Topic, read_fact_lines, risk_domain
from selfdx.providers.registry import offline_policy

DOCTOR = re.compile(r"<doctor>(.*)</doctor>", re.DOTALL)
COMPLAINT = re.compile(r"You came in because of item \[([^\]]+)\]")
STYLE = re.compile(r"\(style: (\w+)\)")
NONE_OF_THE_OTHERS = "None of the other things you mentioned apply to me."
NONE_OF_THOSE = "No, none of those things apply to me."
NOT_SURE = {
    "duration": "I'm not sure exactly how long it has been.",
    "impairment": "I couldn't really say how much it affects things.",
    "stressor": "Nothing in particular comes to mind.",
}
NOTHING = "I'm not sure what you mean; could you ask me that another way?"
DIAGNOSIS = "I don't know what it is called. That is why I came to see you."


def answer(system: str, question: str, earlier: Sequence[str] = ()) -> str:
    """The reply to `question` from the fact lines of the patient prompt `system`, in the
    style the prompt names (`earlier`: the doctor's questions before this one)."""
    text, revealed = reply(system, question, tuple(earlier))
    return text + "\nREVEALED: " + (", ".join(revealed) if revealed else "none")


def told_before(system: str, earlier: tuple[str, ...]) -> set[str]:
    """The ids the patient revealed in its replies to the `earlier` questions."""
    return {i for k, q in enumerate(earlier) for i in reply(system, q, earlier[:k])[1]}


@lru_cache(maxsize=4096)
def reply(system: str, question: str, earlier: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The words of the reply to `question` and the ids it reveals (cached: a guarded patient
    reads what it told before from its earlier replies)."""
    items = read_fact_lines(system)
    topics = [topic for topic, _ in items]
    says = {topic.id: say for topic, say in items}
    truth = {topic.id: topic.truth for topic in topics}
    names = {topic.id: topic.name for topic in topics}
    came = COMPLAINT.search(system)
    opening = came.group(1) if came else None
    before = reply(system, earlier[-1], earlier[:-1])[0] if earlier else ""
    asked = told_about(question, asked_about(question, topics, opening, earlier, before), topics)
    style_line = STYLE.search(system)
    style = style_line.group(1) if style_line else "plain"
    held = withheld(style, asked, {t.id: t for t in topics}, question, earlier, topics, opening)
    if style == "guarded" and not normalises(question):
        held |= leaking(asked, topics, says, earlier, system)
    reach = question_reach(question, earlier)
    for topic in topics:  # a risk told only as far up its ladder as the question reaches
        domain = risk_domain(topic)
        if domain is not None and topic.id in asked and topic.id != opening:
            says[topic.id] = told_statement(says[topic.id], reach[domain], domain)
    pressed = [i for i in asked if truth[i] == "claimed"] if DETAIL.search(question) else []
    told = [
        says[i]
        for i in asked
        if truth[i] in ("yes", "implied", "claimed") and i not in held and i not in pressed
    ]
    if pressed:  # a claim pressed for specifics has none to give
        told.append(unbacked([(i.removeprefix(CLAIM_PREFIX), names[i]) for i in pressed]))
    told += list(dict.fromkeys(held.values()))
    denied = [i for i in asked if truth[i] == "no"]
    if len([i for i in denied if i.startswith("NO-S")]) >= 3:
        summary = NONE_OF_THE_OTHERS if told else NONE_OF_THOSE
        denials = [says[i] for i in denied if not i.startswith("NO-S")] + [summary]
    else:
        denials = [says[i] for i in denied]
    unsure = [UNSURE] if any(truth[i] == "unsure" and i not in held for i in asked) else []
    parts = list(dict.fromkeys([*told, *denials, *unsure]))
    if not parts:
        if is_diagnosis_question(question):
            parts = [DIAGNOSIS]
        else:
            kinds = [kind for kind, pattern in TRIGGERS.items() if pattern.search(question)]
            parts = [NOT_SURE[kinds[0]] if kinds else NOTHING]
    revealed = tuple(i for i in asked if truth[i] == "yes" and i not in held)
    return " ".join(parts), revealed


def withheld(
    style: str,
    asked: list[str],
    topics: dict[str, Topic],
    question: str,
    earlier: Sequence[str],
    all_topics: list[Topic],
    opening: str | None,
) -> dict[str, str]:
    """The facts asked about that this style keeps back, each with what it says instead
    (see `selfdx.datasets.interview.styles`)."""
    had = [i for i in asked if topics[i].truth == "yes"]
    if style in ("minimising", "vague"):
        opens = FREQUENCY if style == "minimising" else DETAIL
        if opens.search(question):
            return {}
        template = PLAYED_DOWN if style == "minimising" else GENERAL
        return {
            i: said_as(template, i, topics[i].name)
            for i in had
            if topics[i].subject == "symptom" and risk_domain(topics[i]) is None
        }
    if style == "guarded":
        if normalises(question):
            return {}
        before = {i for q in earlier for i in asked_about(q, all_topics, opening, [])}
        return {
            i: WITHHELD
            for i in had
            if (len(asked) > 1 or i not in before)  # told on a second ask about it alone
            and (
                risk_domain(topics[i]) is not None
                or is_stigmatised(topics[i].subject, topics[i].name, topics[i].text)
            )
        }
    return {}


def leaking(
    asked: list[str],
    topics: list[Topic],
    says: dict[str, str],
    earlier: tuple[str, ...],
    system: str,
) -> dict[str, str]:
    """The facts asked about whose words speak of a stigmatised matter (`matters_in`) that a
    guarded patient has and has not told yet: kept back until the matter itself is told (or the
    question normalises it)."""
    by_id = {t.id: t for t in topics}
    hidden = {
        matter
        for t in topics
        if t.subject == "symptom" and t.truth == "yes"
        for matter in matters_in(f"{t.name} {t.text}")
    }
    if not hidden:
        return {}
    hidden -= {  # what it has told already, a symptom or a fact that speaks of the matter
        matter
        for i in told_before(system, earlier)
        for matter in (
            matters_in(f"{by_id[i].name} {by_id[i].text}")
            if by_id[i].subject == "symptom"
            else spoken_of(by_id[i], says[i])
        )
    }
    return {
        i: WITHHELD
        for i in asked
        if by_id[i].subject != "symptom"
        and by_id[i].truth in ("yes", "implied", "unsure")
        and risk_domain(by_id[i]) is None
        and spoken_of(by_id[i], says[i]) & hidden
    }


def spoken_of(topic: Topic, say: str) -> set[str]:
    """The stigmatised matters a reply about `topic` speaks of: its own words', and for a fact
    the patient is unsure of, the fact's ("not sure whether the voices came with the low
    spells" accepts that there were voices)."""
    return matters_in(say) | (matters_in(topic.text) if topic.truth == "unsure" else set())


@offline_policy("kg-patient")
def kg_patient(messages: list[ChatMessage], model_args: dict[str, Any]) -> str:
    """Answer the doctor's last question from the facts in the patient prompt."""
    system = "\n".join(m.text for m in messages if m.role == "system")
    asked = [m.text for m in messages if m.role == "user"]
    questions = [found.group(1) if (found := DOCTOR.search(text)) else text for text in asked]
    return answer(system, questions[-1], questions[:-1]) if questions else NOTHING
