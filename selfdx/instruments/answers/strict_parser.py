"""The strict MentalBench reader: a reply read as a careful human would read it.

It prefers options labelled by role ("Primary: A", "Secondary: C"), then an explicit answer
statement ("Answer: C", "the most likely diagnosis is C", the last one; "Edit: C" revises),
then a verdict on each option in turn ("A: no. B: yes. ..."), then labels on the first and last
lines; letters joined by `,` `&` `and`, ranges ("A-C"), option names in place of letters and
"none of the above" are understood ("none fits perfectly, but C is closest" is C; "Not A,
not B, not D. So C." is C). Options set aside ("Least likely: B", "Ruled out: A, B, D",
"D is the worst fit", "B would be the wrong answer") or kept open ("Differential: A", "Rule out:
A", a "Differential" heading) are no answer; a rating scale ("GAD-7", "PHQ-9") is no option's
name; a none followed by the option that comes closest ("None. C is the closest match", "If
forced, C") is that option. Anything it cannot settle (a hedge between options, an
option kept in the differential, contradicting answers, a revision ("I was wrong. It's A."), a
hedge after the answer ("I cannot exclude A"), options given probabilities, a refusal) stays
unparsed: it is never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, NamedTuple

from selfdx.datasets.mentalbench.schema import LETTERS
from selfdx.instruments.answers.doubt import kept_open
from selfdx.instruments.answers.layouts import with_layout_answers
from selfdx.instruments.answers.letter_grammar import (
    COMMITMENTS,
    HEDGES,
    NEGATIONS,
    TERMINATORS,
    Expression,
    Token,
    letter_of,
    read_expression,
    tokenize,
    without_negated_brackets,
    without_negated_lists,
)
from selfdx.instruments.answers.parsed import ParsedAnswer, unparsed
from selfdx.instruments.answers.reply_text import (
    NAME_END,
    NAME_START,
    clean_markdown,
    mark_option_names,
    strip_reasoning,
)

ReadingKind = Literal["letters", "none", "ambiguous", "nothing"]
# Words that, with another option after the answer, qualify it into a hedge ("B, though D can't
# be excluded", "probably D, but B if the highs were hypomanic").
QUALIFIERS = {
    "though", "although", "but", "also", "excluded", "unless", "otherwise", "pending", "actually",
    "plausible", "equally", "provisional", "rule", "second", "probably",
}  # fmt: skip
# Words that make the answer conditional or unsettled, with or without another option named:
# "A and C if low mood persists", "B, pending the history", "A (provisional)".
CONDITIONAL = {
    "if",
    "unless",
    "pending",
    "provisional",
    "provisionally",
    "tentative",
    "tentatively",
}
# Words that keep an option in the differential, in the answer's own sentence: "C, with A as a
# differential", "C (consider A)", "C, A to be excluded" hold A open, so the answer is a hedge.
DIFFERENTIAL = re.compile(
    r"\b(?:differentials?|consider(?:ed|ing)?|possibility|possibilities"
    r"|to\s+be\s+(?:excluded|ruled\s+out|considered|confirmed))\b",
    re.IGNORECASE,
)
LOW_CONFIDENCE = re.compile(
    r"\blow\s+confidence|\bnot\s+(?:very\s+|entirely\s+|fully\s+)?(?:confident|certain)\b",
    re.IGNORECASE,
)
# After an answer, a sentence that keeps another option open, or one that rules it out.
STILL_POSSIBLE = re.compile(
    r"\b(?:(?:can'?t|cannot|can\s+not)\s+be\s+(?:ruled\s+out|excluded)|also\s+(?:quite\s+)?"
    r"(?:plausible|possible|likely)|plausible|alternative(?:ly)?|would\s+be\s+the\s+answer"
    r"|remains?\s+(?:a\s+)?(?:possib|reasonable|open)|close\s+second|that\s+said"
    # "I cannot exclude A", "A should still be considered", "A is worth considering"
    r"|(?:can'?t|cannot|can\s+not|could\s+not|couldn't)\s+(?:fully\s+)?(?:exclude|rule\s+out)"
    r"|(?:should|must|needs?\s+to|ought\s+to)\s+(?:still\s+)?(?:also\s+)?be\s+"
    r"(?:considered|excluded|ruled\s+out)|worth\s+considering)",
    re.IGNORECASE,
)
RULED_OUT = re.compile(
    r"\b(?:incorrect|wrong|ruled\s+out|rules\s+out|excluded|unlikely|less\s+likely|does\s+not"
    r"|not\s+(?:meeting|met|supported)"
    r"|doesn't|not\s+(?:fit|apply|the\s+answer))\b",
    re.IGNORECASE,
)
# A letter past the four options listed with them ("Answer: B, C, E"): no option, so the list
# is not the answer it seems.
NO_SUCH_LETTER = re.compile(r"(?:^|[\s,;/&(+])[E-H](?=$|[\s,;.)/&+])")
# An answer that moves within its own sentence: "D, changed to C", "D -> B".
REVISED = {"changed", "revised", "switched", "amended", "updated", "corrected"}
ARROWS = {"→", "->", "⇒", "=>", "⟶"}
# A later line that takes the answer back ("Actually, wait - D", "on reflection, it could be C").
REVISION = re.compile(
    r"\b(?:actually|wait|on\s+(?:reflection|second\s+thought)|hmm+|not\s+sure|could\s+(?:also\s+)?be"
    r"|may\s+(?:also\s+)?(?:be|have|meet)"
    r"|might\s+(?:also\s+)?be|or\s+maybe|scratch\s+that|then\s+again|I\s+was\s+wrong"
    r"|I\s+(?:take|took)\s+(?:that|it)\s+back|I\s+(?:misspoke|stand\s+corrected)"
    r"|on\s+second\s+thoughts?|having\s+reconsidered|let\s+me\s+reconsider)\b",
    re.IGNORECASE,
)
HEADING = re.compile(
    r"^(?:(?:final|my|most\s+likely|working|primary|best|correct|applicable|selected|chosen)\s+)?"
    r"(?:answers?|diagnos[ie]s|selections?|choices?|options?)\s*:?$",
    re.IGNORECASE,
)
IF = re.compile(r"\bif\b", re.IGNORECASE)
# "None of the options is a perfect fit, but C is the best answer": a none that is qualified
# (no option fits perfectly) is no answer of "none"; the clause goes and what follows is read.
QUALIFIED_NONE = re.compile(
    r"\b(?:none|neither)\b(?:\s+of\s+(?:the\s+)?(?:these|them|options|choices|answers|above)"
    r"(?:\s+(?:options|choices|answers))?)?"
    r"\s+(?:is|are|fits?|matches|seems?|applies)\s+(?:an?\s+|the\s+)?"
    r"(?:perfect(?:ly)?|exact(?:ly)?|ideal(?:ly)?|complete(?:ly)?|entirely|fully|neat(?:ly)?"
    r"|clean(?:ly)?|textbook)\b[^.;\n]*?(?:[,;.]\s*(?:but|though|however|still)?,?|\s+but)\s*",
    re.IGNORECASE,
)
TORN = re.compile(
    r"\b(?:torn\s+between|undecided|(?:can'?t|cannot|unable\s+to)\s+(?:decide|choose)"
    r"|hard\s+to\s+(?:choose|decide)|too\s+close\s+to\s+call|one\s+of)\b",
    re.IGNORECASE,
)


# Rating scales named with a number ("GAD-7", "PHQ-9", "PCL-5"): a score, not an option's name.
RATING_SCALE = re.compile(
    r"\b(?:GAD|PHQ|PCL|BDI|HAM-?[AD]|MADRS|YMRS|PANSS|ASRS|CAPS|Y-?BOCS|AUDIT|EPDS|MDQ)"
    r"[ \t]*-?[ \t]*\d+\b",
    re.IGNORECASE,
)
# A label that sets options aside ("Least likely: B", "Ruled out: A, B, D", "Worst fit: D"):
# what it names is no answer, so the label and its options go.
SET_ASIDE = (
    r"(?:least\s+(?:likely|probable|consistent|appropriate|fitting)|worst(?:\s+fit(?:ting)?)?"
    r"|poorest\s+fit|wrong|incorrect|ruled\s+out|excluded|unlikely|rejected|eliminated)"
)
SET_ASIDE_LABEL = re.compile(
    r"(?:^|(?<=[.;:,]\s))[ \t]*" + SET_ASIDE + r"(?:\s+(?:options?|diagnos[ie]s|answers?"
    r"|choices?|conditions?|disorders?))?[ \t]*(?::|-|–|—)[^\n.;]*",
    re.IGNORECASE | re.MULTILINE,
)
# A sentence that sets options aside: "B is the least likely diagnosis", "D is the worst fit",
# "B would be the wrong answer".
OPTION = r"(?:\b[A-D]\b|\ue000[A-D]\ue001)"
SET_ASIDE_SENTENCE = re.compile(
    OPTION + r"(?:\s*(?:,|and|&|or)\s*" + OPTION + r")*\s+(?:is|are|would\s+be|seems?|was)"
    r"\s+(?:the\s+|a\s+)?(?:least\s+(?:likely|probable|consistent|appropriate|fitting)"
    r"|worst|poorest|wrong|incorrect)\b[^\n.;]*",
    re.IGNORECASE,
)
# A heading whose next line it labels ("### Differential" then "A"; "Least likely:" then "B").
LABEL_HEADING = re.compile(
    r"^[ \t]*((?:differentials?|rule\s+out|" + SET_ASIDE + r")(?:\s+(?:options?|diagnos[ie]s"
    r"|answers?|choices?))?)[ \t]*:?[ \t]*\n+",
    re.IGNORECASE | re.MULTILINE,
)
# Options kept open, written as a label ("Differential: A", "Rule out: A"): no answer.
DIFFERENTIAL_LABEL = re.compile(
    r"(?:^|(?<=[.;:,]\s))[ \t]*(?:differentials?|rule\s+out)(?:\s+(?:diagnos[ie]s|options?))?"
    r"[ \t]*(?::|-|–|—)[^\n.;]*",
    re.IGNORECASE | re.MULTILINE,
)


ABBREVIATED = {"vs", "e", "g", "i", "cf", "etc", "approx"}  # a full stop that ends no sentence
LIST_NUMBER = re.compile(r"^\d+[.)]\s+")


class Reading(NamedTuple):
    """What one part of a reply says: letters, none of the options, something ambiguous (with
    the reason), or nothing that answers."""

    kind: ReadingKind
    letters: frozenset[str] | None
    reason: str


# Words right after an option that make it less than the disorder ("C with D traits").
PARTIAL = {"traits", "trait", "features", "symptoms", "tendencies", "elements"}


def mentions(tokens: list[Token]) -> set[str]:
    return {letter for i in range(len(tokens)) if (letter := letter_of(tokens, i))}


def judge_rest(expression: Expression, tokens: list[Token]) -> str | None:
    """Why the words after an expression undo it ('negated', 'ambiguous: ...'), else None."""
    rest = tokens[expression.end :]
    if rest and rest[0].kind == "WORD" and rest[0].lower in PARTIAL:
        return "ambiguous: traits or features of an option, not the disorder"
    words = [t.lower for t in rest if t.kind == "WORD"]
    linking = {
        "which", "that", "is", "are", "was", "would", "be", "seems", "it", "this", "can", "could",
        "should", "must", "may", "might", "both", "clearly", "also", "definitely", "safely",
        "all",
    }  # fmt: skip
    for position, token in enumerate(rest[:5]):
        if token.kind == "PUNCT" or token.lower in linking:
            continue
        # "A, not B" negates B; "A is not correct" and "A, which is unlikely" negate A
        names_next = position + 1 < len(rest) and letter_of(rest, position + 1) is not None
        if token.lower in NEGATIONS and not names_next:
            return "negated"
        alone = position + 1 >= len(rest) or rest[position + 1].kind == "PUNCT"
        if token.lower == "no" and alone:
            return "negated"  # "B - no."
        if token.lower in OPEN_VERDICTS and alone:
            return "ambiguous: the option is only possible"  # "B: possible"
        if token.lower in ("fits", "fit") and position + 1 < len(rest):
            if rest[position + 1].lower in ("less", "poorly", "worse", "badly", "least"):
                return "negated"  # "B fits less well than C"
        break
    # a hedge belongs to the answer's own sentence: later sentences may rule options out
    stop = next(
        (
            i
            for i, t in enumerate(rest)
            if t.text in (".", "!") and not (i and rest[i - 1].lower in ABBREVIATED)
        ),
        len(rest),
    )
    sentence = without_negated_lists(without_negated_brackets(rest[:stop]))
    words = [t.lower for t in sentence if t.kind == "WORD"]
    if LOW_CONFIDENCE.search(" ".join(words)):
        return "ambiguous: the answer is held with low confidence"
    if DIFFERENTIAL.search(" ".join(words)) and (
        len(set(expression.letters)) > 1 or mentions(sentence) - set(expression.letters)
    ):
        return "ambiguous: an option kept in the differential"
    others = mentions(sentence) - set(expression.letters) - beside_answer(sentence, expression)
    unsure = any(w == "likely" and v != "less" for v, w in zip(["", *words], words, strict=False))
    if others and (unsure or any(word in HEDGES | QUALIFIERS for word in words)):
        return f"ambiguous: hedged between {sorted(set(expression.letters))} and {sorted(others)}"
    moved = any(a in REVISED and b == "to" for a, b in zip(words, words[1:], strict=False))
    arrow = any(mark in "".join(t.text for t in sentence) for mark in ARROWS)
    moved = moved or bool(REVISION.search(" ".join(words)))  # "B - wait, I mean A"
    if others and (moved or arrow):  # "D, changed to C", "D → B": the answer moves; read neither
        return f"ambiguous: revised from {sorted(set(expression.letters))} to {sorted(others)}"
    if any(t.text == "?" for t in rest[:3]):
        return "ambiguous: a question mark after the answer"
    if others and any(t.text == "?" for t in sentence):  # "C (D is comorbid?)"
        return "ambiguous: another option with a question mark"
    if any(word in CONDITIONAL for word in words[:6]):
        return "ambiguous: a condition on the answer"
    return None


# An exclusion denied: "A not excluded", "A can't be fully excluded", "not yet ruled out".
HELD_OPEN = re.compile(
    r"\b(?:not|can'?t|cannot|couldn't|yet)\s+(?:\w+\s+){0,3}?(?:excluded|ruled\s+out|exclude|rule\s+out)",
    re.IGNORECASE,
)


def joined(tokens: list[Token]) -> str:
    """Tokens as text again, option names marked as `mark_option_names` marks them."""
    return " ".join(NAME_START + t.text + NAME_END if t.kind == "NAME" else t.text for t in tokens)


def beside_answer(sentence: list[Token], expression: Expression) -> set[str]:
    """Options the answer's sentence sets aside in a part of its own ("A & D (C not supported;
    B excluded)") or adds to it ("OCD with poor insight; BDD also present"): neither hedges."""
    text = joined(sentence)
    found = added_options(text, frozenset(expression.letters))
    for part in re.split(r"[;,()\[\]—–]|\s-\s", text):
        if RULED_OUT.search(part) and not (STILL_POSSIBLE.search(part) or HELD_OPEN.search(part)):
            found |= mentions(tokenize(part))
    return found


def commits(expression: Expression, tokens: list[Token]) -> bool:
    """`C is the correct answer`, `B and D are most likely`, `C fits best`."""
    words = [t.lower for t in tokens[expression.end : expression.end + 6] if t.kind == "WORD"]
    if not words:
        return False
    if words[0] in ("fits", "fit", "apply", "applies", "coexist", "coexisting", "comorbid"):
        # "B fits less well than C", "B fits poorly": a ranking below, no commitment
        return len(words) < 2 or words[1] not in ("less", "poorly", "worse", "badly", "least")
    if words[:2] in (["co", "occur"], ["co", "occurring"]):  # "C and D co-occurring"
        return True
    if words[0] in ("only", "alone") or words[:2] == ["rather", "than"]:
        return True  # "B only.", "D rather than C."
    after = expression.end + 1
    if words[0] == "over" and after < len(tokens) and letter_of(tokens, after):
        return True  # "B over A"
    if words[0] == "with" and not mentions(tokens[expression.end :]):
        return True  # "MDD with anxious distress": a specifier, no other option
    if words[0] in ("all", "both") and len(words) > 1 and words[1] in ("apply", "fit", "applies"):
        return True  # "A, B, and D all apply"
    if words[:2] == ["it", "is"] and len(words) == 2:
        return True  # "C it is."
    if words[:2] in (["comes", "closest"], ["come", "closest"]):
        return True
    return words[0] in ("is", "are", "would", "seems") and any(w in COMMITMENTS for w in words[1:])


def standalone(expression: Expression, tokens: list[Token]) -> bool:
    """The expression is a label of its own: nothing, or punctuation, comes right after it."""
    if expression.end >= len(tokens) or expression.dangling:
        return True
    following = tokens[expression.end]
    return following.kind == "PUNCT" and following.text in TERMINATORS | {";"}


def read_segment(segment: str, need_label: bool) -> Reading:
    """Read the letters at the start of a segment.

    `need_label`: outside an explicit answer statement, only a stand-alone label or a
    committing sentence ("C is the most likely") counts as an answer.
    """
    tokens = tokenize(segment)
    if not tokens:
        return Reading("nothing", None, "")
    if tokens[0].kind == "WORD" and tokens[0].lower in NEGATIONS:
        return Reading("nothing", None, "negated")
    expression = read_expression(tokens, fillers=not need_label)
    if expression.problem:
        return Reading("ambiguous", None, expression.problem)
    if expression.none:
        return Reading("none", frozenset(), "'none of the options'")
    if not expression.letters:
        return Reading("nothing", None, "")
    verdict = judge_rest(expression, tokens)
    if verdict == "negated":
        return Reading("nothing", None, "negated")
    if verdict:
        return Reading("ambiguous", None, verdict)
    if need_label and not (standalone(expression, tokens) or commits(expression, tokens)):
        return Reading("nothing", None, "")
    letters = frozenset(expression.letters)
    # "C (D is comorbid)": the rest of the answer's own sentence adds an option
    rest = joined(tokens[expression.end :]).split(" . ")[0]
    return Reading("letters", letters | added_options(rest, letters), "")


def is_pure(segment: str) -> bool:
    """The whole segment is a letter expression (a line of a list answer or an echoed option)."""
    tokens = tokenize(segment)
    expression = read_expression(tokens, fillers=False)
    if not expression.letters or expression.problem:
        return False
    tail = tokens[expression.end :]
    return all(t.kind == "PUNCT" for t in tail)


def read_block(lines: list[str], need_label: bool) -> tuple[Reading, int]:
    """Read the first line; when it is a pure expression, the pure lines after it join it.

    Returns the reading and the number of lines it used. Three or more pure lines naming all
    four options are the options echoed back, not an answer.
    """
    if not lines:
        return Reading("nothing", None, ""), 0
    first = read_segment(lines[0], need_label)
    if first.kind != "letters" or not is_pure(lines[0]):
        return first, 1
    assert first.letters is not None
    letters = set(first.letters)
    taken = 1
    for line in lines[1:]:
        if not is_pure(line):
            break
        reading = read_segment(line, need_label)
        if reading.kind != "letters" or reading.letters is None:
            break
        letters |= reading.letters
        taken += 1
    if taken >= 3 and len(letters) == len(LETTERS):
        return Reading("nothing", None, "the options repeated"), taken
    return Reading("letters", frozenset(letters), ""), taken


CONCLUSION = re.compile(r"(?:so|therefore|hence|thus|leaving|diagnosis)\b", re.IGNORECASE)
QUALIFIED = r"(?:final|correct|best|right|chosen|selected|my|most\s+(?:likely|appropriate))"
REVISION_LABEL = re.compile(
    r"\b(?:edit(?:ed)?|corrections?|update[d]?|revised)(?:\s+answer)?[ \t]*:", re.IGNORECASE
)
MARKER = re.compile(
    r"\b(?:selected|chosen|final)[ \t]*(?::|→|->|=>)"
    # a revision written as a label: "Edit: C", "Correction: A", "Updated answer: B"
    r"|"
    + REVISION_LABEL.pattern
    + r"|\b(?:co-?occurring|comorbid)\s+(?:disorders?|conditions?|diagnos[ie]s)\s+(?:are|is)\b"
    r"|\b(?:that|which|this)\s+leaves\b|\b(?:choice|pick|applicable|applies)[ \t]*:"
    r"|\bbest\s+fit\s+(?:is|would\s+be)\b"
    r"|\b(?:answers?|diagnos[ie]s|selections?|outputs?)(?:\s*\((?:s|boxed)\))?(?:\s+first)?[ \t]*"
    r"(?::|=|→|->|=>|[-–—](?!\w)|\bis\b|\bare\b|\bwould\s+be\b|\bwill\s+be\b)"
    r"|\b" + QUALIFIED + r"\s+(?:options?|choices?|selections?)\s*(?::|\bis\b|\bare\b)"
    # "the answer to this case is D", "the answer for the patient would be B"
    r"|\banswers?\s+(?:to|for)\s+(?:[\w']+\s+){1,3}?(?:is|are|would\s+be)\b"
    # "the presentation supports the diagnosis of <name>", "the presentation supports C and B"
    r"|\bsupports?\s+(?:the|a|an)\s+diagnos[ie]s\s+of\b"
    r"|\b(?:presentation|picture|history|case)\s+supports?\b(?=\s+\(?\ue000?[A-H]\b)"
    r"|\bI\s*(?:would|will|'d|'ll)?\s*(?:choose|select|pick|go\s+with)\b"
    # "The best answer here is option A", "Almost certainly A", "Definitely C."
    r"|\bbest\s+(?:answer|option|choice)\s+(?:here\s+)?(?:is|would\s+be)\b"
    r"|(?:^|(?<=[.;:!]\s))(?:almost\s+certainly|certainly|definitely|surely)\b(?=[ \t]+\(?[A-H]\b)"
    r"|\bmost\s+(?:likely|consistent\s+with|probable)\b(?:\s+(?:diagnosis\s+)?(?:is|are))?"
    r"|\b(?:fits|matches)\s+best\s+(?:with\s+)?"
    # a conclusion after options are set aside: "Not A, not B, not D. So C."
    r"|(?:^|(?<=[.;:,]\s))(?:so|therefore|hence|thus|leaving|diagnosis)\b,?[ \t]*"
    r"(?=\(?[A-H]\)?(?:[ \t]*(?:,|and|or|&|/)[ \t]*\(?[A-H]\)?)*[ \t]*(?:[.!]|$))",
    re.IGNORECASE | re.MULTILINE,
)
REFUSAL = re.compile(
    r"\b(?:I\s*(?:can(?:no|')t|am\s+(?:not\s+able|unable)|'m\s+(?:not\s+able|unable)|won't|"
    r"must\s+decline|do\s+not\s+feel\s+comfortable)|as\s+an\s+AI|not\s+(?:able|qualified|"
    r"appropriate)\s+(?:for\s+me\s+)?to\s+(?:diagnose|provide|give|make)|unable\s+to\s+"
    r"(?:provide|determine|diagnose|make)|cannot\s+(?:provide|determine|diagnose|make)|"
    r"consult\s+(?:a|with\s+a)\s+(?:licensed|qualified|mental\s+health|medical))",
    re.IGNORECASE,
)


# After the answer, a word that another choice is left open: "can't tell which", "either B or D",
# "B or A may also apply".
UNDECIDED_AFTER = re.compile(
    r"\b(?:can'?t|cannot|unable\s+to)\s+(?:tell|say|determine)\s+which\b|\beither\s+\ue000?[A-H]\b"
    r"|\b(?:may|might|could)\s+(?:also\s+)?apply\b|\b(?:may|might|could)\s+make\s+it\b"
    r"|\bdepends\s+on\b",
    re.IGNORECASE,
)


# A sentence that offers another choice on its own: "Or C & B.", "A or C."
OR_AGAIN = re.compile(
    r"\W*(?:or\b|\ue000?[A-H]\ue001?\s+or\s+\ue000?[A-H]\ue001?\W*$)", re.IGNORECASE
)


def taken_back(after: str, letters: frozenset[str]) -> bool:
    """Whether the text after an answer revises it or keeps another option open: a sentence
    with another option and a revision ("Actually, wait - D") or an opening word ("D is also
    quite plausible", "However, C cannot be ruled out", "Alternatively, D"), unless it rules
    that option out ("makes B incorrect")."""
    if TORN.search(after) or UNDECIDED_AFTER.search(after):
        return True  # "For the second, B and D both have some support. I can't decide."
    revising = False  # a revision on its own ("I was wrong.") reaches the next sentence
    for sentence in re.split(r"(?<=[.!?])\s+|\n", after):
        others = mentions(tokenize(sentence)) - set(letters)
        if not others:
            revising = revising or bool(REVISION.search(sentence))
            continue
        if STILL_POSSIBLE.search(sentence) or (
            (revising or REVISION.search(sentence) or OR_AGAIN.match(sentence))
            and not RULED_OUT.search(sentence)
        ):
            return True  # "... Or C & B.", "A or C."
        revising = False
    return False


# A sentence after the answer that adds another option to it: "The patient also meets criteria
# for D.", "D is also present.", "(D is comorbid)", "In addition, D."
ADDS = re.compile(
    r"\balso\s+(?:meets?|met|fulfil+s?|satisf(?:y|ies)|qualif(?:y|ies)|present|appl(?:y|ies)"
    r"|warranted|diagnosed|indicated|has|have|fits?|(?:the\s+)?case)\b"
    r"|\b(?:is|are)\s+also\s+(?:present|met|diagnosed|warranted|indicated|applicable|supported"
    r"|(?:a|the)\s+(?:second\s+|comorbid\s+)?diagnosis)\b"
    r"|\b(?:comorbid(?:ity)?|co\s*-?\s*occurring|coexisting|in\s+addition|additionally"
    r"|second\s+diagnosis|plus)\b|\bsecondary\b(?!\s+to\b)|\bas\s+well\W*$"
    r"|^\W*(?:and\s+)?also\W+\ue000?[A-H]\ue001?\W*$",  # "Also D."
    re.IGNORECASE,
)
# ... unless the sentence holds it open, plays it down or denies it.
NOT_ADDED = re.compile(
    r"\b(?:may|might|could|possibl[ey]|probabl[ey]|likely|suspect(?:ed)?|consider(?:ed|ing)?"
    r"|query|rule|traits?|features?|symptoms?|some|partial(?:ly)?|sub-?\s*threshold|history"
    r"|past|previous(?:ly)?|family|no|not|without|lacks?|absent|neither|nor|never|unlikely"
    r"|less|excluded|doesn't|isn't|aren't|don't|cannot|can't|if|unless|pending|differential"
    r"|ruled|eliminated|dismissed|discounted|incorrect|wrong|often|commonly|frequently"
    r"|typically|usually|tends?"
    r"|rather|instead|vs|versus|or)\b|\?",
    re.IGNORECASE,
)


def added_options(text: str, letters: frozenset[str]) -> set[str]:
    """Options that sentences of `text` add to the answer `letters` (see `ADDS`)."""
    added: set[str] = set()
    for sentence in re.split(r"(?<=[.!?;])\s+|\n", text):
        others = mentions(tokenize(sentence)) - set(letters)
        if (
            others
            and ADDS.search(sentence)
            and not (NOT_ADDED.search(sentence) or RULED_OUT.search(sentence))
        ):
            added |= others
    return added


def with_added(settled: ParsedAnswer | None, after: str) -> ParsedAnswer | None:
    """`settled` joined by the options the text after it adds (`added_options`)."""
    if settled is None or not settled.letters:
        return settled
    added = added_options(after, settled.letters)
    if not added:
        return settled
    return ParsedAnswer(settled.letters | added, "answered", settled.reason)


def under_heading(lines: list[str]) -> Reading:
    """What the lines under an answer heading say: the first line's answer (with the pure lines
    after it), joined by the answers that open the list items right after it ("1. <name> (C) -
    why", "2. <name> (B) - why"), up to the first line that opens with none."""
    first, used = read_block(lines, need_label=False)
    if first.kind != "letters" or first.letters is None:
        return first
    letters = set(first.letters)
    for line in lines[used:]:
        if DIFFERENTIAL.search(line) or RULED_OUT.search(line):
            break  # "C (OCD) was considered because ...": no item of the answer
        reading = read_segment(line, need_label=False)
        if reading.kind != "letters" or reading.letters is None:
            break
        letters |= reading.letters
    return Reading("letters", frozenset(letters), "")


def settle(readings: list[Reading], where: str) -> ParsedAnswer | None:
    """Combine readings of different parts of a reply: agree -> answer, disagree -> ambiguous."""
    found = [r for r in readings if r.kind != "nothing"]
    if not found:
        return None
    ambiguous = [r for r in found if r.kind == "ambiguous"]
    if ambiguous:
        return unparsed("ambiguous", f"{where}: {ambiguous[0].reason}")
    sets = {r.letters for r in found if r.letters is not None}
    if len(sets) > 1:
        shown = " vs ".join("".join(sorted(s)) or "none" for s in sets)
        return unparsed("ambiguous", f"{where}: the reply gives different answers ({shown})")
    letters = sets.pop()
    if not letters:
        return ParsedAnswer(frozenset(), "none", f"{where}: none of the options")
    return ParsedAnswer(letters, "answered", where)


# What qualifies an answer on its own line after it: "B, probably", "B and C; A is also
# plausible", "B, with features of C" ("most likely", "less likely" and "unlikely" do not).
HEDGED_AFTER = re.compile(
    r"(?<!most )(?<!less )(?<!not )\b(?:probabl[ey]|possibl[ey]|plausibl[ey]|maybe|perhaps"
    r"|likely|features of|traits of|tentative(?:ly)?|provisional(?:ly)?)\b",
    re.IGNORECASE,
)


# A verdict on each option in turn: "A: no. B: no. C: yes. D: no.", "- C: most likely".
VERDICT = re.compile(
    r"(?:^|(?<=[\s.;,(\ue000]))([A-H])\ue001?\s*(?:[:=)\-–—]\s*|\s+)(yes|no|true|false|correct"
    r"|incorrect|applies|does\s+not\s+apply|most\s+likely|likely|unlikely|less\s+likely"
    r"|least\s+likely|not\s+likely|ruled\s+out|excluded|possible|possibly|probable|maybe"
    r"|uncertain|unclear|[✔✓☑✅✗✘❌☒])(?=\s*(?:[.,;)\n]|$))",
    re.IGNORECASE,
)
POSITIVE = {"yes", "true", "correct", "applies", "likely", "most likely", "✔", "✓", "☑", "✅"}
OPEN_VERDICTS = {"possible", "possibly", "probable", "maybe", "uncertain", "unclear"}


def verdicts(text: str) -> Reading | None:
    """The options chosen by a verdict on each (at least three options judged, each once):
    those said yes (or, where one is "most likely", those); None when it is no such list."""
    said: dict[str, set[str]] = {}
    for match in VERDICT.finditer(text):
        said.setdefault(match.group(1).upper(), set()).add(" ".join(match.group(2).lower().split()))
    if len(said) < 3:
        return None
    if any(len(words) > 1 for words in said.values()):
        return Reading("ambiguous", None, "an option given two verdicts")
    verdict = {letter: words.pop() for letter, words in said.items()}
    if any(word in OPEN_VERDICTS for word in verdict.values()):
        return Reading("ambiguous", None, "an option held open ('possible')")
    chosen = {letter for letter, word in verdict.items() if word in POSITIVE}
    if any(verdict[letter] == "most likely" for letter in chosen):
        chosen = {letter for letter in chosen if verdict[letter] == "most likely"}
    if not chosen:
        return Reading("ambiguous", None, "every option judged against")
    return Reading("letters", frozenset(chosen), "")


# A range of options: "A-C", "B to D" (every option from the first to the last).
RANGE = re.compile(r"(?<![\w-])([A-H])\s*(?:-|–|—|\bto\b|\bthrough\b|\bthru\b)\s*([A-H])(?![\w-])")
# The role an option is given on its own label: primary, secondary or comorbid (the answer),
# differential (kept open).
ROLES = r"primary|main|principal|secondary|comorbid|co-?occurring|additional|differential"
ROLE = re.compile(
    rf"(?:^|(?<=[.;:,]\s))\W*({ROLES})(?:\s+(?:diagnos[ie]s|disorders?|conditions?))?[ \t]*"
    rf"(?::|-|–|—)[ \t]*(.+?)(?=\.\s|;|\n|$|,\s*(?:{ROLES})\b)",
    re.IGNORECASE | re.MULTILINE,
)
ADDED_ROLES = {"secondary", "comorbid", "cooccurring", "co-occurring", "additional"}
CONTINUATION = re.compile(r"^(?:and|plus|&|\+)\s+", re.IGNORECASE)


def with_ranges(text: str) -> str:
    """`text` with each range of options written out ("A-C" as "A, B, C")."""

    def spelled(match: re.Match[str]) -> str:
        first, last = match.group(1).upper(), match.group(2).upper()
        if last <= first:
            return match.group(0)
        return ", ".join(chr(c) for c in range(ord(first), ord(last) + 1))

    return RANGE.sub(spelled, text)


def roles(text: str) -> tuple[set[str], set[str], set[str]]:
    """The options labelled primary, added (secondary, comorbid) and differential; an added
    role held open ("Secondary: unclear (D vs B)") puts its options among the differential."""
    found: dict[str, set[str]] = {"primary": set(), "added": set(), "differential": set()}
    for match in ROLE.finditer(text):
        reading = read_segment(match.group(2), need_label=False)
        if match.group(1).lower() != "differential" and OPEN_ROLE.search(match.group(2)):
            found["differential"] |= mentions(tokenize(match.group(2))) or {"?"}
            continue
        if reading.kind != "letters" or reading.letters is None:
            continue
        role = match.group(1).lower()
        kind = "differential" if role == "differential" else "added"
        kind = "primary" if role in ("primary", "main", "principal") else kind
        found[kind] |= reading.letters
    return found["primary"], found["added"], found["differential"]


# A role's value that holds it open: "Secondary: unclear (D vs B)", "Comorbid: ?".
OPEN_ROLE = re.compile(
    r"\b(?:unclear|uncertain|undetermined|unknown|possible|possibly|maybe|vs|versus|or|tbd)\b"
    r"|\?",
    re.IGNORECASE,
)


def with_roles(settled: ParsedAnswer, text: str) -> ParsedAnswer:
    """An answer joined by the options labelled secondary or comorbid after it ("Answer: A
    (primary)" then "Comorbid: C"); one with another option labelled differential is a hedge."""
    if not settled.letters:
        return settled
    _, added, differential = roles(text)
    if differential - settled.letters:
        return unparsed("ambiguous", "another option labelled as a differential")
    if added - settled.letters:
        return ParsedAnswer(settled.letters | added, "answered", settled.reason)
    return settled


def opens_with_option(line: str) -> bool:
    return bool(read_expression(tokenize(LIST_NUMBER.sub("", line.strip())), fillers=False).letters)


def labelled_lists(body: str) -> str:
    """`body` with each heading that labels the lines under it ("### Differential", "Least
    likely:") joined to them: its first line, and every line after that opens with an option
    ("Differential:" then "1. D" and "2. B" is "Differential: D, B")."""
    while match := LABEL_HEADING.search(body):
        rest = body[match.end() :].split("\n")
        taken = 1
        while taken < len(rest) and rest[taken].strip() and opens_with_option(rest[taken]):
            taken += 1
        if not opens_with_option(rest[0]):
            taken = 1
        items = ", ".join(LIST_NUMBER.sub("", line.strip()) for line in rest[:taken])
        body = body[: match.start()] + f"{match.group(1)}: {items}\n" + "\n".join(rest[taken:])
    return body


LETTER_WITH = re.compile(r"(?<![\w-])([A-H])\b[).:]?[ \t]+(with[ \t]+[^\n.;,]+)")


def letter_made_another(body: str, options: Sequence[str]) -> str:
    """`body` with a letter whose specifier makes it another option ("A with psychotic
    features", where A is MDD and B "MDD with Psychotic Features") written as the choice it
    leaves ("A or B")."""

    def choice(match: re.Match[str]) -> str:
        index = "ABCDEFGH".find(match.group(1).upper())
        if index >= len(options):
            return match.group(0)
        said = " ".join(f"{options[index]} {match.group(2)}".casefold().split())
        for other, name in enumerate(options):
            if other != index and len(name) > len(options[index]):
                if said.startswith(" ".join(name.casefold().split())):
                    return f"{match.group(1)} or {LETTERS[other]}"
        return match.group(0)

    return LETTER_WITH.sub(choice, body)


def parse_strict(text: object, options: Sequence[str]) -> ParsedAnswer:
    """Read a reply as a careful reader would; whatever stays ambiguous is left unparsed."""
    if not isinstance(text, str) or not text.strip():
        return unparsed("empty", "empty reply")
    body, unfinished = strip_reasoning(text)
    body = clean_markdown(body)
    if not body.strip():
        reason = "the reasoning block never ended" if unfinished else "only reasoning, no answer"
        return unparsed("empty", reason)
    body = with_layout_answers(body)
    body = re.sub(r"\br/o\b", "rule out", body, flags=re.IGNORECASE)
    body = QUALIFIED_NONE.sub("", body)
    if not body.strip():
        return unparsed("unparsed", "no option said to fit")
    body = RATING_SCALE.sub("rating scale", body)
    body = with_ranges(mark_option_names(letter_made_another(body, options), options))
    # a heading that labels the line under it ("### Differential" then "A") is that line's label
    body = labelled_lists(body)
    body = re.sub(r"\brule\s+out\s*:", "Differential:", body, flags=re.IGNORECASE)
    # options labelled by role ("Primary: A", "Secondary: C", "Differential: D")
    primary, added, differential = roles(body)
    if primary:
        if differential - primary - added:
            return unparsed("ambiguous", "another option labelled as a differential")
        return ParsedAnswer(frozenset(primary | added), "answered", "options labelled by role")
    # options set aside ("Least likely: B", "Ruled out: A, B, D", "D is the worst fit") or
    # kept open ("Differential: A") are no answer: they go, and the rest is read
    body = SET_ASIDE_LABEL.sub("", body)
    body = SET_ASIDE_SENTENCE.sub("", body)
    body = DIFFERENTIAL_LABEL.sub("", body)
    if not re.search(r"\w", body):
        return unparsed("unparsed", "only options set aside or kept open")
    settled = read_body(body)
    if settled.letters and differential - settled.letters:
        return unparsed("ambiguous", "another option labelled as a differential")
    if settled.letters and len(set(WEIGHTED.findall(body))) > 1:
        return unparsed("ambiguous", "options given with probabilities")
    if settled.letters == frozenset():
        return closest_after_none(body, settled)
    if settled.letters and (doubt := kept_open(body, settled.letters)):
        return unparsed("ambiguous", doubt)
    return settled


# An option given a probability: "C (80%), A (20%)".
WEIGHTED = re.compile(OPTION + r"\s*[(:=-]?\s*\d+(?:\.\d+)?\s*%")
# After "none", a sentence that still picks the nearest option: "C is the closest match",
# "If forced, C", "closest is C".
CLOSEST = re.compile(
    r"\b(?:closest|nearest|best\s+(?:available|approximation)|if\s+(?:forced|I\s+(?:had|have|must)"
    r"\s+to\s+(?:choose|pick|select)))\b",
    re.IGNORECASE,
)


def closest_after_none(body: str, settled: ParsedAnswer) -> ParsedAnswer:
    """A none answer followed by the option that comes closest ("None. C is the closest match
    though."; "None of the above. If forced, C."): that option is the answer."""
    chosen: set[str] = set()
    for sentence in re.split(r"(?<=[.!?;])\s+|\n", body):
        if CLOSEST.search(sentence):
            chosen |= mentions(tokenize(sentence))
    if not chosen:
        return settled
    if len(chosen) > 1:
        return unparsed("ambiguous", "none, then more than one option said to come closest")
    return ParsedAnswer(frozenset(chosen), "answered", "the option closest after none")


# A heading that ranks the list under it or keeps it open: "Differential (most to least likely):",
# "In order of likelihood:", "Possible diagnoses:".
RANKED = re.compile(
    r"\b(?:rank(?:ed|ing)?|order|likel(?:y|ihood)|probab(?:le|ility|ly)|differentials?"
    r"|possib(?:le|ility|ilities)|consider(?:ed|ing|ations?)?|candidates?)\b",
    re.IGNORECASE,
)


def trailing_list(body: str) -> Reading | None:
    """The list that ends the reply, when its last line is one item of two or more options
    written one to a line (no blank line between them): the options as a set under a heading
    that does not rank them ("Diagnoses that apply:"), ambiguous under one that does
    ("Differential (most to least likely):") or when an item is qualified ("1. C (most likely)");
    None when the reply does not end so (its last line may then be a closing label)."""
    raw = body.rstrip().splitlines()
    items: list[str] = []
    for line in reversed(raw):
        item = LIST_NUMBER.sub("", line.strip())
        if not item or not read_expression(tokenize(item), fillers=False).letters:
            break  # a blank line, or a line that does not open with an option
        items.append(item)
    letters = {
        letter
        for item in items
        for letter in read_expression(tokenize(item), fillers=False).letters
    }
    if len(items) < 2 or len(letters) == len(LETTERS):
        return None  # one line, or the options echoed back
    heading = raw[len(raw) - len(items) - 1].strip() if len(raw) > len(items) else ""
    if RANKED.search(heading):
        return Reading("ambiguous", None, "options listed under a ranking or a differential")
    if not all(is_pure(item) for item in items):
        readings = [read_segment(item, need_label=False) for item in items]
        if any(r.kind != "letters" or r.letters is None for r in readings) or any(
            HEDGED_AFTER.search(item) or RANKED.search(item) for item in items
        ):
            return Reading("ambiguous", None, "a list of options, some qualified")
    return Reading("letters", frozenset(letters), "")


# Words before an answer word that make it a list of options kept open, not the answer.
OPEN_LABEL = re.compile(
    r"\b(?:possible|potential|differential|candidates?|alternatives?|other|rule[\s-]?outs?"
    r"|excluded|considered)\b",
    re.IGNORECASE,
)


# What a line that opens with an option says of it, after the option: held open, set aside or
# chosen ("- C. <name> - fits", "D. <name>  <- applies", "A. <name> ✔", "B. <name> ?").
LINE_OPEN = re.compile(
    r"\balso\s+fits|\bpossibl[ey]\b|\bmaybe\b|\bperhaps\b|\bborderline\b|\bpartial(?:ly)?\b"
    r"|\bhard\s+to\s+(?:exclude|rule\s+out)|\b(?:can'?t|cannot|can\s+not)\s+(?:be\s+)?"
    r"(?:excluded?|ruled?\s+out)|\buncertain\b|\bunclear\b|\?",
    re.IGNORECASE,
)
LINE_AGAINST = re.compile(
    r"\bless\s+likely|\bunlikely|\bnot\s+likely|\bruled\s+out|\bexcluded|\bdoes\s+not\s+fit"
    r"|\bdoesn'?t\s+fit|\bnot\s+(?:supported|met|a\s+fit)|\bno\b|[✗✘❌☒]|\[\s\]|\bincorrect\b"
    r"|\bwrong\b",
    re.IGNORECASE,
)
LINE_FOR = re.compile(
    r"\bfits\b|\bapplies\b|\byes\b|\bmost\s+likely\b|\bcorrect\b|[✔✓☑✅←]|\[x\]"
    r"|\bselected\b|\bchosen\b|\bmet\b|\bbest\s+fit\b|\bthis\s+one\b",
    re.IGNORECASE,
)


def option_lines(body: str) -> Reading | None:
    """The options chosen by a list that takes each option on a line of its own and marks or
    judges it (three lines or more, one of them marked): those marked for it; ambiguous when one
    is held open ("also fits; hard to exclude", "?") or none is chosen; None for no such list."""
    said: dict[str, str] = {}
    for line in body.splitlines():
        tokens = tokenize(LIST_NUMBER.sub("", line.strip()))
        expression = read_expression(tokens, fillers=False)
        if not expression.letters or expression.problem or len(set(expression.letters)) > 1:
            continue
        rest = joined(tokens[expression.end :])
        letter = expression.letters[0]
        verdict = (
            "open"
            if LINE_OPEN.search(rest)
            else "against"
            if LINE_AGAINST.search(rest)
            else "for"
            if LINE_FOR.search(rest)
            else ""
        )
        if letter in said and said[letter] != verdict:
            return Reading("ambiguous", None, "an option given two verdicts")
        said[letter] = verdict
    if len(said) < 3 or not any(said.values()):
        return None
    if "open" in said.values():
        return Reading("ambiguous", None, "an option held open in a list of verdicts")
    chosen = frozenset(letter for letter, verdict in said.items() if verdict == "for")
    if not chosen:
        return Reading("ambiguous", None, "no option chosen in a list of verdicts")
    return Reading("letters", chosen, "")


CORRECTED = re.compile(r"\b(?:correct(?:ion|ed)|edit(?:ed)?|update[d]?|revised?)\b", re.I)


def statement(body: str, markers: list[re.Match[str]], position: int) -> ParsedAnswer | None:
    """What the answer statement at `markers[position]` says, or None when it says nothing."""
    marker = markers[position]
    line_start = body.rfind("\n", 0, marker.start()) + 1
    inside = any(line_start <= m.start() < marker.start() for m in markers)
    if inside and not (REVISION_LABEL.match(marker.group(0)) or CONCLUSION.match(marker.group(0))):
        return None
    after = body[marker.end() :]
    head, _, below = after.partition("\n")
    before = body[line_start : marker.start()]
    if OPEN_LABEL.search(before) or re.search(r"\b(?:not|non|never)\W*$", before, re.I):
        return None  # "Possible diagnoses:", "Not selected:": options kept open or set aside
    if not re.search(r"\w", head) and mentions(tokenize(before)):
        return None  # "C (most likely)": the option comes before the marker; read the line
    below_lines = [LIST_NUMBER.sub("", line.strip()) for line in below.splitlines()]
    below_lines = [line for line in below_lines if line]
    verdict = verdicts(after)
    if verdict is not None:
        reading = verdict
    elif re.search(r"\w", head):
        # the pure lines right after it join it ("Answers: A" then "C", or "and C")
        following = [CONTINUATION.sub("", line) for line in below_lines]
        reading, _ = read_block([head.strip(), *following], need_label=False)
        rest = re.split(r"(?<=[.!])\s+", head.strip(), maxsplit=1)
        if reading.reason == "negated" and len(rest) > 1:
            # "Answer: A, B, C and D are all ruled out. None.": the next sentence answers
            reading, _ = read_block([rest[1], *following], need_label=False)
    else:
        reading = under_heading(below_lines)
    if reading.kind != "nothing":
        settled = settle([reading], f"answer statement {marker.group(0).strip()!r}")
        after = f"{head}\n{below}"
        if settled is not None and settled.letters and taken_back(after, settled.letters):
            return unparsed("ambiguous", "the answer is taken back after it")
        if settled is not None and settled.letters and NO_SUCH_LETTER.search(head):
            return unparsed("unparsed", "a letter that is no option in the answer")
        if settled is not None and settled.letters and HEDGED_AFTER.search(head):
            return unparsed("ambiguous", "the answer is qualified on its line")
        if settled is not None:
            return with_roles(with_added(settled, after) or settled, below)
    return None


def read_body(body: str) -> ParsedAnswer:
    """The answer in a prepared reply (markdown gone, option names marked, roles settled)."""
    lines = [LIST_NUMBER.sub("", line.strip()) for line in body.splitlines() if line.strip()]
    # a heading that announces the answer ("## Answer", "Final diagnosis"): its next line is one
    for number, line in enumerate(lines[:-1]):
        if HEADING.match(line):
            below = lines[number + 1 :]
            reading = verdicts("\n".join(below)) or under_heading(below)
            settled = settle([reading], f"the lines under the heading {line!r}")
            if settled is not None:
                return settled

    # 1. an explicit answer statement: the last one that says something decides (one inside
    #    another's line, "Answer: B and most likely C", is part of that line's statement); an
    #    earlier one that says otherwise, with no revision between, makes the reply ambiguous
    markers = list(MARKER.finditer(body))
    for position in reversed(range(len(markers))):
        found = statement(body, markers, position)
        if found is None:
            continue
        if found.letters:
            for earlier in range(position):
                other = statement(body, markers, earlier)
                between = body[markers[earlier].end() : markers[position].start()]
                revised = (
                    REVISION.search(between)
                    or CORRECTED.search(between)
                    or REVISION_LABEL.match(markers[position].group(0))
                )
                if other is not None and other.letters and other.letters != found.letters:
                    if not revised:
                        return unparsed("ambiguous", "two answer statements disagree")
        return found

    # 2. a verdict on each option in turn ("A: no. B: no. C: yes. D: no."), or a list of the
    #    options, each on its line, marked or judged ("C. <name> ✔", "- D. <name> - fits")
    verdict = verdicts(body) or option_lines(body)
    if verdict is not None:
        settled = settle([verdict], "a verdict on each option")
        if settled is not None:
            return settled

    # 3. labels: on the first line (or a list of them), on the last line, or closing the last
    #    line after a comma or colon ("Based on the symptoms, A."); all that are found must agree
    first, used = read_block(lines, need_label=True)
    readings = [first]
    # the last line may be one item of a list: then the list, not that line, closes the reply
    listed = trailing_list(body) if len(lines) > used else None
    if listed is not None:
        readings.append(listed)
    elif len(lines) > used:
        readings.append(read_segment(lines[-1], need_label=True))
    if readings[-1].kind == "nothing" and first.reason != "the options repeated":
        # "Final: A, D" before "Based on this, A." before "Not A. Not C. B."
        for splitter in (r"[:;—–→]|\s-\s|->|=>", r"(?<=[.!?])\s+", r","):
            tail = re.split(splitter, lines[-1])[-1].strip()
            head = lines[-1][: len(lines[-1]) - len(tail)]
            if splitter == "," and (head.count("(") > head.count(")") or IF.search(head)):
                continue  # inside brackets ("(A, D)"), or a condition ("if not, D")
            if tail != lines[-1] and is_pure(tail):
                readings.append(read_segment(tail, need_label=True))
                break
    if (
        len(readings) > 1
        and readings[0].kind == "letters"
        and readings[0].letters
        and readings[-1].letters is not None
        and readings[-1].letters < readings[0].letters
    ):
        readings = readings[:1]  # the last line explains one option of the set on the first
    settled = settle(readings, "label")
    if settled is not None and settled.letters and NO_SUCH_LETTER.search(lines[0]):
        if first.kind == "letters" and is_pure(NO_SUCH_LETTER.sub(" ", lines[0])):
            return unparsed("unparsed", "a letter that is no option in the answer")  # "C, E"
    if settled is not None and settled.letters and first.kind == "letters":
        after = "\n".join(lines[used:-1] if len(lines) > used + 1 else lines[used:])
        head_rest = re.split(r"(?<=[.!?])\s+", lines[0], maxsplit=1)
        if len(head_rest) > 1:
            after = head_rest[1] + "\n" + after
        if taken_back(after, settled.letters):
            return unparsed("ambiguous", "another option kept open after the answer")
        settled = with_added(settled, after)
    if settled is not None:
        return settled
    if TORN.search(body):
        return unparsed("ambiguous", "torn between options")
    if REFUSAL.search(body):
        return unparsed("refusal", "the model declined to answer")
    return unparsed("unparsed", "no answer found")
