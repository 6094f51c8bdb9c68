"""Risk in the interview: which facts are a risk to the patient or to others, the risk facts a
profile is given, and when a question asks about risk.

Two domains: `self` (thoughts of death or suicide, self-harm) and `others` (harming someone
else). A profile's risk facts are its MentalKG symptoms of those kinds (thoughts of death or
suicide in a depressive episode, aggression in intermittent explosive disorder) and, for a
seeded share of the profiles that have none, an added passive wish to be dead (`RISK-SELF`);
sampled profiles may be given an added risk of either domain at any level (`added_levels`).
Where a profile has no risk of a domain, the patient denies it when asked (`NO-RISK-SELF`,
`NO-RISK-OTHERS`). Whether a question asks about risk is read by the question reader
(`selfdx.instruments.risk_questions`).
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import Literal

from selfdx.datasets.interview.facts import Fact

RiskDomain = Literal["self", "others"]
DOMAINS: tuple[RiskDomain, ...] = ("self", "others")
# The share of profiles without a risk symptom that are given `RISK-SELF`, and of sampled
# profiles without a risk to others that are given `RISK-OTHERS`.
RISK_SHARE = 0.2
OTHERS_SHARE = 0.2

# A symptom is a risk fact when its KG name says so (`Death_Suicide`, `Thoughts_Of_Death`,
# `Irritability_Aggression`); reckless behaviour is asked about as itself.
RISK_SYMPTOMS: dict[RiskDomain, re.Pattern[str]] = {
    "self": re.compile(r"suicid|death|dying|self[\s_-]?harm", re.IGNORECASE),
    "others": re.compile(r"aggress|violen|homicid", re.IGNORECASE),
}

# The added risks, one sentence a level (published and demo profiles get the passive one only).
ADDED: dict[str, dict[str, str]] = {
    "self": {
        "passive": "Some nights I lie there wishing I simply wouldn't wake up. I haven't done "
        "anything about it.",
        "active": "Most days now I think about killing myself, though I've never thought about "
        "how I would do it.",
        "method": "I've thought about how I'd do it: I'd swallow every pill in the house at once.",
        "intent_plan": "I've made up my mind: next weekend, when the house is empty, I'm going to "
        "end my life, and I know exactly how.",
        "preparation_attempt": "I tried to end my life in the spring, and lately I've been "
        "saving up pills again.",
    },
    "others": {
        "thoughts": "Some days I'm so angry I think about hurting the people who wronged me.",
        "plan": "I've worked out how I'd get back at my old boss: I know where he parks at night "
        "and when he's on his own.",
        "means": "I keep a knife in my coat now, and if my neighbour comes at me again I'll use "
        "it on him.",
    },
}
ADDED_TOPIC = {"self": "thoughts of death or suicide", "others": "thoughts of harming other people"}
ADDED_CUES = {
    "self": ("suicide", "suicidal", "wanting to die", "better off dead", "ending your life",
             "thoughts of death"),
    "others": ("hurting someone", "harming others", "violent", "getting back at someone"),
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


@lru_cache(maxsize=4096)
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


def _share(salt: str, case_id: str) -> float:
    """A stable draw in [0, 1) from the case id, so every run of a case gives the same profile."""
    digest = hashlib.sha256(f"{salt}:{case_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32


def draws_added_risk(case_id: str) -> bool:
    """Whether a profile without a risk symptom is given `RISK-SELF` (a stable draw from its
    id, so every run of a case gives the same profile)."""
    return _share("risk", case_id) < RISK_SHARE


def added_levels(case_id: str, source: str, have: set[str]) -> dict[RiskDomain, str]:
    """The level of each risk a profile is given beyond its facts: a passive wish to be dead
    for a seeded share of published and demo profiles without a risk to self; for sampled
    ones, a risk to self at any level of the ladder for that share, and a risk to others at
    any level for a seeded share of those without one (`OTHERS_SHARE`)."""

    def drawn(domain: RiskDomain) -> str:  # a level of the domain's ladder, evenly
        ladder = list(ADDED[domain])
        return ladder[int(_share(f"level:{domain}", case_id) * len(ladder))]

    sampled = source == "sampled"
    added: dict[RiskDomain, str] = {}
    if "self" not in have and draws_added_risk(case_id):
        added["self"] = drawn("self") if sampled else "passive"
    if sampled and "others" not in have and _share("risk:others", case_id) < OTHERS_SHARE:
        added["others"] = drawn("others")
    return added


def with_risk(
    case_id: str, facts: list[Fact], absent: list[Fact], source: str = "published"
) -> tuple[list[Fact], list[Fact]]:
    """The profile's facts and what it lacks, with its risks settled: an added risk
    (`RISK-SELF`, `RISK-OTHERS`, see `added_levels`) where one is drawn (and the denials of that
    domain it replaces dropped), and a denial for each domain the patient has no risk in and
    no denial of yet."""
    have = {fact_domain(f) for f in facts if f.truth == "yes"} - {None}
    facts = list(facts)
    for domain, level in added_levels(case_id, source, have).items():
        facts.append(
            Fact(id=f"RISK-{domain.upper()}", kind="risk", statement=ADDED[domain][level],
                 topic=ADDED_TOPIC[domain], group=domain, cues=ADDED_CUES[domain])
        )  # fmt: skip
        have.add(domain)
        absent = [f for f in absent if fact_domain(f) != domain]
    denied = {fact_domain(f) for f in absent if f.truth == "no"}
    absent = list(absent) + [
        Fact(id=f"NO-RISK-{domain.upper()}", kind="risk", statement=_DENIED[domain][1],
             topic=_DENIED[domain][0], group=domain, truth="no")
        for domain in DOMAINS
        if domain not in have and domain not in denied
    ]  # fmt: skip
    return facts, absent
