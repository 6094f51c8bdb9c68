"""`selfdx merge`: the sample shards of one task, combined into one Inspect log.

A task run by `selfdx sweep --shard i/n --split samples` leaves its shards in Inspect's shard
layout, `<dir>/<name>.shards/<k>/` (selfdx/sample_shards.py, selfdx/shard_layout.py). The
merge writes `<dir>/<name>.eval`, the log the task would have written in one run:

- every shard must come from one command: the same task, task version, task arguments, model,
  model roles and settings, dataset, scorers, packages and eval configuration (all but the
  shard's own sample ids), and the same shard count and data (number of samples and digest of
  their ids in dataset order); otherwise it refuses in one line naming the file and the field;
- every sample (and epoch) must be present exactly once: a missing shard, a missing sample or
  one run by two shards is refused in one line, as is a shard still running;
- the samples are put back in the dataset's order (shard k holds positions k-1, k-1+n, ...),
  which is the order in which Inspect hands scores to the metrics, and the metrics are computed
  again from the samples' scores with the task's own scorers and metrics as the log records
  them (Inspect's `recompute_metrics`, the machinery `inspect score` uses): values, standard
  errors and the seeded bootstrap intervals equal those of an unsharded run;
- token usage (by model and by role) is summed; the status is `success` only when every shard
  succeeded; `eval.shards` holds Inspect's ledger of the shards merged.

Every path goes through Inspect's file layer (fsspec), so the log folder may be `s3://...`.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from inspect_ai.log import (
    EvalLog,
    EvalShardEntry,
    EvalShards,
    list_eval_logs,
    read_eval_log,
    recompute_metrics,
    write_eval_log,
)
from inspect_ai.log._file import EvalLogInfo
from inspect_ai.log._shards._walk import attempt_sort_key

from selfdx.errors import SelfdxError
from selfdx.shard_layout import SHARD_KEY, ids_digest, merged_location, shard_place, share_size

SPEC_FIELDS = (  # what every shard of one task must share, as the log names it
    "task",
    "task_registry_name",
    "task_version",
    "task_file",
    "task_args",
    "model",
    "model_args",
    "model_base_url",
    "model_generate_config",
    "model_roles",
    "solver",
    "solver_args",
    "scorers",
    "metrics",
    "packages",
    "revision",
)


@dataclass
class Shard:
    number: int  # the folder name <k>
    info: EvalLogInfo  # its current attempt
    header: EvalLog

    @property
    def path(self) -> str:
        return shown(self.info.name)


def shown(location: str) -> str:
    return location.removeprefix("file://")


def shard_sets(log_dir: str) -> dict[str, dict[str, list[EvalLogInfo]]]:
    """Every `<name>.shards` folder under `log_dir` (or `log_dir` itself), with the logs of
    each of its shard folders `<k>`."""
    found: dict[str, dict[str, list[EvalLogInfo]]] = {}
    for info in list_eval_logs(log_dir, recursive=True, descending=False):
        place = shard_place(info.name)
        if place is not None:
            found.setdefault(place[0], {}).setdefault(place[1], []).append(info)
    return found


def facts_of(shard: Shard) -> dict[str, Any]:
    facts = (shard.header.eval.metadata or {}).get(SHARD_KEY)
    if not isinstance(facts, dict) or facts.get("split") != "samples":
        raise SelfdxError(
            f"{shard.path}: eval.metadata.{SHARD_KEY}: missing; not a sample shard written by "
            "`selfdx sweep --shard i/n --split samples`"
        )
    for field in ("index", "count", "samples"):
        if not isinstance(facts.get(field), int):
            raise SelfdxError(
                f"{shard.path}: eval.metadata.{SHARD_KEY}.{field}: expected a whole number, "
                f"got {facts.get(field)!r}"
            )
    if facts["index"] != shard.number:
        raise SelfdxError(
            f"{shard.path}: eval.metadata.{SHARD_KEY}.index is {facts['index']}, but the log is "
            f"in shard folder {shard.number}"
        )
    return facts


def identity(shard: Shard) -> dict[str, Any]:
    """What must be equal across the shards of one task, field name -> value."""
    spec = shard.header.eval
    fields: dict[str, Any] = {}
    for name in SPEC_FIELDS:
        value = getattr(spec, name)
        fields[f"eval.{name}"] = jsonable(value)
    fields["eval.dataset"] = jsonable(spec.dataset.model_dump(exclude={"sample_ids"}))
    fields["eval.config"] = jsonable(spec.config.model_dump(exclude={"sample_id"}))
    metadata = dict(spec.metadata or {})
    facts = dict(metadata.pop(SHARD_KEY, {}))
    facts.pop("index", None)
    fields["eval.metadata"] = jsonable(metadata)
    fields[f"eval.metadata.{SHARD_KEY}"] = jsonable(facts)
    return fields


def jsonable(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        value = value.model_dump()
    elif isinstance(value, list):
        value = [v.model_dump() if hasattr(v, "model_dump") else v for v in value]
    elif isinstance(value, dict):
        value = {k: v.model_dump() if hasattr(v, "model_dump") else v for k, v in value.items()}
    return json.loads(json.dumps(value, default=str, sort_keys=True))


def current_shards(folder: str, logs: dict[str, list[EvalLogInfo]]) -> list[Shard]:
    """Each shard folder's current attempt (the newest log, by Inspect's attempt order)."""
    shards = []
    for name, infos in logs.items():
        if not (name.isascii() and name.isdigit()):
            raise SelfdxError(
                f"{shown(folder)}/{name}: not a shard folder (shard folders are named 1, 2, ...)"
            )
        info = max(infos, key=attempt_sort_key)
        try:
            header = read_eval_log(info.name, header_only=True)
        except Exception as exc:
            raise SelfdxError(
                f"{shown(info.name)}: not a readable Inspect log: {type(exc).__name__}: {exc}"
            ) from exc
        shards.append(Shard(int(name), info, header))
    return sorted(shards, key=lambda s: s.number)


def check_shards(folder: str, shards: list[Shard]) -> dict[str, Any]:
    """The shards' common facts; a SelfdxError naming the file and field where they differ,
    where one is unfinished or where a shard with samples to run is missing."""
    first = shards[0]
    facts = facts_of(first)
    expected = identity(first)
    for shard in shards:
        facts_of(shard)
        for field, value in identity(shard).items():
            if value != expected[field]:
                raise SelfdxError(
                    f"{shard.path}: {field} differs from shard {first.number}'s "
                    f"({first.path}): the shards of one task must come from one command"
                )
        status = shard.header.status
        if status not in ("success", "error"):
            raise SelfdxError(
                f"{shard.path}: status {status}: shard {shard.number} has not finished; rerun "
                f"its `selfdx sweep ... --shard {shard.number}/{facts['count']} --split samples` "
                "(it resumes) and merge again"
            )
    count, total = facts["count"], facts["samples"]
    present = {shard.number for shard in shards}
    beyond = sorted(n for n in present if n > count)
    if beyond:
        raise SelfdxError(f"{shown(folder)}/{beyond[0]}: a shard folder beyond the {count} shards")
    for number in range(1, count + 1):
        if number not in present and share_size(number, count, total) > 0:
            raise SelfdxError(
                f"{shown(folder)}/{number}: shard {number} of {count} holds no log; run "
                f"`selfdx sweep ... --shard {number}/{count} --split samples` and merge again"
            )
    return facts


def dataset_order(shards: list[Shard], facts: dict[str, Any]) -> list[Any]:
    """The task's sample ids in dataset order, from the shards' selections (shard k holds
    positions k-1, k-1+n, ...); a SelfdxError where they overlap or do not make it up."""
    count, total = facts["count"], facts["samples"]
    selections: dict[int, list[Any]] = {}
    owner: dict[Any, Shard] = {}
    for shard in shards:
        selection = list(shard.header.eval.dataset.sample_ids or [])
        for sample_id in selection:
            if sample_id in owner:
                raise SelfdxError(
                    f"{shard.path}: eval.dataset.sample_ids: sample {sample_id!r} is run by "
                    f"shard {owner[sample_id].number} too ({owner[sample_id].path})"
                )
            owner[sample_id] = shard
        wanted = share_size(shard.number, count, total)
        if len(selection) != wanted:
            raise SelfdxError(
                f"{shard.path}: eval.dataset.sample_ids: {len(selection)} samples, where shard "
                f"{shard.number} of {count} of a task of {total} samples has {wanted}"
            )
        selections[shard.number] = selection
    order = [selections[position % count + 1][position // count] for position in range(total)]
    if ids_digest(order) != facts.get("ids_sha256"):
        raise SelfdxError(
            f"{shards[0].path}: eval.metadata.{SHARD_KEY}.ids_sha256: the shards' samples, put "
            "back in order, are not the task's samples"
        )
    return order


def merge_shards(folder: str, logs: dict[str, list[EvalLogInfo]]) -> EvalLog:
    """The merged log of one `<name>.shards` folder (not written)."""
    shards = current_shards(folder, logs)
    facts = check_shards(folder, shards)
    order = dataset_order(shards, facts)
    position = {sample_id: n for n, sample_id in enumerate(order)}
    epochs = shards[0].header.eval.config.epochs or 1
    samples = []
    ledger = []
    for shard in shards:
        log = read_eval_log(shard.info.name)
        selection = list(log.eval.dataset.sample_ids or [])
        held = sorted(((s.id, s.epoch) for s in log.samples or []), key=repr)
        wanted = sorted(((i, e) for i in selection for e in range(1, epochs + 1)), key=repr)
        if held != wanted:
            expected = set(wanted)
            missing = sorted(expected - set(held), key=repr)
            times = Counter(held)
            foreign = sorted((k for k in times if k not in expected), key=repr)
            twice = sorted((k for k in times if times[k] > 1), key=repr)
            if missing:
                what = f"misses sample {missing[0][0]!r} (epoch {missing[0][1]})"
            elif foreign:
                what = f"holds sample {foreign[0][0]!r} (epoch {foreign[0][1]}), not its share's"
            else:
                what = f"holds sample {twice[0][0]!r} (epoch {twice[0][1]}) more than once"
            raise SelfdxError(
                f"{shard.path}: samples: the log {what}; rerun shard {shard.number} (it resumes)"
            )
        samples += log.samples or []
        ledger.append(
            EvalShardEntry(
                shard=str(shard.number),
                log=shard.info.name.rsplit("/", 1)[-1],
                eval_set_id=log.eval.eval_set_id,
                status=log.status,
                error=log.error,
                samples=len(log.samples or []),
                selected=len(selection),
                selection_digest=ids_digest(selection),
                started_at=log.stats.started_at,
                completed_at=log.stats.completed_at,
                model_usage=log.stats.model_usage,
                role_usage=log.stats.role_usage,
                size=shard.info.size,
                mtime=shard.info.mtime,
            )
        )
    samples.sort(key=lambda s: (s.epoch, position[s.id]))
    headers = [shard.header for shard in shards]
    merged = headers[0].model_copy(deep=True)
    spec = merged.eval
    ids = "".join(h.eval.eval_id for h in headers)
    spec.eval_id = hashlib.sha256(f"eval:{ids}".encode()).hexdigest()[:22]
    spec.run_id = hashlib.sha256(f"run:{ids}".encode()).hexdigest()[:22]
    spec.task_id = hashlib.sha256(
        "".join(h.eval.task_id for h in headers).encode("utf-8")
    ).hexdigest()[:22]
    spec.eval_set_id = None
    spec.created = min(h.eval.created for h in headers)
    spec.config.sample_id = None
    spec.config.limit = facts.get("limit")
    spec.dataset.sample_ids = order
    spec.metadata = {k: v for k, v in (spec.metadata or {}).items() if k != SHARD_KEY}
    spec.shards = EvalShards(selection="ids", ledger=ledger)
    merged.metadata = {k: v for k, v in (merged.metadata or {}).items() if k != SHARD_KEY}
    merged.samples = samples
    merged.stats.started_at = min(
        (h.stats.started_at for h in headers if h.stats.started_at), default=""
    )
    finished = [h.stats.completed_at for h in headers]
    merged.stats.completed_at = max(finished) if all(finished) else ""
    merged.stats.model_usage = summed([h.stats.model_usage for h in headers])
    merged.stats.role_usage = summed([h.stats.role_usage for h in headers])
    failed = [h for h in headers if h.status != "success"]
    merged.status = "error" if failed else "success"
    merged.error = failed[0].error if failed else None
    recompute_metrics(merged)
    return merged


def summed(usages: list[dict[str, Any]]) -> dict[str, Any]:
    total: dict[str, Any] = {}
    for usage in usages:
        for name, tokens in usage.items():
            total[name] = total[name] + tokens if name in total else tokens.model_copy()
    return total


def merge_log_dir(log_dir: str) -> list[tuple[str, EvalLog]]:
    """Merge every `<name>.shards` folder under `log_dir` into `<name>.eval` beside it; the
    (location, merged log header) of each. A SelfdxError when there is none."""
    sets = shard_sets(log_dir)
    if not sets:
        raise SelfdxError(
            f"{log_dir}: holds no sample shards (<name>.shards/<k>/ logs of `selfdx sweep "
            "--shard i/n --split samples`)"
        )
    written = []
    for folder in sorted(sets):
        merged = merge_shards(folder, sets[folder])
        location = merged_location(folder)
        write_eval_log(merged, location)
        merged.samples = None
        written.append((shown(location), merged))
    return written
