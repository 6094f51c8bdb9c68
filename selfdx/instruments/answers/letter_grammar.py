"""The grammar of letter answers: tokens, and letters joined into expressions (`A & C`,
`C) <name>`, `none of the above`), with hedges and contradictions marked as problems."""

from __future__ import annotations

import re
from dataclasses import dataclass

from selfdx.datasets.mentalbench.schema import LETTERS
from selfdx.instruments.answers.reply_text import NAME_END, NAME_START

TOKEN = re.compile(
    NAME_START + r"[A-D]" + NAME_END + r"|[A-Za-z]+(?:'[A-Za-z]+)?|\d+(?:\.\d+)?|[^\sA-Za-z\d]"
)
SEPARATORS = {",", "&", ";", "+", "and", "plus"}
# "A/C" offers a choice between two options, as "A or C" does.
HEDGE_SEPARATORS = {"or", "either", "vs", "versus", "/", ">"}
TERMINATORS = {".", ":", "-", "–", "—", ")", "]", "!", "(", "["}
CLUSTER_GLUE = {".", ")", "(", ":", "-", "–", "—", "]", "["}
LETTER_FOLLOWERS = {
    "and", "or", "is", "are", "was", "would", "seems", "fits", "plus", "as", "both", "also",
    "could", "can", "might", "may", "should", "seem", "fit", "apply", "applies", "describe",
    "describes", "each", "if", "together", "with", "remains", "cannot", "can't", "instead",
    "rather", "alone", "not", "pending", "unless", "otherwise", "equally", "to",
}  # fmt: skip
OPENERS = {
    "(",
    "[",
    "both",
    "option",
    "options",
    "choice",
    "choices",
    "letter",
    "letters",
    "only",
}
FILLERS = OPENERS | {
    "i", "think", "believe", "it's", "it", "is", "are", "would", "be", "the", "answer", "answers",
    "most", "likely", "probably", "definitely", "clearly", "correct", "best", "diagnosis",
    "diagnoses", "select", "selected", "choose", "chosen", "that", "consistent", "with",
    "applicable", "of", "in",
}  # fmt: skip
SET_PHRASE_WORDS = {"of", "the", "above", "these", "those", "options", "choices", "four", "listed"}
NEGATIONS = {
    "not", "unlikely", "less", "ruled", "excluded", "incorrect", "wrong", "isn't", "aren't",
    "doesn't", "don't", "cannot", "can't", "never", "neither", "nor", "lacks",
}  # fmt: skip
HEDGES = {
    "or", "either", "possibly", "possible", "perhaps", "maybe", "might", "could", "uncertain",
    "unsure", "unclear", "alternatively", "differential", "vs", "versus", "plausible",
}  # fmt: skip
COMMITMENTS = {
    "correct",
    "right",
    "best",
    "answer",
    "answers",
    "likely",
    "appropriate",
    "consistent",
}
NONE_WORDS = {"none", "neither"}


@dataclass
class Token:
    kind: str  # NAME, WORD, NUM, PUNCT
    text: str

    @property
    def lower(self) -> str:
        return self.text.lower()


def tokenize(segment: str) -> list[Token]:
    tokens = []
    for match in TOKEN.finditer(segment):
        text = match.group(0)
        if text.startswith(NAME_START):
            tokens.append(Token("NAME", text[1]))
        elif text[0].isalpha():
            tokens.append(Token("WORD", text))
        elif text[0].isdigit():
            tokens.append(Token("NUM", text))
        else:
            tokens.append(Token("PUNCT", text))
    return tokens


def letter_of(tokens: list[Token], index: int) -> str | None:
    """The option letter a token stands for, if it is an option letter or name here.

    An upper-case A-D counts unless a plain word follows it ("A patient" is an article);
    a lower-case a-d counts only when nothing word-like follows it.
    """
    token = tokens[index]
    if token.kind == "NAME":
        return token.text
    if token.kind != "WORD" or len(token.text) != 1 or token.text.upper() not in LETTERS:
        return None
    following = tokens[index + 1] if index + 1 < len(tokens) else None
    if following is None or following.kind in ("PUNCT", "NAME"):
        return token.text.upper()
    if following.kind == "WORD" and following.lower in LETTER_FOLLOWERS and token.text.isupper():
        return token.text
    if following.kind == "WORD" and following.lower in SEPARATORS | HEDGE_SEPARATORS:
        return token.text.upper()
    return None


def compact_letters(token: Token) -> list[str] | None:
    """`AC` or `BD` written without separators: distinct upper-case letters A-D, two or more."""
    text = token.text
    if token.kind == "WORD" and 2 <= len(text) <= 4 and set(text) <= set(LETTERS):
        if len(set(text)) == len(text):
            return list(text)
    return None


@dataclass
class Expression:
    """The letters at the start of a segment and what follows them."""

    letters: list[str]
    end: int  # index of the first token after the expression
    dangling: bool  # ended on a separator ("A, not B")
    problem: str = ""  # non-empty: the expression is ambiguous
    none: bool = False  # "none of the above"


def read_expression(tokens: list[Token], start: int = 0, fillers: bool = True) -> Expression:
    """Letters joined by separators from `start`, e.g. `C`, `A & B`, `C) <name>`, `A, C and D`.

    A letter and a name for the same option ("C. Schizophrenia") count once; letters next
    to the names of other options, or an `or` between options, are ambiguous.
    """
    letters: list[str] = []
    index, dangling = start, False
    count = len(tokens)
    while index < count:
        skippable = FILLERS if fillers else OPENERS
        while index < count and tokens[index].lower in skippable:
            if letter_of(tokens, index):
                break
            index += 1
        if index >= count:
            break
        token = tokens[index]
        if not letters and token.kind == "WORD" and token.lower in NONE_WORDS | {"all"}:
            after = index + 1
            while after < count and tokens[after].lower in SET_PHRASE_WORDS:
                after += 1
            if token.lower != "all":
                return Expression([], after, False, none=True)
            if after > index + 1 and after < count and letter_of(tokens, after):
                index = after  # "all of B, C": those letters, not every option
                continue
            if after > index + 1:
                return Expression(list(LETTERS), after, False)
        if token.kind == "WORD" and token.lower in HEDGE_SEPARATORS:
            return Expression(letters, index, False, problem=f"hedged with '{token.text}'")
        compact = compact_letters(token)
        letter = letter_of(tokens, index)
        if compact and not letter:
            nxt = tokens[index + 1] if index + 1 < count else None
            if nxt is None or nxt.kind == "PUNCT":
                letters.extend(compact)
                index += 1
                dangling = False
                continue
        if letter is None:
            break
        # a name joins its letter ("A. <name>, B. <name>") unless bare letters came first: then
        # the names are a restatement of the whole set ("A & C. <name> & <name>")
        attach = not letters or any(t.kind == "NAME" for t in tokens[start:index])
        cluster, index = read_cluster(tokens, index, attach)
        if len(set(cluster)) > 1:
            return Expression(letters, index, False, problem=f"options {cluster} run together")
        letters.append(cluster[0])
        dangling = False
        index = past_remark(tokens, index)
        if index < count and tokens[index].lower in HEDGE_SEPARATORS:
            return Expression(letters, index, False, problem=f"hedged with '{tokens[index].text}'")
        if index < count and comorbid_at(tokens, index):
            index = comorbid_at(tokens, index)
            dangling = True
            continue
        if index < count and tokens[index].lower in SEPARATORS:
            index += 1
            dangling = True
            while index < count and tokens[index].lower in SEPARATORS:
                index += 1
            continue
        break
    if letters and not any(t.kind == "NAME" for t in tokens[start:index]):
        return restated(tokens, Expression(letters, index, dangling))
    return Expression(letters, index, dangling and bool(letters))


def past_remark(tokens: list[Token], index: int) -> int:
    """The index after a bracketed remark that names no option ("A (contamination obsessions)
    plus D"), when a separator follows it; else `index`."""
    if index >= len(tokens) or tokens[index].text not in ("(", "["):
        return index
    for end in range(index + 1, min(index + 40, len(tokens))):
        if tokens[end].text in (")", "]"):
            inside = range(index + 1, end)
            if any(letter_of(tokens, i) or tokens[i].text == "?" for i in inside):
                return index
            after = end + 1
            if after < len(tokens) and (
                tokens[after].lower in SEPARATORS | HEDGE_SEPARATORS or comorbid_at(tokens, after)
            ):
                return after
            return index
    return index


def comorbid_at(tokens: list[Token], index: int) -> int:
    """The index after "with comorbid" / "with co-occurring" / "comorbid with" at `index`
    (a second option joined to the first), else 0. "with" alone joins nothing."""
    words = [t.lower for t in tokens[index : index + 4]]
    for phrase in (["with", "comorbid"], ["with", "co", "-", "occurring"], ["comorbid", "with"],
                   ["and", "comorbid"], ["plus", "comorbid"], ["with", "coexisting"]):  # fmt: skip
        if words[: len(phrase)] == phrase:
            return index + len(phrase)
    return 0


def restated(tokens: list[Token], bare: Expression) -> Expression:
    """Bare letters followed by option names (`A & C. <name> & <name>`, `C (<name>)`): the
    names must name the same options, else the reply contradicts itself."""
    probe = bare.end
    while probe < len(tokens) and tokens[probe].text in CLUSTER_GLUE:
        probe += 1
    if probe >= len(tokens) or tokens[probe].kind != "NAME":
        return bare
    names = read_expression(tokens, probe, fillers=False)
    if names.problem:
        return names
    if set(names.letters) != set(bare.letters):
        problem = f"letters {sorted(set(bare.letters))} but names of {sorted(set(names.letters))}"
        return Expression(bare.letters, names.end, False, problem=problem)
    return Expression(bare.letters, names.end, names.dangling)


def read_cluster(tokens: list[Token], index: int, attach: bool = True) -> tuple[list[str], int]:
    """One option written as a letter and/or its name, e.g. `C`, `(C)`, `C) <name>`, `<name> (C)`.

    Returns the letters the cluster names (two different ones mean a contradiction) and the
    index after it, past any closing bracket. `attach=False` keeps a letter's name out.
    """
    count = len(tokens)
    first = tokens[index]
    found = [letter_of(tokens, index) or ""]
    has_name, has_letter = first.kind == "NAME", first.kind != "NAME"
    index += 1
    while index < count:
        probe = index
        while probe < count and tokens[probe].text in CLUSTER_GLUE:
            probe += 1
        if probe >= count:
            break
        glue = {t.text for t in tokens[index:probe]}
        candidate = tokens[probe]
        if candidate.kind == "NAME" and attach and not has_name and candidate.text == found[0]:
            found.append(candidate.text)
            has_name, index = True, probe + 1
            continue
        letter = letter_of(tokens, probe)
        bracketed = glue & {"(", "["}
        closes = probe + 1 >= count or tokens[probe + 1].text in (")", "]")
        if bracketed and not closes:
            letter = None  # "<name> (A, B)": a list restating the set, not this option's letter
        if letter and candidate.kind == "WORD" and not has_letter and glue & {"(", "[", ":", "-"}:
            found.append(letter)
            has_letter, index = True, probe + 1
            continue
        break
    while index < count and tokens[index].text in (")", "]"):
        index += 1
    return found, index
