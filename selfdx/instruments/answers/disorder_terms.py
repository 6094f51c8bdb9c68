"""The ways a model names one of the 23 MentalKG disorders in a free-text answer.

Each disorder has the wordings clinicians and models use: the DSM-5 name with its specifier in
parentheses, after a comma or as "type" ("ADHD, combined type", "ADHD (combined
presentation)", "ADHD-C"), with or without "disorder" ("Bipolar II"), in digits or Roman
numerals ("Bipolar 2"), the usual abbreviations (MDD, GAD, PTSD, OCD, BDD, PDD, BED, BP-II,
AN-R) and other names of the same disorder ("unipolar depression", "depression with psychotic
features"). A name
without the specifier its disorder needs names every disorder it may mean: bare "ADHD" is the
three presentations, "schizoaffective disorder" both types, "bipolar disorder" all three
bipolar disorders; an answer read as several disorders credits none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

S = r"[\s\-–—/,:(]*"  # between words: spaces, dashes, a slash, a comma or an opening bracket
ADHD = (
    r"(?:(?-i:ADHD|ADD)|adhd|attention[\s\-–—]*deficit(?:[\s\-–—/]*hyperactivity)?(?:\s+disorder)?)"
)
TYPE = r"(?:\s*(?:presentation|type|subtype))?"
I_ = r"(?:i|1|one)(?![\w])"
II = r"(?:ii|2|two)(?![\w])"
# Course and severity specifiers that may stand between a name and "with psychotic features".
SPECIFIERS = (
    r"(?:,?\s*(?:current|most|recent|episode|manic|depressed|depressive|mixed|severe|moderate"
    r"|mild|single|recurrent|type|i|1|depression)\b){0,6}"
)
MDD = r"(?:major\s+depressi(?:ve|on)(?:\s+disorder)?|(?-i:MDD))"
# "Unipolar depression", "clinical depression": major depression in other words. "Depression"
# alone stays unread (it may be any depressive disorder), but with psychotic features it is
# psychotic depression.
DEPRESSION = r"(?:(?:unipolar|clinical)\s+depression)"
# "BP-I", "BD-II", "BPII": the abbreviations of the bipolar types ("BDI" is a depression scale)
BP_I = r"(?:(?-i:BP|BD)[\s\-–](?-i:I|1)(?![\w-]))"
BP_II = r"(?:(?-i:BP)[\s\-–]?(?-i:II|2)|(?-i:BD)[\s\-–](?-i:II|2))(?![\w-])"
PSYCHOTIC = (
    r"(?:,?\s*(?:with|w/)\s+(?:mood[\s-]congruent\s+)?psychotic\s+features|,?\s*with\s+psychosis)"
)

TERMS: dict[str, tuple[str, ...]] = {
    "D001": (rf"{ADHD}{S}(?:predominantly\s+)?combined{TYPE}", r"(?-i:ADHD)[\s\-–]?(?-i:C)\b"),
    "D002": (
        rf"{ADHD}{S}(?:predominantly\s+)?inattentive{TYPE}",
        r"(?-i:ADHD)[\s\-–](?-i:I)\b(?!\s+(?:think|would|am|have))",
        r"(?-i:ADHD)[\s\-–]?(?-i:PI)\b",
    ),
    "D003": (
        rf"{ADHD}{S}(?:predominantly\s+)?hyperactive(?:[\s\-/]*impulsive)?{TYPE}",
        r"(?-i:ADHD)[\s\-–]?(?-i:HI|H|PHI)\b",
    ),
    "D004": (r"delusional\s+disorder",),
    # a specifier alone, after another ("ADHD, inattentive or combined type")
    "D005": (r"schizophreni(?:a|c|as)",),
    "D006": (rf"schizo[\s-]?affective(?:\s+disorder)?{S}bipolar{TYPE}",),
    "D007": (rf"schizo[\s-]?affective(?:\s+disorder)?{S}depressive{TYPE}",),
    "D008": (rf"bipolar\s+(?:type\s+)?{I_}(?:\s+disorder)?", r"bipolar[\s-]?1\b", BP_I),
    "D009": (rf"bipolar\s+(?:type\s+)?{II}(?:\s+disorder)?", r"bipolar[\s-]?2\b", BP_II),
    "D010": (rf"(?:bipolar\s+(?:type\s+)?{I_}|{BP_I})(?:\s+disorder)?{SPECIFIERS}{PSYCHOTIC}",),
    "D011": (r"generali[sz]ed\s+anxiety(?:\s+disorder)?", r"(?-i:GAD)"),
    "D012": (
        r"specific\s+phobia",
        r"(?<![Ss]ocial\s)(?<![Ss]ocial-)\b(?!social\b)(?:\w+\s+)?phobia\b(?!\s+of\s+the)",
        r"\b(?!agora|social|dysmorpho)[a-z]+phobia\b",
    ),
    "D013": (MDD, DEPRESSION),
    "D014": (r"persistent\s+depressive(?:\s+disorder)?", r"dysthymi[a-z]*", r"(?-i:PDD)(?![\w-])"),
    "D015": (
        rf"{MDD}{SPECIFIERS}{PSYCHOTIC}",
        r"psychotic\s+depression",
        rf"(?:{DEPRESSION}|depression){SPECIFIERS}{PSYCHOTIC}",
    ),
    "D016": (
        r"obsessive[\s\-–—]*compulsive(?!\s+personality|\s+and\s+related)(?:\s+disorder)?",
        r"(?-i:OCD)(?!PD)",
    ),
    "D017": (r"body\s+dysmorphi[a-z]*(?:\s+disorder)?", r"(?-i:BDD)", r"dysmorphophobia"),
    "D018": (r"post[\s\-–]*traumatic\s+stress(?:\s+disorder)?", r"(?-i:PTSD)"),
    "D019": (r"acute\s+stress\s+(?:disorder|reaction)", r"(?-i:ASD)"),
    "D020": (r"adjustment\s+disorder",),
    "D021": (
        r"anorexia(?:\s+nervosa)?(?:\s*[,(]\s*(?:restricting|binge[\s\-–]*eating[\s/\-–]*purging)"
        r"(?:\s+(?:type|subtype))?\)?)?",
        r"(?-i:AN)(?=\s*[,.)+&]|\s*$|\s+and\b)",
        r"(?-i:AN)[\-–](?-i:R|BP)(?![\w-])",  # restricting, binge-eating/purging type
    ),
    "D022": (r"bulimi[a-z]*(?:\s+nervosa)?", r"(?-i:BN)"),
    "D023": (r"binge[\s\-–]*eating(?:\s+disorder)?", r"(?-i:BED)"),
}
KIND = r"\s+(?:presentation|type|subtype)"
# a specifier offered as the other of a choice ("ADHD (inattentive vs combined)")
ALTERNATIVE = r"(?:\bvs\.?|\bversus|\bor|/)\s*(?:predominantly\s+)?"
SPECIFIER_ALONE: dict[str, str] = {
    "D001": rf"combined{KIND}|{ALTERNATIVE}combined",
    "D002": rf"(?:predominantly\s+)?inattentive{KIND}|{ALTERNATIVE}inattentive",
    "D003": rf"(?:predominantly\s+)?hyperactive(?:[\s\-/]*impulsive)?{KIND}"
    rf"|{ALTERNATIVE}hyperactive(?:[\s\-/]*impulsive)?",
    "D006": rf"bipolar{KIND}",
    "D007": rf"depressive{KIND}",
}
# Names without the specifier their disorders need: every disorder they may mean.
GENERIC: dict[str, tuple[str, ...]] = {
    rf"{ADHD}": ("D001", "D002", "D003"),
    r"schizo[\s-]?affective(?:\s+disorder)?": ("D006", "D007"),
    r"bipolar(?:\s+(?:affective\s+)?disorder)?|manic[\s-]depressi(?:on|ve)": (
        "D008",
        "D009",
        "D010",
    ),
}


@dataclass(frozen=True)
class Term:
    start: int
    end: int
    codes: frozenset[str]


@cache
def compiled() -> tuple[tuple[re.Pattern[str], frozenset[str]], ...]:
    patterns = [
        (re.compile(rf"(?<![\w]){p}(?![\w])", re.IGNORECASE), frozenset({code}))
        for code, wordings in TERMS.items()
        for p in wordings
    ]
    patterns += [
        (re.compile(rf"(?<![\w]){p}(?![\w])", re.IGNORECASE), frozenset(codes))
        for p, codes in GENERIC.items()
    ]
    patterns += [
        (re.compile(rf"(?<![\w]){p}(?![\w])", re.IGNORECASE), frozenset({code}))
        for code, p in SPECIFIER_ALONE.items()
    ]
    return tuple(patterns)


def disorder_terms(text: str) -> list[Term]:
    """Every naming of a disorder in `text`; a naming inside a longer one (the specifier's
    "Bipolar I" inside "Bipolar I with psychotic features", bare "ADHD" inside "ADHD, combined
    type") is the longer one."""
    found = [
        Term(m.start(), m.end(), codes)
        for pattern, codes in compiled()
        for m in pattern.finditer(text)
        if m.end() > m.start()
    ]
    return [
        t
        for t in found
        if not any(
            o is not t
            and o.start <= t.start
            and t.end <= o.end
            and (o.end - o.start > t.end - t.start or (o.codes < t.codes))
            for o in found
        )
    ]


def named_codes(text: str) -> set[str]:
    """The disorders `text` names, every naming counted (see the module)."""
    return {code for term in disorder_terms(text) for code in term.codes}
