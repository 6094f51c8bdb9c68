"""MentalBench scoring: exact set match of the letters read from the reply against the key.

Each item's score value is a dict of numbers (see `score_values`), so that every metric is
computed from values visible per sample in the log.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from selfdx.arguments import reject_unknown_scorer_args
from selfdx.instruments.answers.parsers import get_parser
from selfdx.scorers.benchmark_guard import require_benchmark
from selfdx.scorers.mentalbench.metrics import ERROR_KEYS, mentalbench_metrics

TYPE_KEYS: tuple[str, ...] = ("type1", "type2", "type3", "type4")


def error_category(predicted: frozenset[str] | None, gold: frozenset[str]) -> str:
    """`correct`, or which kind of error: `over_diagnosis` (P a strict superset of G),
    `under_diagnosis` (P a strict, non-empty subset), `unparsed` (no answer read), or
    `incorrect` (anything else, including an explicit "none of the options")."""
    if predicted is None:
        return "unparsed"
    if gold and predicted == gold:
        return "correct"
    if predicted > gold:
        return "over_diagnosis"
    if predicted and predicted < gold:
        return "under_diagnosis"
    return "incorrect"


def score_values(
    predicted: frozenset[str] | None, gold: frozenset[str], type_: int
) -> dict[str, float]:
    """The per-item numbers behind every metric.

    `accuracy` 1/0; `type1`..`type4` the same for the item's own type and NaN for the others
    (so per-type means skip them); one 1/0 indicator per error kind; and the letter counts
    `letters_hit` |P∩G|, `letters_predicted` |P| and `letters_gold` |G|.
    """
    category = error_category(predicted, gold)
    correct = 1.0 if category == "correct" else 0.0
    chosen = predicted or frozenset()
    values = {"accuracy": correct}
    for index, key in enumerate(TYPE_KEYS, start=1):
        values[key] = correct if index == type_ else math.nan
    for key in ERROR_KEYS:
        values[key] = 1.0 if category == key else 0.0
    values["letters_hit"] = float(len(chosen & gold))
    values["letters_predicted"] = float(len(chosen))
    values["letters_gold"] = float(len(gold))
    return values


@scorer(metrics=mentalbench_metrics())
def mentalbench_scorer(parser: str = "strict", **unknown: Any) -> Scorer:
    """Exact set match per item, with the reply read by the `strict` or `reference` parser."""
    reject_unknown_scorer_args("selfdx/mentalbench_scorer", unknown, mentalbench_scorer)
    read = get_parser(parser)

    async def score(state: TaskState, target: Target) -> Score:
        require_benchmark(state.metadata, "MentalBench", "mentalbench_scorer", state.sample_id)
        options = [choice.value for choice in state.choices]
        parsed = read(state.output.completion, options)
        gold = frozenset(target.target)
        predicted = parsed.letters
        category = error_category(predicted, gold)
        return Score(
            value=score_values(predicted, gold, int(state.metadata["type"])),
            answer=" & ".join(sorted(predicted)) if predicted is not None else None,
            explanation=f"{category}: {parsed.status}, {parsed.reason}",
            metadata={
                "parser": parser,
                "parse_status": parsed.status,
                "category": category,
                "predicted": sorted(predicted) if predicted is not None else None,
                "gold": sorted(gold),
                "prompt_style": state.metadata.get("prompt_style"),
            },
        )

    return score
