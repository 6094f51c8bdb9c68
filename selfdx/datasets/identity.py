"""What data a run used: a readable source and a content hash recorded in every log.

`selfdx report` groups runs only when their data agree, so two files with the same name but
different content, or one file edited between runs, never pool as repeated runs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from typing import Any

from inspect_ai.dataset import Sample


def _plain(value: Any) -> Any:
    """A JSON-ready form of a sample field (chat messages become their role and text)."""
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if hasattr(value, "role") and hasattr(value, "text"):
        return {"role": value.role, "text": value.text}
    return value


def samples_sha256(samples: Iterable[Sample], record: Callable[[Sample], Any] | None = None) -> str:
    """sha256 over every sample's id, input, choices, target and metadata, in order; or over
    what `record` keeps of each sample (a task whose seed only reorders the options hashes
    what does not depend on the order, so that its seeds are repeats of one data set)."""
    digest = hashlib.sha256()
    for sample in samples:
        if record is None:
            kept = [sample.id, _plain(sample.input), sample.choices, sample.target, sample.metadata]
        else:
            kept = record(sample)
        record_json = json.dumps(kept, sort_keys=True, default=str)
        digest.update(record_json.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def data_source(data: str, hub_repo: str, revision: str) -> str:
    """`demo`, `hf:<repo>@<revision>`, or the path as given."""
    if data == "hf":
        return f"hf:{hub_repo}@{revision}"
    return str(data)
