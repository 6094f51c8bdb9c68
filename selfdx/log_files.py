"""Every Inspect log in a folder, local or on an object store (through fsspec).

Inspect's `list_eval_logs` lists every `.eval` file but a `.json` file only when its name starts
with Inspect's timestamp, so a JSON log renamed by its user would drop out of a report without a
word. `list_logs` adds each other `.json` file whose opening is that of an Inspect log; one that
opens like a log but cannot be read is still listed, so that its reader can name it as left out.
"""

from __future__ import annotations

import re

import fsspec
from inspect_ai.log import list_eval_logs

# Inspect's JSON logs open with their format version and status, before the long `eval` part.
LOG_OPENING = re.compile(r'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
OPENING_BYTES = 200
# Inspect's own index of a log folder, never a log.
NOT_LOGS = {"logs.json"}


def list_logs(log_dir: str) -> list[str]:
    """The locations of every log under `log_dir` (recursively), Inspect's listing first, in its
    order, then the JSON logs it does not list, by name."""
    listed = [info.name for info in list_eval_logs(log_dir, recursive=True, descending=False)]
    return listed + renamed_json_logs(log_dir, set(listed))


def renamed_json_logs(log_dir: str, listed: set[str]) -> list[str]:
    """The `.json` files under `log_dir` that Inspect did not list and that open as its logs."""
    filesystem, root = fsspec.core.url_to_fs(log_dir)
    found = []
    for path in sorted(filesystem.find(root)):
        location = filesystem.unstrip_protocol(path)
        name = path.rsplit("/", 1)[-1]
        if not name.endswith(".json") or name in NOT_LOGS or location in listed:
            continue
        with filesystem.open(path, "rb") as file:
            opening = file.read(OPENING_BYTES).decode("utf-8", errors="replace")
        if LOG_OPENING.match(opening):
            found.append(location)
    return found
