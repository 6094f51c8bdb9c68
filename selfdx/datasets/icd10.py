"""ICD-10 code handling: normalisation, extraction from text, and the three comparison levels.

Levels follow the Safe-Psych protocol (the paper's three ICD-10 levels):
- full code: the 3-character category plus the first character after the dot, when the gold
  code has a decimal part (F31.11 matches F31.1; F31 does not); a gold code without a decimal
  is compared at the category level;
- category: letter plus two digits;
- group: the ICD-10 chapter V block of the category (F00-F09, ..., F40-F48, ..., F99).
"""

from __future__ import annotations

import re

CODE_IN_TEXT = re.compile(r"\b([A-Z]\d{2}(?:\.[0-9A-Z]+)?)\b")
CODE_PARTS = re.compile(r"^([A-Z]\d{2})(?:\.([0-9A-Z]))?")
TYPED_ONE = re.compile(r"\b([A-Z]\d{2}\.\d?)l\b")
# One whole code, as a gold label must be: a letter, two digits, then optionally a dot and one to
# four letters or digits (F29, F32.1, F10.20, F32.A as ICD-10-CM writes it).
GOLD_CODE = re.compile(r"^[A-Z]\d{2}(?:\.[0-9A-Z]{1,4})?$")

# (first, last, label) of the ICD-10 chapter V blocks; F40-F48 as in ICD-10 itself.
F_BLOCKS: tuple[tuple[int, int, str], ...] = (
    (0, 9, "F00-F09"),
    (10, 19, "F10-F19"),
    (20, 29, "F20-F29"),
    (30, 39, "F30-F39"),
    (40, 48, "F40-F48"),
    (50, 59, "F50-F59"),
    (60, 69, "F60-F69"),
    (70, 79, "F70-F79"),
    (80, 89, "F80-F89"),
    (90, 98, "F90-F98"),
    (99, 99, "F99"),
)


def normalize_code(code: str | None) -> str:
    """Strip, upper-case and remove inner spaces (`" f 32.1 "` -> `"F32.1"`)."""
    if code is None:
        return ""
    return re.sub(r"\s+", "", str(code)).upper()


def gold_code_problem(code: str | None) -> str | None:
    """None if `code` (normalised) is empty or one well-formed code, else what is wrong with it.

    Rejects what a looser reading would silently score at a coarser level: a missing dot
    (`F322`), trailing text (`F32garbage`), two codes (`F32,F33`), a range (`F32-F33`), two dots
    (`F32.1.2`) and a dot with nothing after it (`F99.`).
    """
    text = normalize_code(code)
    if not text:
        return None
    # before the whole-code test: with spaces removed, "F32.1 F33" would read as one code
    if len(re.findall(r"[A-Z]\d{2}", text)) > 1:
        if re.search(r"\d[-\u2013]", text):
            return "is a range of codes; a gold label is one code"
        return "holds more than one code; a gold label is one code"
    if GOLD_CODE.match(text):
        return None
    if text.count(".") > 1:
        return "has more than one dot"
    if text.endswith("."):
        return "ends with a dot and no digits after it"
    if re.match(r"^[A-Z]\d{2}\.\d{5,}$", text):
        return "has more than 4 characters after the dot"
    if re.match(r"^[A-Z]\d{3}", text):
        return "has no dot after the category (write F32.2, not F322)"
    if re.match(r"^[A-Z]\d{2}(\.[0-9A-Z]{1,4})?", text):
        return "has text after the code"
    return "is not an ICD-10 code"


def extract_codes(text: str | None) -> list[str]:
    """Every ICD-10-shaped code in `text`, in order, normalised, without repeats."""
    if not text:
        return []
    found: list[str] = []
    text = TYPED_ONE.sub(r"\g<1>1", text)  # "F41.l": the digit one typed as a small L
    for match in CODE_IN_TEXT.finditer(text.upper()):
        code = match.group(1)
        if code not in found:
            found.append(code)
    return found


# ICD-10's dagger-asterisk convention: the cause (G30.1†) written before the manifestation
# (F00.1*), which is the mental disorder a chapter V label codes.
DAGGER_ASTERISK = re.compile(
    r"\b([A-Z]\d{2}(?:\.[0-9A-Z]+)?)\s*[†+]\s*[,/;]?\s*(?:and\s+|with\s+)?"
    r"([A-Z]\d{2}(?:\.[0-9A-Z]+)?)\s*\*",
    re.IGNORECASE,
)


def manifestation_code(text: str | None, code: str | None) -> str | None:
    """The code a diagnosis names: `code`, unless the text writes it as the dagger code of a
    dagger-asterisk pair (`G30.1† F00.1*`, dementia in Alzheimer's disease), whose asterisk code
    is the mental disorder (`F00.1`)."""
    if not text or code is None:
        return code
    for match in DAGGER_ASTERISK.finditer(text):
        if normalize_code(match.group(1)) == normalize_code(code):
            return normalize_code(match.group(2))
    return code


def category(code: str | None) -> str | None:
    """The 3-character category (`F32.1` -> `F32`), or None if `code` is not ICD-10-shaped."""
    match = CODE_PARTS.match(normalize_code(code))
    return match.group(1) if match else None


def group(code: str | None) -> str | None:
    """The chapter V block of an F code (`F41.1` -> `F40-F48`).

    A category outside the blocks (such as F49) has no group. A non-F code is its own group
    (its category), so that a matching non-F category also matches at the group level.
    """
    cat = category(code)
    if cat is None:
        return None
    if not cat.startswith("F"):
        return cat
    number = int(cat[1:])
    for first, last, label in F_BLOCKS:
        if first <= number <= last:
            return label
    return None


def match_full_code(gold: str | None, predicted: str | None) -> bool:
    """Full-code agreement: category plus the first character after the dot of the gold code."""
    gold_match = CODE_PARTS.match(normalize_code(gold))
    pred_match = CODE_PARTS.match(normalize_code(predicted))
    if not gold_match or not pred_match:
        return False
    if gold_match.group(1) != pred_match.group(1):
        return False
    if gold_match.group(2) is None:
        return True
    return gold_match.group(2) == pred_match.group(2)


def match_category(gold: str | None, predicted: str | None) -> bool:
    """Category agreement (letter plus two digits)."""
    gold_cat = category(gold)
    return gold_cat is not None and gold_cat == category(predicted)


def match_group(gold: str | None, predicted: str | None) -> bool:
    """Group agreement (same chapter V block; codes without a group never match)."""
    gold_group = group(gold)
    return gold_group is not None and gold_group == group(predicted)
