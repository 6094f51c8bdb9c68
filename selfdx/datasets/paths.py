"""Words for what a user's data path turned out to be, so that "does not exist" and "exists but is
not the expected layout" read differently, and the second names what was found."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# The small synthetic data sets bundled with the package.
DEMO_DIR = Path(__file__).parent / "demo"

# Folder entries named in a message before "and N more".
SHOWN_ENTRIES = 6


def local_path(data: str | Path) -> Path:
    """A `data=` path on this machine. A URL (`s3://...`) is an ArgumentError saying so: a
    `Path` would silently read `s3://b/x.csv` as the local `s3:/b/x.csv` and report that it does
    not exist. (Logs may live on an object store; input data is read from local files.)"""
    from selfdx.errors import ArgumentError

    if "://" in str(data):
        raise ArgumentError(
            f"data: {data} is a URL; data= takes a local file or folder (copy it from the store "
            "first), or the names the task lists"
        )
    return Path(data).expanduser()


def read_json(path: Path, what: str, error: type[Exception]) -> Any:
    """The JSON in `path`; a file that is not UTF-8 JSON, or is nested too deeply to read, is
    `error("<what>: not valid JSON (...)")`, never a traceback."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{what}: not valid JSON ({exc})") from exc
    except RecursionError as exc:
        raise error(f"{what}: not valid JSON (nested too deeply)") from exc


def shorten(text: str, limit: int = 60) -> str:
    """`text` cut to `limit` characters with an ellipsis, for quoting values in messages."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def folder_contents(path: Path) -> str:
    """What a folder holds, for a message: `'a/', 'b.json' and 3 more`, or `nothing`."""
    try:
        entries = sorted(
            (entry.name + "/" if entry.is_dir() else entry.name) for entry in path.iterdir()
        )
    except OSError as exc:
        return f"a folder that cannot be listed ({exc.strerror or exc})"
    if not entries:
        return "an empty folder"
    shown = ", ".join(repr(shorten(name)) for name in entries[:SHOWN_ENTRIES])
    more = len(entries) - SHOWN_ENTRIES
    return f"{shown} and {more} more" if more > 0 else shown


def what_is_there(path: Path) -> str:
    """A few words on what `path` is: a folder and its entries, or a file and its size."""
    if path.is_dir():
        return f"a folder holding {folder_contents(path)}"
    if path.is_file():
        return f"a file of {path.stat().st_size:,} bytes"
    return "neither a file nor a folder"


def columns_found(columns: list[str]) -> str:
    """The header a file has, shortened for a message."""
    if not columns:
        return "no columns"
    shown = ", ".join(repr(shorten(column, 40)) for column in columns[:15])
    more = len(columns) - 15
    return f"{shown} and {more} more" if more > 0 else shown
