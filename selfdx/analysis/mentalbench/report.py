"""MentalBench part of `selfdx report`: accuracy, error shares and letter P/R/F1 per type,
and the figures (accuracy by type, models x disorders heatmap, error shares, Type 4 confusions).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
from inspect_ai.log import EvalSample
from matplotlib.ticker import MaxNLocator

from selfdx.analysis.figures import (
    CATEGORY,
    CHAR_WIDTH,
    COLUMN_WIDTH,
    LINE_HEIGHT,
    PANEL_HEIGHT,
    Figure,
    ModelStyle,
    bar_style,
    label_ticks,
    legend_below,
    model_styles,
    save,
    stacked_shares,
    subplots,
    wrap,
)
from selfdx.analysis.logs import ConfigKey, Run, score_values
from selfdx.analysis.metric_table import Cell, MetricAccumulator
from selfdx.datasets.interview.dsm5_flags import UNFLAGGED
from selfdx.datasets.mentalbench.schema import DISORDER_NAMES, LETTERS
from selfdx.scorers.mentalbench.metrics import ERROR_KEYS, LETTER_RATIOS, letter_ratio_parts

SCORER = "mentalbench_scorer"
RATES = ("accuracy", *ERROR_KEYS)
METRIC_GROUPS = {
    "Accuracy and error shares": [*RATES],
    "Letter precision, recall and F1 (micro)": [*LETTER_RATIOS],
    "Free-text answers: agreement mapped by the grader": [
        "agreement",
        "agreement_over_diagnosis",
        "agreement_under_diagnosis",
        "agreement_incorrect",
        "agreement_unscored",
    ],
}
TYPE_LABELS = {1: "Type 1", 2: "Type 2", 3: "Type 3", 4: "Type 4"}
CODE = re.compile(r"D\d{3}")
SPECIFIER = re.compile(r" \([^)]*\)")  # "(Bipolar Type)": left out of crowded labels
CATEGORY_COLOURS = {  # answer categories of the error-share figure, in stacking order
    "correct": CATEGORY["mint"],
    "over_diagnosis": CATEGORY["orange"],
    "under_diagnosis": CATEGORY["blue"],
    "incorrect": CATEGORY["pink"],
    "unparsed": CATEGORY["grey"],
}
assert tuple(CATEGORY_COLOURS) == ("correct", *ERROR_KEYS)


def disorder_names(codes: str) -> str:
    """MentalKG's names of the disorders coded in `codes` (`D001-D005`, `D001 & D005`), joined
    by ` & `; text without codes (`unparsed`, `none`) as it is."""
    found = CODE.findall(codes)
    if not found:
        return codes
    return " & ".join(DISORDER_NAMES.get(code, code) for code in found)


class MentalBenchCollector:
    """Accumulates MentalBench samples from many runs."""

    benchmark = "mentalbench"

    def __init__(self) -> None:
        self.metrics = MetricAccumulator()
        # (model, variant, judge, dataset) -> type -> disorder or pair code -> [correct, total]
        self.per_code: dict[ConfigKey, dict[int, dict[str, list[int]]]] = defaultdict(
            lambda: defaultdict(lambda: defaultdict(lambda: [0, 0]))
        )
        self.categories: dict[ConfigKey, Counter] = defaultdict(Counter)
        self.confusions: dict[ConfigKey, Counter] = defaultdict(Counter)

    def add(self, run: Run, sample: EvalSample) -> None:
        meta = sample.metadata
        type_ = int(meta["type"])
        cluster = meta.get("seed_group", sample.id)
        agreement = score_values(sample, "diagnosis_agreement")
        groups: list[str | None] = [None, TYPE_LABELS[type_]]
        if meta.get("dsm5_flags") == []:  # known (published features) and none
            groups.append(UNFLAGGED)
        for group in groups:
            for name, value in agreement.items():
                if not math.isnan(value):
                    self.metrics.add_ratio(run, cluster, name, value, 1.0, group)
        values = score_values(sample, SCORER)
        if not values:
            return
        rates = {key: values[key] for key in RATES if key in values}
        ratio_parts = letter_ratio_parts(values)
        # The bootstrap resamples seed profiles: the items generated from one profile (its
        # generators and, for Types 3-4, the Type 2 seed they reuse) are not independent.
        for group in groups:
            for name, value in rates.items():
                if not math.isnan(value):
                    self.metrics.add_ratio(run, cluster, name, value, 1.0, group)
            for name, (numerator, denominator) in ratio_parts.items():
                self.metrics.add_ratio(run, cluster, name, numerator, denominator, group)
        config = run.key
        cell = self.per_code[config][type_][meta["code"]]
        cell[0] += int(values["accuracy"] == 1.0)
        cell[1] += 1
        details = sample.scores[SCORER].metadata or {}
        self.categories[config][details.get("category", "unknown")] += 1
        if type_ == 4 and details.get("category") != "correct":
            gold = " & ".join(meta["gold_codes"])
            predicted = details.get("predicted")
            chosen = (
                "unparsed"
                if predicted is None
                else " & ".join(meta["option_codes"][LETTERS.index(letter)] for letter in predicted)
                or "none"
            )
            self.confusions[config][(gold, chosen)] += 1

    def cells(self) -> dict[ConfigKey, dict[str, Cell]]:
        return self.metrics.cells()

    def metric_groups(self) -> dict[str, list[str]]:
        return METRIC_GROUPS

    def extra_tables(self) -> dict[str, pd.DataFrame]:
        """Accuracy per disorder (Types 1-2) or pair (Types 3-4), and Type 4 confusions."""
        rows = [
            {
                **config.columns(),
                "type": type_,
                "code": code,
                "disorder": disorder_names(code),
                "correct": correct,
                "total": total,
                "accuracy": correct / total,
            }
            for config, types in self.per_code.items()
            for type_, codes in sorted(types.items())
            for code, (correct, total) in sorted(codes.items())
        ]
        confusion_rows = [
            {
                **config.columns(),
                "gold": gold,
                "gold_names": disorder_names(gold),
                "predicted": predicted,
                "predicted_names": disorder_names(predicted),
                "count": count,
            }
            for config, counter in self.confusions.items()
            for (gold, predicted), count in counter.most_common()
        ]
        tables = {"by_code": pd.DataFrame(rows)}
        if confusion_rows:
            tables["type4_confusions"] = pd.DataFrame(confusion_rows)
        return tables

    def figures(self, out_dir: Path, cells: dict[ConfigKey, dict[str, Cell]]) -> list[Figure]:
        if not self.per_code:  # free-text runs only: no letter answers to draw
            return []
        figures = [self._accuracy_by_type(out_dir, cells)]
        if any(type_ in codes for codes in self.per_code.values() for type_ in (1, 2)):
            figures.append(self._heatmap(out_dir, cells))  # per disorder: Types 1-2 only
        figures.append(self._error_shares(out_dir))
        if any(self.confusions.values()):
            figures.append(self._confusions(out_dir))
        return figures

    def _configs(self, cells=None) -> list[ConfigKey]:
        """The configurations, best overall accuracy first when `cells` are given."""
        configs = list(self.per_code)
        names = dict(zip(configs, self._names(configs), strict=True))
        if cells is None:
            return sorted(configs, key=names.get)

        def overall(config: ConfigKey) -> float:
            cell = cells.get(config, {}).get("accuracy")
            return -math.inf if cell is None or math.isnan(cell.value) else cell.value

        return sorted(configs, key=lambda c: (-overall(c), names[c]))

    def _names(self, configs: list[ConfigKey] | None = None) -> list[str]:
        """A label per configuration: the model, with what tells alike models apart."""
        among = list(self.per_code)
        return [config.label(among, variant=True) for config in configs or among]

    def _styles(self) -> dict[str, ModelStyle]:
        return model_styles(self._names())

    def _accuracy_by_type(self, out_dir: Path, cells) -> Figure:
        configs = self._configs(cells)
        styles = self._styles()
        fig, axes = subplots(1, wide=len(configs) > 3, height=PANEL_HEIGHT + 0.8)
        ax = axes[0]
        width = 0.8 / max(len(configs), 1)
        for index, (config, label) in enumerate(zip(configs, self._names(configs), strict=True)):
            values, lows, highs = [], [], []
            for type_ in (1, 2, 3, 4):
                key = config.grouped(TYPE_LABELS[type_])
                cell = cells[key]["accuracy"] if key in cells else None
                values.append(cell.value if cell else math.nan)
                lows.append(cell.value - cell.low if cell and not math.isnan(cell.low) else 0)
                highs.append(cell.high - cell.value if cell and not math.isnan(cell.high) else 0)
            positions = np.arange(4) + index * width - 0.4 + width / 2
            ax.bar(
                positions,
                np.nan_to_num(values),
                width,
                yerr=[lows, highs],
                error_kw={"ecolor": "#333333", "elinewidth": 0.7, "capsize": 1.5},
                label=label,
                **bar_style(styles[label]),
            )
        ax.set_xticks(range(4), [TYPE_LABELS[t] for t in (1, 2, 3, 4)])
        ax.tick_params(axis="x", length=0)
        ax.set(ylabel="exact-match accuracy", ylim=(0, 1.05))
        legend_below(fig, axes)
        return save(
            fig,
            out_dir,
            "mentalbench_accuracy_by_type",
            "Accuracy by type",
            "Exact set match per type with 95% case-bootstrap intervals; models in order of "
            "overall accuracy.",
        )

    def _heatmap(self, out_dir: Path, cells) -> Figure:
        configs = self._configs(cells)
        type_ = 2 if any(2 in self.per_code[c] for c in configs) else 1
        codes = sorted({code for c in configs for code in self.per_code[c].get(type_, {})})
        matrix = np.full((len(codes), len(configs)), np.nan)
        for column, config in enumerate(configs):
            for row, code in enumerate(codes):
                correct, total = self.per_code[config].get(type_, {}).get(code, (0, 0))
                if total:
                    matrix[row, column] = correct / total
        # names left (wrapped to 22 characters in a column, 40 on the page), a column of at
        # least 0.35 in per model, the colour bar right
        labels = [_row_label(code, 22) for code in codes]
        wide = COLUMN_WIDTH - _longest(labels) * CHAR_WIDTH - 0.6 < 0.35 * len(configs)
        if wide:
            labels = [_row_label(code, 40) for code in codes]
        row_height = max(max(label.count("\n") + 1 for label in labels) * LINE_HEIGHT, 0.2)
        fig, axes = subplots(1, wide=wide)
        ax = axes[0]
        cells_width = fig.get_figwidth() - _longest(labels) * CHAR_WIDTH - 0.6
        image = ax.imshow(matrix, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_yticks(range(len(codes)), labels)
        depth = label_ticks(ax, self._names(configs), width=14, room=cells_width)
        fig.set_figheight(0.5 + row_height * len(codes) + depth + 0.15)
        ax.tick_params(length=0)
        ax.grid(False)
        for (row, column), value in np.ndenumerate(matrix):
            if not np.isnan(value):
                ax.text(
                    column,
                    row,
                    f"{100 * value:.0f}",
                    ha="center",
                    va="center",
                    color="white" if value < 0.5 else "black",
                )
        bar = fig.colorbar(image, ax=ax, shrink=0.8, aspect=25, pad=0.03, ticks=(0, 0.5, 1))
        bar.ax.set_yticklabels(["0", "50", "100"])
        bar.set_label("accuracy (%)")
        ax.set_title(f"{TYPE_LABELS[type_]} accuracy per disorder")
        names = "; ".join(f"{c} {disorder_names(c)}" for c in codes)
        return save(
            fig,
            out_dir,
            "mentalbench_disorder_heatmap",
            "Models x disorders",
            f"{TYPE_LABELS[type_]} accuracy per disorder (rows) and model (columns, best "
            f"overall first), as the paper's Figure 4 (percent in each cell). {names}.",
        )

    def _error_shares(self, out_dir: Path) -> Figure:
        configs = self._configs()
        shares = {
            config: {
                category: self.categories[config][category]
                / max(sum(self.categories[config].values()), 1)
                for category in CATEGORY_COLOURS
            }
            for config in configs
        }
        configs.sort(key=lambda c: (-shares[c]["correct"], shares[c]["unparsed"]))
        fig, axes = subplots(1, wide=len(configs) > 6, height=PANEL_HEIGHT + 1.2)
        ax = axes[0]
        parts = [(c, c.replace("_", "-"), colour) for c, colour in CATEGORY_COLOURS.items()]
        stacked_shares(ax, [shares[config] for config in configs], parts)
        label_ticks(ax, self._names(configs))
        ax.set(ylabel="share of items", ylim=(0, 1))
        legend_below(fig, axes)
        return save(
            fig,
            out_dir,
            "mentalbench_error_shares",
            "Error types per model",
            "Correct, over-diagnosis (strict superset), under-diagnosis (strict subset), "
            "incorrect and unparsed, as shares of all items; the most often correct first.",
        )

    def _confusions(self, out_dir: Path, top: int = 12) -> Figure:
        pooled: Counter = Counter()
        for counter in self.confusions.values():
            pooled.update(counter)
        common = pooled.most_common(top)[::-1]  # the most frequent at the top
        texts = [
            f"{disorder_names(gold)} → {disorder_names(chosen)}" for (gold, chosen), _ in common
        ]
        labels = [wrap(text, 34) for text in texts]
        wide = max(label.count("\n") + 1 for label in labels) > 3
        if wide:  # long pairs: the page's width, two lines each at most
            labels = [wrap(text, 70) for text in texts]
        lines = max(label.count("\n") + 1 for label in labels)
        fig, axes = subplots(1, wide=wide, height=0.8 + len(common) * (lines * LINE_HEIGHT + 0.1))
        ax = axes[0]
        ax.barh(range(len(common)), [count for _, count in common], color=CATEGORY["blue"])
        ax.set_yticks(range(len(common)), labels)
        ax.tick_params(axis="y", length=0)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(axis="x")
        ax.grid(axis="y", visible=False)
        ax.set(xlabel="wrong Type 4 answers\n(pooled over models)")
        return save(
            fig,
            out_dir,
            "mentalbench_type4_confusions",
            "Most frequent Type 4 confusions",
            "Gold disorder → disorder(s) chosen instead, pooled over models; names as in MentalKG.",
        )


def _row_label(code: str, width: int) -> str:
    """`code` and its disorder names on lines of `width`; where that takes more than two lines,
    without the parenthesised specifiers (the caption names them in full)."""
    label = wrap(f"{code} {disorder_names(code)}", width)
    if label.count("\n") > 1:
        label = wrap(f"{code} {SPECIFIER.sub('', disorder_names(code))}", width)
    return label


def _longest(labels: list[str]) -> int:
    return max((len(line) for label in labels for line in label.split("\n")), default=0)
