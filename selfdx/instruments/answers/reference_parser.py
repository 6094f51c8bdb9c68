"""The released MentalBench extraction, quirks included, for comparison with published numbers.

It upper-cases the reply, drops one leading `ANSWER:`-like prefix and takes the first run of
A-D letters anywhere in the text: the `and` separator can never match, and a verbose reply is
read as its first A-D character.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from selfdx.instruments.answers.parsed import ParsedAnswer, Status, unparsed

REFERENCE_PREFIX = re.compile(r"^(?:ANSWER|OUTPUT|SELECTION|THE ANSWER IS)[:\s-]*")
# The released pattern lists a lower-case `and` although the text is upper-cased first, so that
# separator can never match; kept as is on purpose.
REFERENCE_LETTER_RUN = re.compile(r"[A-D](?:\s*(?:,|&|and)\s*[A-D])*")


def parse_reference(text: object, options: Sequence[str] = ()) -> ParsedAnswer:
    """The released extraction: strip, upper-case, drop one leading prefix, first letter run."""
    if not isinstance(text, str):
        return unparsed("empty", "no text")
    upper = text.strip().upper()
    upper = REFERENCE_PREFIX.sub("", upper.strip(), count=1)
    match = REFERENCE_LETTER_RUN.search(upper)
    if not match:
        status: Status = "empty" if not upper else "unparsed"
        return unparsed(status, "no letter A-D in the reply")
    letters = frozenset(re.findall(r"[A-D]", match.group(0)))
    return ParsedAnswer(letters, "answered", f"first letter run {match.group(0)!r}")


def reference_gold(answer: str) -> frozenset[str]:
    """The released gold extraction: the A-D words before the first `.` or `)`."""
    prefix = re.split(r"[.)]", answer.upper().strip(), maxsplit=1)[0]
    return frozenset(re.findall(r"\b[A-D]\b", prefix))
