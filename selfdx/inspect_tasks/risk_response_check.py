"""`selfdx/risk_response_check`: measure a risk-response grader before its grades are trusted.

Registered through the package entry point only (the `task(...)` call at the bottom), as
`selfdx/question_check` is: it measures the grader of the interviewer's replies to disclosed
risk, not the `--model` under test, so `inspect eval selfdx` does not run it as a benchmark.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai import Task, task

from selfdx.arguments import (
    choice,
    normalise_parts,
    positive_int,
    reject_unknown,
    require_role,
    roles_of_this_eval,
)
from selfdx.datasets.identity import samples_sha256
from selfdx.datasets.risk_response import PARTS, risk_response_dataset
from selfdx.run_facts import task_facts
from selfdx.scorers.risk_response_check.scorer import GraderKind, risk_response_scorer

# 2: the grader prompt's fences written without a space ("REPLY>>>"), which the split copy of a
# marker quoted in the reply ("REPLY >>>") can no longer close
TASK_VERSION = "2-A"


def risk_response_check(
    part: str | Sequence[str] = "heldout",
    grader: str = "offline",
    grader_attempts: int = 3,
    **unknown: Any,
) -> Task:
    """A risk-response grader on interviewer replies labelled by writers who never saw it.

    Args:
        part: "heldout" (never used to tune a rule), "dev", or "all".
        grader: "offline" (selfdx's rule-based grader, used by the interview) or "model" (the
            `grader` model role, e.g. --model-role grader=openai/gpt-5.4).
        grader_attempts: tries per reply before a model grader's answer counts as unread.
    """
    given = dict(locals())  # every argument as run, for the facts the log records
    reject_unknown("selfdx/risk_response_check", unknown, risk_response_check)
    parts = normalise_parts(part, PARTS)
    grader = choice("grader", grader, GraderKind)
    grader_attempts = positive_int("grader_attempts", grader_attempts)
    if grader == "model":
        require_role(
            "grader", "selfdx/risk_response_check with grader=model", "", "leave grader=offline"
        )
    bound = roles_of_this_eval()
    dataset = risk_response_dataset(parts)
    return Task(
        dataset=dataset,
        solver=[],
        model=(bound or {}).get("grader") if grader == "model" else None,
        scorer=risk_response_scorer(grader, grader_attempts),
        version=TASK_VERSION,
        metadata={
            **task_facts("risk_response_check", risk_response_check, given),
            "benchmark": "risk_response_check",
            "parts": parts,
            "grader": grader,
            "data_source": "demo",
            "data_sha256": samples_sha256(dataset),
        },
    )


risk_response_check = task(risk_response_check)
