"""Topics: what a question reader needs of a patient's fact, absent symptom or requirement.

`topic_of(fact)` is the reader's view of a case's fact; `fact_line` writes one fact into the
patient's instructions and `read_fact_lines` reads those lines back (the offline patient answers
from them).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from selfdx.datasets.interview.facts import Fact
from selfdx.datasets.interview.risk import symptom_domain
from selfdx.instruments.words import says, tokens

Subject = str  # symptom, duration, impairment, stressor, requirement, context, rule, risk
TIMED = ("duration", "impairment")


@dataclass(frozen=True)
class Topic:
    """What the matcher needs of one fact, absent symptom or unknowable requirement."""

    id: str
    subject: Subject
    text: str = ""  # description or requirement text, matched by its share of content words
    name: str = ""  # a symptom's KG name, in plain words
    cues: tuple[str, ...] = ()
    group: str | None = None  # the group a duration or impairment fact is about
    truth: str = "yes"  # yes (the patient has it), no (denied), unsure, implied (see `facts`)
    said: str = ""  # what the patient says of it, which a doctor may quote back
    # a symptom's group (for a follow-up's duration); not on the patient's fact lines
    episode: str | None = field(default=None, compare=False)
    cue_tokens: tuple[tuple[str, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cue_tokens", tuple(t for t in map(tokens, self.cues) if t))

    def cues_said(self, clause: tuple[str, ...]) -> list[frozenset[str]]:
        """The words of each of its cue phrases the clause says."""
        present = set(clause)
        return [
            frozenset(cue)
            for cue in self.cue_tokens
            if present.issuperset(cue) and says(cue, clause)
        ]


ASK_CUES_FILE = Path(__file__).with_name("ask_cues.json")


@cache
def ask_cues_by_code() -> dict[str, tuple[str, tuple[str, ...]]]:
    """`ask_cues.json`: for each symptom code, its name and the doctor's phrases for it."""
    raw = json.loads(ASK_CUES_FILE.read_text(encoding="utf-8"))["symptoms"]
    return {code: (entry["name"], tuple(entry["cues"])) for code, entry in raw.items()}


def ask_cues(fact_id: str, name: str) -> tuple[str, ...]:
    """The doctor's phrases for the symptom of `fact_id` (`S027`, `NO-S027`), when written for
    a symptom of this name (a graph with other content under the code gets none)."""
    entry = ask_cues_by_code().get(fact_id.rsplit("-", 1)[-1])
    return entry[1] if entry and entry[0].lower() == name.lower() else ()


def with_ask_cues(cues: tuple[str, ...], fact_id: str, name: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*cues, *ask_cues(fact_id, name)]))


def risk_domain(topic: Topic) -> str | None:
    """The risk domain of a topic: a risk fact's, or a risk symptom's by its name."""
    if topic.subject == "risk":
        return topic.group
    return symptom_domain(topic.name) if topic.subject == "symptom" else None


def topic_of(fact: Fact) -> Topic:
    """The matcher's view of a fact."""
    subject = "symptom" if fact.kind == "absent" else fact.kind
    if subject == "risk":
        return Topic(
            fact.id, "risk", fact.topic, "", fact.cues, fact.group, fact.truth, fact.statement
        )
    name, text = "", fact.topic
    if subject == "symptom" and ": " in fact.topic:
        name, text = fact.topic.split(": ", 1)
    return Topic(
        id=fact.id,
        subject=subject,
        text=text,
        name=name,
        cues=with_ask_cues(fact.cues, fact.id, name) if subject == "symptom" else fact.cues,
        group=fact.group if subject in TIMED else None,
        truth="no" if fact.kind == "absent" else fact.truth,
        said=fact.statement,
        episode=fact.group if subject == "symptom" else None,
    )


# One fact per line of the patient's instructions; the offline patient reads them back.
FACT_LINE = re.compile(
    r"^- \[(?P<id>[^\]]+)\] about: (?P<topic>.*?)(?: \(asked as: (?P<cues>[^)]*)\))?"
    r" \| you say: (?P<say>.*)$"
)
SYMPTOM_ID = re.compile(r"S\d+")


def fact_line(fact: Fact) -> str:
    """`- [ID] about: TOPIC (asked as: CUE; CUE) | you say: STATEMENT`"""
    cues = f" (asked as: {'; '.join(fact.cues)})" if fact.cues else ""
    return f"- [{fact.id}] about: {fact.topic}{cues} | you say: {fact.statement}"


def subject_of(fact_id: str) -> tuple[str, str, str | None]:
    """(subject, truth, group) of a fact id as `facts` names them."""
    truth, bare = "yes", fact_id
    for prefix, value in (
        ("NO-", "no"), ("UNSURE-", "unsure"), ("ALSO-", "implied"), ("CLAIM-", "claimed"),
    ):  # fmt: skip
        if fact_id.startswith(prefix):
            truth, bare = value, fact_id[len(prefix) :]
    head, _, group = bare.partition("-")
    if head in ("DURATION", "IMPAIRMENT"):
        return head.lower(), truth, group or None
    if head in ("STRESSOR", "CONTEXT", "RULE"):
        return head.lower(), truth, None
    if head == "RISK":
        return "risk", truth, group.lower() or None
    if SYMPTOM_ID.fullmatch(bare):
        return "symptom", truth, None
    return "requirement", truth, None


def read_fact_lines(text: str) -> list[tuple[Topic, str]]:
    """Every fact line of a patient prompt as (topic, what the patient says)."""
    found = []
    for line in text.splitlines():
        match = FACT_LINE.match(line.strip())
        if not match:
            continue
        subject, truth, group = subject_of(match["id"])
        topic = match["topic"]
        name = ""
        if subject == "symptom" and ": " in topic:
            name, topic = topic.split(": ", 1)
        cues = tuple(c.strip() for c in (match["cues"] or "").split(";") if c.strip())
        if subject == "symptom":
            cues = with_ask_cues(cues, match["id"], name)
        found.append(
            (
                Topic(match["id"], subject, topic, name, cues, group, truth, match["say"]),
                match["say"],
            )
        )
    return found
