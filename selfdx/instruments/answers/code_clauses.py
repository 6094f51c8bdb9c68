"""The clauses the ICD-10 code reader reads a reply by: where a clause ends (`CLAUSE`), one that
sets a code aside (`ASIDE`: ruled out, denied, ranked below, someone else's diagnosis), keeps it
open (`OPEN`) or revises it (`REVISION`), the shape of a code (`CODE`), and the codes a reply
keeps outside the clauses that set one aside (`kept_codes`, rule 2 of `icd_code`)."""

from __future__ import annotations

import re

from selfdx.datasets.icd10 import extract_codes
from selfdx.instruments.answers.doubt import EQUALLY

ASIDE = re.compile(
    r"\b(?:considered|ruled\s+out|rule[\s-]?outs?|excluded?|exclud\w+|less\s+likely|unlikely"
    r"|improbable|neither|nor|withdr[ae]w(?!al\b|al\s+(?:state|syndrome|delirium))\w*"
    # someone else's diagnosis: a relative's, the GP's, a referral's or an earlier clinician's
    # ("his mother carries F33.2", "her GP's code: F41.9"; not "after her mother's death")
    r"|(?:mother|father|brother|sister|sibling|parents?|relatives?|aunt|uncle|cousin|grand\w+"
    r"|GP|(?:previous|earlier|prior)\s+(?:clinic|psychiatrist|clinician|doctor|admissions?|team))"
    r"(?:'s)?(?:\s*[:：]|\s+(?:\w+\s+)?(?:has|had|carries|carried|diagnosis|diagnosed|codes?"
    r"|coded|queried|recorded|letter|told|said))"
    r"|queried"
    r"|(?:don't|doesn't|do\s+not|does\s+not)\s+(?:apply|fit)|rather\s+than|instead\s+of"
    r"|not(?!\s+(?:superimposed|elsewhere|otherwise)\b)"
    r"|no\s+longer|raised\s+the\s+question|might\s+suggest|would\s+suggest|although|initially"
    r"|was\s+on\s+the\s+differential|differential|no\s+(?:\w+\s+)?diagnosis|my\s+first\s+thought"
    r"|(?<!no\s)(?<!without\s)doubt|mistaken?|(?:would\s+be|is)\s+(?:wrong|incorrect)"
    r"|(?:don't|doesn't|do\s+not|does\s+not|fails?\s+to|not)\s+(?:\w+\s+)?(?:meet|fulfil)"
    r"|more\s+likely\s+than)\b",
    re.IGNORECASE,
)
# "rather than", "instead of" and ", not" open a clause of their own ("F43.2 rather than F43.1"),
# as does the "than" after "less likely".
CLAUSE = re.compile(
    r"(?<!\d)\.(?!\d)|\.(?=\s)|[;\n]+|\bbut\b|\bwhereas\b|,\s*(?=which\b)|\s[—–]\s"
    r"|(?=\brather\s+than\b|\binstead\s+of\b|\bmore\s+likely\s+than\b)"
    r"|,\s*(?=not\b(?!\s+(?:superimposed|elsewhere|otherwise)\b))"
    # "F43.2 is less likely than F43.1": what follows "than" is the one kept
    r"|(?<=less likely)(?=\s+than\b)|(?<=less probable)(?=\s+than\b)",
    re.IGNORECASE,
)
OPEN = re.compile(
    r"\b(?:cannot|can't|can\s+not)\s+be\s+(?:excluded|ruled\s+out)|could\s+also|may\s+(?:also\s+)?be"
    r"|or\s+even|needs?\s+to\s+be\s+(?:excluded|ruled\s+out)|not\s+(?:yet\s+)?(?:excluded|ruled\s+out)"
    r"|remains?\s+possible|is\s+also\s+possible|(?:should|must|may)\s+also\s+be\s+considered"
    r"|rule\s+out|r/o|pending|to\s+be\s+confirmed|alternative|but\s+consider"
    r"|remains?\s+(?:a\s+|on\s+the\s+)?differential"
    r"|contender|close\s+second"
    r"|also\s+(?:be\s+)?considered"
    # "F41.1 explains it just as well", "F32.1, unless ... in which case F31.3"
    r"|\b(?:just|equally)\s+as\s+well\b|\bequally\s+well\b|\bunless\b|\bin\s+which\s+case\b"
    # "F31.3 is just as likely" (`EQUALLY`), "a differential between F41.1 and F41.0"
    rf"|\b(?:{EQUALLY})|\bdifferential\s+between\b"
    # "Codes to consider: F41.1, F43.22", "diagnóstico diferencial", "no es posible decidir"
    r"|\bto\s+consider\b|\bconsider\s*:|\bdiferencial\b|\bdiff[ée]rentiel(?:le)?\b"
    r"|\bdifferenzial\w*|\bno\s+es\s+posible\s+decidir|\bfrente\s+a\b"
    # "the hypomanic period could make this F31.3", "I can't tell which"
    r"|(?:could|might|may)\s+make\s+(?:this|it)|(?:can'?t|cannot|can\s+not)\s+tell\s+which"
    r"|(?:unsure|not\s+sure)\s+which"
    # "I cannot exclude either", "can't yet rule out F43.2"
    r"|\b(?:cannot|can't|can\s+not|unable\s+to)\s+(?:yet\s+|fully\s+)?(?:exclude|rule\s+out)",
    re.IGNORECASE,
)
NEGATED_REMARK = re.compile(r"\((?:not|no|excluding|rather\s+than)\b[^()]*\)", re.IGNORECASE)
REMARK = re.compile(r"\(([^()]*)\)")
# A revision between two codes withdraws the first: an arrow ("F32.1 -> F33.1"), a correction
# opening a clause ("F32.1, actually F33.1", "no wait", "Correction:") or a verb of change
# ("F32.1 (revised to F33.1)", "changed to"). A bare dash is no arrow: "F20-F29" is a range.
REVISION = re.compile(
    r"[ \t]*(?:→|->|=>|⇒|⟶)[ \t]*"
    r"|(?:^|[,;:.!?(\[—–-])\s*(?:(?:no\s*[,!.]?\s*wait|wait|actually|correction|correcting"
    r"|i\s+mean|or\s+rather|scratch\s+that|make\s+(?:that|it)|edit|update"
    r"|(?:up)?on\s+(?:second\s+thought|(?:further\s+)?reflection))\b|no\s*[,!])[\s,:!.—–-]*"
    r"|\b(?:revised|revising|changed|changing|amended|corrected|updated|upgraded|downgraded)"
    r"\s+(?:it\s+|this\s+|that\s+)?to\b\s*",
    re.IGNORECASE,
)
CODE = re.compile(r"\b([A-Z]\d{2}(?:\.[0-9A-Z]+)?)\b", re.IGNORECASE)


def kept_codes(reply: str) -> tuple[list[str], str]:
    """Rule 2: the codes outside clauses that set a diagnosis aside, and those clauses' text;
    a bracketed remark that sets one aside ("F43.2 (not F32.1)") goes first."""
    reply = NEGATED_REMARK.sub(" ", reply)
    reply = REMARK.sub(  # "(F20 excluded)": a remark that sets a code aside, not one kept open
        lambda m: " " if ASIDE.search(m.group(1)) and not OPEN.search(m.group(1)) else m.group(0),
        reply,
    )
    clauses = [part for c in CLAUSE.split(reply) if c for part in after_denial(c)]
    kept = [c for c in clauses if not ASIDE.search(c)]
    text = " ".join(kept)
    return extract_codes(text), text


def after_denial(clause: str) -> list[str]:
    """A clause that opens with "not" ends at a spaced dash: "Not F32.1 - the history shows
    earlier episodes, so F33.1" denies F32.1 and goes on to F33.1."""
    if not re.match(r"\s*not\b", clause, re.IGNORECASE):
        return [clause]
    return re.split(r"\s[-–—]\s", clause, maxsplit=1)
