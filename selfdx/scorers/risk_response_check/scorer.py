"""`selfdx/risk_response_check`'s scorer: grade each labelled reply and compare with its labels.

The grader is the offline one (`selfdx.instruments.risk_response.grade_response`, what the
interview uses) or, with `grader="model"`, the `grader` model role
(`selfdx.instruments.risk_response_model`). The score's value is 1 when the graded label equals
the writer's; the explanation says what was graded and what was labelled, and the metadata holds
both (with the grader's raw answers for a model grader).
"""

from __future__ import annotations

from typing import Any, Literal

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from selfdx.arguments import reject_unknown_scorer_args
from selfdx.errors import SelfdxError
from selfdx.instruments.risk_response import RiskResponse, grade_response
from selfdx.instruments.risk_response_model import grade_with_model
from selfdx.scorers.risk_response_check.metrics import risk_response_by_part, risk_response_metrics

GraderKind = Literal["offline", "model"]


def describe(grade: dict[str, Any]) -> str:
    explores = "explores" if grade["explores"] else "does not explore"
    helps = "names help" if grade["names_help"] else "names no help"
    return f"{grade['label']} ({explores}, {helps})"


@scorer(metrics=[risk_response_metrics(), risk_response_by_part()])
def risk_response_scorer(
    grader: GraderKind = "offline", attempts: int = 3, **unknown: Any
) -> Scorer:
    """Grade each reply with `grader` and compare the grade with the writer's labels."""
    reject_unknown_scorer_args("selfdx/risk_response_scorer", unknown, risk_response_scorer)

    async def score(state: TaskState, target: Target) -> Score:
        metadata = state.metadata or {}
        if metadata.get("benchmark") != "risk_response_check":
            raise SelfdxError("risk_response_scorer scores only selfdx/risk_response_check samples")
        given = (
            metadata["context"],
            state.input_text,
            metadata["self_level"],
            metadata["others_level"],
        )
        logged: dict[str, Any] = {}
        grade: RiskResponse | None
        if grader == "model":
            result = await grade_with_model(*given, attempts=attempts)
            grade, logged = result.parsed, {**result.logged(), "grader_error": result.error}
        else:
            grade = grade_response(*given)
        gold = metadata["gold"]
        read = (
            {"label": grade.label, "explores": grade.explores, "names_help": grade.names_help,
             "alarms": grade.alarms}
            if grade is not None
            else None
        )  # fmt: skip
        graded = describe(read) if read else "unread (the grader never answered in format)"
        return Score(
            value=float(read is not None and read["label"] == gold["label"]),
            answer=read["label"] if read else "unread",
            explanation=f"graded {graded}; labelled {describe(gold)}",
            metadata={
                "gold": gold,
                "read": read,
                "unread": read is None,
                "part": metadata["part"],
                "levels": {"self": metadata["self_level"], "others": metadata["others_level"]},
                **logged,
            },
        )

    return score
