"""Doubt that a reply keeps beside its answer, wherever it says it: another option "just as
likely", one that "would be right instead", a member of the answer marked "possibly", an
"else B" after a condition, a JSON field of possible options. A reader that finds its answer
asks `kept_open` before it credits it; whatever it finds leaves the answer unread, never
guessed.

Options are letters (`A` to `H`) or the letter tokens the strict parser puts in place of an
option's name (`\\ue000A\\ue001`).
"""

from __future__ import annotations

import re

OPTION = r"(?:\b[A-H]\b|\ue000[A-H]\ue001)"
LETTER = re.compile(r"\b([A-H])\b|\ue000([A-H])\ue001")
# Another answer as good as the one given: "A is just as likely", "equally plausible",
# "D would be right instead", "B remains possible".
# (in English, German, Spanish, French, Portuguese: "ebenso wahrscheinlich", "igualmente probable")
EQUALLY = (
    r"(?:just|equally|every\s+bit|at\s+least|about|roughly|nearly|almost|pretty\s+much"
    r"|more\s+or\s+less|much\s+the\s+same)\s+as\s+(?:likely|possible|plausible|probable|valid"
    r"|good|well|defensible|reasonable|justifiable|tenable|acceptable|correct|right)"
    # "B fits as well as A", "could equally be A", "a real possibility"
    r"|fits?\s+(?:\w+\s+)?(?:just\s+)?as\s+well|(?:could|might|may)\s+equally\s+(?:well\s+)?be"
    r"|(?:fits?|suits?|works?|applies|explains)\s+(?:(?:it|this|things|her|him|them|the\s+\w+)\s+)?"
    r"equally\s+well"
    r"|(?:a\s+)?(?:real|genuine|strong|distinct)\s+possibility"
    r"|equally\s+(?:likely|possible|plausible|probable|valid|good|consistent|reasonable"
    r"|defensible|justifiable|tenable)"
    r"|(?:ebenso|gleich|genauso)\s+(?:wahrscheinlich|möglich|plausibel)"
    r"|igualmente\s+(?:probable|posible|plausible|prov[áa]vel|poss[íi]vel)"
    r"|[ée]galement\s+(?:probable|possible|plausible)|aussi\s+probable"
    r"|tambi[ée]n\s+(?:es\s+)?(?:posible|probable)|tamb[ée]m\s+(?:[ée]\s+)?poss[íi]vel"
)
EQUAL = re.compile(
    rf"\b(?:{EQUALLY}"
    r"|(?:would|could|might)\s+be\s+(?:right|correct|the\s+(?:answer|diagnosis))\s+instead"
    # "I also can't exclude C" (the writer's own doubt; a caveat that "C cannot be excluded
    # if ..." is not), "D nicht ganz auszuschließen", "no se puede descartar"
    r"|I\s+(?:also\s+|still\s+)?(?:can'?t|cannot|could\s*n[o']t)\s+(?:yet\s+|fully\s+|really\s+)?"
    r"(?:rule\s+out|exclude)"
    r"|nicht\s+(?:ganz\s+|sicher\s+|v[öo]llig\s+)?auszuschlie(?:ß|ss)en"
    r"|no\s+se\s+puede\s+(?:descartar|excluir)|(?:ne\s+)?peut\s+(?:pas\s+)?[êe]tre\s+exclu"
    r"|remains?\s+(?:a\s+|just\s+as\s+|equally\s+)?(?:possib|likely|plausible|an?\s+option))",
    re.IGNORECASE,
)
# One option of a set on its own: "C alone", "only C", "C by itself".
ALONE = re.compile(
    rf"{OPTION}\s+(?:alone|on\s+its\s+own|by\s+itself)|\b(?:[Oo]nly|[Jj]ust)\s+{OPTION}"
)
# What denies the likeness: "A is not equally likely", "B no longer remains possible".
DENIED = re.compile(r"\b(?:not|no\s+longer|never|hardly|nowhere\s+near)\b|n't\b", re.IGNORECASE)
# A condition's other branch: "A (if ...), else B", "C; otherwise D".
ELSE = re.compile(r"\b(?i:else|otherwise)\b[\s,:]*(?:it(?:'s|\s+is|\s+would\s+be)\s+)?" + OPTION)
# A member of a set put in brackets: "A & (D)" holds D back.
BRACKETED_MEMBER = re.compile(
    r"(?:\b[A-H]\b|\ue001)\s*(?:&|,|\band\b|\+)\s*\(\s*" + OPTION + r"\s*\)"
)
# An option added or dropped on a condition the reply leaves open: "If so, add D.", "If not,
# drop A."
CONDITIONAL = re.compile(
    r"\b(?i:if\s+(?:so|not|yes|no|that(?:'s|\s+is)\s+the\s+case))\b[,\s]*(?i:then\s+)?"
    r"(?i:add|drop|include|remove|exclude|choose|pick|it(?:'s|\s+is)|make\s+it|go\s+with)?\s*"
    + OPTION
)
# A member of the answer marked as doubtful beside it: "A & B (B possibly)", "B (possibly)",
# "B (subthreshold, monitor)", "B?" inside a set.
MEMBER = re.compile(
    r"\(\s*(?:" + OPTION + r"\s+)?(?:possibly|possible|maybe|perhaps|uncertain|unsure"
    r"|subthreshold|sub-threshold|questionable|(?:only\s+)?if\b|\?)[^)]*\)",
    re.IGNORECASE,
)
# A member of the answer doubted on its own: "D might just be demoralization", "I'm not
# confident about D".
DOUBTED = re.compile(
    OPTION + r"\s+(?:might|may|could)\s+(?:just|simply|only|really|well)\s+be\b"
    r"|(?:would\s+not|wouldn'?t)\s+bet\s+(?:\w+\s+){0,3}on\s+"
    + OPTION
    + r"|"
    + OPTION
    + r"(?:\s*(?:,|&|and|\+)\s*"
    + OPTION
    + r")*\s+(?:do|does|did|is|are)\s*(?:not|n't)"
    r"\s+(?:apply|fit|meet|present|supported|the\s+answer)\b"
    r"|\bnot\s+(?:very\s+|entirely\s+|fully\s+|so\s+)?(?:confident|sure|certain)\s+(?:about|of|in)\s+"
    + OPTION
    # "C alone might be enough" (a set doubted), "B would need psychosis" (argued against)
    + r"|"
    + OPTION
    + r"\s+alone\s+(?:might|may|could|would)\s+(?:well\s+)?(?:be\s+enough|suffice)"
    + r"|"
    + OPTION
    + r"\s+(?:would|will)\s+(?:need|require)\b"
    # "scratch D", "D is listed but doesn't really apply", "C is just a possibility", "the
    # course fits D better"
    # "C is a maybe", "D is only a possibility", "B is a question mark"
    + r"|"
    + OPTION
    + r"\s+(?:is|remains)\s+(?:only\s+|just\s+|still\s+|more\s+of\s+)?a\s+(?:maybe|possibility"
    r"|question\s+mark|query|perhaps)\b"
    + r"|scratch\s+"
    + OPTION
    + r"|"
    + OPTION
    + r"\s[^.;\n]{0,30}?\b(?:do|does|did|is|are)\s*(?:not|n't)\s+(?:really\s+|quite\s+|fully\s+)?"
    r"(?:apply|fit|meet|present|supported)\b"
    + r"|"
    + OPTION
    + r"\s+(?:is|remains)\s+(?:just|only|merely|still)\s+an?\s+(?:possibility|consideration"
    r"|option\s+to\s+consider)"
    # "D may be nothing more than a reaction to B", "D may turn out to be part of B"
    + r"|"
    + OPTION
    + r"\s+(?:may|might|could)\s+(?:be\s+nothing\s+more\s+than|turn\s+out\s+to\s+be|(?:just|only"
    r"|merely|simply)\s+be|be\s+(?:just|only|merely|simply|part\s+of))\b"
    # "D might be better seen as a feature of B", "D may not be a separate disorder"
    + r"|"
    + OPTION
    + r"\s+(?:may|might|could)\s+(?:(?:be\s+)?better\s+(?:be\s+)?(?:seen|understood|regarded"
    r"|explained)\s+as|not\s+be\s+(?:a\s+)?(?:separate|distinct|independent|disorder"
    # "B may not be warranted at all", "D might not be needed"
    r"|warranted|justified|needed|necessary|required|appropriate|indicated|applicable))"
    # "if the checking is about contamination, only B applies"
    + r"|\bif\b[^.;\n]{0,120}?\bonly\s+"
    + OPTION
    # "so I'd drop D", "I would take out B"
    + r"|(?:I'?d|I\s+would|I'?ll|I\s+will|I\s+should|we\s+should)\s+(?:probably\s+|rather\s+)?"
    r"(?:drop|remove|exclude|take\s+out|leave\s+out|strike)\s+" + OPTION,
    re.IGNORECASE,
)
# An option given a probability as a decimal: "A (0.97), C (0.92); B (0.04)", "A 0.9, B 0.5",
# "C (p≈0.55)"; two or more of them are a spread, not an answer.
PROBABILITY = re.compile(
    OPTION + r"[ \t]*[(:=]?[ \t]*(?:p[ \t]*[=≈~][ \t]*)?(?:0?\.\d+|1\.0+)\b(?![ \t]*%)"
)
# A JSON field of options kept open: {"answer": ["A"], "possible": ["B"]}.
JSON_OPEN = re.compile(
    r'"(?:possible|possibly|maybe|differentials?|alternatives?|consider(?:ed)?|uncertain'
    r'|rule[_ ]?outs?|also[_ ]possible)"\s*:\s*(?:\[\s*)?"\s*[A-H]\b',
    re.IGNORECASE,
)
# Another option given as the final one after the answer: "(... Final: C)", "final answer - C".
FINAL = re.compile(
    r"\b(?i:final(?:ly)?(?:\s+(?:answer|choice|diagnosis|pick))?)\s*(?:[:=\-–—]|is)\s*\**\s*"
    + OPTION
)
# Two other options ranked after the answer: "B; A is less likely than C" leaves A and C open.
RANKED = re.compile(r"\b(?:less|more)\s+(?:likely|probable)\s+than\b", re.IGNORECASE)
# Struck-through text is what the reply takes back: "~~A~~ B", "<del>F32.1</del> F33.1".
STRUCK = re.compile(r"~~(?!\s)[^~\n]+?~~|<(del|s|strike)>.*?</\1>", re.IGNORECASE | re.DOTALL)
# Torn between answers, though the other is not named again: "a coin-flip between those two",
# "even odds", "I'd weight these equally", "I'm genuinely unsure which".
TORN = re.compile(
    r"\b(?:coin[\s-]?(?:flip|toss)|toss[\s-]?up|even\s+odds|fifty[\s-]fifty|50\s*/\s*50"
    r"|weigh(?:t|ted)?\s+(?:them|these|both|the\s+two)\s+equally|equally\s+weighted"
    r"|(?:unsure|not\s+sure|can'?t\s+(?:tell|say|decide))\s+which"
    r"|(?:unsure|undecided|uncertain)\s+between|(?:go|going|goes|went)\s+either\s+way"
    r"|(?:can'?t|cannot|unable\s+to)\s+(?:choose|decide)\s+between"
    # idioms and understatement: "six of one and half a dozen of the other", "leaning",
    # "can't be sure without collateral", "B would not be unreasonable"
    r"|six\s+of\s+one|\bleaning\b|(?:can'?t|cannot)\s+be\s+(?:sure|certain)\s+without"
    # "The events may equally be epileptic", "it could just as well be C"
    r"|(?:may|might|could)\s+(?:equally(?:\s+well)?|just\s+as\s+well)\s+be\b"
    # "Either could be right", "either one might be the answer"
    r"|either\s+(?:one\s+|of\s+(?:them|these|those|the\s+two)\s+)?(?:could|might|may)\s+"
    r"(?:well\s+)?be\s+(?:right|correct|the\s+(?:answer|diagnosis))"
    r"|(?:would\s+not|wouldn'?t)\s+be\s+(?:an?\s+|entirely\s+)?unreasonable"
    r"|should(?:\s+not|n'?t)\s+have\s+(?:diagnosed|answered|committed|chosen)"
    # "I would rather abstain from a firm diagnosis", "I'd prefer not to commit"
    r"|(?:would|I'?d)\s+(?:rather|prefer\s+to)\s+(?:abstain|hold\s+off|not\s+(?:commit|diagnose))"
    r"|abstain\s+from\s+(?:a\s+|any\s+)?(?:firm\s+|definitive\s+)?diagnos"
    # "On reflection I should not commit to this", "I can't commit to that"
    r"|(?:should(?:\s+not|n'?t)|(?:can'?t|cannot|won'?t|will\s+not)|not\s+(?:ready|able)\s+to)"
    r"\s+commit\s+to\s+(?:this|it|that|a\s+diagnosis|an?\s+answer|one)"
    r"|not\s+(?:very\s+|entirely\s+|fully\s+)?confident\s+(?:in|about|of)\s+(?:this|it|that|my|the)"
    # "if ..., A would be the better answer", "... would be more appropriate"
    r"|would\s+be\s+(?:the\s+|a\s+)?(?:better(?!\s+off)|more\s+(?:appropriate|accurate|fitting|likely))"
    r"(?:\s+(?:answer|diagnosis|fit|code|choice))?"
    r"|(?:this|it)\s+(?:is|would\s+be)\s+[^.;\n]{0,60}\binstead\b"
    r"|not\s+sure\s+(?:this|it|that)\s+isn'?t)\b",
    re.IGNORECASE,
)
# A correction of what was just said: "A & D - no wait, just A", "Correction - I meant the
# last option", "(F20.0) - no, the picture is mixed".
CORRECTED = re.compile(
    r"[—–]\s*no,\s+(?:the|it|this|that|actually|on\s+reflection|I)\b"
    r"|\bI\s+(?:meant|mislabel+ed|mistyped|misspoke)\b"
    # "..., I would actually code this as a severe episode, F32.2"
    r"|\bI(?:'d|\s+would)\s+(?:actually|rather|instead)\s+(?:code|diagnose|classify|record"
    r"|call|label)\s+(?:this|it|her|him|them)\s+as\b",
    re.IGNORECASE,
)
WAIT = re.compile(r"\bno,?\s+wait\b", re.IGNORECASE)
FINAL_WORD = re.compile(r"\bfinal\b", re.IGNORECASE)


def corrected(text: str, waits: bool = True) -> bool:
    """Whether `text` corrects what it has just said with no final answer after the correction
    ("A & D - no wait, just A"; "A & B... no, wait: ... Final: B & C" is left to the final
    answer's reader). `waits`: whether "no wait" counts (a code reader reads the code after it
    as the revised one)."""
    found = CORRECTED.search(text) or (WAIT.search(text) if waits else None)
    return bool(found) and not FINAL_WORD.search(text, found.end())


# Another option preferred to the answer: "the course fits D better", "B is a better fit", "most
# likely Bipolar II (option B)".
PREFERRED = re.compile(
    r"\bfits?\s+" + OPTION + r"\s+(?:far\s+|much\s+|a\s+lot\s+)?better"
    # "B might fit better than C", "D may well be the better fit", "B instead" (on the
    # CRITERIA MET line: "no - she meets criteria for B instead"), not "D instead of B"
    r"|" + OPTION + r"\s+(?:might|may|could)\s+(?:well\s+|actually\s+|even\s+)?(?:fit|suit)"
    r"\s+(?:(?:it|her|him|them|this|the\s+\w+)\s+)?(?:far\s+|much\s+|a\s+lot\s+)?better"
    r"|" + OPTION + r"\s+(?:might|may|could)\s+(?:well\s+|actually\s+)?be\s+(?:a|the)"
    r"\s+better\s+fit"
    r"|" + OPTION + r"\s+instead\b(?!\s+of\b)"
    r"|" + OPTION + r"\s+(?:fits|is)\s+(?:far\s+|much\s+)?(?:a\s+)?better(?:\s+fit)?"
    r"|" + OPTION + r"\s+(?:(?:is|would\s+be)\s+)?the\s+better\s+(?i:option|answer|fit|choice)"
    r"|" + OPTION + r"\s+(?:is|would\s+be)\s+the\s+(?i:formally\s+|technically\s+|strictly\s+)?"
    r"(?i:correct|right)\s+(?i:answer|option|choice)"
    r"|\b(?i:this|it)\s+(?:is|would\s+be)\s+(?i:really|actually|in\s+fact)\s+"
    + OPTION
    + r"|\b(?i:most\s+likely|best\s+(?:fit|answer|explained\s+by|understood\s+as))\b[^.;\n]{0,80}?"
    r"\b(?i:option)\s+" + OPTION,
)
# Another option offered as possible: "C, with A maybe as well", "And probably D?"
MAYBE_OTHER = re.compile(
    OPTION + r"\s+(?:maybe|possibly|perhaps|probably)\b"
    r"|(?:want|need|have|like)\s+to\s+(?:rule\s+out|exclude)\s+"
    + OPTION
    # "Also consistent with D"
    + r"|\balso\s+(?:consistent|compatible)\s+with\s+"
    + OPTION
    # "Comorbid D is also likely"
    + r"|"
    + OPTION
    + r"\s+(?:is|are)\s+also\s+(?:likely|possible|probable|plausible)"
    # "I'd also add C"
    + r"|(?:I'?d|I\s+would|I'?ll|I\s+will|let\s+me|we\s+should)\s+(?:also\s+)?add\s+"
    + OPTION
    + r"|(?:\+/-|±)\s*"
    + OPTION
    + r"|\b(?:maybe|possibly|perhaps|probably|I\s+suspect)\s+(?:also\s+|even\s+|too\s+)?"
    + OPTION,
    re.IGNORECASE,
)
NOT_IT = re.compile(r"\b(?:not|no|unlikely|excluded|ruled\s+out|never)\b|n't\b", re.IGNORECASE)
# The answer taken back: "On reflection, I withdraw that answer", "Withdrawn.", "I retract it".
WITHDRAWN = re.compile(
    r"(?m:(?:^|[.;!]\s*)\W*(?:withdrawn|retracted)\b)|\b(?:I\s+(?:hereby\s+)?withdraw\b|I\s+retract\b"
    r"|(?:answer|diagnosis|code|that|it|this)\s+(?:is\s+|was\s+|has\s+been\s+)?(?:withdrawn|retracted)\b"
    r"|I\s+(?:must\s+|have\s+to\s+|will\s+)?decline\s+to\s+(?:answer|diagnose|choose)"
    # "Actually, I shouldn't offer a diagnosis ... Please disregard that."
    r"|(?:please\s+)?disregard\s+(?:that|this|my\s+(?:answer|previous|earlier|reply)|the\s+above)"
    r"|I\s+(?:shouldn'?t|should\s+not|can'?t|cannot)\s+(?:really\s+)?(?:offer|give|make|provide)\s+"
    r"(?:a|any)\s+diagnos[ie]s)",
    re.IGNORECASE,
)
SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+|\s+[-–—]\s+")


def without_struck(text: str) -> str:
    """`text` without what it strikes through."""
    return STRUCK.sub(" ", text)


# A condition put to the patient as a question: "A, provided the worry has lasted six months -
# how long has it been?"
CONDITION_ASKED = re.compile(
    r"\b(?:provided|assuming|as\s+long\s+as)\b[^.\n]{0,100}\?", re.IGNORECASE
)
# The answer left to a fact not yet known: "schizophreniform disorder or schizophrenia, depending
# on the total duration", "PTSD (depends on how long it lasts)", "which one depends on ...".
DEPENDING = re.compile(
    r"[,;(—–-]\s*(?:but\s+)?(?:depending|dependent|contingent|conditional)\s+(?:up)?on\b"
    r"|[,;(—–-]\s*(?:but\s+)?(?:it\s+|that\s+)?depends\s+(?:up)?on\b"
    r"|\b(?:which(?:\s+one)?|the\s+(?:answer|diagnosis))\s+depends\s+(?:up)?on\b",
    re.IGNORECASE,
)
# Split between two answers, unless a choice follows: "I'm honestly split between that and acute
# stress disorder" (but "torn between B and D ... On balance I'll go with D" chooses).
SPLIT = re.compile(r"\b(?:split|torn)\s+(?:between|on|over)\b", re.IGNORECASE)
CHOSEN_AFTER = re.compile(
    r"\b(?:on\s+balance|I'?ll\s+go\s+with|I'?d\s+go\s+with|I\s+(?:choose|pick)|final(?:ly)?|in\s+the\s+end"
    r"|overall)\b",
    re.IGNORECASE,
)


def torn(text: str) -> str | None:
    """Why `text` leaves its answer open whatever the answer names (free text, codes, letters):
    it is taken back, or the reply is torn between it and another; None otherwise."""
    if WITHDRAWN.search(text):
        return "the answer withdrawn"
    if corrected(text):
        return "the answer corrected"
    if CONDITION_ASKED.search(text):
        return "a condition left to the patient"
    if DEPENDING.search(text):
        return "the answer left to a fact not known"
    if (split := SPLIT.search(text)) and not CHOSEN_AFTER.search(text, split.end()):
        return "split between answers"
    if TORN.search(text):
        return "torn between answers"
    return None


def doubtful(line: str) -> bool:
    """Whether a line after an answer says something that may leave it open: torn or
    withdrawn, another answer as likely, another option offered, a member doubted."""
    return bool(
        torn(line)
        or EQUAL.search(line)
        or MAYBE_OTHER.search(line)
        or DOUBTED.search(line)
        or PREFERRED.search(line)
        or CONDITIONAL.search(line)
        or BRACKETED_MEMBER.search(line)
        or ELSE.search(line)
        or len(set(PROBABILITY.findall(line))) > 1
    )


# A choice left between two options: "A and either B or D", "either B or D, I can't tell".
EITHER = re.compile(r"\b(?i:either)\s+" + OPTION + r"\s*,?\s*(?i:or)\s+" + OPTION)


def letters_in(text: str) -> set[str]:
    return {m.group(1) or m.group(2) for m in LETTER.finditer(text)}


def kept_open(text: str, answer: frozenset[str] | set[str]) -> str | None:
    """Why the doubt in `text` leaves `answer` (its letters) open, or None where there is none:
    another option said to be as good, a condition's other branch, a member of the answer
    marked doubtful, a JSON field of possible options."""
    if JSON_OPEN.search(text):
        return "options listed as possible beside the answer"
    if found := torn(text):
        return found
    if len(set(PROBABILITY.findall(text))) > 1:
        return "options given probabilities"
    for either in EITHER.finditer(text):
        if not DENIED.search(text[max(0, either.start() - 25) : either.start()]):
            return "a choice left between two options"
    for sentence in SENTENCE.split(text):
        other = MAYBE_OTHER.search(sentence)
        if other and letters_in(other.group(0)) - set(answer) and not NOT_IT.search(sentence):
            return "another option offered as possible"
    for sentence in SENTENCE.split(text):
        equal = EQUAL.search(sentence)
        if equal and not DENIED.search(sentence[max(0, equal.start() - 25) : equal.start()]):
            if letters_in(sentence) - set(answer):
                return "another option kept as likely"
            alone = ALONE.search(sentence)  # "C & D ... C alone is just as defensible"
            if alone and len(answer) > 1 and set() < letters_in(alone.group(0)) < set(answer):
                return "a part of the answer kept as likely alone"
        if RANKED.search(sentence) and len(letters_in(sentence) - set(answer)) >= 2:
            return "two other options ranked beside the answer"
        other = ELSE.search(sentence)
        if other and letters_in(other.group(0)) - set(answer):
            return "another option as a condition's other branch"
    for better in PREFERRED.finditer(text):
        if letters_in(better.group(0)) - set(answer):
            return "another option preferred"
    if CONDITIONAL.search(text):
        return "an option added or dropped on a condition left open"
    if BRACKETED_MEMBER.search(text):
        return "a member of the answer in brackets"
    for final in FINAL.finditer(text):
        if letters_in(final.group(0)) - set(answer):
            return "another option given as final"
    for doubted in DOUBTED.finditer(text):
        if letters_in(doubted.group(0)) & set(answer):
            return "a member of the answer doubted"
    for member in MEMBER.finditer(text):
        before = text[max(0, member.start() - 3) : member.start()]
        named = letters_in(member.group(0)) or letters_in(before)
        if named & set(answer):
            return "a member of the answer marked doubtful"
    return None
