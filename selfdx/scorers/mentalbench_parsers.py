"""Reading a model's reply to a MentalBench question as a set of option letters.

Two parsers:

- `parse_reference` behaves exactly like the released MentalBench scoring code (spec 3),
  quirks included: the `and` separator never matches, the search is unanchored, so a verbose
  reply is read as its first A-D character.
- `parse_strict` reads the reply as a careful human would: it drops reasoning blocks and
  markdown, prefers an explicit answer statement ("Answer: C", "the most likely diagnosis is
  C"), accepts letters joined by `,` `&` `and` `/`, option names in place of letters, and
  "none of the above". Anything it cannot settle (a hedge between options, contradicting
  answers, a refusal) stays unparsed: it is never guessed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from selfdx.datasets.mentalbench_schema import LETTERS
from selfdx.errors import ArgumentError

Status = Literal["answered", "none", "ambiguous", "refusal", "empty", "unparsed"]


@dataclass(frozen=True)
class ParsedAnswer:
    """The letters read from a reply (`None` when no answer could be read) and how."""

    letters: frozenset[str] | None
    status: Status
    reason: str

    @property
    def parsed(self) -> bool:
        return self.letters is not None


def unparsed(status: Status, reason: str) -> ParsedAnswer:
    return ParsedAnswer(None, status, reason)


# --------------------------------------------------------------------------------------------
# reference parser (spec 3)

REFERENCE_PREFIX = re.compile(r"^(?:ANSWER|OUTPUT|SELECTION|THE ANSWER IS)[:\s-]*")
# The released pattern lists a lower-case `and` although the text is upper-cased first, so that
# separator can never match; kept as is on purpose.
REFERENCE_LETTER_RUN = re.compile(r"[A-D](?:\s*(?:,|&|and)\s*[A-D])*")


def parse_reference(text: object, options: Sequence[str] = ()) -> ParsedAnswer:
    """The released extraction: strip, upper-case, drop one leading prefix, first letter run."""
    if not isinstance(text, str):
        return unparsed("empty", "no text")
    upper = text.strip().upper()
    upper = REFERENCE_PREFIX.sub("", upper.strip(), count=1)
    match = REFERENCE_LETTER_RUN.search(upper)
    if not match:
        status: Status = "empty" if not upper else "unparsed"
        return unparsed(status, "no letter A-D in the reply")
    letters = frozenset(re.findall(r"[A-D]", match.group(0)))
    return ParsedAnswer(letters, "answered", f"first letter run {match.group(0)!r}")


def reference_gold(answer: str) -> frozenset[str]:
    """The released gold extraction: the A-D words before the first `.` or `)`."""
    prefix = re.split(r"[.)]", answer.upper().strip(), maxsplit=1)[0]
    return frozenset(re.findall(r"\b[A-D]\b", prefix))


# --------------------------------------------------------------------------------------------
# strict parser: cleaning

REASONING_TAGS = ("think", "thinking", "reasoning", "reflection", "scratchpad")
CLOSED_BLOCK = re.compile(
    r"<(" + "|".join(REASONING_TAGS) + r")\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL
)
OPEN_TAG = re.compile(r"<(?:" + "|".join(REASONING_TAGS) + r")\b[^>]*>", re.IGNORECASE)
CLOSE_TAG = re.compile(r"</(?:" + "|".join(REASONING_TAGS) + r")\s*>", re.IGNORECASE)
LATEX_WRAPPERS = re.compile(r"\\(?:boxed|text|textbf|mathrm|mathbf)\s*\{([^{}]*)\}")
LINE_DECORATION = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|>[ \t]*|[-*+•][ \t]+)+", re.MULTILINE)


def strip_reasoning(text: str) -> tuple[str, bool]:
    """Remove reasoning blocks; report whether one was opened and never closed."""
    text = CLOSED_BLOCK.sub("\n", text)
    closes = list(CLOSE_TAG.finditer(text))
    if closes:  # a closing tag whose opening was never emitted (some chat templates)
        text = text[closes[-1].end() :]
    opening = OPEN_TAG.search(text)
    if opening:
        return text[: opening.start()], True
    return text, False


def clean_markdown(text: str) -> str:
    """Drop emphasis, code marks, headings, quotes, bullets and LaTeX wrappers; keep the words."""
    text = unicodedata.normalize("NFKC", text)
    for _ in range(2):
        text = LATEX_WRAPPERS.sub(r"\1", text)
    text = LINE_DECORATION.sub("", text)
    text = text.replace("**", "").replace("__", "").replace("`", "").replace("$", "")
    text = text.replace("*", "")
    text = re.sub(r"(?<!\w)_+|_+(?!\w)", "", text)
    text = re.sub(r"\\[()\[\]]", "", text)
    return text


# --------------------------------------------------------------------------------------------
# strict parser: option names

NAME_START, NAME_END = "\ue000", "\ue001"
NAME_TOKEN = re.compile(NAME_START + "([A-D])" + NAME_END)

SPELLING_VARIANTS: dict[str, tuple[str, ...]] = {
    "Posttraumatic": ("Post-traumatic", "Post traumatic"),
    "Generalized": ("Generalised",),
    "Presentation": ("Type", "Subtype"),
}
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "Attention-Deficit/Hyperactivity Disorder": ("ADHD",),
    "Posttraumatic Stress Disorder": ("PTSD",),
    "Obsessive-Compulsive Disorder": ("OCD",),
    "Generalized Anxiety Disorder": ("GAD",),
    "Major Depressive Disorder": ("MDD",),
    "Persistent Depressive Disorder": ("PDD",),
    "Body Dysmorphic Disorder": ("BDD",),
}


def name_forms(name: str) -> set[str]:
    """Ways of writing an option's name (matched ignoring case), abbreviations included.

    A parenthesised qualifier may also come after a comma, a dash or a colon, or be dropped.
    """
    match = re.match(r"^(.*?)\s*\((.*)\)$", name)
    base, qualifier = (match.group(1), match.group(2)) if match else (name, "")
    bases = {base}
    for word, variants in SPELLING_VARIANTS.items():
        bases |= {b.replace(word, v) for b in set(bases) for v in variants if word in b}
    qualifiers = {qualifier} if qualifier else set()
    for word, variants in SPELLING_VARIANTS.items():
        qualifiers |= {q.replace(word, v) for q in set(qualifiers) for v in variants if word in q}
    abbreviations = set(ABBREVIATIONS.get(base, ()))

    def with_qualifiers(stems: set[str]) -> set[str]:
        forms = set(stems)
        for stem in stems:
            for q in qualifiers:
                forms |= {f"{stem} ({q})", f"{stem}, {q}", f"{stem} - {q}", f"{stem}: {q}"}
        return forms

    return with_qualifiers(bases) | with_qualifiers(abbreviations)


def form_pattern(form: str) -> str:
    """A regex for a written form: flexible spaces, optional hyphens, loose slashes/brackets."""
    pattern = re.escape(form)
    pattern = pattern.replace(r"\ ", r"\s+").replace(r"\-", r"[-\s]?").replace("/", r"\s*/\s*")
    pattern = pattern.replace(r"\(", r"\(\s*").replace(r"\)", r"\s*\)").replace(",", r"\s*,")
    return r"(?<![\w" + NAME_START + r"])" + pattern + r"(?![\w" + NAME_END + r"])"


def mark_option_names(text: str, options: Sequence[str]) -> str:
    """Replace every written option name by a letter token; longest forms first.

    A form shared by two options (e.g. "Schizoaffective Disorder" when both subtypes are
    offered) identifies neither and is left as plain words.
    """
    owners: dict[str, set[str]] = {}
    for letter, name in zip(LETTERS, options, strict=False):
        for form in name_forms(name):
            owners.setdefault(form.casefold(), set()).add(letter)
    unique = [(form, next(iter(ls))) for form, ls in owners.items() if len(ls) == 1]
    unique.sort(key=lambda entry: len(entry[0]), reverse=True)
    for form, letter in unique:
        token = NAME_START + letter + NAME_END
        text = re.sub(form_pattern(form), token, text, flags=re.IGNORECASE)
    return text


# --------------------------------------------------------------------------------------------
# strict parser: tokens and letter expressions

TOKEN = re.compile(
    NAME_START + r"[A-D]" + NAME_END + r"|[A-Za-z]+(?:'[A-Za-z]+)?|\d+(?:\.\d+)?|[^\sA-Za-z\d]"
)
SEPARATORS = {",", "&", "/", ";", "+", "and", "plus"}
HEDGE_SEPARATORS = {"or", "either", "vs", "versus"}
TERMINATORS = {".", ":", "-", "–", "—", ")", "]", "!", "(", "["}
CLUSTER_GLUE = {".", ")", "(", ":", "-", "–", "—", "]", "["}
LETTER_FOLLOWERS = {"and", "or", "is", "are", "was", "would", "seems", "fits", "plus", "as"}
OPENERS = {"(", "[", "both", "option", "options", "choice", "choices", "letter", "letters"}
FILLERS = OPENERS | {
    "i", "think", "believe", "it's", "it", "is", "are", "would", "be", "the", "answer", "answers",
    "most", "likely", "probably", "definitely", "clearly", "correct", "best", "diagnosis",
    "diagnoses", "select", "selected", "choose", "chosen", "that", "consistent", "with",
    "applicable", "of", "in",
}  # fmt: skip
SET_PHRASE_WORDS = {"of", "the", "above", "these", "those", "options", "choices", "four", "listed"}
NEGATIONS = {
    "not", "unlikely", "less", "ruled", "excluded", "incorrect", "wrong", "isn't", "aren't",
    "doesn't", "don't", "cannot", "can't", "never", "neither", "nor", "lacks",
}  # fmt: skip
HEDGES = {
    "or", "either", "possibly", "possible", "perhaps", "maybe", "might", "could", "uncertain",
    "unsure", "unclear", "alternatively", "differential", "vs", "versus",
}  # fmt: skip
COMMITMENTS = {
    "correct",
    "right",
    "best",
    "answer",
    "answers",
    "likely",
    "appropriate",
    "consistent",
}
NONE_WORDS = {"none", "neither"}


@dataclass
class Token:
    kind: str  # NAME, WORD, NUM, PUNCT
    text: str

    @property
    def lower(self) -> str:
        return self.text.lower()


def tokenize(segment: str) -> list[Token]:
    tokens = []
    for match in TOKEN.finditer(segment):
        text = match.group(0)
        if text.startswith(NAME_START):
            tokens.append(Token("NAME", text[1]))
        elif text[0].isalpha():
            tokens.append(Token("WORD", text))
        elif text[0].isdigit():
            tokens.append(Token("NUM", text))
        else:
            tokens.append(Token("PUNCT", text))
    return tokens


def letter_of(tokens: list[Token], index: int) -> str | None:
    """The option letter a token stands for, if it is an option letter or name here.

    An upper-case A-D counts unless a plain word follows it ("A patient" is an article);
    a lower-case a-d counts only when nothing word-like follows it.
    """
    token = tokens[index]
    if token.kind == "NAME":
        return token.text
    if token.kind != "WORD" or len(token.text) != 1 or token.text.upper() not in LETTERS:
        return None
    following = tokens[index + 1] if index + 1 < len(tokens) else None
    if following is None or following.kind in ("PUNCT", "NAME"):
        return token.text.upper()
    if following.kind == "WORD" and following.lower in LETTER_FOLLOWERS and token.text.isupper():
        return token.text
    if following.kind == "WORD" and following.lower in SEPARATORS | HEDGE_SEPARATORS:
        return token.text.upper()
    return None


def compact_letters(token: Token) -> list[str] | None:
    """`AC` or `BD` written without separators: distinct upper-case letters A-D, two or more."""
    text = token.text
    if token.kind == "WORD" and 2 <= len(text) <= 4 and set(text) <= set(LETTERS):
        if len(set(text)) == len(text):
            return list(text)
    return None


@dataclass
class Expression:
    """The letters at the start of a segment and what follows them."""

    letters: list[str]
    end: int  # index of the first token after the expression
    dangling: bool  # ended on a separator ("A, not B")
    problem: str = ""  # non-empty: the expression is ambiguous
    none: bool = False  # "none of the above"


def read_expression(tokens: list[Token], start: int = 0, fillers: bool = True) -> Expression:
    """Letters joined by separators from `start`, e.g. `C`, `A & B`, `C) <name>`, `A, C and D`.

    A letter and a name for the same option ("C. Schizophrenia") count once; letters next
    to the names of other options, or an `or` between options, are ambiguous.
    """
    letters: list[str] = []
    index, dangling = start, False
    count = len(tokens)
    while index < count:
        skippable = FILLERS if fillers else OPENERS
        while index < count and tokens[index].lower in skippable:
            if letter_of(tokens, index):
                break
            index += 1
        if index >= count:
            break
        token = tokens[index]
        if not letters and token.kind == "WORD" and token.lower in NONE_WORDS | {"all"}:
            after = index + 1
            while after < count and tokens[after].lower in SET_PHRASE_WORDS:
                after += 1
            if token.lower != "all":
                return Expression([], after, False, none=True)
            if after > index + 1:
                return Expression(list(LETTERS), after, False)
        if token.kind == "WORD" and token.lower in HEDGE_SEPARATORS:
            return Expression(letters, index, False, problem=f"hedged with '{token.text}'")
        compact = compact_letters(token)
        letter = letter_of(tokens, index)
        if compact and not letter:
            nxt = tokens[index + 1] if index + 1 < count else None
            if nxt is None or nxt.kind == "PUNCT":
                letters.extend(compact)
                index += 1
                dangling = False
                continue
        if letter is None:
            break
        # a name joins its letter ("A. <name>, B. <name>") unless bare letters came first: then
        # the names are a restatement of the whole set ("A & C. <name> & <name>")
        attach = not letters or any(t.kind == "NAME" for t in tokens[start:index])
        cluster, index = read_cluster(tokens, index, attach)
        if len(set(cluster)) > 1:
            return Expression(letters, index, False, problem=f"options {cluster} run together")
        letters.append(cluster[0])
        dangling = False
        if index < count and tokens[index].lower in HEDGE_SEPARATORS:
            return Expression(letters, index, False, problem=f"hedged with '{tokens[index].text}'")
        if index < count and tokens[index].lower in SEPARATORS:
            index += 1
            dangling = True
            while index < count and tokens[index].lower in SEPARATORS:
                index += 1
            continue
        break
    if letters and not any(t.kind == "NAME" for t in tokens[start:index]):
        return restated(tokens, Expression(letters, index, dangling))
    return Expression(letters, index, dangling and bool(letters))


def restated(tokens: list[Token], bare: Expression) -> Expression:
    """Bare letters followed by option names (`A & C. <name> & <name>`, `C (<name>)`): the
    names must name the same options, else the reply contradicts itself."""
    probe = bare.end
    while probe < len(tokens) and tokens[probe].text in CLUSTER_GLUE:
        probe += 1
    if probe >= len(tokens) or tokens[probe].kind != "NAME":
        return bare
    names = read_expression(tokens, probe, fillers=False)
    if names.problem:
        return names
    if set(names.letters) != set(bare.letters):
        problem = f"letters {sorted(set(bare.letters))} but names of {sorted(set(names.letters))}"
        return Expression(bare.letters, names.end, False, problem=problem)
    return Expression(bare.letters, names.end, names.dangling)


def read_cluster(tokens: list[Token], index: int, attach: bool = True) -> tuple[list[str], int]:
    """One option written as a letter and/or its name, e.g. `C`, `(C)`, `C) <name>`, `<name> (C)`.

    Returns the letters the cluster names (two different ones mean a contradiction) and the
    index after it, past any closing bracket. `attach=False` keeps a letter's name out.
    """
    count = len(tokens)
    first = tokens[index]
    found = [letter_of(tokens, index) or ""]
    has_name, has_letter = first.kind == "NAME", first.kind != "NAME"
    index += 1
    while index < count:
        probe = index
        while probe < count and tokens[probe].text in CLUSTER_GLUE:
            probe += 1
        if probe >= count:
            break
        glue = {t.text for t in tokens[index:probe]}
        candidate = tokens[probe]
        if candidate.kind == "NAME" and attach and not has_name and candidate.text == found[0]:
            found.append(candidate.text)
            has_name, index = True, probe + 1
            continue
        letter = letter_of(tokens, probe)
        if letter and candidate.kind == "WORD" and not has_letter and glue & {"(", "[", ":", "-"}:
            found.append(letter)
            has_letter, index = True, probe + 1
            continue
        break
    while index < count and tokens[index].text in (")", "]"):
        index += 1
    return found, index


# --------------------------------------------------------------------------------------------
# strict parser: reading a segment

Reading = tuple[str, frozenset[str] | None, str]  # (kind: letters/none/ambiguous/nothing, ...)


def mentions(tokens: list[Token]) -> set[str]:
    return {letter for i in range(len(tokens)) if (letter := letter_of(tokens, i))}


def judge_rest(expression: Expression, tokens: list[Token]) -> str | None:
    """Why the words after an expression undo it ('negated', 'ambiguous: ...'), else None."""
    rest = tokens[expression.end :]
    words = [t.lower for t in rest if t.kind == "WORD"]
    linking = {"which", "that", "is", "are", "was", "would", "be", "seems", "it", "this"}
    for position, token in enumerate(rest[:5]):
        if token.kind == "PUNCT" or token.lower in linking:
            continue
        # "A, not B" negates B; "A is not correct" and "A, which is unlikely" negate A
        names_next = position + 1 < len(rest) and letter_of(rest, position + 1) is not None
        if token.lower in NEGATIONS and not names_next:
            return "negated"
        break
    others = mentions(rest) - set(expression.letters)
    if others and any(word in HEDGES for word in words):
        return f"ambiguous: hedged between {sorted(set(expression.letters))} and {sorted(others)}"
    return None


def commits(expression: Expression, tokens: list[Token]) -> bool:
    """`C is the correct answer`, `B and D are most likely`, `C fits best`."""
    words = [t.lower for t in tokens[expression.end : expression.end + 6] if t.kind == "WORD"]
    if not words:
        return False
    if words[0] in ("fits", "fit"):
        return True
    return words[0] in ("is", "are", "would", "seems") and any(w in COMMITMENTS for w in words[1:])


def standalone(expression: Expression, tokens: list[Token]) -> bool:
    """The expression is a label of its own: nothing, or punctuation, comes right after it."""
    if expression.end >= len(tokens) or expression.dangling:
        return True
    return tokens[expression.end].kind == "PUNCT" and tokens[expression.end].text in TERMINATORS


def read_segment(segment: str, need_label: bool) -> Reading:
    """Read the letters at the start of a segment.

    `need_label`: outside an explicit answer statement, only a stand-alone label or a
    committing sentence ("C is the most likely") counts as an answer.
    """
    tokens = tokenize(segment)
    if not tokens:
        return ("nothing", None, "")
    if tokens[0].kind == "WORD" and tokens[0].lower in NEGATIONS:
        return ("nothing", None, "negated")
    expression = read_expression(tokens, fillers=not need_label)
    if expression.problem:
        return ("ambiguous", None, expression.problem)
    if expression.none:
        return ("none", frozenset(), "'none of the options'")
    if not expression.letters:
        return ("nothing", None, "")
    verdict = judge_rest(expression, tokens)
    if verdict == "negated":
        return ("nothing", None, "negated")
    if verdict:
        return ("ambiguous", None, verdict)
    if need_label and not (standalone(expression, tokens) or commits(expression, tokens)):
        return ("nothing", None, "")
    return ("letters", frozenset(expression.letters), "")


def is_pure(segment: str) -> bool:
    """The whole segment is a letter expression (a line of a list answer or an echoed option)."""
    tokens = tokenize(segment)
    expression = read_expression(tokens, fillers=False)
    if not expression.letters or expression.problem:
        return False
    tail = tokens[expression.end :]
    return all(t.kind == "PUNCT" for t in tail)


def read_block(lines: list[str], need_label: bool) -> tuple[Reading, int]:
    """Read the first line; when it is a pure expression, the pure lines after it join it.

    Returns the reading and the number of lines it used. Three or more pure lines naming all
    four options are the options echoed back, not an answer.
    """
    if not lines:
        return ("nothing", None, ""), 0
    first = read_segment(lines[0], need_label)
    if first[0] != "letters" or not is_pure(lines[0]):
        return first, 1
    assert first[1] is not None
    letters = set(first[1])
    taken = 1
    for line in lines[1:]:
        if not is_pure(line):
            break
        reading = read_segment(line, need_label)
        if reading[0] != "letters" or reading[1] is None:
            break
        letters |= reading[1]
        taken += 1
    if taken >= 3 and len(letters) == len(LETTERS):
        return ("nothing", None, "the options repeated"), taken
    return ("letters", frozenset(letters), ""), taken


# --------------------------------------------------------------------------------------------
# strict parser: answer statements and the whole reply

QUALIFIED = r"(?:final|correct|best|right|chosen|selected|my|most\s+(?:likely|appropriate))"
MARKER = re.compile(
    r"\b(?:answers?|diagnos[ie]s|selections?|outputs?)(?:\s*\(s\))?[ \t]*"
    r"(?::|=|[-–—](?!\w)|\bis\b|\bare\b|\bwould\s+be\b|\bwill\s+be\b)"
    r"|\b" + QUALIFIED + r"\s+(?:options?|choices?|selections?)\s*(?::|\bis\b|\bare\b)"
    # "the answer to this case is D", "the answer for the patient would be B"
    r"|\banswers?\s+(?:to|for)\s+(?:[\w']+\s+){1,3}?(?:is|are|would\s+be)\b"
    # "the presentation supports the diagnosis of <name>"
    r"|\bsupports?\s+(?:the|a|an)\s+diagnos[ie]s\s+of\b"
    r"|\bI\s*(?:would|will|'d)?\s*(?:choose|select|pick|go\s+with)\b"
    r"|\bmost\s+(?:likely|consistent\s+with|probable)\b(?:\s+(?:diagnosis\s+)?(?:is|are))?"
    r"|\b(?:fits|matches)\s+best\s+(?:with\s+)?",
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


def settle(readings: list[Reading], where: str) -> ParsedAnswer | None:
    """Combine readings of different parts of a reply: agree -> answer, disagree -> ambiguous."""
    found = [r for r in readings if r[0] != "nothing"]
    if not found:
        return None
    ambiguous = [r for r in found if r[0] == "ambiguous"]
    if ambiguous:
        return unparsed("ambiguous", f"{where}: {ambiguous[0][2]}")
    sets = {r[1] for r in found if r[1] is not None}
    if len(sets) > 1:
        shown = " vs ".join("".join(sorted(s)) or "none" for s in sets)
        return unparsed("ambiguous", f"{where}: the reply gives different answers ({shown})")
    letters = sets.pop()
    if not letters:
        return ParsedAnswer(frozenset(), "none", f"{where}: none of the options")
    return ParsedAnswer(letters, "answered", where)


def parse_strict(text: object, options: Sequence[str]) -> ParsedAnswer:
    """Read a reply as a careful reader would; whatever stays ambiguous is left unparsed."""
    if not isinstance(text, str) or not text.strip():
        return unparsed("empty", "empty reply")
    body, unfinished = strip_reasoning(text)
    body = clean_markdown(body)
    if not body.strip():
        reason = "the reasoning block never ended" if unfinished else "only reasoning, no answer"
        return unparsed("empty", reason)
    body = mark_option_names(body, options)
    lines = [line.strip() for line in body.splitlines() if line.strip()]

    # 1. an explicit answer statement: the last one that says something decides
    for marker in reversed(list(MARKER.finditer(body))):
        after = body[marker.end() :]
        head, _, below = after.partition("\n")
        if re.search(r"\w", head):
            reading, _ = read_block([head.strip()], need_label=False)
        else:
            below_lines = [line.strip() for line in below.splitlines() if line.strip()]
            reading, _ = read_block(below_lines, need_label=False)
        if reading[0] != "nothing":
            settled = settle([reading], f"answer statement {marker.group(0).strip()!r}")
            if settled is not None:
                return settled

    # 2. labels: on the first line (or a list of them), on the last line, or closing the last
    #    line after a comma or colon ("Based on the symptoms, A."); all that are found must agree
    first, used = read_block(lines, need_label=True)
    readings = [first]
    if len(lines) > used:
        readings.append(read_segment(lines[-1], need_label=True))
    if readings[-1][0] == "nothing":
        tail = re.split(r"[,:;]", lines[-1])[-1].strip()
        if tail != lines[-1] and is_pure(tail):
            readings.append(read_segment(tail, need_label=True))
    settled = settle(readings, "label")
    if settled is not None:
        return settled
    if REFUSAL.search(body):
        return unparsed("refusal", "the model declined to answer")
    return unparsed("unparsed", "no answer found")


Parser = Callable[[object, Sequence[str]], ParsedAnswer]
PARSERS: dict[str, Parser] = {"strict": parse_strict, "reference": parse_reference}


def get_parser(name: str) -> Parser:
    """The parser called `name` ('strict' or 'reference')."""
    if not isinstance(name, str) or name not in PARSERS:
        raise ArgumentError(f"parser: {name!r} is not one of {', '.join(sorted(PARSERS))}")
    return PARSERS[name]
