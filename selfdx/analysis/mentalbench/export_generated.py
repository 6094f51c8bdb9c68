"""`selfdx export generated LOG --out DIR`: generated cases in the MentalBench folder layout.

Reads `selfdx/mentalbench_generate` logs and writes, under `DIR/dataset/`, exactly the
published GitHub layout (`low/<Dxxx>/main_<gen>.json`, `medium/...`,
`high/<main>/<sub>/type3/main_<gen>.json`, `.../type4/{a,b}_main_<gen>.json`, each a JSON
object keyed by item id with `question`, `options`, `answer`), plus a `features/main_<gen>.json`
beside each with the generation metadata in the published schema and a `selfdx` block (model,
prompts, checks, persona). `selfdx/mentalbench -T data=DIR` then evaluates the new set.

`<gen>` is the generating model's name (lower case, other characters than letters, digits,
`_` and `.` made `_`). A case is left out when its sample failed, its narrative is empty, or
its checks did not accept it (`accepted` 0: wrong length, a diagnosis name, or a grader that
said no or could not be read); every left-out case is listed with its reasons in
`DIR/export_<gen>.json`, never dropped silently. An existing file is never overwritten.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Collection
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalSample, read_eval_log
from pydantic import ValidationError

from selfdx.analysis.identity import selfdx_task
from selfdx.analysis.logs import read_samples
from selfdx.datasets.mentalkg.features import pair_features, selfdx_block, single_features
from selfdx.datasets.mentalkg.profile_schema import CaseProfile
from selfdx.errors import SelfdxError, warn

TASK_NAME = "mentalbench_generate"
SCORER = "mentalbench_case_checks"
TIERS = ("low", "medium", "high")
HIGH_SUFFIX = {"3": "both", "4a": "a", "4b": "b"}


class ExportError(SelfdxError):
    """A log that cannot be exported; the message names the log and the sample."""


def generator_name(model: str) -> str:
    name = re.sub(r"[^a-z0-9_.]+", "_", model.split("/")[-1].lower()).strip("_.")
    if not name:
        raise ExportError(f"cannot make a generator name from the model {model!r}")
    return name


def check_reasons(sample: EvalSample, narrative: str) -> list[str]:
    """Why a case is not exported (empty when it is)."""
    if sample.error is not None:
        return [f"sample error: {sample.error.message}"]
    if not narrative:
        return ["no narrative"]
    score = (sample.scores or {}).get(SCORER)
    if score is None or not isinstance(score.value, dict):
        return [f"no {SCORER} score"]
    value = score.value
    if value.get("accepted") == 1:
        return []
    reasons = []
    if value.get("length_ok") != 1:
        reasons.append(f"length {int(value.get('words', 0))} words")
    if value.get("leak_free") != 1:
        names = (score.metadata or {}).get("diagnosis_names", [])
        reasons.append("names " + ", ".join(sorted({m["text"] for m in names})))
    if value.get("grader_unparsed") == 1:
        reasons.append("grader answer unparsed")
    for key in ("coherent", "discriminates"):
        if value.get(key) == 0:
            reasons.append(f"grader: not {key}")
    return reasons or ["not accepted"]


def prompts_of(sample: EvalSample) -> dict[str, str]:
    texts = {message.role: message.text for message in sample.messages}
    return {"system_prompt": texts.get("system", ""), "prompt": texts.get("user", "")}


def profile_of(sample: EvalSample, path: str) -> CaseProfile:
    try:
        return CaseProfile.model_validate((sample.metadata or {})["profile"])
    except (KeyError, ValidationError) as exc:
        raise ExportError(f"{path}, sample {sample.id}: no valid case profile ({exc})") from exc


def relative_file(profile: CaseProfile, generator: str) -> Path:
    if profile.tier != "high":
        return Path(profile.tier, profile.code, f"main_{generator}.json")
    main, sub = profile.code.split("-")
    name = {"3": "type3/main", "4a": "type4/a_main", "4b": "type4/b_main"}[profile.variant]
    return Path("high", main, sub, f"{name}_{generator}.json")


def features_file(profile: CaseProfile, generator: str) -> Path:
    if profile.tier != "high":
        return Path(profile.tier, profile.code, "features", f"main_{generator}.json")
    main, sub = profile.code.split("-")
    return Path("high", main, sub, "features", f"main_{generator}.json")


def add_features(
    record: dict[str, Any], profile: CaseProfile, sample: EvalSample, run: dict[str, Any]
) -> None:
    """Fill one `features/` record with this case (high records gather 3, 4a and 4b)."""
    narrative = sample.output.completion.strip()
    prompts = prompts_of(sample)
    score = (sample.scores or {})[SCORER]
    checks = {"value": score.value, "explanation": score.explanation}
    if profile.tier != "high":
        record.update(
            question=narrative,
            options=profile.options_text,
            answer=profile.answer_text,
            prompt=prompts["prompt"],
            features=single_features(profile),
            selfdx={
                **run,
                **selfdx_block(profile),
                "system_prompt": prompts["system_prompt"],
                "style": (sample.metadata or {}).get("style"),
                "checks": checks,
            },
        )
        return
    suffix = HIGH_SUFFIX[profile.variant]
    record.setdefault("options", profile.options_text)
    record[f"question_{suffix}"] = narrative
    record[f"answer_{suffix}"] = profile.answer_text
    record[f"prompt_{suffix}"] = prompts["prompt"]
    record.setdefault("features", pair_features(profile))
    block = record.setdefault("selfdx", {**run, **selfdx_block(profile), "variants": {}})
    block["variants"][profile.variant] = {
        "system_prompt": prompts["system_prompt"],
        "style": (sample.metadata or {}).get("style"),
        "checks": checks,
    }


def export_generated(
    logs: list[str],
    out_dir: str | Path,
    include_rejected: bool = False,
    force: bool = False,
    from_folders: Collection[str] = (),
) -> list[Path]:
    """Write the cases of `logs` under `out_dir`; return the files written.

    An existing file is never overwritten unless `force`. A log of another task found in a
    folder (`from_folders`) is left out with a warning; one named by the user is refused."""
    out = Path(out_dir)
    items: dict[Path, dict[str, Any]] = defaultdict(dict)
    features: dict[Path, dict[str, Any]] = defaultdict(dict)
    origin: dict[tuple[Path, str], str] = {}
    summaries: dict[str, dict[str, Any]] = {}
    found = {log.removeprefix("file://") for log in from_folders}
    others = 0
    for path in logs:
        header = read_eval_log(path, header_only=True)
        if selfdx_task(header) != TASK_NAME:
            if path.removeprefix("file://") in found:
                others += 1
                continue
            raise ExportError(f"{path}: task {header.eval.task} is not selfdx/{TASK_NAME}")
        generator = generator_name(header.eval.model)
        run = {"log": str(path), "model": header.eval.model, "task_args": header.eval.task_args}
        summary = summaries.setdefault(
            generator, {"model": header.eval.model, "logs": [], "written": {}, "left_out": []}
        )
        summary["logs"].append(str(path))
        if header.status != "success":
            warn(f"{path}: status {header.status}; only its finished samples are exported")
            summary.setdefault("unfinished_logs", {})[str(path)] = header.status
        for sample in read_samples(path):
            profile = profile_of(sample, path)
            narrative = sample.output.completion.strip() if sample.output else ""
            reasons = check_reasons(sample, narrative)
            if reasons and not (include_rejected and narrative):
                summary["left_out"].append({"sample": sample.id, "reasons": reasons})
                continue
            target = relative_file(profile, generator)
            if (target, profile.key) in origin:
                raise ExportError(
                    f"{profile.key} (type {profile.variant}) by {generator} is in both "
                    f"{origin[(target, profile.key)]} and {path}"
                )
            origin[(target, profile.key)] = str(path)
            items[target][profile.key] = {
                "question": narrative,
                "options": profile.options_text,
                "answer": profile.answer_text,
            }
            add_features(
                features[features_file(profile, generator)].setdefault(profile.key, {}),
                profile,
                sample,
                run,
            )
            written = summary["written"]
            written[profile.variant] = written.get(profile.variant, 0) + 1
    if others:
        warn(f"export generated: left out {others} log(s) of other tasks found in the folders")
    if not summaries:
        raise ExportError(f"no selfdx/{TASK_NAME} logs in the folders given")
    return write_all(out, items, features, summaries, force)


def write_all(
    out: Path,
    items: dict[Path, dict[str, Any]],
    features: dict[Path, dict[str, Any]],
    summaries: dict[str, dict[str, Any]],
    force: bool = False,
) -> list[Path]:
    dataset = out / "dataset"
    files = {dataset / rel: content for rel, content in (*items.items(), *features.items())}
    files |= {out / f"export_{generator}.json": summary for generator, summary in summaries.items()}
    existing = [path for path in files if path.exists()]
    if existing and not force:
        raise ExportError(
            f"{existing[0]} already exists; export to a new folder (or pass --force to write "
            "over it)"
        )
    for tier in TIERS:
        (dataset / tier).mkdir(parents=True, exist_ok=True)
    for path, content in sorted(files.items()):
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, dict) and path.parent != out:
            content = dict(sorted(content.items()))
        path.write_text(json.dumps(content, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return sorted(files)
