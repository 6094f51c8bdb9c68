"""Property-based fuzzing of every data loader (hypothesis).

The property, for each loader: valid input loads exactly (checked against values computed here,
not by the loader); any mutation of it either loads the same number of records, each of them
valid, or raises the loader's `SelfdxError`: never another exception, never a record silently
lost. Loaders: the Safe-Psych CSV and Hub records, the MentalBench Hugging Face CSV and rows, the
MentalBench GitHub `resources/` folder, the MentalKG reader and the shared CSV reader. Each test
is bounded by `max_examples`, so the file runs in well under a minute.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from selfdx.datasets.csv_files import read_csv_rows
from selfdx.datasets.icd10 import gold_code_problem
from selfdx.datasets.mentalbench.dataset import load_items
from selfdx.datasets.mentalbench.schema import (
    FIELD_LIMITS,
    LETTERS,
    MAX_QUESTION_CHARS,
    MentalBenchDataError,
    MentalBenchItem,
)
from selfdx.datasets.mentalbench.sources import CSV_COLUMNS, items_from_rows, read_demo
from selfdx.datasets.mentalkg.entities import MentalKGError
from selfdx.datasets.mentalkg.reader import load_kg
from selfdx.datasets.safe_psych import (
    MAX_FIELD_CHARS,
    MAX_SECTION_CHARS,
    REQUIRED_COLUMNS,
    SECTION_COLUMNS,
    SafePsychDataError,
    load_cases,
    record_to_case,
)
from selfdx.errors import SelfdxError

FUZZ = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
KG = Path(__file__).resolve().parents[2] / "shared/mentalbench/resources/knowledge_graph/EN"

# Text as a hand-edited file may hold it: quotes, commas, line breaks, accents, emoji.
FIELD_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"),
    max_size=40,
)
# Single edits that break files in the ways hand editing does.
EDIT_CHARS = st.sampled_from([",", '"', "\n", "\r", "\x00", "\ufeff", " ", "x", "é", "'", ";"])


@st.composite
def edits(draw: st.DrawFn, text: str) -> str:
    """`text` with one to three single-character edits (insert, delete or replace)."""
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        position = draw(st.integers(min_value=0, max_value=max(len(text) - 1, 0)))
        kind = draw(st.sampled_from(["insert", "delete", "replace"]))
        char = draw(st.one_of(EDIT_CHARS, st.characters(blacklist_categories=["Cs"])))
        if kind == "insert":
            text = text[:position] + char + text[position:]
        elif kind == "delete":
            text = text[:position] + text[position + 1 :]
        else:
            text = text[:position] + char + text[position + 1 :]
    return text


def write_rows(path: Path, columns: list[str], rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


# ---------------------------------------------------------------------------- Safe-Psych CSV


@st.composite
def safe_psych_rows(draw: st.DrawFn) -> list[dict[str, str]]:
    """One to four valid published-schema rows with unique ids."""
    ids = draw(
        st.lists(
            st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,11}", fullmatch=True),
            min_size=1,
            max_size=4,
            unique=True,
        )
    )
    rows = []
    for case_id in ids:
        sections = draw(st.lists(FIELD_TEXT, min_size=5, max_size=5))
        if not any(section.strip() for section in sections):
            sections[draw(st.integers(0, 4))] = draw(FIELD_TEXT.filter(str.strip))
        stages = sum(1 for section in sections if section.strip())
        sufficient = draw(st.booleans())
        earliest = draw(st.integers(1, stages)) if sufficient else None
        rows.append(
            {
                "id": case_id,
                "age_group": draw(st.sampled_from(["18-29", "30-44", "65+", ""])),
                "sex": draw(st.sampled_from(["F", "M", ""])),
                **dict(zip(SECTION_COLUMNS, sections, strict=True)),
                "diagnosis_sufficiency": draw(st.sampled_from(["1", "1.0", "true"]))
                if sufficient
                else draw(st.sampled_from(["0", "0.0", "no"])),
                "diagnosis_sufficiency_agreement": draw(st.sampled_from(["1", "0", "", "yes"])),
                "diagnosis": draw(st.sampled_from(["", "F32.1", " f20.0 ", "F29", "F10.20"])),
                "diagnosis_agreement": draw(st.sampled_from(["1", "0", "", "false"])),
                "earliest_sufficient_section": "" if earliest is None else str(earliest),
            }
        )
    return rows


def check_case_against_row(case: Any, row: dict[str, str]) -> None:
    """The case as the spec defines it, computed here from the raw row."""
    kept = [(name, row[name].strip()) for name in SECTION_COLUMNS if row[name].strip()]
    assert case.id == row["id"]
    assert case.sections == tuple(text for _, text in kept)
    assert case.section_names == tuple(name for name, _ in kept)
    sufficient = row["diagnosis_sufficiency"] in ("1", "1.0", "true")
    assert case.sufficient is sufficient
    stages = len(kept)
    if sufficient:
        tau = int(row["earliest_sufficient_section"])
        assert case.gold_labels == ["Clarify"] * (tau - 1) + ["Diagnose"] * (stages - tau + 1)
    else:
        assert case.gold_labels == ["Clarify"] * (stages - 1) + ["Abstain"]
    assert case.diagnosis == row["diagnosis"].replace(" ", "").upper()
    assert case.age_group == (row["age_group"] or "Unknown") and case.sex == row["sex"]


def check_case_is_valid(case: Any) -> None:
    assert case.id and len(case.id) <= MAX_FIELD_CHARS
    assert 1 <= case.num_stages == len(case.sections) <= 5
    assert all(section and len(section) <= MAX_SECTION_CHARS for section in case.sections)
    assert len(case.gold_labels) == case.num_stages
    assert gold_code_problem(case.diagnosis) is None


@FUZZ
@given(rows=safe_psych_rows())
def test_valid_safe_psych_csv_loads_exactly(tmp_path: Path, rows: list[dict[str, str]]) -> None:
    path = write_rows(tmp_path / "cases.csv", list(REQUIRED_COLUMNS), rows)
    cases = load_cases(str(path))
    assert len(cases) == len(rows)
    for case, row in zip(cases, rows, strict=True):
        check_case_against_row(case, row)


@FUZZ
@given(data=st.data(), rows=safe_psych_rows())
def test_mutated_safe_psych_csv_loads_all_rows_or_names_the_problem(
    tmp_path: Path, data: st.DataObject, rows: list[dict[str, str]]
) -> None:
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=list(REQUIRED_COLUMNS))
    writer.writeheader()
    writer.writerows(rows)
    mutated = data.draw(edits(buffer.getvalue()))
    path = tmp_path / "cases.csv"
    path.write_bytes(mutated.encode("utf-8", errors="surrogatepass"))
    try:
        cases = load_cases(str(path))
    except SafePsychDataError:
        return
    assert len(cases) == len(rows)  # no row silently dropped or merged
    for case in cases:
        check_case_is_valid(case)


RECORD_VALUES = st.one_of(
    FIELD_TEXT,
    st.none(),
    st.integers(min_value=-3, max_value=9),
    st.floats(allow_nan=True),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
    st.just("F32.1"),
    st.just("x" * (MAX_FIELD_CHARS + 1)),
)


@FUZZ
@given(
    base=safe_psych_rows(),
    changes=st.dictionaries(st.sampled_from(REQUIRED_COLUMNS), RECORD_VALUES, max_size=4),
)
@example(
    base=[dict.fromkeys(REQUIRED_COLUMNS, "1") | {"diagnosis": "F32.1"}],
    changes={"id": "x" * 200_000},
)
def test_hub_records_of_any_type_load_or_name_the_problem(
    base: list[dict[str, str]], changes: dict[str, Any]
) -> None:
    """`data="hf"` records carry ints, floats, NaN and None; none may escape as another error."""
    record: dict[str, Any] = {**base[0], **changes}
    try:
        case = record_to_case(record, "row 1")
    except SafePsychDataError as error:
        assert str(error).startswith("row 1")
        assert len(str(error)) < 1_000  # a huge value is never echoed whole
        return
    check_case_is_valid(case)


# ---------------------------------------------------------------------------- MentalBench CSV

DEMO_ITEMS = read_demo()
DEMO_ROWS: list[dict[str, str]] = json.loads(
    (Path(__file__).parents[1] / "selfdx/datasets/demo/mentalbench_demo.json").read_text("utf-8")
)["items"]


def item_key(item: MentalBenchItem) -> tuple[Any, ...]:
    return (item.sample_id, item.question, item.options, item.answer_letters, item.truncated)


@FUZZ
@given(rows=st.lists(st.sampled_from(DEMO_ROWS), min_size=1, max_size=6, unique_by=json.dumps))
def test_valid_mentalbench_csv_loads_exactly(tmp_path: Path, rows: list[dict[str, str]]) -> None:
    path = write_rows(tmp_path / "mentalbench.csv", list(CSV_COLUMNS), rows)
    items = load_items(path)
    assert len(items) == len(rows)
    by_id = {item.sample_id: item for item in items}
    for row in rows:
        # the expected item, read from the row here: gold letters from the answer's letter part
        letters = tuple(x.strip() for x in row["answer"].split(".", 1)[0].split("&"))
        lines = [line.strip() for line in row["option"].splitlines() if line.strip()]
        options = tuple(line.split(". ", 1)[1].strip() for line in lines)
        matches = [
            item
            for item in by_id.values()
            if item.key == f"{row['code'].replace('_', '-')}_{row['id']}"
            and item.answer_letters == letters
        ]
        assert len(matches) == 1
        assert matches[0].question == row["question"] and matches[0].options == options
        assert matches[0].generator == row["model"]


@FUZZ
@given(data=st.data())
def test_mutated_mentalbench_csv_loads_all_rows_or_names_the_problem(
    tmp_path: Path, data: st.DataObject
) -> None:
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=list(CSV_COLUMNS))
    writer.writeheader()
    writer.writerows(DEMO_ROWS[:6])
    mutated = data.draw(edits(buffer.getvalue()))
    path = tmp_path / "mentalbench.csv"
    path.write_bytes(mutated.encode("utf-8", errors="surrogatepass"))
    try:
        items = load_items(path)
    except MentalBenchDataError:
        return
    assert len(items) == 6
    for item in items:
        assert len(item.options) == 4 and set(item.answer_letters) <= set(LETTERS)
        assert 0 < len(item.question) <= MAX_QUESTION_CHARS


@FUZZ
@given(
    index=st.integers(0, len(DEMO_ROWS) - 1),
    changes=st.dictionaries(
        st.sampled_from(CSV_COLUMNS),
        st.one_of(
            FIELD_TEXT,
            st.none(),
            st.integers(),
            st.floats(),
            st.lists(FIELD_TEXT, max_size=2),
            st.just("z" * 2_001),
        ),
        max_size=3,
    ),
)
def test_mentalbench_rows_of_any_type_load_or_name_the_problem(
    index: int, changes: dict[str, Any]
) -> None:
    """Rows as `datasets` hands them over (any cell type) and the demo reader's rows."""
    row = {**DEMO_ROWS[index], **changes}
    try:
        (item,) = items_from_rows([row], "fuzz")
    except MentalBenchDataError as error:
        assert "fuzz" in str(error) and len(str(error)) < 3_000
        return
    assert len(item.options) == 4
    for column, limit in FIELD_LIMITS.items():
        if column in row and isinstance(row[column], str):
            assert len(row[column]) <= limit


# ---------------------------------------------------------------------------- resources/ folder


def write_folder(root: Path, items: list[MentalBenchItem]) -> Path:
    """The GitHub layout of `items`, one JSON object per file."""
    files: dict[Path, dict[str, Any]] = {}
    dataset = root / "resources" / "dataset"
    for tier in ("low", "medium", "high"):
        (dataset / tier).mkdir(parents=True, exist_ok=True)
    for item in items:
        if item.variant in ("1", "2"):
            tier = "low" if item.variant == "1" else "medium"
            file = dataset / tier / item.code / f"main_{item.generator}.json"
        else:
            main, sub = item.codes
            kind = {"3": "type3/main", "4a": "type4/a_main", "4b": "type4/b_main"}[item.variant]
            file = dataset / "high" / main / sub / f"{kind}_{item.generator}.json"
        options = "\n".join(f"{LETTERS[i]}. {name}" for i, name in enumerate(item.options))
        record = {"question": item.question, "options": options, "answer": item.answer}
        files.setdefault(file, {})[item.key] = record
    for file, records in files.items():
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    return root / "resources"


def test_a_folder_written_from_the_demo_items_loads_exactly(tmp_path: Path) -> None:
    folder = write_folder(tmp_path, DEMO_ITEMS)
    assert sorted(map(item_key, load_items(folder))) == sorted(map(item_key, DEMO_ITEMS))


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), FIELD_TEXT),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(FIELD_TEXT, inner, max_size=3)
    ),
    max_leaves=6,
)


@FUZZ
@given(data=st.data())
def test_mutated_resources_folder_loads_all_items_or_names_the_problem(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    root = tmp_path_factory.mktemp("folder")
    folder = write_folder(root, DEMO_ITEMS)
    files = sorted(folder.rglob("*.json"))
    file = data.draw(st.sampled_from(files))
    records = json.loads(file.read_text(encoding="utf-8"))
    how = data.draw(st.sampled_from(["text", "value", "drop", "add", "key"]))
    if how == "text":
        file.write_text(data.draw(edits(file.read_text(encoding="utf-8"))), encoding="utf-8")
    else:
        key = data.draw(st.sampled_from(sorted(records)))
        field = data.draw(st.sampled_from(["question", "options", "answer"]))
        if how == "value":
            records[key][field] = data.draw(JSON_VALUES)
        elif how == "drop":
            del records[key][field]
        elif how == "add":
            records[key][data.draw(FIELD_TEXT)] = data.draw(JSON_VALUES)
        else:
            records[data.draw(FIELD_TEXT)] = records.pop(key)
        file.write_text(json.dumps(records), encoding="utf-8")
    try:
        items = load_items(folder)
    except MentalBenchDataError:
        return
    assert len(items) == len(DEMO_ITEMS)
    assert all(len(item.options) == 4 and item.answer_letters for item in items)


# ---------------------------------------------------------------------------- MentalKG

needs_kg = pytest.mark.skipif(not KG.is_dir(), reason="MentalKG not found at ../shared")


@pytest.fixture(scope="module")
def kg_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("kg") / "EN"
    shutil.copytree(KG, folder)
    return folder


def json_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (keys and list indices) to a value inside `value`."""
    paths = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            paths += json_paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            paths += json_paths(inner, (*prefix, index))
    return paths


@needs_kg
@settings(FUZZ, max_examples=60)  # each example reads the whole graph (about 60 ms)
@given(data=st.data())
def test_mutated_mentalkg_loads_or_names_the_problem(kg_copy: Path, data: st.DataObject) -> None:
    files = sorted(kg_copy.rglob("*.json"))
    file = data.draw(st.sampled_from(files))
    original = file.read_text(encoding="utf-8")
    content = json.loads(original)
    path = data.draw(st.sampled_from(json_paths(content)))
    parent = content
    for step in path[:-1]:
        parent = parent[step]
    how = data.draw(st.sampled_from(["value", "drop", "text", "long"]))
    if how == "value":
        parent[path[-1]] = data.draw(JSON_VALUES)
    elif how == "drop":
        del parent[path[-1]]
    elif how == "long":
        parent[path[-1]] = "y" * 10_001
    mutated = data.draw(edits(original)) if how == "text" else json.dumps(content)
    assume(mutated != original)
    try:
        file.write_text(mutated, encoding="utf-8", errors="surrogatepass")
        try:
            kg = load_kg(kg_copy, expected=None)
        except MentalKGError as error:
            assert "\n" not in str(error) and len(str(error)) < 1_000
            return
        assert how != "long"  # every text has a limit
        assert kg.disorders and kg.symptoms
    finally:
        file.write_text(original, encoding="utf-8")


@needs_kg
def test_the_copy_itself_loads_with_the_published_counts(kg_copy: Path) -> None:
    counts = load_kg(kg_copy).counts
    assert (counts.disorders, counts.groups, counts.symptoms, counts.differentials) == (
        23,
        23,
        84,
        87,
    )


# ---------------------------------------------------------------------------- shared CSV reader


@FUZZ
@given(
    text=st.one_of(
        st.text(max_size=200),
        st.lists(
            st.sampled_from(["a", "b", ",", '"', "\n", "\r\n", "\r", " ", "\x00", "\ufeff"]),
            max_size=60,
        ).map("".join),
    )
)
def test_csv_reader_returns_whole_rows_or_its_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "any.csv"
    path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    try:
        columns, rows = read_csv_rows(path, "any.csv", SafePsychDataError)
    except SelfdxError:
        return
    assert any(column for column in columns)
    for row in rows:
        assert list(row) == list(dict.fromkeys(columns))
