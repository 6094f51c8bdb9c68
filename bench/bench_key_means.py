"""The MentalBench results entry over a whole run: how long one computation of the metrics
takes, without and with the headline interval (Inspect's bootstrap `ci()` of `accuracy`).

    python bench/bench_key_means.py            # 24,750 scores, 5 alternating rounds

Inspect computes the metrics again while a run goes (for the live display, unless
`--no-score-display`), at most every tenth of the time since the last computation, and once
at the end; this is the cost of each. The scores are synthetic (a 60% accuracy, seed profiles
of 15 items), shaped as the task's: accuracy, the type of the item, the four error shares.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _common import machine, say, spread
from inspect_ai.scorer import SampleScore, Score

from selfdx.scorers.key_means import key_means
from selfdx.scorers.mentalbench.metrics import CLUSTER_KEY, ERROR_KEYS


def scores_of(items: int) -> list[SampleScore]:
    rng = np.random.default_rng(0)
    scores = []
    for i in range(items):
        correct = float(rng.random() < 0.6)
        own = {f"type{t}": correct if t == 1 + i % 4 else float("nan") for t in range(1, 5)}
        value = {"accuracy": correct, **own, **{key: 0.0 for key in ERROR_KEYS}}
        meta = {CLUSTER_KEY: f"g{i // 15}"}
        scores.append(SampleScore(score=Score(value=value), sample_id=i, sample_metadata=meta))
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=24_750)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    say(machine())
    scores = scores_of(args.items)
    keys = ["accuracy", *(f"type{t}" for t in range(1, 5)), *ERROR_KEYS]
    variants = {
        "without intervals": key_means(keys, cluster=CLUSTER_KEY),
        "with the accuracy interval": key_means(keys, cluster=CLUSTER_KEY, intervals=["accuracy"]),
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.rounds):  # alternating, so that drift of the machine hits both
        for name, metric in variants.items():
            start = time.perf_counter()
            metric(scores)
            times[name].append(time.perf_counter() - start)
    for name, found in times.items():
        say(f"{name}: {spread(found)} s, {args.items:,} scores")
    ratios = [b / a for a, b in zip(*times.values(), strict=True)]
    say(f"with / without: {spread(ratios)}")


if __name__ == "__main__":
    main()
