"""The text the strict parser reads: reasoning blocks and markdown dropped, option names
replaced by letter tokens."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from selfdx.datasets.mentalbench.schema import LETTERS
from selfdx.instruments.answers.disorder_terms import disorder_terms, named_codes
from selfdx.instruments.answers.doubt import without_struck

LATEX_WRAPPERS = re.compile(r"\\(?:boxed|text|textbf|mathrm|mathbf)\s*\{([^{}]*)\}")
LINE_DECORATION = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|>[ \t]*|[-*+•][ \t]+)+", re.MULTILINE)


# Boxed options joined into one set: "\boxed{A} \text{ and } \boxed{D}", "\boxed{A}, \boxed{D}".
BOXED_PAIR = re.compile(
    r"\\boxed\s*\{\s*([A-H](?:\s*&\s*[A-H])*)\s*\}\s*(?:\\text\s*\{\s*(?:and|&)\s*\}|and|&|\\&|,|\+)\s*"
    r"\\boxed\s*\{\s*([A-H])\s*\}"
)
BOXED = re.compile(r"(?<![:\w])[ \t]*\\boxed\s*\{([^{}]{1,40})\}")


def boxed_statement(match: re.Match[str]) -> str:
    """A boxed answer as an answer statement, unless its line already says it is the answer
    ("Final answer: $\\boxed{C}$")."""
    line = match.string[match.string.rfind("\n", 0, match.start()) + 1 : match.start()]
    if re.search(r"answer|final|diagnos|option", line, re.IGNORECASE):
        return match.group(0)
    return f"Final answer: {match.group(1).replace(chr(92) + '&', '&')}"


SUPERSCRIPT = re.compile(r"[\u00b9\u00b2\u00b3\u2070-\u2079]+")


def clean_markdown(text: str) -> str:
    """Drop emphasis, code marks, headings, quotes, bullets and LaTeX wrappers; keep the words."""
    # a footnote mark ("A, B¹") is no digit of the answer: it goes before NFKC makes it "1"
    text = SUPERSCRIPT.sub("", text)
    text = without_struck(text)  # "~~A~~ B": what is struck through is taken back
    # a boxed answer is an answer statement of its own, so that one that differs from the
    # reply's other statement is seen ("The presentation supports C and B." then "\boxed{C}")
    while BOXED_PAIR.search(text):
        text = BOXED_PAIR.sub(r"\\boxed{\1 & \2}", text)
    text = BOXED.sub(boxed_statement, text).replace("\\&", "&")
    # NFKC makes full-width "，" and "：" plain; the ideographic comma and full stop stay
    text = unicodedata.normalize("NFKC", text).replace("、", ", ").replace("。", ". ")
    for _ in range(2):
        text = LATEX_WRAPPERS.sub(r"\1", text)
    text = LINE_DECORATION.sub("", text)
    text = text.replace("**", "").replace("__", "").replace("`", "").replace("$", "")
    text = text.replace("*", "")
    text = re.sub(r"(?<!\w)_+|_+(?!\w)", "", text)
    text = re.sub(r"\\[()\[\]]", "", text)
    return text


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


# A name joined to a word that makes it something else: "OCD-spectrum", "PTSD-like".
NOT_THE_DISORDER = r"(?![-\s]?(?:spectrum|like|ish|related|esque|adjacent)\b)"


def form_pattern(form: str) -> str:
    """A regex for a written form: flexible spaces, optional hyphens, loose slashes/brackets."""
    pattern = re.escape(form)
    pattern = pattern.replace(r"\ ", r"\s+").replace(r"\-", r"[-\s]?").replace("/", r"\s*/\s*")
    pattern = pattern.replace(r"\(", r"\(\s*").replace(r"\)", r"\s*\)").replace(",", r"\s*,")
    return (
        r"(?<![\w" + NAME_START + r"])" + pattern + r"(?![\w" + NAME_END + r"])" + NOT_THE_DISORDER
    )


def mark_option_names(text: str, options: Sequence[str]) -> str:
    """Replace every written option name by a letter token; longest forms first.

    A form shared by two options (e.g. "Schizoaffective Disorder" when both subtypes are
    offered) identifies neither and is left as plain words.
    """
    text = mark_disorder_terms(text, options)  # the longer clinical wordings first
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


def mark_disorder_terms(text: str, options: Sequence[str]) -> str:
    """Mark the other wordings of an option's disorder (`disorder_terms`: "ADHD, combined type",
    "Bipolar 2", "MDD"): a wording that may mean the disorders of exactly one option is that
    option ("ADHD" when one ADHD presentation is offered); one that fits several is left."""
    codes = [named_codes(name) for name in options]
    limit = len(text) + 1  # replace from the end, never inside a span already replaced
    for term in sorted(disorder_terms(text), key=lambda t: (t.start, t.end), reverse=True):
        if term.end > limit:
            continue
        owners = [i for i, own in enumerate(codes) if own and own <= term.codes]
        if re.match(NOT_THE_DISORDER, text[term.end :]) is None:
            continue  # "OCD-spectrum": no disorder of its own
        if len(owners) == 1 and NAME_START not in text[term.start : term.end]:
            token = NAME_START + LETTERS[owners[0]] + NAME_END
            text = text[: term.start] + token + text[term.end :]
            limit = term.start
    return text


# The members of a set of diagnoses, and what marks a member as a disorder's name (misspelt ones
# too: "disoder", "obsesive") or an option's letter.
SET_ITEM = re.compile(r"\s*(?:[,;&+\n]|\band\b|\bplus\b|\bwith\s+comorbid\b)\s*", re.IGNORECASE)
DISORDER_NOUN = re.compile(
    r"disorder|disoder|dissorder|disroder|disordr|syndrome|nervosa|phobia|depressi|psychosis"
    r"|schizo|anxiety|mania|thymi|bulimi|anorexi|autis|dementia|delirium|catatoni|hypochondri"
    r"|personality",
    re.IGNORECASE,
)
LETTER_ITEM = re.compile(r"(?:^|[\s(])[A-H](?:$|[\s).:])")


SET_LABEL = re.compile(r"^[\s*#>-]*(?:(?:final\s+)?(?:answer|diagnos[ie]s)\s*[:=-])?\s*", re.I)
NAME_WORDS = re.compile(r"^[\w\s'/\ue000\ue001-]+$")
PROSE_WORD = re.compile(
    r"\b(?:no|not|is|are|was|were|so|because|since|as|but|although|though|cannot|can't|out"
    r"|reported|present|excluded|ruled)\b",
    re.IGNORECASE,
)


def unnamed_members(line: str) -> list[str]:
    """In a line that only lists names (two or more short members, after an "Answer:" label),
    the members that name a disorder (`DISORDER_NOUN`) but hold no option's name marked by
    `mark_option_names` and no option's letter: "A and obsesive compulsive disoder" lists one,
    so the set is not the one it seems. Prose ("A, since the mood disorder came first") is no
    such line."""
    line = re.sub(r"\([^()]*\)", " ", SET_LABEL.sub("", line))  # asides are no members
    items = [item for item in SET_ITEM.split(line.rstrip(" .!")) if item.strip()]
    if len(items) < 2 or not all(
        NAME_WORDS.match(item) and len(item.split()) <= 5 and not PROSE_WORD.search(item)
        for item in items
    ):
        return []
    return [
        item
        for item in items
        if DISORDER_NOUN.search(item) and NAME_START not in item and not LETTER_ITEM.search(item)
    ]
