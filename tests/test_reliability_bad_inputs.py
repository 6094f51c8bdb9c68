"""The bad-input corpus (`tests/bad_inputs/`): each file and the exact error it must produce.

Every message names the file, the row or item where there is one, and the field at fault. A
few files are valid on purpose (quoted newlines, an Excel export with BOM and CRLF) and must load.
The two 1 MB cases are generated here rather than stored.
"""

from __future__ import annotations

import csv
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from selfdx.cli import main as selfdx_main
from selfdx.datasets.hub import HUB_PROBE_SECONDS, probe_hub
from selfdx.datasets.mentalbench.dataset import load_items
from selfdx.datasets.mentalbench.schema import MAX_QUESTION_CHARS, MentalBenchDataError
from selfdx.datasets.mentalbench.sources import items_from_rows, read_demo
from selfdx.datasets.safe_psych import (
    MAX_FIELD_CHARS,
    MAX_SECTION_CHARS,
    SafePsychDataError,
    load_cases,
)
from tests.conftest import REPO_ROOT

CORPUS = Path(__file__).parent / "bad_inputs"
# an item file with a missing comma between two fields
BROKEN_ITEM_FILE = (
    '{\n  "D005_l001": {"question": "...", "options": "A. Schizophrenia"\n'
    '  "answer": "A. Schizophrenia"}\n}\n'
)
SP = CORPUS / "safe_psych"
MB = CORPUS / "mentalbench"
SP_COLUMNS = (
    "id, age_group, sex, presenting_symptoms, psychiatric_history, psychiatric_exam, "
    "psychological_exam, secondary_diagnoses, diagnosis_sufficiency, "
    "diagnosis_sufficiency_agreement, diagnosis, diagnosis_agreement, earliest_sufficient_section"
)
QUOTING = "a quote inside a quoted field must be doubled, and every opening quote closed"

# (file, exact message; "{path}" stands for the file's path)
SAFE_PSYCH_ERRORS: list[tuple[str, str]] = [
    ("empty.csv", "{path}: the file is empty (no header row)"),
    ("header_only.csv", "{path}: no cases (the file has a header but no rows)"),
    (
        "missing_columns.csv",
        "{path}: missing required column(s) diagnosis_sufficiency, earliest_sufficient_section "
        f"(the published schema has {SP_COLUMNS}; the file has 'id', 'age_group', 'sex', "
        "'presenting_symptoms', 'psychiatric_history', 'psychiatric_exam', 'psychological_exam', "
        "'secondary_diagnoses', 'diagnosis_sufficiency_agreement', 'diagnosis', "
        "'diagnosis_agreement')",
    ),
    ("duplicate_header.csv", "{path}: the header names column 'diagnosis' twice"),
    (
        "non_utf8.csv",
        "{path}: not valid UTF-8 text: byte 0xE9 on line 3 (offset 430); save the file as UTF-8",
    ),
    (
        "extra_field.csv",
        "{path}: row 1 has more fields than the header (14 fields, the header has 13 columns); "
        "check for an unquoted comma",
    ),
    (
        "short_row.csv",
        "{path}: row 2 has fewer fields than the header (11 fields, the header has 13 columns); "
        "check for a missing field",
    ),
    (
        "stray_quote.csv",
        f"{{path}}: row 1 (from line 2): malformed CSV (',' expected after '\"'); {QUOTING}",
    ),
    (
        "unclosed_quote.csv",
        f"{{path}}: row 2 (from line 3): malformed CSV (unexpected end of data); {QUOTING}",
    ),
    ("empty_id.csv", "{path}: row 2, column 'id': the case id is empty"),
    (
        "duplicate_ids.csv",
        "{path}: row 3 (id=bad-001), column 'id': duplicate id, first seen in row 1",
    ),
    (
        "wrong_type_sufficiency.csv",
        "{path}: row 2 (id=bad-002), column 'diagnosis_sufficiency': 'probably' is not a "
        "sufficiency value (expected 1 for sufficient or 0 for insufficient)",
    ),
    (
        "wrong_type_earliest.csv",
        "{path}: row 1 (id=bad-001), column 'earliest_sufficient_section': 'second' is not a "
        "whole number",
    ),
    (
        "wrong_type_agreement.csv",
        "{path}: row 2 (id=bad-002), column 'diagnosis_agreement': 'partly' is not an agreement "
        "value (expected 1 or 0, true or false, yes or no)",
    ),
    (
        "wrong_type_diagnosis.csv",
        "{path}: row 1 (id=bad-001), column 'diagnosis': 'major depression' is not an ICD-10 "
        "code (expected one ICD-10 code: a letter and two digits, optionally a dot and 1-4 "
        "letters or digits: F32, F32.1, F10.20)",
    ),
    (
        "earliest_out_of_range.csv",
        "{path}: row 1 (id=bad-001), column 'earliest_sufficient_section': 5 is outside 1..4 "
        "(the case has 4 non-empty sections, numbered after dropping empty ones)",
    ),
    (
        "sufficient_without_earliest.csv",
        "{path}: row 1 (id=bad-001), column 'earliest_sufficient_section': empty, but a "
        "sufficient case needs the earliest section (1..4) at which a diagnosis is supported",
    ),
    (
        "no_sections.csv",
        "{path}: row 2 (id=bad-002), columns presenting_symptoms, psychiatric_history, "
        "psychiatric_exam, psychological_exam, secondary_diagnoses: the case has no non-empty "
        "section",
    ),
]

MB_ITEM = "MentalBench item D005_l00{n} (type1, gemini) at data row {n} of {name}"
MENTALBENCH_ERRORS: list[tuple[str, str]] = [
    ("empty.csv", "MentalBench CSV {path}: the file is empty (no header row)"),
    ("header_only.csv", "MentalBench CSV {path}: no items (the file has a header but no rows)"),
    (
        "missing_column.csv",
        "MentalBench table {name}: column 'answer' is missing "
        "(expected type, code, model, id, question, option, answer; found 'type', 'code', "
        "'model', 'id', 'question', 'option')",
    ),
    (
        "non_utf8.csv",
        "MentalBench CSV {path}: not valid UTF-8 text: byte 0xE1 on line 6 (offset 1382); "
        "save the file as UTF-8",
    ),
    (
        "short_row.csv",
        "MentalBench CSV {path}: data row 1 has fewer fields than the header (6 fields, the "
        "header has 7 columns); check for a missing field or a quote that swallows the lines "
        "after it",
    ),
    (
        "three_options.csv",
        MB_ITEM.format(n=2, name="{name}") + ", field 'options': expected 4 options A-D, found 3",
    ),
    (
        "five_options.csv",
        MB_ITEM.format(n=1, name="{name}")
        + ", field 'options': more than 4 options: line 'E. Bulimia Nervosa' comes after option D",
    ),
    (
        "duplicate_option.csv",
        MB_ITEM.format(n=1, name="{name}")
        + ", field 'options': 'Schizophrenia' is both option A and option D",
    ),
    (
        "unknown_disorder.csv",
        MB_ITEM.format(n=1, name="{name}")
        + ", field 'options': 'Panic Disorder' is not a MentalKG disorder name",
    ),
    (
        "answer_not_among_options.csv",
        MB_ITEM.format(n=1, name="{name}")
        + ", field 'answer': 'A. Bipolar II Disorder': 'Bipolar II Disorder' is not among the "
        "options",
    ),
    (
        "answer_letter_outside_options.csv",
        MB_ITEM.format(n=2, name="{name}")
        + ", field 'answer': 'E. Schizophrenia' is not of the form 'C. <name>' or 'A & B. ...' "
        "(letter E is not among the options A-D)",
    ),
    (
        "answer_letter_mismatch.csv",
        MB_ITEM.format(n=1, name="{name}")
        + ", field 'answer': 'B. Schizophrenia': letter B is option 'Delusional Disorder', not "
        "'Schizophrenia' (which is option A)",
    ),
    (
        "answer_other_disorder.csv",
        MB_ITEM.format(n=1, name="{name}")
        + ", field 'answer': Type 1 item keys D004, expected D005",
    ),
    (
        "wrong_type.csv",
        "MentalBench item data row 2 of {name}, field 'type': 'type 2' is not one of type1..type4",
    ),
    (
        "bad_id.csv",
        "MentalBench item data row 1 of {name}, field 'id': 'l01' is not an id of the form l001",
    ),
    (
        "empty_question.csv",
        MB_ITEM.format(n=1, name="{name}")
        + ", field 'question': the narrative is missing or empty",
    ),
    (
        "duplicate_ids.csv",
        "MentalBench item t1-gemini-D005_l001 appears 2 times (1 repeated ids in all; first at "
        "D005_l001 (type1, gemini) at data row 1 of {name})",
    ),
]


@pytest.mark.parametrize(
    ("name", "message"), SAFE_PSYCH_ERRORS, ids=[n for n, _ in SAFE_PSYCH_ERRORS]
)
def test_safe_psych_bad_file_gives_its_exact_error(name: str, message: str) -> None:
    path = SP / name
    with pytest.raises(SafePsychDataError) as error:
        load_cases(str(path))
    assert str(error.value) == message.format(path=path)


@pytest.mark.parametrize(
    ("name", "message"), MENTALBENCH_ERRORS, ids=[n for n, _ in MENTALBENCH_ERRORS]
)
def test_mentalbench_bad_file_gives_its_exact_error(name: str, message: str) -> None:
    path = MB / name
    with pytest.raises(MentalBenchDataError) as error:
        load_items(path)
    assert str(error.value) == message.format(path=path, name=path.name)


def test_every_corpus_file_is_in_a_table() -> None:
    """A file added to the corpus without its expected outcome would test nothing."""
    listed = {SP / name for name, _ in SAFE_PSYCH_ERRORS} | {
        MB / name for name, _ in MENTALBENCH_ERRORS
    }
    listed |= {SP / name for name in VALID_SAFE_PSYCH} | {MB / name for name in VALID_MENTALBENCH}
    present = {path for folder in (SP, MB) for path in folder.iterdir() if path.name != "README.md"}
    assert present == listed


# ---------------------------------------------------------------------------- valid on purpose


def check_quoted_newlines(path: Path) -> None:
    first, second = load_cases(str(path))
    assert first.sections[0] == 'Low mood for "about two months",\nwith early waking.\n\nNo plan.'
    assert second.sections[1] == "Guarded,\nperplexed; answers, then stops."
    assert (first.sufficient, second.sufficient) == (True, False)
    assert second.diagnosis == "" and second.num_stages == 4
    assert second.gold_labels == ["Clarify", "Clarify", "Clarify", "Abstain"]


def check_excel_export(path: Path) -> None:
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and raw.count(b"\r\n") == 3
    cases = load_cases(str(path))
    assert [case.id for case in cases] == ["bad-001", "bad-002"]
    assert [case.sex for case in cases] == ["F", "M"]
    # CRLF line ends leave no carriage return in any field
    assert not any("\r" in section for case in cases for section in case.sections)
    assert cases[0].diagnosis == "F32.1" and cases[0].earliest_sufficient_section == 2


def check_mentalbench_quoted(path: Path) -> None:
    first, second = load_items(path)
    assert second.question.startswith('He said: "they, the neighbours, listen".\n\nA 30-year-old')
    assert first.options == second.options
    assert first.options[0] == "Schizophrenia" and second.answer_letters == ("A",)


VALID_SAFE_PSYCH: dict[str, Callable[[Path], None]] = {
    "quoted_newlines.csv": check_quoted_newlines,
    "excel_bom_crlf.csv": check_excel_export,
}
VALID_MENTALBENCH: dict[str, Callable[[Path], None]] = {
    "valid_quoted_newlines.csv": check_mentalbench_quoted,
}


@pytest.mark.parametrize("name", [*VALID_SAFE_PSYCH, *VALID_MENTALBENCH])
def test_valid_corpus_files_load(name: str) -> None:
    if name in VALID_SAFE_PSYCH:
        VALID_SAFE_PSYCH[name](SP / name)
    else:
        VALID_MENTALBENCH[name](MB / name)


# ---------------------------------------------------------------------------- 1 MB fields


def test_a_one_megabyte_section_is_rejected_with_its_row_and_column(tmp_path: Path) -> None:
    """Decision: rejected. Nearly always an unclosed quote; if real, it overflows the context."""
    text = (SP / "duplicate_ids.csv").read_text(encoding="utf-8").splitlines()
    huge = "Long rambling history. " * (2**20 // 23 + 1)
    assert len(huge) >= 2**20
    row = text[2].replace("HAM-D 22.", huge)
    path = tmp_path / "huge_section.csv"
    path.write_text("\n".join([text[0], text[1], row]) + "\n", encoding="utf-8")
    with pytest.raises(SafePsychDataError) as error:
        load_cases(str(path))
    assert str(error.value) == (
        f"{path}: row 2 (id=bad-002), column 'psychological_exam': {len(huge.strip()):,} "
        f"characters, more than the {MAX_SECTION_CHARS:,} a section may have; check the file "
        "for an unclosed quote (a real section this long would overflow most models' context "
        "windows)"
    )
    # just under the limit is accepted
    fitting = "x" * MAX_SECTION_CHARS
    path.write_text("\n".join([text[0], text[2].replace("HAM-D 22.", fitting)]) + "\n")
    (case,) = load_cases(str(path))
    assert fitting in case.sections


def test_a_one_megabyte_narrative_is_rejected(tmp_path: Path) -> None:
    lines = (MB / "valid_quoted_newlines.csv").read_text(encoding="utf-8")
    huge = "He keeps talking. " * (2**20 // 18 + 1)
    path = tmp_path / "huge.csv"
    path.write_text(lines.replace('He said: "', huge + 'He said: "'), encoding="utf-8")
    with pytest.raises(MentalBenchDataError) as error:
        load_items(path)
    size = len(huge) + len(load_items(MB / "valid_quoted_newlines.csv")[1].question)
    assert str(error.value) == (
        "MentalBench item D005_l002 (type1, gemini) at data row 2 of huge.csv, field "
        f"'question': {size:,} characters, more than the {MAX_QUESTION_CHARS:,} a narrative "
        "may have; check the file for an unclosed quote"
    )


def test_a_broken_json_file_in_a_resources_folder_is_named(tmp_path: Path) -> None:
    """A GitHub-layout folder with one malformed item file (written here, so that no file named
    like the MentalBench release is kept in the repository)."""
    folder = tmp_path / "broken_folder" / "dataset"
    (folder / "medium").mkdir(parents=True)
    (folder / "high").mkdir()
    item_file = folder / "low" / "D005" / "main_gemini.json"
    item_file.parent.mkdir(parents=True)
    item_file.write_text(BROKEN_ITEM_FILE, encoding="utf-8")
    with pytest.raises(MentalBenchDataError) as error:
        load_items(tmp_path / "broken_folder")
    assert str(error.value) == (
        "MentalBench file low/D005/main_gemini.json: not valid JSON "
        "(Expecting ',' delimiter: line 3 column 3 (char 69))"
    )


# ---------------------------------------------------------------------------- other paths


def test_data_check_command_prints_the_error(capsys: pytest.CaptureFixture[str]) -> None:
    path = SP / "wrong_type_agreement.csv"
    assert selfdx_main(["data", "safe-psych", str(path)]) == 1
    assert capsys.readouterr().err.strip() == (
        f"error: {path}: row 2 (id=bad-002), column 'diagnosis_agreement': 'partly' is not an "
        "agreement value (expected 1 or 0, true or false, yes or no)"
    )


HUB_SCRIPT = """
import time
from selfdx.datasets import hub
from selfdx.datasets.hub import HUB_PROBE_SECONDS, probe_hub
from selfdx.datasets.mentalbench.dataset import load_items
from selfdx.datasets.safe_psych import load_cases
for load in (lambda: load_cases("hf"), lambda: load_items("hf")):
    start = time.perf_counter()
    try:
        load()
    except Exception as error:
        print(f"{time.perf_counter() - start:.1f}", type(error).__name__ + ": " + str(error))
    else:
        print("loaded")
"""


def run_hub_script(env: dict[str, str]) -> list[tuple[float, str]]:
    """(seconds, error line) of each loader with data="hf", in a fresh interpreter."""
    result = subprocess.run(
        [sys.executable, "-c", HUB_SCRIPT],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 2, result.stdout
    return [(float(line.split(" ", 1)[0]), line.split(" ", 1)[1]) for line in lines]


def test_hub_loaders_offline_mode_name_the_alternatives(tmp_path: Path) -> None:
    """HF_HUB_OFFLINE=1 with an empty cache: the real `datasets` failure, reworded in one line."""
    env = dict(os.environ, HF_HOME=str(tmp_path / "hf"), HF_HUB_OFFLINE="1")
    (sp_seconds, safe_psych), (mb_seconds, mentalbench) = run_hub_script(env)
    assert safe_psych.startswith(
        'SafePsychDataError: data="hf": HF_HUB_OFFLINE=1 is set and the local Hugging Face cache '
        "has no usable copy of the Safe-Psych dataset 'safepsych/Safe-Psych' (revision main)"
    )
    assert mentalbench.startswith(
        'MentalBenchSourceError: data="hf": HF_HUB_OFFLINE=1 is set and the local Hugging Face '
        "cache has no usable copy of MentalBench 'hysong/MentalBench'"
    )
    for line in (safe_psych, mentalbench):
        assert "OfflineModeIsEnabled" in line and "\n" not in line
        assert 'Use data="demo" for the bundled synthetic demo set, or data=PATH' in line
        assert line.endswith("Or unset HF_HUB_OFFLINE to download it.")
    assert sp_seconds < 30 and mb_seconds < 30


@pytest.mark.slow
def test_unreachable_hub_fails_fast(tmp_path: Path) -> None:
    """An endpoint that never answers (a listening socket that accepts nothing) fails within the
    probe's bound, instead of `datasets`' retries with back-off."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(0)
        port = silent.getsockname()[1]
        env = dict(
            os.environ,
            HF_HOME=str(tmp_path / "hf"),
            HF_ENDPOINT=f"http://127.0.0.1:{port}",
        )
        env.pop("HF_HUB_OFFLINE", None)
        env.pop("HF_DATASETS_OFFLINE", None)
        (sp_seconds, safe_psych), (mb_seconds, mentalbench) = run_hub_script(env)
    assert safe_psych.startswith(
        f'SafePsychDataError: data="hf": the Hugging Face Hub (http://127.0.0.1:{port}) is not '
        "reachable ("
    )
    assert mentalbench.startswith(
        f'MentalBenchSourceError: data="hf": the Hugging Face Hub (http://127.0.0.1:{port}) is '
        "not reachable ("
    )
    for line in (safe_psych, mentalbench):
        assert 'Use data="demo" for the bundled synthetic demo set, or data=PATH' in line
        assert line.endswith("(HF_HUB_OFFLINE=1 reads a copy already in the local cache.)")
    # the probe allows HUB_PROBE_SECONDS (5 s); generous for a loaded machine
    assert sp_seconds < HUB_PROBE_SECONDS + 10 and mb_seconds < HUB_PROBE_SECONDS + 10


def test_hub_probe_is_bounded_when_nothing_answers() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(0)
        start = time.perf_counter()
        problem = probe_hub(f"http://127.0.0.1:{silent.getsockname()[1]}", seconds=1.0)
        elapsed = time.perf_counter() - start
    assert problem is not None and elapsed < 5


# ---------------------------------------------------------------------------- generated cases:
# malformed gold codes and oversized fields, written into copies of valid corpus rows

SP_VALID_ROW = (SP / "duplicate_ids.csv").read_text(encoding="utf-8").splitlines()[:2]
GOLD_CODE_PROBLEMS: list[tuple[str, str]] = [
    ("F322", "has no dot after the category (write F32.2, not F322)"),
    ("F32garbage", "has text after the code"),
    ('"F32, F33"', "holds more than one code; a gold label is one code"),
    ("F32-F33", "is a range of codes; a gold label is one code"),
    ("F32.1.2", "has more than one dot"),
    ("F99.", "ends with a dot and no digits after it"),
]
GOLD_CODE_EXPECTED = (
    "(expected one ICD-10 code: a letter and two digits, optionally a dot and 1-4 letters or "
    "digits: F32, F32.1, F10.20)"
)


def write_sp(path: Path, row: str) -> Path:
    path.write_text(SP_VALID_ROW[0] + "\n" + row + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("cell", "problem"), GOLD_CODE_PROBLEMS, ids=[c for c, _ in GOLD_CODE_PROBLEMS]
)
def test_a_malformed_gold_code_names_file_row_id_and_column(
    tmp_path: Path, cell: str, problem: str
) -> None:
    """Before: each of these loaded and was scored at the category or group level."""
    path = write_sp(tmp_path / "codes.csv", SP_VALID_ROW[1].replace(",F32.1,", f",{cell},"))
    with pytest.raises(SafePsychDataError) as error:
        load_cases(str(path))
    value = cell.strip('"')
    assert str(error.value) == (
        f"{path}: row 1 (id=bad-001), column 'diagnosis': {value!r} {problem} " + GOLD_CODE_EXPECTED
    )


HUGE_ID = "x" * 200_000


def test_a_200000_character_safe_psych_id_is_rejected(tmp_path: Path) -> None:
    path = write_sp(tmp_path / "huge_id.csv", SP_VALID_ROW[1].replace("bad-001", HUGE_ID))
    with pytest.raises(SafePsychDataError) as error:
        load_cases(str(path))
    assert str(error.value) == (
        f"{path}: row 1, column 'id': 200,000 characters, more than the {MAX_FIELD_CHARS} this "
        "column may have; check the file for an unclosed quote"
    )


@pytest.mark.parametrize("column", ["age_group", "sex", "diagnosis", "diagnosis_agreement"])
def test_every_short_safe_psych_column_has_a_limit(tmp_path: Path, column: str) -> None:
    header = SP_VALID_ROW[0].split(",")
    with (SP / "duplicate_ids.csv").open(encoding="utf-8", newline="") as handle:
        row = next(csv.DictReader(handle))
    row[column] = "y" * (MAX_FIELD_CHARS + 1)
    path = tmp_path / "long.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=header)
        writer.writeheader()
        writer.writerow(row)
    with pytest.raises(SafePsychDataError) as error:
        load_cases(str(path))
    assert str(error.value) == (
        f"{path}: row 1 (id=bad-001), column '{column}': {MAX_FIELD_CHARS + 1} characters, more "
        f"than the {MAX_FIELD_CHARS} this column may have; check the file for an unclosed quote"
    )
    row[column] = {"diagnosis": "F32.1", "diagnosis_agreement": "1"}.get(column, "z" * 200)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=header)
        writer.writeheader()
        writer.writerow(row)
    (case,) = load_cases(str(path))  # at the limit: accepted
    assert case.id == "bad-001"


MB_ROWS = list(
    csv.DictReader((MB / "valid_quoted_newlines.csv").open(encoding="utf-8", newline=""))
)


@pytest.mark.parametrize(
    ("column", "limit"),
    [("id", 200), ("code", 200), ("model", 200), ("type", 200), ("option", 2000), ("answer", 1000)],
)
def test_every_mentalbench_csv_field_has_a_limit(tmp_path: Path, column: str, limit: int) -> None:
    rows = [dict(row) for row in MB_ROWS]
    rows[1][column] = "z" * 200_000
    path = tmp_path / "huge.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(MentalBenchDataError) as error:
        load_items(path)
    where = (
        "data row 2 of huge.csv"
        if column in ("id", "code", "model", "type")
        else "D005_l002 (type1, gemini) at data row 2 of huge.csv"
    )
    field = "options" if column == "option" else column
    assert str(error.value) == (
        f"MentalBench item {where}, field '{field}': 200,000 characters, more than the "
        f"{limit:,} this field may have; check the file for an unclosed quote"
    )


def test_a_200000_character_item_key_in_a_resources_folder_is_rejected(tmp_path: Path) -> None:
    folder = tmp_path / "resources" / "dataset"
    for tier in ("medium", "high"):
        (folder / tier).mkdir(parents=True)
    item_file = folder / "low" / "D005" / "main_gemini.json"
    item_file.parent.mkdir(parents=True)
    record = {"question": "q", "options": "A. Schizophrenia", "answer": "A. Schizophrenia"}
    item_file.write_text(json.dumps({"D005_" + HUGE_ID: record}), encoding="utf-8")
    with pytest.raises(MentalBenchDataError) as error:
        load_items(tmp_path / "resources")
    assert str(error.value) == (
        f"MentalBench item D005_{'x' * 52}... in low/D005/main_gemini.json, field 'id': "
        "200,005 characters, more than the 200 this field may have; check the file for an "
        "unclosed quote"
    )


def test_a_200000_character_id_stops_inspect_eval_with_one_line(tmp_path: Path) -> None:
    """The reported symptom: such an id ended in 0 samples, exit 0 and no message."""
    path = write_sp(tmp_path / "huge_id.csv", SP_VALID_ROW[1].replace("bad-001", HUGE_ID))
    command = [
        sys.executable,
        "-m",
        "inspect_ai",
        "eval",
        "selfdx/safe_psych",
        "-T",
        f"data={path}",
        "--model",
        "selfdx/keyword",
        "--model-role",
        "grader=selfdx/rules-judge",
        "--log-dir",
        str(tmp_path / "logs"),
        "--display",
        "plain",
    ]
    result = subprocess.run(
        command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=180, check=False
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "Traceback" not in output
    # Inspect's console wraps the line at the terminal's width, within the path too
    expected = f"{path}: row 1, column 'id': 200,000 characters"
    assert "".join(expected.split()) in "".join(output.split())


def test_deeply_nested_json_and_non_object_rows_are_named(tmp_path: Path) -> None:
    """json.loads raises RecursionError on deep nesting: it must not escape as a traceback."""
    folder = tmp_path / "resources" / "dataset"
    for tier in ("medium", "high"):
        (folder / tier).mkdir(parents=True)
    item_file = folder / "low" / "D005" / "main_gemini.json"
    item_file.parent.mkdir(parents=True)
    item_file.write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(MentalBenchDataError) as error:
        load_items(tmp_path / "resources")
    assert str(error.value) == (
        "MentalBench file low/D005/main_gemini.json: not valid JSON (nested too deeply)"
    )
    with pytest.raises(MentalBenchDataError) as error:
        items_from_rows([["type1", "D005"]], "rows.json")
    assert str(error.value) == (
        "MentalBench item data row 1 of rows.json, field '(row)': expected an object, got list"
    )
    demo = tmp_path / "demo.json"
    demo.write_text('{"items": [', encoding="utf-8")
    with pytest.raises(MentalBenchDataError, match=f"MentalBench demo file {demo}: not valid JSON"):
        read_demo(demo)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"\xff\xfe not utf-8", "not valid JSON ('utf-8' codec"),
        (b'{"a": ', "not valid JSON (Expecting value"),
        (b"[" * 200_000 + b"]" * 200_000, "not valid JSON (nested too deeply)"),
    ],
)
def test_every_json_reader_maps_a_bad_file_to_one_line(tmp_path, content, reason):
    """The one JSON reader of the data loaders (MentalKG, MentalBench items and demo, the
    interview's published profiles) names the file and the reason, never a traceback."""
    from selfdx.datasets.paths import read_json
    from selfdx.errors import SelfdxError

    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(SelfdxError) as caught:
        read_json(path, "MentalBench file bad.json", SelfdxError)
    assert str(caught.value).startswith(f"MentalBench file bad.json: {reason}")
