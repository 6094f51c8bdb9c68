"""Runs repeated over seeds: each run's value in the over-seed interval is the metric Inspect
printed for that run (a case's epochs averaged first), and MentalBench's option-shuffle seeds
are repeats of one data set, as docs/reports.md says."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.model import GenerateConfig, get_model
from scipy import stats

from selfdx.analysis.logs import find_runs
from selfdx.analysis.report import build_report
from tests.conftest import metric_value, scripted_model
from tests.test_report_intervals import structured_subject

SEEDS = (1, 2, 3)
METRICS = ("under_abstention", "over_abstention", "premature", "never", "accuracy_group")


@pytest.mark.slow
def test_a_runs_value_over_seeds_is_its_printed_metric_with_epochs(tmp_path):
    """Three seeds, two epochs each: the report's seed mean and t interval are those of the
    three values Inspect printed, not of plain sample averages (which differ when a case's
    epochs disagree on whether a metric applies)."""
    logs = []
    for seed in SEEDS:
        model = get_model(
            "mockllm/repeats",
            config=GenerateConfig(seed=seed),
            custom_outputs=structured_subject(seed),
            memoize=False,
        )
        (log,) = eval(
            "selfdx/safe_psych",
            task_args={"strategy": "structured_actions"},
            model=model,
            epochs=2,
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
        assert log.status == "success", log.error
        logs.append(log)
    build_report(tmp_path / "logs", tmp_path / "report", progress=False)
    table = pd.read_csv(tmp_path / "report" / "safe_psych_metrics.csv").set_index("metric")
    checked = 0
    for metric in METRICS:
        printed = [metric_value(log, metric) for log in logs]
        if any(math.isnan(value) for value in printed):
            continue
        row = table.loc[metric]
        assert row.runs == 3
        mean = sum(printed) / 3
        half = stats.t.ppf(0.975, 2) * stats.tstd(printed) / math.sqrt(3)
        assert row.seed_mean == pytest.approx(mean, abs=1e-12), metric
        if not row.seed_ci_clipped:
            assert row.seed_ci_low == pytest.approx(mean - half, abs=1e-12), metric
            assert row.seed_ci_high == pytest.approx(mean + half, abs=1e-12), metric
        checked += 1
    assert checked >= 3


@pytest.mark.slow
def test_option_shuffle_seeds_are_repeats_of_one_configuration(tmp_path):
    """`-T seed=` only reorders the options: two such runs are one row with two runs; a run
    without shuffling is another row (its `shuffle_choices` differs)."""
    for args in (
        {"shuffle_choices": True, "seed": 1},
        {"shuffle_choices": True, "seed": 2},
        {"shuffle_choices": False},
    ):
        (log,) = eval(
            "selfdx/mentalbench",
            task_args=args,
            model="selfdx/first-option",
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
        assert log.status == "success", log.error
    build_report(tmp_path / "logs", tmp_path / "report", progress=False)
    runs = pd.read_csv(tmp_path / "report" / "runs.csv")
    assert runs.data_id.nunique() == 1  # the same cases: only their options' order differs
    table = pd.read_csv(tmp_path / "report" / "mentalbench_metrics.csv")
    overall = table[(table.metric == "accuracy") & ~table.variant.str.contains("·")]
    assert sorted(overall.runs) == [1, 2]


def test_one_log_copied_into_three_folders_is_one_run(tmp_path):
    """A log file copied into several folders is the same run (one Inspect eval id): the
    report counts it once, with no over-seed interval and its spend once, and lists the copies
    it left out."""
    (log,) = eval(
        "selfdx/mentalbench",
        model="selfdx/first-option",
        limit=6,
        display="none",
        log_dir=str(tmp_path / "run"),
    )
    assert log.status == "success", log.error
    source = Path(log.location)
    for folder in ("a", "b", "c"):
        (tmp_path / "logs" / folder).mkdir(parents=True)
        shutil.copy(source, tmp_path / "logs" / folder / source.name)
    runs, skipped = find_runs(tmp_path / "logs")
    assert [Path(run.path).parent.name for run in runs] == ["a"]
    assert sorted(Path(path).parent.name for path, _ in skipped) == ["b", "c"]
    assert all("a copy of" in reason and "reported once" in reason for _, reason in skipped)
    build_report(tmp_path / "logs", tmp_path / "report", progress=False)
    table = pd.read_csv(tmp_path / "report" / "mentalbench_metrics.csv")
    overall = table[(table.metric == "accuracy") & ~table.variant.str.contains("·")]
    assert list(overall.runs) == [1]
    assert overall.seed_mean.isna().all()  # one run: no interval over seeds
    assert len(pd.read_csv(tmp_path / "report" / "runs.csv")) == 1
    assert "a copy of" in (tmp_path / "report" / "report.md").read_text()


def test_runs_of_two_task_versions_are_never_repeats(tmp_path):
    """A log written by an earlier version of a task (another answer reader, say) is another
    configuration: its own row, labelled by the version, never pooled with today's runs."""
    from inspect_ai.log import read_eval_log, write_eval_log

    (log,) = eval(
        "selfdx/mentalbench",
        model="selfdx/first-option",
        limit=4,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success", log.error
    older = read_eval_log(log.location)
    older.eval = older.eval.model_copy(update={"task_version": "0-A", "eval_id": "older-run"})
    write_eval_log(older, str(tmp_path / "logs" / "older.eval"))
    runs, _ = find_runs(tmp_path / "logs")
    assert len(runs) == 2 and runs[0].group != runs[1].group
    assert {run.key for run in runs} != {runs[0].key}
    assert sorted("task version=0-A" in run.variant for run in runs) == [False, True]


def test_a_rescored_log_beside_its_original_is_reported_once(tmp_path):
    """`inspect score` keeps the eval id but writes other results: the re-judged log (which
    holds the original scores and the re-judging) is reported, and its original listed as the
    same run scored again, never the two as seeds of one row."""
    from inspect_ai import score
    from inspect_ai.log import read_eval_log, write_eval_log

    from selfdx.scorers.safe_psych.rejudge import safe_psych_rejudge

    (log,) = eval(
        "selfdx/safe_psych",
        model="selfdx/keyword",
        model_roles={"grader": "selfdx/rules-judge"},
        limit=3,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    rescored = score(
        read_eval_log(log.location),
        [safe_psych_rejudge(judge_cache=False)],
        model_roles={"grader": "selfdx/rules-judge"},
        action="append",
        display="none",
    )
    assert rescored.eval.eval_id == log.eval.eval_id
    write_eval_log(rescored, str(tmp_path / "logs" / "rescored.eval"))
    runs, skipped = find_runs(tmp_path / "logs")
    assert [run.path.removeprefix("file://") for run in runs] == [
        str(tmp_path / "logs" / "rescored.eval")
    ]
    ((left_out, why),) = skipped
    assert left_out == log.location.removeprefix("file://") and "scored again" in why


def test_a_solver_override_or_another_epochs_reducer_is_never_a_repeat(tmp_path):
    """`--solver generate` asks the model without the task's prompt: its own row, labelled.
    `--epochs-reducer max` gives metrics the report's means over epochs cannot reproduce: the
    log is left out with the reason, never shown with other numbers than Inspect printed."""
    from inspect_ai import Epochs
    from inspect_ai.solver import generate

    from selfdx.inspect_tasks.mentalbench import mentalbench

    common = dict(
        model=scripted_model(lambda prompt, messages: "Answer: A"), limit=4, display="none"
    )
    (plain,) = eval("selfdx/mentalbench", log_dir=str(tmp_path / "logs"), **common)
    (bare,) = eval(mentalbench(), solver=generate(), log_dir=str(tmp_path / "logs"), **common)
    (maxed,) = eval(
        "selfdx/mentalbench", epochs=Epochs(2, "max"), log_dir=str(tmp_path / "logs"), **common
    )
    for log in (plain, bare, maxed):
        assert log.status == "success", log.error
    runs, skipped = find_runs(tmp_path / "logs")
    assert len(runs) == 2 and runs[0].group != runs[1].group
    assert any("solver=inspect_ai/generate" in run.variant for run in runs)
    ((path, reason),) = skipped
    assert Path(path).name == Path(maxed.location).name and "epochs reducer max" in reason


def test_runs_under_another_sample_limit_are_not_repeats(tmp_path):
    """A run cut short by `--message-limit` or `--token-limit` measures another thing than an
    unlimited one: its own row, never a seed of the other (the third probe round found them
    pooled); an unset setting beside a set one is labelled `default`, not `null`."""
    for extra in ({}, {}, {"message_limit": 3}, {"token_limit": 500}):
        (log,) = eval(
            "selfdx/safe_psych",
            model="selfdx/keyword",
            model_roles={"grader": "selfdx/rules-judge"},
            limit=4,
            display="none",
            log_dir=str(tmp_path / "logs"),
            **extra,
        )
        assert log.status == "success", log.error
    out = build_report(tmp_path / "logs", tmp_path / "report", progress=False)
    table = pd.read_csv(out / "safe_psych_metrics.csv")
    rows = table[table["metric"] == "excluded"].set_index("variant")
    assert len(rows) == 3 and sorted(rows["runs"]) == [1, 1, 2]
    cut = rows.loc[[v for v in rows.index if "message limit=3" in v]]
    assert (cut["value"] > 0).all()  # conversations cut short are excluded, in their own row
    assert not any("null" in v for v in rows.index)
    assert any("token limit=default" in v for v in rows.index)


def test_a_partial_run_and_its_retry_are_one_run(tmp_path):
    """A run allowed to finish with errored samples (`--fail-on-error`) and its `inspect
    eval-retry` share Inspect's task id, and the retry holds the samples it copied over: one
    run of every case, not two seeds with the copied samples counted twice."""
    from inspect_ai import eval_retry

    logs = str(tmp_path / "logs")
    (partial,) = eval(
        "selfdx/safe_psych",
        model="selfdx/faults",
        model_args={"policy": "keyword", "transient": 0.3, "seed": 3},
        model_roles={"grader": "selfdx/rules-judge"},
        limit=6,
        max_retries=0,
        fail_on_error=0.99,
        display="none",
        log_dir=logs,
    )
    assert partial.status == "success" and partial.results.completed_samples < 6
    (retried,) = eval_retry(partial, log_dir=logs, max_retries=5, display="none")
    assert retried.status == "success" and retried.results.completed_samples == 6
    assert retried.eval.task_id == partial.eval.task_id
    runs, skipped = find_runs(logs)
    (run,) = runs
    assert run.completed_samples == 6 and run.eval_id == retried.eval.eval_id
    assert any("its retry" in reason for _, reason in skipped)
    out = build_report(logs, tmp_path / "report", progress=False)
    table = pd.read_csv(out / "safe_psych_metrics.csv")
    assert set(table["runs"]) == {1}
    assert table.loc[table["metric"] == "excluded", "n_cases"].tolist() == [6]


def test_a_set_written_two_ways_is_one_configuration(tmp_path):
    """`types=1,2` from `selfdx sweep` (a string), `-T types=1,2` (a list), `types=2,1` and
    `patient_style=[plain]` are the same runs: repeats of one row, not rows of their own."""
    from inspect_ai.log import read_eval_log, write_eval_log

    (log,) = eval(
        "selfdx/interview",
        model="selfdx/kg-interviewer",
        limit=2,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    for number, (types, style) in enumerate(((["2", "1"], ["plain"]), ("1, 2", "plain"))):
        other = read_eval_log(log.location)
        other.eval.eval_id = f"another-run-{number}"
        other.eval.task_args = {**other.eval.task_args, "types": types, "patient_style": style}
        write_eval_log(other, str(tmp_path / "logs" / f"other-{number}.eval"))
    runs, skipped = find_runs(tmp_path / "logs")
    assert len(runs) == 3 and not skipped
    assert len({run.group for run in runs}) == 1
