"""Scoring an interview from its trace: one dict of numbers per case (see `interview_metrics`).

The rule check (`interview_facts.criteria_check`) decides both the gold "criteria met" call
(on every fact of the profile, for the disorder the answer names) and whether a "criteria met"
claim was premature (on the facts elicited by the time of the answer).
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.interview.demo_graph import kg_for
from selfdx.datasets.interview.facts import criteria_check
from selfdx.datasets.mentalkg.model import MentalKG
from selfdx.scorers.interview.metrics import SCORE_KEYS, interview_metrics
from selfdx.solvers.interview.trace import InterviewStop, InterviewTrace

NAN = math.nan


def score_values(case: InterviewCase, trace: InterviewTrace, kg: MentalKG) -> dict[str, float]:
    """The numbers behind every metric, from the case and its trace alone."""
    leaks = float(sum(t.patient.leaks for t in trace.turns if t.patient is not None))
    if trace.excluded_reason:
        values = dict.fromkeys(SCORE_KEYS, NAN)
        values.update(excluded=1.0, patient_leaks=leaks)
        return values
    elicited = set(trace.elicited)
    facts = [f for f in case.facts if f.id in elicited]
    answered = trace.stop_reason == InterviewStop.ANSWER
    code = trace.diagnosis_code if answered else None
    criteria_call = NAN
    premature = 0.0
    if answered and code is not None and code in kg.disorders:
        truth, _ = criteria_check(kg, code, case.facts)
        criteria_call = float(trace.criteria_claim is not None and trace.criteria_claim == truth)
        if trace.criteria_claim:
            premature = float(not criteria_check(kg, code, facts)[0])
    elif answered and trace.criteria_claim:
        premature = NAN  # a name the KG does not know: the claim cannot be checked
    critical = set(case.critical)
    return {
        "accuracy": float(code == case.gold),
        "criteria_call": criteria_call,
        "questions": float(trace.questions),
        "fact_recall": len(elicited & {f.id for f in case.facts}) / len(case.facts),
        "critical_recall": len(elicited & critical) / len(critical) if critical else NAN,
        "premature": premature,
        "no_answer": float(trace.stop_reason not in (InterviewStop.ANSWER, InterviewStop.DECLINE)),
        "declined": float(trace.declined),
        "patient_leaks": leaks,
        "excluded": 0.0,
    }


@scorer(metrics=interview_metrics())
def interview_scorer(data: str = "demo") -> Scorer:
    """Score each interview from `InterviewTrace` and the case in the sample metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        case = InterviewCase.model_validate(state.metadata["case"])
        trace = state.store_as(InterviewTrace)
        kg = kg_for(data)
        values = score_values(case, trace, kg)
        named = trace.diagnosis_code
        return Score(
            value=values,
            answer=trace.diagnosis_text,
            explanation=(
                f"{trace.stop_reason}: named {named or '-'} (key {case.gold}), criteria claim "
                f"{trace.criteria_claim}, {trace.questions} questions, elicited "
                f"{len(trace.elicited)} of {len(case.facts)} facts"
            ),
            metadata={
                "stop_reason": trace.stop_reason,
                "diagnosis_code": named,
                "gold": case.gold,
                "criteria_met_gold": case.criteria_met,
                "mode": trace.mode,
            },
        )

    return score
