"""One segment of a reply read for its answer: the letters at its start (`read_segment`),
whether the words after them undo, hedge or commit to them (`judge_rest`, `commits`,
`standalone`), and a first line with the pure lines after it (`read_block`, `is_pure`)."""

from __future__ import annotations

import re

from selfdx.datasets.mentalbench.schema import LETTERS
from selfdx.instruments.answers.after_answer import (
    REVISION,
    RULED_OUT,
    STILL_POSSIBLE,
    added_options,
)
from selfdx.instruments.answers.letter_grammar import (
    Expression,
    read_expression,
    without_negated_brackets,
    without_negated_lists,
)
from selfdx.instruments.answers.letter_tokens import (
    COMMITMENTS,
    HEDGES,
    NEGATIONS,
    TERMINATORS,
    Token,
    letter_of,
    tokenize,
)
from selfdx.instruments.answers.option_verdicts import OPEN_VERDICTS
from selfdx.instruments.answers.strict_readings import Reading, joined, mentions

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
# An answer that moves within its own sentence: "D, changed to C", "D -> B".
REVISED = {"changed", "revised", "switched", "amended", "updated", "corrected"}
ARROWS = {"→", "->", "⇒", "=>", "⟶"}


ABBREVIATED = {"vs", "e", "g", "i", "cf", "etc", "approx"}  # a full stop that ends no sentence


# Words right after an option that make it less than the disorder ("C with D traits").
PARTIAL = {"traits", "trait", "features", "symptoms", "tendencies", "elements"}


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
    joined = [
        i
        for i in range(1, len(sentence))
        if letter_of(sentence, i) in others
        and sentence[i - 1].lower in ("and", "plus", "comorbid", "&")
    ]
    if joined:  # "A, not C, and B", "A, not C, with comorbid B": joined past a negation
        return f"ambiguous: {sorted(others)} joined to the answer after a negation"
    return None


# An exclusion denied: "A not excluded", "A can't be fully excluded", "not yet ruled out".
HELD_OPEN = re.compile(
    r"\b(?:not|can'?t|cannot|couldn't|yet)\s+(?:\w+\s+){0,3}?(?:excluded|ruled\s+out|exclude|rule\s+out)",
    re.IGNORECASE,
)


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
