"""The launch order of a sweep: variant by variant, every model for each, so a sweep stopped early
has run the same variants (the same cases) for every model; shards deal that order."""

from __future__ import annotations

import pytest
from inspect_ai import eval_set
from inspect_ai.log import list_eval_logs, read_eval_log, read_eval_log_samples

from selfdx.sweep import run_sweep, shard_share, sweep_tasks
from selfdx.sweep_order import launch_order


def test_the_order_is_variant_by_variant_with_the_models_taking_turns():
    assert launch_order(["a", "b"], [1, 2, 3]) == [
        ("a", 1), ("b", 1),
        ("b", 2), ("a", 2),
        ("a", 3), ("b", 3),
    ]  # fmt: skip
    assert launch_order(["a", "b", "c"], ["x", "y"]) == [
        ("a", "x"), ("b", "x"), ("c", "x"),
        ("b", "y"), ("c", "y"), ("a", "y"),
    ]  # fmt: skip
    assert launch_order(["a"], [1, 2]) == [("a", 1), ("a", 2)]
    assert launch_order([], [1, 2]) == [] and launch_order(["a"], []) == []


@pytest.mark.parametrize(("models", "variants"), [(2, 5), (3, 4), (9, 4), (1, 3)])
def test_a_sweep_stopped_after_whole_rounds_holds_every_model_on_the_same_variants(
    models, variants
):
    names = [f"m{k}" for k in range(models)]
    order = launch_order(names, list(range(variants)))
    assert sorted(order) == sorted((m, v) for m in names for v in range(variants))  # once each
    for stop in range(0, len(order) + 1, models):  # stopped after `stop` tasks
        ran = order[:stop]
        per_model = {m: sorted(v for n, v in ran if n == m) for m in names}
        assert all(found == list(range(stop // models)) for found in per_model.values()), stop


def test_the_shards_deal_the_launch_order():
    """Shard i of n gets every n-th task of the launch order from the i-th; with two models on
    two machines each machine still runs both models (the plain order would give each one)."""
    assert shard_share(["a", "b"], [1, 2, 3], (1, 2)) == [("a", 1), ("b", 2), ("a", 3)]
    assert shard_share(["a", "b"], [1, 2, 3], (2, 2)) == [("b", 1), ("a", 2), ("b", 3)]
    # three shards of 2 models x 5 variants: a1 b1 | b2 a2 | a3 b3 | b4 a4 | a5 b5
    assert shard_share(["a", "b"], [1, 2, 3, 4, 5], (1, 3)) == [
        ("a", 1), ("a", 2), ("b", 4), ("b", 5),
    ]  # fmt: skip
    assert shard_share(["a", "b"], [1, 2, 3, 4, 5], (3, 3)) == [("b", 2), ("b", 3), ("a", 5)]
    models = ["a", "b", "c", "d"]
    for i in (1, 2):  # four models, two machines: every machine runs every model
        assert {m for m, _ in shard_share(models, [1, 2, 3, 4], (i, 2))} == set(models)
    # n machines started together launch first what an unsharded sweep launches first
    for n in (2, 3, 4):
        firsts = [shard_share(models, [1, 2, 3, 4], (i, n))[0] for i in range(1, n + 1)]
        assert firsts == launch_order(models, [1, 2, 3, 4])[:n]


MODELS = ["selfdx/keyword", "selfdx/cautious"]
STRATEGIES = ["structured_actions", "full_info_no_abstention", "sequential_info_abstention_aware"]


def started(folder) -> list[tuple[str, str]]:
    """(model, strategy) of the logs in `folder`, in the order their runs started: by their first
    sample's start (the header's times are whole seconds, and runs of two samples share them)."""
    runs = []
    for info in list_eval_logs(str(folder), recursive=True):
        header = read_eval_log(info.name, header_only=True)
        assert header.status == "success", info.name
        first = min(sample.started_at for sample in read_eval_log_samples(info.name))
        runs.append((first, header.eval.model, header.eval.task_args["strategy"]))
    return [(model, strategy) for _, model, strategy in sorted(runs)]


@pytest.mark.slow
def test_a_sweep_launches_its_tasks_variant_by_variant(tmp_path):
    """One task at a time (max_tasks=1), the runs start in the launch order, which Inspect's own
    models x tasks (every strategy of the first model, then the second's) does not."""
    options = dict(limit=2, display="none", max_tasks=1)
    ok = run_sweep(
        MODELS, str(tmp_path / "sweep"), variants=STRATEGIES, grader="selfdx/rules-judge",
        **options,
    )  # fmt: skip
    assert ok
    keyword, cautious = MODELS
    structured, full, sequential = STRATEGIES
    assert started(tmp_path / "sweep") == [
        (keyword, structured), (cautious, structured),
        (cautious, full), (keyword, full),
        (keyword, sequential), (cautious, sequential),
    ]  # fmt: skip
    # a shard runs its share in the same order
    ok = run_sweep(
        MODELS, str(tmp_path / "sharded"), variants=STRATEGIES, grader="selfdx/rules-judge",
        shard=(1, 2), **options,
    )  # fmt: skip
    assert ok
    assert started(tmp_path / "sharded") == [
        (keyword, structured), (cautious, full), (keyword, sequential),
    ]  # fmt: skip


@pytest.mark.slow
def test_a_sweep_started_with_inspects_own_order_resumes_without_rerunning(tmp_path):
    """A sweep folder written with the tasks x models of `eval_set` (as `selfdx sweep` did before
    it bound each task to its model) is complete for the new order: nothing runs again."""
    folder = str(tmp_path / "sweep")
    options = dict(limit=2, display="none")
    ok, _ = eval_set(
        tasks=sweep_tasks("safe_psych", STRATEGIES, "demo"), model=MODELS,
        model_roles={"grader": "selfdx/rules-judge"}, log_dir=folder, **options,
    )  # fmt: skip
    assert ok
    before = sorted(info.name for info in list_eval_logs(folder, recursive=True))
    assert len(before) == 6
    assert run_sweep(MODELS, folder, variants=STRATEGIES, grader="selfdx/rules-judge", **options)
    assert sorted(info.name for info in list_eval_logs(folder, recursive=True)) == before
