"""What the strict reader makes of one part of a reply (`Reading`), how the readings of
several parts settle into one answer (`settle`), and the helpers its readers share (`mentions`,
`joined`, `LIST_NUMBER`)."""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from selfdx.instruments.answers.letter_tokens import Token, letter_of
from selfdx.instruments.answers.parsed import ParsedAnswer, unparsed
from selfdx.instruments.answers.reply_text import NAME_END, NAME_START

ReadingKind = Literal["letters", "none", "ambiguous", "nothing"]
LIST_NUMBER = re.compile(r"^\d+[.)]\s+")


class Reading(NamedTuple):
    """What one part of a reply says: letters, none of the options, something ambiguous (with
    the reason), or nothing that answers."""

    kind: ReadingKind
    letters: frozenset[str] | None
    reason: str


def mentions(tokens: list[Token]) -> set[str]:
    return {letter for i in range(len(tokens)) if (letter := letter_of(tokens, i))}


def joined(tokens: list[Token]) -> str:
    """Tokens as text again, option names marked as `mark_option_names` marks them."""
    return " ".join(NAME_START + t.text + NAME_END if t.kind == "NAME" else t.text for t in tokens)


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
