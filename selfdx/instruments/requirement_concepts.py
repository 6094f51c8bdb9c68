"""What a question must name to ask about one of MentalKG's additional requirements, by meaning.

A requirement such as "depressive_episode is present for the majority of the total duration"
is asked in many words ("have you been depressed for most of it?", "has low mood been around
for the majority of the time?"). Each requirement is read as the ideas it joins, every one of
which the clause must name in some wording: here, a share of the time (most, majority) and a low
mood. Keyed by a phrase of the requirement's identity (`patient_words.requirement_identity`).
"""

from __future__ import annotations

import re
from functools import lru_cache

# Ideas requirements are made of, each in the wordings a doctor uses.
# "most days" and "most times" say how often, not what share of the whole illness
MOST = (
    r"\b(?:most(?! (?:days|of the day|times|nights|mornings|evenings|weeks|afternoons)\b)"
    r"|majority|bulk|more of it|more of the time|largely|mainly|mostly)\b"
)
TOGETHER = (
    r"same time|\bat the time\b|\bwhile\b|\bwhilst\b|\bduring\b|\bwhen\b|\balongside\b"
    r"|\btogether\b|\bcoincid|\boverlap|\bconcurrent"
)
ONLY = (
    r"\bonly\b|\bexclusively\b|\bnever (?:outside|apart|except|otherwise)"
    r"|\bjust (?:when|while|during|in)\b"
)
LOW = r"\b(?:low|down|depress\w*|bad patch\w*|dark)\b"
HIGH = r"\b(?:high|highs|manic|mania|elat\w*|up\b|hypomani\w*)"
PSYCHOTIC = (
    r"\b(?:voices?|hear\w*|see\w*|seeing|saw|beliefs?|believ\w*|psychotic|psychosis"
    r"|hallucinat\w*|delusion\w*|unusual experiences?|strange experiences?|odd beliefs?"
    r"|strange beliefs?|experiences)\b"
)
NORMAL_MOOD = (
    r"\bmood\b[^?]{0,30}\b(?:normal|okay|ok|fine|level|stable|steady|settled|alright|all right"
    r"|even)\b|\b(?:normal|stable|level|steady|even|ok|okay) mood\b|\bwithout (?:any )?(?:low|high"
    r"|mood)|\bno (?:low|high|mood)|\bneither (?:high|low)"
)
WEEKS_TWO = r"\b(?:two|2) weeks\b|\bfortnight|\bweeks at a time\b|\bweeks on end\b"
WEEKLY = r"\bweek(?:ly|s)?\b|\bhow often\b|\bhow many times\b|\bfrequen"
BINGE = r"\bbing\w*|\beat(?:ing)? (?:a )?(?:huge|large|lot|vast|massive)|\bout of control\b"
MAKE_UP = (
    r"\bmak\w* up for\b|\bmake yourself sick|\bmade yourself sick|\bvomit\w*|\bpurg\w*"
    r"|\blaxative|\bfast(?:ing|ed)?\b|\bcompensat\w*|\bexercis\w*|\bdiuretic|\bwater tablets"
    r"|\bskip\w* meals"
)
SOON_AFTER = (
    r"\b(?:three|3|few|couple of) months\b|\bsoon after\b|\bshortly after\b|\bstraight after\b"
    r"|\bright after\b|\bhow (?:long|soon) after\b|\bafter (?:that|it|this|the)\b"
    r"|\bkick(?:ed)? in\b"
)
AFTER_END = (
    r"\b(?:six|6) months\b|\bafter (?:it|that|the \w+|things) (?:ended|was over|settled|stopped)"
)
CHANGE = (
    r"\bstress\w*|\bchange|\bupheaval|\bhappen\w*|\bevent|\bredundan|\bmove\b|\bloss\b|\bthat\b"
)
CHILDHOOD = (
    r"\bchildhood|\bas a (?:child|kid)|\bage (?:of )?(?:12|twelve)|\bbefore (?:12|twelve)"
    r"|\bwhen you were (?:young|little|small|a (?:child|kid))|\bgrowing up|\bhow old were you"
    r"|\bwhat age|\bprimary school"
)

CONCEPTS: dict[str, tuple[str, ...]] = {
    "manic episode is present for the majority": (MOST, HIGH),
    "depressive episode is present for the majority": (MOST, LOW),
    "psychotic symptoms and manic episode occur concurrently": (PSYCHOTIC, TOGETHER, HIGH),
    "psychotic symptoms and depressive episode occur concurrently": (PSYCHOTIC, TOGETHER, LOW),
    "exclusively during the manic episode": (PSYCHOTIC, ONLY, HIGH),
    "exclusively during the major depressive episode": (PSYCHOTIC, ONLY, LOW),
    "2 or more weeks in the absence of a major mood episode": (PSYCHOTIC, NORMAL_MOOD),
    "compensatory behaviors both occur": (WEEKLY, MAKE_UP),
    "binge eating occurs": (WEEKLY, BINGE),
    "within 3 months of the onset of the stressor": (SOON_AFTER, CHANGE),
    "within 3 months of the stressful change": (SOON_AFTER, CHANGE),
    "6 months of the termination": (AFTER_END,),
    "age 12": (CHILDHOOD,),
}


@lru_cache(maxsize=256)
def compiled(identity: str) -> tuple[re.Pattern[str], ...] | None:
    """The concept patterns of the requirement whose identity holds a key of `CONCEPTS`."""
    for key, concepts in CONCEPTS.items():
        if key in identity:
            return tuple(re.compile(c, re.IGNORECASE) for c in concepts)
    return None


def names_requirement(identity: str, clause: str) -> bool:
    """Whether `clause` names every idea of the requirement (False for one not listed)."""
    patterns = compiled(identity)
    return bool(patterns) and all(p.search(clause) for p in patterns)
