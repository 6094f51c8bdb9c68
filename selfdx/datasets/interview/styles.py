"""How the simulated patient talks about itself (`-T patient_style=`), defined once here and
followed exactly by the offline patient (`selfdx/kg-patient`); an LLM patient gets the same rule
in its instructions (`prompts/interview/styles/<style>.txt`).

- `plain`: answers what is asked, as it is.
- `minimising`: a symptom it has, asked about for the first time in a question that asks about
  several things, is played down ("Not really, nothing worth mentioning.") and not revealed; the
  same symptom asked about again, or in a question about it alone, is admitted.
- `vague`: a symptom it has is described only in general terms ("I just haven't felt like
  myself.") and not revealed, unless the question asks how long, how often or for an example
  (`DETAIL`).
- `guarded`: a risk or stigmatised fact (thoughts of death or suicide, harming others,
  substances, hallucinations or strange beliefs, bingeing or purging, sexual matters:
  `STIGMATISED`) is withheld ("I'd rather not go into that.") until the doctor normalises it
  (the same turn says that many people have such experiences, that it asks everyone, that there
  is no judgement: `NORMALISING`), or asks about it again, alone, after a first ask.
- `over_reporting`: affirms a share (`OVER_REPORT_SHARE`) of the option symptoms it lacks, drawn
  from the case id; these become claims (`CLAIM-<code>`, truth `claimed`): said as its own when
  asked, never revealed, and counted (`false_claims`), so their effect on the answer is visible.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from typing import Literal

from selfdx.arguments import listed
from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.interview.facts import Fact, symptom_fact
from selfdx.datasets.interview.risk import fact_domain
from selfdx.datasets.mentalkg.entities import MentalKG
from selfdx.errors import ArgumentError

PatientStyle = Literal["plain", "minimising", "vague", "guarded", "over_reporting"]
STYLES: tuple[str, ...] = ("plain", "minimising", "vague", "guarded", "over_reporting")
OVER_REPORT_SHARE = 0.5
CLAIM_PREFIX = "CLAIM-"

PLAYED_DOWN = "Not really, nothing worth mentioning."
GENERAL = "I just haven't felt like myself lately; it's hard to put into words."
WITHHELD = "I'd rather not go into that."
# A doctor's statement that makes a sensitive question easier to answer; measured on doctor
# turns labelled blind (docs/interview.md, "Patient styles").
_NORMALISING = (
    # many people have it
    r"\b(?:a lot of|lots of|many|most|plenty of|some|loads of|a fair few) (?:other )?(?:people"
    r"|patients|folks|men|women|of (?:the|my|our) (?:people|patients)|others)\b[^.?!]{0,80}\b"
    r"(?:have|had|experience|feel|find|go through|get|struggle|notice|tell me|say|report|use"
    r"|drink|turn to|think|hear|deal with|cope)",
    # it asks everyone
    r"\b(?:i|we)(?: \w+){0,2} (?:ask|check|cover|go through|put)\w*(?: \w+){0,3} (?:everyone"
    r"|everybody|every (?:patient|person|one|client)|all (?:my |of my |our |of our )?(?:patients"
    r"|clients|people)|each (?:patient|person))",
    r"routine (?:questions?|part|check)|(?:questions?|things) (?:i|we) ask (?:everyone"
    r"|everybody|all)",
    # it is common, understandable
    r"(?:it's|it is|that's|that is|it can be|this is|these are) (?:really |very |quite |pretty "
    r"|so |actually |completely |perfectly |incredibly |extremely )?(?:common|normal"
    r"|understandable|natural|not unusual|not uncommon|more common than)",
    r"(?:when|if) (?:people|someone|somebody|anyone|folks) (?:are|is|feel|feels|have been|go)\w* "
    r"(?:under|through|this|so|that|very|really|low|stressed|down|overwhelmed|as)",
    # no judgement, no shame
    r"nothing to be (?:ashamed|embarrassed)|no (?:need to (?:feel )?)?(?:shame|judg)|without judg"
    r"|not (?:here )?to judge|won't judge|no judg|no right or wrong|(?:you're|you are) not alone",
    r"(?:won't|will not|wouldn't|nothing you (?:say|tell me) (?:will|would)) shock",
    r"(?:it's|it is) (?:okay|ok|safe|fine|alright|all right) (?:here )?to (?:talk|tell|say|share"
    r"|be honest|mention)",
)
NORMALISING = re.compile("|".join(_NORMALISING), re.IGNORECASE)
STIGMATISED = re.compile(
    r"halluc|voices|delusion|paranoi|substance|alcohol|drink|drug|cannabis|opioid|stimulant"
    r"|intoxic|withdrawal|craving|purg|vomit|binge|laxative|compensat|sexual|libido",
    re.IGNORECASE,
)


def normalises(question: str) -> bool:
    """Whether a doctor's turn normalises what it asks (`NORMALISING`)."""
    return bool(NORMALISING.search(question.replace("’", "'")))


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
