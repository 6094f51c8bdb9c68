"""Model roster x strategies (or MentalBench types) in one resumable `inspect eval-set`.

Running the same sweep again over the same log directory picks up where it stopped: finished
tasks are skipped and samples completed in a failed task are reused. With `processes` > 1 each
model gets its own eval-set in its own process and sub-directory, so that CPU-bound sweeps use
more than the one core an event loop can.

`shard` = (i, n) runs the i-th of n disjoint shares of the sweep's (model, variant) tasks, in
`log_dir/shard-i-of-n`: n machines given the same command and store, each with its own i, run
every task once; a rerun of a shard resumes it; `selfdx report log_dir` reads all the shards.
`selfdx.sample_shards` shares each task's samples between the shards instead.
"""

from __future__ import annotations

import multiprocessing
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval_set, task_with
from inspect_ai.model import GenerateConfig, get_model

from selfdx.arguments import NonNegativeInt, PositiveInt, checked
from selfdx.datasets.strategies import STRATEGIES, asks_judge, check_strategy
from selfdx.errors import ArgumentError, warn
from selfdx.sweep_budget import Budget, budgeted, mark_unfinished, spending
from selfdx.sweep_order import bound_tasks, launch_order

# The task argument each benchmark's sweep sets from its own option, per variant.
VARIANT_ARG = {"safe_psych": "strategy", "mentalbench": "types", "interview": "types"}
VARIANT_OPTION = {"strategy": "--strategies", "types": "--types"}


def sweep_tasks(
    benchmark: str,
    variants: list[Any] | None,
    data: str,
    task_args: dict[str, Any] | None = None,
) -> list[Task]:
    """One task per strategy (Safe-Psych) or per type (MentalBench, interview), each with the
    further `task_args` (`-T name=value`), which the task checks as it checks its own."""
    extra = dict(task_args or {})
    variant_arg = VARIANT_ARG.get(benchmark)
    for name in ("data", variant_arg):
        if name in extra:
            option = "--data" if name == "data" else VARIANT_OPTION[name]
            raise ArgumentError(f"-T {name}: the sweep sets it; give {option} instead")
    if benchmark == "safe_psych":
        from selfdx.inspect_tasks.safe_psych import safe_psych

        return [
            safe_psych(data=data, strategy=check_strategy(s), **extra)
            for s in variants or STRATEGIES
        ]
    if benchmark == "mentalbench":
        from selfdx.inspect_tasks.mentalbench import mentalbench

        return [mentalbench(data=data, types=t, **extra) for t in variants or [1, 2, 3, 4]]
    if benchmark == "interview":
        from selfdx.inspect_tasks.interview import interview

        return [interview(data=data, types=t, **extra) for t in variants or [1, 2]]
    raise ArgumentError(f"benchmark: {benchmark!r} is not safe_psych, mentalbench or interview")


def parse_task_args(given: list[str] | None) -> dict[str, Any]:
    """`-T name=value` options as Inspect reads them (the value as YAML: `5`, `true`, `a,b` as
    text); an ArgumentError naming one without `=` or given twice."""
    import yaml

    found: dict[str, Any] = {}
    for item in given or []:
        name, equals, value = item.partition("=")
        name = name.strip()
        if not equals or not name:
            raise ArgumentError(f"-T {item!r}: expected name=value")
        if name in found:
            raise ArgumentError(f"-T {name}: given twice")
        try:
            found[name] = yaml.safe_load(value) if value.strip() else value
        except yaml.YAMLError:
            found[name] = value
    return found


def parse_shard(text: str) -> tuple[int, int]:
    """`--shard i/n` (1 <= i <= n) as (i, n); an ArgumentError naming the value otherwise."""
    left, slash, right = text.partition("/")
    if slash and left.strip().isdigit() and right.strip().isdigit():
        index, count = int(left), int(right)
        if 1 <= index <= count:
            return index, count
    raise ArgumentError(f"shard: expected i/n with 1 <= i <= n (such as 2/3), got {text!r}")


def shard_share(models: list[str], variants: list[Any], shard: tuple[int, int]):
    """The (model, variant) pairs of shard i of n: every n-th pair from the i-th, in the sweep's
    launch order (variant by variant, every model for each), so the n shares are disjoint, cover
    the sweep and depend only on the command."""
    index, count = shard
    return launch_order(models, variants)[index - 1 :: count]


def below(log_dir: str, name: str) -> str:
    """The folder `name` below `log_dir`, a local path or any fsspec URL (`s3://bucket/x`):
    a `Path` would join `s3://b/x` into the local folder `s3:/b/x`."""
    if "://" in log_dir:
        return f"{log_dir.rstrip('/')}/{name}"
    return str(Path(log_dir) / name)


def shard_log_dir(log_dir: str, shard: tuple[int, int]) -> str:
    """The folder of one shard's eval-set (below the sweep's folder)."""
    return below(log_dir, f"shard-{shard[0]}-of-{shard[1]}")


AT_LEAST_ONE = "expected a whole number of at least 1"


def check_counts(
    processes: int = 1,
    grader_connections: int = 10,
    max_connections: int | None = None,
    limit: Any = None,
    ranges: bool = True,
) -> None:
    """The sweep's counts, each a whole number of at least 1, or an ArgumentError naming the
    argument: Inspect reads a `limit` of -3 as all the cases but the last 3, and of 0 as none,
    so a typo would run another sweep than the one asked for without a word. `limit` may also
    be Inspect's (start, stop) range of cases where `ranges` (0 <= start < stop)."""
    checked("processes", processes, PositiveInt, AT_LEAST_ONE)
    checked("grader_connections", grader_connections, PositiveInt, AT_LEAST_ONE)
    if max_connections is not None:
        checked("max_connections", max_connections, PositiveInt, AT_LEAST_ONE)
    if limit is None:
        return
    if ranges and isinstance(limit, tuple):
        start, stop = checked(
            "limit", limit, tuple[NonNegativeInt, PositiveInt], "expected (start, stop) >= 0"
        )
        if start >= stop:
            raise ArgumentError(f"limit: a (start, stop) range needs start < stop, got {limit}")
        return
    checked("limit", limit, PositiveInt, f"{AT_LEAST_ONE} (the first cases of each task)")


def check_variants(benchmark: str, variants: list[Any] | None) -> None:
    """The sweep's types (MentalBench, the interview: read as the task reads them,
    `type_choices`) or strategies, each given once: a task per variant would run a repeated
    type or strategy twice, and `4,4a` Type 4a twice."""
    if not variants:
        return
    if benchmark in ("mentalbench", "interview"):
        from selfdx.datasets.mentalbench.filters import type_choices

        type_choices(variants, "--types")
        return
    names = [str(variant).strip() for variant in variants]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ArgumentError(f"--strategies: {', '.join(repeated)} is listed more than once")


def default_variants(benchmark: str, variants: list[Any] | None) -> list[Any]:
    if variants:
        return list(variants)
    if benchmark == "interview":
        return [1, 2]  # the interview task's own default types
    return list(STRATEGIES) if benchmark == "safe_psych" else [1, 2, 3, 4]


def needs_judge(benchmark: str, variants: list[Any] | None) -> bool:
    """Whether any task of the sweep asks the grader role (every Safe-Psych strategy but
    structured_actions)."""
    if benchmark != "safe_psych":
        return False
    return any(asks_judge(strategy) for strategy in variants or STRATEGIES)


def sweep_roles(grader: str | None, grader_connections: int, patient: str | None):
    """The model roles of a sweep: the judge (`grader`, with its own connection pool) and the
    interview's `patient`, where given."""
    roles: dict[str, Any] = {}
    if grader is not None:
        roles["grader"] = get_model(
            grader, config=GenerateConfig(max_connections=grader_connections)
        )
    if patient is not None:
        roles["patient"] = patient
    return roles or None


def model_log_dir(log_dir: str, model: str) -> str:
    """The sub-directory of one model's eval-set when a sweep runs in several processes."""
    return below(log_dir, re.sub(r"[^A-Za-z0-9._-]+", "-", model))


def run_sweep(
    models: list[str],
    log_dir: str,
    benchmark: str = "safe_psych",
    variants: list[Any] | None = None,
    data: str = "demo",
    grader: str | None = None,
    grader_connections: int = 10,
    max_connections: int | None = None,
    processes: int = 1,
    shard: tuple[int, int] | None = None,
    patient: str | None = None,
    budget: Budget | None = None,
    task_args: dict[str, Any] | None = None,
    **eval_set_args: Any,
) -> bool:
    """Run every model on every variant into `log_dir`; True when all tasks succeeded.

    The judge gets its own connection pool of `grader_connections`; `max_connections` bounds
    each subject model. Further keyword arguments go to `inspect_ai.eval_set` (for example
    `limit`, `epochs`, `retry_attempts`, `retry_on_error`). `patient` binds the interview's
    `patient` role; `task_args` are further task arguments for every task (`-T name=value`).
    To share each task's samples between shards instead of the tasks, see
    `selfdx.sample_shards.run_sample_sweep`.

    `processes` > 1 runs the models in that many worker processes at a time, each model in
    `log_dir/<model>` (rerun with the same `processes` to resume). Connection pools are per
    process: the judge's `grader_connections` then hold for each model separately. Workers are
    spawned, so a script calling this must do so under `if __name__ == "__main__":`.

    `budget` (`selfdx.sweep_budget`) caps what the whole sweep spends, across its shards,
    processes and reruns; when it is spent no sample starts, and this returns False.
    """
    check_counts(processes, grader_connections, max_connections, eval_set_args.get("limit"))
    check_variants(benchmark, variants)
    repeated = sorted({model for model in models if models.count(model) > 1})
    if repeated:  # a shard would run both copies, and the report pool them as seeds
        raise ArgumentError(f"--models: {', '.join(repeated)} is listed more than once")
    common = dict(
        benchmark=benchmark,
        variants=variants,
        data=data,
        grader=grader,
        grader_connections=grader_connections,
        max_connections=max_connections,
        patient=patient,
        budget=budget.at(log_dir) if budget is not None else None,
        task_args=task_args,
        **eval_set_args,
    )
    sweep_tasks(benchmark, variants, data, task_args)  # bad task arguments: one line, at once
    folders = [model_log_dir(log_dir, model) for model in models]
    if processes > 1 and len(set(folders)) < len(folders):
        clash = sorted(m for m, f in zip(models, folders, strict=True) if folders.count(f) > 1)
        raise ArgumentError(
            f"processes: the models {clash} would share one log folder; give each a distinct "
            "name or run them with processes=1"
        )
    if grader is None and needs_judge(benchmark, variants):
        raise ArgumentError(
            "the Safe-Psych judge needs a model for the 'grader' role: pass --grader "
            "<provider/model> (offline: --grader selfdx/rules-judge)"
        )
    if shard is not None:
        if processes > 1:
            raise ArgumentError(
                "shard: a shard runs in one process (give each machine one shard); "
                "leave out processes"
            )
        return run_shard(models, log_dir, shard, **common)
    if processes > 1:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=processes, mp_context=context) as pool:
            jobs = [
                pool.submit(run_sweep, [model], folder, **common)
                for model, folder in zip(models, folders, strict=True)
            ]
            return all([job.result() for job in jobs])
    # each task bound to its model, in the launch order (Inspect's own models x tasks goes
    # model by model)
    every = default_variants(benchmark, variants)
    by_variant = dict(zip(every, sweep_tasks(benchmark, every, data, task_args), strict=True))
    with spending(common["budget"]) as ledger:
        success, logs = eval_set(
            tasks=[
                budgeted(task, ledger)
                for task in bound_tasks(by_variant, launch_order(models, every))
            ],
            model_roles=sweep_roles(grader, grader_connections, patient),
            log_dir=log_dir,
            max_connections=max_connections,
            **eval_set_args,
        )
        return mark_unfinished(logs, ledger) and success


def run_shard(
    models: list[str],
    log_dir: str,
    shard: tuple[int, int],
    benchmark: str,
    variants: list[Any] | None,
    data: str,
    grader: str | None,
    grader_connections: int,
    max_connections: int | None,
    patient: str | None = None,
    budget: Budget | None = None,
    task_args: dict[str, Any] | None = None,
    **eval_set_args: Any,
) -> bool:
    """One shard of the sweep: its (model, variant) tasks, each task bound to its model, as one
    resumable eval-set in `shard_log_dir`. True when they all succeeded (or the share is
    empty)."""
    tasks_in_all = len(models) * len(default_variants(benchmark, variants))
    share = shard_share(models, default_variants(benchmark, variants), shard)
    if not share:
        warn(
            f"shard {shard[0]}/{shard[1]}: no task falls to this shard (the sweep has "
            f"{tasks_in_all} tasks for {shard[1]} shards); nothing was run"
        )
        return True
    with spending(budget) as ledger:
        tasks = [
            budgeted(
                task_with(sweep_tasks(benchmark, [variant], data, task_args)[0], model=model),
                ledger,
            )
            for model, variant in share
        ]
        success, logs = eval_set(
            tasks=tasks,
            model_roles=sweep_roles(grader, grader_connections, patient),
            log_dir=shard_log_dir(log_dir, shard),
            max_connections=max_connections,
            **eval_set_args,
        )
        return mark_unfinished(logs, ledger) and success
