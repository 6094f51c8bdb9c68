"""Whether a code and the disorder named beside it agree: "Generalized anxiety disorder (F41.0)"
names one disorder and codes another (F41.0 is panic disorder), so the reply commits to neither,
and no code is read from it. Only common names are known here, each with the ICD-10 codes (WHO,
and the ICD-10-CM extensions) it may carry; a name not listed, or a line with no name, is no
disagreement.
"""

from __future__ import annotations

import re

from selfdx.datasets.icd10 import CODE_IN_TEXT as CODE
from selfdx.datasets.icd10 import normalize_code

# A disorder's name, and the code prefixes it may be written with.
NAMES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), prefixes)
    for pattern, prefixes in (
        (r"generali[sz]ed\s+anxiety|(?-i:\bGAD\b)(?![\s-]*\d)", ("F41.1",)),
        (r"\bpanic\s+disorder", ("F41.0", "F40.01")),
        (r"post[\s-]*traumatic\s+stress|(?-i:\bPTSD\b)", ("F43.1",)),
        (r"\bacute\s+stress\s+(?:reaction|disorder)", ("F43.0",)),
        (r"\badjustment\s+disorder", ("F43.2",)),
        (r"obsessive[\s-]*compulsive\s+disorder|(?-i:\bOCD\b)", ("F42",)),
        (r"\bsocial\s+(?:phobia|anxiety\s+disorder)", ("F40.1",)),
        (r"\bagoraphobia", ("F40.0",)),
        (r"\bspecific\s+(?:\(isolated\)\s+)?phobia", ("F40.2",)),
        (r"\banorexia\s+nervosa", ("F50.0", "F50.1")),
        (r"\bbulimia\s+nervosa", ("F50.2", "F50.3")),
        (r"\bbinge[\s-]*eating\s+disorder", ("F50",)),
        (r"\bschizoaffective", ("F25",)),
        (
            r"(?<!symptoms\sof\s)(?<!organic\s)\bschizophrenia\b(?![\s-]*like)",
            ("F20",),
        ),
        (r"\bbipolar\s+(?:affective\s+)?disorder", ("F31",)),
        # a recurrent depressive disorder is F33 (ICD-10-CM: major depressive disorder,
        # recurrent), never a single episode's F32
        (r"\brecurrent\s+(?:major\s+)?depressi|\bdepressive\s+disorder,?\s+recurrent", ("F33",)),
        (r"\bcyclothymi", ("F34.0",)),
        (r"\bdysthymi", ("F34.1",)),
        (r"(?<!organic\s)\bdelusional\s+disorder", ("F22",)),
        (r"attention[\s-]*deficit|(?-i:\bADHD\b)|hyperkinetic\s+disorder", ("F90",)),
        (r"\bbody\s+dysmorphic", ("F45.2",)),
    )
)


# Where the words that name a code end: another code, a sentence or clause end, a line.
BOUNDARY = re.compile(
    r"\b[A-Z]\d{2}(?:\.[0-9A-Z]+)?[†*]?\)?|[.;:\n]\s|\n|\brather\s+than\b|\bnot\b"
)


# What may stand before a code that leads its name ("DIAGNOSE: F41.0 Panic disorder").
LEADS = re.compile(r"(?i)\b(?:diagnose|diagnosis|final|primary|code|icd-?10|dx)\b|[:*#_]")


def named_beside(text: str, start: int, end: int) -> list[tuple[str, ...]]:
    """The codes allowed by the names written next to the code at `start:end`: in the words
    before it back to the last boundary, or else in those after it up to the next."""
    before = [m.end() for m in BOUNDARY.finditer(text, 0, start)]
    words = text[before[-1] if before else 0 : start]
    allowed = [prefixes for pattern, prefixes in NAMES if pattern.search(words)]
    if allowed or LEADS.sub("", words).strip(" \t([{*_-–—,"):
        return allowed  # (words of their own before the code: the code is theirs)
    after = BOUNDARY.search(text, end)
    words = text[end : after.start() if after else len(text)]
    return [prefixes for pattern, prefixes in NAMES if pattern.search(words)]


def name_disagrees(reply: str, code: str) -> bool:
    """Whether the disorder named next to the first mention of `code` in `reply` is a known one
    that may not carry that code."""
    if not code.startswith("F"):
        return False
    for match in CODE.finditer(reply):
        if normalize_code(match.group(1)) != code:
            continue
        allowed = named_beside(reply, match.start(), match.end())
        return bool(allowed) and not any(
            code.startswith(p) for prefixes in allowed for p in prefixes
        )
    return False
