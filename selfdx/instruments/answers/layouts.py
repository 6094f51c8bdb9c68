"""Answers given as a layout rather than a sentence: a table of the options with ticks, an
`<answer>` tag, letters marked ✓ or ✗ on their own lines, a checklist, a JSON field, a closing
arrow. Each is
restated as an `Answer: ...` line at the end of the reply, which the strict parser then reads
as it reads any answer statement (so a layout that disagrees with the prose is a contradiction,
never a silent choice between them)."""

from __future__ import annotations

import json
import re

# A JSON answer: {"answer": "C"}, {"answers": ["A", "B"]}, {"diagnosis": "C"}, {"selected": [...]}
JSON_ANSWER = re.compile(
    r'"(?:final[_ ]?)?(?:answers?|diagnos[ie]s|selected|selections?|choices?|options?|letters?)"'
    r'\s*:\s*(\[[^\]]*\]|"[^"]*")',
    re.IGNORECASE,
)
# an answer in tags: <answer>C</answer>
ANSWER_TAG = re.compile(r"<answer>\s*(.*?)\s*</answer>", re.IGNORECASE | re.DOTALL)
# a letter marked on its own line: "A ✔", "B ✘"
MARKED_LINE = re.compile(r"^\s*([A-D])[.):]?\s*([✓✔✅✗✘❌])\s*$", re.MULTILINE)
# a letter marked before it, on its line: "✔ A. <name>", "✘ B. <name>"
# (the letter in capitals: "✔ a good sign" marks no option)
MARK_FIRST = re.compile(r"^\s*([✓✔✅☑✗✘❌☒])\s*(?i:option\s+)?([A-D])\b", re.MULTILINE)
# letters marked one after another on a line: "A ✓ B ✗ C ✓ D ✗"
MARKED_PAIR = re.compile(r"\b([A-D])[.):]?[ \t]*([✓✔✅☑✗✘❌☒])")
# a checklist: "- [x] A", "[ ] B"
CHECKBOX = re.compile(r"^\s*(?:[-*+•]\s*)?\[([ xX✓✔])\]\s*(.+?)\s*$", re.MULTILINE)
# a table of the options, each marked as applying or not: "| A | GAD | Yes |", "| C | ✓ | why |"
TABLE_ROW = re.compile(r"^\s*\|(.+)\|\s*$", re.MULTILINE)
ROW_LETTER = re.compile(r"^[*_\s]*(?:option\s+)?([A-D])(?:[.):\s*_]|$)", re.IGNORECASE)
TICK = re.compile(r"^[*_\s]*(?:yes|y|✓|✔|✅|☑|selected|applies|true)(?!\w)", re.IGNORECASE)
# A conclusion after an arrow that closes the reply, past the end of a sentence: "... with GAD
# (B). → B & C" (within a sentence, "D -> B" moves the answer, which the parser reads as such).
ARROW_END = re.compile(
    r"(?:[.;!)]|^)[ \t]*(?:→|->|=>|⇒|⟶)[ \t]*([A-D](?:[ \t]*(?:,|&|\+|and)[ \t]*[A-D])*)"
    r"[ \t]*\.?\s*\Z",
    re.MULTILINE,
)
CROSS = re.compile(r"^[*_\s]*(?:no|n|✗|✘|❌|☐|x|false|not)(?!\w)", re.IGNORECASE)
# A cell that leaves its option open: "possibly", "maybe", "?", "unclear" (not a degree of fit
# beside a decision elsewhere: "Partial: avoidance only").
OPEN_CELL = re.compile(
    r"^[*_\s]*(?:possibl[ey]|maybe|perhaps|uncertain|unclear|unsure|equivocal|undetermined|tbd"
    r"|pending|to\s+be\s+confirmed|\?+)(?!\w)",
    re.IGNORECASE,
)


def ticked_table_rows(body: str) -> tuple[list[str], list[str]]:
    """The options a table marks as applying: rows that open with an option's letter and hold
    a tick (yes, ✓) in one of their other cells and no cross (no, ✗); and those it leaves open
    ("possibly", "?") with neither. ([], []) without such a table (two rows at least)."""
    rows = []
    for match in TABLE_ROW.finditer(body):
        cells = [cell.strip() for cell in match.group(1).split("|")]
        letter = ROW_LETTER.match(cells[0]) if cells else None
        if letter:
            marks = cells[1:]
            crossed = any(CROSS.match(c) for c in marks)
            ticked = any(TICK.match(c) for c in marks) and not crossed
            held = not ticked and not crossed and any(OPEN_CELL.match(c) for c in marks)
            rows.append((letter.group(1).upper(), ticked, held))
    if len(rows) < 2:
        return [], []
    return [row[0] for row in rows if row[1]], [row[0] for row in rows if row[2]]


# In a JSON answer: the keys that give the answer, and those (or a status) that set options aside.
CHOSEN_KEY = re.compile(
    r"answer|diagnos|select|choice|final|primary|main|comorbid|secondary|additional", re.I
)
ASIDE_KEY = re.compile(
    r"exclu|rule|reject|differential|possib|alternative|not[_ ]?selected|unlikely|consider", re.I
)
OPTION_FIELDS = ("option", "letter", "answer", "id", "choice")


def json_letters(value: object) -> set[str]:
    """The option letters a JSON value names: a letter, a list of them, or objects whose
    `option` (or `letter`, `id`) field is one, unless their status sets them aside."""
    if isinstance(value, str):
        return {value.strip().upper()} if re.fullmatch(r"\s*[A-Da-d]\s*", value) else set()
    if isinstance(value, list):
        return set().union(*(json_letters(v) for v in value)) if value else set()
    if isinstance(value, dict):
        status = " ".join(str(v) for k, v in value.items() if k.lower() in ("status", "role"))
        if ASIDE_KEY.search(status):
            return set()
        return set().union(*(json_letters(value[k]) for k in value if k.lower() in OPTION_FIELDS))
    return set()


def json_chosen(body: str) -> set[str]:
    """The options a reply written as one JSON object gives as its answer ("diagnoses": [...]),
    leaving out what it sets aside ("excluded": [...]); empty when there is no such object."""
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end <= start:
        return set()
    try:
        data = json.loads(body[start : end + 1])
    except ValueError:
        return set()
    if not isinstance(data, dict):
        return set()
    chosen: set[str] = set()
    for key, value in data.items():
        if CHOSEN_KEY.search(key) and not ASIDE_KEY.search(key):
            chosen |= json_letters(value)
    return chosen


def ticked_pairs(line: str) -> str:
    """A line of letters each marked ("DIAGNOSIS: A ✓ B ✗ C ✓ D ✗") with the marked run written
    as the letters ticked ("DIAGNOSIS: A and C"); any other line as it is."""
    pairs = list(MARKED_PAIR.finditer(line))
    if len(pairs) < 2 or not any(TICK.match(p.group(2)) for p in pairs):
        return line
    gaps = [line[a.end() : b.start()] for a, b in zip(pairs, pairs[1:], strict=False)]
    if any(re.search(r"\w", gap) for gap in gaps):
        return line  # words between the marks: not one run of marked letters
    chosen = " and ".join(p.group(1).upper() for p in pairs if TICK.match(p.group(2)))
    return line[: pairs[0].start()] + chosen + line[pairs[-1].end() :]


# A reply of one line closed by a tick: "A & C ✓", "**B. Major Depressive Disorder** ✅".
ONE_TICKED_LINE = re.compile(r"\A\s*([^\n]*?\S)[ \t*_]*[✓✔✅☑][ \t*_]*\Z")


def with_layout_answers(body: str) -> str:
    """`body` with one `Answer: ...` line added for each answer layout found in it."""
    if one := ONE_TICKED_LINE.match(body):
        body = f"Answer: {one.group(1)}"
    ticked_rows, open_rows = ticked_table_rows(body)
    if ticked_rows:
        held = f" or {' and '.join(ticked_rows + open_rows)}" if open_rows else ""
        body = f"{body}\nAnswer: {' and '.join(ticked_rows)}{held}"  # an open row: a choice
    tagged = ANSWER_TAG.findall(body)
    if tagged:
        body = f"{body}\nAnswer: {' '.join(tagged[-1].split())}"
    marked = MARKED_LINE.findall(body)
    if len(marked) >= 2 and any(TICK.match(mark) for _, mark in marked):
        chosen = [letter.upper() for letter, mark in marked if TICK.match(mark)]
        body = f"{body}\nAnswer: {' and '.join(chosen)}"
    first = [(letter, mark) for mark, letter in MARK_FIRST.findall(body)]
    if len(first) >= 2 and any(TICK.match(mark) for _, mark in first):
        chosen = [letter.upper() for letter, mark in first if TICK.match(mark)]
        body = f"{body}\nAnswer: {' and '.join(chosen)}"
    body = "\n".join(map(ticked_pairs, body.split("\n")))
    boxes = CHECKBOX.findall(body)
    if len(boxes) >= 2:
        ticked = [item for mark, item in boxes if mark.strip()]
        body = f"{body}\nAnswer: {' and '.join(ticked) if ticked else 'none of the above'}"
    arrow = ARROW_END.search(body)
    if arrow:
        body = f"{body}\nAnswer: {arrow.group(1)}"
    chosen = json_chosen(body)
    if chosen:
        return f"{body}\nAnswer: {' and '.join(sorted(chosen))}"
    json_answer = list(JSON_ANSWER.finditer(body))
    if json_answer:
        value = re.sub(r'[\[\]"]', " ", json_answer[-1].group(1))
        body = f"{body}\nAnswer: {', '.join(value.split(','))}"
    return body
