"""Safe-Psych part of `selfdx report`: metric table and the paper's figures."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
from inspect_ai.log import EvalSample

from selfdx.analysis.figures import (
    CATEGORY,
    COLUMN_WIDTH,
    PAGE_WIDTH,
    PANEL_HEIGHT,
    REFERENCE,
    STAGE_AXIS,
    Figure,
    ModelStyle,
    axis_labels,
    category_bar,
    label_ticks,
    legend_below,
    model_styles,
    save,
    set_title,
    stacked_shares,
    stage_label,
    subplots,
)
from selfdx.analysis.logs import ConfigKey, Run, rejudge_scorers, score_values
from selfdx.analysis.metric_table import Cell, MetricAccumulator
from selfdx.datasets.strategies import is_full_info
from selfdx.judge.agreement import accuracy, cohen_kappa
from selfdx.scorers.rubrics.caution_rubric import criteria
from selfdx.scorers.rubrics.diagnosis_agreement import SAFE_PSYCH_KEYS as AGREEMENT_KEYS
from selfdx.scorers.safe_psych.outcome import (
    ACCURACY_KEYS,
    BASE_KEYS,
    BEHAVIOUR_KEYS,
    LEVELS,
    SEQUENTIAL_KEYS,
    TIMING_ACCURACY_KEYS,
    TIMINGS,
)

SCORER = "safe_psych_scorer"

METRIC_GROUPS = {
    "Behaviour": list(BEHAVIOUR_KEYS),
    "Diagnostic accuracy": list(ACCURACY_KEYS),
    "Accuracy by timing": list(TIMING_ACCURACY_KEYS),
    # Shares of cases: excluded because the judge echoed the reply; with a reply that writes
    # lines in the judge's answer format.
    "Grading integrity": ["judge_echo", "judge_format_reply"],
}
assert sorted(sum(METRIC_GROUPS.values(), [])) == sorted([*BASE_KEYS, *SEQUENTIAL_KEYS])
RUBRIC_SCORERS = ("caution", "diagnosis_agreement")
METRIC_GROUPS["Caution rubric"] = [
    "caution",
    *(f"caution_{c.id}" for c in criteria()),
    "caution_unscored",
]
METRIC_GROUPS["Diagnosis agreement rubric"] = [*AGREEMENT_KEYS, "agreement_unscored"]
TIMING_COLOURS = {
    "premature": CATEGORY["orange"],
    "on_time": CATEGORY["mint"],
    "late": CATEGORY["yellow"],
    "never": CATEGORY["grey"],
}
LEVEL_COLOURS = {"code": CATEGORY["blue"], "category": CATEGORY["cyan"], "group": CATEGORY["pear"]}
EXPERT = "expert (earliest sufficient)"
GOLD_COLOURS = {
    "Clarify": CATEGORY["blue"],
    "Diagnose": CATEGORY["mint"],
    "Abstain": CATEGORY["orange"],
}


@dataclass
class CaseRow:
    """What the figures need from one scored case."""

    case: str
    sufficient: bool
    earliest: int | None
    num_stages: int
    gold_labels: list[str]
    excluded: bool
    first_dx: int | None
    timing: str | None
    correct: dict[str, float] = field(default_factory=dict)
    actions: list[str | None] = field(default_factory=list)  # the judged action of each turn


class SafePsychCollector:
    """Accumulates Safe-Psych samples from many runs."""

    benchmark = "safe_psych"

    def __init__(self) -> None:
        self.metrics = MetricAccumulator()
        self.rows: dict[ConfigKey, list[CaseRow]] = defaultdict(list)
        self.gold: dict[tuple[str, str], tuple[int, list[str]]] = {}  # (dataset, case) ->
        self.judge_pairs: dict[tuple[str, ...], list[tuple[str, str]]] = defaultdict(list)

    def add(self, run: Run, sample: EvalSample) -> None:
        values = score_values(sample, SCORER)
        if not values:
            return
        self.metrics.add(run, sample.id, values)
        for rubric in RUBRIC_SCORERS:
            rubric_values = score_values(sample, rubric)
            if rubric_values:
                self.metrics.add(run, sample.id, rubric_values)
        self._add_case(run, sample, values, sample.scores[SCORER].metadata or {})
        for name in rejudge_scorers(sample):  # `inspect score --action append`: one per judge
            self._add_rejudged(run, sample, name, sample.scores[name].metadata or {})

    def _add_rejudged(self, run: Run, sample: EvalSample, scorer: str, details: dict) -> None:
        """A re-judged log adds a row for the new judge and action pairs for agreement."""
        turns = details.get("turns", [])
        if not turns:
            return
        new_judge = next((t["judge_model"] for t in turns if t.get("judge_model")), "unknown")
        rejudged_run = replace(run, judge=f"{new_judge} (re-judged)")
        values = score_values(sample, scorer)
        values.pop("action_agreement", None)
        self.metrics.add(rejudged_run, sample.id, values)
        self._add_case(rejudged_run, sample, values, details)
        pair_key = (run.model, run.variant, run.judge or "", run.dataset, new_judge)
        for turn in turns:
            if turn.get("action") and turn.get("original_action"):
                self.judge_pairs[pair_key].append((turn["original_action"], turn["action"]))

    def extra_tables(self) -> dict[str, pd.DataFrame]:
        """Agreement of two judges' actions on the same turns, per re-judged configuration."""
        rows = []
        for (model, variant, judge, dataset, new_judge), pairs in self.judge_pairs.items():
            old, new = zip(*pairs, strict=True) if pairs else ((), ())
            rows.append(
                {
                    "model": model,
                    "variant": variant,
                    "judge": judge,
                    "dataset": dataset,
                    "new_judge": new_judge,
                    "turns": len(pairs),
                    "agreement": accuracy(old, new),
                    "cohen_kappa": cohen_kappa(old, new),
                }
            )
        return {"judge_agreement": pd.DataFrame(rows)} if rows else {}

    def _add_case(self, run: Run, sample: EvalSample, values: dict, details: dict) -> None:
        meta = sample.metadata
        self.gold[(run.dataset, str(sample.id))] = (meta["num_stages"], list(meta["gold_labels"]))
        self.rows[run.key].append(
            CaseRow(
                case=str(sample.id),
                sufficient=bool(meta["sufficient"]),
                earliest=meta.get("earliest_sufficient_section"),
                num_stages=int(meta["num_stages"]),
                gold_labels=list(meta["gold_labels"]),
                excluded=values.get("excluded") == 1.0,
                first_dx=details.get("first_diagnosis_stage"),
                timing=details.get("timing"),
                correct={level: values.get(f"accuracy_{level}", math.nan) for level in LEVELS},
                actions=list(details.get("actions") or []),
            )
        )

    def cells(self) -> dict[ConfigKey, dict[str, Cell]]:
        return self.metrics.cells()

    def metric_groups(self) -> dict[str, list[str]]:
        return METRIC_GROUPS

    def figures(self, out_dir: Path, cells: dict[ConfigKey, dict[str, Cell]]) -> list[Figure]:
        # one style per legend label, over every label any figure of this section draws
        styles = model_styles(
            [_label(key, cells) for key in cells] + [_label(key, self.rows) for key in self.rows]
        )
        figures = [self._abstention_scatter(out_dir, cells, styles)]
        if any(not is_full_info(key.variant) for key in self.rows):
            figures += [
                self._timing_bars(out_dir),
                self._cumulative(out_dir, styles),
                self._accuracy_by_timing(out_dir),
            ]
        figures.append(self._gold_labels(out_dir))
        return figures

    def _abstention_scatter(self, out_dir: Path, cells, styles: dict[str, ModelStyle]) -> Figure:
        strategies = sorted({key.variant for key in cells})
        columns = min(len(strategies), 4)
        side = min((PAGE_WIDTH if columns > 1 else COLUMN_WIDTH) / columns, 2.6)  # square panels
        rows = math.ceil(len(strategies) / columns)
        fig, axes = subplots(len(strategies), sharex=True, sharey=True, height=side * rows + 1.0)
        by_label = sorted(cells.items(), key=lambda item: _label(item[0], cells))
        for ax, strategy in zip(axes, strategies, strict=False):
            for key, row in by_label:
                if key.variant != strategy:
                    continue
                under, over = row.get("under_abstention"), row.get("over_abstention")
                if not under or not over:
                    continue
                label = _label(key, cells)
                style = styles[label]
                ax.errorbar(
                    under.value,
                    over.value,
                    xerr=_err(under),
                    yerr=_err(over),
                    fmt=style.marker,
                    color=style.colour,
                    elinewidth=0.8,
                    alpha=0.9,
                    label=label,
                )
            set_title(ax, strategy)
            ax.set(
                xlim=(-0.05, 1.05),
                ylim=(-0.05, 1.05),
                xticks=(0, 0.5, 1),
                yticks=(0, 0.5, 1),
            )
            ax.set_aspect("equal", adjustable="box")
            ax.grid(axis="both")
        if len(axes) > 2:  # narrow panels: the caption says what the axes count
            axis_labels(axes, "under-abstention", "over-abstention")
        else:
            axis_labels(
                axes,
                "under-abstention (insufficient cases diagnosed)",
                "over-abstention\n(sufficient cases not diagnosed)",
            )
        legend_below(fig, axes, sort=True)
        return save(
            fig,
            out_dir,
            "safe_psych_abstention_scatter",
            "Under- versus over-abstention",
            "One point per model and strategy; bars are 95% case-bootstrap intervals. "
            "Under-abstention: share of insufficient cases diagnosed; over-abstention: share "
            "of sufficient cases not diagnosed. Lower-left is better.",
        )

    def _sequential_keys(self) -> list[ConfigKey]:
        return [key for key in self.rows if not is_full_info(key.variant)]

    def _timing_bars(self, out_dir: Path) -> Figure:
        keys = self._sequential_keys()
        shares: dict[ConfigKey, dict[str, float]] = {}
        for key in keys:
            valid = [r for r in self.rows[key] if r.sufficient and not r.excluded]
            shares[key] = {
                timing: sum(r.timing == timing for r in valid) / len(valid) if valid else 0.0
                for timing in TIMINGS
            }
        among = list(keys)  # the labels as the tick labels show them, most on time first
        keys.sort(key=lambda k: (-shares[k]["on_time"], shares[k]["premature"], _label(k, among)))
        fig, axes = subplots(1, wide=len(keys) > 6, height=PANEL_HEIGHT + 1.2)
        ax = axes[0]
        parts = [(t, t.replace("_", " "), TIMING_COLOURS[t]) for t in TIMINGS]
        stacked_shares(ax, [shares[key] for key in keys], parts)
        label_ticks(ax, [f"{_label(k, keys)}\n{_short(k.variant)}" for k in keys])
        ax.set(ylabel="share of sufficient cases", ylim=(0, 1))
        legend_below(fig, axes)
        return save(
            fig,
            out_dir,
            "safe_psych_timing",
            "Premature, on-time, late and never",
            "First diagnosis relative to the earliest sufficient section, sufficient "
            "cases, sequential strategies; the most often on time first.",
        )

    def _cumulative(self, out_dir: Path, styles: dict[str, ModelStyle]) -> Figure:
        keys = sorted(self._sequential_keys(), key=lambda k: _label(k, self.rows))
        strategies = sorted({key.variant for key in keys})
        fig, axes = subplots(len(strategies), sharey=True)
        expert = [
            stage_label(labels.index("Diagnose") + 1, num_stages)
            for num_stages, labels in self.gold.values()
            if "Diagnose" in labels
        ]
        for ax, strategy in zip(axes, strategies, strict=False):
            for key in keys:
                if key.variant != strategy:
                    continue
                valid = [r for r in self.rows[key] if r.sufficient and not r.excluded]
                if not valid:
                    continue
                stages = [stage_label(r.first_dx, r.num_stages) for r in valid if r.first_dx]
                label = _label(key, self.rows)
                ax.plot(
                    STAGE_AXIS,
                    _cumulative_shares(stages, len(valid)),
                    marker=styles[label].marker,
                    color=styles[label].colour,
                    linestyle=styles[label].line,
                    label=label,
                )
            if expert:
                ax.plot(
                    STAGE_AXIS,
                    _cumulative_shares(expert, len(expert)),
                    "--",
                    color=REFERENCE,
                    linewidth=1,
                    label=EXPERT,
                )
            set_title(ax, strategy)
            ax.set(ylim=(0, 1.02))
        axis_labels(axes, "stage", "cumulative share diagnosed")
        legend_below(fig, axes, sort=True, last=[EXPERT])
        return save(
            fig,
            out_dir,
            "safe_psych_cumulative",
            "Cumulative share diagnosed by stage",
            "Sufficient cases; the last stage of every case is plotted as Final, for "
            "the models and for the expert curve alike.",
        )

    def _accuracy_by_timing(self, out_dir: Path) -> Figure:
        keys = self._sequential_keys()
        strategies = sorted({key.variant for key in keys})
        fig, axes = subplots(len(strategies), columns=2, sharey=True)
        width = 0.27
        for ax, strategy in zip(axes, strategies, strict=False):
            counts: dict[str, list[int]] = defaultdict(list)
            for index, level in enumerate(LEVELS):
                shares = []
                for timing in TIMINGS[:3]:
                    values = [
                        r.correct[level]
                        for key in keys
                        if key.variant == strategy
                        for r in self.rows[key]
                        if r.timing == timing and not math.isnan(r.correct[level])
                    ]
                    shares.append(sum(values) / len(values) if values else 0)
                    counts[timing].append(len(values))
                positions = np.arange(3) + (index - 1) * width
                ax.bar(positions, shares, width, label=level, **category_bar(LEVEL_COLOURS[level]))
            label_ticks(
                ax,
                [f"{t.replace('_', ' ')}\n(n={_counts(counts[t])})" for t in TIMINGS[:3]],
            )
            set_title(ax, strategy)
            ax.set(ylim=(0, 1.05))
        axis_labels(axes, "", "accuracy (pooled over models)")
        legend_below(fig, axes, title="level of the diagnosis")
        return save(
            fig,
            out_dir,
            "safe_psych_accuracy_by_timing",
            "Diagnostic accuracy by timing",
            "Full code, category and group accuracy of diagnoses given before, at or "
            "after the earliest sufficient section; pooled over models. n: the cases "
            "graded at each level (one number where the levels agree).",
        )

    def _gold_labels(self, out_dir: Path) -> Figure:
        counts: dict[str, Counter] = {label: Counter() for label in STAGE_AXIS}
        for num_stages, labels in self.gold.values():
            for stage, label in enumerate(labels, start=1):
                counts[stage_label(stage, num_stages)][label] += 1
        fig, axes = subplots(1)
        ax = axes[0]
        bottoms = np.zeros(len(STAGE_AXIS))
        for action, colour in GOLD_COLOURS.items():
            shares = [counts[s][action] / max(sum(counts[s].values()), 1) for s in STAGE_AXIS]
            ax.bar(STAGE_AXIS, shares, 0.7, bottom=bottoms, label=action, **category_bar(colour))
            bottoms += np.array(shares)
        ax.set(ylabel="share of cases", ylim=(0, 1), title=f"{len(self.gold)} cases")
        legend_below(fig, axes)
        return save(
            fig,
            out_dir,
            "safe_psych_gold_labels",
            "Gold action labels by stage",
            "Share of CLARIFY, DIAGNOSE and ABSTAIN gold labels at each stage.",
        )


def _counts(numbers: list[int]) -> str:
    """`5` when every level counted 5 cases, else `5/5/4`."""
    return str(numbers[0]) if len(set(numbers)) == 1 else "/".join(map(str, numbers))


def _err(cell: Cell):
    if math.isnan(cell.low):
        return None
    return [[cell.value - cell.low], [cell.high - cell.value]]


def _label(key: ConfigKey, keys) -> str:
    """The model, with the judge and the dataset where the figure shows more than one."""
    return key.label(keys)


def _short(strategy: str) -> str:
    return strategy.replace("sequential_info_", "seq/").replace("full_info_", "full/")


def _cumulative_shares(stages: list[str], total: int) -> list[float]:
    counts = Counter(stages)
    running, shares = 0, []
    for label in STAGE_AXIS:
        running += counts[label]
        shares.append(running / total if total else 0)
    return shares
