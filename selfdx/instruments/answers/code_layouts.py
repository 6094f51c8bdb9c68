"""The forms a reply's codes and choices are written in, read before the rules of `icd_code`: codes
written loosely (`loosely_written`), bare tokens that stand where no code stands
(`bare_tokens_set_aside`), a JSON object (`json_conclusion`) and a table that marks its choice
or grades likelihood (`table_choice`).

Chapter V codes written loosely are read as written with a dot, since the dot of an ICD-10 code
always follows its third character and none of them can stand for another code: "F 32.1",
"F-32.1", "F321", "F32 .1" and "F32,1" (a decimal comma with one character attached; "F32, 1
episode" is a list, and stays F32). Only an upper-case F is read so; "F 32" and "F-32" without a
decimal part are not (a sex and an age, as often as a code).

Outside chapter V, a bare letter and two digits with no dot ("B12", "K10") is, in running text,
a vitamin, a rating scale or a lab value, so it is read as a code only where a clinician writes
a code: in brackets ("Alzheimer's disease (G30)"), right after a code label or a statement
("ICD-10: G30", "Diagnosis: E11"), after another code in a list ("F00.1, G30") or marked as a
dagger or asterisk code ("G30†"). "Low B12 noted; depressive episode F32.1" is F32.1, "Levels of
B12 low" names no code. After "vitamin" it is never a code, nor is B12 anywhere (ICD-10 has no
category B12, and "cobalamin (B12)" is the vitamin). A code with its dot ("E53.8") is read
wherever it stands.

A JSON object is read by its keys, in any order: a "diagnosis", "primary" or "final" key decides
(its code may stand under an "icd10" or "code" key beside it), and "ruled_out", "excluded" or
"differential" keys are left out.
"""

from __future__ import annotations

import json
import re

from selfdx.datasets.icd10 import extract_codes

# Chapter V codes written loosely: "F 32.1" or "F-32.1" (a space or a dash after the letter),
# "F321" (no dot), "F32,1" (a decimal comma: one character attached to the comma, so the list
# "F32, 1 episode" is left alone), "F32 .1" (a space before the dot). The dot of an ICD-10 code
# always follows its third character, so none of them can be read as another code.
DECIMAL_COMMA = re.compile(r"\b(F[ \t\-–]?\d{2}),([0-9A-Z])(?!\w|[.,]\w)")
SPACED_DOT = re.compile(r"\b(F[ \t\-–]?\d{2})[ \t]+\.(\d[0-9A-Z]?)\b")
SPACED_CODE = re.compile(r"\bF(?:[ \t]|[ \t]?[-–][ \t]?)(\d{2}\.[0-9A-Z]{1,2})\b")
UNDOTTED_CODE = re.compile(r"\bF(\d{2})(\d{1,2})(?![\w]|\.\d)")
# A bare letter and two digits outside chapter V ("B12", "K10") with no dot after it: in running
# text a vitamin, a rating scale or a lab value, read as a code only where a code stands: in
# brackets ("(G30)"), after a code label or statement ("ICD-10: G30", "Diagnosis: E11"), after
# another code in a list ("F00.1, G30") or marked as a dagger or asterisk code ("G30†").
BARE_OTHER = re.compile(r"\b(?![Ff])([A-Za-z])(\d{2})\b(?!\.[0-9A-Za-z]|\s*[†*])")
CODE_POSITION = re.compile(
    r"(?:[(\[][ \t]*"
    r"|\b(?:ICD[-_ ]?(?:10)?(?:[-_ ]?CM)?|ICD_CODES|codes?|diagnos[ei]s|diagnose|dx)\b[\s*_]*"
    r"(?:is\b)?[\s*_:=–—-]*"
    r"|\b(?:F\d{2}(?:\.[0-9A-Z]+)?|[A-Z]\d{2}\.[0-9A-Z]+)[ \t]*[†*]?[ \t]*"
    r"(?:[,;/+&]|\band\b)[ \t]*)$",
    re.IGNORECASE,
)
# Vitamin B12 is the one such token also written in brackets after its name ("cobalamin (B12)");
# ICD-10 has no category B12, so it is never read as a code.
NOT_A_CATEGORY = frozenset({"B12"})
VITAMIN = re.compile(r"\bvit(?:amin|\.)?[ \t]*[(\[]?[ \t]*$", re.IGNORECASE)
# JSON keys: one that names the diagnosis decides; one that sets codes aside is left out.
DECISIVE_KEY = re.compile(r"diagnos[ie]s|\bdx\b|^(?:final|primary|main|answer)$", re.IGNORECASE)
CODE_KEY = re.compile(r"icd|code", re.IGNORECASE)
ASIDE_KEY = re.compile(
    r"rule|r/o|exclu|differential|ddx|alternative|considered|secondary|comorbid|history|other",
    re.IGNORECASE,
)


PLACEHOLDER_X = re.compile(r"\b([A-Z]\d{2}\.\d+)[xX]+\b")


def loosely_written(reply: str) -> str:
    """The chapter V codes of `reply` written loosely ("F-32.1", "F32,1", "F32 .1", "F321")
    rewritten as codes."""
    reply = PLACEHOLDER_X.sub(r"\1", reply)  # "F43.1x": the character left open is no character
    reply = SPACED_DOT.sub(r"\1.\2", DECIMAL_COMMA.sub(r"\1.\2", reply))
    return UNDOTTED_CODE.sub(r"F\1.\2", SPACED_CODE.sub(r"F\1", reply))


def bare_tokens_set_aside(reply: str) -> str:
    """`reply` with each bare non-F "code" that stands where no code stands ("low B12")
    broken up ("B_12"), so that it is no longer read as a code."""

    def token(match: re.Match[str]) -> str:
        before = reply[reply.rfind("\n", 0, match.start()) + 1 : match.start()]
        placed = CODE_POSITION.search(before) and not VITAMIN.search(before)
        if placed and match.group(0).upper() not in NOT_A_CATEGORY:
            return match.group(0)
        return f"{match.group(1)}_{match.group(2)}"

    return BARE_OTHER.sub(token, reply)


def json_conclusion(reply: str) -> str:
    """`reply` with a JSON object in it written as a note: the value of a key that names the
    diagnosis ("diagnosis", "primary", "final") as a statement, whatever the keys' order; without
    one, the values of the keys that do not set codes aside ("ruled_out", "excluded",
    "differential")."""
    start, end = reply.find("{"), reply.rfind("}")
    if start < 0 or end < start:
        return reply
    try:
        data = json.loads(reply[start : end + 1])
    except ValueError:
        return reply
    if not isinstance(data, dict):
        return reply
    kept = {str(k): v for k, v in data.items() if not ASIDE_KEY.search(str(k))}
    decisive = [json_text(v) for k, v in kept.items() if DECISIVE_KEY.search(k)]
    if decisive:  # its code may stand under a key of its own: {"diagnosis": name, "icd10": code}
        coded = [json_text(v) for k, v in kept.items() if CODE_KEY.search(k)]
        text = (
            f"Diagnosis: {decisive[0]} {' '.join(coded) if not extract_codes(decisive[0]) else ''}"
        )
    else:
        text = "\n".join(json_text(v) for v in kept.values())
    return f"{reply[:start]}\n{text}\n{reply[end + 1 :]}"


def json_text(value: object) -> str:
    """A JSON value as text: a list's items joined with "and", an object's kept values."""
    if isinstance(value, dict):
        return " ".join(json_text(v) for k, v in value.items() if not ASIDE_KEY.search(str(k)))
    if isinstance(value, list):
        return " and ".join(json_text(v) for v in value)
    return str(value)


TABLE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
SELECT_COLUMN = re.compile(r"select|chosen|final|pick|[✓✔]", re.IGNORECASE)
LIKELIHOOD_COLUMN = re.compile(r"likel|probab|confidence", re.IGNORECASE)
MARKED = re.compile(r"[✓✔☑✅]|\byes\b|\bx\b|selected|chosen", re.IGNORECASE)
GRADES = {"high": 3, "very high": 4, "moderate": 2, "medium": 2, "low": 1, "very low": 0}


def table_choice(reply: str) -> str | None:
    """`reply` with a table that marks its choice ("Selected" column) kept to the rows marked;
    None when a table grades likelihood and two rows share the top grade ("high", "high")."""
    lines = reply.split("\n")
    rows = [(i, [c.strip() for c in m.group(1).split("|")]) for i, line in enumerate(lines)
            if (m := TABLE_ROW.match(line))]  # fmt: skip
    if len(rows) < 3:
        return reply
    header = rows[0][1]
    body = [
        (i, cells) for i, cells in rows[1:] if not all(re.fullmatch(r":?-+:?", c) for c in cells)
    ]
    for column, name in enumerate(header):
        values = [cells[column] if column < len(cells) else "" for _, cells in body]
        if SELECT_COLUMN.search(name):
            for (i, _), value in zip(body, values, strict=True):
                if not MARKED.search(value):
                    lines[i] = ""
            return "\n".join(lines)
        if LIKELIHOOD_COLUMN.search(name):
            grades = [GRADES.get(v.lower().strip(" *_")) for v in values]
            known = [g for g in grades if g is not None]
            if known and known.count(max(known)) > 1:
                return None
    return reply
