"""Safe-Psych cases: load the published CSV (local file or Hugging Face), validate, label.

Each case becomes one Inspect `Sample`. Its metadata carries the compacted sections (empty
sections dropped, the rest renumbered 1..T), the gold sufficiency, the earliest
sufficient section and the gold per-stage action labels .
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from selfdx.datasets.behaviour_labels import Action
from selfdx.datasets.csv_files import read_csv_rows
from selfdx.datasets.hub import load_from_hub
from selfdx.datasets.icd10 import gold_code_problem, normalize_code
from selfdx.datasets.paths import DEMO_DIR, columns_found, local_path, what_is_there
from selfdx.errors import SelfdxError

logger = logging.getLogger(__name__)

HF_DATASET = "safepsych/Safe-Psych"
HF_SPLIT = "train"
# The published dataset's revision. The Hub was not reachable from where this package was
# built, so no commit id could be written here: a branch or tag is resolved to its commit when
# the data is read (`selfdx.datasets.hub.pin_revision`), and the run reads and records it.
HF_REVISION = "main"

DEMO_CSV = DEMO_DIR / "safe_psych_demo.csv"

SECTION_COLUMNS: tuple[str, ...] = (
    "presenting_symptoms",
    "psychiatric_history",
    "psychiatric_exam",
    "psychological_exam",
    "secondary_diagnoses",
)
REQUIRED_COLUMNS: tuple[str, ...] = (
    "id",
    "age_group",
    "sex",
    *SECTION_COLUMNS,
    "diagnosis_sufficiency",
    "diagnosis_sufficiency_agreement",
    "diagnosis",
    "diagnosis_agreement",
    "earliest_sufficient_section",
)


# Longest section accepted, in characters (about 25,000 tokens, far above a real note section).
# A longer field is nearly always a broken file (an unclosed quote swallows the rows after it);
# a real one would overflow the context window of most models mid-sweep, so it stops the load.
MAX_SECTION_CHARS = 100_000
# Longest value of every other column of the schema (id, labels, codes, age group, sex): real
# ones are a few characters; a long one is a broken file, and a huge id would be carried into
# every log record. Columns outside the schema may hold up to MAX_SECTION_CHARS.
MAX_FIELD_CHARS = 200

_TRUE = {"1", "1.0", "true", "yes"}
_FALSE = {"0", "0.0", "false", "no"}


class SafePsychDataError(SelfdxError):
    """A Safe-Psych input file or record that cannot be used, with where and why."""


@dataclass(frozen=True)
class Case:
    """One validated Safe-Psych case, sections already compacted."""

    id: str
    sections: tuple[str, ...]
    section_names: tuple[str, ...]
    sufficient: bool
    earliest_sufficient_section: int | None
    diagnosis: str
    sufficiency_agreement: bool
    diagnosis_agreement: bool
    age_group: str
    sex: str

    @property
    def num_stages(self) -> int:
        return len(self.sections)

    @property
    def gold_labels(self) -> list[Action]:
        return gold_stage_labels(self.sufficient, self.earliest_sufficient_section, self.num_stages)


def gold_stage_labels(sufficient: bool, earliest: int | None, num_stages: int) -> list[Action]:
    """Gold action per stage 1..T.

    Sufficient with earliest section tau: Clarify before tau, Diagnose from tau on.
    Insufficient: Clarify on stages 1..T-1, Abstain on the last stage.
    """
    if num_stages < 1:
        raise ValueError("a case needs at least one section")
    if sufficient:
        if earliest is None or not 1 <= earliest <= num_stages:
            raise ValueError(f"earliest sufficient section {earliest} outside 1..{num_stages}")
        return [
            Action.CLARIFY if t < earliest else Action.DIAGNOSE for t in range(1, num_stages + 1)
        ]
    return [Action.CLARIFY] * (num_stages - 1) + [Action.ABSTAIN]


def _parse_agreement(value: str, column: str, where: str) -> bool:
    """1/true/yes is agreement, 0/false/no or empty is disagreement (as the reference reads it)."""
    text = value.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE or not text:
        return False
    raise SafePsychDataError(
        f"{where}, column '{column}': {value!r} is not an agreement value "
        "(expected 1 or 0, true or false, yes or no)"
    )


def _parse_diagnosis(value: str, where: str) -> str:
    """The gold ICD-10 code, normalised; empty is allowed (no gold code)."""
    problem = gold_code_problem(value)
    if problem is not None:
        raise SafePsychDataError(
            f"{where}, column 'diagnosis': {value!r} {problem} (expected one ICD-10 code: a "
            "letter and two digits, optionally a dot and 1-4 letters or digits: F32, F32.1, "
            "F10.20)"
        )
    return normalize_code(value)


def _parse_sufficiency(value: str, where: str) -> bool:
    text = value.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise SafePsychDataError(
        f"{where}, column 'diagnosis_sufficiency': {value!r} is not a sufficiency value "
        "(expected 1 for sufficient or 0 for insufficient)"
    )


def _parse_earliest(value: str, num_stages: int, where: str) -> int:
    text = value.strip()
    try:
        number = float(text)
    except ValueError:
        number = float("nan")
    if number != number or number != int(number):
        raise SafePsychDataError(
            f"{where}, column 'earliest_sufficient_section': {value!r} is not a whole number"
        )
    earliest = int(number)
    if not 1 <= earliest <= num_stages:
        raise SafePsychDataError(
            f"{where}, column 'earliest_sufficient_section': {earliest} is outside 1..{num_stages} "
            f"(the case has {num_stages} non-empty sections, numbered after dropping empty ones)"
        )
    return earliest


def field_limit(column: str) -> int:
    """The most characters `column` may hold."""
    if column in REQUIRED_COLUMNS and column not in SECTION_COLUMNS:
        return MAX_FIELD_CHARS
    return MAX_SECTION_CHARS


def check_field_sizes(record: dict[str, Any], where: str) -> None:
    """Every field, the id included, within its limit; the message names row, column and size."""
    for column, value in record.items():
        if not isinstance(value, str):
            continue
        limit = field_limit(str(column))
        if len(value.strip()) > limit:
            noun = "a section" if column in SECTION_COLUMNS else "this column"
            hint = (
                " (a real section this long would overflow most models' context windows)"
                if limit == MAX_SECTION_CHARS
                else ""
            )
            raise SafePsychDataError(
                f"{where}, column '{column}': {len(value.strip()):,} characters, more than the "
                f"{limit:,} {noun} may have; check the file for an unclosed quote{hint}"
            )


def record_to_case(record: dict[str, Any], where: str) -> Case:
    """Validate one published-schema record and compact its sections."""

    def text(column: str) -> str:
        value = record.get(column)
        if value is None:
            return ""
        if isinstance(value, float) and value != value:  # NaN from pandas / datasets
            return ""
        return str(value)

    # the id first, so that every later message can show it
    check_field_sizes({"id": record.get("id")}, where)
    case_id = text("id").strip()
    if not case_id:
        raise SafePsychDataError(f"{where}, column 'id': the case id is empty")
    where = f"{where} (id={case_id})"
    check_field_sizes(record, where)

    present = [(name, text(name).strip()) for name in SECTION_COLUMNS]
    present = [(name, content) for name, content in present if content]
    if not present:
        raise SafePsychDataError(
            f"{where}, columns {', '.join(SECTION_COLUMNS)}: the case has no non-empty section"
        )
    num_stages = len(present)
    sufficient = _parse_sufficiency(text("diagnosis_sufficiency"), where)

    earliest_text = text("earliest_sufficient_section").strip()
    earliest: int | None = None
    if earliest_text:
        earliest = _parse_earliest(earliest_text, num_stages, where)
    elif sufficient:
        raise SafePsychDataError(
            f"{where}, column 'earliest_sufficient_section': empty, but a sufficient case needs "
            f"the earliest section (1..{num_stages}) at which a diagnosis is supported"
        )

    return Case(
        id=case_id,
        sections=tuple(content for _, content in present),
        section_names=tuple(name for name, _ in present),
        sufficient=sufficient,
        earliest_sufficient_section=earliest,
        diagnosis=_parse_diagnosis(text("diagnosis"), where),
        sufficiency_agreement=_parse_agreement(
            text("diagnosis_sufficiency_agreement"), "diagnosis_sufficiency_agreement", where
        ),
        diagnosis_agreement=_parse_agreement(
            text("diagnosis_agreement"), "diagnosis_agreement", where
        ),
        age_group=text("age_group").strip() or "Unknown",
        sex=text("sex").strip(),
    )


def records_to_cases(records: list[dict[str, Any]], columns: list[str], source: str) -> list[Case]:
    """Validate the columns, every record and id uniqueness; errors name the row and column."""
    missing = [column for column in REQUIRED_COLUMNS if column not in columns]
    if missing:
        raise SafePsychDataError(
            f"{source}: missing required column(s) {', '.join(missing)} "
            f"(the published schema has {', '.join(REQUIRED_COLUMNS)}; the file has "
            f"{columns_found(columns)})"
        )
    if not records:
        raise SafePsychDataError(f"{source}: no cases (the file has a header but no rows)")
    cases: list[Case] = []
    first_row: dict[str, int] = {}
    for index, record in enumerate(records, start=1):
        where = f"{source}: row {index}"
        case = record_to_case(record, where)
        if case.id in first_row:
            raise SafePsychDataError(
                f"{where} (id={case.id}), column 'id': duplicate id, first seen in row "
                f"{first_row[case.id]}"
            )
        first_row[case.id] = index
        cases.append(case)
    return cases


def read_csv_records(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Read a published-schema CSV file (UTF-8, optional BOM, quoted newlines allowed)."""
    if not path.exists():
        raise SafePsychDataError(
            f"data: {str(path)!r} does not exist (data= takes 'hf', 'demo' or the path of a CSV "
            "file in the published Safe-Psych schema)"
        )
    if not path.is_file() or path.suffix.lower() != ".csv":
        suffix = "" if not path.is_file() else " without the .csv suffix"
        raise SafePsychDataError(
            f"data: {str(path)!r} is {what_is_there(path)}{suffix}; expected a .csv file in the "
            "published Safe-Psych schema (one row per case)"
        )
    columns, records = read_csv_rows(path, str(path), SafePsychDataError)
    return list(records), columns


def read_hf_records(
    revision: str = HF_REVISION,
) -> tuple[list[dict[str, Any]], list[str], str]:
    """Load the published dataset from the Hugging Face Hub (fails within seconds when offline):
    the records, the columns, and the commit read (a branch or tag resolved to its commit)."""
    table, revision = load_from_hub(
        HF_DATASET,
        revision,
        HF_SPLIT,
        "the Safe-Psych dataset",
        'Use data="demo" for the bundled synthetic demo set, or data=PATH for a local copy of '
        "the published CSV.",
        SafePsychDataError,
    )
    records = [dict(row) for row in table]
    return records, list(table.column_names), revision


def read_records(data: str, revision: str) -> tuple[list[dict[str, Any]], list[str], str]:
    """The raw rows of `data`, their columns, and where they came from (`<repo>@<commit>` for
    the Hub, else the file)."""
    if data == "hf":
        records, columns, commit = read_hf_records(revision)
        return records, columns, f"{HF_DATASET}@{commit}"
    path = DEMO_CSV if data == "demo" else local_path(data)
    records, columns = read_csv_records(path)
    return records, columns, str(path)


def load_cases(data: str = "demo", revision: str = HF_REVISION) -> list[Case]:
    """Cases from `data`: "hf" (the Hub), "demo" (bundled synthetic set) or a CSV path."""
    return records_to_cases(*read_records(data, revision))


def case_to_sample(case: Case) -> Sample:
    """An Inspect sample whose metadata holds everything the solver and scorer need."""
    note = "\n\n".join(case.sections)
    return Sample(
        id=case.id,
        input=note,
        target=case.diagnosis,
        metadata={
            "sections": list(case.sections),
            "section_names": list(case.section_names),
            "num_stages": case.num_stages,
            "sufficient": case.sufficient,
            "earliest_sufficient_section": case.earliest_sufficient_section,
            "gold_labels": list(case.gold_labels),
            "diagnosis": case.diagnosis,
            "sufficiency_agreement": case.sufficiency_agreement,
            "diagnosis_agreement": case.diagnosis_agreement,
            "age_group": case.age_group,
            "sex": case.sex,
        },
    )


def safe_psych_dataset(data: str = "demo", revision: str = HF_REVISION) -> MemoryDataset:
    """The Safe-Psych cases from `data` as an Inspect dataset (in file order); its location is
    the file, or `<repo>@<commit>` read from the Hub."""
    records, columns, source = read_records(data, revision)
    cases = records_to_cases(records, columns, source)
    name = (
        "safe_psych_demo" if data == "demo" else ("safe_psych" if data == "hf" else Path(data).stem)
    )
    location = source if data == "hf" else (str(DEMO_CSV) if data == "demo" else data)
    logger.info("Safe-Psych: %d cases from %s", len(cases), location)
    return MemoryDataset([case_to_sample(case) for case in cases], name=name, location=location)
