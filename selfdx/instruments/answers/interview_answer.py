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

Disorder names are read whole and a list as its items joined by "and" (`diagnosis_clauses`,
where rule 1's clauses are read too); "only A applies" is read as "A".

An invalid answer is counted (`invalid_answer`) and scored wrong, never credited; an answer
that names no option at all is `unreadable`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.mentalbench.schema import LETTERS
from selfdx.datasets.mentalkg.entities import MentalKG
from selfdx.instruments.answers.after_answer import RESTATED
from selfdx.instruments.answers.diagnosis_clauses import (
    HEDGE,
    affirmed_part,
    listed,
    masked_names,
    unmasked,
    without_past,
)
from selfdx.instruments.answers.disorder_terms import disorder_terms
from selfdx.instruments.answers.doubt import kept_open, torn
from selfdx.instruments.answers.reply_text import (
    DISORDER_NOUN,
    LETTER_ITEM,
    NOT_THE_DISORDER,
    SET_ITEM,
)
from selfdx.instruments.answers.strict_parser import parse_strict

# The disorders an answer may name: the graph, or a code -> name table (the answer check's).
Disorders = MentalKG | Mapping[str, str]
AnswerStatus = Literal["named", "hedged", "several", "unreadable"]
# A DSM-5 specifier of persistent depressive disorder that names major depressive episodes.
PDD_SPECIFIER = re.compile(
    r"\bwith\s+(?:intermittent|persistent)\s+major\s+depressive\s+episodes?"
    r"(?:\s*,?\s*with(?:out)?\s+current\s+episode)?",
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
# "ASD" alone: autism spectrum disorder in most psychiatric writing, acute stress disorder in
# writing about trauma; read as the latter only beside a word of trauma.
ASD_ALONE = re.compile(r"(?<![\w-])ASD(?![\w-])")
TRAUMA_WORDS = re.compile(r"PTSD|trauma|stress|assault|accident|disaster", re.IGNORECASE)
# Words around a choice that say nothing about which: "only A applies", "B is correct".
FRAMING = re.compile(
    r"\b(?:only|just)\b|\b(?:appl(?:y|ies)|is (?:the )?(?:correct|right)(?: answer| option)?)\b",
    re.IGNORECASE,
)
DASHES = re.compile(r"[‐‑‒–—]")


@dataclass(frozen=True)
class AnswerReading:
    """The KG code an answer names (None unless `status` is `named`), and why; for a Type 3
    case (every option that applies), `codes` holds every option named."""

    code: str | None
    status: AnswerStatus
    reason: str
    codes: frozenset[str] = frozenset()


# A second diagnosis joined to the first: "..., plus the mood disorder", "... and C".
JOINED = re.compile(
    r"(?:\bplus\b|\band\b|&|\+|\bas\s+well\s+as\b|\btogether\s+with\b)\s*\S"
    r"|\S\s+(?:too|as\s+well)\b"  # "A. C too."
)
# Another diagnosis said beside the one read, where the reading may have set it aside: "A is
# not the only issue: C too".
NOT_ONLY = re.compile(r"\bnot\s+(?:the\s+)?only\b|\bnot\s+just\b|\bnot\s+alone\b", re.I)


def letter_of(code: str, case: InterviewCase) -> str:
    """The letter of the option coded `code`."""
    return LETTERS[case.option_codes.index(code)]


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
    # "schizophrenia spectrum", "bipolar-like": a family of disorders, not the disorder
    spans = [s for s in spans if re.match(NOT_THE_DISORDER, low[s[1] :])]
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
# "A or B", "A vs B", "A / B", "bipolar II/cyclothymia" (not the slash inside a name:
# "Attention-Deficit/Hyperactivity", "I/II")
CHOICE = re.compile(
    r"\s(?:vs\.?|versus|or|/)\s|(?<=[a-z])(?<!deficit)/(?=[a-z])(?!hyperactiv)", re.IGNORECASE
)


DISORDER_WORD = re.compile(
    r"(?i:disorder|syndrome|nervosa|phobia|depression|psychosis|schizophrenia|anxiety|mania"
    r"|thymi|bulimi|anorexi|autis|dementia|delirium|catatoni|hypochondri|personality)"
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
    if doubt := torn(text):  # "... I'd put them at even odds", "Withdrawn."
        return AnswerReading(None, "hedged", doubt)
    if MOVED.search(text):
        return AnswerReading(None, "hedged", "the answer moves from one option to another")
    if (again := RESTATED.search(text)) and answer_format == "letters":
        # "A & B - i.e. major depression with comorbid PTSD": both halves must name one answer
        halves = [read_answer(part, case, kg, answer_format)
                  for part in (text[: again.start()], text[again.end() :])]  # fmt: skip
        named = [h.codes or {h.code} for h in halves if h.status == "named"]
        if len(named) == 2 and named[0] != named[1]:
            return AnswerReading(None, "hedged", "restated in other words as another answer")
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
        if (
            reading.status == "named"
            and len(reading.codes) == 1
            and (JOINED.search(kept) or NOT_ONLY.search(text))
        ):
            # "the inattentive presentation, plus the mood disorder": a second one named, unread
            return AnswerReading(None, "unreadable", "a second diagnosis named but not read")
        if reading.status == "named" and answer_format == "letters":
            letters = {letter_of(c, case) for c in reading.codes}
            if doubt := kept_open(text, letters):
                return AnswerReading(None, "hedged", doubt)
        return reading
    if answer_format == "letters" and RULE_OUT.search(kept):
        return AnswerReading(None, "hedged", "an option held open (rule out)")
    if answer_format == "letters":
        reading = read_letters(kept, case)
        if reading.status == "named" and (
            doubt := kept_open(text, {letter_of(reading.code, case)})
        ):
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
    if any(
        DISORDER_NOUN.search(item)
        and not LETTER_ITEM.search(item)
        and not free_text_codes(item, kg)
        for item in SET_ITEM.split(kept)
    ):  # "Major depresive disorder, Bulimia nervosa": a member misspelt, the set is not read
        return AnswerReading(None, "unreadable", "a member of the set names no option")
    first = next(iter(sorted(codes)))
    return AnswerReading(first, "named", f"{len(codes)} option(s) named", codes)
