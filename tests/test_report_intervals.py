"""`selfdx report`'s intervals against their documented definitions (docs/reports.md), recomputed
here from the logs' per-sample scores:

- a 95% percentile bootstrap (2,000 resamples, `scipy.stats.bootstrap`, the fixed seed) that
  resamples cases, a case's epochs (and runs) averaged first;
- MentalBench: the same bootstrap over seed profiles, of the ratio of totals;
- over seeds (runs): mean +- t(0.975, n - 1) * sd / sqrt(n), clipped to [0, 1].

A bootstrap is not invariant under a permutation of its units, so the units are taken in the
order the report meets them: the runs in `runs.csv` order, each run's samples in dataset order.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import GenerateConfig, get_model
from scipy import stats

from selfdx.analysis.report import build_report
from selfdx.analysis.statistics import (
    BOOTSTRAP_SEED,
    bootstrap_interval,
    case_means,
    ratio_bootstrap_interval,
    t_interval,
)
from tests.conftest import metric_value, mock_output

LEVEL = 0.95  # documented
RESAMPLES = 2000  # documented
SEED = BOOTSTRAP_SEED  # "a fixed seed": its value is the package's
EPOCHS_MODEL = "mockllm/epochs"  # one run, two epochs
SEEDS_MODEL = "mockllm/seeds"  # three runs, one epoch each
LETTERS_MODEL = "mockllm/letters"  # MentalBench: three runs
RUN_SEEDS = (1, 2, 3)
MB_RATES = ("accuracy", "over_diagnosis", "under_diagnosis", "incorrect", "unparsed")
CODES = ("F32.1", "F33.2", "F41.1", "F20.0", "F10.2")


def structured_subject(seed: int):
    """A structured-actions subject whose every reply is drawn from a hash of the seed, the
    conversation and how often it has seen that conversation (so two epochs of a case differ):
    DIAGNOSE with one of a few codes, ABSTAIN or CLARIFY."""
    seen: Counter = Counter()

    def reply(messages, *_):
        history = tuple(m.text for m in messages)
        draw = hashlib.sha256(repr((seed, history, seen[history])).encode()).digest()
        seen[history] += 1
        kind = draw[0] % 3
        if kind == 0:
            return mock_output(f"DIAGNOSE: a disorder ({CODES[draw[1] % len(CODES)]})")
        return mock_output("ABSTAIN" if kind == 1 else "CLARIFY\nHow long has it lasted?")

    return reply


def letter_subject(seed: int):
    """A MentalBench subject whose answer (one or two option letters) is a hash of the seed
    and the prompt."""
    answers = ("A.", "B.", "C.", "D.", "A & C", "B & D")

    def reply(messages, *_):
        draw = hashlib.sha256(repr((seed, messages[-1].text)).encode()).digest()
        return mock_output(answers[draw[0] % len(answers)])

    return reply


def percentile_interval(
    samples: tuple[np.ndarray, ...], statistic: Callable, level: float = LEVEL
) -> tuple[float, float]:
    """scipy's percentile bootstrap, called here directly (paired when several arrays)."""
    result = stats.bootstrap(
        samples,
        statistic,
        paired=len(samples) > 1,
        vectorized=True,
        confidence_level=level,
        n_resamples=RESAMPLES,
        method="percentile",
        random_state=np.random.default_rng(SEED),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def mean_interval(values: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """Interval of the mean of one value per unit; none below two units, zero width when
    every unit has the same value."""
    if len(values) < 2:
        return math.nan, math.nan
    if np.all(values == values[0]):
        return float(values[0]), float(values[0])
    return percentile_interval((values,), lambda x, axis: x.mean(axis=axis), level)


def ratio_interval(num: np.ndarray, den: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """Interval of sum(num) / sum(den), each unit's numerator and denominator kept together;
    zero width when every unit has the pooled ratio."""
    if len(num) < 2 or den.sum() == 0:
        return math.nan, math.nan
    point = num.sum() / den.sum()
    if np.allclose(num, point * den):
        return float(point), float(point)

    def ratio(n, d, axis):
        return n.sum(axis=axis) / d.sum(axis=axis)

    return percentile_interval((num, den), ratio, level)


def t_over_runs(
    values: list[float], quantile: Callable | None = None
) -> tuple[float, float, float, bool]:
    """Mean over runs, mean +- t(0.975, n - 1) * sd / sqrt(n) cut to [0, 1], and whether it
    was cut (`quantile(n)` replaces the t quantile, to show that another is told apart)."""
    x = np.array([v for v in values if not math.isnan(v)], dtype=float)
    if len(x) < 2:  # no interval (no mean either without a value)
        return (float(x.mean()) if len(x) else math.nan), math.nan, math.nan, False
    n, mean = len(x), float(x.mean())
    sd = math.sqrt(float(((x - mean) ** 2).sum()) / (n - 1))
    q = stats.t.ppf(0.975, n - 1) if quantile is None else quantile(n)
    low, high = mean - q * sd / math.sqrt(n), mean + q * sd / math.sqrt(n)
    return mean, max(low, 0.0), min(high, 1.0), low < 0 or high > 1


def report_order(report: Path, log_dir: Path) -> list[EvalLog]:
    """Every log, in the order of `runs.csv`, its samples in dataset order and by epoch."""
    names = pd.read_csv(report / "runs.csv").log.tolist()
    logs = []
    for name in names:
        log = read_eval_log(str(next(log_dir.rglob(name))))
        order = {sample_id: i for i, sample_id in enumerate(log.eval.dataset.sample_ids)}
        log.samples.sort(key=lambda s: (order[s.id], s.epoch))
        logs.append(log)
    return logs


def same(got: float, expected: float) -> bool:
    if math.isnan(expected):
        return pd.isna(got)
    return got == pytest.approx(expected, abs=1e-9)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """Safe-Psych (structured actions, scripted subjects): one run with two epochs and three
    runs with seeds; MentalBench (a scripted subject): three runs with seeds. One report over
    all of them."""
    log_dir = tmp_path_factory.mktemp("logs")
    model = get_model(EPOCHS_MODEL, custom_outputs=structured_subject(7), memoize=False)
    runs = [(model, 2)]
    for seed in RUN_SEEDS:
        config = GenerateConfig(seed=seed)
        reply = structured_subject(seed)
        runs.append((get_model(SEEDS_MODEL, config=config, custom_outputs=reply), 1))
    for model, epochs in runs:
        (log,) = eval(
            "selfdx/safe_psych",
            task_args={"strategy": "structured_actions"},
            model=model,
            epochs=epochs,
            display="none",
            log_dir=str(log_dir),
        )
        assert log.status == "success", log.error
    for seed in RUN_SEEDS:
        config = GenerateConfig(seed=seed)
        (log,) = eval(
            "selfdx/mentalbench",
            model=get_model(LETTERS_MODEL, config=config, custom_outputs=letter_subject(seed)),
            display="none",
            log_dir=str(log_dir),
        )
        assert log.status == "success", log.error
    out = tmp_path_factory.mktemp("report")
    build_report(log_dir, out, progress=False)
    return out, report_order(out, log_dir)


def safe_psych_values(logs: list[EvalLog], model: str) -> dict[str, list[tuple[object, float]]]:
    """Per metric: (case, value) of every sample of the model's runs, NaN left out."""
    found: dict[str, list[tuple[object, float]]] = defaultdict(list)
    for log in logs:
        if log.eval.model != model:
            continue
        for sample in log.samples:
            for key, value in sample.scores["safe_psych_scorer"].value.items():
                found.setdefault(key, [])
                if not math.isnan(value):
                    found[key].append((sample.id, float(value)))
    return found


def per_case_means(pairs: list[tuple[object, float]]) -> np.ndarray:
    cases: dict[object, list[float]] = defaultdict(list)
    for case, value in pairs:
        cases[case].append(value)
    return np.array([np.mean(v) for v in cases.values()])


def rows_of(report: Path, benchmark: str, model: str) -> pd.DataFrame:
    table = pd.read_csv(report / f"{benchmark}_metrics.csv")
    return table[table.model == model].set_index(["variant", "metric"])


def check_case_bootstrap(report: Path, logs: list[EvalLog], model: str) -> dict[str, dict]:
    """Every metric row of `model`: value and interval from per-case means; returns, per
    metric, the intervals a 90% level and a bootstrap of samples would give instead."""
    rows = rows_of(report, "safe_psych", model)
    values = safe_psych_values(logs, model)
    assert set(rows.index.get_level_values("metric")) == set(values)
    others = {}
    for metric, pairs in values.items():
        row = rows.loc[("structured_actions", metric)]
        means = per_case_means(pairs)
        low, high = mean_interval(means)
        assert row.n_cases == len(means), metric
        assert same(row.value, means.mean() if len(means) else math.nan), metric
        assert same(row.ci_low, low) and same(row.ci_high, high), (metric, row, low, high)
        others[metric] = {
            "expected": (low, high),
            "level 0.90": mean_interval(means, 0.90),
            "samples": mean_interval(np.array([v for _, v in pairs])),
        }
    return others


def told_apart(others: dict[str, dict], name: str) -> bool:
    """Whether the data tell the interval `name` from the expected one, for some metric."""
    return any(
        not np.allclose(entry[name], entry["expected"], atol=1e-6, equal_nan=True)
        for entry in others.values()
    )


@pytest.mark.slow
def test_case_bootstrap_averages_a_cases_epochs_first(report):
    out, logs = report
    (log,) = [log for log in logs if log.eval.model == EPOCHS_MODEL]
    assert log.eval.config.epochs == 2 and len(log.samples) == 2 * len(log.eval.dataset.sample_ids)
    others = check_case_bootstrap(out, logs, EPOCHS_MODEL)
    # the data tell a 90% interval, and a bootstrap of samples, from the expected one
    assert told_apart(others, "level 0.90") and told_apart(others, "samples")
    # a single run: the point value is the metric Inspect printed (epochs averaged per case)
    rows = rows_of(out, "safe_psych", EPOCHS_MODEL)
    for metric in ("under_abstention", "over_abstention", "accuracy_group", "never"):
        assert same(rows.loc[("structured_actions", metric)].value, metric_value(log, metric))


@pytest.mark.slow
def test_seed_interval_is_student_t_over_runs_and_the_case_bootstrap_pools_them(report):
    out, logs = report
    runs = [log for log in logs if log.eval.model == SEEDS_MODEL]
    assert sorted(log.eval.model_generate_config.seed for log in runs) == [*RUN_SEEDS]
    others = check_case_bootstrap(out, logs, SEEDS_MODEL)  # a case's three runs averaged
    assert told_apart(others, "samples")
    rows = rows_of(out, "safe_psych", SEEDS_MODEL)
    z_differs = False
    for metric in others:
        per_run = []
        for log in runs:
            kept = [s.scores["safe_psych_scorer"].value[metric] for s in log.samples]
            kept = [v for v in kept if not math.isnan(v)]
            per_run.append(sum(kept) / len(kept) if kept else math.nan)
        row = rows.loc[("structured_actions", metric)]
        mean, low, high, clipped = t_over_runs(per_run)
        assert row.runs == len(RUN_SEEDS)
        assert same(row.seed_mean, mean) and same(row.seed_ci_low, low), (metric, row)
        assert same(row.seed_ci_high, high) and bool(row.seed_ci_clipped) == clipped, (metric, row)
        z = t_over_runs(per_run, lambda n: stats.norm.ppf(0.975))[:3]
        z_differs |= not np.allclose(z, (mean, low, high), atol=1e-6, equal_nan=True)
        if metric in ("under_abstention", "over_abstention", "never"):
            # each run's value is the metric Inspect printed for it
            assert per_run == pytest.approx([metric_value(log, metric) for log in runs])
    assert z_differs  # a normal quantile would give another interval on these data


def mentalbench_parts(logs: list[EvalLog]):
    """Per row (`all types`, `all types · Type N`) and metric: numerator and denominator per
    seed profile (pooled over runs, in order of first appearance) and per run."""
    clusters: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(lambda: [0.0, 0.0])))
    runs: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(lambda: [0.0, 0.0])))
    items: dict = defaultdict(lambda: defaultdict(list))
    for log in logs:
        if log.eval.model != LETTERS_MODEL:
            continue
        for sample in log.samples:
            value = sample.scores["mentalbench_scorer"].value
            hit = value["letters_hit"]
            parts = {rate: (value[rate], 1.0) for rate in MB_RATES}
            parts["precision"] = (hit, value["letters_predicted"])
            parts["recall"] = (hit, value["letters_gold"])
            parts["f1"] = (2 * hit, value["letters_predicted"] + value["letters_gold"])
            profile = sample.metadata["seed_group"]
            for row in ("all types", f"all types · Type {sample.metadata['type']}"):
                for metric, (num, den) in parts.items():
                    for store, unit in ((clusters, profile), (runs, log.location)):
                        store[row][metric][unit][0] += num
                        store[row][metric][unit][1] += den
                    items[row][metric].append((num, den))
    return clusters, runs, items


@pytest.mark.slow
def test_mentalbench_bootstraps_seed_profiles_and_gives_a_t_interval_over_seeds(report):
    out, logs = report
    rows = rows_of(out, "mentalbench", LETTERS_MODEL)
    clusters, runs, items = mentalbench_parts(logs)
    assert set(rows.index) == {(row, metric) for row in clusters for metric in clusters[row]}
    item_differs = level_differs = z_differs = False
    for (variant, metric), row in rows.iterrows():
        parts = np.array(list(clusters[variant][metric].values()))
        num, den = parts[:, 0], parts[:, 1]
        low, high = ratio_interval(num, den)
        assert row.n_cases == len(parts), (variant, metric)
        assert same(row.value, num.sum() / den.sum()), (variant, metric)
        assert same(row.ci_low, low) and same(row.ci_high, high), (variant, metric, low, high)
        per_run = [n / d for n, d in runs[variant][metric].values()]
        mean, t_low, t_high, clipped = t_over_runs(per_run)
        assert row.runs == len(RUN_SEEDS)
        assert same(row.seed_mean, mean) and same(row.seed_ci_low, t_low), (variant, metric)
        assert same(row.seed_ci_high, t_high), (variant, metric)
        assert bool(row.seed_ci_clipped) == clipped, (variant, metric)
        single = np.array(items[variant][metric])
        by_item = ratio_interval(single[:, 0], single[:, 1])
        close = np.allclose(by_item, (low, high), atol=1e-6, equal_nan=True)
        item_differs |= not close
        at_90 = ratio_interval(num, den, 0.90)
        level_differs |= not np.allclose(at_90, (low, high), atol=1e-6, equal_nan=True)
        z = t_over_runs(per_run, lambda n: stats.norm.ppf(0.975))[:3]
        z_differs |= not np.allclose(z, (mean, t_low, t_high), atol=1e-6, equal_nan=True)
    # the seed runs differ, and the data tell the alternatives apart
    overall = [n / d for n, d in runs["all types"]["accuracy"].values()]
    assert len(set(overall)) > 1
    mentalbench_runs = [log for log in logs if log.eval.model == LETTERS_MODEL]
    assert overall == pytest.approx([metric_value(log, "accuracy") for log in mentalbench_runs])
    assert item_differs and level_differs and z_differs


def resampled(statistic: Callable, arrays: tuple[np.ndarray, ...], level: float = LEVEL):
    """The percentile bootstrap written out with numpy alone: 2,000 draws of n unit indices
    with replacement (a Generator seeded as the report's), the statistic of each, and the
    (1 - level) / 2 and (1 + level) / 2 percentiles of those."""
    n = len(arrays[0])
    index = np.random.default_rng(SEED).integers(0, n, (RESAMPLES, n))
    values = statistic(*(array[index] for array in arrays))
    return tuple(np.percentile(values, [50 * (1 - level), 50 * (1 + level)]))


def test_statistics_functions_against_the_definitions():
    """The functions behind the report, on small data, against the definitions written out."""
    per_case = {"a": (1, 0, 1), "b": (1, 1, 1), "c": (0, 0, 1), "d": (0, 0, 0), "e": (1, 1, 0)}
    per_case["f"] = (0, 1, 0)
    epochs = [(case, float(v[epoch])) for epoch in range(3) for case, v in per_case.items()]
    means = case_means(epochs)
    assert means == pytest.approx([2 / 3, 1, 1 / 3, 0, 2 / 3, 1 / 3])  # in order of appearance
    expected = resampled(lambda x: x.mean(axis=1), (means,))
    assert bootstrap_interval(means) == pytest.approx(expected, abs=1e-12)
    samples = np.array([v for _, v in epochs])
    assert resampled(lambda x: x.mean(axis=1), (samples,)) != pytest.approx(expected)
    assert resampled(lambda x: x.mean(axis=1), (means,), 0.90) != pytest.approx(expected)

    hits, items = np.array([1.0, 0.0, 2.0, 3.0, 1.0, 2.0]), np.array([2.0, 1.0, 3.0, 3.0, 2.0, 5.0])
    expected = resampled(lambda n, d: n.sum(axis=1) / d.sum(axis=1), (hits, items))
    assert ratio_bootstrap_interval(hits, items) == pytest.approx(expected, abs=1e-12)

    runs = [0.62, 0.70, 0.55, 0.66]
    sd = math.sqrt(sum((x - 0.6325) ** 2 for x in runs) / 3)
    half = 3.182446305284263 * sd / 2  # t(0.975, 3), sqrt(4)
    assert stats.t.ppf(0.975, 3) == pytest.approx(3.182446305284263)
    assert t_interval(runs) == pytest.approx((0.6325, 0.6325 - half, 0.6325 + half))
