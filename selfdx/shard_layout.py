"""Where sample shards live and what their logs record: shared by the runner
(selfdx/sample_shards.py), the merge (selfdx/analysis/merge.py) and the report.

Inspect's shard layout: the shards of one task are logs in `<dir>/<name>.shards/<k>/`, and the
log merged from them is `<dir>/<name>.eval`. A shard's log says which share it holds in
`eval.metadata["selfdx_shard"]`: `split` ("samples"), `index` (k), `count` (n), `samples` (the
task's number of samples), `ids_sha256` (SHA-256 of their ids in dataset order, `ids_digest`)
and `limit` (the `--limit` the share was taken from, or None).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

SHARD_KEY = "selfdx_shard"
SHARDS_SUFFIX = ".shards"


def sample_share(ids: Sequence[Any], shard: tuple[int, int]) -> list[Any]:
    """The ids of shard i of n: every n-th id by position, from the i-th (1-based)."""
    index, count = shard
    return list(ids[index - 1 :: count])


def share_size(index: int, count: int, samples: int) -> int:
    """How many of `samples` fall to shard `index` of `count`."""
    return len(range(index - 1, samples, count))


def ids_digest(ids: Sequence[Any]) -> str:
    """SHA-256 (hex) of sample ids in their order (as JSON, so that 1 and "1" differ)."""
    return hashlib.sha256(json.dumps(list(ids)).encode("utf-8")).hexdigest()


def shard_place(location: str) -> tuple[str, str] | None:
    """(the `<dir>/<name>.shards` folder, the shard folder name `<k>`) of a log at
    `<dir>/<name>.shards/<k>/<file>`; None for a log anywhere else."""
    parts = location.rsplit("/", 3)
    if len(parts) < 4 or not parts[1].endswith(SHARDS_SUFFIX) or parts[1] == SHARDS_SUFFIX:
        return None
    return f"{parts[0]}/{parts[1]}", parts[2]


def merged_location(shards_folder: str) -> str:
    """`<dir>/<name>.shards` -> `<dir>/<name>.eval`, the merged log beside its shards."""
    return shards_folder.rstrip("/").removesuffix(SHARDS_SUFFIX) + ".eval"
