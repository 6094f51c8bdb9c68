"""The grammar of letter answers: letters joined into expressions (`A & C`, `C) <name>`,
`none of the above`), with hedges and contradictions marked as problems; the tokens they are
read from are `letter_tokens`'."""

from __future__ import annotations

from dataclasses import dataclass

from selfdx.datasets.mentalbench.schema import LETTERS
from selfdx.instruments.answers.letter_tokens import (
    HEDGE_SEPARATORS,
    NEGATIONS,
    SEPARATORS,
    Token,
    compact_letters,
    letter_of,
)

CLUSTER_GLUE = {".", ")", "(", ":", "-", "–", "—", "]", "["}
OPENERS = {
    "(",
    "[",
    "both",
    "option",
    "options",
    "choice",
    "choices",
    "letter",
    "letters",
    "only",
}
FILLERS = OPENERS | {
    "i", "think", "believe", "it's", "it", "is", "are", "would", "be", "the", "answer", "answers",
    "most", "likely", "probably", "definitely", "clearly", "correct", "best", "diagnosis",
    "diagnoses", "select", "selected", "choose", "chosen", "that", "consistent", "with",
    "applicable", "of", "in",
}  # fmt: skip
# Fillers that say the writer is unsure: skipped before the first letter ("probably B"), but
# after one they qualify the next ("B and probably C"), so the expression stops there.
UNSURE_WORDS = {"i", "think", "believe", "most", "likely", "probably"}
# A joiner that opens a bracket: the remark adds an option ("B (and C as a comorbidity)").
BRACKET_JOINERS = {"and", "plus", "+", "&"}
SET_PHRASE_WORDS = {
    "of", "the", "above", "these", "those", "options", "option", "choices", "four", "listed",
    "them",
}  # fmt: skip
NONE_WORDS = {"none", "neither"}
ALL_WORDS = {"all", "everything", "every"}
# After "all" or "none": what it leaves out ("all options apply except A and C", "none but B").
EXCEPT_WORDS = {"except", "but", "excluding", "bar", "besides", "save"}
EXCEPT_VERBS = {"apply", "applies", "fit", "fits", "are", "is", "correct", "match", "matches", ","}


def excepted_letters(tokens: list[Token], index: int) -> tuple[list[str], int, str] | None:
    """The letters an exception names from `index` (past a verb such as "apply"), the index after
    them and any problem; None where no exception with letters follows."""
    count = len(tokens)
    while index < count and tokens[index].lower in EXCEPT_VERBS:
        index += 1
    if index + 1 < count and (tokens[index].lower, tokens[index + 1].lower) in (
        ("apart", "from"),
        ("other", "than"),
        ("except", "for"),
    ):
        index += 1
    elif index >= count or tokens[index].lower not in EXCEPT_WORDS:
        return None
    named = read_expression(tokens, index + 1, fillers=False)
    if not named.letters:
        return None
    return named.letters, named.end, named.problem


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
        # after a letter, "with" joins nothing ("C, with A as a differential"): it ends the list
        skippable = (
            (FILLERS if not letters else FILLERS - UNSURE_WORDS - {"with"}) if fillers else OPENERS
        )
        while index < count and tokens[index].lower in skippable:
            if letter_of(tokens, index):
                break
            index += 1
        if index >= count:
            break
        token = tokens[index]
        if not letters and token.kind == "WORD" and token.lower in NONE_WORDS | ALL_WORDS:
            after = index + 1
            while after < count and tokens[after].lower in SET_PHRASE_WORDS:
                after += 1
            excepted = excepted_letters(tokens, after)
            if excepted is not None:  # "all options apply except A and C", "none but B"
                named, end, problem = excepted
                if problem:
                    return Expression([], end, False, problem=problem)
                if token.lower in NONE_WORDS:
                    return Expression(named, end, False)
                return Expression([x for x in LETTERS if x not in named], end, False)
            if token.lower not in ALL_WORDS:
                return Expression([], after, False, none=True)
            if after > index + 1 and after < count and letter_of(tokens, after):
                index = after  # "all of B, C": those letters, not every option
                continue
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
        index = past_remark(tokens, index, cluster[0])
        while (
            index + 1 < count
            and tokens[index].lower == "or"
            and letter_of(tokens, index + 1) == cluster[0]
        ):
            index += 2  # "B or <B's name>": the same option twice, no choice
        if index < count and tokens[index].lower in HEDGE_SEPARATORS:
            return Expression(letters, index, False, problem=f"hedged with '{tokens[index].text}'")
        if opens_added_option(tokens, index):
            index += 1  # "B (and C ...)", "B (with comorbid C)": read on inside the bracket
        if index < count and comorbid_at(tokens, index):
            index = comorbid_at(tokens, index)
            dangling = True
            continue
        if index < count and tokens[index].lower in SEPARATORS:
            index += 1
            dangling = True
            # "B; comorbid C", "A, co-occurring D": the word says how the next one joins
            while index < count and (
                tokens[index].lower in SEPARATORS
                or joining_word(tokens, index)
                or comorbid_at(tokens, index)
            ):
                index = comorbid_at(tokens, index) or joining_word(tokens, index) or index + 1
            continue
        break
    if letters and not any(t.kind == "NAME" for t in tokens[start:index]):
        return restated(tokens, Expression(letters, index, dangling))
    return Expression(letters, index, dangling and bool(letters))


def bracket_end(tokens: list[Token], index: int, own: str) -> int:
    """The index after the bracket open at `index` when it closes within 40 tokens and names no
    option but `own`; else `index`."""
    for end in range(index, min(index + 40, len(tokens))):
        if tokens[end].text in (")", "]"):
            return end + 1
        if letter_of(tokens, end) not in (None, own) or tokens[end].text in ("(", "["):
            return index
    return index


def past_remark(tokens: list[Token], index: int, own: str = "") -> int:
    """The index after a bracketed remark that names no option but `own`, the option before it
    ("A (contamination obsessions) plus D", "B (specific phobia, dogs) and C"), when a separator
    follows it; else `index`."""
    if index >= len(tokens) or tokens[index].text not in ("(", "["):
        return index
    for end in range(index + 1, min(index + 40, len(tokens))):
        if tokens[end].text in (")", "]"):
            inside = range(index + 1, end)
            if any(
                letter_of(tokens, i) not in (None, own) or tokens[i].text == "?" for i in inside
            ):
                return index
            after = end + 1
            if after < len(tokens) and (
                tokens[after].lower in SEPARATORS | HEDGE_SEPARATORS or comorbid_at(tokens, after)
            ):
                return after
            return index
    return index


def opens_added_option(tokens: list[Token], index: int) -> bool:
    """Whether a bracket opens at `index` with a word that adds an option to the one before it:
    "(and C ...)", "(plus C ...)", "(with comorbid C)"."""
    if index + 1 >= len(tokens) or tokens[index].text not in ("(", "["):
        return False
    return tokens[index + 1].lower in BRACKET_JOINERS or bool(comorbid_at(tokens, index + 1))


def joining_word(tokens: list[Token], index: int) -> int:
    """The index after a word that says an option co-occurs with the one before ("comorbid",
    "co-occurring", "coexisting") when an option follows it, else 0."""
    for phrase in (["comorbid"], ["co", "-", "occurring"], ["coexisting"], ["concurrent"]):
        end = index + len(phrase)
        if [t.lower for t in tokens[index:end]] == phrase and end < len(tokens):
            return end if letter_of(tokens, end) else 0
    return 0


# Words that join a second option to the first only when an option follows them at once:
# "C with D", "C alongside D", "C as well as D" (not "C with anxious distress").
JOINED_BEFORE_AN_OPTION = (
    ["with"], ["alongside"], ["along", "with"], ["together", "with"], ["as", "well", "as"],
    ["in", "addition", "to"], ["and", "also"], ["and", "additionally"],
)  # fmt: skip


def comorbid_at(tokens: list[Token], index: int) -> int:
    """The index after "with comorbid" / "with co-occurring" / "comorbid with" at `index`, or
    after "with" / "alongside" / "as well as" right before an option (a second option joined
    to the first), else 0."""
    words = [t.lower for t in tokens[index : index + 4]]
    for phrase in (["with", "comorbid"], ["with", "co", "-", "occurring"], ["comorbid", "with"],
                   ["and", "comorbid"], ["plus", "comorbid"], ["with", "coexisting"],
                   ["co", "-", "occurring", "with"], ["coexisting", "with"]):  # fmt: skip
        if words[: len(phrase)] == phrase:
            return index + len(phrase)
    for phrase in JOINED_BEFORE_AN_OPTION:
        end = index + len(phrase)
        if words[: len(phrase)] == phrase and end < len(tokens) and letter_of(tokens, end):
            return end
    return 0


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
            if glue & {"(", "["}:  # "B (<B's name>, dogs)": the rest of the bracket is a remark
                index = bracket_end(tokens, index, found[0])
            continue
        letter = letter_of(tokens, probe)
        bracketed = glue & {"(", "["}
        closes = probe + 1 >= count or tokens[probe + 1].text in (")", "]")
        if candidate.kind == "NAME" and bracketed and closes:
            # "<name> (<another name of it>)" ("PDD (dysthymia)") is one option; a bracketed name
            # of another ("PDD (MDD)") contradicts it
            if candidate.text != found[0]:
                found.append(candidate.text)
            index = probe + 1
            continue
        if bracketed and not closes:
            letter = None  # "<name> (A, B)": a list restating the set, not this option's letter
        if letter and candidate.kind == "WORD" and not has_letter and glue & {"(", "[", ":", "-"}:
            found.append(letter)
            has_letter, index = True, probe + 1
            continue
        break
    while index < count and tokens[index].text in (")", "]"):
        index += 1
    return found, index


def without_negated_brackets(tokens: list[Token]) -> list[Token]:
    """Tokens without a bracketed remark that opens with a negation ("A, D (not B or C)"): the
    options in it are ruled out, not offered."""
    kept: list[Token] = []
    skip_to = -1
    for index, token in enumerate(tokens):
        if index < skip_to:
            continue
        if token.text == "(" and index + 1 < len(tokens) and tokens[index + 1].lower in NEGATIONS:
            close = next(
                (j for j in range(index + 1, len(tokens)) if tokens[j].text == ")"), len(tokens)
            )
            skip_to = close + 1
            continue
        kept.append(token)
    return kept


def without_negated_lists(tokens: list[Token]) -> list[Token]:
    """Tokens without a list of options that a negation opens after a break ("B and C, not A
    or D", "A; neither B nor C"): "or" there joins what is ruled out, it offers no choice. A
    list with any other word in it ("not A or maybe D") is kept, so its hedge is seen."""
    for index, token in enumerate(tokens):
        opens = index == 0 or tokens[index - 1].text in (",", ";", "-", "–", "—", "(")
        if token.lower not in ("not", "neither") or not opens:
            continue
        end = index + 1
        while end < len(tokens) and (
            letter_of(tokens, end) or tokens[end].lower in ("or", "nor", "and", ",", "&", "/")
        ):
            if tokens[end].text == "," and end + 1 < len(tokens) and tokens[end + 1].lower in (
                "and", "plus", "but", "with",
            ):  # fmt: skip
                break  # "A, not C, and B": the negation ends at the comma
            end += 1
        listed = any(letter_of(tokens, i) for i in range(index + 1, end))
        closed = end == len(tokens) or tokens[end].text in (".", ";", ")", "!")
        if listed and closed:
            return tokens[:index] + tokens[end:]
    return tokens
