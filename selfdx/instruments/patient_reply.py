"""Reading a simulated patient's reply: the ids on its REVEALED line and the diagnosis names it
says (what its words say about the thing asked: `selfdx.instruments.reply_stance`).

- `split_revealed`: the `REVEALED: <ids>` list (anywhere in a line, "Revealed ids:" too) is cut
  from what the interviewer sees and its ids kept; `resolve_ids` matches them to the profile's
  facts without regard to case.
- `withhold_names`: diagnosis names the patient says are replaced by `WITHHELD` (unless a fact
  of its own profile says them).
"""

from __future__ import annotations

import re
from functools import lru_cache

from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.mentalkg.diagnosis_names import NameMention, find_diagnosis_names

# "REVEALED: S024, DURATION" anywhere in a line ("... sleep. REVEALED: S027", "Revealed ids:")
REVEALED = re.compile(
    r"[*_]*\bREVEALED(?:\s+(?:ids?|facts?|items?))?[*_]*\s*:[*_]*\s*(.*)$",
    re.IGNORECASE | re.MULTILINE,
)
FACT_ID = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*")
NOT_IDS = frozenset({"none", "and", "nothing", "n"})
WITHHELD = "[diagnosis name withheld]"
ID_IN_TEXT = re.compile(
    r"\b(S\d{3}|REQ-\d+|DURATION|IMPAIRMENT|STRESSOR|RISK-[A-Z]+|NO-[A-Z0-9-]+)\b"
)


def split_revealed(raw: str) -> tuple[str, list[str], bool]:
    """(the reply without its REVEALED lists, the ids they give, whether there was one).

    The list may start mid-line and may say "Revealed ids:"; everything from it to the end
    of its line is cut from what the interviewer sees."""
    ids: list[str] = []
    found = False
    for match in REVEALED.finditer(raw):
        found = True
        ids += [i for i in FACT_ID.findall(match.group(1)) if i.lower() not in NOT_IDS]
    text = REVEALED.sub("", raw).strip()
    return text, list(dict.fromkeys(ids)), found


def resolve_ids(ids: list[str], known: dict[str, str]) -> tuple[list[str], list[str]]:
    """(the ids that name a fact of the profile, in its spelling; the others), matched without
    regard to case (`s027` is `S027`)."""
    found = [known.get(i.lower()) for i in ids]
    return (
        list(dict.fromkeys(f for f in found if f)),
        [i for i, f in zip(ids, found, strict=True) if not f],
    )


@lru_cache(maxsize=8192)
def names_in(text: str) -> tuple[NameMention, ...]:
    return tuple(find_diagnosis_names(text, codes=True))


def withhold_names(
    text: str, case: InterviewCase, allowed: set[str] | None = None
) -> tuple[str, list[str]]:
    """Replace diagnosis names the patient said (unless a fact of the case says them too;
    `allowed`, those names in lower case, may be passed when already known)."""
    if allowed is None:
        allowed = allowed_names(case)
    said = [m for m in names_in(text) if m.text.lower() not in allowed]
    for mention in sorted(said, key=lambda m: m.start, reverse=True):
        text = text[: mention.start] + WITHHELD + text[mention.start + len(mention.text) :]
    return text, [m.text for m in said]


def allowed_names(case: InterviewCase) -> set[str]:
    return {m.text.lower() for f in case.facts for m in names_in(f.statement)}
