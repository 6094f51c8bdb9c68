"""The strict MentalBench reader: a reply read as a careful human would read it.

It prefers options labelled by role ("Primary: A", "Secondary: C"), then an explicit answer
statement ("Answer: C", "the most likely diagnosis is C", the last one; "Edit: C" revises),
then a verdict on each option in turn ("A: no. B: yes. ..."), then labels on the first and last
lines; letters joined by `,` `&` `and`, ranges ("A-C"), option names in place of letters and
"none of the above" are understood ("none fits perfectly, but C is closest" is C; "Not A,
not B, not D. So C." is C). Options set aside ("Least likely: B", "Ruled out: A, B, D",
"D is the worst fit", "B would be the wrong answer") or kept open ("Differential: A", "Rule out:
A", a "Differential" heading) are no answer; a rating scale ("GAD-7", "PHQ-9") is no option's
name; a none followed by the option that comes closest ("None. C is the closest match", "If
forced, C") is that option. Anything it cannot settle (a hedge between options, an
option kept in the differential, contradicting answers, a revision ("I was wrong. It's A."), a
hedge after the answer ("I cannot exclude A"), options given probabilities, a refusal) stays
unparsed: it is never guessed.

This module holds the order of those steps (`parse_strict`, `read_body`); the readers it calls
are `option_roles` (roles, ranges, options set aside), `answer_statement` (answer statements),
`option_verdicts` (a verdict on each option), `answer_segment` (a label or a sentence),
`after_answer` (what the text after an answer does to it) and `strict_readings` (`Reading`,
`settle`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from selfdx.datasets.mentalbench.schema import LETTERS
from selfdx.instruments.answers.after_answer import (
    HEDGED_AFTER,
    REVISION,
    TORN,
    summary_disagrees,
    taken_back,
    with_added,
)
from selfdx.instruments.answers.answer_segment import is_pure, read_block, read_segment
from selfdx.instruments.answers.answer_statement import (
    CORRECTED,
    MARKER,
    NO_SUCH_LETTER,
    REVISION_LABEL,
    statement,
    under_heading,
)
from selfdx.instruments.answers.doubt import kept_open
from selfdx.instruments.answers.layouts import with_layout_answers
from selfdx.instruments.answers.letter_grammar import read_expression
from selfdx.instruments.answers.letter_tokens import tokenize
from selfdx.instruments.answers.option_roles import (
    DIFFERENTIAL_LABEL,
    OPTION,
    SET_ASIDE_LABEL,
    SET_ASIDE_SENTENCE,
    labelled_lists,
    roles,
    with_ranges,
)
from selfdx.instruments.answers.option_verdicts import option_lines, verdicts
from selfdx.instruments.answers.parsed import ParsedAnswer, unparsed
from selfdx.instruments.answers.reply_text import (
    clean_markdown,
    mark_option_names,
    unnamed_members,
)
from selfdx.instruments.answers.strict_marks import (
    EXAMPLE_ECHO,
    LINE_JOIN,
    MIDDLE_DOT,
    NOTE_HEADING,
    PAIRS_ON_A_LINE,
    SET_LINE,
    UNFINISHED_LABEL,
    letter_made_another,
    listed_pairs,
    without_new_item,
)
from selfdx.instruments.answers.strict_readings import LIST_NUMBER, Reading, mentions, settle
from selfdx.judge.reasoning_blocks import strip_reasoning

HEADING = re.compile(
    r"^(?:(?:final|my|most\s+likely|working|primary|best|correct|applicable|selected|chosen)\s+)?"
    r"(?:answers?|diagnos[ie]s|selections?|choices?|options?)\s*:?$",
    re.IGNORECASE,
)
IF = re.compile(r"\bif\b", re.IGNORECASE)
# "None of the options is a perfect fit, but C is the best answer": a none that is qualified
# (no option fits perfectly) is no answer of "none"; the clause goes and what follows is read.
QUALIFIED_NONE = re.compile(
    r"\b(?:none|neither)\b(?:\s+of\s+(?:the\s+)?(?:these|them|options|choices|answers|above)"
    r"(?:\s+(?:options|choices|answers))?)?"
    r"\s+(?:is|are|fits?|matches|seems?|applies)\s+(?:an?\s+|the\s+)?"
    r"(?:perfect(?:ly)?|exact(?:ly)?|ideal(?:ly)?|complete(?:ly)?|entirely|fully|neat(?:ly)?"
    r"|clean(?:ly)?|textbook)\b[^.;\n]*?(?:[,;.]\s*(?:but|though|however|still)?,?|\s+but)\s*",
    re.IGNORECASE,
)


# Rating scales named with a number ("GAD-7", "PHQ-9", "PCL-5"): a score, not an option's name.
RATING_SCALE = re.compile(
    r"\b(?:GAD|PHQ|PCL|BDI|HAM-?[AD]|MADRS|YMRS|PANSS|ASRS|CAPS|Y-?BOCS|AUDIT|EPDS|MDQ)"
    r"[ \t]*-?[ \t]*\d+\b",
    re.IGNORECASE,
)
REFUSAL = re.compile(
    r"\b(?:I\s*(?:can(?:no|')t|am\s+(?:not\s+able|unable)|'m\s+(?:not\s+able|unable)|won't|"
    r"must\s+decline|do\s+not\s+feel\s+comfortable)|as\s+an\s+AI|not\s+(?:able|qualified|"
    r"appropriate)\s+(?:for\s+me\s+)?to\s+(?:diagnose|provide|give|make)|unable\s+to\s+"
    r"(?:provide|determine|diagnose|make)|cannot\s+(?:provide|determine|diagnose|make)|"
    r"consult\s+(?:a|with\s+a)\s+(?:licensed|qualified|mental\s+health|medical))",
    re.IGNORECASE,
)


def parse_strict(text: object, options: Sequence[str]) -> ParsedAnswer:
    """Read a reply as a careful reader would; whatever stays ambiguous is left unparsed."""
    if not isinstance(text, str) or not text.strip():
        return unparsed("empty", "empty reply")
    body, unfinished = strip_reasoning(text)
    body = clean_markdown(body)
    if not body.strip():
        reason = "the reasoning block never ended" if unfinished else "only reasoning, no answer"
        return unparsed("empty", reason)
    body = without_new_item(EXAMPLE_ECHO.sub("", body))
    if not body.strip():
        return unparsed("unparsed", "only the prompt's example copied")
    if UNFINISHED_LABEL.search(body):
        return unparsed("unparsed", "the reply stops at an option's label")
    body = re.sub(r"\n[ \t]*(&|\+)[ \t]*\n", r" \1 ", body)  # "A\n&\nD"
    body = LINE_JOIN.sub(r"\1 ", MIDDLE_DOT.sub(" & ", body))  # "A &\nC", "A・C"
    body = with_layout_answers(body)
    body = re.sub(r"\br/o\b", "rule out", body, flags=re.IGNORECASE)
    body = NOTE_HEADING.sub("Assessment and plan:", body)
    body = QUALIFIED_NONE.sub("", body)
    if not body.strip():
        return unparsed("unparsed", "no option said to fit")
    body = RATING_SCALE.sub("rating scale", body)
    body = with_ranges(mark_option_names(letter_made_another(body, options), options))
    body = PAIRS_ON_A_LINE.sub(lambda m: listed_pairs(m, len(options)), body)
    if any(
        unnamed_members(line) for line in body.splitlines()
    ):  # "Anorexia nervosa and obsesive compulsive disoder": a member names no option
        return unparsed("unparsed", "a member of the set names no option")
    # a heading that labels the line under it ("### Differential" then "A") is that line's label
    body = labelled_lists(body)
    body = re.sub(r"\brule\s+out\s*:", "Differential:", body, flags=re.IGNORECASE)
    # options labelled by role ("Primary: A", "Secondary: C", "Differential: D")
    primary, added, differential = roles(body)
    if primary:
        if differential - primary - added:
            return unparsed("ambiguous", "another option labelled as a differential")
        return ParsedAnswer(frozenset(primary | added), "answered", "options labelled by role")
    # options set aside ("Least likely: B", "Ruled out: A, B, D", "D is the worst fit") or
    # kept open ("Differential: A") are no answer: they go, and the rest is read
    body = SET_ASIDE_LABEL.sub("", body)
    body = SET_ASIDE_SENTENCE.sub("", body)
    body = DIFFERENTIAL_LABEL.sub("", body)
    if not re.search(r"\w", body):
        return unparsed("unparsed", "only options set aside or kept open")
    if len({frozenset(re.findall(r"[A-H]", m)) for m in SET_LINE.findall(body)}) > 1:
        return unparsed("ambiguous", "two lines give different sets")
    for some in SOME_OF.finditer(body):
        if len(set(re.findall(OPTION, some["listed"]))) > COUNTS[some["count"].lower()]:
            return unparsed("ambiguous", "a number of options to be chosen from more")
    settled = read_body(body)
    if settled.letters and differential - settled.letters:
        return unparsed("ambiguous", "another option labelled as a differential")
    closing = CLOSING_SET.search(body.rstrip())
    closes_on = set(re.findall(r"[A-H]", closing[1])) if closing else None
    # "A (90%), B (85%), C (10%), D (5%) → A & B": the weights, then the set they decide
    if settled.letters and len(set(WEIGHTED.findall(body))) > 1 and closes_on != settled.letters:
        return unparsed("ambiguous", "options given with probabilities")
    if settled.letters == frozenset():
        return closest_after_none(body, settled)
    if settled.letters and (doubt := kept_open(body, settled.letters)):
        return unparsed("ambiguous", doubt)
    if settled.letters and summary_disagrees(body, settled.letters):
        return unparsed("ambiguous", "a summary names other options than the answer")
    if settled.letters and closing and closes_on != settled.letters:
        return unparsed("ambiguous", "the reply closes on another set than its reading")
    return settled


# A set of options closing the reply after a colon or arrow: "..., with comorbid major
# depression: A & B."
CLOSING_SET = re.compile(
    r"[:=→]\s*((?:\b[A-H]\b|\ue000[A-H]\ue001)(?:\s*(?:&|,|\+|\band\b)\s*"
    r"(?:\b[A-H]\b|\ue000[A-H]\ue001))+)\s*[.!]?\s*\Z"
)


# A choice still to make among listed options: "two of the following: A, B, D", "one of A or C".
COUNTS = {"one": 1, "either": 1, "two": 2, "three": 3}
SOME_OF = re.compile(
    r"(?i:\b(?P<count>one|either|two|three)\s+of\s+(?:the\s+following|these|those|them"
    r"|the\s+options)?\s*:?\s*)(?P<listed>"
    + OPTION
    + r"(?:\s*(?:,|&|and|or|/|\+)\s*"
    + OPTION
    + r")+)"
)
# An option given a probability: "C (80%), A (20%)".
WEIGHTED = re.compile(
    OPTION
    # its name or a few words may come between: "- A. Obsessive-compulsive disorder: ~80%"
    + r"(?:[.)]?[ \t]+[^\n%:=(]{1,60}?)?\s*[(:=-]?\s*"
    r"(?:[~≈]|(?i:about|approx\.?|approximately|roughly))?\s*\d+(?:\.\d+)?\s*%"
)
# After "none", a sentence that still picks the nearest option: "C is the closest match",
# "If forced, C", "closest is C".
CLOSEST = re.compile(
    r"\b(?:closest|nearest|best\s+(?:available|approximation)|if\s+(?:forced|I\s+(?:had|have|must)"
    r"\s+to\s+(?:choose|pick|select)))\b",
    re.IGNORECASE,
)


def closest_after_none(body: str, settled: ParsedAnswer) -> ParsedAnswer:
    """A none answer followed by the option that comes closest ("None. C is the closest match
    though."; "None of the above. If forced, C."): that option is the answer."""
    chosen: set[str] = set()
    for sentence in re.split(r"(?<=[.!?;])\s+|\n", body):
        if CLOSEST.search(sentence):
            chosen |= mentions(tokenize(sentence))
    if not chosen:
        return settled
    if len(chosen) > 1:
        return unparsed("ambiguous", "none, then more than one option said to come closest")
    return ParsedAnswer(frozenset(chosen), "answered", "the option closest after none")


# A heading that ranks the list under it or keeps it open: "Differential (most to least likely):",
# "In order of likelihood:", "Possible diagnoses:".
RANKED = re.compile(
    r"\b(?:rank(?:ed|ing)?|order|likel(?:y|ihood)|probab(?:le|ility|ly)|differentials?"
    r"|possib(?:le|ility|ilities)|consider(?:ed|ing|ations?)?|candidates?)\b",
    re.IGNORECASE,
)


# A line that opens with an option's label: "C. <name> - ...", "2) B: ...".
OPTION_ITEM = re.compile(r"^[ \t]*(?:\d+[.)][ \t]*)?([A-H])[.):][ \t]")


def walked_through(lines: list[str]) -> bool:
    """Whether the last line is one more step of a walk through the options, each on its line
    ("A. <name> - ...", "B. <name> - ...", "C. <name> - her mood is described as"): a step,
    never a closing label."""
    last = OPTION_ITEM.match(lines[-1])
    return bool(last) and any(
        (item := OPTION_ITEM.match(line)) and item.group(1) != last.group(1) for line in lines[:-1]
    )


def trailing_list(body: str) -> Reading | None:
    """The list that ends the reply, when its last line is one item of two or more options
    written one to a line (no blank line between them): the options as a set under a heading
    that does not rank them ("Diagnoses that apply:"), ambiguous under one that does
    ("Differential (most to least likely):") or when an item is qualified ("1. C (most likely)");
    None when the reply does not end so (its last line may then be a closing label)."""
    raw = body.rstrip().splitlines()
    items: list[str] = []
    for line in reversed(raw):
        item = LIST_NUMBER.sub("", line.strip())
        if not item or not read_expression(tokenize(item), fillers=False).letters:
            break  # a blank line, or a line that does not open with an option
        items.append(item)
    letters = {
        letter
        for item in items
        for letter in read_expression(tokenize(item), fillers=False).letters
    }
    if len(items) < 2 or len(letters) == len(LETTERS):
        return None  # one line, or the options echoed back
    heading = raw[len(raw) - len(items) - 1].strip() if len(raw) > len(items) else ""
    if RANKED.search(heading):
        return Reading("ambiguous", None, "options listed under a ranking or a differential")
    if not all(is_pure(item) for item in items):
        readings = [read_segment(item, need_label=False) for item in items]
        if any(r.kind != "letters" or r.letters is None for r in readings) or any(
            HEDGED_AFTER.search(item) or RANKED.search(item) for item in items
        ):
            return Reading("ambiguous", None, "a list of options, some qualified")
    return Reading("letters", frozenset(letters), "")


def read_body(body: str) -> ParsedAnswer:
    """The answer in a prepared reply (markdown gone, option names marked, roles settled)."""
    lines = [LIST_NUMBER.sub("", line.strip()) for line in body.splitlines() if line.strip()]
    # a heading that announces the answer ("## Answer", "Final diagnosis"): its next line is one
    for number, line in enumerate(lines[:-1]):
        if HEADING.match(line):
            below = lines[number + 1 :]
            reading = verdicts("\n".join(below)) or under_heading(below)
            settled = settle([reading], f"the lines under the heading {line!r}")
            if settled is not None:
                return settled

    # 1. an explicit answer statement: the last one that says something decides (one inside
    #    another's line, "Answer: B and most likely C", is part of that line's statement); an
    #    earlier one that says otherwise, with no revision between, makes the reply ambiguous
    markers = list(MARKER.finditer(body))
    for position in reversed(range(len(markers))):
        found = statement(body, markers, position)
        if found is None:
            continue
        if found.letters:
            for earlier in range(position):
                other = statement(body, markers, earlier)
                between = body[markers[earlier].end() : markers[position].start()]
                revised = (
                    REVISION.search(between)
                    or CORRECTED.search(between)
                    or REVISION_LABEL.match(markers[position].group(0))
                )
                if other is not None and other.letters and other.letters != found.letters:
                    if not revised:
                        return unparsed("ambiguous", "two answer statements disagree")
        return found

    # 2. a verdict on each option in turn ("A: no. B: no. C: yes. D: no."), or a list of the
    #    options, each on its line, marked or judged ("C. <name> ✔", "- D. <name> - fits")
    verdict = verdicts(body) or option_lines(body)
    if verdict is not None:
        settled = settle([verdict], "a verdict on each option")
        if settled is not None:
            return settled

    # 3. labels: on the first line (or a list of them), on the last line, or closing the last
    #    line after a comma or colon ("Based on the symptoms, A."); all that are found must agree
    first, used = read_block(lines, need_label=True)
    readings = [first]
    # the last line may be one item of a list: then the list, not that line, closes the reply
    listed = trailing_list(body) if len(lines) > used else None
    if listed is not None:
        readings.append(listed)
    elif len(lines) > used and not walked_through(lines):
        readings.append(read_segment(lines[-1], need_label=True))
    if readings[-1].kind == "nothing" and first.reason != "the options repeated":
        # "Final: A, D" before "Based on this, A." before "Not A. Not C. B."
        for splitter in (r"[:;—–→]|\s-\s|->|=>", r"(?<=[.!?])\s+", r","):
            tail = re.split(splitter, lines[-1])[-1].strip()
            head = lines[-1][: len(lines[-1]) - len(tail)]
            if splitter == "," and (head.count("(") > head.count(")") or IF.search(head)):
                continue  # inside brackets ("(A, D)"), or a condition ("if not, D")
            if tail != lines[-1] and is_pure(tail):
                readings.append(read_segment(tail, need_label=True))
                break
    if (
        len(readings) > 1
        and readings[0].kind == "letters"
        and readings[0].letters
        and readings[-1].letters is not None
        and readings[-1].letters < readings[0].letters
    ):
        readings = readings[:1]  # the last line explains one option of the set on the first
    settled = settle(readings, "label")
    if settled is not None and settled.letters and NO_SUCH_LETTER.search(lines[0]):
        if first.kind == "letters" and is_pure(NO_SUCH_LETTER.sub(" ", lines[0])):
            return unparsed("unparsed", "a letter that is no option in the answer")  # "C, E"
    if settled is not None and settled.letters and first.kind == "letters":
        after = "\n".join(lines[used:-1] if len(lines) > used + 1 else lines[used:])
        head_rest = re.split(r"(?<=[.!?])\s+", lines[0], maxsplit=1)
        if len(head_rest) > 1:
            after = head_rest[1] + "\n" + after
        if taken_back(after, settled.letters):
            return unparsed("ambiguous", "another option kept open after the answer")
        settled = with_added(settled, after)
    if settled is not None:
        return settled
    if TORN.search(body):
        return unparsed("ambiguous", "torn between options")
    if REFUSAL.search(body):
        return unparsed("refusal", "the model declined to answer")
    return unparsed("unparsed", "no answer found")
