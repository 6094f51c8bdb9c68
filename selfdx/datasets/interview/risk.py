"""Risk in the interview: which facts are a risk to the patient or to others, the risk facts a
profile is given, and when a question asks about risk.

Two domains: `self` (thoughts of death or suicide, self-harm) and `others` (harming someone
else). A profile's risk facts are its MentalKG symptoms of those kinds (thoughts of death or
suicide in a depressive episode, aggression in intermittent explosive disorder) and, for a
seeded share of the profiles that have none, an added passive wish to be dead (`RISK-SELF`).
Where a profile has no risk of a domain, the patient denies it when asked (`NO-RISK-SELF`,
`NO-RISK-OTHERS`). A question asks about a domain when `RISK_QUESTIONS` finds it, directly or
in the indirect words clinicians use ("life not worth living", "better off without you",
"are you safe?"); the simulated patient answers exactly those questions with its risk facts.
"""

from __future__ import annotations

import hashlib
import re
from typing import Literal

from selfdx.datasets.interview.facts import Fact

RiskDomain = Literal["self", "others"]
DOMAINS: tuple[RiskDomain, ...] = ("self", "others")
# The share of profiles without a risk symptom that are given `RISK-SELF`.
RISK_SHARE = 0.2

# A symptom is a risk fact when its KG name says so (`Death_Suicide`, `Thoughts_Of_Death`,
# `Irritability_Aggression`); reckless behaviour is asked about as itself.
RISK_SYMPTOMS: dict[RiskDomain, re.Pattern[str]] = {
    "self": re.compile(r"suicid|death|dying|self[\s_-]?harm", re.IGNORECASE),
    "others": re.compile(r"aggress|violen|homicid", re.IGNORECASE),
}

_YOU = r"(?:yourself|your own body)"
# Thoughts of death or suicide; then acts of self-harm. Both are risk screening; a thought the
# patient has is told only when thoughts are asked about ("have you cut yourself?" asks about an
# act, which the patient without one denies).
_IDEATION = (
    r"suicid",
    r"kill(?:ing)? yourself",
    r"end(?:ing)? (?:your (?:own )?life|it all|things)",
    r"tak(?:e|ing) (?:your (?:own )?life)",
    r"better off (?:dead|without you|not here|gone)",
    r"wish(?:ed|ing)? (?:you were|to be|you'?d be) dead",
    r"(?:wish|want)(?:ed|ing)? (?:you )?(?:could )?(?:to )?die",
    r"(?:not|never) (?:to )?wake up",
    r"(?:not|n't) (?:want(?:ing|ed)?|wish(?:ing|ed)?) to (?:live|be alive|be here|go on|wake up)",
    r"(?:life|living|going on)(?: is| isn't| is not| wasn't| was not| feels?| felt| seems?)?"
    r"(?: not)? worth (?:living|it|going on)",
    r"thoughts? (?:of|about) (?:death|dying|ending|not being (?:alive|here))",
    r"(?:think|thought|thinking) about (?:death|dying)",
    r"^(?:and )?(?:are|do you feel|have you felt) (?:you )?safe(?: right now| at the moment)?$",
)
_SELF_HARM = (
    r"(?:harm|hurt|injur|cut|burn)(?:s|ed|ing)? " + _YOU,
    r"self[- ]?(?:harm|injur)",
    r"self[- ]destructive",  # DSM-5's gloss of this PTSD criterion includes self-injury
    r"tak(?:e|ing) an overdose",
    r"overdos",
)
_OTHERS = (
    r"(?:harm|hurt|injur|attack|kill)(?:s|ed|ing)? (?:anyone|anybody|someone|somebody"
    r"|other people|others|another person|people)",
    r"violen",
    r"homicid",
    r"get(?:ting)? (?:into )?(?:physical )?fights?",
    r"physically (?:aggressive|violent)",
    r"lash(?:ed|ing)? out (?:at|physically)",
    r"danger to (?:anyone|others|other people|someone)",
    r"weapons?",
)
IDEATION = re.compile("|".join(_IDEATION), re.IGNORECASE)
RISK_QUESTIONS: dict[RiskDomain, re.Pattern[str]] = {
    "self": re.compile("|".join(_IDEATION + _SELF_HARM), re.IGNORECASE),
    "others": re.compile("|".join(_OTHERS), re.IGNORECASE),
}
_ADDED = {
    "self": (
        "thoughts of death or suicide",
        "Some nights I lie there thinking everyone would be better off without me. I haven't "
        "done anything about it.",
        ("suicide", "suicidal", "wanting to die", "better off dead", "ending your life",
         "thoughts of death"),
    ),
}  # fmt: skip
_DENIED = {
    "self": (
        "thoughts of death, of suicide or of harming yourself",
        "No, I've never thought of ending my life or of hurting myself.",
    ),
    "others": (
        "thoughts of harming other people",
        "No, I've never wanted to hurt anyone.",
    ),
}


def risk_domains(question: str) -> list[RiskDomain]:
    """The risk domains `question` asks about, in `DOMAINS` order."""
    return [d for d in DOMAINS if RISK_QUESTIONS[d].search(question)]


def symptom_domain(name: str) -> RiskDomain | None:
    """The risk domain of a symptom by its KG name (`Death_Suicide` -> self), or None."""
    return next((d for d in DOMAINS if RISK_SYMPTOMS[d].search(name)), None)


def fact_domain(fact: Fact) -> RiskDomain | None:
    """The risk domain of a fact (a risk fact, or a risk symptom the patient has or lacks)."""
    if fact.kind == "risk":
        return fact.group  # type: ignore[return-value]
    if fact.kind in ("symptom", "absent") and ": " in fact.topic:
        return symptom_domain(fact.topic.split(": ", 1)[0])
    return None


def risk_fact_ids(facts: list[Fact]) -> list[str]:
    """The ids of the profile's facts that are a risk (truth yes)."""
    return [f.id for f in facts if f.truth == "yes" and fact_domain(f) is not None]


def draws_added_risk(case_id: str) -> bool:
    """Whether a profile without a risk symptom is given `RISK-SELF` (a stable draw from its
    id, so every run of a case gives the same profile)."""
    digest = hashlib.sha256(f"risk:{case_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < RISK_SHARE


def with_risk(case_id: str, facts: list[Fact], absent: list[Fact]) -> tuple[list[Fact], list[Fact]]:
    """The profile's facts and what it lacks, with its risks settled: `RISK-SELF` added for a
    seeded share of profiles without a risk to self (and the denials of that domain it replaces
    dropped), and a denial for each domain the patient has no risk in and no denial of yet."""
    have = {fact_domain(f) for f in facts if f.truth == "yes"} - {None}
    facts = list(facts)
    if "self" not in have and draws_added_risk(case_id):
        topic, statement, cues = _ADDED["self"]
        facts.append(
            Fact(id="RISK-SELF", kind="risk", statement=statement, topic=topic, group="self",
                 cues=cues)
        )  # fmt: skip
        have.add("self")
        absent = [f for f in absent if fact_domain(f) != "self"]
    denied = {fact_domain(f) for f in absent if f.truth == "no"}
    absent = list(absent) + [
        Fact(id=f"NO-RISK-{domain.upper()}", kind="risk", statement=_DENIED[domain][1],
             topic=_DENIED[domain][0], group=domain, truth="no")
        for domain in DOMAINS
        if domain not in have and domain not in denied
    ]  # fmt: skip
    return facts, absent
