"""Replies that judge each option in turn: a verdict after each letter ("A: no. B: yes.
C: no. D: no.", `verdicts`) or a list of the options, one a line, marked or judged ("C. <name>
✔", "- D. <name> - fits", `option_lines`)."""

from __future__ import annotations

import re

from selfdx.instruments.answers.letter_grammar import read_expression
from selfdx.instruments.answers.letter_tokens import tokenize
from selfdx.instruments.answers.strict_readings import LIST_NUMBER, Reading, joined

# A verdict on each option in turn: "A: no. B: no. C: yes. D: no.", "- C: most likely".
VERDICT = re.compile(
    r"(?:^|(?<=[\s.;,(\ue000]))([A-H])\ue001?\s*(?:[:=)\-–—]\s*|\s+)(yes|no|true|false|correct"
    r"|incorrect|applies|does\s+not\s+apply|most\s+likely|likely|unlikely|less\s+likely"
    r"|least\s+likely|not\s+likely|ruled\s+out|excluded|possible|possibly|probable|maybe"
    r"|uncertain|unclear|[✔✓☑✅✗✘❌☒])(?=\s*(?:[.,;)\n]|$))",
    re.IGNORECASE,
)
POSITIVE = {"yes", "true", "correct", "applies", "likely", "most likely", "✔", "✓", "☑", "✅"}
OPEN_VERDICTS = {"possible", "possibly", "probable", "maybe", "uncertain", "unclear"}


def verdicts(text: str) -> Reading | None:
    """The options chosen by a verdict on each (at least three options judged, each once):
    those said yes (or, where one is "most likely", those); None when it is no such list."""
    said: dict[str, set[str]] = {}
    for match in VERDICT.finditer(text):
        said.setdefault(match.group(1).upper(), set()).add(" ".join(match.group(2).lower().split()))
    if len(said) < 3:
        return None
    if any(len(words) > 1 for words in said.values()):
        return Reading("ambiguous", None, "an option given two verdicts")
    verdict = {letter: words.pop() for letter, words in said.items()}
    if any(word in OPEN_VERDICTS for word in verdict.values()):
        return Reading("ambiguous", None, "an option held open ('possible')")
    chosen = {letter for letter, word in verdict.items() if word in POSITIVE}
    if any(verdict[letter] == "most likely" for letter in chosen):
        chosen = {letter for letter in chosen if verdict[letter] == "most likely"}
    if not chosen:
        return Reading("ambiguous", None, "every option judged against")
    return Reading("letters", frozenset(chosen), "")


# What a line that opens with an option says of it, after the option: held open, set aside or
# chosen ("- C. <name> - fits", "D. <name>  <- applies", "A. <name> ✔", "B. <name> ?").
LINE_OPEN = re.compile(
    r"\balso\s+fits|\bpossibl[ey]\b|\bmaybe\b|\bperhaps\b|\bborderline\b|\bpartial(?:ly)?\b"
    r"|\bhard\s+to\s+(?:exclude|rule\s+out)|\b(?:can'?t|cannot|can\s+not)\s+(?:be\s+)?"
    r"(?:excluded?|ruled?\s+out)|\buncertain\b|\bunclear\b|\?",
    re.IGNORECASE,
)
LINE_AGAINST = re.compile(
    r"\bless\s+likely|\bunlikely|\bnot\s+likely|\bruled\s+out|\bexcluded|\bdoes\s+not\s+fit"
    r"|\bdoesn'?t\s+fit|\bnot\s+(?:supported|met|a\s+fit)|\bno\b|[✗✘❌☒]|\[\s\]|\bincorrect\b"
    r"|\bwrong\b",
    re.IGNORECASE,
)
LINE_FOR = re.compile(
    r"\bfits\b|\bapplies\b|\byes\b|\bmost\s+likely\b|\bcorrect\b|[✔✓☑✅←]|\[x\]"
    r"|\bselected\b|\bchosen\b|\bmet\b|\bbest\s+fit\b|\bthis\s+one\b",
    re.IGNORECASE,
)


def option_lines(body: str) -> Reading | None:
    """The options chosen by a list that takes each option on a line of its own and marks or
    judges it (three lines or more, one of them marked): those marked for it; ambiguous when one
    is held open ("also fits; hard to exclude", "?") or none is chosen; None for no such list."""
    said: dict[str, str] = {}
    for line in body.splitlines():
        tokens = tokenize(LIST_NUMBER.sub("", line.strip()))
        expression = read_expression(tokens, fillers=False)
        if not expression.letters or expression.problem or len(set(expression.letters)) > 1:
            continue
        rest = joined(tokens[expression.end :])
        letter = expression.letters[0]
        verdict = (
            "open"
            if LINE_OPEN.search(rest)
            else "against"
            if LINE_AGAINST.search(rest)
            else "for"
            if LINE_FOR.search(rest)
            else ""
        )
        if letter in said and said[letter] != verdict:
            return Reading("ambiguous", None, "an option given two verdicts")
        said[letter] = verdict
    if len(said) < 3 or not any(said.values()):
        return None
    if "open" in said.values():
        return Reading("ambiguous", None, "an option held open in a list of verdicts")
    chosen = frozenset(letter for letter, verdict in said.items() if verdict == "for")
    if not chosen:
        return Reading("ambiguous", None, "no option chosen in a list of verdicts")
    return Reading("letters", chosen, "")
