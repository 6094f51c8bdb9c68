"""Output folders of `selfdx report` and `selfdx export`: never silently over old results.

Each command writes a manifest (`.selfdx-manifest.json`) listing the files it wrote. The next
run into the same folder removes the files of the previous run that it does not write again, so
no stale table, figure or run folder of another report or export survives; files the manifest
does not list (the user's own) are never touched.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection
from pathlib import Path

from inspect_ai.log import EvalLog

from selfdx.analysis.identity import selfdx_task
from selfdx.analysis.logs import read_header
from selfdx.errors import SelfdxError, warn

MANIFEST = ".selfdx-manifest.json"


def previous_files(out: Path, kind: str) -> list[Path]:
    """The files the previous `kind` run listed in `out`'s manifest (none without one)."""
    manifest = out / MANIFEST
    if not manifest.is_file():
        return []
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        files = [str(name) for name in data["files"]]
        previous_kind = str(data["kind"])
    except (ValueError, KeyError, TypeError) as exc:
        raise SelfdxError(
            f"{manifest}: not a selfdx manifest ({exc}); remove it or pick another --out"
        ) from exc
    if previous_kind != kind:
        raise SelfdxError(
            f"{out} holds the output of `selfdx {previous_kind}`, not of `selfdx {kind}`; "
            "pick another --out"
        )
    root = out.resolve()
    paths = []
    for name in files:
        path = (out / name).resolve()
        if root in path.parents:  # a manifest never reaches outside its folder
            paths.append(path)
    return paths


def check_export_folder(out: Path, force: bool) -> None:
    """Refuse to export into a folder that holds anything, unless `force`."""
    if out.exists() and not out.is_dir():
        raise SelfdxError(f"--out {out} is a file, not a folder")
    if not force and out.is_dir() and any(out.iterdir()):
        raise SelfdxError(
            f"--out {out} is not empty; export to a new folder, or pass --force to replace "
            "the previous export there"
        )


def start_export(
    logs: list[str],
    out: Path,
    force: bool,
    kind: str,
    task: str,
    from_folders: Collection[str] = (),
) -> dict[str, EvalLog]:
    """Check the output folder and the logs before an export writes anything.

    Returns each log's header by path; refuses no logs, a non-empty `out` without `force`, an
    output folder of another command, and a log of any task but `selfdx/<task>` named by the
    user. A log of another task found in a folder (`from_folders`) is left out with a warning;
    a folder with no log of the task is an error. Of logs of one run (a copy, or one scored
    again: the same Inspect eval id), the first is exported, the others named in a warning.
    """
    if not logs:
        raise SelfdxError("no logs to export (the paths given hold no .eval or .json logs)")
    check_export_folder(out, force)
    previous_files(out, kind)
    found = {log.removeprefix("file://") for log in from_folders}
    headers: dict[str, EvalLog] = {}
    runs: dict[str, str] = {}  # Inspect eval id -> the first log of that run
    others = 0
    for path in (log.removeprefix("file://") for log in logs):
        header = read_header(path)
        first = runs.setdefault(header.eval.eval_id, path) if header.eval.eval_id else path
        if first != path:  # a copy of a log (or one scored again): its cases once
            warn(f"{kind}: {path} is the run of {first} (Inspect eval id "
                 f"{header.eval.eval_id}): exported once")  # fmt: skip
        elif selfdx_task(header) == task:
            headers[path] = header
        elif path in found:
            others += 1
        else:
            raise SelfdxError(f"{path}: task {header.eval.task} is not selfdx/{task}")
    if others:
        warn(f"{kind}: left out {others} log(s) of other tasks found in the folders given")
    if not headers:
        raise SelfdxError(f"no selfdx/{task} logs in the folders given")
    return headers


def finish(out: Path, kind: str, written: list[Path]) -> list[Path]:
    """Remove the previous run's files that this run did not write; record this run's files.

    Returns the files removed.
    """
    kept = {path.resolve() for path in written}
    removed = []
    for path in previous_files(out, kind):
        if path not in kept and path.is_file():
            path.unlink()
            removed.append(path)
            _remove_empty_parents(path.parent, out.resolve())
    names = sorted(path.resolve().relative_to(out.resolve()).as_posix() for path in written)
    (out / MANIFEST).write_text(
        json.dumps({"kind": kind, "files": names}, indent=1) + "\n", encoding="utf-8"
    )
    return removed


def _remove_empty_parents(folder: Path, root: Path) -> None:
    while folder != root and root in folder.parents and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def json_safe(value: object) -> object:
    """`value` with every NaN (a metric that does not apply) as null: JSON has no NaN, and
    Python's `json` would write a bare `NaN` that other readers refuse."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value
