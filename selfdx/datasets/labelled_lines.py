"""Reading a bundled labelled set: one JSON object per line, each validated by a pydantic model
with an `id`; a bad line is one error naming the file, line and field."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import fsspec
from pydantic import BaseModel, ValidationError

from selfdx.errors import SelfdxError

Item = TypeVar("Item", bound=BaseModel)
# The parts of a bundled labelled set: `dev` (what an instrument's rules were tuned on) and
# `heldout` (never used to tune a rule).
PARTS = ("dev", "heldout")


def labelled_lines(path: Path | str, model: type[Item]) -> Iterator[tuple[str, Item]]:
    """(where, item) for every non-empty line of `path` (a local path or a URL, read through
    fsspec), `where` naming the file and line; a missing file, a line that is not JSON, one that
    breaks `model` or repeats an id raises a SelfdxError."""
    seen: set[str] = set()
    name = str(path).rstrip("/").rsplit("/", 1)[-1]
    try:
        with fsspec.open(str(path), "rt", encoding="utf-8") as file:
            text = file.read()
    except FileNotFoundError as exc:
        raise SelfdxError(f"{path}: no such file") from exc
    except UnicodeDecodeError as exc:
        raise SelfdxError(f"{path}: not UTF-8 text") from exc
    except Exception as exc:  # an unreachable store, no credentials, a refused connection
        raise SelfdxError(f"{path}: cannot be read ({type(exc).__name__}: {exc})") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}: line {number}"
        try:
            item = model.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            raise SelfdxError(f"{where}: not valid JSON ({exc.msg})") from exc
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(map(str, first["loc"])) or "item"
            raise SelfdxError(f"{where}: field {field}: {first['msg']}") from exc
        identity = str(getattr(item, "id", ""))
        if identity in seen:
            raise SelfdxError(f"{where}: field id: {identity!r} is given twice")
        seen.add(identity)
        yield where, item
