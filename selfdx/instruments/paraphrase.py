"""Everyday figures of speech a doctor uses, said in the plain words a question reader knows.

"Have you cut yourself off from your friends?" asks about withdrawing from people, "dead on your
feet" about tiredness, "dying to get back to it" about looking forward to things. Each idiom is
followed by a plain paraphrase (its own words stay) before a clause is matched against a
profile's topics (risk is read separately, and treats the same idioms as no risk:
`risk_questions.NOT_RISK`).
"""

from __future__ import annotations

import re
from functools import lru_cache

IDIOMS: tuple[tuple[str, str], ...] = (
    (r"cut(?:s|ting)? (?:yourself |you |themselves )?off from|cut off from",
     "isolated, asocial, withdraw from people,"),
    (r"burn(?:s|t|ed|ing)? (?:yourself )?out|running on empty|dead on your feet|shattered"
     r"|wiped out|worn out|knackered|drained|no gas in the tank|dead tired",
     "tired, fatigued, little energy"),
    (r"sleep(?:ing)? like the dead|out like a light", "sleep"),
    # rising early on purpose ("wake up early to fit the cleaning in") is no early waking
    (r"(?:wake|wakes|waking|woke) (?:up )?early(?= (?:to|so|in order)\b)", "rise"),
    (r"dying to|itching to|can't wait to", "look forward to enjoy"),
    (r"(?:is|are|was|were|been|'s|'re) (?:\w+ )?killing you", "wearing you down"),
    (r"down in the dumps|feeling blue|out of sorts|fed up", "low mood"),
    (r"(?:lose|losing|lost) your temper|snappy|snappier|short[- ]fused|fly off the handle",
     "irritable"),
    (r"sidetracked|side-tracked|mind wander\w*",
     "distracted attention"),
)  # fmt: skip
_COMPILED = tuple((re.compile(rf"\b(?:{p})\b", re.IGNORECASE), plain) for p, plain in IDIOMS)


@lru_cache(maxsize=65536)
def plain_words(clause: str) -> str:
    """`clause` with each idiom of `IDIOMS` followed by its plain paraphrase."""
    for pattern, plain in _COMPILED:
        clause = pattern.sub(plain, clause)
    return clause
