"""Reading an interviewer's reply: a question, a final answer with its criteria claim, a
decline, or nothing usable.

A reply's first keyword line decides (`QUESTION:`, `DIAGNOSIS:`, `DECLINE:`; markdown around
the keyword is tolerated). A reply with no keyword but a question mark is a question (models
often drop the prefix). The `CRITERIA MET:` line is read as yes, no, or cannot tell ("unclear",
"I don't know", "hard to say" and the like); a line that says none of these is left unread
(None), never guessed. What the `DIAGNOSIS:` text names is read by `interview_answer`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from selfdx.datasets.mentalkg.diagnosis_names import find_diagnosis_names
from selfdx.instruments.answers.after_answer import ADDS, NOT_ADDED, RULED_OUT, SUMMARY, THAN
from selfdx.instruments.answers.disorder_terms import named_codes
from selfdx.instruments.answers.doubt import doubtful, without_struck
from selfdx.instruments.answers.letter_tokens import tokenize
from selfdx.instruments.answers.strict_readings import mentions

KEYWORD = re.compile(
    r"^\s*[*_#]*\s*(QUESTION|DIAGNOSIS|DECLINE|CRITERIA\s+MET)\s*[*_]*\s*(?::|[-–—](?=\s))"
    r"[ \t]*[*_]*[ \t]*",
    re.I | re.M,
)
# A keyword as a markdown heading, its text on the lines below ("## Diagnosis" then "B").
HEADING = re.compile(
    r"^[ \t]*#+[ \t]*(QUESTION|DIAGNOSIS|DECLINE|CRITERIA\s+MET)[ \t]*:?[ \t]*$", re.I | re.M
)
# A keyword inside a line, in capitals as the instructions spell it.
INLINE_KEYWORD = re.compile(r"(?<=\S)[ \t]*\b((?:QUESTION|DIAGNOSIS|DECLINE|CRITERIA MET)\s*:)")
# A reply written as JSON: {"DIAGNOSIS": ["A", "B"]}, {"question": "..."}
JSON_FIELD = re.compile(
    r'"(question|diagnosis|decline|criteria[ _]met)"\s*:\s*'
    r'(\[[^\]]*\]|"(?:[^"\\]|\\.)*"|true|false)',
    re.I,
)
CLAIM = re.compile(
    r"^[\s*_]*(yes|no|true|false|met|not\s+met|(?:i\s+)?(?:cannot|can'?t|can\s+not|could\s+not"
    r"|couldn'?t)\s+(?:tell|say|be\s+sure|determine|be\s+determined)|not\s+sure|unsure"
    r"|uncertain|unclear|not\s+clear|unknown|undetermined|indeterminate|(?:i\s+)?(?:don'?t|do\s+not)"
    r"\s+know|hard\s+to\s+(?:say|tell)|insufficient(?:\s+information)?)\b",
    re.IGNORECASE,
)
CLAIMS = {"yes": "yes", "true": "yes", "met": "yes", "no": "no", "false": "no", "not met": "no"}
Claim = Literal["yes", "no", "cannot tell"]


# What qualifies a yes or a no on its own line: "Yes, but I cannot be sure", "Yes for B, no for C".
QUALIFIED = re.compile(
    r"\b(?:but|though|although|however|not\s+sure|unsure|uncertain|cannot|can'?t|probably"
    r"|likely|maybe|perhaps|possibly|partially|partly|almost|mostly|largely|provisional(?:ly)?"
    r"|tentative(?:ly)?|if|unless|pending|assuming|except|yes|no)\b|\?",
    re.IGNORECASE,
)


# Claims stated in words, tried before the bare answers of `CLAIM`: "The criteria are met",
# "Not all criteria are met", "Only partially met", "No doubt", "Mostly yes".
STATED: tuple[tuple[re.Pattern[str], Claim], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), claim)
    for pattern, claim in (
        (r"^[\s*_]*(?:mostly|likely|probably|possibly|largely)\s+(?:yes|no|met|not\s+met)\b",
         "cannot tell"),
        (r"^[\s*_]*(?:definitely|absolutely|certainly)\s+not\b", "no"),
        (r"^[\s*_]*(?:no\s+doubt|definitely(?:\s+yes)?|absolutely|certainly)\b", "yes"),
        (r"^[\s*_]*(?:(?:the|all(?:\s+the)?|dsm-?5?|diagnostic)\s+)*criteria\s+(?:are\s+|were\s+"
         r"|have\s+been\s+)?not\s+(?:fully\s+)?met\b|^[\s*_]*not\s+all(?:\s+(?:the|of\s+the))?"
         r"\s+criteria|^[\s*_]*(?:only\s+)?(?:partial|partially|partly)(?:\s+met)?\b"
         r"|^[\s*_]*(?:nope|not\s+quite|not\s+fully(?:\s+met)?)\b", "no"),
        (r"^[\s*_]*(?:(?:the|all(?:\s+the)?|dsm-?5?|diagnostic)\s+)*criteria\s+(?:are\s+|were\s+"
         r"|have\s+been\s+)?(?:fully\s+|all\s+)?met\b|^[\s*_]*(?:fully|all)\s+met\b", "yes"),
    )
)  # fmt: skip


def criteria_claim(after: str) -> Claim | None:
    """The claim of a CRITERIA MET line from the text after its keyword: yes, no, cannot tell
    (a qualified yes or no too), or None where it says none of these."""
    for pattern, stated in STATED:
        if found := pattern.match(after):
            rest = after[found.end() :].partition("\n")[0]
            qualified = stated != "cannot tell" and QUALIFIED.search(rest)
            return "cannot tell" if qualified else stated
    said = CLAIM.match(after)
    if not said:
        return None
    word = " ".join(said.group(1).lower().split())
    claim: Claim = CLAIMS.get(word, "cannot tell")  # type: ignore[assignment]
    rest = after[said.end() :].partition("\n")[0]
    return "cannot tell" if claim != "cannot tell" and QUALIFIED.search(rest) else claim


@dataclass(frozen=True)
class ParsedReply:
    """An interviewer reply read as a question, an answer, a decline, or nothing usable."""

    action: str  # question, answer, decline, unparsed
    question: str | None = None
    diagnosis: str | None = None
    criteria: Claim | None = None  # the CRITERIA MET statement; None if absent or unreadable


CONTINUED = re.compile(r"^[ \t]*(?:&|\+|,|and\b|plus\b|specifiers?[ \t]*:)[ \t]*\S", re.IGNORECASE)
OPEN_END = re.compile(r"(?:&|\+|,|\band|\bplus)[ \t]*$")
MIDDLE_DOT = re.compile(r"[・･·]")  # "A・C": a list mark in Japanese text


def field_text(reply: str, start: int) -> str:
    """A keyword's text: the rest of its line; when that is empty, the lines under it (a
    bulleted list) up to a blank line or the next keyword."""
    following = KEYWORD.search(reply, start)
    end = following.start() if following else len(reply)
    head, _, below = reply[start:end].partition("\n")
    if re.search(r"\w", head):
        # a line that goes on with a joining mark continues the answer ("A\n& C"), as does the
        # line after one that ends with it ("A &\nC")
        for line in below.split("\n"):
            if not (CONTINUED.match(line) or (OPEN_END.search(head) and line.strip())):
                break
            head = f"{head} {line}"
        return " ".join(MIDDLE_DOT.sub(" & ", head).split())
    block = below.strip("\n").split("\n\n")[0]
    return " ".join(block.split())


REVISION = re.compile(
    r"\b(?:actually|on\s+(?:reflection|second\s+thought)|scratch\s+that|or\s+maybe"
    r"|(?:could|might)\s+(?:also\s+|equally\s+)?be|not\s+sure)\b|^\W*wait\b"
    # "It is B or A" (another answer kept as likely, in other words, is `doubt.doubtful`)
    r"|(?-i:\b[A-H]\s+or\s+[A-H]\b)|^\W*or\s+(?:maybe\s+|possibly\s+|perhaps\s+)?(?-i:[A-H])\b"
    r"|\b(?:edit(?:ed)?|corrections?|update[d]?|revised)(?:\s+answer)?\s*:",
    re.IGNORECASE,
)


# A condition under which the answer would be another: "Unless ..., in which case it is PTSD".
CONDITION = re.compile(r"\b(?:unless|in\s+which\s+case|if\s+so|otherwise)\b", re.IGNORECASE)


def sums_up_otherwise(line: str, answer: str) -> bool:
    """Whether a line that sums the reply up, or gives a condition, names a disorder the answer
    does not ("DIAGNOSIS: Major Depressive Disorder" then "... so this is best understood as
    persistent depressive disorder"; "Unless ..., in which case it is PTSD")."""
    if not (SUMMARY.search(line) or CONDITION.search(line)):
        return False
    named = {code for m in find_diagnosis_names(THAN.sub(" ", line)) for code in m.codes}
    given = {code for m in find_diagnosis_names(answer) for code in m.codes}
    return bool(named - given)


# A heading of options set aside, and the items of its list.
SET_ASIDE_HEADING = re.compile(
    r"^[\s#*_>]*(?:ruled\s+out|excluded|not\s+selected|rejected|set\s+aside"
    r"|(?:options|diagnoses|differentials?)\s+(?:ruled\s+out|excluded|rejected|not\s+chosen))"
    r"[^:\n]{0,30}:[\s*_]*$",
    re.IGNORECASE,
)
LIST_ITEM = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+\S")
# Another diagnosis held open on a line below the answer: "Note: B cannot be excluded; ...",
# "Major depressive disorder cannot be ruled out: ..." (a caveat on a condition, "C cannot be
# excluded if ...", is not: `doubt.EQUAL`).
NOT_EXCLUDED = re.compile(
    r"\b(?:can'?t|cannot|can\s+not|could\s*n[o']t)\s+(?:yet\s+|fully\s+|really\s+)?be\s+"
    r"(?:fully\s+|confidently\s+|safely\s+)?(?:excluded|ruled\s+out)\b(?!\s+(?:if|unless)\b)",
    re.IGNORECASE,
)


def held_open(line: str) -> str | None:
    """What `line` says cannot be excluded, where it names an option or a disorder."""
    for found in NOT_EXCLUDED.finditer(line):
        subject = re.split(r"[.;!?]", line[: found.start()])[-1]
        if mentions(tokenize(subject)) or named_codes(subject):
            return " ".join(subject.split())
    return None


def revision_after(reply: str, start: int, answer: str = "") -> str:
    """A line after the DIAGNOSIS line (a keyword line, such as CRITERIA MET, aside) that takes
    the answer back ("Actually, on reflection, it could be C", "Edit: A"), or the lines that add
    a diagnosis to it ("The patient also meets criteria for A."); "" when none."""
    _, _, below = reply[start:].partition("\n")
    added = []
    set_aside = False
    for line in below.splitlines():
        if SET_ASIDE_HEADING.match(line):
            set_aside = True  # "Ruled out:" then "- B (...): ...": options set aside, listed
            continue
        set_aside = set_aside and bool(LIST_ITEM.match(line))
        if set_aside:
            continue
        if KEYWORD.match(line):
            # doubt said on the CRITERIA MET line: "cannot tell - this could equally be A"
            rest = KEYWORD.sub("", line, count=1)
            if doubtful(rest) or sums_up_otherwise(rest, answer):
                return " ".join(KEYWORD.sub("", line, count=1).split())
            continue
        if REVISION.search(line) or doubtful(line) or sums_up_otherwise(line, answer):
            return " ".join(line.split())
        if other := held_open(line):
            return f"or {other}"  # another answer kept open beside it: a choice
        if ADDS.search(line) and not (NOT_ADDED.search(line) or RULED_OUT.search(line)):
            added.append(" ".join(line.split()))
    return "; ".join(added)


def from_json(reply: str) -> str:
    """A JSON reply written as keyword lines (`DIAGNOSIS: A, B`); the reply itself otherwise."""
    fields = JSON_FIELD.findall(reply)
    if not fields or KEYWORD.search(reply):
        return reply
    lines = []
    for key, value in fields:
        text = re.sub(r'^"|"$', "", value) if value.startswith('"') else value
        text = (
            ", ".join(re.findall(r'"((?:[^"\\]|\\.)*)"', text)) if value.startswith("[") else text
        )
        lines.append(f"{key.upper().replace('_', ' ')}: {text}")
    return "\n".join(lines)


NAMED_AFTER = re.compile(r"^[\s*_.]*(?:$|[-–—:(]\s*\S)")  # "C" then "C - Major Depressive ..."


def same_answer(one: str, other: str) -> bool:
    """Whether two DIAGNOSIS lines give one answer: the same text, or one that adds only the
    option's name to the other ("C" and "C - Major Depressive Disorder"); "C" and "C or D", "C"
    and "C and A", "MDD" and "MDD with psychotic features" are two answers."""
    short, long = sorted((one.strip(" *_."), other.strip(" *_.")), key=len)
    return long.lower().startswith(short.lower()) and bool(NAMED_AFTER.match(long[len(short) :]))


FINAL_AGAIN = re.compile(
    r"^[\s*_#]*(?:final(?:\s+answer)?|answer)[\s*_]*(?:\(boxed\)\s*)?[:：][\s*_]*(.+?)[\s*_]*$"
    r"|\\boxed\s*\{([^{}]+)\}"
    # mid-line, after a sentence: "(A was my first instinct, but ... Final: C)"
    r"|[.;!?(]\s*final(?:\s+answer)?\s*[:：]\s*([A-H](?:\s*(?:,|&|and)\s*[A-H])*)\b"
    # a conclusion below it: "In the end I think this is schizoaffective disorder, depressive type."
    r"|\b(?:in\s+the\s+end|ultimately|on\s+balance|all\s+things\s+considered)\b,?\s+"
    r"(?:I\s+(?:think|believe|would\s+say)\s+)?(?:this|it)\s+is\s+(?:most\s+likely\s+)?([^.;\n]+)",
    re.IGNORECASE | re.MULTILINE,
)
# The answer stated in the reasoning before the DIAGNOSIS line: "I'll select B and A", "makes me
# confident this is bipolar II disorder", "the diagnosis is GAD" (to the first comma or stop).
SELECTED_BEFORE = re.compile(
    r"\b(?:I(?:'ll|\s+will|\s+would|'d)?\s+(?:select|choose|pick|go\s+with)"
    r"|confident\s+(?:that\s+)?(?:this|it)\s+is|the\s+diagnosis\s+is)\s+([^.,;:\n]+)",
    re.IGNORECASE,
)


def same_letters(one: str, other: str) -> bool:
    """Whether two answers name the same options: the same text (`same_answer`), or the same
    letters and nothing else ("B, D" and "D and B")."""
    if same_answer(one, other):
        return True
    texts = [re.sub(r"\\&", "&", t) for t in (one, other)]
    if any(re.sub(r"\b(?:[A-H]|and|&)\b|[\s,&.*_()]", "", t) for t in texts):
        return False
    return {frozenset(re.findall(r"\b[A-H]\b", t)) for t in texts}.__len__() == 1


# A field left empty on purpose: "DECLINE: n/a", "DECLINE: none", "DECLINE: -".
PLACEHOLDER = re.compile(r"^\s*(?:<[^<>]*[a-z]{3}[^<>]*>|‹[^‹›]+›|\{[\w\s,]+\})\s*$")
EMPTY_FIELD = re.compile(r"^[\s*_]*(?:n/?a|none|no|nil|-+|–|—|not\s+applicable)?[\s*_.]*$", re.I)


# The reply says it corrects its answer before a DIAGNOSIS line that follows another: "I'm
# correcting my answer:", "Correction - I misread the dates", "Revised diagnosis:".
CORRECTING = re.compile(
    r"\bcorrect(?:ing|ed|ion)\b"
    r"|\b(?:revis|amend|updat)(?:e|ed|ing)\s+(?:my\s+)?(?:answer|diagnosis)\b",
    re.IGNORECASE,
)
# A keyword line led by the word that corrects it: "Revised DIAGNOSIS: A & D".
CORRECTED_KEYWORD = re.compile(
    r"^([ \t]*[*_#]*[ \t]*(?:revised|corrected|updated|amended)[ \t]+)(DIAGNOSIS[ \t]*:)",
    re.IGNORECASE | re.MULTILINE,
)


def parse_reply(reply: str) -> ParsedReply:
    """Read the first keyword line (QUESTION, DIAGNOSIS or DECLINE) of a reply.

    A reply with no keyword but a question mark counts as a question (models often drop the
    prefix); anything else is unparsed. A reply written as JSON is read by its keys."""
    reply = HEADING.sub(lambda m: m.group(1) + ":", from_json(without_struck(reply)))
    reply = CORRECTED_KEYWORD.sub(r"\1diagnosis follows.\n\2", reply)
    if not KEYWORD.search(reply):  # "Based on all this, DIAGNOSIS: B. CRITERIA MET: yes."
        reply = INLINE_KEYWORD.sub(lambda m: "\n" + m.group(1), reply)
    found = [m for m in KEYWORD.finditer(reply) if not m.group(1).upper().startswith("CRITERIA")]
    # the prompt's placeholder copied ("DIAGNOSIS: <every option that applies, by letter>")
    found = [m for m in found if not PLACEHOLDER.match(field_text(reply, m.end()))]
    if not found:
        text = " ".join(reply.split())
        if text.endswith("?") or ("?" in text and len(text) < 400):
            return ParsedReply("question", question=text)
        return ParsedReply("unparsed")
    first = found[0]
    kind = first.group(1).upper()
    answers = [m for m in found if m.group(1).upper() == "DIAGNOSIS"]
    if len(answers) > 1 and CORRECTING.search(reply, answers[-2].end(), answers[-1].start()):
        return parse_reply(reply[answers[-1].start() :])  # the answer it corrected itself to
    text = field_text(reply, first.end())
    if kind == "DIAGNOSIS":
        others = [field_text(reply, m.end()) for m in found[1:] if m.group(1).upper() == kind]
        # the answer given again in other words: "Final answer: B" or "\boxed{B}" after it, or
        # "I'll select B and A" in the reasoning before it
        line_end = reply.find("\n", first.end()) % (len(reply) + 1)  # -1: the reply's end
        others += [
            m.group(1) or m.group(2) or m.group(3) or m.group(4)
            for m in FINAL_AGAIN.finditer(reply, line_end)
        ]
        others += [m.group(1) for m in SELECTED_BEFORE.finditer(reply, 0, first.start())]
        others = [o for o in others if not same_letters(text, o)]
        if any(other and not same_answer(text, other) for other in others):
            text = " or ".join([text, *others])  # two different answers: a choice, not one
        taken = revision_after(reply, first.end(), text)
        if taken:
            text = f"{text} {taken}" if taken.startswith("or ") else f"{text}; {taken}"
    if kind == "QUESTION":
        return ParsedReply("question", question=text) if text else ParsedReply("unparsed")
    declines = [m for m in found[1:] if m.group(1).upper() == "DECLINE"]
    if kind == "DECLINE" or any(
        not EMPTY_FIELD.match(field_text(reply, m.end())) for m in declines
    ):
        # a DECLINE after the answer withdraws it ("DIAGNOSIS: A ... I have to withdraw that.
        # DECLINE: the history was contradictory")
        return ParsedReply("decline", diagnosis=None)
    claims: list[Claim | None] = []
    for match in KEYWORD.finditer(reply):
        if match.group(1).upper().startswith("CRITERIA"):
            claims.append(criteria_claim(reply[match.end() :]))
    criteria: Claim | None = claims[0] if claims else None
    if len(set(claims)) > 1:  # two CRITERIA lines that differ: the reply cannot tell
        criteria = "cannot tell"
    if not text:
        return ParsedReply("unparsed")
    return ParsedReply("answer", diagnosis=text, criteria=criteria)
