"""Export MentalBench logs to the released runner's output layout (spec 5.5).

Types 1-2: `output/<model>/<low|medium>/<Dxxx>/main_<gen>.json`; Types 3-4:
`output_clear/<model>/high/<main>/<sub>/type3/main_<gen>.json` and
`.../type4/{a,b}_main_<gen>.json`.
Each file is a JSON object keyed by item id whose records hold `question`, `option`, `answer`
and the raw `response`, so the authors' scoring scripts can read selfdx runs.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from inspect_ai.log import read_eval_log

from selfdx.analysis.logs import read_samples
from selfdx.datasets.mentalbench_schema import DISORDER_NAMES, LETTERS

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


def export_mentalbench(logs: list[str], out_dir: str | Path) -> list[Path]:
    """Write every log's items and responses in the released output layout under `out_dir`."""
    out = Path(out_dir)
    files: dict[Path, dict[str, Any]] = defaultdict(dict)
    for path in logs:
        header = read_eval_log(path, header_only=True)
        if header.eval.task.split("/")[-1] != "mentalbench":
            raise ValueError(f"{path}: task {header.eval.task} is not selfdx/mentalbench")
        model = re.sub(r"[^\w.\-]+", "-", header.eval.model.split("/")[-1])
        for sample in read_samples(path, exclude_fields={"events", "store"}):
            meta = sample.metadata
            response = sample.output.completion if sample.output else ""
            choices = [choice for choice in (sample.choices or [])]
            files[out / relative_file(meta, model)][meta["item_key"]] = {
                "question": sample.input if isinstance(sample.input, str) else "",
                "option": options_string(choices),
                "answer": answer_string(meta["gold_codes"], meta["option_codes"]),
                "response": response,
            }
    for target, records in files.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(records, indent=1, ensure_ascii=False), encoding="utf-8")
    return sorted(files)
