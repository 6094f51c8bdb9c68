"""Re-judge a finished Safe-Psych log with another `grader`, without re-running the model.

`inspect score LOG --scorer selfdx/safe_psych_rejudge --model-role grader=<judge>` asks the new
judge about every recorded reply. The trajectory cannot be replayed, so the new actions are
read over the recorded turns: the case ends at the first turn the new judge calls DIAGNOSE or
ABSTAIN; if the new judge would still ask for more after the last recorded turn (which the old
judge had closed early), the case is excluded with that reason. Metrics are then the same as
`safe_psych_scorer`'s, plus `action_agreement`, the share of turns both judges act alike on.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from selfdx.arguments import reject_unknown_scorer_args
from selfdx.judge.behaviour import judge_reply
from selfdx.judge.imitation_guard import imitates_judge
from selfdx.scorers.benchmark_guard import require_benchmark
from selfdx.scorers.safe_psych.outcome import case_outcome, metric_keys
from selfdx.scorers.safe_psych.scorer import safe_psych_metrics
from selfdx.solvers.safe_psych.trace import (
    FINAL_STOPS,
    SafePsychTrace,
    StopReason,
    Turn,
    record_verdict,
)


def _metrics():
    return safe_psych_metrics(extra=("action_agreement",))


@scorer(metrics=_metrics())
def safe_psych_rejudge(
    judge_attempts: int = 3,
    judge_max_tokens: int = 128,
    judge_cache: bool = True,
    **unknown: Any,
) -> Scorer:
    """Score a recorded Safe-Psych trajectory with the current `grader` as the judge."""
    reject_unknown_scorer_args("selfdx/safe_psych_rejudge", unknown, safe_psych_rejudge)

    async def score(state: TaskState, target: Target) -> Score:
        require_benchmark(state.metadata, "Safe-Psych", "safe_psych_rejudge", state.sample_id)
        trace = state.store_as(SafePsychTrace)
        strategy = trace.strategy
        keys = metric_keys(None)
        if strategy == "structured_actions" or not trace.turns:
            return Score(
                value={**dict.fromkeys(keys, math.nan), "action_agreement": math.nan},
                explanation="nothing to re-judge (structured actions or no turns)",
            )
        new_turns: list[Turn] = []
        stop_reason = StopReason.REJUDGE_INCOMPLETE
        same = []
        for turn in trace.turns:
            if turn.unparsed_reason == "empty model reply":
                new_turns.append(turn)
                stop_reason = StopReason.EMPTY_REPLY
                break
            verdict = await judge_reply(turn.reply, judge_attempts, judge_max_tokens, judge_cache)
            new = turn.model_copy(deep=True)
            new.imitates_judge = imitates_judge(turn.reply)  # logs before the flag lack it
            new_turns.append(new)
            if record_verdict(new, verdict) is None:
                stop_reason = StopReason.UNPARSED_JUDGE
                break
            if turn.action is not None:
                same.append(1.0 if new.action == turn.action else 0.0)
            if new.action in FINAL_STOPS:
                stop_reason = StopReason(new.action)
                break
        outcome = case_outcome(new_turns, stop_reason, state.metadata, strategy)
        values = {key: outcome.values.get(key, math.nan) for key in keys}
        values["action_agreement"] = sum(same) / len(same) if same else math.nan
        return Score(
            value=values,
            answer=outcome.predicted_code or stop_reason,
            explanation=" -> ".join(
                f"S{t.stage}: {old.action} -> {t.action or 'unparsed'}"
                for old, t in zip(trace.turns, new_turns, strict=False)
            )
            + f"; stop: {stop_reason}",
            metadata={
                "turns": [
                    {
                        "stage": t.stage,
                        "judge_model": t.judge_model,
                        "primary_answer": t.primary_answer,
                        "info_request": t.info_request,
                        "icd_codes": t.icd_codes,
                        "action": t.action,
                        "original_action": old.action,
                        "judge_outputs": t.judge_outputs,
                        "unparsed_reason": t.unparsed_reason,
                    }
                    for old, t in zip(trace.turns, new_turns, strict=False)
                ],
                "stop_reason": stop_reason,
                "timing": outcome.timing,
                "first_diagnosis_stage": outcome.first_diagnosis_stage,
                "predicted_code": outcome.predicted_code,
                "excluded_reason": outcome.excluded_reason,
            },
        )

    return score
