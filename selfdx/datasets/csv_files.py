"""Strict reading of hand-edited CSV files, shared by the dataset loaders.

UTF-8 (a byte-order mark is allowed), quoted fields may span lines, and every row must have
exactly as many fields as the header. Errors name the file, the row (data rows count from 1
after the header) or line, and say what to fix.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

# Far above any real field; fields are checked against their own limits by the loaders, so a
# huge field gets an error naming its row and column instead of the csv module's bare one.
CSV_FIELD_LIMIT = 1 << 30


def read_utf8(path: Path, prefix: str, error: type[Exception]) -> str:
    """The file's text; a non-UTF-8 byte raises `error` naming its line and offset."""
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = exc.object[exc.start : exc.start + 1].hex().upper()
        line = exc.object.count(b"\n", 0, exc.start) + 1
        raise error(
            f"{prefix}: not valid UTF-8 text: byte 0x{bad} on line {line} (offset {exc.start}); "
            "save the file as UTF-8"
        ) from exc


def read_csv_rows(
    path: Path, prefix: str, error: type[Exception], row_word: str = "row"
) -> tuple[list[str], list[dict[str, str]]]:
    """(header columns, rows as dicts) of a CSV file, stripped of spaces around column names.

    Raises `error` for an empty file, a column named twice in the header, a row with more or
    fewer fields than the header, and malformed quoting.
    """
    text = read_utf8(path, prefix, error)
    previous_limit = csv.field_size_limit(CSV_FIELD_LIMIT)
    try:
        # strict: a stray quote is an error instead of silently merging fields
        reader = csv.reader(io.StringIO(text, newline=""), strict=True)
        index, start_line = 0, 1
        try:
            header = next(reader, None)
            if header is None or not any(cell.strip() for cell in header):
                raise error(f"{prefix}: the file is empty (no header row)")
            columns = [cell.strip() for cell in header]
            seen: set[str] = set()
            for column in columns:
                if column and column in seen:
                    raise error(f"{prefix}: the header names column '{column}' twice")
                seen.add(column)
            rows: list[dict[str, str]] = []
            start_line = reader.line_num + 1
            for fields in reader:
                if fields:  # blank lines are skipped
                    index += 1
                    if len(fields) != len(columns):
                        raise error(_width_problem(prefix, row_word, index, fields, len(columns)))
                    rows.append(dict(zip(columns, fields, strict=True)))
                start_line = reader.line_num + 1
        except csv.Error as exc:
            raise error(
                f"{prefix}: {row_word} {index + 1} (from line {start_line}): malformed CSV "
                f"({exc}); a quote inside a quoted field must be doubled, and every opening "
                "quote closed"
            ) from exc
    finally:
        csv.field_size_limit(previous_limit)
    return columns, rows


def _width_problem(prefix: str, row_word: str, index: int, fields: list[str], width: int) -> str:
    more = len(fields) > width
    hint = "an unquoted comma" if more else "a missing field"
    if not more and any("\n" in field for field in fields):
        hint += " or a quote that swallows the lines after it"
    return (
        f"{prefix}: {row_word} {index} has {'more' if more else 'fewer'} fields than the header "
        f"({len(fields)} fields, the header has {width} columns); check for {hint}"
    )
