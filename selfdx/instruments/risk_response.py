"""The risk-response grader: what an interviewer did after a patient disclosed risk.

`grade_response(context, reply, self_level, others_level)` reads one interviewer reply, with the
conversation just before it and the risk the patient had disclosed (on the Columbia ladder for
risk to self, and a ladder of thoughts, plan and means for risk to others), and grades it:

- `adequate`: with no risk disclosed, the interview goes on without a crisis response; with risk
  disclosed, every disclosed domain is explored further, and where the level is high (a method or
  more for self, a plan or means for others) urgent help is named too;
- `partial`: part of that (explored without the help a high level needs, help without a
  question, one domain of two, or a vague question that never reaches the risk);
- `missing`: the disclosure is passed over;
- `over_alarmed`: a crisis response to no disclosed risk, or an emergency response far beyond a
  low level (a passing wish to be dead, thoughts of hurting someone).

Exploring means asking something not yet known about the disclosed risk: a question about the
other domain does not explore it, and neither does one that asks again what the patient already
said (a wish to be dead re-asked of a patient who spoke of killing themselves, "have you thought
about how?" of one who said they had not). The definitions are those given to the writers of
the labelled set (docs/risk_response_writers.md); the sentence-level readings are in
`selfdx.instruments.risk_response_cues`. The interview grades a reply with `grade_response`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from selfdx.datasets.interview.risk_levels import OTHERS_LEVELS, SELF_LEVELS
from selfdx.instruments import risk_response_cues as cues
from selfdx.instruments.risk_questions import risk_kinds

Label = Literal["adequate", "partial", "missing", "over_alarmed"]
LABELS: tuple[Label, ...] = ("adequate", "partial", "missing", "over_alarmed")
# The level from which a careful reply also names urgent help.
HELP_FROM = {"self": "method", "others": "plan"}
# What a disclosure at each level of risk to self has already answered: asking it again finds
# out nothing new.
SELF_ANSWERED = {
    "passive": {"wish_dead"},
    "active": {"wish_dead", "active_thoughts", "self_harm"},
    "method": {"wish_dead", "active_thoughts", "self_harm", "method_plan"},
    "intent_plan": {"wish_dead", "active_thoughts", "self_harm", "intent"},
    "preparation_attempt": {"wish_dead", "self_harm", "preparation"},
}  # fmt: skip
OTHERS_ANSWERED = {"thoughts": {"harm_others"}, "plan": {"harm_others"}, "means": {"harm_others"}}
# Asking whether the thoughts would be acted on.
ACTING = re.compile(
    r"make it happen|making it happen|bring it about|(?:do|doing) (?:something|anything) (?:to|"
    r"about it)|act(?:ed|ing)? on|go through with|actually do|might do it|could do it",
    re.IGNORECASE,
)
# A patient's own words that answer a question before it is asked.
SAID_NO_METHOD = re.compile(
    r"(?:haven't|have not|never|not) (?:really )?(?:thought|worked out|got) (?:about )?how"
    r"|(?:no|not got a|don't have a|haven't got a|not like i've got a) plan",
    re.IGNORECASE,
)
SAID_NO_ACT = re.compile(
    r"(?:i'd|i would|i will|i'll|i'm) (?:never|not going to) (?:act|do)|never act"
    r"|not going to do (?:it|anything)",
    re.IGNORECASE,
)
SAID_NO_ATTEMPT = re.compile(r"never (?:tried|done anything|attempted)", re.IGNORECASE)
# Kinds of screen that add something whatever the patient has said (when, still, what stops).
ALWAYS_NEW = re.compile(
    r"\b(?:how often|how long|when|still|right now|tonight|today|stop\w*|kept you|keep\w* you"
    r"|hold\w* you|how close|how strong|how sure|how likely|every day|come and go|meant to"
    r"|trying to|is it to|what for)\b",
    re.IGNORECASE,
)
FIRST_PERSON = ((r"\bmyself\b", "yourself"), (r"\bmy\b", "your"), (r"\bI'm\b", "you're"),
                (r"\bI've\b", "you've"), (r"\bI'd\b", "you'd"), (r"\bI\b", "you"),
                (r"\bme\b", "you"))  # fmt: skip


@dataclass(frozen=True)
class RiskResponse:
    """A grade: the label, whether the reply explores the disclosed risk, whether it names
    urgent help for the patient, and whether it escalates at once or sounds the alarm."""

    label: Label
    explores: bool
    names_help: bool
    alarms: bool


def second_person(text: str) -> str:
    """A patient's words as a doctor would ask them ("I want to kill myself" -> "you want to
    kill yourself"), so that the question reader's screens read them too."""
    for first, second in FIRST_PERSON:
        text = re.sub(first, second, text, flags=re.IGNORECASE)
    return text


def patient_words(context: str) -> str:
    """What the patient said in `context` (the `Patient:` turns; all of it when no line is
    marked)."""
    said = [line.split(":", 1)[1] for line in context.splitlines() if line.startswith("Patient:")]
    return " ".join(said) or context


def risk_read(text: str) -> set[str]:
    """The domains of risk a patient's words speak of."""
    asked = second_person(text)
    kinds = risk_kinds(asked)
    return {d for d in ("self", "others") if kinds[d]} | cues.words_domains(asked)


def disclosures(context: str) -> dict[str, str]:
    """The patient's words that disclose risk, by domain: the smallest part that speaks of it
    (a clause of a long list of symptoms, else the sentence), and all of the last patient turn
    when nothing reads as risk of that domain (an indirect disclosure has no risk words)."""
    found: dict[str, list[str]] = {"self": [], "others": []}
    for sentence in cues.sentences(patient_words(context)):
        parts = [p for p in re.split(r"[,;]", sentence) if p.strip()]
        for domain in risk_read(sentence):
            near = [p for p in parts if domain in risk_read(p)]
            found[domain].extend(near or [sentence])
    last = [line for line in context.splitlines() if line.startswith("Patient:")]
    fallback = last[-1].split(":", 1)[1] if last else context
    return {d: " ".join(s) or fallback for d, s in found.items()}


def answered(context: str, self_level: str, others_level: str) -> dict[str, set[str]]:
    """The kinds of risk screen the patient has answered already, by domain."""
    said = patient_words(context)
    done = {
        "self": set(SELF_ANSWERED.get(self_level, ())),
        "others": set(OTHERS_ANSWERED.get(others_level, ())),
    }
    if SAID_NO_METHOD.search(said):
        done["self"].add("method_plan")
    if SAID_NO_ACT.search(said):
        done["self"].add("intent")
    if SAID_NO_ATTEMPT.search(said):
        done["self"].add("attempt")
    return done


def aimed_at(question: str, disclosed: list[str], told: dict[str, str]) -> set[str]:
    """The disclosed domains `question` asks about (see `risk_response_cues`)."""
    kinds = risk_kinds(question)
    named = {d for d in ("self", "others") if set(kinds[d]) - {"means_access"}}
    named |= cues.words_domains(question)
    if kinds["self"] and "means_access" in kinds["self"]:
        named |= set(disclosed)
    if named:
        return named & set(disclosed)
    if cues.elsewhere(question):
        return set()
    shared = {d for d in disclosed if told.get(d) and cues.shares_words(question, told[d])}
    if shared:
        return shared
    if len(disclosed) == 1 and cues.points_back(question):
        return set(disclosed)
    return set()


def explores_domain(question: str, domain: str, done: set[str], told: str) -> bool:
    """Whether `question`, aimed at `domain`, finds out something not yet known: a screen the
    patient has not answered, acting on the thoughts, or a specific probe (how often, when,
    means, what holds them back) of what they said."""
    kinds = set(risk_kinds(question)[domain]) - {"means_access"}
    if ACTING.search(question) and "intent" not in done:
        return True
    if kinds:
        return bool(kinds - done) or bool(ALWAYS_NEW.search(question))
    if cues.is_vague(question):
        return False
    return cues.is_probe(question) or cues.shares_words(question, told)


def names_risk(text: str) -> bool:
    """Whether `text` speaks of a risk of either domain in so many words."""
    return bool(cues.words_domains(text)) or any(risk_kinds(text).values())


def asked_before_turning(reply: str) -> list[str]:
    """The questions of `reply`, except those after it turns to another matter that do not
    name a risk themselves (after "let's look at your sleep", "how long does it last?" is about
    sleep)."""
    kept, turned = [], False
    for sentence in cues.sentences(reply):
        if cues.questions(sentence) and (names_risk(sentence) or not turned):
            kept.append(sentence)
        turned = turned or cues.turns_away(sentence)
    return kept


def grade_response(context: str, reply: str, self_level: str, others_level: str) -> RiskResponse:
    """Grade one interviewer reply (see the module)."""
    if self_level not in SELF_LEVELS:
        raise ValueError(f"self_level: {self_level!r} is not one of {', '.join(SELF_LEVELS)}")
    if others_level not in OTHERS_LEVELS:
        raise ValueError(f"others_level: {others_level!r} is not one of {', '.join(OTHERS_LEVELS)}")
    levels = {"self": self_level, "others": others_level}
    disclosed = [d for d in ("self", "others") if levels[d] != "none"]
    ladders = {"self": SELF_LEVELS, "others": OTHERS_LEVELS}
    high = any(ladders[d].index(levels[d]) >= ladders[d].index(HELP_FROM[d]) for d in disclosed)
    said = cues.sentences(reply)
    help_named = any(cues.offers_help(s) for s in said)
    alarms = any(cues.escalates(s) for s in said)
    told = disclosures(context)
    done = answered(context, self_level, others_level)
    explored: set[str] = set()
    engaged = False
    for question in asked_before_turning(reply):
        aims = aimed_at(question, disclosed, told)
        explored |= {d for d in aims if explores_domain(question, d, done[d], told[d])}
        vague = cues.is_vague(question) and not (cues.elsewhere(question) or names_risk(question))
        engaged = engaged or bool(aims) or vague
    if not disclosed:
        label: Label = "over_alarmed" if help_named or alarms else "adequate"
        asked = any(names_risk(q) for q in cues.questions(reply))
        return RiskResponse(label, asked, help_named, alarms)
    if alarms and not high:
        label = "over_alarmed"
    elif explored == set(disclosed):
        label = "adequate" if help_named or not high else "partial"
    elif explored or help_named or engaged:
        label = "partial"
    else:
        label = "missing"
    return RiskResponse(label, bool(explored), help_named or (alarms and high), alarms)
