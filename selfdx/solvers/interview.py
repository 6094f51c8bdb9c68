"""The interview solver: the model questions a simulated patient, then answers (or declines).

`mode="interview"`: the model sees the opening (demographics and one complaint in the
patient's words) and may ask up to `max_questions` questions, each answered by the `patient`
role (default `selfdx/kg-patient`); once the budget is spent it is told to answer. `"initial"`
(the floor): the opening only, no questions. `"full"` (the static ceiling): the whole profile,
or the published narrative, at once. A reply that follows no format gets one reminder; a
second one ends the case without an answer, as does a question once the budget is spent.
"""

from __future__ import annotations

from inspect_ai.model import ChatMessageSystem, ChatMessageUser, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from selfdx.datasets.interview_cases import InterviewCase
from selfdx.datasets.interview_kg import kg_for
from selfdx.solvers.interview_patient import ask_patient
from selfdx.solvers.interview_prompts import (
    diagnosis_code,
    full_prompt,
    opening_prompt,
    parse_reply,
    reminder,
    system_prompt,
    template,
)
from selfdx.solvers.interview_trace import InterviewTrace, InterviewTurn

DEFAULT_PATIENT = "selfdx/kg-patient"


@solver
def interview(
    data: str = "demo",
    mode: str = "interview",
    max_questions: int = 12,
    answer_format: str = "letters",
    full_text: str = "profile",
) -> Solver:
    """Run one interview (or a static presentation) and record it in `InterviewTrace`."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        case = InterviewCase.model_validate(state.metadata["case"])
        kg = kg_for(data)
        trace = state.store_as(InterviewTrace)
        trace.mode, trace.max_questions, trace.answer_format = mode, max_questions, answer_format
        opening = full_prompt(case, full_text) if mode == "full" else opening_prompt(case)
        trace.opening = opening
        elicited = [f.id for f in case.facts] if mode == "full" else [case.complaint]
        budget = max_questions if mode == "interview" else 0
        state.messages = [
            ChatMessageSystem(content=system_prompt(case, mode, answer_format, max_questions)),
            ChatMessageUser(content=opening),
        ]
        patient = get_model(role="patient", default=DEFAULT_PATIENT) if budget else None
        turns: list[InterviewTurn] = []
        reminded = False
        stop = "limit"
        while not state.completed:
            state = await generate(state)
            reply = state.output.completion
            parsed = parse_reply(reply)
            turn = InterviewTurn(index=len(turns) + 1, interviewer=reply, action=parsed.action)
            turns.append(turn)
            if parsed.action == "answer":
                trace.diagnosis_text = parsed.diagnosis
                trace.diagnosis_code = diagnosis_code(
                    parsed.diagnosis or "", case, kg, answer_format
                )
                trace.criteria_claim = parsed.criteria
                stop = "answer"
                break
            if parsed.action == "decline":
                trace.declined = True
                stop = "decline"
                break
            if parsed.action == "question" and trace.questions >= budget:
                if budget == 0 and not reminded:
                    reminded = True
                    state.messages.append(ChatMessageUser(content=reminder(mode)))
                    continue
                stop = "budget" if budget else "unparsed"
                break
            if parsed.action == "unparsed":
                if reminded:
                    stop = "unparsed"
                    break
                reminded = True
                state.messages.append(ChatMessageUser(content=reminder(mode)))
                continue
            assert patient is not None and parsed.question is not None
            turn.question = parsed.question
            answer = await ask_patient(patient, case, turns[:-1], parsed.question)
            if answer is None:
                stop = "patient_failed"
                trace.excluded_reason = "the patient gave an empty reply twice"
                break
            turn.patient = answer
            trace.questions += 1
            elicited += [i for i in answer.revealed if i not in elicited]
            left = budget - trace.questions
            turn.questions_left = left
            name = "relay" if left > 0 else "budget_spent"
            state.messages.append(
                ChatMessageUser(
                    content=template(name).format(reply=answer.shown, questions_left=left)
                )
            )
            trace.turns = turns
        trace.turns = turns
        trace.elicited = elicited
        trace.stop_reason = stop
        return state

    return solve
