"""Risk in the interview: which facts are a risk to the patient or to others, the risk facts a
profile is given, and when a question asks about risk.

Two domains: `self` (thoughts of death or suicide, self-harm) and `others` (harming someone
else). A profile's risk facts are its MentalKG symptoms of those kinds (thoughts of death or
suicide in a depressive episode, aggression in intermittent explosive disorder) and, for a
seeded share of the profiles that have none, an added passive wish to be dead (`RISK-SELF`).
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
# The share of profiles without a risk symptom that are given `RISK-SELF`.
RISK_SHARE = 0.2

# A symptom is a risk fact when its KG name says so (`Death_Suicide`, `Thoughts_Of_Death`,
# `Irritability_Aggression`); reckless behaviour is asked about as itself.
RISK_SYMPTOMS: dict[RiskDomain, re.Pattern[str]] = {
    "self": re.compile(r"suicid|death|dying|self[\s_-]?harm", re.IGNORECASE),
    "others": re.compile(r"aggress|violen|homicid", re.IGNORECASE),
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
