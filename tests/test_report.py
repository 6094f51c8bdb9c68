"""`selfdx report` and the statistics behind it, on logs made by the offline providers."""

import base64
import math
import os
import re
import shutil

import numpy as np
import pandas as pd
import pytest
from inspect_ai import eval

from selfdx.analysis.logs import find_runs
from selfdx.analysis.report import build_report
from selfdx.analysis.statistics import bootstrap_interval, case_means, t_interval
from tests.conftest import metric_value

MODELS = ["selfdx/eager", "selfdx/cautious", "selfdx/keyword"]
STRATEGIES = ["full_info_abstention_aware", "sequential_info_abstention_aware"]


@pytest.fixture(scope="module")
def sweep_logs(tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("logs")
    logs = []
    for strategy in STRATEGIES:
        for model in MODELS:
            (log,) = eval(
                "selfdx/safe_psych",
                task_args={"strategy": strategy},
                model=model,
                model_roles={"grader": "selfdx/rules-judge"},
                display="none",
                log_dir=str(log_dir),
            )
            logs.append(log)
    # the same configuration twice more with seeds: three runs of one row
    for seed in (1, 2):
        (log,) = eval(
            "selfdx/safe_psych",
            task_args={"strategy": STRATEGIES[1]},
            model="selfdx/keyword",
            model_roles={"grader": "selfdx/rules-judge"},
            display="none",
            log_dir=str(log_dir / "seeds"),
            seed=seed,
        )
    return log_dir, logs


@pytest.fixture(scope="module")
def report(sweep_logs, tmp_path_factory):
    log_dir, _ = sweep_logs
    out = tmp_path_factory.mktemp("report")
    build_report(log_dir, out, progress=False)
    return out


def test_case_means_cluster_epochs():
    means = case_means([("a", 1.0), ("a", 0.0), ("b", math.nan), ("c", 1.0), ("c", 1.0)])
    assert sorted(means.tolist()) == [0.5, 1.0]  # b has no applicable value


def test_t_interval_by_hand():
    mean, low, high = t_interval([0.5, 0.6, 0.7])
    # sd = 0.1, t(0.975, 2) = 4.302653
    assert mean == pytest.approx(0.6)
    assert low == pytest.approx(0.6 - 4.302653 * 0.1 / math.sqrt(3), abs=1e-6)
    assert high == pytest.approx(0.6 + 4.302653 * 0.1 / math.sqrt(3), abs=1e-6)
    assert math.isnan(t_interval([0.4])[1])


def test_bootstrap_is_seeded_and_brackets_the_mean():
    values = np.array([1, 0, 0, 1, 1, 0, 1, 1, 1, 0], dtype=float)
    first, second = bootstrap_interval(values), bootstrap_interval(values)
    assert first == second
    assert first[0] < values.mean() < first[1]
    narrow = bootstrap_interval(np.tile(values, 20))
    assert narrow[1] - narrow[0] < first[1] - first[0]
    assert bootstrap_interval(np.ones(5)) == (1.0, 1.0)
    assert all(math.isnan(x) for x in bootstrap_interval(np.array([1.0])))


def test_every_run_is_found(sweep_logs):
    log_dir, _ = sweep_logs
    runs, skipped = find_runs(log_dir)
    assert len(runs) == 8 and skipped == []
    assert {run.variant for run in runs} == set(STRATEGIES)


def test_rows_follow_model_and_strategy_not_file_times(sweep_logs, report, tmp_path):
    """The same logs give the same tables wherever they are copied: rows go by model, then
    Safe-Psych's strategies in the paper's order, never by when a file was written."""
    log_dir, _ = sweep_logs
    copy = tmp_path / "logs"
    shutil.copytree(log_dir, copy)
    files = sorted(copy.rglob("*.eval"), key=lambda path: path.stat().st_mtime)
    for age, path in enumerate(files):  # the newest file now looks the oldest
        os.utime(path, (1_700_000_000 - age, 1_700_000_000 - age))
    again = build_report(copy, tmp_path / "report", progress=False)

    def rows(folder) -> list[str]:
        text = (folder / "report.md").read_text(encoding="utf-8")
        return [line for line in text.splitlines() if line.startswith("| selfdx/")]

    assert rows(again) == rows(report)
    summary = [line.split(" | ")[:2] for line in rows(report)][: len(MODELS) * len(STRATEGIES)]
    assert summary == [[f"| {m}", s] for m in sorted(MODELS) for s in STRATEGIES]


def test_table_values_equal_inspect_metrics(sweep_logs, report):
    """Every metric a run's results report (the keys of the scorer's one entry, less their
    `_stderr` and `_count` companions) has its row, whose value is what Inspect printed."""
    _, logs = sweep_logs
    table = pd.read_csv(report / "safe_psych_metrics.csv")
    assert {"value", "ci_low", "ci_high", "n_cases", "seed_mean", "seed_ci_low"} <= set(table)
    compared = 0
    for log in logs:
        rows = table[
            (table.model == log.eval.model) & (table.variant == log.eval.task_args["strategy"])
        ]
        (entry,) = [e for e in log.results.scores if e.name == "safe_psych_scorer"]
        companions = ("_stderr", "_count", "_ci_lower", "_ci_upper")  # of a metric's row
        names = [n for n in entry.metrics if not n.endswith(companions)]
        assert "under_abstention" in names and "accuracy_code" in names
        if "sequential" in log.eval.task_args["strategy"]:
            assert "on_time" in names
        for name in names:
            row = rows[rows.metric == name]
            assert len(row) == 1, (log.eval.model, log.eval.task_args["strategy"], name)
            expected = metric_value(log, name)
            got = row.value.iloc[0]
            assert (math.isnan(expected) and pd.isna(got)) or got == pytest.approx(expected), name
            if not pd.isna(got) and row.n_cases.iloc[0] > 1:
                assert row.ci_low.iloc[0] <= got + 1e-9 and got <= row.ci_high.iloc[0] + 1e-9
            compared += 1
    # full-info: under/over-abstention, excluded and three accuracies; sequential: also
    # premature, on time, late, never and stage-1 clarification; three models each
    assert compared == 3 * 6 + 3 * 11


def test_repeated_runs_get_a_seed_interval(report):
    table = pd.read_csv(report / "safe_psych_metrics.csv")
    repeated = table[(table.runs > 1) & (table.metric == "under_abstention")]
    assert len(repeated) == 1  # the keyword policy: no seed, then seeds 1 and 2
    assert repeated.iloc[0].runs == 3
    row = repeated.iloc[0]
    # a deterministic policy gives the same value twice: a zero-width interval at that value
    assert row.seed_mean == pytest.approx(row.value)
    assert row.seed_ci_low == pytest.approx(row.value) == row.seed_ci_high


def test_markdown_html_and_figures(report):
    markdown = (report / "report.md").read_text()
    for section in ("## Safe-Psych", "### Behaviour", "### Diagnostic accuracy"):
        assert section in markdown
    figures = sorted((report / "figures").glob("*.png"))
    names = {f.stem for f in figures}
    assert names == {
        "safe_psych_abstention_scatter",
        "safe_psych_timing",
        "safe_psych_cumulative",
        "safe_psych_accuracy_by_timing",
        "safe_psych_gold_labels",
    }
    for figure in figures:
        assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and figure.stat().st_size > 5000
    page = (report / "report.html").read_text()
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == len(figures)
    assert all(base64.b64decode(data)[:4] == b"\x89PNG" for data in images)
    # opens from disk, no server: the only addresses are links to the logs in `inspect view`
    addresses = re.findall(r'(<a href="|[a-z]+="|url\(|)(https?://[^"\s)]+)', page)
    assert addresses and all(
        tag == '<a href="' and url.startswith("http://127.0.0.1:7575/#/logs/")
        for tag, url in addresses
    ), [a for a in addresses if a[0] != '<a href="'][:3]
    assert "[" in page  # intervals are shown


def test_runs_with_errored_samples_are_flagged(tmp_path):
    from tests.conftest import scripted_model

    def fragile(prompt, messages):
        if "railway station" in prompt:  # one demo case (SYN-SP-004) breaks the model
            raise RuntimeError("provider fell over")
        return "The presentation is most consistent with a moderate depressive episode (F32.1)."

    (log,) = eval(
        "selfdx/safe_psych",
        model=scripted_model(fragile),
        model_roles={"grader": "selfdx/rules-judge"},
        display="none",
        log_dir=str(tmp_path / "logs"),
        fail_on_error=False,
    )
    assert log.status == "success"
    build_report(tmp_path / "logs", tmp_path / "report", progress=False)
    runs = pd.read_csv(tmp_path / "report" / "runs.csv")
    row = runs.iloc[0]
    assert (row.samples_planned, row.samples_scored, row.samples_errored) == (30, 29, 1)
    assert not row.complete
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "Warning: some samples of these runs errored" in markdown
    table = pd.read_csv(tmp_path / "report" / "safe_psych_metrics.csv")
    excluded = table[table.metric == "excluded"].iloc[0]
    assert excluded.n_cases == 29  # the errored case is in no metric, and the report says so
