"""What a reply withdraws or sets aside before its codes are read: a code a revision withdraws
(`revised`), a past or family diagnosis (`history_set_aside`), comparisons written in other
words (`comparisons_plain`) and the items of a list under a heading that keeps it open
(`listed_under_open_heading`).

A revision withdraws the code before it, wherever it stands: an arrow ("F32.1 -> F33.1", "F32.1
→ F33.1"), a correction that opens a clause ("F32.1, actually F33.1", "F32.1, no wait, F33.1",
"F32.1. Correction: F33.1", "Edit: F33.1", "Update: F33.1", "Upon reflection, F33.1") or a verb
of change ("F32.1 (revised to F33.1)", "changed to"), so each of these is F33.1, unless the new
code is itself set aside or kept open. A bare dash is no arrow: "F20-F29" is a range, which
names no code.

A past or family diagnosis is history, not the diagnosis: the code after "History of", "Family
history of", "Previously diagnosed with" (up to a clause's end or a word that turns to the
present, "now", "current") is left out, so "History of F10.2 (in remission). Current: F32.1." is
F32.1 and "Diagnosis: F43.1. Family history of F31.1." stays F43.1.
"""

from __future__ import annotations

import re

from selfdx.instruments.answers.code_clauses import ASIDE, CLAUSE, CODE, OPEN, REVISION

# A past or family diagnosis is history, not the diagnosis: "History of F10.2 (in remission)",
# "Family history of F31.1", "Previously diagnosed with F20.0". The words between the phrase and
# its code stop at a clause's end and at a word that turns to the present ("now", "current").
HISTORY = re.compile(
    r"\b(?:(?:family|past|prior|previous|psychiatric)\s+)?(?:history|hx)(?:\s+of|\s+with|\s*[:：])?"
    r"|\b(?:previously|formerly|once|earlier)\s+diagnosed(?:\s+with|\s+as)?"
    r"|\b(?:prior|previous|past|earlier)\s+diagnos[ie]s(?:\s+of|\s*[:：])?",
    re.IGNORECASE,
)
HISTORY_CODE = re.compile(
    r"(?:(?!\b(?:now|current\w*|presents?|presenting|but|so|hence|therefore|meets?|fits?"
    r"|diagnos[ie]s|supports?|shows?|indicates?|points?|suggests?)\b)[^.;,\n])*?"
    r"\b[A-Z]\d{2}(?:\.[0-9A-Z]+)?\b",
    re.IGNORECASE,
)


# Comparisons in other words, read as "more likely than" and "less likely than": "F43.1 is a
# better fit than F43.2", "F43.2 fits less well than F43.1", "F43.2 is less probable than F43.1".
_GRADES = r"(?:probable|consistent|plausible|fitting|supported|appropriate|compatible)"
RANKED_ABOVE = re.compile(
    rf"\b(?:more\s+{_GRADES}|(?:an?\s+)?(?:better|stronger|closer)(?:\s+(?:fit|match"
    r"|explanation))?|fits\s+better|likelier)\s+than\b",
    re.IGNORECASE,
)
RANKED_BELOW = re.compile(
    rf"\b(?:less\s+{_GRADES}|(?:an?\s+)?(?:poorer|worse|weaker)(?:\s+(?:fit|match"
    r"|explanation))?|fits\s+less\s+well|less\s+well)\s+than\b",
    re.IGNORECASE,
)


def comparisons_plain(reply: str) -> str:
    """`reply` with its comparisons written as `ASIDE` and `CLAUSE` read them."""
    return RANKED_BELOW.sub("less likely than", RANKED_ABOVE.sub("more likely than", reply))


# A revision stated in words, which may stand further from the new code than `REVISION`: "this
# is better coded as", "should read", "Actually, ... changes this:".
# A condition still to be met, before a recoding: "If earlier episodes are confirmed at follow-up
# this would be recoded as ...".
IF_LATER = re.compile(r"(?:^|[\n.;:!])\s*(?:if|should|once|when)\b", re.IGNORECASE)
RECODED = re.compile(
    r"\b(?:(?:better|more\s+accurately|more\s+correctly|properly)\s+(?:coded|classified|described)"
    r"|(?:should|would)\s+(?:be\s+)?(?:re)?(?:coded|classified|read)|re-?cod(?:ed|ing)"
    r"|reclassif\w+|changes\s+(?:this|that|the\s+diagnosis)|this\s+changes)\b"
    r"|(?:^|[\n.;:!)—–-])\s*(?:actually|correction|on\s+(?:second\s+thought|reflection))\b",
    re.IGNORECASE,
)


HELD_OPEN = ""  # what `revised` gives for a revision that only holds another code open


def revised(reply: str) -> str:
    """`reply` without each code that a revision withdraws ("F32.1, actually F33.1", "F32.1 ->
    F33.1", "F32.1 (revised to F33.1)"): the withdrawn code and the words up to the revision go.
    A revision whose new code is set aside ("F32.1, actually F33.1 was considered") withdraws
    nothing; one that keeps the new code open beside the old leaves no code (`HELD_OPEN`)."""
    found = list(CODE.finditer(reply))
    cuts: list[tuple[int, int]] = []
    for old, new in zip(found, found[1:], strict=False):
        between = reply[old.end() : new.start()]
        marker = REVISION.search(between) if len(between) <= 80 else None
        if marker is None and len(between) <= 300:
            marker = RECODED.search(between)  # "... this is better coded as ... (F33.1)"
            if marker and IF_LATER.search(between[: marker.start()]):
                continue  # "If earlier episodes are confirmed, this would be recoded as F33.1"
        if marker is None:
            continue
        ends = CLAUSE.search(reply, new.end())
        rest = reply[old.end() + marker.end() : ends.start() if ends else len(reply)]
        if OPEN.search(rest) and not ASIDE.search(rest):
            return HELD_OPEN  # "F32.1. Actually ... F34.1 is just as plausible": a hedge
        if ASIDE.search(rest) or OPEN.search(rest):
            continue
        cuts.append((old.start(), old.end() + marker.end()))
    for start, end in reversed(cuts):
        reply = f"{reply[:start]} {reply[end:]}"
    return reply


def history_set_aside(reply: str) -> str:
    """`reply` without the codes of a past or family diagnosis (`HISTORY`)."""
    out, pos = [], 0
    for match in HISTORY.finditer(reply):
        if match.start() < pos:
            continue
        code = HISTORY_CODE.match(reply, match.end())
        if code is None:
            continue
        last = list(CODE.finditer(code.group(0)))[-1]
        out.append(reply[pos : code.start() + last.start()])
        pos = code.end()
    return "".join(out) + reply[pos:]


# A heading that keeps the list under it open or sets it aside ("Differential (no single
# diagnosis yet):", "Ruled out:"), and a list item under it.
OPEN_HEADING = re.compile(
    r"^[\s#*_>]*(?:[\w-]+\s+){0,3}?(?:differentials?|ddx|rule[\s-]?outs?|ruled\s+out|considered"
    r"|excluded|possibilities|alternatives)\b[^\n:]*:[\s*_]*$",
    re.IGNORECASE,
)
CHOSEN_ITEM = re.compile(
    r"\b(?:selected|chosen|primary|principal|final|working)\s+diagnosis\b", re.IGNORECASE
)
LIST_ITEM = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+")


def listed_under_open_heading(reply: str) -> str:
    """`reply` with each list item under a heading that keeps it open marked as a differential
    ("Differential:" then "- F32.2 ..." and "- F31.4 ..."), since `CLAUSE` reads a line alone."""
    lines = reply.split("\n")
    under = False
    for number, line in enumerate(lines):
        if OPEN_HEADING.match(line):
            under = True
        elif under and LIST_ITEM.match(line):  # after the list mark: "1." ends a clause
            if not CHOSEN_ITEM.search(line):  # "2. ... (F00.1*) - **selected diagnosis**"
                lines[number] = LIST_ITEM.sub(lambda m: m.group(0) + "differential ", line, count=1)
        elif line.strip():
            under = False
    return "\n".join(lines)
