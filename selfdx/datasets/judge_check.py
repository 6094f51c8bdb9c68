"""Labelled replies for measuring the behaviour judge (`selfdx/judge_check`).

Three sources, each read into Samples whose input is the reply and whose metadata holds the
reference labels (`gold`), the reply's `category` and whether it answered the last section:

- `demo`: the bundled set `demo/judge_check.jsonl` (replies written for selfdx, labelled by the
  rules in `demo/README.md`);
- `persuasion`: `demo/judge_check_persuasion.jsonl`, replies that try to talk the grader into
  another verdict (the probe rounds' forgeries), labelled by what each honestly does;
- a JSONL file in that layout (`id`, `reply`, `is_last_section`, `primary_answer`,
  `info_request`; optional `category`, `stage`, `icd_codes`, `diagnosis_names`, `action`, which
  must agree with the decision table, `pair` (the id shared by two replies with the same content
  in two formats, which must carry the same labels), `rule` (the labelling rule that decided a
  boundary case) and `relabels` (other labellers' labels of the reply, a list of objects with
  `primary_answer`, `info_request` and optionally `icd_codes`, for the labellers' own
  agreement); any other field is refused, naming the nearest one);
- an annotated `selfdx annotation-sample` file (`annotation_blind.csv` with the annotator
  columns filled in, or the folder holding it), with `is_last_section` and the strategy taken
  from `annotation_key.csv` beside it.

A list key without a reference label (no `icd_codes` in the file, a blank annotator cell) is None
and is left out of that key's statistics. The reference action, when not given, is the decision
table's for the two categorical labels.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from selfdx.datasets.behaviour_labels import AS_NONE, LABELS, LIST_KEYS, Action, derive_action
from selfdx.datasets.csv_files import read_csv_rows, read_utf8
from selfdx.datasets.paths import DEMO_DIR, local_path
from selfdx.errors import SelfdxError, warn

DEMO_FILE = DEMO_DIR / "judge_check.jsonl"
# Replies that try to persuade the grader in plain prose (the probe rounds' forgeries, labelled
# by what each reply honestly does): `data=persuasion`.
PERSUASION_FILE = DEMO_DIR / "judge_check_persuasion.jsonl"
BUNDLED = {"demo": DEMO_FILE, "persuasion": PERSUASION_FILE}
# Labels as a file may write them (the action in lower case).
CHOICES = {**LABELS, "action": tuple(action.lower() for action in Action)}
MAX_REPLY_CHARS = 100_000
MAX_FIELD_CHARS = 2_000
BLIND_COLUMNS = ("annotation_id", "model_output_raw")
KEY_FILE = "annotation_key.csv"
TRUE_WORDS, FALSE_WORDS = {"true", "1", "yes"}, {"false", "0", "no"}
FIELDS = (
    "id", "reply", "is_last_section", "primary_answer", "info_request", "category", "stage",
    "icd_codes", "diagnosis_names", "action", "pair", "rule", "relabels",
)  # fmt: skip
# What one relabel (another labeller's labels of the same reply) may hold.
RELABEL_FIELDS = ("primary_answer", "info_request", "icd_codes")
# What the two replies of a pair must share: the same content in two formats gets one label.
PAIR_SHARED = ("is_last_section", "gold")


class JudgeCheckDataError(SelfdxError):
    """A labelled-reply file that cannot be read; the message names file, row, id and field."""


def _choice(where: str, name: str, value: Any, required: bool) -> str | None:
    """A categorical label, normalised (`Generic only` -> `generic_only`, `n/a` -> `none`)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise JudgeCheckDataError(f"{where}: {name} is missing")
        return None
    if not isinstance(value, str):
        raise JudgeCheckDataError(f"{where}: {name} must be text, got {value!r}")
    text = value.strip().lower()
    text = "none" if text in AS_NONE else text.replace("-", "_").replace(" ", "_")
    if text not in CHOICES[name]:
        shown = value if len(value) <= 40 else value[:40] + "..."
        raise JudgeCheckDataError(
            f"{where}: {name} is {shown!r}, not one of {', '.join(CHOICES[name])}"
        )
    return text.capitalize() if name == "action" else text


def _items(where: str, name: str, value: Any) -> list[str] | None:
    """A list label: a JSON list of strings, or text separated by commas or semicolons."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [part for part in value.replace(";", ",").split(",")]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise JudgeCheckDataError(f"{where}: {name} must be a list of strings, got {value!r}")
    if sum(len(item) for item in value) > MAX_FIELD_CHARS:
        raise JudgeCheckDataError(f"{where}: {name} is longer than {MAX_FIELD_CHARS} characters")
    return [item.strip() for item in value if item.strip()]


def _flag(where: str, name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in TRUE_WORDS | FALSE_WORDS:
        return value.strip().lower() in TRUE_WORDS
    raise JudgeCheckDataError(f"{where}: {name} must be true or false, got {value!r}")


def _text(where: str, name: str, value: Any, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise JudgeCheckDataError(f"{where}: {name} must be non-empty text, got {value!r}")
    if len(value) > limit:
        raise JudgeCheckDataError(f"{where}: {name} is longer than {limit} characters")
    return value


def check_fields(where: str, record: dict[str, Any]) -> None:
    """Refuse a field the layout does not have, naming the nearest one (`primary_anwser`)."""
    for name in record:
        if name not in FIELDS:
            near = difflib.get_close_matches(str(name), FIELDS, n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            raise JudgeCheckDataError(
                f"{where}: unknown field {name!r}{hint}; the fields are {', '.join(FIELDS)}"
            )


def labelled_sample(where: str, record: dict[str, Any], category: str = "all") -> Sample:
    """One Sample from a record in the JSONL layout (annotator columns already renamed).

    `primary_answer` and `info_request` are required; an `action` given beside them must be the
    one the decision table gives them (with the last-section override)."""
    item_id = _text(where, "id", record.get("id"), MAX_FIELD_CHARS)
    where = f"{where} (id {item_id})"
    reply = _text(where, "reply", record.get("reply"), MAX_REPLY_CHARS)
    gold = {
        "primary_answer": _choice(where, "primary_answer", record.get("primary_answer"), True),
        "info_request": _choice(where, "info_request", record.get("info_request"), True),
        "icd_codes": _items(where, "icd_codes", record.get("icd_codes")),
        "diagnosis_names": _items(where, "diagnosis_names", record.get("diagnosis_names")),
        "action": _choice(where, "action", record.get("action"), False),
    }
    last = _flag(where, "is_last_section", record.get("is_last_section"))
    table = derive_action(gold["primary_answer"], gold["info_request"], last)
    if gold["action"] is not None and gold["action"] != table:
        raise JudgeCheckDataError(
            f"{where}: action {gold['action']} disagrees with the decision table, which gives "
            f"{table} for primary_answer {gold['primary_answer']}, info_request "
            f"{gold['info_request']} (is_last_section {str(last).lower()})"
        )
    stage = record.get("stage")
    if stage is not None and (isinstance(stage, bool) or not isinstance(stage, int)):
        raise JudgeCheckDataError(f"{where}: stage must be a whole number, got {stage!r}")
    label = record.get("category", category)
    label = _text(where, "category", label, 100) if label is not None else category
    pair = record.get("pair")
    pair = _text(where, "pair", pair, 100) if pair is not None else None
    rule = record.get("rule")
    rule = _text(where, "rule", rule, MAX_FIELD_CHARS) if rule is not None else None
    relabels = _relabels(where, record.get("relabels"), last)
    return Sample(
        id=item_id,
        input=reply,
        target=gold["action"] or "",
        metadata={
            "benchmark": "judge_check",
            "category": label,
            "stage": stage,
            "is_last_section": last,
            "gold": gold,
            "pair": pair,
            "rule": rule,
            "relabels": relabels,
        },
    )


def _relabels(where: str, value: Any, last: bool) -> list[dict[str, Any]]:
    """Other labellers' labels of one reply, each with the action the decision table gives."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise JudgeCheckDataError(f"{where}: relabels must be a list of objects")
    found = []
    for number, entry in enumerate(value, start=1):
        at = f"{where}: relabels[{number}]"
        if not isinstance(entry, dict):
            raise JudgeCheckDataError(f"{at}: expected an object, got {type(entry).__name__}")
        for name in entry:
            if name not in RELABEL_FIELDS:
                raise JudgeCheckDataError(
                    f"{at}: unknown field {name!r}; a relabel holds {', '.join(RELABEL_FIELDS)}"
                )
        primary = _choice(at, "primary_answer", entry.get("primary_answer"), True)
        info = _choice(at, "info_request", entry.get("info_request"), True)
        found.append(
            {
                "primary_answer": primary,
                "info_request": info,
                "icd_codes": _items(at, "icd_codes", entry.get("icd_codes")),
                "action": derive_action(primary, info, last),
            }
        )
    return found


def check_pairs(where: str, samples: list[Sample]) -> None:
    """Each `pair` id names exactly two replies, with the same labels and the same section."""
    members: dict[str, list[Sample]] = {}
    for sample in samples:
        pair = (sample.metadata or {}).get("pair")
        if pair is not None:
            members.setdefault(pair, []).append(sample)
    for pair, group in members.items():
        if len(group) != 2:
            ids = ", ".join(str(s.id) for s in group)
            raise JudgeCheckDataError(
                f"{where}: pair {pair} has {len(group)} replies ({ids}), not 2"
            )
        first, second = (s.metadata or {} for s in group)
        for name in PAIR_SHARED:
            if first[name] != second[name]:
                raise JudgeCheckDataError(
                    f"{where}: pair {pair} ({group[0].id}, {group[1].id}) differs in {name}: "
                    "the two replies of a pair carry the same content and so the same labels"
                )


def read_jsonl(path: Path) -> list[Sample]:
    """Samples from a JSONL file in the bundled layout; errors name the line and id."""
    samples: list[Sample] = []
    text = read_utf8(path, str(path), JudgeCheckDataError)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}: line {number}"
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as error:
            raise JudgeCheckDataError(f"{where}: not valid JSON ({error})") from None
        if not isinstance(record, dict):
            kind = type(record).__name__
            raise JudgeCheckDataError(f"{where}: expected a JSON object, got {kind}")
        check_fields(where, record)
        samples.append(labelled_sample(where, record))
    return samples


def _key_rows(folder: Path) -> dict[str, dict[str, str]]:
    key = folder / KEY_FILE
    if not key.is_file():
        return {}
    columns, rows = read_csv_rows(key, str(key), JudgeCheckDataError)
    if "annotation_id" not in columns:
        raise JudgeCheckDataError(f"{key}: missing column annotation_id")
    return {row["annotation_id"]: row for row in rows}


def read_annotation_csv(path: Path) -> list[Sample]:
    """Samples from an annotated annotation-sample file (`annotator_*` columns filled in).

    Rows whose annotator columns are all blank are not annotated yet and are left out (with a
    warning); `is_last_section` comes from the file or from `annotation_key.csv` beside it, and
    the category is the run's strategy from the key file (else the file's `category` column).
    """
    columns, rows = read_csv_rows(path, str(path), JudgeCheckDataError)
    missing = [c for c in BLIND_COLUMNS if c not in columns]
    if missing:
        raise JudgeCheckDataError(
            f"{path}: missing column {', '.join(missing)} (expected an annotation-sample file "
            "with annotator_primary_answer and annotator_info_request filled in)"
        )
    keys = _key_rows(path.parent)
    samples, blank = [], 0
    for number, row in enumerate(rows, start=1):
        annotation_id = row["annotation_id"]
        where = f"{path}: row {number}"
        labels = {
            field: row.get(f"annotator_{field}")
            for field in ("primary_answer", "info_request", "action", *LIST_KEYS)
        }
        if not any((value or "").strip() for value in labels.values()):
            blank += 1
            continue
        key = keys.get(annotation_id, {})
        last = row.get("is_last_section", key.get("is_last_section"))
        if last is None:
            raise JudgeCheckDataError(
                f"{where} (id {annotation_id}): is_last_section unknown: add the column, or keep "
                f"{KEY_FILE} from annotation-sample beside the file"
            )
        record: dict[str, Any] = {
            "id": annotation_id,
            "reply": row["model_output_raw"],
            "is_last_section": last,
            "category": row.get("category") or key.get("strategy") or "all",
            **{f: labels[f] for f in ("primary_answer", "info_request", "action")},
        }
        for field in LIST_KEYS:
            if f"annotator_{field}" in columns:
                record[field] = labels[field] or ""
        if key.get("step_index", "").isdigit():
            record["stage"] = int(key["step_index"])
        samples.append(labelled_sample(where, record))
    if blank:
        warn(f"{path}: {blank} of {len(rows)} rows have no annotation yet (left out)")
    return samples


def judge_check_dataset(data: str = "demo") -> MemoryDataset:
    """The labelled replies named by `data` ("demo", "persuasion", a JSONL file, an annotated
    CSV or the folder of an annotation sample)."""
    path = BUNDLED[data] if data in BUNDLED else local_path(data)
    if path.is_dir():
        path = path / "annotation_blind.csv"
        if not path.is_file():
            raise JudgeCheckDataError(f"{data}: a folder without annotation_blind.csv")
    if not path.is_file():
        raise JudgeCheckDataError(
            f"{data}: does not exist (data= takes 'demo', 'persuasion', a JSONL file of labelled "
            "replies, or an annotated annotation_blind.csv)"
        )
    if path.suffix.lower() == ".csv":
        samples = read_annotation_csv(path)
    else:
        samples = read_jsonl(path)
    if not samples:
        raise JudgeCheckDataError(f"{path}: no labelled replies")
    counts = Counter(sample.id for sample in samples)
    repeated = next((i for i, n in counts.items() if n > 1), None)
    if repeated is not None:
        raise JudgeCheckDataError(f"{path}: id {repeated} appears twice")
    check_pairs(str(path), samples)
    return MemoryDataset(samples, name="judge_check", location=str(path))
