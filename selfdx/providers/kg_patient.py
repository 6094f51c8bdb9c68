"""`selfdx/kg-patient`: an offline, deterministic simulated patient for `selfdx/interview`.

It reads its facts from the patient prompt (`- [ID] about: TOPIC | you say: STATEMENT`, and the
symptoms it does not have as `- [ID] about: TOPIC`) and answers the doctor's last question:

- a symptom (present or absent) is asked about when the question holds at least half of the
  content words of its topic (name and KG description), or most of the telling words of its
  name (not "difficulty", "change", "feeling"...: "how is your sleep?" asks about Sleep
  Disturbance); present ones are confirmed in the patient's words, absent ones denied;
- duration, impairment and stressor facts answer questions that use the usual words for them
  ("how long", "work", "happened before"...); requirements, the differential's condition and
  its rule answer questions that share half of their words;
- a question about the diagnosis gets "I don't know what it is called";
- anything else gets "I'm not sure, I haven't noticed that".

The last line lists the ids revealed (`REVEALED: S024, DURATION` or `REVEALED: none`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from inspect_ai.model import ChatMessage

from selfdx.providers.choice_policies import STOPWORDS, last_user_text
from selfdx.providers.offline import offline_policy

ITEM = re.compile(r"^- \[(?P<id>[^\]]+)\] about: (?P<topic>.*?)(?: \| you say: (?P<say>.*))?$")
DOCTOR = re.compile(r"<doctor>(.*)</doctor>", re.DOTALL)
WORD = re.compile(r"[a-z]+")
STEM = 6
SUFFIXES: tuple[tuple[str, str], ...] = (
    ("ies", "y"),
    ("ing", ""),
    ("ed", ""),
    ("es", ""),
    ("ly", ""),
    ("s", ""),
)
TRIGGERS: dict[str, tuple[str, ...]] = {
    "duration": (
        r"how long",
        r"since when",
        r"when did",
        r"duration",
        r"how many (weeks|months|years)",
        r"lasted",
    ),
    "impairment": (
        r"\bwork\b",
        r"\bjob\b",
        r"\bschool\b",
        r"daily life",
        r"day[- ]to[- ]day",
        r"function",
        r"\bcope\b",
        r"interfer",
        r"get in the way",
        r"\baffect",
        r"\bimpact",
        r"home life",
        r"relationships",
    ),
    "stressor": (
        r"happen",
        r"\bevent",
        r"trauma",
        r"accident",
        r"\bloss\b",
        r"life change",
        r"stressful",
        r"frighten",
        r"before (this|it) (started|began)",
        r"trigger",
    ),
}
DIAGNOSIS_QUESTION = re.compile(
    r"diagnos|what (do you think )?(it|this) is called|what (condition|disorder|illness)"
    r"|name of (it|your)|\bdisorder\b",
    re.IGNORECASE,
)


def stem(word: str) -> str:
    """A crude stem: one common suffix off (keeping four letters), then six letters at most."""
    for suffix, replacement in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)] + replacement
            break
    return word[:STEM]


@lru_cache(maxsize=65536)
def stems(text: str) -> frozenset[str]:
    """Content-word stems of a text (stopwords and words of three letters or fewer dropped)."""
    return frozenset(
        stem(w) for w in WORD.findall(text.lower()) if len(w) > 3 and w not in STOPWORDS
    )


# Words of KG symptom names too general to say on their own what a question is about.
GENERIC = frozenset(
    stem(w)
    for w in "difficulty behavior behaviour activity activities negative related response "
    "symptoms disturbance increased decreased excessive change changes loss feeling feel "
    "persistent self with eating".split()
)


@dataclass(frozen=True)
class Item:
    id: str
    topic: str
    say: str | None  # None: a symptom the patient does not have

    @property
    def kind(self) -> str:
        if self.id.startswith(("DURATION", "IMPAIRMENT")):
            return self.id.split("-")[0].lower()
        if self.id == "STRESSOR":
            return "stressor"
        if re.fullmatch(r"S\d+", self.id):
            return "symptom"
        return "other"


def read_items(system: str) -> list[Item]:
    items = []
    for line in system.splitlines():
        match = ITEM.match(line.strip())
        if match:
            items.append(Item(match["id"], match["topic"], match["say"]))
    return items


def asked(item: Item, question: str, words: frozenset[str]) -> bool:
    if item.kind in TRIGGERS:
        return any(re.search(p, question, re.IGNORECASE) for p in TRIGGERS[item.kind])
    topic = stems(item.topic)
    if not topic:
        return False
    if item.kind == "symptom":
        name = stems(item.topic.split(":")[0]) - GENERIC
        if name and 2 * len(name & words) > len(name):
            return True
    return len(topic & words) / len(topic) >= 0.5


def answer(system: str, question: str) -> str:
    items = read_items(system)
    words = stems(question)
    hits = [item for item in items if asked(item, question, words)]
    said = [item.say for item in hits if item.say]
    denied = [item.topic.split(":")[0].lower() for item in hits if item.say is None]
    parts = list(said)
    if denied:
        parts.append(f"No, I haven't had {', '.join(denied)}.")
    if not parts:
        if DIAGNOSIS_QUESTION.search(question):
            parts.append("I don't know what it is called. That is why I came to see you.")
        else:
            parts.append("I'm not sure. I haven't noticed anything like that.")
    revealed = [item.id for item in hits if item.say]
    return " ".join(parts) + "\nREVEALED: " + (", ".join(revealed) if revealed else "none")


@offline_policy("kg-patient")
def kg_patient(messages: list[ChatMessage], model_args: dict[str, Any]) -> str:
    """Answer the doctor's last question from the facts in the patient prompt."""
    system = "\n".join(m.text for m in messages if m.role == "system")
    last = last_user_text(messages)
    fenced = DOCTOR.search(last)
    return answer(system, fenced.group(1) if fenced else last)
