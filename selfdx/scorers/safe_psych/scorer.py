"""The Safe-Psych scorer: turns the judged trajectory in the store into per-case values."""

from __future__ import annotations

from typing import Any

from inspect_ai.scorer import Metric, Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from selfdx.arguments import reject_unknown_scorer_args
from selfdx.datasets.strategies import check_strategy
from selfdx.scorers.benchmark_guard import require_benchmark
from selfdx.scorers.key_means import key_means
from selfdx.scorers.safe_psych.outcome import (
    COUNT_KEYS,
    HEADLINE_KEYS,
    INTERVAL_KEYS,
    NAN,
    case_outcome,
    metric_keys,
)
from selfdx.solvers.safe_psych.trace import SafePsychTrace, Turn


def safe_psych_metrics(extra: tuple[str, ...] = ()) -> list[Metric]:
    """One results entry: `<key>` and `<key>_stderr` for the headline keys (those the run's
    strategy has) and `extra`; `<key>_ci_lower` and `<key>_ci_upper` for the paper's headline
    rates; and the counts `excluded_count`, `judge_echo_count` (cases excluded because the
    judge echoed the reply) and `judge_format_reply_count` (cases with a reply in the judge's
    answer format)."""
    return [key_means([*HEADLINE_KEYS, *extra], counts=COUNT_KEYS, intervals=INTERVAL_KEYS)]


def _describe(turns: list[Turn], stop_reason: str, gold_labels: list[str]) -> str:
    steps = []
    for turn in turns:
        action = turn.action or f"unparsed ({turn.unparsed_reason})"
        if turn.imitates_judge:
            action += " [reply in the judge's format]"
        code = f" {', '.join(turn.icd_codes)}" if turn.icd_codes else ""
        steps.append(f"S{turn.stage}: {action}{code} [gold {turn.gold_label}]")
    return " -> ".join(steps) + f"; stop: {stop_reason}; gold labels: {gold_labels}"


@scorer(metrics=safe_psych_metrics())
def safe_psych_scorer(strategy: str | None = None, **unknown: Any) -> Scorer:
    """Score a Safe-Psych trajectory recorded by `staged_disclosure`.

    `strategy` selects which metrics apply (the full-info strategies have no timing metrics);
    by default it is read from the trajectory.
    """
    reject_unknown_scorer_args("selfdx/safe_psych_scorer", unknown, safe_psych_scorer)
    if strategy is not None:
        check_strategy(strategy)

    async def score(state: TaskState, target: Target) -> Score:
        require_benchmark(state.metadata, "Safe-Psych", "safe_psych_scorer", state.sample_id)
        trace = state.store_as(SafePsychTrace)
        # each read of a field validates it again: read them once
        turns, stop_reason, used = trace.turns, trace.stop_reason, strategy or trace.strategy
        outcome = case_outcome(turns, stop_reason, state.metadata, used)
        values = {key: outcome.values.get(key, NAN) for key in metric_keys(strategy)}
        return Score(
            value=values,
            answer=outcome.predicted_code or (stop_reason or None),
            explanation=_describe(turns, stop_reason, state.metadata["gold_labels"]),
            metadata={
                "diagnosed": outcome.diagnosed,
                "first_diagnosis_stage": outcome.first_diagnosis_stage,
                "timing": outcome.timing,
                "predicted_code": outcome.predicted_code,
                "gold_code": state.metadata["diagnosis"],
                "actions": outcome.actions,
                "stop_reason": stop_reason,
                "excluded_reason": outcome.excluded_reason,
            },
        )

    return score
