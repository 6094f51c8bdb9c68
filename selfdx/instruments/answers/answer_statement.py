"""Explicit answer statements: their markers ("Answer:", "the most likely diagnosis is",
"Edit:", "So C."; `MARKER`), what one says (`statement`), and the lines under an answer heading
(`under_heading`)."""

from __future__ import annotations

import re

from selfdx.instruments.answers.after_answer import HEDGED_AFTER, RULED_OUT, taken_back, with_added
from selfdx.instruments.answers.answer_segment import DIFFERENTIAL, read_block, read_segment
from selfdx.instruments.answers.letter_tokens import tokenize
from selfdx.instruments.answers.option_roles import with_roles
from selfdx.instruments.answers.option_verdicts import verdicts
from selfdx.instruments.answers.parsed import ParsedAnswer, unparsed
from selfdx.instruments.answers.strict_readings import LIST_NUMBER, Reading, mentions, settle

# A letter past the four options listed with them ("Answer: B, C, E"): no option, so the list
# is not the answer it seems.
NO_SUCH_LETTER = re.compile(r"(?:^|[\s,;/&(+])[E-H](?=$|[\s,;.)/&+])")


CONCLUSION = re.compile(r"(?:so|therefore|hence|thus|leaving|diagnosis)\b", re.IGNORECASE)
QUALIFIED = r"(?:final|correct|best|right|chosen|selected|my|most\s+(?:likely|appropriate))"
REVISION_LABEL = re.compile(
    r"\b(?:edit(?:ed)?|corrections?|correcting\s+myself|update[d]?|revised)(?:\s+answer)?[ \t]*:",
    re.IGNORECASE,
)
# An answer label in another language (NFKC makes "：" a colon). Its statement is read only when
# its line gives letters alone (a name in brackets aside) and the reply holds none of the usual
# words of doubt of those languages, which the doubt rules, written in English, cannot read.
FOREIGN_LABEL = re.compile(
    r"(?:^|(?<=[\s*_>]))(?:antwort|respuesta|r[ée]ponse|resposta|risposta|antwoord|ответ"
    r"|答案|回答|答え|解答|정답)[ \t]*:",
    re.IGNORECASE,
)
FOREIGN_DOUBT = re.compile(
    r"\b(?:vielleicht|möglich\w*|eventuell|wahrscheinlich|oder|peut[- ]être|probabl\w+|possibl\w+"
    r"|quiz[áa]s?|tal\s+vez|talvez|forse|ou|o|или|возможно|веро\w+)\b"
    r"|可能|也许|或许|或者|不能排除|排除|かもしれ|おそらく|否定でき|아마|또는",
    re.IGNORECASE,
)
JOINER = r"[ \t]*(?:,|&|\+|\bet\b|\by\b|\bund\b|\be\b|和|与|及|및)[ \t]*"
LETTER_ITEM = r"\(?\ue000?[A-H]\ue001?\)?"
FOREIGN_PURE = re.compile(
    r"[ \t*_]*" + LETTER_ITEM + r"(?:" + JOINER + LETTER_ITEM + r")*[ \t*_]*"
    r"(?:\([^()\n]*\)|（[^（）\n]*）)?[ \t*_]*(?:[.。](?:\s|$)|[ \t]*(?:\n|$))"
)
MARKER = re.compile(
    r"\b(?:selected|chosen|final)[ \t]*(?::|→|->|=>)"
    # a revision written as a label: "Edit: C", "Correction: A", "Updated answer: B"
    r"|"
    + REVISION_LABEL.pattern
    + r"|\b(?:co-?occurring|comorbid)\s+(?:disorders?|conditions?|diagnos[ie]s)\s+(?:are|is)\b"
    r"|\b(?:that|which|this)\s+leaves\b"
    # "Applicable options: A, B" (never "Non-applicable: C, D" or "Not applicable:")
    r"|(?<![\w-])(?<!not\s)(?<!non\s)(?:choice|pick|applicable|applies)"
    r"(?:\s+(?:options?|diagnos[ie]s|conditions?))?[ \t]*:"
    r"|\bbest\s+(?:fit|match)\s+(?:is|would\s+be)\b"
    # "Not C - it's B.", "It's B, not C."
    r"|(?:^|(?<=[.;:!—–-]\s))it(?:'s|\s+is)\b(?=[ \t]+\(?[A-H]\)?(?:[.!,]|[ \t]*$|[ \t]+not\b))"
    # "Antwort: C", "Respuesta: A y B", "Réponse : C et D", "答案：A" (`FOREIGN_LABEL`)
    r"|"
    + FOREIGN_LABEL.pattern
    + r"|\b(?:answers?|diagnos[ie]s|selections?|outputs?|conclusions?)(?:\s*\((?:s|boxed)\))?"
    r"(?:\s+first)?[ \t]*"
    r"(?::|=|→|->|=>|[-–—](?!\w)|\bis\b|\bare\b|\bwould\s+be\b|\bwill\s+be\b)"
    r"|\b" + QUALIFIED + r"\s+(?:options?|choices?|selections?)\s*(?::|\bis\b|\bare\b)"
    # "the answer to this case is D", "the answer for the patient would be B"
    r"|\banswers?\s+(?:to|for)\s+(?:[\w']+\s+){1,3}?(?:is|are|would\s+be)\b"
    # "the presentation supports the diagnosis of <name>", "the presentation supports C and B"
    r"|\bsupports?\s+(?:the|a|an)\s+diagnos[ie]s\s+of\b"
    r"|\b(?:presentation|picture|history|case)\s+supports?\b(?=\s+\(?\ue000?[A-H]\b)"
    r"|\bI\s*(?:would|will|'d|'ll)?\s*(?:choose|select|pick|go\s+with)\b"
    r"|\bI(?:'d|\s+would)\s+say\b(?=[ \t]+\(?[A-H]\b)"
    # "The best answer here is option A", "Almost certainly A", "Definitely C."
    r"|\bbest\s+(?:answer|option|choice)\s+(?:here\s+)?(?:is|would\s+be)\b"
    r"|(?:^|(?<=[.;:!]\s))(?:almost\s+certainly|certainly|definitely|surely)\b(?=[ \t]+\(?[A-H]\b)"
    r"|\bmost\s+(?:likely|consistent\s+with|probable)\b(?:\s+(?:diagnosis\s+)?(?:is|are))?"
    r"|\b(?:fits|matches)\s+best\s+(?:with\s+)?"
    # a conclusion after options are set aside: "Not A, not B, not D. So C."
    r"|(?:^|(?<=[.;:,]\s))(?:so|therefore|hence|thus|leaving|diagnosis)\b,?[ \t]*"
    r"(?=\(?[A-H]\)?(?:[ \t]*(?:,|and|or|&|/)[ \t]*\(?[A-H]\)?)*[ \t]*(?:[.!]|$))",
    re.IGNORECASE | re.MULTILINE,
)


def under_heading(lines: list[str]) -> Reading:
    """What the lines under an answer heading say: the first line's answer (with the pure lines
    after it), joined by the answers that open the list items right after it ("1. <name> (C) -
    why", "2. <name> (B) - why"), up to the first line that opens with none."""
    first, used = read_block(lines, need_label=False)
    if first.kind != "letters" or first.letters is None:
        return first
    letters = set(first.letters)
    for line in lines[used:]:
        if DIFFERENTIAL.search(line) or RULED_OUT.search(line):
            break  # "C (OCD) was considered because ...": no item of the answer
        reading = read_segment(line, need_label=False)
        if reading.kind != "letters" or reading.letters is None:
            break
        letters |= reading.letters
    return Reading("letters", frozenset(letters), "")


CONTINUATION = re.compile(r"^(?:and|plus|&|\+)\s+", re.IGNORECASE)


# Words before an answer word that make it a list of options kept open, not the answer.
OPEN_LABEL = re.compile(
    r"\b(?:possible|potential|differential|candidates?|alternatives?|other|rule[\s-]?outs?"
    r"|excluded|considered)\b",
    re.IGNORECASE,
)


LEAD_IN = re.compile(r"\s*(?:(?:my|the|our)(?:\s+final)?)?\s*", re.IGNORECASE)
CORRECTED = re.compile(r"\b(?:correct(?:ion|ed)|edit(?:ed)?|update[d]?|revised?)\b", re.I)


# An answer statement inside a condition the reply leaves open: "If the low mood has lasted two
# years, the answer is B." (a forced choice, "If I had to pick, the answer is B", is an answer).
CONDITIONED = re.compile(
    r"(?:^|[.!?;:]\s+)(?:if|assuming|provided|supposing|should|unless|in\s+case)\b"
    r"(?!\s+(?:forced|pressed|I\s+(?:had|have|must|were)\s+to|I\s+must|you\s+(?:force|make)))"
    r"[^.!?;]*$",
    re.IGNORECASE,
)


def statement(body: str, markers: list[re.Match[str]], position: int) -> ParsedAnswer | None:
    """What the answer statement at `markers[position]` says, or None when it says nothing."""
    marker = markers[position]
    line_start = body.rfind("\n", 0, marker.start()) + 1
    # a statement inside another's line is part of it, unless that one is a revision label whose
    # words lead to it ("Correction: the symptoms began ..., so the answer is B")
    # one that opens a sentence of its own reads on ("Answer: B. My answer is D" says two things)
    opens_sentence = re.search(
        r"[.!?;]\s+(?:(?:my|the|our)\s+(?:final\s+)?)?$", body[line_start : marker.start()], re.I
    )
    inside = (
        not opens_sentence
        and any(
            line_start <= m.start() < marker.start()
            and not REVISION_LABEL.match(m.group(0))
            # "Answer: I would go with D", "Answer: my answer is D": the inner one reads on
            and not LEAD_IN.fullmatch(body[m.end() : marker.start()])
            for m in markers
        )
    )
    if inside and not (REVISION_LABEL.match(marker.group(0)) or CONCLUSION.match(marker.group(0))):
        return None
    after = body[marker.end() :]
    if FOREIGN_LABEL.match(marker.group(0)) and (
        not FOREIGN_PURE.match(after) or FOREIGN_DOUBT.search(body)
    ):
        return unparsed("ambiguous", "an answer label in another language, not given plainly")
    head, _, below = after.partition("\n")
    before = body[line_start : marker.start()]
    if OPEN_LABEL.search(before) or re.search(r"\b(?:not|non|never)\W*$", before, re.I):
        return None  # "Possible diagnoses:", "Not selected:": options kept open or set aside
    if CONDITIONED.search(before):
        return unparsed("ambiguous", "the answer statement holds on a condition")
    if not re.search(r"\w", head) and mentions(tokenize(before)):
        return None  # "C (most likely)": the option comes before the marker; read the line
    below_lines = [LIST_NUMBER.sub("", line.strip()) for line in below.splitlines()]
    below_lines = [line for line in below_lines if line]
    verdict = verdicts(after)
    if verdict is not None:
        reading = verdict
    elif re.search(r"\w", head):
        # the pure lines right after it join it ("Answers: A" then "C", or "and C")
        following = [CONTINUATION.sub("", line) for line in below_lines]
        reading, _ = read_block([head.strip(), *following], need_label=False)
        rest = re.split(r"(?<=[.!])\s+", head.strip(), maxsplit=1)
        if reading.reason == "negated" and len(rest) > 1:
            # "Answer: A, B, C and D are all ruled out. None.": the next sentence answers
            reading, _ = read_block([rest[1], *following], need_label=False)
    else:
        reading = under_heading(below_lines)
    if reading.kind != "nothing":
        settled = settle([reading], f"answer statement {marker.group(0).strip()!r}")
        after = f"{head}\n{below}"
        if settled is not None and settled.letters and taken_back(after, settled.letters):
            return unparsed("ambiguous", "the answer is taken back after it")
        if settled is not None and settled.letters and NO_SUCH_LETTER.search(head):
            return unparsed("unparsed", "a letter that is no option in the answer")
        if settled is not None and settled.letters and HEDGED_AFTER.search(head):
            return unparsed("ambiguous", "the answer is qualified on its line")
        if settled is not None:
            return with_roles(with_added(settled, after) or settled, below)
    return None
