"""Whether a doctor's question screens the patient for risk: to self, or to others.

Two domains: `self` (a wish to be dead, thoughts of suicide, method, intent, plan, preparation,
past attempts, self-harm, safety) and `others` (thoughts or plans of hurting someone, the
patient's own violence); a question about access to a weapon screens both. The screen is read as
the kinds of the Columbia scale's questions (`SELF_KINDS`, `OTHERS_KINDS`), each a set of
phrasings clinicians and LLM interviewers use, direct and indirect.

Before any pattern is tried, a clause loses what only looks like risk: idioms ("cut yourself off",
"burn yourself out", "the deadlines are killing you", "dying to", "kill time", "sleep like the
dead", "shoot me a message", "wake up early"), and harm the patient suffered or saw rather than
did ("has anyone hurt you?", "were you hurt in the fire?", "seeing someone die", "violent
crimes"), and someone else's suicide ("has anyone close to you died by suicide?").

A follow-up ("how likely is it you'd act on them?", "how often are you having those thoughts?")
screens the domain of the turn before it when that turn was a screen.

How far up the Columbia ladder a question reaches (`question_reach`: a wish to be dead, active
thoughts, a method, intent or a plan, preparations or an attempt; thoughts, a plan or the means
to harm others) decides how much of its risk a patient tells
(`selfdx.datasets.interview.risk_levels.told_level`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from selfdx.datasets.interview.risk import DOMAINS, RiskDomain
from selfdx.datasets.interview.risk_levels import LADDERS

_YOU = r"(?:yourself|your own body|your skin)"
_OTHER = (
    r"(?:anyone|anybody|someone|somebody|other people|others|another person|people|them|him|her"
    r"|a child|children|the kids|(?:one of )?(?:the|your) (?:kids|children|family)|a person"
    r"|your (?:partner|wife|husband|son|daughter|boss|colleagues?|children|kids|family|mum|mom"
    r"|dad|father|mother|brother|sister|neighbou?r|girlfriend|boyfriend|ex)|a colleague"
    r"|anyone else|someone else|somebody else|the (?:other driver|person|people)\b)"
)
_HARM = r"(?:hurt|harm|injur|attack|kill|stab|strangl|beat(?:ing)? up|get(?:ting)? back at)"
# Passive or active wish to be dead, thoughts of death.
WISH_DEAD = (
    r"better off (?:dead|without (?:you|me)|if you (?:were ?n[o']t|weren't) (?:around|here|alive)"
    r"|not (?:being )?(?:here|around|surviving))",
    r"(?:not|n't|never) (?:to )?wak(?:e|ing) up\b(?! (?:before|until|till|in time|on time|early"
    r"|at|for|when|with|feeling|refreshed|rested)\b)",
    r"(?:(?:go|going) to )?sleep and (?:not|never) (?:to )?wak\w*(?: up)?",
    r"(?:wish|want|hop|rather|prefer)\w*[^.?!]{0,40}\b(?:dead|die|dying|disappear(?:ed)? (?:for "
    r"good|forever|and never)|not (?:be|being) (?:here|around|alive)|not (?:have )?surviv"
    r"|had ?n[o']t surviv|hadn't surviv|not come out of it)",
    r"(?:rather|prefer) not (?:to )?(?:be|being) (?:here|around|alive)",
    r"(?:not|n't|no longer) (?:want|wish|wanting|wishing|wanted)\w* to (?:be alive|live|be here"
    r"|go on|exist|wake up|carry on)",
    r"not (?:be|being) (?:here|around|alive) any ?more",
    r"(?:wasn't|isn't|not|n't|no longer) worth (?:living|it any ?more|going on)",
    r"(?:life|living)[^.?!]{0,25}\bnot worth",
    r"no (?:point|reason|use) (?:in )?(?:going on|living|carrying on|being alive|to live|in life)",
    r"(?:thoughts?|thinking|think|thought) (?:a lot )?(?:of|about) (?:death|dying|being dead"
    r"|not being (?:here|around|alive))",
    r"easier (?:if|to|not)[^.?!]{0,30}\b(?:surviv|dead|die|here|wake)",
    r"let yourself go under",
    r"(?:crash|drown|fall asleep at the wheel)[^.?!]{0,30}\b(?:not come out|not wake|die)",
)
ACTIVE = (
    r"suicid",
    r"kill(?:ing)? yourself",
    r"end(?:ing)? (?:your (?:own )?life|it all|things\b|it\b)",
    r"tak(?:e|ing|en) your (?:own )?life",
    r"(?:trying|wanting|want|tried) to die",
    r"a way out\b",
    r"ways? (?:of|to|you could|you might) (?:end|kill|die|take)",
)
METHOD_PLAN = (
    r"\bplan\b[^.?!]{0,30}\b(?:when|where|how)\b[^.?!]{0,12}\b(?:when|where|how)\b",
    r"how you(?:'d| would| might| could) do it",
    r"(?:a|any|the) (?:method|means)\b",
)
INTENT = (
    r"\bact(?:ing)? on (?:them\b|(?:these|those|the|such|your|any) (?:thoughts|urges|plans?)\b)",
    r"\bintent\b",
    r"intend\w* to (?:act|kill|end|die|hurt|harm)",
    r"\bintentions? (?:of|to) (?:act|kill|end|die)",
)
PREPARATION = (
    r"(?:sav|collect|stockpil|hoard|stor|gather|buy|bought|keep|kept)\w* (?:up )?(?:any |some |"
    r"extra |your )?(?:tablets|pills|medication|medicines|painkillers|paracetamol)",
    r"(?:tablets|pills|medication|medicines)[^.?!]{0,30}\b(?:put aside|saved|stored|hidden)",
    r"goodbye|suicide note",
    r"writ\w* (?:a |any )?(?:note|letters?)\b[^.?!]{0,40}\b(?:people|loved|family|goodbye|love)",
    r"writing (?:a )?note",
    r"giv\w* (?:\w+ ){0,3}away",
    r"(?:sort\w*|put\w*|get\w*|getting) (?:out )?(?:your |all your )(?:affairs|things) "
    r"(?:in order|sorted)|affairs in order|sort\w* out your affairs|\ba will\b",
    r"(?:things|everything) (?:in order|sorted)\b[^.?!]{0,40}\b(?:in case"
    r"|before you (?:go|die|leave)|for when you(?:'re| are) gone"
    r"|if (?:something|anything) (?:happens|happened))",
    r"(?:arrangements|plans|provision) for (?:after|when) you(?:'re| are) gone",
    r"in case you (?:decided to end|were ?n[o']t around|weren't around|wanted a way out|died)",
    r"get(?:ting)? ready\b[^.?!]{0,60}\b(?:tablets|pills|note|affairs|belongings)",
)
ATTEMPT = (
    r"attempt\w* (?:on your life|to (?:end|take|kill))",
    r"overdos",
    r"(?:taken|took|take|swallow\w*) (?:a lot |far )?(?:more|too many)\b[^.?!]{0,50}\b(?:on purpose"
    r"|deliberately|intentionally|to (?:die|hurt|harm|end))",
    r"tried to (?:end|take|kill)",
)
SELF_HARM = (
    r"(?:hurt|harm|injur|cut|burn|hit|punch|scratch|bang|starv|bit)\w* " + _YOU,
    r"self[- ]?(?:harm|injur|mutilat)",
    r"(?:cut|burn|harm|hurt|injure)\w*(?: or \w+)? themselves",
    r"punch\w* walls|head[- ]?bang",
    r"(?:do|did|done|doing) (?:something|anything) to (?:harm |hurt )?yourself",
    r"self[- ]destructive",  # DSM-5's gloss of the PTSD criterion includes self-injury
    r"(?:cut|burn)(?:s|ing)? or (?:burn|cut|hit)\w* yourself",
)
SAFETY = (
    r"keep(?:ing)? (?:yourself |you )?safe",
    r"stay(?:ing)? safe",
    r"\b(?:are|do|would|will|could) you (?:feel )?(?:be )?safe\b",
    r"\bfeel (?:able to keep yourself )?safe (?:right now|in yourself|at the moment|tonight|now)",
    r"safe (?:to go home|from harm|in yourself)",
    r"will you be (?:okay|ok|alright|all right|safe) (?:getting home|tonight|going home"
    r"|between)",
    r"risk (?:that )?you (?:might|could|would) (?:harm|hurt|do something)",
)
HARM_OTHERS = (
    _HARM + r"\w*(?: or \w+)? " + _OTHER,
    r"(?:want|urge|thought|feel|felt|plan|planning|tempt)\w*[^.?!]{0,30}\b(?:hurt|harm|kill|attack)"
    r"(?:s|ed|ing)?\b(?!\s+(?:yourself|you\b|your\b|myself|themselves))",
    r"(?:hurt|harm|injur)\w* (?:yourself|you) (?:or|and) (?:anyone|anybody|others|other people"
    r"|someone|somebody|another person)",
    r"homicid",
    r"revenge|get(?:ting)? back at",
    r"lose it and (?:hurt|hit|harm)",
)
VIOLENCE = (
    r"(?:been|get|got|getting|be|being) (?:physically )?violent",
    r"violen\w*[^.?!]{0,30}\bon your part|your (?:own )?violen|violen\w* (?:by|from) you\b",
    r"violent (?:towards?|to|with) ",
    r"physically (?:aggressive|violent)",
    r"(?:physical|any|into|in) (?:fights?|altercations?|scraps?)",
    r"\bfights?\b(?! with (?:your )?(?:partner|wife|husband)\b)",
    r"\bhit (?:anyone|anybody|someone|somebody|a person|people|them|him|her|your\b(?!self))",
    r"(?:get|got|getting) physical",
    r"lash\w* out(?: physically| at)?",
    r"(?:threw|throw|thrown|throwing) (?:something|things|stuff)[^.?!]{0,15}\bat (?:a person|"
    r"someone|somebody|anyone|them|people)",
    r"in trouble for (?:fighting|hurting|hitting)",
)
MEANS = (r"\b(?:guns?|firearms?|weapons?|rifles?|shotguns?|pistols?)\b",)
SELF_KINDS: dict[str, tuple[str, ...]] = {
    "wish_dead": WISH_DEAD,
    "active_thoughts": ACTIVE,
    "method_plan": METHOD_PLAN,
    "intent": INTENT,
    "preparation": PREPARATION,
    "attempt": ATTEMPT,
    "self_harm": SELF_HARM,
    "safety": SAFETY,
}
OTHERS_KINDS: dict[str, tuple[str, ...]] = {"harm_others": HARM_OTHERS, "violence": VIOLENCE}
# What only looks like risk: replaced by a neutral word before the patterns are tried.
NOT_RISK = re.compile(
    r"cut(?:s|ting)? (?:yourself |yourselves |you |themselves |myself )?off"
    r"|cut (?:out|down|back)|burn(?:s|t|ed|ing)? (?:\w+ )?(?:out|off)\b|burn the candle"
    r"|\bburns?\b(?=[^.?!]{0,20}\b(?:at work|in the kitchen|from rushing))"
    r"|(?:is|are|was|were|been|be|'s|'re) (?:\w+ )?killing (?:you|me)|kill(?:s|ed)? you the"
    r"|(?:could|would|might|will) kill you\b(?! ?self)|kill(?:ing)? (?:some )?time|time to kill"
    r"|dying (?:to|for)|starving to death|sleep(?:ing)? like the dead|dead on your feet"
    r"|dead tired|dead end|shoot(?:ing)? (?:me|them|you|us|him|her|off)\b|shot at"
    r"|wak(?:e|ing) (?:up )?(?:early|too early|at)|jump out of your skin"
    r"|fights? (?:off|back|the urge)|fight(?:ing)? (?:it|the)"
    r"|jump(?:s|ed|ing)? the gun|under the gun|stick(?:s|ing)? to (?:your|my|their|his|her) guns"
    r"|smoking gun|big guns",
    re.IGNORECASE,
)
# Harm the patient suffered or saw, and someone else's death: not a screen of the patient.
SUFFERED = re.compile(
    r"(?:anyone|anybody|someone|somebody|people|he|she|they|(?:your|a) \w+)\b[^.?!]{0,30}\b"
    r"(?:hit|hurt|harm|attack|assault|abus|threaten|beat|injur|shot)\w* you\b"
    r"|(?:were|was|been|get|got) you\b[^.?!]{0,15}\b(?:hurt|injured|attacked|assaulted|harmed"
    r"|shot|beaten)\b|(?:were|was) you (?:\w+ )?(?:hurt|injured|harmed)"
    r"|(?:physically |sexually )?(?:hurt|injured|attacked|assaulted|harmed|abused) you\b"
    r"|\b(?:see|saw|seen|seeing|witness\w*|cover\w*|watch\w*|pull\w* out)\b[^.?!]{0,40}\b"
    r"(?:die|died|dying|dead|killed|hurt|violen\w*|death|drowned)"
    r"|safe (?:at home )?(?:with|around) (?:your |him\b|her\b|them\b)"
    r"|violent (?:crimes?|scenes?|events?|incidents?)|(?:was|were) (?:anyone|anybody|someone)"
    r"[^.?!]{0,10}\b(?:hurt|killed|injured)|(?:anyone|anybody|someone|somebody|friend|relative"
    r"|family|partner|colleague|who)\b[^.?!]{0,40}\b(?:died|killed (?:themselves|himself"
    r"|herself)|took (?:their|his|her) own life|taken (?:their|his|her) own life|by suicide"
    r"|to suicide|attempted suicide|passed away)|thought you (?:might|would|were going to)"
    r"(?: die| be killed)|might kill you\b|near[- ]death|(?:threat|danger) of (?:being )?killed"
    r"|(?:your|their|his|her) (?:partner|friend|brother|sister|father|mother)\b[^.?!]{0,30}"
    r"\bsuicid",
    re.IGNORECASE,
)
# A follow-up that goes on with a risk screen of the turn before.
FOLLOW_UP = re.compile(
    r"\b(?:act on|intend|intent|plan|method|how likely|prepar|get ready|safe|how often|those "
    r"thoughts|these thoughts|the thoughts|that thought|urges?|tablets|pills|how (?:would|might|"
    r"could) you|when, where|gone further|what stops you|what's stopped you|how close)\b",
    re.IGNORECASE,
)


def _compile(kinds: dict[str, tuple[str, ...]]) -> dict[str, re.Pattern[str]]:
    return {kind: re.compile("|".join(p), re.IGNORECASE) for kind, p in kinds.items()}


SELF_PATTERNS = _compile(SELF_KINDS)
OTHERS_PATTERNS = _compile(OTHERS_KINDS)
MEANS_PATTERN = re.compile("|".join(MEANS), re.IGNORECASE)


@lru_cache(maxsize=65536)
def cleaned(text: str) -> str:
    """`text` without what only looks like risk (see `NOT_RISK`, `SUFFERED`)."""
    text = text.replace("’", "'").replace("‘", "'")
    return SUFFERED.sub(" ", NOT_RISK.sub(" ", text))


@lru_cache(maxsize=65536)
def risk_kinds(question: str) -> dict[RiskDomain, tuple[str, ...]]:
    """The kinds of risk screen in `question`, by domain (`means_access` in both); the answer
    is shared between callers (cached): read it, never change it."""
    text = cleaned(question)
    means = ("means_access",) if MEANS_PATTERN.search(text) else ()
    return {
        "self": tuple(k for k, p in SELF_PATTERNS.items() if p.search(text)) + means,
        "others": tuple(k for k, p in OTHERS_PATTERNS.items() if p.search(text)) + means,
    }


def risk_domains(question: str, previous: Sequence[str] = ()) -> list[RiskDomain]:
    """The risk domains `question` screens the patient for, in `DOMAINS` order; a follow-up of a
    screen (`FOLLOW_UP`) in the last of `previous` screens that screen's domains."""
    kinds = risk_kinds(question)
    found = {d for d in DOMAINS if kinds[d]}
    if not found and previous and FOLLOW_UP.search(cleaned(question)):
        before = risk_kinds(previous[-1])
        found = {d for d in DOMAINS if before[d]}
    return [d for d in DOMAINS if d in found]


def acts_only(question: str) -> bool:
    """Whether `question` screens risk to self only by asking about acts of self-harm ("have
    you ever cut yourself?"): a patient tells its thoughts of death to such a question only
    when thoughts are asked about too (see `selfdx.providers.kg_patient`)."""
    kinds = set(risk_kinds(question)["self"])
    return bool(kinds) and kinds <= {"self_harm"}


def self_harm_asked(question: str) -> bool:
    """Whether `question` asks about an act of self-harm (or an attempt)."""
    kinds = risk_kinds(question)["self"]
    return "self_harm" in kinds or "attempt" in kinds


@lru_cache(maxsize=65536)
def without_risk(clause: str) -> str:
    """`clause` with its risk screens taken out, so that the words of a screen ("go to sleep
    and not wake up") do not also ask about a symptom (sleep)."""
    for pattern in (*SELF_PATTERNS.values(), *OTHERS_PATTERNS.values()):
        clause = pattern.sub(" ", clause)
    return clause


# The step of each domain's ladder (`risk_levels.LADDERS`) that a kind of screen reaches.
REACH: dict[RiskDomain, dict[str, str]] = {
    "self": {
        "wish_dead": "passive", "active_thoughts": "active", "self_harm": "active",
        "method_plan": "method", "means_access": "method", "intent": "intent_plan",
        "safety": "intent_plan", "preparation": "preparation_attempt",
        "attempt": "preparation_attempt",
    },
    "others": {"harm_others": "thoughts", "violence": "thoughts", "means_access": "means"},
}  # fmt: skip
# Words that carry a screen (or its follow-up) further up the ladder.
REACH_WORDS: dict[RiskDomain, tuple[tuple[str, re.Pattern[str]], ...]] = {
    "self": (
        ("method", re.compile(r"\bmethod|\bhow (?:would|might|could) you\b|\bmeans\b", re.I)),
        ("intent_plan", re.compile(
            r"\bplan|\bact on|\bintend|\bintent|how likely|\bsafe\b|what stops you|what's "
            r"stopped you|how close|gone further|when,? (?:and )?where", re.I)),
        ("preparation_attempt", re.compile(
            r"prepar|get(?:ting)? ready|\btablets|\bpills|\btried\b|\battempt", re.I)),
    ),
    "others": (
        ("plan", re.compile(r"\bplan|\bintend|\bact on|how (?:would|might|could) you", re.I)),
        ("means", re.compile(r"\bweapon|\bknife|\bguns?\b|anything you could use", re.I)),
    ),
}  # fmt: skip


def _reach_of(text: str, kinds: Sequence[str], domain: RiskDomain) -> str | None:
    ladder = LADDERS[domain]
    steps = [REACH[domain][k] for k in kinds if k in REACH[domain]]
    steps += [step for step, words in REACH_WORDS[domain] if words.search(text)]
    return max(steps, key=ladder.index, default=None)


def question_reach(question: str, previous: Sequence[str] = ()) -> dict[RiskDomain, str | None]:
    """How far up each domain's ladder `question` reaches (None for a domain it does not
    screen): its kinds of screen and the words that carry it further ("a plan", "tried");
    a follow-up of a screen reaches at least as far as the screen did."""
    screened = risk_domains(question, previous)
    kinds = risk_kinds(question)
    text = cleaned(question)
    reach: dict[RiskDomain, str | None] = {}
    for domain in DOMAINS:
        if domain not in screened:
            reach[domain] = None
            continue
        own = _reach_of(text, kinds[domain], domain)
        if not kinds[domain] and previous:  # a follow-up: at least the screen's own reach
            before = previous[-1]
            steps = [own, _reach_of(cleaned(before), risk_kinds(before)[domain], domain)]
            own = max((s for s in steps if s), key=LADDERS[domain].index, default=None)
        reach[domain] = own
    return reach
