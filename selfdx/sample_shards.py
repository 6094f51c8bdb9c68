"""`selfdx sweep --shard i/n --split samples`: n machines share the samples of each task.

For every (model, variant) task of the sweep, shard i of n runs every n-th sample by position
in the task's dataset order (after `--limit`), from the i-th. The share depends only on the
command, so n machines given the same command and store, each its own i, run every sample
once. Each share is one resumable `eval_set` in Inspect's shard layout,
`LOG_DIR/<task key>.shards/<i>/` (`<task key>`: benchmark, variant and model, `task_key`), and
`selfdx merge LOG_DIR` (selfdx/analysis/merge.py) writes the task's one log beside it,
`LOG_DIR/<task key>.eval`. The tasks of a shard run one after another, each with the sweep's
connections. What a shard's log records for the merge: selfdx/shard_layout.py.
"""

from __future__ import annotations

import re
from typing import Any

from inspect_ai import eval_set, task_with

from selfdx.errors import ArgumentError, warn
from selfdx.scheduler import resolve_shard
from selfdx.shard_layout import SHARD_KEY, SHARDS_SUFFIX, ids_digest, sample_share
from selfdx.sweep import (
    below,
    check_counts,
    check_variants,
    default_variants,
    needs_judge,
    parse_task_args,
    sweep_roles,
    sweep_tasks,
)
from selfdx.sweep_budget import Budget, budget_from_args, budgeted, mark_unfinished, spending


def task_key(benchmark: str, variant: Any, model: str) -> str:
    """The folder name of one (model, variant) task: `<benchmark>-<variant>_<model>`, every
    run of characters other than letters, digits, `.`, `_` and `-` made one `-`."""
    label = f"types-{variant}" if benchmark in ("mentalbench", "interview") else str(variant)
    return re.sub(r"[^A-Za-z0-9._-]+", "-", f"{benchmark}-{label}_{model}").strip("-")


def shard_folder(log_dir: str, key: str, index: int) -> str:
    """`LOG_DIR/<key>.shards/<index>`, on disk or on a store (`s3://...`)."""
    return below(below(log_dir, f"{key}{SHARDS_SUFFIX}"), str(index))


def run_sample_sweep(
    models: list[str],
    log_dir: str,
    shard: tuple[int, int],
    benchmark: str = "safe_psych",
    variants: list[Any] | None = None,
    data: str = "demo",
    grader: str | None = None,
    grader_connections: int = 10,
    max_connections: int | None = None,
    patient: str | None = None,
    limit: int | None = None,
    budget: Budget | None = None,
    task_args: dict[str, Any] | None = None,
    **eval_set_args: Any,
) -> bool:
    """Shard i of n of every task's samples (the arguments of `selfdx.sweep.run_sweep`; further
    keyword arguments go to `inspect_ai.eval_set`). True when every share ran to success; an
    empty share (a task with fewer than i samples) is said in one line and counts as done."""
    repeated = sorted({model for model in models if models.count(model) > 1})
    if repeated:
        raise ArgumentError(f"--models: {', '.join(repeated)} is listed more than once")
    if grader is None and needs_judge(benchmark, variants):
        raise ArgumentError(
            "the Safe-Psych judge needs a model for the 'grader' role: pass --grader "
            "<provider/model> (offline: --grader selfdx/rules-judge)"
        )
    # --split samples takes the first `limit` samples by position: no (start, stop) range
    check_counts(1, grader_connections, max_connections, limit, ranges=False)
    check_variants(benchmark, variants)
    for taken in ("sample_id", "sample_shuffle"):
        if eval_set_args.get(taken) is not None:
            raise ArgumentError(f"{taken}: --split samples chooses each shard's samples itself")
    sweep_tasks(benchmark, variants, data, task_args)  # bad task arguments: one line, at once
    common = dict(
        benchmark=benchmark,
        data=data,
        task_args=task_args,
        roles=sweep_roles(grader, grader_connections, patient),
        max_connections=max_connections,
        **eval_set_args,
    )
    success = True
    with spending(budget.at(log_dir) if budget is not None else None) as ledger:
        for model in models:
            for variant in default_variants(benchmark, variants):
                done = _run_share(model, variant, log_dir, shard, limit, ledger, **common)
                success = success and done
    return success


def _run_share(
    model: str,
    variant: Any,
    log_dir: str,
    shard: tuple[int, int],
    limit: int | None,
    ledger: Any,
    benchmark: str,
    data: str,
    task_args: dict[str, Any] | None,
    roles: Any,
    max_connections: int | None,
    **eval_set_args: Any,
) -> bool:
    """This shard's share of one (model, variant) task, as one resumable eval-set."""
    index, count = shard
    task = sweep_tasks(benchmark, [variant], data, task_args)[0]
    ids = [sample.id for sample in task.dataset]
    if limit is not None:
        ids = ids[:limit]
    share = sample_share(ids, shard)
    key = task_key(benchmark, variant, model)
    if not share:
        warn(
            f"shard {index}/{count}: {key} has {len(ids)} samples and none falls to "
            "this shard; nothing was run for it"
        )
        return True
    facts = {
        "split": "samples",
        "index": index,
        "count": count,
        "samples": len(ids),
        "ids_sha256": ids_digest(ids),
        "limit": limit,
    }
    metadata = {**(task.metadata or {}), SHARD_KEY: facts}
    done, logs = eval_set(
        tasks=[budgeted(task_with(task, model=model, metadata=metadata), ledger)],
        model_roles=roles,
        log_dir=shard_folder(log_dir, key, index),
        sample_id=share,
        max_connections=max_connections,
        **eval_set_args,
    )
    return mark_unfinished(logs, ledger) and done


def sweep_samples(args: Any, variants: list[Any] | None) -> int:
    """`selfdx sweep ... --split samples` from its parsed arguments: the exit status."""
    from selfdx.arguments import listed

    if not args.shard or args.processes != 1:
        raise ArgumentError("--split samples: give --shard i/n, and no --processes (one each)")
    ok = run_sample_sweep(
        budget=budget_from_args(args),
        models=listed("--models", args.models) or [],
        log_dir=args.log_dir,
        shard=resolve_shard(args.shard),
        benchmark=args.benchmark,
        variants=variants,
        data=args.data,
        grader=args.grader,
        grader_connections=args.grader_connections,
        max_connections=args.max_connections,
        patient=args.patient,
        limit=args.limit,
        display=args.display,
        task_args=parse_task_args(args.task_arg),
    )
    return 0 if ok else 1
