"""Reading the interview's final answer (`DIAGNOSIS: ...`) as one option, or as invalid.

The rule (stated in docs/interview.md):

1. Parts of the answer that rule a name out are dropped first: a bracketed remark (unless it
   hedges: "(possibly B instead of A)"), and a clause (between commas, semicolons, line breaks
   or sentences), that says "not", "no", "ruled out", "rules out", "excluded", "excludes",
   "excluding", "unlikely", "rather than", "instead of", "less likely" or "doesn't fit". A
   negated or ruled-out name is never the answer; so is one that "was considered" (weighed and
   set aside), one the writer disowns ("I don't think it's X", "I doubt it's X", "I wouldn't
   call this X", "Can't say X", "Without X", "Anything but X") and one set aside after it ("X
   is the least likely", "X would be a mistake"); a bare cue in brackets ("- A (ruled out)")
   rules out the name or list item before it. "Rule out X" (r/o) is the clinician's "X is
   still to be excluded", and "does not exclude X", "consider X", "differential: X" and "low
   confidence" keep X open: hedges; in the letters format a rule-out anywhere ("r/o D; B")
   holds the answer open. An answer revised after it ("Edit: A", "Wait - A fits better", "No
   wait - A", "No, wait", "On second thought", "I was wrong", "Scratch that", a later sentence
   or line opening "Actually") is a hedge, never credited. A rating scale and its score
   ("GAD-7 = 6", "PHQ-9", "PCL-5", "Y-BOCS", "ASRS") names no diagnosis and is read past.
2. Letters format: what is left is read as MentalBench's strict parser reads an answer
   statement (`instruments/answers/strict_parser`): markdown, case and "Option B" are
   tolerated, option names count as their letters. One letter is the answer; a hedge ("A or
   B", "B, possibly C") or several letters ("A, B") is an invalid answer.
3. Free text: the KG disorder names in what is left (a name inside a longer one, "Major
   Depressive Disorder" inside "... with Psychotic Features", counts as the longer one), else
   the usual synonyms and abbreviations ("PTSD"; "ASD" only beside a word of trauma, as it
   may mean autism). One disorder is the answer; two or more is an invalid answer. A disorder
   not current ("in full remission") is no answer; "in partial remission", a DSM-5 specifier
   of a disorder still present, names it. A past or not-yet-due disorder written beside the
   current one ("History of anorexia nervosa; current bulimia nervosa", "Acute stress disorder
   (too early for PTSD)") is set aside, and the current one is the answer.
4. Type 3 (every option that applies): every option named is the answer, as a set ("A & C",
   two names, "X with comorbid Y" or "X with Y comorbid", a bulleted list); a choice between
   them ("A or C", "A and probably C", "A / C?") is a hedge, invalid as for one option.

Disorder names are read whole: the parentheses and slash of "Attention-Deficit/Hyperactivity
Disorder (Combined Presentation)" are part of the name, not a clause break or a hedge. A
bulleted or numbered list is read as its items joined by "and"; "only A applies" as "A".

An invalid answer is counted (`invalid_answer`) and scored wrong, never credited; an answer
that names no option at all is `unreadable`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.mentalkg.entities import MentalKG
from selfdx.instruments.answers.disorder_terms import disorder_terms
from selfdx.instruments.answers.doubt import kept_open
from selfdx.instruments.answers.strict_parser import parse_strict

# The disorders an answer may name: the graph, or a code -> name table (the answer check's).
Disorders = MentalKG | Mapping[str, str]
AnswerStatus = Literal["named", "hedged", "several", "unreadable"]
# a comma, a semicolon, a line break, "but" (not "anything but"), or the full stop of a sentence
# (not "B. <name>")
CLAUSES = re.compile(
    r"[,;\n]+|(?<!anything\s)\bbut\b|(?<!\b[A-Za-z])\.\s+|\s[-‐‑‒–—]\s", re.IGNORECASE
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
# A DSM-5 specifier of persistent depressive disorder that names major depressive episodes.
PDD_SPECIFIER = re.compile(
    r"\bwith\s+(?:intermittent|persistent)\s+major\s+depressive\s+episodes?"
    r"(?:\s*,?\s*with(?:out)?\s+current\s+episode)?",
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
# A diagnosis the answer says is not current or not full: "in remission", "subthreshold", "GAD
# features, not meeting criteria", "history of", "atypical anorexia", "complex PTSD".
# "In partial remission" is a DSM-5 specifier of a disorder still present (some of its symptoms
# remain), so it names the disorder; so does "with atypical features", a specifier of a full
# depressive episode; "not in remission" says the disorder is current.
NOT_CURRENT = re.compile(
    r"\b(?:(?<!not\s)in\s+(?:full\s+|sustained\s+|early\s+)?remission|subthreshold|-like"
    r"|like\s+symptoms|social\s+(?:phobia|anxiety)"
    r"|sub-?syndromal|partial(?!\s+remission)|not\s+meeting(?:\s+full)?\s+criteria"
    r"|(?:does\s+)?not\s+meet|history\s+of|resolved|atypical(?!\s+features)|complex"
    r"|other\s+specified|unspecified)\b",
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
# What was ruled out, to the sentence's end: "Ruled out: bipolar I disorder, schizophrenia."
RULED_OUT_LIST = re.compile(r"\b(?:ruled\s+out|excluded)\s*:[^.;\n]*", re.IGNORECASE)
# What holds a single disorder open: "rule out PTSD", "possible GAD", "PTSD?", "pending".
ONE_HEDGED = re.compile(
    r"\b(?:rule\s+out|r/o|possible|possibly|probable|probably|query|suspected|provisional"
    r"|pending|tentative|low\s+confidence"
    r"|to\s+be\s+(?:confirmed|excluded)|unless|otherwise"
    r"|(?:not|un)\s*(?:clearly\s+)?(?:established|confirmed)"
    r"|(?:I|II|1|2)\s+or\s+(?:I|II|1|2))\b|\?",
    re.IGNORECASE,
)
# An answer revised within its own line: "D, changed to C", "D -> revised to C".
MOVED = re.compile(
    r"\b(?:changed|revised|switched|amended|updated|corrected)\s+(?:it\s+|my\s+answer\s+)?to\b"
    r"|\b(?:edit(?:ed)?|corrections?|update[d]?|revised)(?:\s+answer)?\s*:|^\W*wait\b|;\s*wait\b"
    r"|→|->|⇒|=>|⟶"
    r"|\bno,?\s+wait\b|\bon\s+second\s+thoughts?\b|\bI\s+was\s+wrong\b|\bscratch\s+that\b"
    r"|[.;!\n]\s*actually\b",
    re.IGNORECASE,
)
# "Rule out D" (r/o) holds D open, whatever else the answer names: "r/o D; B" is a hedge.
RULE_OUT = re.compile(r"\b(?:rule\s+out|r/o)\b", re.IGNORECASE)
# "D with B comorbid" is "D with comorbid B": two answers.
COMORBID_AFTER = re.compile(r"\bwith\s+(\S+)\s+(?:as\s+)?comorbid(?:ity)?\b", re.IGNORECASE)
# A rating scale and its score is no diagnosis: "GAD-7 = 6", "PHQ-9: 18/27", "Y-BOCS 24".
SCALES = re.compile(
    r"\b(?:GAD-?[27]|PHQ-?[29]|PCL-?5|Y-?BOCS|CY-?BOCS|ASRS(?:-?v?1\.1)?|HAM-?[AD]|MADRS|BDI(?:-?II)?"
    r"|BAI|EDE-?Q|AUDIT|CAPS-?5|YMRS|MDQ)(?![\w-])(?:\s*(?:score|total)?\s*(?:=|:|of)?\s*\d+"
    r"(?:\s*/\s*\d+)?)?",
    re.IGNORECASE,
)
# A bullet or a numbered item of a list: "- ", "* ", "• ", "1. ", "2) " (not "B. ").
BULLET = re.compile(r"(?:^|\s)(?:[-*•▪]|\d+[.)])\s+(?=\S)")
# "ASD" alone: autism spectrum disorder in most psychiatric writing, acute stress disorder in
# writing about trauma; read as the latter only beside a word of trauma.
ASD_ALONE = re.compile(r"(?<![\w-])ASD(?![\w-])")
TRAUMA_WORDS = re.compile(r"PTSD|trauma|stress|assault|accident|disaster", re.IGNORECASE)
# Words around a choice that say nothing about which: "only A applies", "B is correct".
FRAMING = re.compile(
    r"\b(?:only|just)\b|\b(?:appl(?:y|ies)|is (?:the )?(?:correct|right)(?: answer| option)?)\b",
    re.IGNORECASE,
)
LESS_LIKELY = re.compile(r"\ble(?:ss|ast)\s+likely\b", re.IGNORECASE)
MASK = "\x00{}\x00"
DASHES = re.compile(r"[‐‑‒–—]")


@dataclass(frozen=True)
class AnswerReading:
    """The KG code an answer names (None unless `status` is `named`), and why; for a Type 3
    case (every option that applies), `codes` holds every option named."""

    code: str | None
    status: AnswerStatus
    reason: str
    codes: frozenset[str] = frozenset()


def bracket_text(inner: str) -> str:
    """A bracket's words as its hedges are looked for: "less likely" is a ranking, and "or" in
    a bracket that opens by denying joins what it denies ("not MDD or GAD")."""
    inner = LESS_LIKELY.sub(" ", inner)
    return re.sub(r"\bor\b", " ", inner) if DENYING_BRACKET.match(inner) else inner


def affirmed_part(text: str) -> str:
    """The answer without what it negates or rules out: a clause whose cue follows the name
    ("PTSD ruled out", "GAD unlikely") is dropped; one whose cue comes first ("not GAD",
    "ruled out: PTSD", "rather than MDD") is cut at the cue."""
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


def letter_of(reading: AnswerReading, case: InterviewCase) -> str:
    return "ABCDEFGH"[case.option_codes.index(reading.code)]


def read_letters(text: str, case: InterviewCase) -> AnswerReading:
    parsed = parse_strict(f"Answer: {text}", case.option_names)
    if parsed.letters is None or not parsed.letters:
        status: AnswerStatus = "hedged" if parsed.status == "ambiguous" else "unreadable"
        return AnswerReading(None, status, parsed.reason)
    if len(parsed.letters) > 1:
        shown = ", ".join(sorted(parsed.letters))
        return AnswerReading(None, "several", f"several options ({shown})")
    index = ord(next(iter(parsed.letters))) - ord("A")
    if index >= len(case.option_codes):
        return AnswerReading(None, "unreadable", "a letter that is not an option")
    return AnswerReading(case.option_codes[index], "named", parsed.reason)


def disorder_names(kg: Disorders) -> Mapping[str, str]:
    """code -> name of the disorders an answer is read against: the graph's, or a table."""
    if isinstance(kg, MentalKG):
        return {code: disorder.name for code, disorder in kg.disorders.items()}
    return kg


def free_text_codes(text: str, kg: Disorders) -> set[str]:
    """The KG disorders a free-text answer names: their exact names and every wording of
    `disorder_terms` (a naming inside a longer one counts as the longer one; a name without
    its specifier, bare "ADHD", names every disorder it may mean)."""
    known = disorder_names(kg)
    written = DASHES.sub("-", text)
    low = written.lower()
    spans = [
        (match.start(), match.end(), frozenset({code}))
        for code, name in known.items()
        for match in re.finditer(re.escape(DASHES.sub("-", name).lower()), low)
    ]
    spans += [
        (t.start, t.end, t.codes & known.keys())
        for t in disorder_terms(written)
        if t.codes & known.keys()
    ]
    longest = [
        s
        for s in spans
        if not any(o[0] <= s[0] and s[1] <= o[1] and o[1] - o[0] > s[1] - s[0] for o in spans)
    ]
    return {code for _, _, codes in longest for code in codes}


PSYCHOTIC_WORDS = re.compile(
    r"(?<!non-)(?<!non )\b(?:psychotic|psychosis|delusions?|delusional|hallucinations?|voices)\b",
    re.IGNORECASE,
)
NO_PSYCHOSIS = re.compile(
    r"\b(?:without|no|not|non-?|absence\s+of|denies)\s+(?:any\s+)?(?:\w+\s+)?"
    r"(?:psychotic|psychosis|delusions?|hallucinations?|voices)",
    re.IGNORECASE,
)


def psychosis_beside(code: str, text: str, kg: Disorders) -> bool:
    """Whether `text` names psychotic features beside a disorder that has a variant with them
    ("Manic episode with grandiose delusions (bipolar I)"): which of the two is meant is open."""
    names = disorder_names(kg)
    variant = f"{names.get(code, '')} with Psychotic Features".lower()
    has_variant = any(name.lower() == variant for name in names.values())
    return has_variant and bool(PSYCHOTIC_WORDS.search(text)) and not NO_PSYCHOSIS.search(text)


# A choice between two disorders, one of them perhaps outside MentalKG: "Panic disorder vs GAD",
# "Social anxiety disorder or GAD"; "MDD or Major Depressive Disorder" names one.
CHOICE = re.compile(r"\s(?:vs\.?|versus|or)\s", re.IGNORECASE)


DISORDER_WORD = re.compile(
    r"(?i:disorder|syndrome|nervosa|phobia|depression|psychosis|schizophrenia|anxiety|mania)"
    r"|\b[A-Z]{2,5}\b"
)


def one_either_side(text: str, codes: set[str], kg: Disorders) -> bool:
    """Whether a choice in `text` names one disorder only: the same one on both sides, or no
    disorder on the side without a MentalKG name."""
    left, right = CHOICE.split(text, maxsplit=1)
    sides = (free_text_codes(left, kg), free_text_codes(right, kg))
    if all(sides):
        return sides[0] == sides[1] == codes
    return not DISORDER_WORD.search(right if not sides[1] else left)


def read_free_text(text: str, kg: Disorders) -> AnswerReading:
    codes = free_text_codes(text, kg)
    if len(codes) == 1 and CHOICE.search(text) and not one_either_side(text, codes, kg):
        return AnswerReading(None, "hedged", "a choice between disorders")
    if len(codes) == 1 and psychosis_beside(next(iter(codes)), text, kg):
        return AnswerReading(None, "hedged", "psychotic features beside a disorder without them")
    if len(codes) == 1 and ONE_HEDGED.search(text):
        return AnswerReading(None, "hedged", "one disorder, held open (rule out, possible, ?)")
    if len(codes) == 1:
        return AnswerReading(codes.pop(), "named", "one disorder named")
    if not codes:
        return AnswerReading(None, "unreadable", "no MentalKG disorder named")
    status: AnswerStatus = "hedged" if HEDGE.search(text) else "several"
    return AnswerReading(None, status, f"several disorders ({', '.join(sorted(codes))})")


def read_answer(
    text: str | None, case: InterviewCase, kg: Disorders, answer_format: str
) -> AnswerReading:
    """The option (KG code) a `DIAGNOSIS:` text names, by the rule of this module; for a Type 3
    case, every option it names (`read_answer_set`)."""
    if not text or not text.strip():
        return AnswerReading(None, "unreadable", "empty answer")
    if MOVED.search(text):
        return AnswerReading(None, "hedged", "the answer moves from one option to another")
    if re.search(r"\bwith\s+or\s+without\b", text, re.IGNORECASE):
        # "MDD (with or without psychotic features)": which disorder is left open
        return AnswerReading(None, "hedged", "a specifier left open (with or without)")
    text = COMORBID_AFTER.sub(r"with comorbid \1", SCALES.sub(" ", PDD_SPECIFIER.sub(" ", text)))
    names = list(disorder_names(kg).values()) + list(case.option_names)
    masked, names_at = masked_names(listed(text), names)
    masked = RULED_OUT_LIST.sub(" ", masked)
    masked, only_past = without_past(masked)  # "(history of AN, resolved)", "ASD ... superseded"
    if only_past:
        return AnswerReading(None, "unreadable", "only a disorder past or not yet due")
    if answer_format == "free_text" and NOT_CURRENT.search(
        unmasked(masked, ["" for _ in names_at])
    ):
        return AnswerReading(None, "unreadable", "a diagnosis not current or not full")
    kept_masked = FRAMING.sub(" ", affirmed_part(masked))
    kept = " ".join(unmasked(kept_masked, names_at).split())
    if not kept:
        return AnswerReading(None, "unreadable", "only negated or ruled-out names")
    if answer_format == "free_text" and ASD_ALONE.search(kept) and not TRAUMA_WORDS.search(text):
        reason = "'ASD' alone: autism spectrum disorder or acute stress disorder"
        return AnswerReading(None, "unreadable", reason)
    if case.answers:
        hedged = bool(HEDGE.search(unmasked(kept_masked, ["" for _ in names_at])))
        reading = read_answer_set(kept, case, kg, answer_format, hedged)
        if reading.status == "named" and answer_format == "letters":
            letters = {"ABCDEFGH"[case.option_codes.index(c)] for c in reading.codes}
            if doubt := kept_open(text, letters):
                return AnswerReading(None, "hedged", doubt)
        return reading
    if answer_format == "letters" and RULE_OUT.search(kept):
        return AnswerReading(None, "hedged", "an option held open (rule out)")
    if answer_format == "letters":
        reading = read_letters(kept, case)
        if reading.status == "named" and (doubt := kept_open(text, {letter_of(reading, case)})):
            return AnswerReading(None, "hedged", doubt)
        return reading
    return read_free_text(kept, kg)


def read_answer_set(
    kept: str, case: InterviewCase, kg: Disorders, answer_format: str, hedged: bool | None = None
) -> AnswerReading:
    """Type 3: the options an answer names, as a set ("A & C", "A and C", two names). A hedge
    between them ("A or C") is invalid, as for one option; so is a letter that is no option."""
    if answer_format == "letters":
        parsed = parse_strict(f"Answer: {kept}", case.option_names)
        if not parsed.letters:
            status: AnswerStatus = "hedged" if parsed.status == "ambiguous" else "unreadable"
            return AnswerReading(None, status, parsed.reason)
        indexes = sorted(ord(letter) - ord("A") for letter in parsed.letters)
        if indexes[-1] >= len(case.option_codes):
            return AnswerReading(None, "unreadable", "a letter that is not an option")
        codes = frozenset(case.option_codes[i] for i in indexes)
    else:
        codes = frozenset(free_text_codes(kept, kg))
        if not codes:
            return AnswerReading(None, "unreadable", "no MentalKG disorder named")
    if (HEDGE.search(kept) if hedged is None else hedged) and len(codes) > 1:
        return AnswerReading(None, "hedged", "a choice between options, not a set")
    first = next(iter(sorted(codes)))
    return AnswerReading(first, "named", f"{len(codes)} option(s) named", codes)
