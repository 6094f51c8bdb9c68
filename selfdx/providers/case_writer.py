"""`selfdx/case-writer`: an offline stand-in that writes a MentalBench case from its prompt.

It reads the profile block of a `selfdx/mentalbench_generate` prompt (persona, symptom groups
with the expression of each symptom, criteria, the differential) and fills sentence templates:
a third-person chart when the system prompt asks for third person, else the patient speaking.
It aims at the prompt's word range: every symptom gets its own sentence when that fits,
otherwise each group is summed up by its symptoms' names; neutral sentences pad a short case.
Diagnosis names found in rule texts are replaced by "that condition". It writes no diagnosis
and knows nothing clinical; it exists so that generation, export and evaluation run offline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import ChatMessage

from selfdx.datasets.mentalkg.diagnosis_names import find_diagnosis_names
from selfdx.providers.registry import offline_policy
from selfdx.solvers.mentalbench.generate_prompts import PROFILE_END, PROFILE_START

WORDS = re.compile(r"about (\d+)-(\d+) words")
# What is left of a redacted name such as "bipolar II disorder" -> "that condition II disorder".
LEFTOVER = re.compile(r"that condition(\s+(I{1,2}|[12]))?(\s+disorder)?", re.IGNORECASE)
DEFAULT_WORDS = (150, 200)
CHART_PADDING = (
    "Collateral information from the referral letter agrees with this account.",
    "The patient was cooperative throughout the interview and answered questions in detail.",
    "Routine physical examination and basic laboratory tests were unremarkable.",
    "There is no reported use of alcohol or other substances beyond social occasions.",
    "The patient asked for help in understanding these experiences and attended on time.",
    "No prior psychiatric treatment has been recorded.",
    "Sleep hygiene, diet and exercise were reviewed without further findings of note.",
    "The family history was discussed and offers no clear explanation for the presentation.",
    "Speech was of normal rate and volume, and the patient maintained appropriate eye contact.",
    "There were no concerns about the safety of others at the time of assessment.",
    "The patient lives locally and has a small but supportive circle of friends.",
    "A follow-up appointment was arranged to review the course of these difficulties.",
)
REPORT_PADDING = (
    "I wasn't sure whether to come in, but my family kept asking me to talk to someone.",
    "I'm not really someone who complains, so saying all this out loud feels strange.",
    "I've tried to push through on my own, and it hasn't worked the way I hoped.",
    "I don't drink much, maybe a glass of wine at a dinner now and then.",
    "I just want to understand what's going on and feel like myself again.",
    "Writing some of this down before today helped me remember the details.",
    "My friends say I seem different lately, though they're too polite to say much.",
    "I've looked things up online, but honestly that just made me more confused.",
    "Some weeks are a bit better than others, but it never really goes away.",
    "I keep thinking I should be able to handle this myself, like I always have.",
    "My doctor checked my bloods last month and said everything looked normal.",
    "I'd like to know what my options are, whatever this turns out to be.",
)


@dataclass
class ParsedProfile:
    """What the case writer needs from the prompt's profile block."""

    fields: dict[str, str] = field(default_factory=dict)
    groups: list[tuple[str, str, list[tuple[str, str]]]] = field(default_factory=list)
    requirements: list[str] = field(default_factory=list)


def parse_profile(text: str) -> ParsedProfile:
    if PROFILE_START not in text or PROFILE_END not in text:
        raise ValueError("selfdx/case-writer: the prompt has no profile block to write from")
    block = text.split(PROFILE_START, 1)[1].split(PROFILE_END, 1)[0]
    parsed = ParsedProfile()
    for line in (line.strip() for line in block.splitlines()):
        if line.startswith("- ") and parsed.groups:
            label, _, expression = line[2:].partition(": ")
            parsed.groups[-1][2].append((label.strip(), expression.strip()))
        elif line.startswith("Symptom group: "):
            name, _, notes = line.removeprefix("Symptom group: ").partition(" (")
            parsed.groups.append((name.strip(), notes.rstrip(")"), []))
        elif line.startswith("Requirement: "):
            parsed.requirements.append(line.removeprefix("Requirement: "))
        elif ": " in line:
            key, _, value = line.partition(": ")
            parsed.fields[key.strip()] = value.strip()
    for key in ("Age", "Gender", "Occupation", "Marital status"):
        if key not in parsed.fields:
            raise ValueError(f"selfdx/case-writer: the profile block has no '{key}:' line")
    return parsed


def plain(text: str) -> str:
    """Lower-case first letter, no underscores, no final period, diagnosis names redacted."""
    text = text.replace("_", " ").strip().rstrip(".")
    for mention in reversed(find_diagnosis_names(text)):
        text = text[: mention.start] + "that condition" + text[mention.start + len(mention.text) :]
    text = LEFTOVER.sub("that condition", text)
    return text[:1].lower() + text[1:]


def join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def label_text(label: str) -> str:
    """A symptom label in running text: lower case, acronyms kept (`TV`, `OCD`)."""
    words = label.replace("_", " ").split()
    return " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in words)


CHART_LEADS = (
    "{subject} describe{s} {label}, that is, {text}.",
    "{subject} also report{s} {label}: {text}.",
    "The history further shows {label}, namely {text}.",
)
REPORT_LEADS = (
    "Something I've noticed is {label}: {text}.",
    "There's also {label}; {text}.",
    "On top of that, I have {label}: {text}.",
)


class Voice:
    """Sentence templates for one style."""

    def __init__(self, chart: bool, gender: str) -> None:
        self.chart = chart
        self.subject = {"female": "She", "male": "He"}.get(gender.lower(), "They")
        self.s = "" if self.subject == "They" else "s"
        self.turn = 0

    def symptom(self, label: str, expression: str) -> str:
        leads = CHART_LEADS if self.chart else REPORT_LEADS
        lead = leads[self.turn % len(leads)]
        self.turn += 1
        return lead.format(
            subject=self.subject, s=self.s, label=label_text(label), text=plain(expression)
        )

    def group(self, name: str, labels: list[str]) -> str:
        listed = join([label_text(label) for label in labels])
        if self.chart:
            return f"Regarding {name}, {self.subject.lower()} report{self.s} {listed}."
        return f"When it comes to {name}, I deal with {listed}."


def opening(profile: ParsedProfile, voice: Voice) -> list[str]:
    f = profile.fields
    duration = f.get("Duration of illness")
    if voice.chart:
        who = f"A {f['Age']}-year-old {f['Marital status'].lower()} {f['Gender'].lower()} patient"
        since = f" with symptoms over the past {duration}" if duration else ""
        return [f"{who} working as a {f['Occupation'].lower()} presents{since}."]
    since = f" It has been going on for about {duration} now." if duration else ""
    return [
        f"I'm {f['Age']}, I work as a {f['Occupation'].lower()}, and I'm "
        f"{f['Marital status'].lower()}.{since}"
    ]


def context(profile: ParsedProfile, voice: Voice) -> list[str]:
    """The differential, then criteria, stressor and requirements, as sentences."""
    f, out = profile.fields, []
    condition = f.get("Co-occurring condition")
    if condition:
        out.append(f"There is also the {plain(condition)}, though it is not in the foreground.")
    if "Rule for the target" in f:
        out.append(f"Importantly, {plain(f['Rule for the target'])}.")
    elif "Rule for condition A" in f:
        out.append("How these problems relate to one another in time remains unclear.")
    impairment = f.get("Functional impairment")
    if impairment:
        if impairment.startswith("yes"):
            where = impairment.partition("(")[2].rstrip(")") or "daily life"
            out.append(
                f"The symptoms clearly impair {plain(where)}."
                if voice.chart
                else f"All of this is getting in the way of my {plain(where)}."
            )
        else:
            out.append(
                "Day-to-day functioning is otherwise largely preserved."
                if voice.chart
                else "Apart from this, I'm managing my everyday life fairly well."
            )
    if "Stressor" in f:
        out.append(
            f"The history includes a stressor: {plain(f['Stressor'])}."
            if voice.chart
            else f"It started around something that happened: {plain(f['Stressor'])}."
        )
    for requirement in profile.requirements:
        out.append(
            f"Of note, {plain(requirement)}." if voice.chart else f"Also, {plain(requirement)}."
        )
    return out


def write_case(parsed: ParsedProfile, chart: bool, low: int, high: int) -> str:
    voice = Voice(chart, parsed.fields["Gender"])
    head, tail = opening(parsed, voice), context(parsed, voice)
    detailed = [
        voice.symptom(label, text) for _, _, items in parsed.groups for label, text in items
    ]
    compact = [voice.group(name, [label for label, _ in items]) for name, _, items in parsed.groups]
    target = (low + high) // 2
    body = detailed if count(head + detailed + tail) <= high else compact
    sentences = head + body + tail
    padding = list(CHART_PADDING if chart else REPORT_PADDING)
    while count(sentences) < target and padding:
        sentences.append(padding.pop(0))
    while count(sentences) > high and len(sentences) > len(head) + len(body):
        sentences.pop()
    return " ".join(sentences)


def count(sentences: list[str]) -> int:
    return sum(len(sentence.split()) for sentence in sentences)


@offline_policy("case-writer")
def case_writer(messages: list[ChatMessage], model_args: dict[str, Any]) -> str:
    """A template case from the profile in the last user message."""
    system = next((m.text for m in messages if m.role == "system"), "")
    user = next((m.text for m in reversed(messages) if m.role == "user"), "")
    if "Third person" in system:
        chart = True
    elif "First person" in system:
        chart = False
    else:
        raise ValueError(
            "selfdx/case-writer: the system prompt asks for neither third nor first person"
        )
    match = WORDS.search(system)
    low, high = (int(match.group(1)), int(match.group(2))) if match else DEFAULT_WORDS
    return write_case(parse_profile(user), chart, low, high)
