"""MentalBench item model: disorder codes, the item record, and validation of options and answers.

One `MentalBenchItem` is one evaluation question as published (GitHub JSON or Hugging Face CSV):
a narrative, four lettered options (MentalKG disorder names) and a keyed answer. Every check
here raises `MentalBenchDataError` naming the item and the field at fault.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, get_args

from selfdx.errors import SelfdxError

# The 23 MentalKG disorders (`knowledge_graph/EN/disorder.json`, paper App. B).
DISORDER_NAMES: dict[str, str] = {
    "D001": "Attention-Deficit/Hyperactivity Disorder (Combined Presentation)",
    "D002": "Attention-Deficit/Hyperactivity Disorder (Predominantly Inattentive Presentation)",
    "D003": "Attention-Deficit/Hyperactivity Disorder "
    "(Predominantly Hyperactive/Impulsive Presentation)",
    "D004": "Delusional Disorder",
    "D005": "Schizophrenia",
    "D006": "Schizoaffective Disorder (Bipolar Type)",
    "D007": "Schizoaffective Disorder (Depressive Type)",
    "D008": "Bipolar I Disorder",
    "D009": "Bipolar II Disorder",
    "D010": "Bipolar I Disorder with Psychotic Features",
    "D011": "Generalized Anxiety Disorder",
    "D012": "Specific Phobia",
    "D013": "Major Depressive Disorder",
    "D014": "Persistent Depressive Disorder",
    "D015": "Major Depressive Disorder with Psychotic Features",
    "D016": "Obsessive-Compulsive Disorder",
    "D017": "Body Dysmorphic Disorder",
    "D018": "Posttraumatic Stress Disorder",
    "D019": "Acute Stress Disorder",
    "D020": "Adjustment Disorder",
    "D021": "Anorexia Nervosa",
    "D022": "Bulimia Nervosa",
    "D023": "Binge-Eating Disorder",
}
DISORDER_CODES: dict[str, str] = {name: code for code, name in DISORDER_NAMES.items()}

TYPES: tuple[int, ...] = (1, 2, 3, 4)
VARIANTS: tuple[str, ...] = ("1", "2", "3", "4a", "4b")
Generator = Literal["gemini", "gpt5", "qwen235"]
PUBLISHED_GENERATORS: tuple[str, ...] = get_args(Generator)
# How a model gives its answer: option letters, or the diagnosis named in words.
AnswerFormat = Literal["letters", "free_text"]
# The option letters of every MentalBench item, in order (defined here once for the package).
LETTERS: tuple[str, ...] = ("A", "B", "C", "D")

# Id letter per tier: Type 1 = low (l), Type 2 = medium (m), Types 3-4 = high (h).
ID_TIER: dict[int, str] = {1: "l", 2: "m", 3: "h", 4: "h"}
VARIANTS_PER_SEED = 5

# The six generations cut short in the GitHub copy: (variant, generator, item key).
TRUNCATED_ITEMS: frozenset[tuple[str, str, str]] = frozenset(
    {
        ("4a", "gemini", "D001-D013_h022"),
        ("4a", "gemini", "D013-D009_h018"),
        ("4b", "gemini", "D013-D008_h024"),
        ("2", "qwen235", "D003_m042"),
        ("2", "gemini", "D005_m001"),
        ("2", "gemini", "D007_m024"),
    }
)
# Shortest narrative in the complete (Hugging Face) copy; every truncated one is shorter.
MIN_COMPLETE_NARRATIVE_CHARS = 403

# Longest narrative accepted, in characters (the published ones are a few thousand); a longer
# field is nearly always a broken file, and would overflow most models' context windows.
MAX_QUESTION_CHARS = 100_000
# Longest value of every other field (published: ids and codes under 20 characters, options
# under 400, answers under 200); a longer one is a broken file, and a huge id would be carried
# into every log record.
FIELD_LIMITS: dict[str, int] = {
    "type": 200,
    "code": 200,
    "model": 200,
    "id": 200,
    "options": 2_000,
    "option": 2_000,
    "answer": 1_000,
}

CODE_RE = re.compile(r"^D0(0[1-9]|1\d|2[0-3])$")
ITEM_NUMBER_RE = re.compile(r"^([lmh])(\d{3})$")
OPTION_LINE_RE = re.compile(r"^([A-Z])\.\s+(\S.*?)\s*$")
ANSWER_RE = re.compile(r"^\s*([A-D](?:\s*&\s*[A-D])*)\s*\.\s*(\S.*?)\s*$", re.DOTALL)


class MentalBenchDataError(SelfdxError):
    """A MentalBench record that does not follow the published schema."""


@dataclass(frozen=True)
class MentalBenchItem:
    """One MentalBench question with its gold answer and provenance."""

    variant: str  # "1", "2", "3", "4a" or "4b"
    code: str  # "D005" (Types 1-2) or "D001-D005" (Types 3-4: main-sub)
    generator: str  # case-generator LLM: gemini, gpt5, qwen235 (or "synthetic" for the demo)
    number: str  # "l001", "m042", "h017": the id within its code
    question: str
    options: tuple[str, ...]  # option texts in letter order A-D
    answer_letters: tuple[str, ...]  # gold letters in the published order (main first on Type 3)
    answer: str  # the published answer string, e.g. "B & A. Name & Name"
    truncated: bool = False
    source: str = field(default="", compare=False)  # file or row the item came from

    @property
    def type(self) -> int:
        return int(self.variant[0])

    @property
    def key(self) -> str:
        """The GitHub item key, e.g. `D001-D005_h001`."""
        return f"{self.code}_{self.number}"

    @property
    def sample_id(self) -> str:
        """Unique across the whole benchmark: type variant, generator and item key."""
        return f"t{self.variant}-{self.generator}-{self.key}"

    @property
    def codes(self) -> tuple[str, ...]:
        """The disorder codes of the item: one for Types 1-2, (main, sub) for Types 3-4."""
        return tuple(self.code.split("-"))

    @property
    def seed_group(self) -> str:
        """The seed profile the item was generated from (five consecutive ids share one).

        Types 3-4 reuse the Type 2 seeds of the pair's main disorder with the same numbers
        (h001-h005 come from m001-m005), so they share that Type 2 seed group.
        """
        tier, digits = self.number[0], int(self.number[1:])
        seed = (digits - 1) // VARIANTS_PER_SEED + 1
        if tier == "h":
            return f"{self.codes[0]}-m{seed:02d}"
        return f"{self.code}-{tier}{seed:02d}"


def describe(where: str, field_name: str, problem: str) -> MentalBenchDataError:
    return MentalBenchDataError(f"MentalBench item {where}, field '{field_name}': {problem}")


def check_size(value: object, where: str, field_name: str) -> None:
    """A text field within its limit (`FIELD_LIMITS`); other types are checked by the parsers."""
    limit = FIELD_LIMITS[field_name]
    if isinstance(value, str) and len(value) > limit:
        raise describe(
            where,
            field_name,
            f"{len(value):,} characters, more than the {limit:,} this field may have; check the "
            "file for an unclosed quote",
        )


def parse_code(raw: str, type_: int, where: str) -> str:
    """Validate a disorder code (`D005`) or pair code (`D001-D005` or `D001_D005`)."""
    text = str(raw).strip()
    parts = re.split(r"[-_]", text)
    expected = 1 if type_ in (1, 2) else 2
    if len(parts) != expected or not all(CODE_RE.match(part) for part in parts):
        shape = "a disorder code D001-D023" if expected == 1 else "a pair code Dxxx-Dyyy"
        raise describe(where, "code", f"{raw!r} is not {shape} for Type {type_}")
    if expected == 2 and parts[0] == parts[1]:
        raise describe(where, "code", f"pair {raw!r} names the same disorder twice")
    return "-".join(parts)


def parse_number(raw: str, type_: int, where: str) -> str:
    """Validate the id within a code: `l001`-style for Type 1, `m…` Type 2, `h…` Types 3-4."""
    text = str(raw).strip()
    match = ITEM_NUMBER_RE.match(text)
    if not match or match.group(1) != ID_TIER[type_] or int(match.group(2)) == 0:
        raise describe(where, "id", f"{raw!r} is not an id of the form {ID_TIER[type_]}001")
    return text


def parse_options(raw: object, where: str) -> tuple[str, ...]:
    """Read an options block: lines `A. <name>` to `D. <name>`; blank lines are ignored."""
    if not isinstance(raw, str):
        raise describe(where, "options", f"expected text, got {type(raw).__name__}")
    lines = [line.strip() for line in raw.splitlines() if line.strip()]
    names: list[str] = []
    for index, line in enumerate(lines):
        match = OPTION_LINE_RE.match(line)
        if index >= len(LETTERS):
            raise describe(
                where, "options", f"more than 4 options: line {line!r} comes after option D"
            )
        expected = LETTERS[index]
        if not match or match.group(1) != expected:
            raise describe(where, "options", f"line {line!r} should start with '{expected}. '")
        names.append(match.group(2))
    if len(names) != len(LETTERS):
        raise describe(where, "options", f"expected 4 options A-D, found {len(names)}")
    for name in names:
        if name not in DISORDER_CODES:
            raise describe(where, "options", f"{name!r} is not a MentalKG disorder name")
    for index, name in enumerate(names):
        if name in names[:index]:
            first = LETTERS[names.index(name)]
            raise describe(
                where, "options", f"{name!r} is both option {first} and option {LETTERS[index]}"
            )
    return tuple(names)


def parse_answer(raw: object, options: tuple[str, ...], where: str) -> tuple[str, ...]:
    """Read a keyed answer (`C. Name` or `B & A. Name & Name`) and check it against the options."""
    if not isinstance(raw, str):
        raise describe(where, "answer", f"expected text, got {type(raw).__name__}")
    match = ANSWER_RE.match(raw)
    if not match:
        letters = re.match(r"^\s*([A-Z](?:\s*&\s*[A-Z])*)\s*\.", raw)
        outside = [x.strip() for x in letters.group(1).split("&")] if letters else []
        outside = [x for x in outside if x not in LETTERS]
        why = f" (letter {outside[0]} is not among the options A-D)" if outside else ""
        raise describe(
            where, "answer", f"{raw!r} is not of the form 'C. <name>' or 'A & B. ...'{why}"
        )
    letters = tuple(part.strip() for part in match.group(1).split("&"))
    names = tuple(part.strip() for part in match.group(2).split(" & "))
    if len(set(letters)) != len(letters):
        raise describe(where, "answer", f"{raw!r} repeats a letter")
    if len(names) != len(letters):
        raise describe(
            where, "answer", f"{raw!r} has {len(letters)} letters but {len(names)} names"
        )
    for letter, name in zip(letters, names, strict=True):
        option = options[LETTERS.index(letter)]
        if name not in options:
            raise describe(where, "answer", f"{raw!r}: {name!r} is not among the options")
        if name != option:
            raise describe(
                where,
                "answer",
                f"{raw!r}: letter {letter} is option {option!r}, not {name!r} "
                f"(which is option {LETTERS[options.index(name)]})",
            )
    return letters


def check_answer_fits_type(
    variant: str, code: str, options: tuple[str, ...], letters: tuple[str, ...], where: str
) -> None:
    """The keyed disorders must be the item's own: its code (Types 1-2), main then sub (3),
    main (4a) or sub (4b)."""
    keyed = tuple(DISORDER_CODES[options[LETTERS.index(letter)]] for letter in letters)
    codes = tuple(code.split("-"))
    expected = {"1": codes, "2": codes, "3": codes, "4a": codes[:1], "4b": codes[1:]}[variant]
    if keyed != expected:
        raise describe(
            where,
            "answer",
            f"Type {variant} item keys {'+'.join(keyed)}, expected {'+'.join(expected)}",
        )


def build_item(
    *,
    variant: str,
    code: str,
    generator: str,
    number: str,
    question: object,
    options: object,
    answer: object,
    where: str,
) -> MentalBenchItem:
    """Validate one record's fields and return the item, flagging a known truncated generation."""
    if not isinstance(question, str) or not question.strip():
        raise describe(where, "question", "the narrative is missing or empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise describe(
            where,
            "question",
            f"{len(question):,} characters, more than the {MAX_QUESTION_CHARS:,} a narrative may "
            "have; check the file for an unclosed quote",
        )
    if not generator or not re.match(r"^[A-Za-z0-9_.]+$", generator):
        raise describe(where, "model", f"{generator!r} is not a generator name")
    check_size(options, where, "options")
    check_size(answer, where, "answer")
    option_names = parse_options(options, where)
    letters = parse_answer(answer, option_names, where)
    check_answer_fits_type(variant, code, option_names, letters, where)
    key = f"{code}_{number}"
    truncated = (variant, generator, key) in TRUNCATED_ITEMS and (
        len(question) < MIN_COMPLETE_NARRATIVE_CHARS
    )
    return MentalBenchItem(
        variant=variant,
        code=code,
        generator=generator,
        number=number,
        question=question,
        options=option_names,
        answer_letters=letters,
        answer=str(answer),
        truncated=truncated,
        source=where,
    )
