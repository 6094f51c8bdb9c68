"""The solver of `selfdx/patient_check`: ask the `patient` role a probe's scripted questions.

Each probe starts a fresh conversation with the patient model (the interview's own
`PatientChat`: the same instructions, fence and REVEALED line), asks its one question (two
for `repeat`), and keeps every reply in the store (`PatientCheckTrace`).
"""

from __future__ import annotations

from inspect_ai.model import get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel
from pydantic import Field

from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.interview.probe_model import Probe
from selfdx.solvers.interview.patient import PatientChat
from selfdx.solvers.interview.solver import DEFAULT_PATIENT
from selfdx.solvers.interview.trace import PatientReply


class PatientCheckTrace(StoreModel):
    """The questions asked and the patient's replies (None: empty twice)."""

    questions: list[str] = Field(default_factory=list)
    replies: list[PatientReply | None] = Field(default_factory=list)


@solver
def ask_probe() -> Solver:
    """Ask the probe's questions, in order, in one conversation with the patient."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        case = InterviewCase.model_validate(state.metadata["case"])
        probe = Probe.model_validate(state.metadata["probe"])
        chat = PatientChat(get_model(role="patient", default=DEFAULT_PATIENT), case)
        trace = state.store_as(PatientCheckTrace)
        questions, replies = [], []
        for question in probe.questions:
            questions.append(question)
            replies.append(await chat.ask(question))
        trace.questions, trace.replies = questions, replies
        return state

    return solve
