"""Judge validation: a blind annotation sample, and agreement of the judge with annotators.

The human CSV follows the reference layout: `annotation_id` and, for each field
PRIMARY_ANSWER, INFO_REQUEST and ACTION_CALC, one column per annotator (`<FIELD>__ann1`, ...)
and the consensus (`<FIELD>__consensus`).
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import fsspec
import numpy as np
import pandas as pd
from inspect_ai.log import read_eval_log
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from selfdx.analysis.logs import read_samples, rejudge_scorers, unreadable
from selfdx.arguments import PositiveInt, checked
from selfdx.datasets.behaviour_labels import AS_NONE
from selfdx.errors import SelfdxError, warn
from selfdx.judge.agreement import label_agreement

FIELDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "primary_answer": ("PRIMARY_ANSWER", ("committed", "differential", "none")),
    "info_request": ("INFO_REQUEST", ("specific", "generic_only", "none")),
    "action": ("ACTION_CALC", ("diagnose", "clarify", "abstain")),
}
MISSING = {"", "nan", "none/null", "null"}
SAMPLE_SEED = 123


def normalise_label(value: Any) -> str | None:
    """Lower-case; blank-like values are missing; `no`, `n/a` and the like mean `none`."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    text = str(value).strip().lower()
    if text in MISSING:
        return None
    return "none" if text in AS_NONE else text


def gwet_ac1(ratings: np.ndarray, categories: tuple[str, ...]) -> float:
    """Gwet's AC1 for items x raters labels (every rater rates every item), Gwet (2008).

    p_a = mean over items of sum_k r_ik (r_ik - 1) / (r (r - 1));
    p_e = sum_k pi_k (1 - pi_k) / (q - 1), pi_k the mean share of raters choosing k.
    """
    items, raters = ratings.shape
    counts = np.array([[np.sum(row == c) for c in categories] for row in ratings], dtype=float)
    p_a = float(np.mean((counts * (counts - 1)).sum(axis=1) / (raters * (raters - 1))))
    pi = counts.mean(axis=0) / raters
    p_e = float((pi * (1 - pi)).sum() / (len(categories) - 1))
    return (p_a - p_e) / (1 - p_e) if p_e < 1 else float("nan")


def fleiss(ratings: np.ndarray) -> float:
    """Fleiss' kappa (statsmodels) for items x raters labels."""
    table, _ = aggregate_raters(ratings)
    return float(fleiss_kappa(table, method="fleiss"))


def is_eval_log(path: str) -> bool:
    """Whether `path` (a `.json` file: Inspect's `--log-format json`) is an Inspect log."""
    if not path.endswith(".json"):
        return False
    try:
        read_eval_log(path, header_only=True)
    except Exception:  # not a log: read as judge labels, which names what is wrong
        return False
    return True


def read_judge_labels(path: str, key: str | None = None) -> pd.DataFrame:
    """Judge labels per annotation_id from a JSONL (reference layout), a key CSV, or a log.

    JSONL lines carry `annotation_id` and `new_judge_output.{primary_answer, info_request,
    action}` (or those fields at top level); the key CSV is the one `annotation-sample` writes;
    a log needs that key CSV (`key`) to map annotation ids to turns.
    """
    if path.endswith((".jsonl", ".json")) and not is_eval_log(path):
        rows = []
        with fsspec.open(path, "r", encoding="utf-8") as handle:  # a file or s3://...
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise SelfdxError(f"{path}: line {number} is not JSON ({exc.msg})") from exc
                if not isinstance(record, dict) or "annotation_id" not in record:
                    raise SelfdxError(f"{path}: line {number} has no annotation_id")
                output = record.get("new_judge_output", record)
                rows.append(
                    {"annotation_id": record["annotation_id"], **{f: output.get(f) for f in FIELDS}}
                )
        return pd.DataFrame(rows)
    if path.endswith(".csv"):
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        return frame.rename(columns={f"judge_{f}": f for f in FIELDS})[["annotation_id", *FIELDS]]
    if key is None:
        raise SelfdxError(f"{path}: a log needs --key KEY.csv (from `selfdx annotation-sample`)")
    return labels_from_log(path, pd.read_csv(key, dtype=str, keep_default_na=False))


def labels_from_log(log_path: str, key: pd.DataFrame) -> pd.DataFrame:
    """Look up each annotated turn (sample, epoch, step) in a log, e.g. a re-judged one.

    Only the key's turns drawn from a run of this log's model and strategy are looked up: a
    turn of another model's run has the same case id and stage but is another reply."""
    try:
        header = read_eval_log(log_path, header_only=True)
    except Exception as exc:
        raise SelfdxError(f"{log_path}: {unreadable(exc)}") from None
    model, strategy = header.eval.model, str(header.eval.task_args.get("strategy", ""))
    if "eval_id" in key.columns:  # the run each turn was drawn from (kept by `inspect score`)
        same_run = [row for row in key.itertuples() if row.eval_id == header.eval.eval_id]
        other = "other runs than this log's (another eval id: another model, strategy or run)"
    else:  # a key written before eval ids were recorded: model and strategy are all it says
        same_run = [
            row
            for row in key.itertuples()
            if getattr(row, "model_evaluated", model) == model
            and getattr(row, "strategy", strategy) == strategy
        ]
        other = (
            f"runs of another model or strategy than this log's ({model}, {strategy}); the key "
            "has no eval_id column, so two runs of one model and strategy cannot be told apart"
        )
    if len(same_run) < len(key):
        warn(
            f"{log_path}: {len(key) - len(same_run)} of {len(key)} annotated turns were drawn "
            f"from {other}: left out, not matched by case id"
        )
    wanted: dict[tuple[str, int], list[tuple[str, int]]] = defaultdict(list)
    for row in same_run:
        wanted[(row.sample_id, int(row.epoch))].append((row.annotation_id, int(row.step_index)))
    rows = []
    try:
        samples = list(read_samples(log_path, exclude_fields={"messages", "events", "attachments"}))
    except Exception as exc:
        raise SelfdxError(f"{log_path}: {unreadable(exc)}") from None
    for sample in samples:
        for annotation_id, step in wanted.get((str(sample.id), sample.epoch), []):
            turns = turn_labels(sample)
            if step in turns:
                rows.append({"annotation_id": annotation_id, **turns[step]})
    found = {row["annotation_id"] for row in rows}
    missing = [row.annotation_id for row in same_run if row.annotation_id not in found]
    if missing:
        warn(
            f"{log_path}: {len(missing)} of {len(same_run)} annotated turns are not in this log "
            f"(left out): {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}"
        )
    return pd.DataFrame(rows, columns=["annotation_id", *FIELDS])


def turn_labels(sample) -> dict[int, dict[str, str | None]]:
    """Per stage: the judge's labels, preferring a re-judged score when the log has one (the
    last re-judging, where several judges re-judged it)."""
    rejudged = [sample.scores[n] for n in rejudge_scorers(sample) if sample.scores[n].metadata]
    if rejudged:
        return {t["stage"]: {f: t.get(f) for f in FIELDS} for t in rejudged[-1].metadata["turns"]}
    turns = sample.store.get("SafePsychTrace:turns", [])
    return {
        t["stage"]: {
            "primary_answer": t.get("primary_answer"),
            "info_request": t.get("info_request"),
            "action": t.get("action"),
        }
        for t in turns
    }


def agreement(human_csv: str, judge: pd.DataFrame) -> dict[str, Any]:
    """Per field: n, accuracy, balanced accuracy, macro-F1 and Cohen's kappa against the
    consensus; Fleiss' kappa and Gwet's AC1 over the annotators, and with the judge added."""
    human = pd.read_csv(human_csv, dtype=str, keep_default_na=False)
    if "annotation_id" not in human.columns:
        raise SelfdxError(f"{human_csv}: missing column annotation_id")
    duplicated = human.annotation_id[human.annotation_id.duplicated()]
    if len(duplicated):
        raise SelfdxError(f"{human_csv}: duplicate annotation_id {duplicated.iloc[0]}")
    merged = human.merge(judge, on="annotation_id", how="inner", validate="one_to_one")
    for side, ids, other in (
        ("annotations", human.annotation_id, "judge labels"),
        ("judge labels", judge.annotation_id, "annotations"),
    ):
        dropped = sorted(set(ids) - set(merged.annotation_id))
        if dropped:
            shown = ", ".join(dropped[:5]) + (" ..." if len(dropped) > 5 else "")
            count = f"{len(dropped)} of {len(ids)} {side}"
            warn(f"{count} have no matching {other} (left out): {shown}")
    if merged.empty:
        raise SelfdxError(
            f"{human_csv}: no annotation_id in common with the judge labels (each draw of "
            "`selfdx annotation-sample` numbers its turns with its own prefix: were these "
            "labels made for another draw?)"
        )
    results: dict[str, Any] = {"n_joined": len(merged)}
    for field, (column, categories) in FIELDS.items():
        consensus_column = f"{column}__consensus"
        annotators = sorted(c for c in human.columns if c.startswith(f"{column}__ann"))
        if consensus_column not in human.columns:
            raise SelfdxError(f"{human_csv}: missing column {consensus_column}")
        consensus = merged[consensus_column].map(normalise_label)
        predicted = merged[field].map(normalise_label)
        pair = pd.DataFrame({"gold": consensus, "judge": predicted}).dropna()
        stats: dict[str, Any] = label_agreement(list(pair.gold), list(pair.judge), categories)
        raters = pd.DataFrame({a: merged[a].map(normalise_label) for a in annotators})
        humans = raters.dropna().to_numpy()
        with_judge = raters.assign(judge=predicted).dropna().to_numpy()
        if len(annotators) >= 2 and len(humans):
            stats.update(
                n_fleiss_annotators=len(humans),
                fleiss_annotators=fleiss(humans),
                gwet_ac1_annotators=gwet_ac1(humans, categories),
            )
        if len(annotators) >= 1 and len(with_judge):
            stats.update(
                n_fleiss_with_judge=len(with_judge),
                fleiss_with_judge=fleiss(with_judge),
                gwet_ac1_with_judge=gwet_ac1(with_judge, categories),
            )
        results[field] = stats
    return results


def annotation_sample(
    logs: list[str], n: int, out_dir: str | Path, seed: int = SAMPLE_SEED
) -> tuple[Path, Path]:
    """A stratified sample of judged turns: a blind file to annotate and a key file.

    Strata are (model, strategy, judged action); turns are drawn round-robin across strata
    (seeded), so rare actions and every model/strategy are represented. Structured-action runs
    have no judge and are left out, and so is a second log of one run (a copy).
    """
    checked("--n", n, PositiveInt, "expected a whole number of turns >= 1")
    strata: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    unjudged = 0
    runs: dict[str, str] = {}  # Inspect eval id -> the first log of that run
    for path in logs:
        try:
            header = read_eval_log(path, header_only=True)
            samples = list(read_samples(path, exclude_fields={"messages", "events"}))
        except Exception as exc:  # one broken file is named, the others are drawn from
            warn(f"{path}: {unreadable(exc)}; skipped")
            continue
        first = runs.setdefault(header.eval.eval_id, path) if header.eval.eval_id else path
        if first != path:  # a copy of a log (or one re-judged): its turns are drawn once
            warn(f"{path}: the run of {first} (Inspect eval id {header.eval.eval_id}); skipped")
            continue
        strategy = header.eval.task_args.get("strategy", "")
        if header.eval.task.split("/")[-1] != "safe_psych" or strategy == "structured_actions":
            warn(f"{path}: not a judged Safe-Psych run ({header.eval.task}, {strategy}); skipped")
            continue
        for sample in samples:
            for turn in sample.store.get("SafePsychTrace:turns", []):
                if not turn.get("action"):
                    unjudged += 1
                    continue
                strata[(header.eval.model, strategy, turn["action"])].append(
                    {
                        "log": path,
                        "eval_id": header.eval.eval_id,
                        "sample_id": str(sample.id),
                        "epoch": sample.epoch,
                        "model_evaluated": header.eval.model,
                        "strategy": strategy,
                        "step_index": turn["stage"],
                        "is_last_section": turn["is_last"],
                        "model_output_raw": turn["reply"],
                        "judge_primary_answer": turn.get("primary_answer"),
                        "judge_info_request": turn.get("info_request"),
                        "judge_action": turn.get("action"),
                    }
                )
    rng = random.Random(seed)
    pools = [rng.sample(items, len(items)) for _, items in sorted(strata.items())]
    chosen: list[dict[str, Any]] = []
    while len(chosen) < n and any(pools):
        for pool in pools:
            if pool and len(chosen) < n:
                chosen.append(pool.pop())
    rng.shuffle(chosen)
    if unjudged:
        warn(f"{unjudged} turns without a judged action (empty or unparsed) were left out")
    if not chosen:
        raise SelfdxError("no judged Safe-Psych turns in these logs: nothing to annotate")
    available = sum(len(items) for items in strata.values())
    if available < n:
        warn(f"asked for {n} turns, but the logs hold only {available} judged turns: took all")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    blind, key = out / "annotation_blind.csv", out / "annotation_key.csv"
    # the draw is part of every id, so that labels made for one draw never join another's key
    draw = hashlib.sha256(
        json.dumps(
            [[c["eval_id"], c["sample_id"], c["epoch"], c["step_index"]] for c in chosen]
        ).encode("utf-8")
    ).hexdigest()[:6]
    for number, item in enumerate(chosen, start=1):
        item["annotation_id"] = f"ann_{draw}_{number:04d}"
    blind_columns = [
        "annotation_id",
        "model_output_raw",
        "annotator_primary_answer",
        "annotator_info_request",
    ]
    key_columns = [
        "annotation_id",
        "log",
        "eval_id",
        "sample_id",
        "epoch",
        "model_evaluated",
        "strategy",
        "step_index",
        "is_last_section",
        "judge_primary_answer",
        "judge_info_request",
        "judge_action",
    ]
    for path, columns in ((blind, blind_columns), (key, key_columns)):
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
            writer.writeheader()
            writer.writerows({c: item.get(c, "") for c in columns} for item in chosen)
    return blind, key
