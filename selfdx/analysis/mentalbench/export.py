"""Export MentalBench logs to the released runner's output layout.

Types 1-2: `output/<model>/<low|medium>/<Dxxx>/main_<gen>.json`; Types 3-4:
`output_clear/<model>/high/<main>/<sub>/type3/main_<gen>.json` and
`.../type4/{a,b}_main_<gen>.json`.
Each file is a JSON object keyed by item id whose records hold `question`, `option`, `answer`
and the raw `response`, so the authors' scoring scripts can read selfdx runs.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Collection
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog

from selfdx.analysis.identity import data_source
from selfdx.analysis.logs import read_samples
from selfdx.analysis.outputs import finish, start_export
from selfdx.datasets.mentalbench.schema import DISORDER_NAMES, LETTERS
from selfdx.errors import SelfdxError, warn

DIFFICULTY = {1: "low", 2: "medium"}


def options_string(choices: list[str]) -> str:
    """The published options string: a newline, four indented `L. name` lines, then indent."""
    lines = "".join(f"\n    {LETTERS[i]}. {name}" for i, name in enumerate(choices))
    return f"{lines}\n    "


def answer_string(gold_codes: list[str], option_codes: list[str]) -> str:
    """`B. name` or `B & A. name & name`, main disorder first, in the letters shown."""
    letters = [LETTERS[option_codes.index(code)] for code in gold_codes]
    names = [DISORDER_NAMES[code] for code in gold_codes]
    return f"{' & '.join(letters)}. {' & '.join(names)}"


def relative_file(meta: dict[str, Any], model: str) -> Path:
    """Where the released runner would have written this item's record."""
    generator = meta["generator"]
    type_ = int(meta["type"])
    if type_ in DIFFICULTY:
        return Path("output", model, DIFFICULTY[type_], meta["code"], f"main_{generator}.json")
    main, sub = meta["code"].split("-")
    base = Path("output_clear", model, "high", main, sub)
    if type_ == 3:
        return base / "type3" / f"main_{generator}.json"
    return base / "type4" / f"{meta['variant'][-1]}_main_{generator}.json"


KIND = "export mentalbench"


def model_folders(headers: dict[str, EvalLog]) -> dict[str, str]:
    """The model folder of each log: the model's short name, with `_data-<hash>` where one
    model's logs come from more than one data source (demo, a Hub revision, a path)."""
    short = {p: re.sub(r"[^\w.\-]+", "-", h.eval.model.split("/")[-1]) for p, h in headers.items()}
    sources = {path: data_source(header) for path, header in headers.items()}
    folders = {}
    for path, name in short.items():
        if len({sources[p] for p in headers if short[p] == name}) > 1:
            digest = hashlib.sha256(sources[path].encode("utf-8")).hexdigest()[:8]
            name = f"{name}_data-{digest}"
        folders[path] = name
    return folders


def export_mentalbench(
    logs: list[str], out_dir: str | Path, force: bool = False, from_folders: Collection[str] = ()
) -> list[Path]:
    """Write every log's items and responses in the released output layout under `out_dir`.

    Logs of one model and one data source share the model folder (types run as separate tasks
    come together); an item answered twice there (two logs of the same items) is refused.
    Where a model folder holds more than one epoch, each epoch gets its own folder
    `<model>_epoch-<n>`, since a file keys its records by item id. Every record carries `epoch`
    and the log's `log_status`; a log that did not finish is exported with a warning. A
    non-empty `out_dir` is refused unless `force`.
    """
    out = Path(out_dir)
    headers = start_export(logs, out, force, KIND, "mentalbench", from_folders)
    folders = model_folders(headers)
    several_epochs = {
        folders[path] for path, header in headers.items() if (header.eval.config.epochs or 1) > 1
    }
    files: dict[Path, dict[str, Any]] = defaultdict(dict)
    origin: dict[tuple[Path, str], str] = {}
    for path, header in headers.items():
        if header.status != "success":
            warn(
                f"{path}: status {header.status}; only its finished samples are exported, "
                f"each with log_status {header.status!r}"
            )
        for sample in read_samples(path, exclude_fields={"events", "store"}):
            meta = sample.metadata
            model = folders[path]
            if model in several_epochs:
                model = f"{model}_epoch-{sample.epoch}"
            target = out / relative_file(meta, model)
            if (target, meta["item_key"]) in origin:
                raise SelfdxError(
                    f"item {meta['item_key']} of {target.relative_to(out)} is answered in both "
                    f"{origin[(target, meta['item_key'])]} and {path}; export them separately"
                )
            origin[(target, meta["item_key"])] = path
            response = sample.output.completion if sample.output else ""
            choices = [choice for choice in (sample.choices or [])]
            files[target][meta["item_key"]] = {
                "question": sample.input if isinstance(sample.input, str) else "",
                "option": options_string(choices),
                "answer": answer_string(meta["gold_codes"], meta["option_codes"]),
                "response": response,
                "epoch": sample.epoch,
                "log_status": header.status,
            }
    for target, records in files.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(records, indent=1, ensure_ascii=False), encoding="utf-8")
    finish(out, KIND, list(files))
    return sorted(files)
