"""Whether the codes a reply keeps commit to one: two offered as a choice (`offered_as_choice`),
one kept open beside another (`undecided`, `kept_open_beside`), two given together (`several`),
a code hedged in its sentence (`hedged`), and a cause beside the mental disorder it brings about
(`resolved`, `beside_cause`, `cause_pair`; the rule is stated in `icd_code`)."""

from __future__ import annotations

import re

from selfdx.datasets.icd10 import extract_codes, manifestation_code, normalize_code
from selfdx.instruments.answers.code_clauses import ASIDE, CLAUSE, CODE, OPEN
from selfdx.instruments.answers.doubt import EQUALLY

CHOICE = re.compile(
    r"\b(?:or|vs\.?|versus|either|possible|both\s+(?:are|remain|fit)"
    r"|cannot\s+(?:distinguish|decide)|can't\s+(?:distinguish|decide)|between"
    # "or" in other languages: German, French, Spanish, Italian, Portuguese
    r"|oder|ou|o|oppure)\b"
    r"|または|あるいは|もしくは|或いは|或者|还是|或",  # Japanese, Chinese
    re.IGNORECASE,
)
# Chapter V codes that name a disorder by a condition coded elsewhere, so they are written after
# their cause: organic disorders (F00-F09: "G30.1 F00.1", "E03.9 F06.3", "S06.2 F07.0") and
# those due to a substance (F10-F19: "E51.2 F10.6"), the puerperal (F53, "O99.3 F53.0") and
# the psychological factors of a physical disease (F54, "L20.8 F54").
MENTAL_BESIDE_CAUSE = re.compile(r"^F(?:0\d|1\d|53|54)")
UNDECIDED = re.compile(
    r"\b(?:possible\s+diagnos[ie]s|differential|working\s+diagnoses|both\s+(?:are|remain|fit|seem)"
    r"|further\s+(?:\w+\s+)?assessment"
    r"|cannot\s+(?:distinguish|decide)|can't\s+(?:distinguish|decide)|one\s+of\s+(?:these|them))\b",
    re.IGNORECASE,
)
# The writer's own doubt in the sentence that gives the code ("Probably F43.1", "F43.1, I think,
# but not sure"); "most likely", "less likely" and "not likely" are a ranking or a negation.
HEDGE = re.compile(
    r"(?<!most\s)(?<!more\s)(?<!less\s)(?<!not\s)\b(?:probable|probably|likely|maybe|perhaps)\b"
    r"|\b(?:could|might|would)\s+be\b|\bif\b|\bsounds?\s+like\b|\blean(?:s|ing)?\s+towards?\b"
    r"|\b(?:one|an)\s+option\b|\btoo\s+early\b|\bpremature\b|\bbefore\s+diagnos\w*"
    r"|\b(?:cannot|can't|can\s+not|unable\s+to)\s+(?:yet\s+)?(?:make\s+a\s+)?diagnos\w*"
    r"|\b(?:cannot|can't|can\s+not|unable\s+to)\s+(?:yet\s+)?(?:make|assign|give|offer|reach|settle)"
    r"\s+(?:on\s+)?(?:a\s+|any\s+)?(?:firm\s+|definitive\s+|single\s+)?diagnos\w*"
    r"|\bnot\s+(?:sure|certain|confident)\b|\bunsure\b"
    r"|\b(?:cannot|can't|can\s+not)\s+be\s+(?:sure|certain)\b",
    re.IGNORECASE,
)
SENTENCE = re.compile(r"(?<!\d)\.(?!\d)|\.(?=\s)|[?!\n]")
# Another code kept open beside a statement ("Diagnosis: F32.1. F33.1 cannot be excluded.",
# "Diagnosis: F32.1 (differential: F31.4)"): the statement is no commitment.
KEPT_OPEN = re.compile(
    r"\b(?:cannot|can't|can\s+not)\s+(?:yet\s+)?be\s+(?:excluded|ruled\s+out)"
    r"|\bnot\s+(?:yet\s+)?(?:been\s+)?(?:excluded|ruled\s+out)|\bremains?\s+possible"
    r"|\bneeds?\s+to\s+be\s+(?:excluded|ruled\s+out)|\b(?:differential|ddx)\s*[:：]"
    rf"|\b(?:{EQUALLY})",
    re.IGNORECASE,
)


def resolved(span: str, codes: list[str]) -> str:
    """The mental-disorder code of a cause-manifestation pair written in `span`, else the
    first code."""
    code = codes[0]
    pair = manifestation_code(span, code)
    if pair != code:
        return normalize_code(pair)
    return beside_cause(codes)


def beside_cause(codes: list[str]) -> str:
    """`codes[0]`, unless it is a cause outside chapter V and the first chapter V code after it
    names a disorder by its cause (`MENTAL_BESIDE_CAUSE`): then that code, the mental disorder
    a chapter V label codes ("E51.2 Wernicke's encephalopathy with F10.6 amnesic syndrome")."""
    code = codes[0]
    if code.startswith("F"):
        return code
    mental = next((c for c in codes[1:] if c.startswith("F")), None)
    if mental is None:
        return code
    if MENTAL_BESIDE_CAUSE.match(mental):
        return mental
    if code.startswith("G"):  # a G-chapter cause before its organic disorder, further on
        later = [c for c in codes[1:] if MENTAL_BESIDE_CAUSE.match(c) and c.startswith("F0")]
        if later:
            return later[0]
    return code


def cause_pair(first: str, second: str) -> bool:
    """Whether two codes are a cause and the chapter V disorder written beside it, in either
    order, rather than two diagnoses."""
    if {first[0], second[0]} == {"G", "F"}:
        return True
    return any(
        a[0] != "F" and MENTAL_BESIDE_CAUSE.match(b) for a, b in ((first, second), (second, first))
    )


def hedged(reply: str, code: str) -> bool:
    """Whether a sentence of `reply` that gives `code` hedges it (`HEDGE`), its clauses that set
    another code aside left out ("F43.1 would be a mistake here; F43.2" does not hedge F43.2)."""
    for sentence in SENTENCE.split(reply):
        if code not in extract_codes(sentence):
            continue
        own = [
            c
            for c in CLAUSE.split(sentence)
            if c and not (ASIDE.search(c) and extract_codes(c) and code not in extract_codes(c))
        ]
        if HEDGE.search(" ".join(own)):
            return True
    return False


def kept_open_beside(reply: str, stated: str) -> bool:
    """Whether a clause beside the statement keeps another chapter V code open ("Diagnosis:
    F32.1. F33.1 cannot be excluded.", "Diagnosis: F32.1 (differential: F31.4)")."""
    for clause in re.split(r"(?<!\d)\.(?!\d)|\.(?=\s)|[;\n]+", reply):
        others = [c for c in f_codes(clause) if c != stated]
        if others and KEPT_OPEN.search(clause) and not ASIDE.search(KEPT_OPEN.sub(" ", clause)):
            return True
    return False


def undecided(reply: str) -> bool:
    """Two mental-disorder codes and a wording that keeps the second open ("F41.0 cannot be
    excluded", "F10.2 may be contributing or even primary")."""
    if len(set(f_codes(reply))) < 2:
        return False
    # "The alternative (F50.0) is much less likely": an alternative set aside keeps nothing open
    for clause in CLAUSE.split(reply):
        if clause and ASIDE.search(clause) and alternative_only(clause):
            reply = reply.replace(clause, " ")
    return bool(OPEN.search(reply))


def alternative_only(clause: str) -> bool:
    """Whether the only wording of `OPEN` in `clause` is "alternative"."""
    found = {m.group(0).lower() for m in OPEN.finditer(clause)}
    return bool(found) and found <= {"alternative"}


def several(text: str) -> bool:
    """Two mental-disorder codes given together as the diagnosis, in one sentence ("PTSD
    (F43.1) and moderate depressive episode (F32.1)"): a judge would call it a differential."""
    for sentence in re.split(r"(?<!\d)\.(?!\d)|\n", text):
        codes = set(f_codes(sentence))
        if len(codes) > 1 and re.search(r"\band\b|\+|&", sentence):
            return True
    return False


def f_codes(text: str) -> list[str]:
    return [c for c in extract_codes(text) if c.startswith("F")]


def offered_as_choice(text: str) -> bool:
    """Whether two different codes (a cause beside its manifestation aside) are offered as a
    choice: a choice word or a slash between them ("F32.1 or F43.22", "F41.1 / F43.1")."""
    found = [(m.start(), m.end(), normalize_code(m.group(1))) for m in CODE.finditer(text)]
    codes = [code for _, _, code in found]
    caused = any(MENTAL_BESIDE_CAUSE.match(code) for code in codes)
    distinct = {c for c in codes if not c.startswith("G") and (c.startswith("F") or not caused)}
    if len(distinct) > 1 and UNDECIDED.search(text):
        return True
    for (_, end, first), (start, _, second) in zip(found, found[1:], strict=False):
        between = text[end:start]
        if first != second and not cause_pair(first, second) and len(between) <= 80:
            if CHOICE.search(between) or re.fullmatch(r"[\s†*]*/\s*", between) or " / " in between:
                return True
    return False
