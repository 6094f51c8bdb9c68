"""selfdx's Inspect tasks, one module each (registered through `selfdx._registry`)."""

from selfdx.inspect_tasks.interview import interview
from selfdx.inspect_tasks.judge_check import judge_check
from selfdx.inspect_tasks.mentalbench import mentalbench
from selfdx.inspect_tasks.mentalbench_generate import mentalbench_generate
from selfdx.inspect_tasks.patient_check import patient_check
from selfdx.inspect_tasks.question_check import question_check
from selfdx.inspect_tasks.risk_response_check import risk_response_check
from selfdx.inspect_tasks.safe_psych import safe_psych

__all__ = [
    "interview",
    "judge_check",
    "mentalbench",
    "mentalbench_generate",
    "patient_check",
    "question_check",
    "risk_response_check",
    "safe_psych",
]
