"""Readers for the three MentalBench sources: the GitHub `resources/` folder, the Hugging Face CSV
(a local file or `hysong/MentalBench` on the Hub), and the bundled synthetic demo set.

Each reader returns validated `MentalBenchItem`s; anything malformed stops with an error that
names the file, the item and the field.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from selfdx.datasets.csv_files import read_csv_rows
from selfdx.datasets.hub import load_from_hub
from selfdx.datasets.mentalbench.schema import (
    DISORDER_CODES,
    LETTERS,
    MentalBenchDataError,
    MentalBenchItem,
    build_item,
    check_size,
    describe,
    parse_answer,
    parse_code,
    parse_number,
    parse_options,
)
from selfdx.datasets.paths import DEMO_DIR, columns_found, read_json, shorten, what_is_there
from selfdx.errors import SelfdxError

logger = logging.getLogger(__name__)

HF_REPO = "hysong/MentalBench"
HF_REVISION = "1b1d88771ab92744a77bd9e05ce762a654b9551d"
CSV_COLUMNS: tuple[str, ...] = ("type", "code", "model", "id", "question", "option", "answer")
DEMO_FILE = DEMO_DIR / "mentalbench_demo.json"

# Paths below `dataset/` that hold evaluation items (everything under `features/` is metadata).
TIERED_FILE = re.compile(r"^(low|medium)/(D\d{3})/main_([A-Za-z0-9_.]+)\.json$")
HIGH_FILE = re.compile(
    r"^high/(D\d{3})/(D\d{3})/(type3/main|type4/a_main|type4/b_main)_([A-Za-z0-9_.]+)\.json$"
)
HIGH_VARIANT = {"type3/main": "3", "type4/a_main": "4a", "type4/b_main": "4b"}
ITEM_FIELDS = frozenset({"question", "options", "answer"})


class MentalBenchSourceError(SelfdxError, RuntimeError):
    """A MentalBench source that cannot be reached or recognised."""


def find_dataset_dir(path: Path) -> Path | None:
    """The `dataset/` folder for a repository root, a `resources/` folder or `dataset/` itself."""
    for candidate in (path / "resources" / "dataset", path / "dataset", path):
        if all((candidate / tier).is_dir() for tier in ("low", "medium", "high")):
            return candidate
    return None


def classify_item_file(relative: str) -> tuple[str, str, str] | None:
    """(variant, code, generator) for an item file path relative to `dataset/`, else None."""
    if match := TIERED_FILE.match(relative):
        tier, code, generator = match.groups()
        return ("1" if tier == "low" else "2", code, generator)
    if match := HIGH_FILE.match(relative):
        main, sub, kind, generator = match.groups()
        return (HIGH_VARIANT[kind], f"{main}-{sub}", generator)
    return None


def read_resources_folder(
    path: Path,
    variants: set[str] | None = None,
    generators: set[str] | None = None,
) -> list[MentalBenchItem]:
    """Read the GitHub JSON layout; `variants`/`generators` skip whole files early."""
    dataset_dir = find_dataset_dir(path)
    if dataset_dir is None:
        raise MentalBenchSourceError(
            f"data: {str(path)!r} is not a MentalBench resources folder: expected dataset/low, "
            "dataset/medium and dataset/high below it (the GitHub repository's resources/ "
            f"folder), found {what_is_there(path)}"
        )
    items: list[MentalBenchItem] = []
    unrecognised: list[str] = []
    for file in sorted(dataset_dir.rglob("*.json")):
        relative = file.relative_to(dataset_dir).as_posix()
        if "/features/" in f"/{relative}":
            continue
        kind = classify_item_file(relative)
        if kind is None:
            unrecognised.append(relative)
            continue
        variant, code, generator = kind
        if variants is not None and variant not in variants:
            continue
        if generators is not None and generator not in generators:
            continue
        items.extend(read_item_file(file, relative, variant, code, generator))
    if unrecognised:
        logger.warning(
            "MentalBench: ignored %d JSON files outside the published layout under %s, e.g. %s",
            len(unrecognised),
            dataset_dir,
            unrecognised[:3],
        )
    return items


def read_item_file(
    file: Path, relative: str, variant: str, code: str, generator: str
) -> list[MentalBenchItem]:
    """Read one item file: a JSON object keyed by item id (`D001_l001`)."""
    records = read_json(file, f"MentalBench file {relative}", MentalBenchDataError)
    if not isinstance(records, dict):
        raise MentalBenchDataError(
            f"MentalBench file {relative}: expected a JSON object keyed by item id"
        )
    type_ = int(variant[0])
    items = []
    for key, record in records.items():
        check_size(key, f"{shorten(key)} in {relative}", "id")
        where = f"{key} in {relative}"
        prefix, _, number = str(key).rpartition("_")
        if prefix != code:
            raise describe(where, "id", f"the id should start with '{code}_' in this folder")
        number = parse_number(number, type_, where)
        if not isinstance(record, dict):
            raise describe(where, "(record)", "expected an object with question, options, answer")
        missing = ITEM_FIELDS - record.keys()
        extra = record.keys() - ITEM_FIELDS
        if missing or extra:
            bad = sorted(missing or extra)[0]
            problem = "is missing" if missing else "is not part of the published schema"
            raise describe(where, bad, problem)
        items.append(
            build_item(
                variant=variant,
                code=code,
                generator=generator,
                number=number,
                question=record["question"],
                options=record["options"],
                answer=record["answer"],
                where=where,
            )
        )
    return items


def items_from_rows(rows: Iterable[Mapping[str, Any]], source: str) -> list[MentalBenchItem]:
    """Items from rows in the Hugging Face schema (type, code, model, id, question, option, answer).

    Type 4a/4b is not a column: it is recovered from the answer (4a keys the pair's main
    disorder, 4b its differential).
    """
    items = []
    for index, row in enumerate(rows, start=1):
        label = f"data row {index} of {source}"
        if not isinstance(row, Mapping):
            raise describe(label, "(row)", f"expected an object, got {type(row).__name__}")
        missing = [column for column in CSV_COLUMNS if column not in row]
        if missing:
            raise describe(label, missing[0], "column is missing")
        cells = {column: row[column] for column in CSV_COLUMNS}
        for column in ("type", "code", "model", "id"):
            check_size(cells[column], label, column)
            if not isinstance(cells[column], str) or not cells[column].strip():
                raise describe(label, column, f"expected text, got {cells[column]!r}")
        type_text = cells["type"].strip()
        if type_text not in ("type1", "type2", "type3", "type4"):
            raise describe(label, "type", f"{type_text!r} is not one of type1..type4")
        type_ = int(type_text[-1])
        code = parse_code(cells["code"], type_, label)
        number = parse_number(cells["id"], type_, label)
        generator = cells["model"].strip()
        where = f"{code}_{number} ({type_text}, {generator}) at {label}"
        variant = str(type_)
        if type_ == 4:
            variant = type4_variant(code, cells["option"], cells["answer"], where)
        items.append(
            build_item(
                variant=variant,
                code=code,
                generator=generator,
                number=number,
                question=cells["question"],
                options=cells["option"],
                answer=cells["answer"],
                where=where,
            )
        )
    return items


def type4_variant(code: str, options: object, answer: object, where: str) -> str:
    """'4a' when the answer keys the pair's main disorder, '4b' when it keys the differential."""
    names = parse_options(options, where)
    letters = parse_answer(answer, names, where)
    keyed = [DISORDER_CODES[names[LETTERS.index(letter)]] for letter in letters]
    main, sub = code.split("-")
    if keyed == [main]:
        return "4a"
    if keyed == [sub]:
        return "4b"
    raise describe(where, "answer", f"a Type 4 answer must key {main} or {sub}, not {keyed}")


def read_csv_file(path: Path) -> list[MentalBenchItem]:
    """Read the Hugging Face `mentalbench.csv` (or any CSV with its seven columns)."""
    columns, rows = read_csv_rows(
        path, f"MentalBench CSV {path}", MentalBenchDataError, row_word="data row"
    )
    check_columns([str(column) for column in columns], path.name)
    if not rows:
        raise MentalBenchDataError(
            f"MentalBench CSV {path}: no items (the file has a header but no rows)"
        )
    return items_from_rows(rows, path.name)


def check_columns(columns: list[str], source: str) -> None:
    """The seven Hugging Face columns must be there; extra columns are reported and ignored."""
    missing = [column for column in CSV_COLUMNS if column not in columns]
    if missing:
        raise MentalBenchDataError(
            f"MentalBench table {source}: column '{missing[0]}' is missing "
            f"(expected {', '.join(CSV_COLUMNS)}; found {columns_found(columns)})"
        )
    extra = [column for column in columns if column not in CSV_COLUMNS]
    if extra:
        logger.warning("MentalBench table %s: ignored columns %s", source, extra)


def items_from_frame(frame: Any, source: str) -> list[MentalBenchItem]:
    """Items from a pandas DataFrame in the Hugging Face schema; extra columns are reported."""
    check_columns([str(column) for column in frame.columns], source)
    return items_from_rows(frame[list(CSV_COLUMNS)].to_dict("records"), source)


def read_hugging_face(revision: str) -> list[MentalBenchItem]:
    """Download (or reuse the cached) `hysong/MentalBench` CSV at `revision` and read it; fails
    within seconds when the Hub is out of reach."""
    table, revision = load_from_hub(
        HF_REPO,
        revision,
        "train",
        "MentalBench",
        'Use data="demo" for the bundled synthetic demo set, or data=PATH with a local copy: the '
        "GitHub repository's resources/ folder or the downloaded mentalbench.csv.",
        MentalBenchSourceError,
    )
    return items_from_frame(table.to_pandas(), f"{HF_REPO}@{revision}")


def read_demo(path: Path = DEMO_FILE) -> list[MentalBenchItem]:
    """The bundled synthetic demo set: a JSON object whose `items` are rows in the HF schema."""
    content = read_json(path, f"MentalBench demo file {path}", MentalBenchDataError)
    if not isinstance(content, dict) or not isinstance(content.get("items"), list):
        raise MentalBenchDataError(f"MentalBench demo file {path}: expected an object with 'items'")
    return items_from_rows(content["items"], path.name)
