"""The clauses of an interview `DIAGNOSIS:` answer, read before its names: the clauses and
bracketed remarks that rule a name out (`affirmed_part`, rule 1 of `interview_answer`) or name a
disorder past or not yet due (`without_past`), and the words that keep a name open (`HEDGE`).

Disorder names are read whole: the parentheses and slash of "Attention-Deficit/Hyperactivity
Disorder (Combined Presentation)" are part of the name, not a clause break or a hedge
(`masked_names`). A bulleted or numbered list is read as its items joined by "and" (`listed`).
"""

from __future__ import annotations

import re

# a comma, a semicolon, a line break, "but" (not "anything but"), or the full stop of a sentence
# (not "B. <name>")
CLAUSES = re.compile(
    r"[,;\n]+|(?<!anything\s)\bbut\b|(?<!\b[A-Za-z])\.\s+|\s[-‐‑‒–—]\s"
    # a sentence that ends on a letter, before one that opens with a bare letter: "Not C or D.
    # A, B." (not "C. <name>", where the letter labels the name after it)
    r"|(?-i:(?<=\b[A-H])\.\s+(?=[A-H]\b(?![.)]?\s*[A-Za-z]{2})))",
    re.IGNORECASE,
)
BRACKETED = re.compile(r"[(\[]([^()\[\]]*)[)\]]")
# A name's clause that denies it: "Adjustment disorder doesn't fit", "MDD is not supported".
DENIED = (
    r"(?:doesn'?t|does\s+not|don'?t|do\s+not|isn'?t|is\s+not|aren'?t|are\s+not)\s+(?:\w+\s+)?"
    r"(?:fit|apply|explain|account|match|meet|supported|warranted|present|the\s+(?:answer|diagnosis))"
)
# "MDD was considered", "(initially considered MDD)": weighed and set aside, as ruled out
CONSIDERED = r"(?:was|were|been|initially|first|previously)\s+considered"
# "I don't think it's GAD", "I doubt it's GAD", "I wouldn't call this GAD", "Can't say GAD",
# "Without GAD", "Anything but GAD": the writer disowns the name that follows.
DISOWNED = (
    r"(?:don'?t|do\s+not)\s+(?:think|believe|feel)|doubt(?:ful)?|(?:wouldn'?t|would\s+not)\s+"
    r"(?:call|say|diagnose|label)|(?:can'?t|cannot|can\s+not)\s+say|without|anything\s+but"
)
# "GAD is the least likely", "GAD would be a mistake here": the name before it is set aside.
WRONG = r"least\s+likely|(?:would\s+be|is)\s+(?:a\s+)?(?:mistake|wrong|incorrect)"
# "B and D not assessed": named, and said not to have been looked at
NOT_ASSESSED = r"not\s+(?:assessed|evaluated|examined|explored|established|confirmed|met|present)"
NEGATION = re.compile(
    rf"\b(?:{DENIED}|{CONSIDERED}|{DISOWNED}|{WRONG}|{NOT_ASSESSED}|not|no|ruled\s+out|rules\s+out|excluded"
    r"|excludes|excluding|unlikely|rather\s+than|instead\s+of|less\s+likely)\b",
    re.IGNORECASE,
)
# "X doesn't exclude Y", "cannot rule out Y": Y is kept open, a hedge rather than a negation.
NOT_EXCLUDING = r"(?:doesn'?t|does\s+not|cannot|can'?t|can\s+not)\s+(?:exclude|rule\s+out)"
# "A not excluded", "B can't be ruled out": not a negation but a hedge (kept for HEDGE to see)
STILL_OPEN = re.compile(
    rf"\b{NOT_EXCLUDING}|\bnot\s+(?:yet\s+)?(?:excluded|ruled\s+out)|\b(?:can'?t|cannot|can\s+not)\s+be\s+"
    r"(?:excluded|ruled\s+out)|\bto\s+be\s+(?:excluded|ruled\s+out)",
    re.IGNORECASE,
)
AFTER_NAME = re.compile(
    rf"excluded|unlikely|less\s+likely|ruled\s+out|{WRONG}|{DENIED}|{CONSIDERED}|{NOT_ASSESSED}",
    re.IGNORECASE,
)
# A bracket that opens by denying what it names: "(does not meet criteria for MDD or GAD)".
DENYING_BRACKET = re.compile(
    rf"\s*(?:{DENIED}|not|no|without|excluding|rules?\s+out|ruled\s+out)\b", re.IGNORECASE
)
HEDGE = re.compile(
    rf"\b{NOT_EXCLUDING}|"
    r"\b(?:or|vs\.?|versus|either|possibly|maybe|perhaps|probabl[ey]|likely|possible|suspected"
    r"|query|provisional|rule\s+out|r/o|not\s+(?:yet\s+)?(?:excluded|ruled\s+out)|pending"
    r"|to\s+be\s+(?:excluded|ruled\s+out|confirmed|considered)|unless|otherwise|tentative"
    r"|differentials?|consider(?:ing)?|as\s+a\s+possibility|low\s+confidence"
    r"|(?:can'?t|cannot|can\s+not)\s+be\s+(?:excluded|ruled\s+out))\b|/|\?",
    re.IGNORECASE,
)
# A clause or bracketed remark that names a disorder the patient had, or may have later, beside
# the current one: "History of anorexia nervosa; current bulimia nervosa", "Acute stress
# disorder (too early for PTSD)", "MDD (prior GAD, now resolved)". Set aside, it is no answer.
PAST = re.compile(
    r"^\W*(?:(?:a\s+|with\s+a\s+)?(?:past|previous|prior|earlier|former|old)\b|(?:a\s+)?history\s+of"
    r"|h/o\b|too\s+early\s+(?:for|to\s+(?:call|diagnose)))",
    re.IGNORECASE,
)
# A clause that only says the clause before it is over: "Prior PTSD, now resolved".
OVER = re.compile(
    r"\W*(?:now\s+)?(?:(?:has|have)\s+(?:since\s+)?(?:been\s+)?)?(?:resolved|superseded"
    r"|in\s+(?:full|sustained)\s+remission|no\s+longer\s+(?:applies|present|met|current))\W*",
    re.IGNORECASE,
)
# A bullet or a numbered item of a list: "- ", "* ", "• ", "1. ", "2) " (not "B. ").
BULLET = re.compile(r"(?:^|\s)(?:[-*•▪]|\d+[.)])\s+(?=\S)")
LESS_LIKELY = re.compile(r"\ble(?:ss|ast)\s+likely\b", re.IGNORECASE)
MASK = "\x00{}\x00"


NON_PSYCHOTIC = re.compile(
    r"\bwithout\s+(?:any\s+)?(?:mood[\s-](?:in)?congruent\s+)?(?:psychotic\s+(?:features|symptoms)"
    r"|psychosis)\b",
    re.IGNORECASE,
)


def bracket_text(inner: str) -> str:
    """A bracket's words as its hedges are looked for: "less likely" is a ranking, and "or" in
    a bracket that opens by denying joins what it denies ("not MDD or GAD")."""
    inner = LESS_LIKELY.sub(" ", inner)
    return re.sub(r"\bor\b", " ", inner) if DENYING_BRACKET.match(inner) else inner


def affirmed_part(text: str) -> str:
    """The answer without what it negates or rules out: a clause whose cue follows the name
    ("PTSD ruled out", "GAD unlikely") is dropped; one whose cue comes first ("not GAD",
    "ruled out: PTSD", "rather than MDD") is cut at the cue."""
    # "without psychotic features" specifies the disorder before it; it denies no disorder, so
    # what follows it stays ("MDD without psychotic features & PTSD")
    text = NON_PSYCHOTIC.sub(" ", text)
    # a bracketed remark that rules something out goes whole ("(not GAD)", "(rules out C)"); one
    # that does not stays, read as its own clause ("X (A) with comorbid Y (B)")
    # a remark that is only the cue ("A (ruled out)") rules out the name before it
    text = BRACKETED.sub(
        lambda m: (
            (" " + m.group(1) if NEGATION.fullmatch(m.group(1).strip(" .")) else ", ")
            if NEGATION.search(m.group(1)) and not HEDGE.search(bracket_text(m.group(1)))
            else m.group(0)
        ),
        text,
    )
    kept = []
    for clause in (c.strip() for c in CLAUSES.split(text)):
        cue = None if STILL_OPEN.search(clause) else NEGATION.search(clause)
        if cue is not None:
            after = clause[cue.end() :].strip(" :.-")
            if AFTER_NAME.fullmatch(cue.group(0)) or not after:
                continue
            clause = clause[: cue.start()].strip()
        if clause:
            kept.append(clause)
    return ", ".join(kept)


def without_past(text: str) -> tuple[str, bool]:
    """The answer without the remarks and clauses about a disorder past or not yet due
    (`PAST`, and a clause followed by `OVER`), and whether that was all it said (then it names
    no current disorder)."""
    remarks = BRACKETED.sub(lambda m: " " if PAST.search(m.group(1)) else m.group(0), text)
    kept: list[str] = []
    dropped = remarks != text
    for clause in (c.strip() for c in CLAUSES.split(remarks)):
        if not clause:
            continue
        if OVER.fullmatch(clause):
            dropped = True
            if kept:
                kept.pop()
        elif PAST.search(clause):
            dropped = True
        else:
            kept.append(clause)
    if not dropped:
        return text, False
    return "; ".join(kept), not kept


def listed(text: str) -> str:
    """A bulleted or numbered list read as its items joined by "and" ("- B. X" then "- A. Y"
    is "B. X and A. Y"); text without one is kept as it is."""
    if not BULLET.match(text) and len(BULLET.findall(text)) < 2:
        return text  # one dash inside a name: "Schizoaffective disorder - depressive type"
    items = [item.strip(" ,;") for item in BULLET.split(text)]
    items = [item for item in items if item]
    return ", and ".join(items) if len(items) > 1 else (items[0] if items else "")


def masked_names(text: str, names: list[str]) -> tuple[str, list[str]]:
    """`text` with every disorder name in it replaced by a mark (`MASK`), longest first, so that
    the parentheses, slashes and commas inside a name ("Attention-Deficit/Hyperactivity
    Disorder (Combined Presentation)") are read as part of it, never as clause breaks or a
    hedge; and the names replaced, in the order of their marks."""
    found: list[str] = []
    for name in sorted(set(names), key=len, reverse=True):
        if not re.search(r"[(/),]", name):
            continue
        pattern = re.compile(re.escape(name), re.IGNORECASE)

        def mark(match: re.Match[str]) -> str:
            found.append(match.group())
            return MASK.format(len(found) - 1)

        text = pattern.sub(mark, text)
    return text, found


def unmasked(text: str, names: list[str]) -> str:
    return re.sub(r"\x00(\d+)\x00", lambda m: names[int(m.group(1))], text)
