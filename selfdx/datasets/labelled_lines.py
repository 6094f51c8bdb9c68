"""Reading a bundled labelled set: one JSON object per line, each validated by a pydantic model
with an `id`; a bad line is one error naming the file, line and field."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from selfdx.errors import SelfdxError

Item = TypeVar("Item", bound=BaseModel)
# The parts of a bundled labelled set: `dev` (what an instrument's rules were tuned on) and
# `heldout` (never used to tune a rule).
PARTS = ("dev", "heldout")


def labelled_lines(path: Path, model: type[Item]) -> Iterator[tuple[str, Item]]:
    """(where, item) for every non-empty line of `path`, `where` naming the file and line; a
    line that is not JSON, breaks `model` or repeats an id raises a SelfdxError."""
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name}: line {number}"
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
