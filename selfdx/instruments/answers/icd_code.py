"""Reading the diagnosis code of a Safe-Psych Diagnose turn.

A judged turn's code is the judge's first code (the protocol's rule), save for a cause (below).
A `structured_actions` reply has no judge, so its own text is read, as a clinician reads a
note's conclusion:

1. a diagnosis statement ("Diagnosis: F22.0", "Final diagnosis: ... F43.1", "The diagnosis is
   ...", a differential line marked "selected"): the first code of the last one that holds a
   code (to the end of its line, or on the next line when its own is empty), the last primary
   or final one where there is one ("Primary diagnosis: F43.1" before "Secondary diagnosis:
   F10.2"; a secondary, comorbid or additional one is never the diagnosis); within it, the
   clauses that set a code aside are left out as in rule 2 ("The diagnosis is not F43.1 but
   F43.2"); a statement that offers a choice ("Diagnosis: F32.1 or F33.1"), is tentative
   ("Probable diagnosis: ...", "Diagnosis: probably ...", "Diagnosis: F43.1, I think, but not
   sure") or, plural, names two mental disorders ("Working diagnoses: F60.3; F12.1") names none;
2. else the codes outside clauses that set a diagnosis aside ("was considered", "ruled out",
   "less likely", "don't apply", "rather than", "not"): the first of them, unless two or more
   are offered as a choice ("F32.1 or F43.22", "F22.0 vs F31.1", "possible diagnoses"), one is
   kept open ("F41.0 cannot be excluded"), or two are given together in one sentence ("F43.1
   and F32.1"), which commits to none; a code that is asked about ("F43.1?", "PTSD (F43.1)?")
   or hedged in its own sentence ("Probably F43.1", "likely", "maybe", "perhaps", "not sure";
   "most likely" is a ranking, not a hedge) is no commitment either;
3. a reply whose every code is set aside names no code.

Set aside, too, is a code denied ("I doubt it's F43.1", "F43.1 would be a mistake here",
"don't quite meet criteria for F43.1"), and one ranked below another ("F43.1 is more likely than
F43.2" is F43.1). A past or family diagnosis is history, not the diagnosis: the code after
"History of", "Family history of", "Previously diagnosed with" (up to a clause's end or a word
that turns to the present, "now", "current") is left out, so "History of F10.2 (in remission).
Current: F32.1." is F32.1 and "Diagnosis: F43.1. Family history of F31.1." stays F43.1. A code
given before a diagnosis can be made or on a condition ("Too early to diagnose F43.1", "Before
diagnosing F43.1, ...", "If ..., this would be F43.1", "F43.1 is one option") or with a lean
("I'd lean toward F43.1", "it sounds like it could be F43.1") is hedged in its sentence. Beside a
statement, another chapter V code kept open ("F33.1 cannot be excluded", "not excluded",
"(differential: F31.4)") leaves no code, as "r/o" does below. A JSON object is read by its keys,
in any order: a "diagnosis", "primary" or "final" key decides (its code may stand under an
"icd10" or "code" key beside it), and "ruled_out", "excluded" or "differential" keys are left
out.

A statement needs no colon ("diagnosis F43.2 ..."); "F43.2 rather than F43.1" is F43.2, and "Not
F32.1 - ..., so F33.1" is F33.1. A code left to rule out beside a statement ("Diagnosis: F43.2
(r/o F43.1)") keeps the reply open: no code.

A revision withdraws the code before it, wherever it stands: an arrow ("F32.1 -> F33.1", "F32.1
→ F33.1"), a correction that opens a clause ("F32.1, actually F33.1", "F32.1, no wait, F33.1",
"F32.1. Correction: F33.1", "Edit: F33.1", "Update: F33.1", "Upon reflection, F33.1") or a verb
of change ("F32.1 (revised to F33.1)", "changed to"), so each of these is F33.1, unless the new
code is itself set aside or kept open. A bare dash is no arrow: "F20-F29" is a range, which
names no code.

Chapter V codes written loosely are read as written with a dot, since the dot of an ICD-10 code
always follows its third character and none of them can stand for another code: "F 32.1",
"F-32.1", "F321", "F32 .1" and "F32,1" (a decimal comma with one character attached; "F32, 1
episode" is a list, and stays F32). Only an upper-case F is read so; "F 32" and "F-32" without a
decimal part are not (a sex and an age, as often as a code).

Outside chapter V, a bare letter and two digits with no dot ("B12", "K10") is, in running text,
a vitamin, a rating scale or a lab value, so it is read as a code only where a clinician writes
a code: in brackets ("Alzheimer's disease (G30)"), right after a code label or a statement
("ICD-10: G30", "Diagnosis: E11"), after another code in a list ("F00.1, G30") or marked as a
dagger or asterisk code ("G30†"). "Low B12 noted; depressive episode F32.1" is F32.1, "Levels of
B12 low" names no code. After "vitamin" it is never a code, nor is B12 anywhere (ICD-10 has no
category B12, and "cobalamin (B12)" is the vitamin). A code with its dot ("E53.8") is read
wherever it stands.

A cause is written before the mental disorder it brings about, and the mental disorder's code is
the diagnosis, on both paths: the asterisk code of a dagger-asterisk pair (`G30.1† F00.1*`);
and, where the first code found is outside chapter V (a G-chapter cause as before, but also E,
A, B, C, I, S, T and the rest), the first chapter V code after it when that code names a
disorder by a condition coded elsewhere: an organic disorder (F00-F09: "G30.1 + F00.1", "E03.9
hypothyroidism with F06.3", "S06.2 brain injury, F07.0"), one due to a substance (F10-F19:
"E51.2 Wernicke with F10.6 amnesic syndrome", "K70.3 cirrhosis and F10.2"), a puerperal disorder
(F53, beside "O99.3") or psychological factors of a physical disease (F54). Any other chapter V
code after a non-F code ("E11.9 diabetes and F32.1 depression") is a second diagnosis, not a
manifestation, and the first code stays the answer. On the judged path the judge's codes are read
so: `diagnosis_code("E51.2 F10.6", ["E51.2", "F10.6"])` is F10.6. A cause and its disorder are
never a choice ("G30.1 / F00.1").
"""

from __future__ import annotations

import json
import re

from selfdx.datasets.icd10 import extract_codes, manifestation_code, normalize_code
from selfdx.instruments.answers.doubt import EQUALLY, without_struck
from selfdx.judge.behaviour import first_code

STATEMENT = re.compile(
    r"(?P<aside>differential|possible|alternative|considered|other|no|secondary|comorbid\w*"
    r"|additional|co-?occurring)?[\s*_:]*"
    r"\b(?:diagnos[ie]s|dx)\b[\s*_]*(?:is\b|of\b|[:：=]|[-–—](?=\s)|(?=[A-Z]\d{2}))"
    r"|\b(?:final|primary)(?:\s+answer)?\s*[:：]"
    r"|\b(?:selected|chosen|primary\s+diagnosis)(?:\s+diagnosis)?\b",
    re.IGNORECASE,
)
ASIDE = re.compile(
    r"\b(?:considered|ruled\s+out|rule[\s-]?outs?|excluded?|exclud\w+|less\s+likely|unlikely"
    r"|improbable|neither|nor|withdraw\w*"
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
CHOICE = re.compile(
    r"\b(?:or|vs\.?|versus|either|possible|both\s+(?:are|remain|fit)"
    r"|cannot\s+(?:distinguish|decide)|can't\s+(?:distinguish|decide)|between)\b",
    re.IGNORECASE,
)
# Chapter V codes that name a disorder by a condition coded elsewhere, so they are written after
# their cause: organic disorders (F00-F09: "G30.1 F00.1", "E03.9 F06.3", "S06.2 F07.0") and
# those due to a substance (F10-F19: "E51.2 F10.6"), the puerperal (F53, "O99.3 F53.0") and
# the psychological factors of a physical disease (F54, "L20.8 F54").
MENTAL_BESIDE_CAUSE = re.compile(r"^F(?:0\d|1\d|53|54)")
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
UNDECIDED = re.compile(
    r"\b(?:possible\s+diagnos[ie]s|differential|working\s+diagnoses|both\s+(?:are|remain|fit|seem)"
    r"|further\s+(?:\w+\s+)?assessment"
    r"|cannot\s+(?:distinguish|decide)|can't\s+(?:distinguish|decide)|one\s+of\s+(?:these|them))\b",
    re.IGNORECASE,
)
TENTATIVE = re.compile(
    r"\b(?:possible|possibly|suspected|query|provisional|hypothesis|before\s+settling)\b",
    re.IGNORECASE,
)
# A statement's own hedges: "Probable diagnosis: ...", "Diagnosis: F43.1 (probable)".
STATED_TENTATIVE = re.compile(
    r"\b(?:possible|possibly|probable|probably|suspected|query|provisional|presumptive|tentative"
    r"|working)\b",
    re.IGNORECASE,
)
# The writer's own doubt in the sentence that gives the code ("Probably F43.1", "F43.1, I think,
# but not sure"); "most likely", "less likely" and "not likely" are a ranking or a negation.
HEDGE = re.compile(
    r"(?<!most\s)(?<!more\s)(?<!less\s)(?<!not\s)\b(?:probable|probably|likely|maybe|perhaps)\b"
    r"|\b(?:could|might|would)\s+be\b|\bif\b|\bsounds?\s+like\b|\blean(?:s|ing)?\s+towards?\b"
    r"|\b(?:one|an)\s+option\b|\btoo\s+early\b|\bpremature\b|\bbefore\s+diagnos\w*"
    r"|\b(?:cannot|can't|can\s+not|unable\s+to)\s+(?:yet\s+)?(?:make\s+a\s+)?diagnos\w*"
    r"|\b(?:cannot|can't|can\s+not|unable\s+to)\s+(?:yet\s+)?(?:make|assign|give|offer|reach|settle)"
    r"\s+(?:on\s+)?(?:a\s+|any\s+)?(?:firm\s+|definitive\s+|single\s+)?diagnos\w*"
    r"|\bnot\s+(?:sure|certain|confident)\b|\bunsure\b"
    r"|\b(?:cannot|can't|can\s+not)\s+be\s+(?:sure|certain)\b",
    re.IGNORECASE,
)
SENTENCE = re.compile(r"(?<!\d)\.(?!\d)|\.(?=\s)|[?!\n]")
RANKED_FIRST = re.compile(r"\b(?:primary|principal|main|final)\b", re.IGNORECASE)
RANGE = re.compile(r"\b[A-Z]\d{2}(?:\.\d+)?\s*[-–]\s*[A-Z]\d{2}(?:\.\d+)?\b")  # "F20-F29": no code
NEGATED_REMARK = re.compile(r"\((?:not|no|excluding|rather\s+than)\b[^()]*\)", re.IGNORECASE)
REMARK = re.compile(r"\(([^()]*)\)")
# Chapter V codes written loosely: "F 32.1" or "F-32.1" (a space or a dash after the letter),
# "F321" (no dot), "F32,1" (a decimal comma: one character attached to the comma, so the list
# "F32, 1 episode" is left alone), "F32 .1" (a space before the dot). The dot of an ICD-10 code
# always follows its third character, so none of them can be read as another code.
DECIMAL_COMMA = re.compile(r"\b(F[ \t\-–]?\d{2}),([0-9A-Z])(?!\w|[.,]\w)")
SPACED_DOT = re.compile(r"\b(F[ \t\-–]?\d{2})[ \t]+\.(\d[0-9A-Z]?)\b")
SPACED_CODE = re.compile(r"\bF(?:[ \t]|[ \t]?[-–][ \t]?)(\d{2}\.[0-9A-Z]{1,2})\b")
UNDOTTED_CODE = re.compile(r"\bF(\d{2})(\d{1,2})(?![\w]|\.\d)")
# A bare letter and two digits outside chapter V ("B12", "K10") with no dot after it: in running
# text a vitamin, a rating scale or a lab value, read as a code only where a code stands: in
# brackets ("(G30)"), after a code label or statement ("ICD-10: G30", "Diagnosis: E11"), after
# another code in a list ("F00.1, G30") or marked as a dagger or asterisk code ("G30†").
BARE_OTHER = re.compile(r"\b(?![Ff])([A-Za-z])(\d{2})\b(?!\.[0-9A-Za-z]|\s*[†*])")
CODE_POSITION = re.compile(
    r"(?:[(\[][ \t]*"
    r"|\b(?:ICD[-_ ]?(?:10)?(?:[-_ ]?CM)?|ICD_CODES|codes?|diagnos[ei]s|diagnose|dx)\b[\s*_]*"
    r"(?:is\b)?[\s*_:=–—-]*"
    r"|\b(?:F\d{2}(?:\.[0-9A-Z]+)?|[A-Z]\d{2}\.[0-9A-Z]+)[ \t]*[†*]?[ \t]*"
    r"(?:[,;/+&]|\band\b)[ \t]*)$",
    re.IGNORECASE,
)
# Vitamin B12 is the one such token also written in brackets after its name ("cobalamin (B12)");
# ICD-10 has no category B12, so it is never read as a code.
NOT_A_CATEGORY = frozenset({"B12"})
VITAMIN = re.compile(r"\bvit(?:amin|\.)?[ \t]*[(\[]?[ \t]*$", re.IGNORECASE)
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
# "Rule out F43.1", "r/o F43.1": the clinician keeps that code open beside the diagnosis.
RULED_OUT_LATER = re.compile(
    r"\b(?:rule\s+out|r/o)\b\W*(?:[^\n.;]*?)\b(F\d{2}(?:\.[0-9A-Z]+)?)", re.IGNORECASE
)
# "F43.1?", "PTSD (F43.1)?": a code asked about, not given.
QUERIED = re.compile(r"\b[A-Z]\d{2}(?:\.[0-9A-Z]+)?\s*[)\]]?\s*\?", re.IGNORECASE)
CODE = re.compile(r"\b([A-Z]\d{2}(?:\.[0-9A-Z]+)?)\b", re.IGNORECASE)
# A past or family diagnosis is history, not the diagnosis: "History of F10.2 (in remission)",
# "Family history of F31.1", "Previously diagnosed with F20.0". The words between the phrase and
# its code stop at a clause's end and at a word that turns to the present ("now", "current").
HISTORY = re.compile(
    r"\b(?:(?:family|past|prior|previous|psychiatric)\s+)?(?:history|hx)(?:\s+of|\s+with|\s*[:：])?"
    r"|\b(?:previously|formerly|once|earlier)\s+diagnosed(?:\s+with|\s+as)?"
    r"|\b(?:prior|previous|past|earlier)\s+diagnos[ie]s(?:\s+of|\s*[:：])?",
    re.IGNORECASE,
)
HISTORY_CODE = re.compile(
    r"(?:(?!\b(?:now|current\w*|presents?|presenting|but|so|hence|therefore|meets?|fits?"
    r"|diagnos[ie]s|supports?|shows?|indicates?|points?|suggests?)\b)[^.;,\n])*?"
    r"\b[A-Z]\d{2}(?:\.[0-9A-Z]+)?\b",
    re.IGNORECASE,
)
# Another code kept open beside a statement ("Diagnosis: F32.1. F33.1 cannot be excluded.",
# "Diagnosis: F32.1 (differential: F31.4)"): the statement is no commitment.
KEPT_OPEN = re.compile(
    r"\b(?:cannot|can't|can\s+not)\s+(?:yet\s+)?be\s+(?:excluded|ruled\s+out)"
    r"|\bnot\s+(?:yet\s+)?(?:been\s+)?(?:excluded|ruled\s+out)|\bremains?\s+possible"
    r"|\bneeds?\s+to\s+be\s+(?:excluded|ruled\s+out)|\b(?:differential|ddx)\s*[:：]"
    rf"|\b(?:{EQUALLY})",
    re.IGNORECASE,
)
# JSON keys: one that names the diagnosis decides; one that sets codes aside is left out.
DECISIVE_KEY = re.compile(r"diagnos[ie]s|\bdx\b|^(?:final|primary|main|answer)$", re.IGNORECASE)
CODE_KEY = re.compile(r"icd|code", re.IGNORECASE)
ASIDE_KEY = re.compile(
    r"rule|r/o|exclu|differential|ddx|alternative|considered|secondary|comorbid|history|other",
    re.IGNORECASE,
)


# Whose diagnosis a statement gives, when it is not the patient's.
SOMEONE_ELSE = re.compile(
    r"\b(?:mother|father|brother|sister|sibling|parents?|relatives?|aunt|uncle|cousin|grand\w+"
    r"|GP|previous\s+(?:clinic|psychiatrist|clinician|doctor))\b",
    re.IGNORECASE,
)
# A statement that is meant to be replaced by a later one: "Working diagnosis: ...".
TENTATIVE_LEAD = re.compile(r"\b(?:working|provisional|initial|preliminary)\b", re.IGNORECASE)


def stated_code(reply: str) -> str | None:
    """Rule 1: the code of the last diagnosis statement that holds one (the last primary or
    final one, where there is one); "" for a statement that names none."""
    found: str | None = None
    ranked: str | None = None
    given: list[tuple[int, str]] = []  # (where, code) of each statement that names one
    for match in STATEMENT.finditer(reply):
        if match.group("aside"):
            continue
        start = reply.rfind("\n", 0, match.start()) + 1
        lead = reply[start : match.start()]
        if SOMEONE_ELSE.search(re.split(r"[.;]", lead)[-1]):
            continue  # "The patient's mother carries a diagnosis of F33.2"
        line, _, following = reply[match.end() :].partition("\n")
        if match.group(0).lower().strip(" *_").startswith(("selected", "chosen", "primary diag")):
            line = lead + line  # the marked line of a differential
        own_line = bool(extract_codes(line))
        if not own_line and line.strip(" *_:"):
            continue  # a statement line without a code: the next line is not its
        span = line if own_line else following.partition("\n")[0]
        codes = extract_codes(span)
        if not codes:
            continue
        code = statement_code(match.group(0), lead, span, codes)
        found = code
        if RANKED_FIRST.search(lead + match.group(0)):
            ranked = code
        if code and not TENTATIVE_LEAD.search(lead + match.group(0)):
            given.append((match.start(), code))
    # two statements that name different codes, with no revision between: no answer
    for (start, first), (end, second) in zip(given, given[1:], strict=False):
        if first != second and not REVISION.search(reply[start:end]):
            return ""
    return ranked if ranked is not None else found


def statement_code(statement: str, lead: str, span: str, codes: list[str]) -> str:
    """The code one diagnosis statement commits to, or "" (a choice, a hedge, several)."""
    kept, text = kept_codes(span)
    if not kept:
        return ""  # every code it holds is set aside
    plural = re.search(r"diagnoses", statement, re.IGNORECASE)
    several_f = len({c for c in kept if c.startswith("F")}) > 1
    hedged = STATED_TENTATIVE.search(f"{lead} {statement} {span}") or HEDGE.search(span)
    if (plural and several_f) or hedged or offered_as_choice(text) or QUERIED.search(span):
        return ""
    return resolved(text, kept)


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


def resolved(span: str, codes: list[str]) -> str:
    """The mental-disorder code of a cause-manifestation pair written in `span`, else the
    first code."""
    code = codes[0]
    pair = manifestation_code(span, code)
    if pair != code:
        return normalize_code(pair)
    return beside_cause(codes)


def beside_cause(codes: list[str]) -> str:
    """`codes[0]`, unless it is a cause outside chapter V and the first chapter V code after it
    names a disorder by its cause (`MENTAL_BESIDE_CAUSE`): then that code, the mental disorder
    a chapter V label codes ("E51.2 Wernicke's encephalopathy with F10.6 amnesic syndrome")."""
    code = codes[0]
    if code.startswith("F"):
        return code
    mental = next((c for c in codes[1:] if c.startswith("F")), None)
    if mental is None:
        return code
    if MENTAL_BESIDE_CAUSE.match(mental):
        return mental
    if code.startswith("G"):  # a G-chapter cause before its organic disorder, further on
        later = [c for c in codes[1:] if MENTAL_BESIDE_CAUSE.match(c) and c.startswith("F0")]
        if later:
            return later[0]
    return code


def cause_pair(first: str, second: str) -> bool:
    """Whether two codes are a cause and the chapter V disorder written beside it, in either
    order, rather than two diagnoses."""
    if {first[0], second[0]} == {"G", "F"}:
        return True
    return any(
        a[0] != "F" and MENTAL_BESIDE_CAUSE.match(b) for a, b in ((first, second), (second, first))
    )


PLACEHOLDER_X = re.compile(r"\b([A-Z]\d{2}\.\d+)[xX]+\b")


def loosely_written(reply: str) -> str:
    """The chapter V codes of `reply` written loosely ("F-32.1", "F32,1", "F32 .1", "F321")
    rewritten as codes."""
    reply = PLACEHOLDER_X.sub(r"\1", reply)  # "F43.1x": the character left open is no character
    reply = SPACED_DOT.sub(r"\1.\2", DECIMAL_COMMA.sub(r"\1.\2", reply))
    return UNDOTTED_CODE.sub(r"F\1.\2", SPACED_CODE.sub(r"F\1", reply))


# Comparisons in other words, read as "more likely than" and "less likely than": "F43.1 is a
# better fit than F43.2", "F43.2 fits less well than F43.1", "F43.2 is less probable than F43.1".
_GRADES = r"(?:probable|consistent|plausible|fitting|supported|appropriate|compatible)"
RANKED_ABOVE = re.compile(
    rf"\b(?:more\s+{_GRADES}|(?:an?\s+)?(?:better|stronger|closer)(?:\s+(?:fit|match"
    r"|explanation))?|fits\s+better|likelier)\s+than\b",
    re.IGNORECASE,
)
RANKED_BELOW = re.compile(
    rf"\b(?:less\s+{_GRADES}|(?:an?\s+)?(?:poorer|worse|weaker)(?:\s+(?:fit|match"
    r"|explanation))?|fits\s+less\s+well|less\s+well)\s+than\b",
    re.IGNORECASE,
)


def comparisons_plain(reply: str) -> str:
    """`reply` with its comparisons written as `ASIDE` and `CLAUSE` read them."""
    return RANKED_BELOW.sub("less likely than", RANKED_ABOVE.sub("more likely than", reply))


def bare_tokens_set_aside(reply: str) -> str:
    """`reply` with each bare non-F "code" that stands where no code stands ("low B12")
    broken up ("B_12"), so that it is no longer read as a code."""

    def token(match: re.Match[str]) -> str:
        before = reply[reply.rfind("\n", 0, match.start()) + 1 : match.start()]
        placed = CODE_POSITION.search(before) and not VITAMIN.search(before)
        if placed and match.group(0).upper() not in NOT_A_CATEGORY:
            return match.group(0)
        return f"{match.group(1)}_{match.group(2)}"

    return BARE_OTHER.sub(token, reply)


# A revision stated in words, which may stand further from the new code than `REVISION`: "this
# is better coded as", "should read", "Actually, ... changes this:".
RECODED = re.compile(
    r"\b(?:(?:better|more\s+accurately|more\s+correctly|properly)\s+(?:coded|classified|described)"
    r"|(?:should|would)\s+(?:be\s+)?(?:re)?(?:coded|classified|read)|re-?cod(?:ed|ing)"
    r"|reclassif\w+|changes\s+(?:this|that|the\s+diagnosis)|this\s+changes)\b"
    r"|(?:^|[\n.;:!)—–-])\s*(?:actually|correction|on\s+(?:second\s+thought|reflection))\b",
    re.IGNORECASE,
)


HELD_OPEN = ""  # what `revised` gives for a revision that only holds another code open


def revised(reply: str) -> str:
    """`reply` without each code that a revision withdraws ("F32.1, actually F33.1", "F32.1 ->
    F33.1", "F32.1 (revised to F33.1)"): the withdrawn code and the words up to the revision go.
    A revision whose new code is set aside ("F32.1, actually F33.1 was considered") withdraws
    nothing; one that keeps the new code open beside the old leaves no code (`HELD_OPEN`)."""
    found = list(CODE.finditer(reply))
    cuts: list[tuple[int, int]] = []
    for old, new in zip(found, found[1:], strict=False):
        between = reply[old.end() : new.start()]
        marker = REVISION.search(between) if len(between) <= 80 else None
        if marker is None and len(between) <= 300:
            marker = RECODED.search(between)  # "... this is better coded as ... (F33.1)"
        if marker is None:
            continue
        ends = CLAUSE.search(reply, new.end())
        rest = reply[old.end() + marker.end() : ends.start() if ends else len(reply)]
        if OPEN.search(rest) and not ASIDE.search(rest):
            return HELD_OPEN  # "F32.1. Actually ... F34.1 is just as plausible": a hedge
        if ASIDE.search(rest) or OPEN.search(rest):
            continue
        cuts.append((old.start(), old.end() + marker.end()))
    for start, end in reversed(cuts):
        reply = f"{reply[:start]} {reply[end:]}"
    return reply


def hedged(reply: str, code: str) -> bool:
    """Whether a sentence of `reply` that gives `code` hedges it (`HEDGE`), its clauses that set
    another code aside left out ("F43.1 would be a mistake here; F43.2" does not hedge F43.2)."""
    for sentence in SENTENCE.split(reply):
        if code not in extract_codes(sentence):
            continue
        own = [
            c
            for c in CLAUSE.split(sentence)
            if c and not (ASIDE.search(c) and extract_codes(c) and code not in extract_codes(c))
        ]
        if HEDGE.search(" ".join(own)):
            return True
    return False


def json_conclusion(reply: str) -> str:
    """`reply` with a JSON object in it written as a note: the value of a key that names the
    diagnosis ("diagnosis", "primary", "final") as a statement, whatever the keys' order; without
    one, the values of the keys that do not set codes aside ("ruled_out", "excluded",
    "differential")."""
    start, end = reply.find("{"), reply.rfind("}")
    if start < 0 or end < start:
        return reply
    try:
        data = json.loads(reply[start : end + 1])
    except ValueError:
        return reply
    if not isinstance(data, dict):
        return reply
    kept = {str(k): v for k, v in data.items() if not ASIDE_KEY.search(str(k))}
    decisive = [json_text(v) for k, v in kept.items() if DECISIVE_KEY.search(k)]
    if decisive:  # its code may stand under a key of its own: {"diagnosis": name, "icd10": code}
        coded = [json_text(v) for k, v in kept.items() if CODE_KEY.search(k)]
        text = (
            f"Diagnosis: {decisive[0]} {' '.join(coded) if not extract_codes(decisive[0]) else ''}"
        )
    else:
        text = "\n".join(json_text(v) for v in kept.values())
    return f"{reply[:start]}\n{text}\n{reply[end + 1 :]}"


def json_text(value: object) -> str:
    """A JSON value as text: a list's items joined with "and", an object's kept values."""
    if isinstance(value, dict):
        return " ".join(json_text(v) for k, v in value.items() if not ASIDE_KEY.search(str(k)))
    if isinstance(value, list):
        return " and ".join(json_text(v) for v in value)
    return str(value)


def history_set_aside(reply: str) -> str:
    """`reply` without the codes of a past or family diagnosis (`HISTORY`)."""
    out, pos = [], 0
    for match in HISTORY.finditer(reply):
        if match.start() < pos:
            continue
        code = HISTORY_CODE.match(reply, match.end())
        if code is None:
            continue
        last = list(CODE.finditer(code.group(0)))[-1]
        out.append(reply[pos : code.start() + last.start()])
        pos = code.end()
    return "".join(out) + reply[pos:]


def kept_open_beside(reply: str, stated: str) -> bool:
    """Whether a clause beside the statement keeps another chapter V code open ("Diagnosis:
    F32.1. F33.1 cannot be excluded.", "Diagnosis: F32.1 (differential: F31.4)")."""
    for clause in re.split(r"(?<!\d)\.(?!\d)|\.(?=\s)|[;\n]+", reply):
        others = [c for c in f_codes(clause) if c != stated]
        if others and KEPT_OPEN.search(clause) and not ASIDE.search(KEPT_OPEN.sub(" ", clause)):
            return True
    return False


# A heading that keeps the list under it open or sets it aside ("Differential (no single
# diagnosis yet):", "Ruled out:"), and a list item under it.
OPEN_HEADING = re.compile(
    r"^[\s#*_>]*(?:[\w-]+\s+){0,3}?(?:differentials?|ddx|rule[\s-]?outs?|ruled\s+out|considered"
    r"|excluded|possibilities|alternatives)\b[^\n:]*:[\s*_]*$",
    re.IGNORECASE,
)
CHOSEN_ITEM = re.compile(
    r"\b(?:selected|chosen|primary|principal|final|working)\s+diagnosis\b", re.IGNORECASE
)
LIST_ITEM = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+")
# Two or more codes given a probability each: "F41.1 (60%), F41.2 (40%)" is a choice.
WEIGHTED_CODE = re.compile(r"\b[A-Z]\d{2}(?:\.\d+)?[†*]?\)?[ \t]*[(:=-]?[ \t]*\d+(?:\.\d+)?[ \t]*%")
# Z03: "observation for suspected ... , ruled out": the code of no disorder found.
NO_DISORDER_CODE = re.compile(r"\bZ03(?:\.\d+)?\b", re.IGNORECASE)


def listed_under_open_heading(reply: str) -> str:
    """`reply` with each list item under a heading that keeps it open marked as a differential
    ("Differential:" then "- F32.2 ..." and "- F31.4 ..."), since `CLAUSE` reads a line alone."""
    lines = reply.split("\n")
    under = False
    for number, line in enumerate(lines):
        if OPEN_HEADING.match(line):
            under = True
        elif under and LIST_ITEM.match(line):  # after the list mark: "1." ends a clause
            if not CHOSEN_ITEM.search(line):  # "2. ... (F00.1*) - **selected diagnosis**"
                lines[number] = LIST_ITEM.sub(lambda m: m.group(0) + "differential ", line, count=1)
        elif line.strip():
            under = False
    return "\n".join(lines)


# The reply's own word that it makes no diagnosis: "I cannot diagnose this patient reliably",
# "no primary psychiatric diagnosis is made", "I withdraw it", "I would ABSTAIN".
NO_DIAGNOSIS = re.compile(
    r"\b(?:I\s+(?:cannot|can't|can\s+not|am\s+unable\s+to|won't)\s+(?:reliably\s+)?diagnose"
    r"|I\s+am\s+not\s+able\s+to\s+(?:give|make|offer)\s+a\s+diagnosis"
    r"|I'?d\s+rather\s+not\s+assign\s+a\s+(?:code|diagnosis)"
    r"|I\s+(?:cannot|can't|am\s+unable\s+to)\s+(?:give|make|offer)\s+a\s+diagnosis"
    r"|no\s+(?:primary\s+|firm\s+)?(?:psychiatric\s+|mental\s+)?diagnosis\s+(?:is|can\s+be)"
    r"\s+(?:made|given|assigned)|(?:I\s+)?withdraw\s+(?:it|the\s+(?:code|diagnosis))"
    r"|I\s+(?:would|will)\s+abstain)\b",
    re.IGNORECASE,
)


DIAGNOSE_LINE = re.compile(r"^[\s*_#]*DIAGNOSE[\s*_]*[:：]([^\n]*)", re.IGNORECASE)
FINAL_ANSWER = re.compile(r"\bfinal\s+(?:answer|code|diagnosis)[\s*_]*[:：]([^\n]*)", re.IGNORECASE)
TABLE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
SELECT_COLUMN = re.compile(r"select|chosen|final|pick|[✓✔]", re.IGNORECASE)
LIKELIHOOD_COLUMN = re.compile(r"likel|probab|confidence", re.IGNORECASE)
MARKED = re.compile(r"[✓✔☑✅]|\byes\b|\bx\b|selected|chosen", re.IGNORECASE)
GRADES = {"high": 3, "very high": 4, "moderate": 2, "medium": 2, "low": 1, "very low": 0}


def table_choice(reply: str) -> str | None:
    """`reply` with a table that marks its choice ("Selected" column) kept to the rows marked;
    None when a table grades likelihood and two rows share the top grade ("high", "high")."""
    lines = reply.split("\n")
    rows = [(i, [c.strip() for c in m.group(1).split("|")]) for i, line in enumerate(lines)
            if (m := TABLE_ROW.match(line))]  # fmt: skip
    if len(rows) < 3:
        return reply
    header = rows[0][1]
    body = [
        (i, cells) for i, cells in rows[1:] if not all(re.fullmatch(r":?-+:?", c) for c in cells)
    ]
    for column, name in enumerate(header):
        values = [cells[column] if column < len(cells) else "" for _, cells in body]
        if SELECT_COLUMN.search(name):
            for (i, _), value in zip(body, values, strict=True):
                if not MARKED.search(value):
                    lines[i] = ""
            return "\n".join(lines)
        if LIKELIHOOD_COLUMN.search(name):
            grades = [GRADES.get(v.lower().strip(" *_")) for v in values]
            known = [g for g in grades if g is not None]
            if known and known.count(max(known)) > 1:
                return None
    return reply


def reply_code(reply: str) -> str | None:
    """The diagnosis code of an unjudged reply (see the module)."""
    reply = without_struck(reply)  # "~~F32.1~~ F33.1": the struck code is taken back
    if len(WEIGHTED_CODE.findall(reply)) > 1 or NO_DIAGNOSIS.search(reply):
        return None
    chosen = table_choice(reply)
    if chosen is None:
        return None
    reply = chosen
    opening = DIAGNOSE_LINE.match(reply)
    final = FINAL_ANSWER.search(reply)
    if opening and final:
        said = [extract_codes(opening.group(1)), extract_codes(final.group(1))]
        between = reply[opening.end() : final.start()]
        if all(said) and said[0][0] != said[1][0] and not REVISION.search(between):
            return None  # "DIAGNOSE: PTSD (F43.1)" then "Final answer: F43.0"
    reply = listed_under_open_heading(NO_DISORDER_CODE.sub(" ", reply))
    reply = bare_tokens_set_aside(loosely_written(comparisons_plain(json_conclusion(reply))))
    reply = revised(RANGE.sub(" ", reply))
    if reply == HELD_OPEN:
        return None
    reply = history_set_aside(reply)
    stated = stated_code(reply)
    if stated and any(
        normalize_code(m.group(1)) != stated for m in RULED_OUT_LATER.finditer(reply)
    ):
        return None  # "Diagnosis: F43.2 (r/o F43.1)": a code still to be excluded, a hedge
    if stated and kept_open_beside(reply, stated):
        return None
    if stated is not None:
        return stated or None  # "": a statement of several diagnoses names none
    codes, text = kept_codes(reply)
    if not codes:
        return None
    if offered_as_choice(text) or undecided(reply) or several(text) or QUERIED.search(reply):
        return None
    if TENTATIVE.search(text):  # "Possible PTSD (F43.1)": no commitment, as in the interview
        return None
    code = resolved(reply, codes)
    return None if hedged(reply, code) else code


def undecided(reply: str) -> bool:
    """Two mental-disorder codes and a wording that keeps the second open ("F41.0 cannot be
    excluded", "F10.2 may be contributing or even primary")."""
    if len(set(f_codes(reply))) < 2:
        return False
    # "The alternative (F50.0) is much less likely": an alternative set aside keeps nothing open
    for clause in CLAUSE.split(reply):
        if clause and ASIDE.search(clause) and alternative_only(clause):
            reply = reply.replace(clause, " ")
    return bool(OPEN.search(reply))


def alternative_only(clause: str) -> bool:
    """Whether the only wording of `OPEN` in `clause` is "alternative"."""
    found = {m.group(0).lower() for m in OPEN.finditer(clause)}
    return bool(found) and found <= {"alternative"}


def several(text: str) -> bool:
    """Two mental-disorder codes given together as the diagnosis, in one sentence ("PTSD
    (F43.1) and moderate depressive episode (F32.1)"): a judge would call it a differential."""
    for sentence in re.split(r"(?<!\d)\.(?!\d)|\n", text):
        codes = set(f_codes(sentence))
        if len(codes) > 1 and re.search(r"\band\b|\+|&", sentence):
            return True
    return False


def f_codes(text: str) -> list[str]:
    return [c for c in extract_codes(text) if c.startswith("F")]


def offered_as_choice(text: str) -> bool:
    """Whether two different codes (a cause beside its manifestation aside) are offered as a
    choice: a choice word or a slash between them ("F32.1 or F43.22", "F41.1 / F43.1")."""
    found = [(m.start(), m.end(), normalize_code(m.group(1))) for m in CODE.finditer(text)]
    codes = [code for _, _, code in found]
    caused = any(MENTAL_BESIDE_CAUSE.match(code) for code in codes)
    distinct = {c for c in codes if not c.startswith("G") and (c.startswith("F") or not caused)}
    if len(distinct) > 1 and UNDECIDED.search(text):
        return True
    for (_, end, first), (start, _, second) in zip(found, found[1:], strict=False):
        between = text[end:start]
        if first != second and not cause_pair(first, second) and len(between) <= 80:
            if CHOICE.search(between) or re.fullmatch(r"[\s†*]*/\s*", between) or " / " in between:
                return True
    return False


def diagnosis_code(reply: str, judge_codes: list[str] | None) -> str | None:
    """The code of a Diagnose turn: from `judge_codes` when the turn was judged (the judge's
    first code, or the mental disorder the judge lists after a cause as `beside_cause` reads
    it), else (None) read from the reply itself (`reply_code`)."""
    if judge_codes is None:
        return reply_code(reply)
    first = first_code(judge_codes)
    code = manifestation_code(reply, first)
    if code is None or code != first:
        return code
    listed = [c for c in (first_code([entry]) for entry in judge_codes) if c is not None]
    return beside_cause(listed)
