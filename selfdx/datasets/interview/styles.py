"""How the simulated patient talks about itself (`-T patient_style=`), defined once here and
followed exactly by the offline patient (`selfdx/kg-patient`); an LLM patient gets the same rule
in its instructions (`prompts/interview/styles/<style>.txt`).

- `plain`: answers what is asked, as it is.
- `minimising`: a symptom it has is admitted but played down ("I do get a bit of trouble
  sleeping now and then, but it's nothing really, not a big deal.") and not revealed, however
  often it is asked, until a question asks how often, how long, how much or how bad it is
  (`FREQUENCY`): then its true extent is told.
- `vague`: a symptom it has is told only imprecisely ("Maybe some trouble sleeping, on and off,
  I suppose; it's hard to say how much.") and not revealed, until a question asks for something
  concrete: how long, how often, how many, or an example or description (`DETAIL`).
- `guarded`: a risk or stigmatised fact (thoughts of death or suicide, harming others,
  substances, hallucinations or strange beliefs, bingeing or purging, sexual matters:
  `STIGMATISED`) is withheld ("I'd rather not go into that.") until the doctor normalises it
  (the same turn says that many people have such experiences, that it asks everyone, that there
  is no judgement: `NORMALISING`), or asks about it again, alone, after a first ask. A fact
  whose words speak of such a matter (how long the strange experiences have lasted, that they
  came with the low spells: `MATTERS`) is kept back while the matter itself is untold, so that
  nothing withheld leaks out through another answer.
- `over_reporting`: affirms a share (`OVER_REPORT_SHARE`) of the option symptoms it lacks, drawn
  from the case id; these become claims (`CLAIM-<code>`, truth `claimed`): said as its own when
  asked, never revealed, and counted (`false_claims`), so their effect on the answer is visible.
  A claim fails on specifics: asked for something concrete about it (how often, how long, an
  example: `DETAIL`), the patient still says it has it but gives nothing concrete (`UNBACKED`),
  so that an interviewer who asks can tell a claim from a symptom (`claims_checked`).
"""

from __future__ import annotations

import difflib
import hashlib
import re
from typing import Literal

from selfdx.arguments import listed
from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.interview.facts import Fact, symptom_fact
from selfdx.datasets.interview.patient_words import symptom_words
from selfdx.datasets.interview.risk import fact_domain
from selfdx.datasets.mentalkg.entities import MentalKG
from selfdx.errors import ArgumentError

PatientStyle = Literal["plain", "minimising", "vague", "guarded", "over_reporting"]
STYLES: tuple[str, ...] = ("plain", "minimising", "vague", "guarded", "over_reporting")
OVER_REPORT_SHARE = 0.5
CLAIM_PREFIX = "CLAIM-"

# What opens a kept-back symptom: a question about how often, how long, how much or how bad it
# is (a minimising patient), or for anything concrete, an example too (a vague patient).
FREQUENCY = re.compile(
    r"how (?:long|often|many|much|frequently|bad|severe|badly)\b|how many times", re.IGNORECASE
)
DETAIL = re.compile(
    r"how (?:long|often|many|much|frequently|bad|severe)|how many times|for (?:example|instance)"
    r"|an example|what (?:happens|is it like|was it like|does it feel like)|describe"
    r"|walk me through"
    r"|tell me (?:more )?about (?:a|the last|one) time|when did|since when",
    re.IGNORECASE,
)
# What a minimising and a vague patient say of a symptom, with its plain name (`said_as`).
PLAYED_DOWN = "I do get a bit of {lay} now and then, but it's nothing really, not a big deal."
GENERAL = "Maybe some {lay}, on and off, I suppose; it's hard to say how much."
WITHHELD = "I'd rather not go into that."
# What an over-reporting patient says of a claim it is pressed on (`DETAIL`): no example, no
# frequency, though it keeps the claim.
UNBACKED = (
    "As for {lay}: I'm sure that's me too, but I can't think of an actual example, or say "
    "how often."
)
# A doctor's statement that makes a sensitive question easier to answer, anywhere in the turn
# (`ANYWHERE`) or in a sentence that is not itself a question (`STATED`: "it's very common",
# "some people ..."); measured on doctor turns labelled blind (docs/interview.md, "Patient
# styles").
_ANYWHERE = (
    # it asks everyone
    r"\b(?:i|we)(?: \w+){0,2} (?:ask|check|cover|go through|put)\w*(?: \w+){0,3} (?:everyone"
    r"|everybody|every (?:patient|person|one|client)|all (?:my |of my |our |of our )?(?:patients"
    r"|clients|people)|each (?:patient|person))",
    r"routine (?:questions?|part|check)|\broutinely\b|(?:questions?|things) (?:i|we) ask "
    r"(?:everyone|everybody|all)|nothing personal|(?:not|don't feel) singled out",
    # no judgement, no shock, no shame, not alone
    r"nothing to be (?:ashamed|embarrassed)|nothing shameful|no (?:need to (?:feel )?)?(?:shame"
    r"|judg)|without judg|not (?:here )?to judge|won't judge|no judg|no right or wrong",
    r"(?:won't|will not|wouldn't|would not|could not|couldn't) (?:\w+ )?(?:shock|surprise|judge"
    r"|think less)|heard it all|seem strange to me",
    r"(?:you're|you are|you'd be|you would be|you wouldn't be|you aren't) not (?:alone|unusual"
    r"|the only|weird|strange|a (?:monster|bad person))|wouldn't be the only|not the only (?:one"
    r"|person)|doesn't make you (?:a bad|weak|crazy|mad|a monster)|strange if you didn't",
    r"(?:you'd|you would) be (?:amazed|surprised) how (?:many|often|common)|\bi hear (?:that |this "
    r"|it )?(?:from|a lot|all the time|often|every week|week in)",
    r"nothing (?:that )?you (?:could |can |might )?(?:say|tell me)\b[^.?!]{0,60}\b(?:surprise"
    r"|shock|think less|judge|strange|change how)",
    r"(?:it's|it is) (?:completely |totally |perfectly |absolutely )?(?:okay|ok|safe|fine|alright"
    r"|all right) (?:here )?to (?:talk|tell|say|share|be honest|mention)",
)
_STATED = (
    # it is common, understandable, human
    r"\b(?:common|commoner|understandable|ordinary|natural|human (?:reaction|response|thing)"
    r"|very human|the norm|not unusual|not uncommon|par for the course|makes sense|normal (?:to|for"
    r"|reaction|response|part))\b",
    # many people, some patients, plenty of students, when someone is ...
    r"\b(?:some|many|most|lots of|a lot of|plenty of|loads of|quite a few|a good number of|a fair"
    r" few|half (?:of )?the|a number of|so many)(?: \w+){0,2}? (?:people|patients|folks|men|women"
    r"|students|parents|mums|moms|dads|teenagers|others|athletes|veterans|adults|kids|survivors"
    r"|of (?:the|my|our) \w+)\b",
    r"\b(?:people|someone|somebody|folks|patients) (?:who|with|in|under|going|on|that|like you"
    r"|your age|tell me|often|sometimes|do|find|feel|get)\b",
    r"\b(?:when|if) (?:people|someone|somebody|anyone|folks|life|things)\b",
    r"\b(?:men|women|people|patients|someone) (?:of )?your age\b|\beveryone(?:'s)?\b",
)
ANYWHERE = re.compile("|".join(_ANYWHERE), re.IGNORECASE)
STATED = re.compile("|".join(_STATED), re.IGNORECASE)
SENTENCE_END = re.compile(r"(?<=[.?!;])\s+|\s+-\s+|\s+—\s+")
STIGMATISED = re.compile(
    r"halluc|voices|delusion|paranoi|substance|alcohol|drink|drug|cannabis|opioid|stimulant"
    r"|intoxic|withdrawal|craving|purg|vomit|binge|laxative|compensat|sexual|libido",
    re.IGNORECASE,
)


# Plain names that name what the symptom makes hard, not the symptom ("waiting my turn"): a style
# sentence says it as the trouble ("a bit of trouble with waiting my turn"), never as done.
ABILITY = re.compile(
    r"^(?:keeping|listening|finishing|staying|doing|waiting|concentrating|controlling"
    r"|remembering|coping|seeing|feeling happiness|tasks that)\b"
)


def lay_name(code: str, name: str) -> str:
    """The symptom's plain name as a style sentence says it: its patient wording's, else its KG
    name; what it makes hard said as the trouble ("trouble with waiting my turn")."""
    entry = symptom_words().get(code)
    same = entry is not None and _letters(entry.name) == _letters(name)
    lay = entry.lay if same else name.replace("_", " ").lower()  # type: ignore[union-attr]
    return f"trouble with {lay}" if ABILITY.match(lay) else lay


def _letters(name: str) -> str:
    """A KG name without case, spaces or underscores ("Instruction_Follow through_Difficulty")."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


# The stigmatised matters, each as the graph names its symptoms and as the patient speaks of it
# (a duration, impairment or requirement sentence that mentions one leaks it).
MATTERS = {
    "psychosis": re.compile(
        r"halluc|voices|delusion|paranoi|psychotic|strange (?:experiences|beliefs)"
        r"|unusual beliefs|hear(?:ing)? things|seeing things",
        re.IGNORECASE,
    ),
    "substance": re.compile(
        r"substance|alcohol|\bdrink|\bdrugs?\b|cannabis|opioid|stimulant|intoxic|craving",
        re.IGNORECASE,
    ),
    "eating": re.compile(
        r"purg|vomit|\bbinge|\bbinged|laxative|compensat|made up for it|sick on purpose",
        re.IGNORECASE,
    ),
    "sexual": re.compile(r"sexual|libido", re.IGNORECASE),
}


def matters_in(text: str) -> set[str]:
    """The stigmatised matters (`MATTERS`) a text speaks of."""
    return {matter for matter, pattern in MATTERS.items() if pattern.search(text)}


def said_as(template: str, code: str, name: str) -> str:
    """`template` with the symptom's plain name (`lay_name`)."""
    return template.format(lay=lay_name(code, name))


def unbacked(claims: list[tuple[str, str]]) -> str:
    """What an over-reporting patient says of the claims (code, name) it is pressed on: one
    `UNBACKED` sentence naming them all."""
    names = [lay_name(code, name) for code, name in claims]
    joined = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return UNBACKED.format(lay=joined)


def normalises(question: str) -> bool:
    """Whether a doctor's turn normalises what it asks (`ANYWHERE`, or `STATED` in a sentence
    that is not a question)."""
    text = question.replace("’", "'")
    if ANYWHERE.search(text):
        return True
    return any(
        STATED.search(sentence) for sentence in SENTENCE_END.split(text)
        if not sentence.rstrip().endswith("?")
    )  # fmt: skip


def is_stigmatised(kind: str, name: str, topic: str) -> bool:
    """Whether a guarded patient withholds a fact: a risk fact, or a symptom whose KG name or
    description is in `STIGMATISED`."""
    if kind == "risk":
        return True
    return kind == "symptom" and bool(STIGMATISED.search(f"{name} {topic}"))


def fact_is_stigmatised(fact: Fact) -> bool:
    name, _, text = fact.topic.partition(": ")
    return fact_domain(fact) is not None or is_stigmatised(fact.kind, name, text)


def drawn_claims(case_id: str, lacked: list[str]) -> list[str]:
    """The lacked symptom codes an over-reporting patient affirms: each drawn from the case id
    and the code (sha256), so the same case always claims the same ones."""
    chosen = []
    for code in lacked:
        digest = hashlib.sha256(f"over:{case_id}:{code}".encode()).digest()
        if int.from_bytes(digest[:4], "big") / 2**32 < OVER_REPORT_SHARE:
            chosen.append(code)
    return chosen


def claims(kg: MentalKG, case_id: str, absent: list[Fact]) -> tuple[list[Fact], list[Fact]]:
    """(what an over-reporting patient still denies, the symptoms it claims instead)."""
    lacked = [f.id.removeprefix("NO-") for f in absent if f.kind == "symptom" and f.truth == "no"]
    chosen = set(drawn_claims(case_id, lacked))
    kept = [f for f in absent if f.id.removeprefix("NO-") not in chosen or f.kind != "symptom"]
    claimed = [
        symptom_fact(kg, code, first_expression(kg, code), None).model_copy(
            update={"id": f"{CLAIM_PREFIX}{code}", "truth": "claimed", "value": None}
        )
        for code in lacked
        if code in chosen
    ]
    return kept, claimed


def first_expression(kg: MentalKG, code: str) -> str:
    """The symptom's first KG subtype (or example), else its description: what it claims."""
    symptom = kg.symptoms[code]
    texts = [text for _, text in symptom.subtypes] or list(symptom.examples)
    return texts[0] if texts else symptom.description


def styled_case(kg: MentalKG, case: InterviewCase, style: str) -> InterviewCase:
    """`case` with a patient of `style` (an over-reporting one also gets its claims)."""
    update: dict[str, object] = {"patient_style": style}
    if style == "over_reporting":
        kept, claimed = claims(kg, case.id, case.absent)
        update["absent"] = [*kept, *claimed]
    return case.model_copy(update=update)


def normalise_styles(patient_style: object) -> list[str]:
    """`patient_style` as a list of styles (a list, or a comma-separated string)."""
    try:
        raw = listed("patient_style", patient_style)  # type: ignore[arg-type]
    except ArgumentError:
        raw = None
    if not raw:
        raise ArgumentError(
            f"patient_style: expected one of {', '.join(STYLES)}, got {patient_style!r}"
        )
    chosen: list[str] = []
    for item in raw:
        style = str(item).strip().lower()
        if style not in STYLES:
            near = difflib.get_close_matches(style, STYLES, n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            raise ArgumentError(f"patient_style: {item!r} is not one of {', '.join(STYLES)}{hint}")
        if style not in chosen:
            chosen.append(style)
    return chosen
