"""Marks in a lettered reply that the strict parser settles before it reads the answer: the
prompt's own words copied back, a cut-off label, lines that go on, a new item the model invents,
options echoed by letter and name, a note's "A&P:" heading, a letter whose specifier names
another option."""

from __future__ import annotations

import re
from collections.abc import Sequence

from selfdx.datasets.mentalbench.schema import LETTERS

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


# The prompt's example copied into the reply ("Example of a reply: A."): no answer of the model.
EXAMPLE_ECHO = re.compile(
    r"(?im)^[^\w\n]*example\s+of\s+a\s+reply(?:\s+with\s+(?:one|several)\s+options?)?[ \t]*:[^\n]*$"
    # the prompt's instruction copied back: "Choose exactly one option from A, B, C, D."
    r"|\b(?:choose\s+exactly\s+one\s+option|select\s+every\s+option\s+that\s+applies)"
    r",?\s+from\s+[A-H](?:\s*(?:,|or|and)\s*[A-H])*\.?"
)
# A reply cut off after an option's label ("... let's consider each in turn.\n\nA:").
UNFINISHED_LABEL = re.compile(r"(?:^|\n)[ \t*_#]*[A-H][ \t]*:[ \t*_]*\Z")
# A line that ends with a joining mark goes on on the next: "A &\nC".
LINE_JOIN = re.compile(r"(&|\+|,|\band)[ \t]*\n[ \t]*(?=\S)", re.IGNORECASE)
# Two lines that are each a whole set of options and differ ("B & D" then "B & C"): two answers.
SET_LINE = re.compile(r"^[ \t*_]*[A-H](?:[ \t]*(?:&|,|\+|\band\b)[ \t]*[A-H])+[ \t*_.]*$", re.M)
MIDDLE_DOT = re.compile(r"[・･]")  # "A・C": a list mark in Japanese text
# A new item the model goes on to invent after its answer ("Question 2: ...", "### Instruction",
# "User:"): not part of the reply.
NEW_ITEM = re.compile(
    r"^[ \t]*(?:#+[ \t]*)?(?:(?:question|case|vignette|item|Q)[ \t]*\d+[ \t]*[:.)]"
    r"|(?:instruction|input|human|user)[ \t]*:|#+[ \t]*(?:instruction|input|question)\b)",
    re.IGNORECASE | re.MULTILINE,
)


def without_new_item(body: str) -> str:
    """`body` up to a new item the model invented after its answer, where an answer came first."""
    found = NEW_ITEM.search(body)
    return body[: found.start()] if found and re.search(r"\w", body[: found.start()]) else body


PAIRS_ON_A_LINE = re.compile(r"(?:\b[A-H][.):]?[ \t]*\ue000[A-H]\ue001[ \t,;]*){2,}")
PAIR = re.compile(r"\b([A-H])[.):]?[ \t]*\ue000\1\ue001")


def listed_pairs(match: re.Match[str], options: int) -> str:
    """Options given by letter and name one after another on a line: every option in order is
    the list echoed, no pick ("A. <name> B. <name> C. <name> D. <name>"); fewer are a set
    ("DIAGNOSIS: A. <name> B. <name>" names both)."""
    letters = [m.group(1) for m in PAIR.finditer(match.group(0))]
    if len(letters) != len(PAIR.findall(match.group(0))) or len(letters) < 2:
        return match.group(0)
    if len(letters) >= options:
        return " "
    return " " + " & ".join(letters) + " "


# "A&P:", "A/P:" (assessment and plan, a heading of clinical notes): no option A
NOTE_HEADING = re.compile(r"(?m)^[ \t#*]*A[ \t]*[&/][ \t]*P\b[ \t*]*:?", re.IGNORECASE)
