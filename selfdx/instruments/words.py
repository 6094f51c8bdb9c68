"""Words of a question: clauses, stems and cue phrases, as every question reader sees them.

Words are lower-cased and stemmed with the Snowball English stemmer; a question is read clause
by clause (split at `? ! ;`, line breaks and a full stop that ends a sentence, never inside
parentheses).
"""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

WORD = re.compile(r"[a-z0-9]+")
# Clause ends: ? ! ; and line breaks, and a full stop that ends a sentence (not "e.g.");
# none of them inside parentheses.
CLAUSE_END = re.compile(r"[?!;\n]|\.(?=\s+[A-Z\"']|\s*$)")
# Words that say little about what a question asks; kept short so that "only", "during",
# "before" and "down" still count.
FILLER = frozenset(
    """
    the and but for with you your yours have has had are was were been being this that these
    those there their them they what which who whom how when where why any anything all some
    can could would should will did does doing done not very much more most also just than then
    into from about over under again ever often usually really quite its it's i'm you've
    """.split()
)
GAP = 2  # other words allowed between two words of a cue phrase


@lru_cache(maxsize=1)
def stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return stemmer().stemWord(word)


@lru_cache(maxsize=65536)
def tokens(text: str) -> tuple[str, ...]:
    """Stems of every word of a text, in order."""
    return tuple(stem(w) for w in WORD.findall(text.lower().replace("’", "'")))


def says(cue: tuple[str, ...], clause: tuple[str, ...]) -> bool:
    """Whether the clause says the cue phrase: its words in order, at most `GAP` other words
    between two of them ("hear any voices" says "hear voices"; "slowed down" does not say
    "feeling down")."""
    for start, word in enumerate(clause):
        if word != cue[0]:
            continue
        at = start
        for want in cue[1:]:
            nxt = next(
                (i for i in range(at + 1, at + 2 + GAP) if i < len(clause) and clause[i] == want),
                None,
            )
            if nxt is None:
                break
            at = nxt
        else:
            return True
    return False


@lru_cache(maxsize=65536)
def content_words(text: str) -> frozenset[str]:
    """Stems of the words of a text that say what it is about (filler and one- and
    two-letter words left out)."""
    return frozenset(
        stem(w)
        for w in WORD.findall(text.lower().replace("’", "'"))
        if len(w) > 2 and w not in FILLER
    )


def clauses(question: str) -> list[str]:
    """The clauses of a question (see `CLAUSE_END`)."""
    parts, start, depth = [], 0, 0
    for index, char in enumerate(question):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and CLAUSE_END.match(question, index):
            parts.append(question[start:index])
            start = index + 1
    parts.append(question[start:])
    return [c for c in (part.strip(" .") for part in parts) if c]
