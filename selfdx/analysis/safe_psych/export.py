"""Export Safe-Psych logs to the reference repository's formats: trajectories and
ground truth.

`runs/<model>_<strategy>_judge-<judge>_seed-<seed>/trajectories.jsonl` holds one trajectory per
case and `data_gt.json` the ground truth, so the authors' evaluation scripts can read selfdx
runs and their numbers can be compared line by line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, EvalSample

from selfdx.analysis.identity import data_identity
from selfdx.analysis.logs import read_samples
from selfdx.analysis.outputs import finish, start_export
from selfdx.datasets.safe_psych import SECTION_COLUMNS
from selfdx.errors import SelfdxError, warn
from selfdx.run_facts import asks_grader
from selfdx.solvers.safe_psych.trace import StopReason

# How the reference's trajectory files record the end of a trajectory.
STOP_REASONS: dict[str, str | None] = {
    StopReason.DIAGNOSE: "Diagnose",
    StopReason.ABSTAIN: "Abstain",
    StopReason.UNPARSED_ACTION: "UnparsedAction",
    StopReason.EMPTY_REPLY: "",
    StopReason.UNPARSED_JUDGE: None,
    StopReason.LIMIT: "Finished",
}
JUDGE_SEED = 123


def _flag(value: bool) -> str:
    return "1" if value else "0"


def ground_truth_record(sample: EvalSample) -> dict[str, Any]:
    """One `data_gt.json` record, rebuilt from the sample's metadata."""
    meta = sample.metadata
    present = list(meta["section_names"])
    sections = dict(zip(present, meta["sections"], strict=True))
    earliest = meta["earliest_sufficient_section"]
    return {
        "id": str(sample.id),
        "age_group": meta["age_group"],
        "sex": meta["sex"],
        "diagnosis_sufficiency": _flag(meta["sufficient"]),
        "diagnosis_sufficiency_agreement": _flag(meta["sufficiency_agreement"]),
        "diagnosis": meta["diagnosis"],
        "diagnosis_agreement": _flag(meta["diagnosis_agreement"]),
        "earliest_sufficient_section": "" if earliest is None else str(earliest),
        "num_sections_in_input": meta["num_stages"],
        "last_section_order": meta["num_stages"],
        "sections_metadata": [
            {
                "section_name": name,
                "original_order": index,
                "present": name in sections,
                "assigned_order": present.index(name) + 1 if name in sections else None,
                "content": sections.get(name, ""),
            }
            for index, name in enumerate(SECTION_COLUMNS, start=1)
        ],
    }


def _message(message) -> dict[str, str]:
    return {"role": message.role, "content": message.text}


def trajectory_record(sample: EvalSample, log: EvalLog) -> dict[str, Any]:
    """One `trajectories.jsonl` line for a sample (its store, messages and the run settings)."""
    store = sample.store
    strategy = store.get("SafePsychTrace:strategy") or log.eval.task_args["strategy"]
    turns = store.get("SafePsychTrace:turns", [])
    full_info = strategy.startswith("full_info")
    messages = [_message(m) for m in sample.messages]
    config = log.plan.config if log.plan else None
    steps = []
    for index, turn in enumerate(turns):
        stage = turn["stage"]
        # system message, then user/assistant pairs: this step's reply ends at 1 + 2 * (i + 1)
        conversation = messages[: 1 + 2 * (index + 1)]
        action = turn.get("action")
        if action is None:
            action = "" if turn.get("unparsed_reason") == "empty model reply" else None
        outputs = turn.get("judge_outputs") or []
        judge_raw = outputs[-1] if outputs else None
        if strategy == "structured_actions":
            judge_raw = turn["reply"].splitlines()[0] if turn["reply"] else ""
        steps.append(
            {
                "step_index": stage,
                "section_order": 1 if full_info else stage,
                "revealed_section_orders": list(range(1, turn_count(turn, full_info) + 1)),
                "user_prompt": turn["user_prompt"],
                "conversation_state": conversation,
                "model_output_raw": turn["reply"],
                "judge_output_raw": judge_raw,
                "judge_action": action,
                "is_last_section": turn["is_last"],
                "structured_action_raw": {
                    "primary_answer": turn.get("primary_answer"),
                    "info_request": turn.get("info_request"),
                    "icd_codes": turn.get("icd_codes", []),
                    "diagnosis_names": turn.get("diagnosis_names", []),
                    "action": action,
                },
                # selfdx's own: why the judge's answer was not read, and whether the reply
                # wrote lines in the judge's format
                "judge_failure": turn.get("judge_failure"),
                "imitates_judge": turn.get("imitates_judge", False),
            }
        )
    grader = (log.eval.model_roles or {}).get("grader")
    return {
        "sample_id": str(sample.id),
        "epoch": sample.epoch,
        "log_status": log.status,
        "num_sections_total": sample.metadata["num_stages"],
        "num_steps_executed": len(turns),
        "stopping_reason": STOP_REASONS.get(store.get("SafePsychTrace:stop_reason", ""), None),
        "trajectory": steps,
        "model_evaluated": log.eval.model,
        "judge_model": None if strategy == "structured_actions" or not grader else grader.model,
        "judge_seed": JUDGE_SEED,
        "strategy": strategy,
        "seed": log.eval.model_generate_config.seed,
        "model_do_sample": (config.temperature or 0) > 0 if config else None,
        "model_temperature": config.temperature if config else None,
        "model_top_p": config.top_p if config else None,
        "model_max_tokens": config.max_tokens if config else None,
        "judge_do_sample": False,
        "judge_max_tokens": log.eval.task_args["judge_max_tokens"],
    }


def turn_count(turn: dict[str, Any], full_info: bool) -> int:
    """How many sections had been revealed at this turn."""
    return len(turn["sections_shown"]) if full_info else turn["stage"]


def run_name(log: EvalLog) -> str:
    """`<model>_<strategy>_judge-<judge>_seed-<seed>`, as the reference names run folders."""

    def short(name: str | None) -> str:
        return re.sub(r"[^\w.\-]+", "-", (name or "none").split("/")[-1])

    grader = (log.eval.model_roles or {}).get("grader")
    if not asks_grader("safe_psych", log.eval.task_args):
        grader = None  # bound for a sweep, never asked by this strategy (structured_actions)
    strategy = log.eval.task_args["strategy"]
    seed = log.eval.model_generate_config.seed
    return (
        f"{short(log.eval.model)}_{strategy}_judge-{short(grader.model if grader else None)}"
        f"_seed-{seed if seed is not None else 'none'}"
    )


KIND = "export safe-psych"


def folder_names(headers: dict[str, EvalLog]) -> dict[str, str]:
    """A run folder per log: the reference's name, and `_data-<id>` after it where logs of one
    name ran on different data. Two logs of one name and the same data are refused, since
    their trajectories would mix in one folder."""
    base = {path: run_name(header) for path, header in headers.items()}
    ids = {path: data_identity(header).id for path, header in headers.items()}
    names = dict(base)
    for path in headers:
        if len({ids[p] for p in headers if base[p] == base[path]}) > 1:
            names[path] = f"{base[path]}_data-{ids[path][:8]}"
    first: dict[str, str] = {}
    for path, name in names.items():
        if name in first:
            raise SelfdxError(
                f"{first[name]} and {path} are the same run ({name}) on the same data; their "
                "trajectories would mix in one folder: export them separately"
            )
        first[name] = path
    return names


def export_safe_psych(
    logs: list[str], out_dir: str | Path, force: bool = False, from_folders: Collection[str] = ()
) -> list[Path]:
    """Write each log's trajectories and the union of their ground truth under `out_dir`.

    Refuses a non-empty `out_dir` unless `force` (then the previous export's files that are not
    written again are removed). Every record carries its `epoch` and the log's `log_status`; a
    log that did not finish is exported with a warning.
    """
    out = Path(out_dir)
    headers = start_export(logs, out, force, KIND, "safe_psych", from_folders)
    names = folder_names(headers)
    written: list[Path] = []
    truth: dict[str, dict[str, Any]] = {}
    truth_from: dict[str, str] = {}
    for path, header in headers.items():
        if header.status != "success":
            warn(
                f"{path}: status {header.status}; only its finished samples are exported, "
                f"each with log_status {header.status!r}"
            )
        folder = out / "runs" / names[path]
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / "trajectories.jsonl"
        with target.open("w", encoding="utf-8") as handle:
            for sample in read_samples(path):
                handle.write(json.dumps(trajectory_record(sample, header)) + "\n")
                record = ground_truth_record(sample)
                case = record["id"]
                if truth.setdefault(case, record) != record:
                    raise SelfdxError(
                        f"case {case} differs between {truth_from[case]} and {path} (different "
                        "data under one id); export them to separate folders"
                    )
                truth_from.setdefault(case, path)
        written.append(target)
    gt_path = out / "data_gt.json"
    gt_path.write_text(json.dumps(list(truth.values()), indent=1), encoding="utf-8")
    written.append(gt_path)
    finish(out, KIND, written)
    return written
