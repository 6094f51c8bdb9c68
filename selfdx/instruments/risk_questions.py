"""Whether a doctor's question screens the patient for risk: to self, or to others.

Two domains: `self` (thoughts of death or suicide, self-harm) and `others` (harming someone
else).
"""

from __future__ import annotations

import re

from selfdx.datasets.interview.risk import DOMAINS, RiskDomain

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


def risk_domains(question: str) -> list[RiskDomain]:
    """The risk domains `question` asks about, in `DOMAINS` order."""
    return [d for d in DOMAINS if RISK_QUESTIONS[d].search(question)]
