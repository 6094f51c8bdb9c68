"""The order in which a sweep launches its (model, variant) tasks.

Variant by variant, every model for each: a sweep stopped early (a budget spent, a deadline, a
machine lost) has run the first variants for every model, so its finished runs compare the
models on the same cases, where a model-by-model order would leave the last models with nothing.
Inspect launches an eval-set's tasks in the order given, keeping at most `max_tasks` running
(by default one per model, each model taking its next task in that order), so this order is what
both an unsharded sweep and each shard hand to `eval_set`.

Within a variant the models take turns going first (variant k starts at model k mod m): the
order stays variant by variant, and shards that deal every n-th task of it get tasks of several
models even when n divides the number of models (in the plain order, two models on two shards
would put each model on one machine, which then runs its tasks one at a time).
"""

from __future__ import annotations

import copy
from typing import Any

from inspect_ai import Task, task_with


def launch_order(models: list[str], variants: list[Any]) -> list[tuple[str, Any]]:
    """Every (model, variant) pair once: variant by variant, the models rotated by one per
    variant. Any prefix whose length is a multiple of len(models) holds whole variants."""
    order = []
    for turn, variant in enumerate(variants):
        first = turn % len(models) if models else 0
        order += [(model, variant) for model in models[first:] + models[:first]]
    return order


def bound_tasks(tasks: dict[Any, Task], order: list[tuple[str, Any]]) -> list[Task]:
    """A task per (model, variant) of `order`, bound to its model: a shallow copy of the variant's
    task, so the models share its dataset as they do in Inspect's own models x tasks (a task
    built per pair would load the data once per model)."""
    return [task_with(copy.copy(tasks[variant]), model=model) for model, variant in order]
