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

from selfdx.analysis.figures import Figure, save, subplots
from selfdx.analysis.logs import ConfigKey, Run, score_values
from selfdx.analysis.metric_table import Cell, MetricAccumulator
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
        for group in (None, TYPE_LABELS[type_]):
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
        for group in (None, TYPE_LABELS[type_]):
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
        figures = [
            self._accuracy_by_type(out_dir, cells),
            self._heatmap(out_dir),
            self._error_shares(out_dir),
        ]
        if any(self.confusions.values()):
            figures.append(self._confusions(out_dir))
        return figures

    def _configs(self) -> list[ConfigKey]:
        return list(self.per_code)

    def _names(self) -> list[str]:
        """A label per configuration: the model, with what tells alike models apart."""
        configs = self._configs()
        return [config.label(configs, variant=True) for config in configs]

    def _accuracy_by_type(self, out_dir: Path, cells) -> Figure:
        configs = self._configs()
        fig, axes = subplots(1, width=max(6.0, 1.2 * len(configs) + 3))
        ax = axes[0]
        width = 0.8 / max(len(configs), 1)
        for index, (config, label) in enumerate(zip(configs, self._names(), strict=True)):
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
                capsize=2,
                label=label,
            )
        ax.set_xticks(range(4), [TYPE_LABELS[t] for t in (1, 2, 3, 4)])
        ax.set(ylabel="exact-match accuracy", ylim=(0, 1.05))
        ax.legend(fontsize=7)
        return save(
            fig,
            out_dir,
            "mentalbench_accuracy_by_type",
            "Accuracy by type",
            "Exact set match per type with 95% case-bootstrap intervals.",
        )

    def _heatmap(self, out_dir: Path) -> Figure:
        configs = self._configs()
        type_ = 2 if any(2 in self.per_code[c] for c in configs) else 1
        codes = sorted({code for c in configs for code in self.per_code[c].get(type_, {})})
        matrix = np.full((len(configs), len(codes)), np.nan)
        for row, config in enumerate(configs):
            for column, code in enumerate(codes):
                correct, total = self.per_code[config].get(type_, {}).get(code, (0, 0))
                if total:
                    matrix[row, column] = correct / total
        labels = [f"{code} {disorder_names(code)}" for code in codes]
        longest = max((len(label) for label in labels), default=0)
        fig, axes = subplots(
            1,
            width=max(6.0, 0.45 * len(codes) + 3),
            height=0.45 * len(configs) + 2.5 + 0.055 * longest,  # room for the names below
        )
        ax = axes[0]
        image = ax.imshow(matrix, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(codes)), labels, rotation=90, fontsize=7)
        ax.set_yticks(range(len(configs)), self._names(), fontsize=7)
        for (row, column), value in np.ndenumerate(matrix):
            if not np.isnan(value):
                ax.text(
                    column,
                    row,
                    f"{100 * value:.0f}",
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="white" if value < 0.5 else "black",
                )
        fig.colorbar(image, ax=ax, label="accuracy")
        ax.set_title(f"{TYPE_LABELS[type_]} accuracy per disorder")
        names = "; ".join(f"{c} {disorder_names(c)}" for c in codes)
        return save(
            fig,
            out_dir,
            "mentalbench_disorder_heatmap",
            "Models x disorders",
            f"{TYPE_LABELS[type_]} accuracy per disorder, as the paper's Figure 4 "
            f"(percent in each cell). {names}.",
        )

    def _error_shares(self, out_dir: Path) -> Figure:
        configs = self._configs()
        fig, axes = subplots(1, width=max(6.0, 0.8 * len(configs) + 3))
        ax = axes[0]
        bottoms = np.zeros(len(configs))
        for category in ("correct", *ERROR_KEYS):
            shares = []
            for config in configs:
                counts = self.categories[config]
                shares.append(counts[category] / max(sum(counts.values()), 1))
            ax.bar(range(len(configs)), shares, bottom=bottoms, label=category)
            bottoms += np.array(shares)
        ax.set_xticks(range(len(configs)), self._names(), rotation=45, ha="right", fontsize=7)
        ax.set(ylabel="share of items", ylim=(0, 1))
        ax.legend(fontsize=7)
        return save(
            fig,
            out_dir,
            "mentalbench_error_shares",
            "Error types per model",
            "Correct, over-diagnosis (strict superset), under-diagnosis (strict subset), "
            "incorrect and unparsed, as shares of all items.",
        )

    def _confusions(self, out_dir: Path, top: int = 12) -> Figure:
        pooled: Counter = Counter()
        for counter in self.confusions.values():
            pooled.update(counter)
        common = pooled.most_common(top)[::-1]
        fig, axes = subplots(1, width=7, height=max(3.0, 0.35 * len(common) + 1.5))
        ax = axes[0]
        ax.barh(range(len(common)), [count for _, count in common])
        ax.set_yticks(
            range(len(common)),
            [f"{disorder_names(gold)} → {disorder_names(chosen)}" for (gold, chosen), _ in common],
            fontsize=7,
        )
        ax.set(xlabel="wrong Type 4 answers (pooled over models)")
        return save(
            fig,
            out_dir,
            "mentalbench_type4_confusions",
            "Most frequent Type 4 confusions",
            "Gold disorder → disorder(s) chosen instead, pooled over models; names as in MentalKG.",
        )
