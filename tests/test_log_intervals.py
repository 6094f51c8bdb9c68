"""The headline intervals in the log (`<key>_ci_lower`, `<key>_ci_upper`, Inspect's bootstrap
`ci()`) against the intervals `selfdx report` computes for a single run.

Both are 95% percentile bootstraps with 2,000 resamples, of cases (Safe-Psych) or of seed
profiles (MentalBench, interview); they draw different resamples, so they agree to within
Monte Carlo error, not to the digit. Each side is seeded, so the comparison is deterministic.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.scorer import SampleScore, Score

from selfdx.analysis.report import build_report
from selfdx.analysis.statistics import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    bootstrap_interval,
    ratio_bootstrap_interval,
)
from selfdx.scorers.interview.metrics import INTERVAL_KEYS as INTERVIEW_KEYS
from selfdx.scorers.key_means import INTERVAL_RESAMPLES, INTERVAL_SEED, key_means
from selfdx.scorers.safe_psych.outcome import INTERVAL_KEYS as SAFE_PSYCH_KEYS
from tests.conftest import metric_value

# Two seeded bootstraps of the same estimator: the Monte Carlo error of a 2.5% or 97.5%
# percentile from 2,000 resamples is about 0.06 standard errors (measured on these data over
# 40 seeds), 0.085 for the difference of two. In standard errors of the mean:
AGREE = 0.3  # the log's interval and the report's (at the report's seed): 3.5 of those
SHARP = 0.2  # the log's and the report's averaged over 40 seeds: 3.3 of the 0.06


def clustered_scores(seed: int = 3, clusters: int = 150) -> list[SampleScore]:
    """Binary `x` over clusters of 1 to 8 cases sharing a cluster-level rate (strongly
    correlated within a cluster); `y` is NaN on every third case."""
    rng = np.random.default_rng(seed)
    scores = []
    for cluster in range(clusters):
        rate = rng.beta(0.6, 0.6)
        for case in range(int(rng.integers(1, 9))):
            x = float(rng.random() < rate)
            y = math.nan if (cluster + case) % 3 == 0 else float(rng.random() < 0.3)
            scores.append(
                SampleScore(
                    score=Score(value={"x": x, "y": y}),
                    sample_id=f"c{cluster}-{case}",
                    sample_metadata={"seed_group": f"g{cluster}"},
                )
            )
    return scores


def report_interval(
    scores: list[SampleScore], key: str, clustered: bool, level: float = 0.95, seeds: int = 1
) -> tuple[float, float]:
    """The report's interval: a bootstrap of case values, or of cluster totals (a ratio); with
    `seeds` > 1, both ends averaged over that many seeds (the report's first)."""
    if seeds > 1:
        ends = [report_interval(scores, key, clustered, level, -k) for k in range(seeds)]
        return tuple(np.mean(ends, axis=0))
    seed = BOOTSTRAP_SEED - seeds + 1  # seeds <= 1: an offset from the report's seed
    pairs = [(s, s.score.value[key]) for s in scores if not math.isnan(s.score.value[key])]
    if not clustered:
        return bootstrap_interval(np.array([v for _, v in pairs]), level, seed)
    totals: dict[str, list[float]] = {}
    for score, value in pairs:
        total = totals.setdefault(score.sample_metadata["seed_group"], [0.0, 0.0])
        total[0] += value
        total[1] += 1.0
    parts = np.array(list(totals.values()))
    return ratio_bootstrap_interval(parts[:, 0], parts[:, 1], level, seed)


def test_the_log_and_the_report_use_the_same_level_resamples_and_seed():
    assert (INTERVAL_RESAMPLES, INTERVAL_SEED) == (BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED)


@pytest.mark.parametrize("cluster", [None, "seed_group"])
def test_log_interval_agrees_with_the_report_and_not_with_the_alternatives(cluster):
    scores = clustered_scores()
    result = key_means(["x", "y"], cluster=cluster, intervals=["x", "y"])(scores)
    for key in ("x", "y"):
        se = result[f"{key}_stderr"]
        log = (result[f"{key}_ci_lower"], result[f"{key}_ci_upper"])
        clustered = cluster is not None
        shown = report_interval(scores, key, clustered)  # what the report's table shows
        assert log == pytest.approx(shown, abs=AGREE * se), (key, log, shown, se)
        assert log[0] < result[key] < log[1]
        averaged = report_interval(scores, key, clustered, seeds=40)
        assert log == pytest.approx(averaged, abs=SHARP * se), (key, log, averaged, se)
        # the comparison tells a 90% interval from it
        at_90 = report_interval(scores, key, clustered, level=0.90, seeds=40)
        assert max(abs(a - b) for a, b in zip(log, at_90, strict=True)) > SHARP * se
    if cluster:  # ...and an interval that ignores the clusters (they are strongly correlated)
        flat = report_interval(scores, "x", clustered=False, seeds=40)
        log = (result["x_ci_lower"], result["x_ci_upper"])
        assert max(abs(a - b) for a, b in zip(log, flat, strict=True)) > SHARP * result["x_stderr"]


def test_log_interval_is_seeded_and_leaves_numpys_generator_as_it_was():
    scores = clustered_scores()
    metric = key_means(["x"], cluster="seed_group", intervals=["x"])
    np.random.seed(11)
    before = np.random.get_state()[1].copy()
    first = metric(scores)
    assert np.array_equal(np.random.get_state()[1], before)
    np.random.seed(12)  # another global state: the same interval
    assert metric(scores) == first


def test_interval_needs_two_units_and_is_a_point_when_every_unit_agrees():
    one = SampleScore(score=Score(value={"x": 1.0}), sample_id="a", sample_metadata={"g": 1})
    two = SampleScore(score=Score(value={"x": 1.0}), sample_id="b", sample_metadata={"g": 1})
    three = SampleScore(score=Score(value={"x": 1.0}), sample_id="c", sample_metadata={"g": 2})
    alone = key_means(["x"], intervals=["x"])([one])
    assert math.isnan(alone["x_ci_lower"]) and math.isnan(alone["x_ci_upper"])
    one_cluster = key_means(["x"], cluster="g", intervals=["x"])([one, two])
    assert math.isnan(one_cluster["x_ci_lower"])  # two cases, but one cluster
    agree = key_means(["x"], cluster="g", intervals=["x"])([one, two, three])
    assert (agree["x_ci_lower"], agree["x_ci_upper"]) == (1.0, 1.0)


def test_only_the_named_keys_get_intervals_and_an_unknown_one_is_refused():
    result = key_means(["x", "y"], intervals=["x"])(clustered_scores(clusters=10))
    assert "x_ci_lower" in result and not any(name.startswith("y_ci") for name in result)
    before_any = key_means(["x", "y"], intervals=["x"])([])
    assert {"x_ci_lower", "x_ci_upper"} <= set(before_any)
    with pytest.raises(ValueError, match=r"intervals for keys it does not report: \['z'\]"):
        key_means(["x"], intervals=["z"])


# (task, task args, model, roles, epochs, the report row of the whole run, keys with intervals)
RUNS = (
    (
        "selfdx/safe_psych",
        {},
        "selfdx/keyword",
        {"grader": "selfdx/rules-judge"},
        2,
        "sequential_info_abstention_aware",
        SAFE_PSYCH_KEYS,
    ),
    ("selfdx/mentalbench", {}, "selfdx/first-option", {}, 1, "all types", ("accuracy",)),
    (
        "selfdx/interview",
        {},
        "selfdx/kg-interviewer",
        {},
        1,
        "interview, types 1,2, patient selfdx/kg-patient",
        INTERVIEW_KEYS,
    ),
)


@pytest.fixture(scope="module")
def runs_and_report(tmp_path_factory):
    """One run of each task on its demo data (offline models) and one report over them."""
    log_dir = tmp_path_factory.mktemp("logs")
    logs = {}
    for task, args, model, roles, epochs, *_ in RUNS:
        (log,) = eval(
            task,
            task_args=args,
            model=model,
            model_roles=roles or None,
            epochs=epochs,
            display="none",
            log_dir=str(log_dir),
        )
        assert log.status == "success", log.error
        logs[task] = log
    out = tmp_path_factory.mktemp("report")
    build_report(log_dir, out, progress=False)
    return logs, out


@pytest.mark.slow
@pytest.mark.parametrize("run", RUNS, ids=[run[0] for run in RUNS])
def test_each_tasks_log_interval_agrees_with_its_report_row(runs_and_report, run):
    """Safe-Psych over two epochs (a case's epochs averaged before the bootstrap, in both),
    MentalBench and the interview by seed profile."""
    task, *_, row_name, keys = run
    logs, out = runs_and_report
    log = logs[task]
    table = pd.read_csv(out / f"{task.removeprefix('selfdx/')}_metrics.csv")
    rows = table[table.variant == row_name].set_index("metric")
    for key in keys:
        low, high = metric_value(log, key, "ci_lower"), metric_value(log, key, "ci_upper")
        row = rows.loc[key]
        assert metric_value(log, key) == pytest.approx(row.value), key
        if row.ci_low == row.ci_high:  # every case (or seed profile) agrees: a point
            assert (low, high) == (row.ci_low, row.ci_high), key
            continue
        se = metric_value(log, key, "stderr")
        assert (low, high) == pytest.approx((row.ci_low, row.ci_high), abs=AGREE * se), (
            key,
            (low, high),
            (row.ci_low, row.ci_high),
            se,
        )
