"""Options labelled by role or range, or set aside: ranges written out ("A-C", `with_ranges`),
roles read ("Primary: A", "Comorbid: C", "Differential: D"; `roles`, `with_roles`), a heading
joined to the list it labels (`labelled_lists`), and the labels and sentences that set options
aside or keep them open (`SET_ASIDE_LABEL`, `SET_ASIDE_SENTENCE`, `DIFFERENTIAL_LABEL`)."""

from __future__ import annotations

import re

from selfdx.instruments.answers.answer_segment import read_segment
from selfdx.instruments.answers.letter_grammar import read_expression
from selfdx.instruments.answers.letter_tokens import tokenize
from selfdx.instruments.answers.parsed import ParsedAnswer, unparsed
from selfdx.instruments.answers.strict_readings import LIST_NUMBER, mentions

# A label that sets options aside ("Least likely: B", "Ruled out: A, B, D", "Worst fit: D"):
# what it names is no answer, so the label and its options go.
SET_ASIDE = (
    r"(?:least\s+(?:likely|probable|consistent|appropriate|fitting)|worst(?:\s+fit(?:ting)?)?"
    r"|poorest\s+fit|wrong|incorrect|unlikely|inconsistent|non-?\s?applicable|inapplicable"
    r"|not\s+(?:consistent|supported|applicable"
    r"|fitting|selected|chosen|met)|(?:considered\s+(?:and|but|&)\s+)?(?:ruled\s+out"
    r"|excluded|rejected|eliminated|dismissed|discarded)|distractors?|decoys?|red\s+herrings?)"
)
SET_ASIDE_LABEL = re.compile(
    r"(?:^|(?<=[.;:,]\s))[ \t]*" + SET_ASIDE + r"(?:\s+(?:options?|diagnos[ie]s|answers?"
    r"|choices?|conditions?|disorders?))?[ \t]*(?::|-|–|—)[^\n.;]*",
    re.IGNORECASE | re.MULTILINE,
)
# A sentence that sets options aside: "B is the least likely diagnosis", "D is the worst fit",
# "B would be the wrong answer".
OPTION = r"(?:\b[A-D]\b|\ue000[A-D]\ue001)"
SET_ASIDE_SENTENCE = re.compile(
    OPTION + r"(?:\s*(?:,|and|&|or)\s*" + OPTION + r")*\s+(?:is|are|would\s+be|seems?|was)"
    r"\s+(?:(?:just|only|merely|simply)\s+)?(?:the\s+|a\s+)?(?:least\s+(?:likely|probable"
    r"|consistent|appropriate|fitting)|worst|poorest|wrong|incorrect|distractors?|decoys?"
    r"|red\s+herrings?)\b[^\n.;]*",
    re.IGNORECASE,
)
# Options kept open: "Differential", "Rule out", "Also possible", "Other possibilities".
KEPT_OPEN = (
    r"(?:differentials?|rule\s+out|(?:also\s+)?possible|other\s+possibilit(?:y|ies)|alternatives?"
    # a member held back from the set: "To be confirmed: D", "Pending: C", "Provisional: B"
    r"|(?:still\s+)?to\s+be\s+confirmed|pending|provisional|tentative|unconfirmed)"
)
# A heading whose next line it labels ("### Differential" then "A"; "Least likely:" then "B").
LABEL_HEADING = re.compile(
    r"^[ \t]*(?:#+[ \t]*)?((?:" + KEPT_OPEN + r"|" + SET_ASIDE + r")(?:\s+(?:options?|diagnos[ie]s"
    r"|answers?|choices?))?)[ \t]*:?[ \t]*\n+",
    re.IGNORECASE | re.MULTILINE,
)
# Options kept open, written as a label ("Differential: A", "Rule out: A"): no answer.
DIFFERENTIAL_LABEL = re.compile(
    r"(?:^|(?<=[.;:,]\s))[ \t]*" + KEPT_OPEN + r"(?:\s+(?:diagnos[ie]s|options?))?"
    r"[ \t]*(?::|-|–|—)[^\n.;]*",
    re.IGNORECASE | re.MULTILINE,
)


# A range of options: "A-C", "B to D" (every option from the first to the last).
RANGE = re.compile(r"(?<![\w-])([A-H])\s*(?:-|–|—|\bto\b|\bthrough\b|\bthru\b)\s*([A-H])(?![\w-])")
# The role an option is given on its own label: primary, secondary or comorbid (the answer),
# differential (kept open).
ROLES = (
    r"primary|main|principal|confirmed|secondary|comorbid|co-?occurring|additional|differential"
    r"|also\s+possible|other\s+possibilit(?:y|ies)|alternatives?"
    r"|(?:still\s+)?to\s+be\s+confirmed|pending|provisional|tentative|unconfirmed"
)
ROLE = re.compile(
    rf"(?:^|(?<=[.;:,]\s))\W*({ROLES})(?:\s+(?:diagnos[ie]s|disorders?|conditions?))?"
    r"(?:[ \t]*\([^()\n]*\))?[ \t]*"
    rf"(?::|-|–|—)[ \t]*(.+?)(?=\.\s|;|\n|$|,\s*(?:{ROLES})\b)",
    re.IGNORECASE | re.MULTILINE,
)
ADDED_ROLES = {"secondary", "comorbid", "cooccurring", "co-occurring", "additional"}


def with_ranges(text: str) -> str:
    """`text` with each range of options written out ("A-C" as "A, B, C")."""

    def spelled(match: re.Match[str]) -> str:
        first, last = match.group(1).upper(), match.group(2).upper()
        if last <= first:
            return match.group(0)
        return ", ".join(chr(c) for c in range(ord(first), ord(last) + 1))

    return RANGE.sub(spelled, text)


def roles(text: str) -> tuple[set[str], set[str], set[str]]:
    """The options labelled primary, added (secondary, comorbid) and differential; an added
    role held open ("Secondary: unclear (D vs B)") puts its options among the differential."""
    found: dict[str, set[str]] = {"primary": set(), "added": set(), "differential": set()}
    for match in ROLE.finditer(text):
        reading = read_segment(match.group(2), need_label=False)
        kept_open = re.fullmatch(KEPT_OPEN, match.group(1), re.IGNORECASE) is not None
        if kept_open and match.group(1).lower() != "differential":
            found["differential"] |= mentions(tokenize(match.group(2)))  # "Also possible: - A"
            continue
        if not kept_open and OPEN_ROLE.search(match.group(2)):
            found["differential"] |= mentions(tokenize(match.group(2))) or {"?"}
            continue
        if reading.kind != "letters" or reading.letters is None:
            continue
        role = match.group(1).lower()
        kind = "differential" if kept_open else "added"
        kind = "primary" if role in ("primary", "main", "principal", "confirmed") else kind
        found[kind] |= reading.letters
    return found["primary"], found["added"], found["differential"]


# A role's value that holds it open: "Secondary: unclear (D vs B)", "Comorbid: ?".
OPEN_ROLE = re.compile(
    r"\b(?:unclear|uncertain|undetermined|unknown|possible|possibly|maybe|vs|versus|or|tbd)\b"
    r"|\?",
    re.IGNORECASE,
)


def with_roles(settled: ParsedAnswer, text: str) -> ParsedAnswer:
    """An answer joined by the options labelled secondary or comorbid after it ("Answer: A
    (primary)" then "Comorbid: C"); one with another option labelled differential is a hedge."""
    if not settled.letters:
        return settled
    _, added, differential = roles(text)
    if differential - settled.letters:
        return unparsed("ambiguous", "another option labelled as a differential")
    if added - settled.letters:
        return ParsedAnswer(settled.letters | added, "answered", settled.reason)
    return settled


def opens_with_option(line: str) -> bool:
    return bool(read_expression(tokenize(LIST_NUMBER.sub("", line.strip())), fillers=False).letters)


def labelled_lists(body: str) -> str:
    """`body` with each heading that labels the lines under it ("### Differential", "Least
    likely:") joined to them: its first line, and every line after that opens with an option
    ("Differential:" then "1. D" and "2. B" is "Differential: D, B")."""
    while match := LABEL_HEADING.search(body):
        rest = body[match.end() :].split("\n")
        taken = 1
        while taken < len(rest) and rest[taken].strip() and opens_with_option(rest[taken]):
            taken += 1
        if not opens_with_option(rest[0]):
            taken = 1
        items = ", ".join(LIST_NUMBER.sub("", line.strip()) for line in rest[:taken])
        body = body[: match.start()] + f"{match.group(1)}: {items}\n" + "\n".join(rest[taken:])
    return body
