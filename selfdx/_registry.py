"""Everything Inspect should find under the `selfdx` entry point: tasks and model providers."""

# ruff: noqa: F401
from selfdx import task_names
from selfdx.inspect_tasks.interview import interview
from selfdx.inspect_tasks.judge_check import judge_check
from selfdx.inspect_tasks.mentalbench import mentalbench
from selfdx.inspect_tasks.mentalbench_generate import mentalbench_generate
from selfdx.inspect_tasks.patient_check import patient_check
from selfdx.inspect_tasks.question_check import question_check
from selfdx.inspect_tasks.risk_response_check import risk_response_check
from selfdx.inspect_tasks.safe_psych import safe_psych
from selfdx.providers.offline import selfdx_offline
from selfdx.scorers.rubrics.caution import caution
from selfdx.scorers.rubrics.diagnosis_agreement import diagnosis_agreement
from selfdx.scorers.safe_psych.rejudge import safe_psych_rejudge
from selfdx.scorers.safe_psych.scorer import safe_psych_scorer

task_names.install()  # a misspelled `selfdx/<task>` names the nearest task
