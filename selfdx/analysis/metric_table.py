"""Per-configuration metric tables with bootstrap and over-seed intervals."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from selfdx.analysis.logs import KEY_COLUMNS, ConfigKey, Run
from selfdx.analysis.statistics import (
    RATE_RANGE,
    bootstrap_interval,
    case_means,
    clip_to_range,
    ratio_bootstrap_interval,
    t_interval,
)
from selfdx.analysis.viewer_links import links, local_path


@dataclass(frozen=True)
class Cell:
    """One metric of one configuration."""

    value: float
    low: float
    high: float
    n_cases: int
    seed_mean: float = math.nan
    seed_low: float = math.nan
    seed_high: float = math.nan
    runs: int = 1
    seed_clipped: bool = False  # the t interval reached past the metric's range and was cut
    bounds: tuple[float, float] = RATE_RANGE  # the metric's range
    logs: tuple[str, ...] = ()  # the runs (log paths) the cell pools


def seed_cell(
    value: float,
    low: float,
    high: float,
    n_cases: int,
    per_run: list[float],
    bounds: tuple[float, float] = RATE_RANGE,
) -> Cell:
    """A cell with the over-run (seed) interval when there are several runs.

    A metric is a rate in [0, 1] unless its benchmark gives it another range (a count, such as
    the interview's questions, runs from 0 up). The bootstrap interval stays inside by
    construction; the Student-t interval over a few runs can reach past it (three runs at
    0.90, 0.95 and 1.00 give [0.83, 1.07]), so it is clipped to the range and marked as clipped.
    """
    if len(per_run) < 2:
        return Cell(value, low, high, n_cases, runs=len(per_run), bounds=bounds)
    mean, seed_low, seed_high = t_interval(per_run)
    seed_low, seed_high, clipped = clip_to_range(seed_low, seed_high, bounds)
    return Cell(value, low, high, n_cases, mean, seed_low, seed_high, len(per_run), clipped, bounds)


class MetricAccumulator:
    """Collects (case, value) pairs per configuration, per run and per metric."""

    def __init__(self, ranges: dict[str, tuple[float, float]] | None = None) -> None:
        """`ranges`: metrics that are not rates in [0, 1], with their range."""
        self.ranges = ranges or {}
        self.values: dict[ConfigKey, dict[str, list[tuple[object, float]]]] = defaultdict(
            lambda: defaultdict(list)
        )
        # per run: (case, value) pairs, so that a run's value averages a case's epochs first
        self.by_run: dict[ConfigKey, dict[str, dict[str, list[tuple[object, float]]]]] = (
            defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
        )
        self.order: dict[ConfigKey, list[str]] = {}
        self.logs: dict[ConfigKey, dict[str, None]] = defaultdict(dict)  # in order of reading
        # ratio metrics: key -> metric -> case -> [numerator, denominator]; and per run
        self.ratios: dict[ConfigKey, dict[str, dict[object, list[float]]]] = defaultdict(
            lambda: defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
        )
        self.ratio_runs: dict[ConfigKey, dict[str, dict[str, list[float]]]] = defaultdict(
            lambda: defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
        )

    def _key(self, run: Run, group: str | None) -> ConfigKey:
        key = run.key.grouped(group)
        self.logs[key][run.path] = None
        return key

    def add_ratio(
        self,
        run: Run,
        case: object,
        metric: str,
        numerator: float,
        denominator: float,
        group: str | None = None,
    ) -> None:
        """Record one case's share of a ratio of totals (micro precision, recall, F1)."""
        key = self._key(run, group)
        order = self.order.setdefault(key, [])
        if metric not in order:
            order.append(metric)
        for store, index in ((self.ratios, case), (self.ratio_runs, run.path)):
            pair = store[key][metric][index]
            pair[0] += numerator
            pair[1] += denominator

    def add(self, run: Run, case: object, values: dict[str, float], group: str | None = None):
        """Record one sample's per-metric values (NaN = not applicable)."""
        key = self._key(run, group)
        order = self.order.setdefault(key, [])
        for metric, value in values.items():
            if metric not in order:
                order.append(metric)
            self.values[key][metric].append((case, value))
            self.by_run[key][metric][run.path].append((case, value))

    def cells(self) -> dict[ConfigKey, dict[str, Cell]]:
        """Point estimate, 95% case-bootstrap interval and over-run Student-t interval."""
        table: dict[ConfigKey, dict[str, Cell]] = {}
        for key in self.order:
            metrics = self.values.get(key, {})
            table[key] = {}
            for metric in self.order[key]:
                if metric in self.ratios.get(key, {}):
                    table[key][metric] = self._ratio_cell(key, metric)
                    continue
                means = case_means(metrics[metric])
                value = float(means.mean()) if len(means) else math.nan
                low, high = bootstrap_interval(means)
                # each run's metric as Inspect prints it: epochs averaged per case, then cases
                per_run = [
                    float(run_means.mean()) if len(run_means := case_means(pairs)) else math.nan
                    for pairs in self.by_run[key][metric].values()
                ]
                bounds = self.ranges.get(metric, RATE_RANGE)
                cell = seed_cell(value, low, high, len(means), per_run, bounds)
                table[key][metric] = replace(cell, logs=tuple(self.logs[key]))
        return table

    def _ratio_cell(self, key: ConfigKey, metric: str) -> Cell:
        pairs = np.array(list(self.ratios[key][metric].values()), dtype=float)
        numerators, denominators = pairs[:, 0], pairs[:, 1]
        total = denominators.sum()
        value = float(numerators.sum() / total) if total else math.nan
        low, high = ratio_bootstrap_interval(numerators, denominators)
        per_run = [n / d if d else math.nan for n, d in self.ratio_runs[key][metric].values()]
        cell = seed_cell(value, low, high, len(pairs), per_run)
        return replace(cell, logs=tuple(self.logs[key]))


def long_frame(
    cells: dict[ConfigKey, dict[str, Cell]], urls: dict[str, str] | None = None
) -> pd.DataFrame:
    """One row per configuration and metric (the CSV layout), with the logs it pools (file
    names, `; ` between) and, given `urls`, their addresses in `inspect view` (a space
    between)."""
    rows = []
    for key, metrics in cells.items():
        for metric, cell in metrics.items():
            where = {"logs": "; ".join(local_path(p).rsplit("/", 1)[-1] for p in cell.logs)}
            if urls is not None:
                where["log_viewer"] = " ".join(urls[p] for p in cell.logs if p in urls)
            rows.append(
                {
                    "benchmark": key.benchmark,
                    **key.columns(),
                    "metric": metric,
                    "value": cell.value,
                    "ci_low": cell.low,
                    "ci_high": cell.high,
                    "n_cases": cell.n_cases,
                    "runs": cell.runs,
                    "seed_mean": cell.seed_mean,
                    "seed_ci_low": cell.seed_low,
                    "seed_ci_high": cell.seed_high,
                    "seed_ci_clipped": cell.seed_clipped,
                    **where,
                }
            )
    return pd.DataFrame(rows)


def format_cell(cell: Cell) -> str:
    """`0.42 [0.31, 0.55]`, with the over-seed mean and interval when there are several runs."""
    if math.isnan(cell.value):
        return "–"
    text = f"{cell.value:.3f}"
    if not math.isnan(cell.low):
        text += f" [{cell.low:.3f}, {cell.high:.3f}]"
    if cell.runs > 1 and not math.isnan(cell.seed_low):
        text += f"; seeds {cell.seed_mean:.3f} ± t [{cell.seed_low:.3f}, {cell.seed_high:.3f}]"
        if cell.seed_clipped:
            text += f" (clipped to [{cell.bounds[0]:g}, {cell.bounds[1]:g}])"
    return text


def wide_frame(
    cells: dict[ConfigKey, dict[str, Cell]],
    metrics: list[str],
    urls: dict[str, str] | None = None,
) -> pd.DataFrame:
    """One row per configuration, one column per metric, cells as text (Markdown and HTML);
    given `urls`, a `view` column links each row to its logs in `inspect view`."""
    rows = []
    for key, row in cells.items():
        runs = max((cell.runs for cell in row.values()), default=0)
        values = {m: format_cell(row[m]) if m in row else "–" for m in metrics}
        shown = {**key.columns(), "judge": key.judge or "–", "runs": str(runs)}
        if urls is not None:
            logs = [path for cell in row.values() for path in cell.logs]
            shown["view"] = links(urls[p] for p in logs if p in urls) or "–"
        rows.append({**shown, **values})
    view = ["view"] if urls is not None else []
    return pd.DataFrame(rows, columns=[*KEY_COLUMNS, "runs", *view, *metrics])


def wide_markdown(cells: dict[ConfigKey, dict[str, Cell]], metrics: list[str]) -> str:
    """A Markdown table: one row per configuration, one column per metric."""
    return frame_markdown(wide_frame(cells, metrics))


def frame_markdown(frame: pd.DataFrame) -> str:
    """A plain Markdown table of `frame`, floats to three decimals."""

    shown = text_frame(frame)
    lines = ["| " + " | ".join(map(str, shown.columns)) + " |", "|" + "---|" * len(shown.columns)]
    lines += ["| " + " | ".join(row) + " |" for row in shown.itertuples(False)]
    return "\n".join(lines)


def cell_text(value: object) -> str:
    """A table cell as the report prints it: floats to three decimals, `–` for none."""
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.3f}"
    if value is None or value is pd.NA:
        return "–"
    return str(value).replace("|", "/").replace("\n", " ")


def text_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with every cell as the text the report shows (the same in Markdown and HTML)."""
    return frame.astype(object).map(cell_text) if len(frame) else frame.astype(str)
