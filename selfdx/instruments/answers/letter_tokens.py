"""The tokens of a letter answer (option names, words, numbers, marks), the word classes the
letter readers share (separators, hedges, negations, commitments), and which token stands for an
option letter (`letter_of`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from selfdx.datasets.mentalbench.schema import LETTERS
from selfdx.instruments.answers.reply_text import NAME_END, NAME_START

TOKEN = re.compile(
    NAME_START + r"[A-D]" + NAME_END + r"|[A-Za-z]+(?:'[A-Za-z]+)?|\d+(?:\.\d+)?|[^\sA-Za-z\d]"
)
# (with "and" in French, German, Spanish, Chinese and Korean: "A et C", "A und C", "A y C",
# "A 和 B")
SEPARATORS = {
    ",",
    "&",
    ";",
    "+",
    "and",
    "plus",
    "then",
    "et",
    "und",
    "y",
    "e",
    "和",
    "与",
    "及",
    "및",
}
# "A/C" offers a choice between two options, as "A or C" does; so does "A|C" ("ou", "oder").
HEDGE_SEPARATORS = {"or", "either", "vs", "versus", "/", ">", "|", "=", "≈", "ou", "oder", "o"}
TERMINATORS = {".", ":", "-", "–", "—", ")", "]", "!", "(", "["}
LETTER_FOLLOWERS = {
    "and", "or", "is", "are", "was", "would", "seems", "fits", "plus", "as", "both", "also",
    "could", "can", "might", "may", "should", "seem", "fit", "apply", "applies", "describe",
    "describes", "each", "if", "together", "with", "remains", "cannot", "can't", "instead",
    "rather", "alone", "not", "pending", "unless", "otherwise", "equally", "to", "nor", "comes",
    "come", "don't", "doesn't", "isn't", "aren't", "co", "coexisting", "comorbid", "concurrent",
    "alongside", "along", "over", "only", "it", "for", "all", "traits", "trait", "features",
    "symptoms", "too",
    "tendencies", "et", "und", "y", "ou", "oder", "e", "o",
}  # fmt: skip
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
    "closest",
    "pick",
    "choice",
    "diagnosis",
}


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
